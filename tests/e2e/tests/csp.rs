//! End-to-end: the built page carries a Content-Security-Policy (written by
//! `scripts/csp.sh` after `trunk build --release`) and runs under it. The
//! release `dist/` is served on 127.0.0.1 and driven in headless Chromium
//! through WebDriver; the test starts and stops its own static server and
//! chromedriver (the harness in `common/mod.rs`).
//!
//! That a recommendation renders proves Trunk's inline loader and the Wasm
//! ran under the policy. Violations are read with a buffered
//! `ReportingObserver`, which also returns the reports queued during load,
//! before any script of ours could listen; a deliberate violation at the end
//! proves the observer sees them.

mod common;

use std::time::Duration;

use common::{browser, dist, serve, wait_for};
use fantoccini::Client;

/// Starts collecting CSP violation reports, including those buffered
/// since the page began loading.
const OBSERVE: &str = r#"
window.__csp = [];
const keep = rs => { for (const r of rs) window.__csp.push(r.body.effectiveDirective + " " + (r.body.blockedURL || "") + " " + (r.body.sample || "")); };
window.__cspObserver = new ReportingObserver(keep, { types: ["csp-violation"], buffered: true });
window.__cspObserver.observe();
"#;

/// The reports so far (after a pause for the observer's queued callback).
const REPORTS: &str = r#"
const done = arguments[arguments.length - 1];
setTimeout(() => {
  const rs = window.__cspObserver.takeRecords();
  for (const r of rs) window.__csp.push(r.body.effectiveDirective + " " + (r.body.blockedURL || "") + " " + (r.body.sample || ""));
  done(window.__csp);
}, 300);
"#;

/// Base64 SHA-256 of every inline script's text, as the browser hashes it.
const INLINE_HASHES: &str = r#"
const done = arguments[arguments.length - 1];
const b64 = buf => btoa(String.fromCharCode(...new Uint8Array(buf)));
Promise.all([...document.querySelectorAll("script:not([src])")].map(s =>
  crypto.subtle.digest("SHA-256", new TextEncoder().encode(s.textContent)).then(b64)))
  .then(done, e => done(["error: " + e]));
"#;

async fn reports(c: &Client) -> Vec<String> {
    let v = c.execute_async(REPORTS, vec![]).await.expect("reports");
    serde_json::from_value(v).expect("strings")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_runs_under_its_content_security_policy() {
    let port = serve(dist());
    let base = format!("http://127.0.0.1:{port}/");
    let (c, _driver) = browser(1280, 2000).await;

    c.goto(&format!("{base}?lang=en")).await.expect("goto");
    // The loader ran under the policy: the Wasm rendered an answer.
    let reco = wait_for(&c, "[data-testid=recommendation]").await.text().await.unwrap_or_default();
    assert!(reco.contains("Recommendation"), "{reco}");
    c.execute(OBSERVE, vec![]).await.expect("observe");

    // The policy is the first child of <head>, same-origin only, with
    // scripts allowed by hash and never by 'unsafe-inline' or 'unsafe-eval'.
    let first = c.execute("const m = document.head.firstElementChild; return [m.tagName, m.httpEquiv || '', m.content || '']", vec![]).await.expect("head");
    let first: Vec<String> = serde_json::from_value(first).expect("strings");
    assert_eq!(first[0], "META", "{first:?}");
    assert!(first[1].eq_ignore_ascii_case("Content-Security-Policy"), "{first:?}");
    let policy = first[2].clone();
    let directives: Vec<&str> = policy.split(';').map(str::trim).collect();
    let directive = |name: &str| {
        directives.iter().find(|d| d.split_whitespace().next() == Some(name)).copied().unwrap_or("")
    };
    assert_eq!(directive("default-src"), "default-src 'self'", "{policy}");
    let script_src = directive("script-src");
    assert!(script_src.starts_with("script-src 'self' 'wasm-unsafe-eval' 'sha256-"), "{policy}");
    assert!(!script_src.contains("'unsafe-inline'") && !script_src.contains("'unsafe-eval'"), "{policy}");
    assert_eq!(directive("style-src").split_whitespace().nth(1), Some("'self'"), "{policy}");
    assert!(!directive("style-src").contains("'unsafe-inline'"), "{policy}");
    assert_eq!(directive("connect-src"), "connect-src 'self'", "{policy}");
    assert_eq!(directive("object-src"), "object-src 'none'", "{policy}");
    assert_eq!(directive("base-uri"), "base-uri 'none'", "{policy}");
    assert_eq!(directive("frame-ancestors"), "", "frame-ancestors is ignored in a <meta>: {policy}");
    for source in policy.split_whitespace() {
        assert!(
            !source.contains("://") && source != "*" && source != "http:" && source != "https:",
            "other origin `{source}` in {policy}"
        );
    }

    // Every inline script in the page is allowed by its hash.
    let hashes = c.execute_async(INLINE_HASHES, vec![]).await.expect("hashes");
    let hashes: Vec<String> = serde_json::from_value(hashes).expect("strings");
    assert!(!hashes.is_empty(), "Trunk's inline loader script is missing");
    for h in &hashes {
        assert!(script_src.contains(&format!("'sha256-{h}'")), "inline script sha256-{h} not in {policy}");
    }

    // Re-renders (language, sorting, another model) raise no violation
    // either; neither did the load (the observer is buffered).
    wait_for(&c, "[data-testid=lang-switch]").await.click().await.expect("click lang");
    tokio::time::sleep(Duration::from_millis(300)).await;
    wait_for(&c, "[data-testid=sort-speed]").await.click().await.expect("sort");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let seen = reports(&c).await;
    assert_eq!(seen, Vec::<String>::new(), "CSP violations under {policy}");
    c.goto(&format!("{base}?v=1&model=llama-3.1-70b&w=fp8&gpu=h100-sxm-80gb&gpus=2&lang=en"))
        .await
        .expect("goto link");
    wait_for(&c, "[data-testid=recommendation]").await;
    c.execute(OBSERVE, vec![]).await.expect("observe again");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let seen = reports(&c).await;
    assert_eq!(seen, Vec::<String>::new(), "CSP violations under {policy}");

    // Every request went to this origin.
    let foreign =
        c.execute("return performance.getEntriesByType('resource').map(e=>e.name).filter(u=>!u.startsWith(location.origin))", vec![]).await.expect("resources");
    assert_eq!(foreign, serde_json::json!([]));

    // The observer does see violations: an inline script added now is
    // blocked and reported (and does not run).
    c.execute("const s = document.createElement('script'); s.textContent = 'window.__ran = 1'; document.body.appendChild(s);", vec![]).await.expect("canary");
    let seen = reports(&c).await;
    assert!(
        seen.iter().any(|r| r.starts_with("script-src")),
        "the canary violation was not reported: {seen:?}"
    );
    assert_eq!(
        c.execute("return window.__ran === undefined", vec![]).await.expect("ran"),
        serde_json::json!(true)
    );
    let _ = c.close().await;
}
