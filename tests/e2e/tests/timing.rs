//! Browser timings of the release page, reported and not asserted (machines
//! are noisy). This is its own test binary so that cargo runs it after the
//! other browser tests, with no second Chromium beside it: the figures then
//! say what one reader's browser does, not what two test browsers sharing
//! this machine's cores do. Writes `tests/e2e/screenshots/timings.json`.

mod common;

use std::time::Duration;

use common::{browser, dist, root, serve, wait_for};

/// Page loads whose first-result times are kept (after one warm-up load).
const LOADS: usize = 7;
/// Input changes per run; the medians are taken over all of them.
const CHANGES: usize = 40;

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn browser_timings() {
    let port = serve(dist());
    let base = format!("http://127.0.0.1:{port}/?lang=en");
    let (c, _driver) = browser(1280, 900).await;
    let load_before = load_average();

    // First result: one warm-up load (the browser's cache is then as a
    // returning reader's), then the median of LOADS loads.
    let mut first = Vec::new();
    for i in 0..=LOADS {
        c.goto(&base).await.expect("goto");
        wait_for(&c, "[data-testid=recommendation]").await;
        let v = c.execute("return window.__whichgpu_first_render_ms", vec![]).await.expect("first render");
        if i > 0 {
            first.push(v.as_f64().expect("first render ms"));
        }
        // The launch card starts the on-demand worker once it comes into
        // view: scroll to it and wait for its texts, so that the input
        // changes below run with the worker up (as a reader who has seen
        // the card has it), and the next load does not share the cores
        // with this page's worker compiling.
        c.execute("document.querySelector('[data-testid=export]').scrollIntoView()", vec![]).await.expect("scroll");
        wait_for(&c, "[data-testid=text-command-pick]").await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;

    // Input to updated DOM: CHANGES edits of the input-token field, each
    // timed from the change event to the page's own render mark. Two runs:
    // the first right after load, while V8 still runs much of the Wasm in
    // its baseline tier (Liftoff) and tiers hot functions up in the
    // background; the second once that is done, as a reader who keeps
    // working sees it.
    let mut runs = Vec::new();
    for _ in 0..2 {
        let m = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const n = arguments[0];
                 const el = document.querySelector('#in-in');
                 const dom = [], evals = [], build = [], commit = [];
                 let i = 0;
                 function step() {
                   if (i >= n) { done({dom, evals, build, commit}); return; }
                   const t0 = performance.now();
                   el.value = String(1000 + 100 * (i++));
                   el.dispatchEvent(new Event('change'));
                   const wait = () => { if (window.__whichgpu_render_ms > t0) { dom.push(window.__whichgpu_render_ms - t0); evals.push(window.__whichgpu_eval_ms); build.push(window.__whichgpu_view_ms - window.__whichgpu_app_ms); commit.push(window.__whichgpu_render_ms - window.__whichgpu_view_ms); step(); } else setTimeout(wait, 0); };
                   wait();
                 }
                 step();",
                vec![serde_json::json!(CHANGES)],
            )
            .await
            .expect("timings");
        let column = |k: &str| -> Vec<f64> { m[k].as_array().expect("array").iter().filter_map(|v| v.as_f64()).collect() };
        assert_eq!(column("dom").len(), CHANGES, "every change rendered");
        runs.push(serde_json::json!({
            "dom_update_ms_median": median(column("dom")),
            "eval_ms_median": median(column("evals")),
            "view_build_ms_median": median(column("build")),
            "dom_commit_ms_median": median(column("commit")),
        }));
    }
    let heap = c.execute("return window.__whichgpu_heap_bytes", vec![]).await.expect("heap");
    let (after_load, warm) = (&runs[0], &runs[1]);
    let out = serde_json::json!({
        "first_result_ms_median": median(first.clone()),
        "first_result_ms": first,
        // The figures the README reports: the second run of changes.
        "dom_update_ms_median": warm["dom_update_ms_median"],
        "eval_ms_median": warm["eval_ms_median"],
        "warm": warm,
        "after_load": after_load,
        "loads": LOADS,
        "changes": CHANGES,
        "heap_bytes": heap,
        "load_average_before": load_before,
        "load_average_after": load_average(),
    });
    println!("browser timings: {out}");
    let d = root().join("tests/e2e/screenshots");
    std::fs::create_dir_all(&d).expect("screenshots dir");
    std::fs::write(d.join("timings.json"), out.to_string()).expect("write timings");
    let _ = c.close().await;
}
