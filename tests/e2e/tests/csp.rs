//! End-to-end: the built page carries a Content-Security-Policy (written by
//! `scripts/csp.sh` after `trunk build --release`) and runs under it. The
//! release `dist/` is served on 127.0.0.1 and driven in headless Chromium
//! through WebDriver; the test starts and stops its own static server and
//! chromedriver (helpers copied from `browser.rs`).
//!
//! That a recommendation renders proves Trunk's inline loader and the Wasm
//! ran under the policy. Violations are read with a buffered
//! `ReportingObserver`, which also returns the reports queued during load,
//! before any script of ours could listen; a deliberate violation at the end
//! proves the observer sees them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A minimal static file server for `dist/` on 127.0.0.1 (one thread).
fn serve(dir: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let dir = dir.clone();
            std::thread::spawn(move || handle(stream, &dir));
        }
    });
    port
}

fn handle(mut stream: TcpStream, dir: &Path) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).map(|n| n == 0).unwrap_or(true) || h == "\r\n" {
            break;
        }
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/").to_string();
    let rel = if path == "/" { "index.html".to_string() } else { path.trim_start_matches('/').to_string() };
    let file = dir.join(&rel);
    let ctype = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        _ => "application/octet-stream",
    };
    let (status, body, ctype) = match (rel.contains(".."), std::fs::File::open(&file)) {
        (false, Ok(mut f)) => {
            let mut b = Vec::new();
            let _ = f.read_to_end(&mut b);
            ("200 OK", b, ctype)
        }
        _ => ("404 Not Found", b"not found".to_vec(), "text/plain"),
    };
    // No CSP header: the policy under test is the page's own <meta>.
    let head = format!("HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
}

struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

async fn browser(width: u32, height: u32) -> (Client, Driver) {
    let chromedriver = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
    let port = free_port();
    let child = Command::new(&chromedriver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {chromedriver}: {e}"));
    let driver = Driver(child);
    let profile = std::env::temp_dir().join(format!("whichgpu-e2e-{port}"));
    let caps: serde_json::Map<String, serde_json::Value> = serde_json::from_value(serde_json::json!({
        "goog:chromeOptions": {
            "binary": std::env::var("CHROME").unwrap_or_else(|_| "/usr/bin/chromium".into()),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                     format!("--user-data-dir={}", profile.display()), format!("--window-size={width},{height}")]
        }
    }))
    .expect("caps");
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        if let Ok(c) = ClientBuilder::new(connector).capabilities(caps.clone()).connect(&url).await {
            return (c, driver);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("chromedriver did not come up on {url}");
}

async fn wait_for(c: &Client, css: &str) -> fantoccini::elements::Element {
    c.wait().at_most(Duration::from_secs(20)).for_element(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no {css}: {e}"))
}

fn dist() -> PathBuf {
    let d = root().join("dist");
    assert!(d.join("index.html").exists(), "dist/ is missing: run `trunk build --release` (scripts/test.sh does)");
    d
}

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
    let first = c
        .execute("const m = document.head.firstElementChild; return [m.tagName, m.httpEquiv || '', m.content || '']", vec![])
        .await
        .expect("head");
    let first: Vec<String> = serde_json::from_value(first).expect("strings");
    assert_eq!(first[0], "META", "{first:?}");
    assert!(first[1].eq_ignore_ascii_case("Content-Security-Policy"), "{first:?}");
    let policy = first[2].clone();
    let directives: Vec<&str> = policy.split(';').map(str::trim).collect();
    let directive = |name: &str| directives.iter().find(|d| d.split_whitespace().next() == Some(name)).copied().unwrap_or("");
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
        assert!(!source.contains("://") && source != "*" && source != "http:" && source != "https:", "other origin `{source}` in {policy}");
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
    c.goto(&format!("{base}?v=1&model=llama-3.1-70b&w=fp8&gpu=h100-sxm-80gb&gpus=2&lang=en")).await.expect("goto link");
    wait_for(&c, "[data-testid=recommendation]").await;
    c.execute(OBSERVE, vec![]).await.expect("observe again");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let seen = reports(&c).await;
    assert_eq!(seen, Vec::<String>::new(), "CSP violations under {policy}");

    // Every request went to this origin.
    let foreign = c
        .execute("return performance.getEntriesByType('resource').map(e=>e.name).filter(u=>!u.startsWith(location.origin))", vec![])
        .await
        .expect("resources");
    assert_eq!(foreign, serde_json::json!([]));

    // The observer does see violations: an inline script added now is
    // blocked and reported (and does not run).
    c.execute("const s = document.createElement('script'); s.textContent = 'window.__ran = 1'; document.body.appendChild(s);", vec![])
        .await
        .expect("canary");
    let seen = reports(&c).await;
    assert!(seen.iter().any(|r| r.starts_with("script-src")), "the canary violation was not reported: {seen:?}");
    assert_eq!(c.execute("return window.__ran === undefined", vec![]).await.expect("ran"), serde_json::json!(true));
    let _ = c.close().await;
}
