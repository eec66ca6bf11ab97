//! End-to-end: the release `dist/` served on 127.0.0.1, driven in headless
//! Chromium through WebDriver. The test starts and stops its own static
//! server and chromedriver. Build `dist/` first (`scripts/test.sh` does).

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{browser, dist, root, serve, viewport, wait_for};
use fantoccini::{Client, Locator};
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::evaluate::evaluate_query;

async fn memory_bytes(c: &Client) -> f64 {
    let el = wait_for(c, "[data-testid=memory-total]").await;
    el.attr("data-bytes").await.ok().flatten().and_then(|v| v.parse().ok()).expect("data-bytes")
}

async fn text(c: &Client, css: &str) -> String {
    wait_for(c, css).await.text().await.unwrap_or_default()
}

fn expected_total(query: &str) -> f64 {
    let catalog = Catalog::bundled().expect("catalog");
    evaluate_query(query, catalog, Date::parse("2026-11-29").expect("date")).memory.total_bytes
}

fn shot_dir() -> PathBuf {
    let d = root().join("tests/e2e/screenshots");
    let _ = std::fs::create_dir_all(&d);
    d
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_end_to_end() {
    let port = serve(dist());
    let base = format!("http://127.0.0.1:{port}/");
    let (c, _driver) = browser(1280, 2000).await;

    // Default load shows a real recommendation.
    c.goto(&format!("{base}?lang=en")).await.expect("goto");
    let reco = text(&c, "[data-testid=recommendation]").await;
    assert!(reco.contains("Recommendation") && reco.contains("tok/s"), "{reco}");
    let before = memory_bytes(&c).await;
    assert!(before > 1e9);

    // The recommendation names the layout and the replica count.
    let layout = text(&c, "[data-testid=pick-layout]").await;
    assert!(
        layout.contains("replica") && (layout.contains("copy") || layout.contains("load balancer")),
        "{layout}"
    );

    // Changing an input changes the numbers and the URL.
    let input = wait_for(&c, "#in-in").await;
    // Select the old value and type over it, as a user does.
    input.send_keys("\u{E009}a\u{E009}").await.expect("select all");
    input.send_keys("16000\t").await.expect("type");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = memory_bytes(&c).await;
    let dbg = c.execute("return location.search + ' | ' + (document.querySelector('[data-testid=notice]')||{}).textContent", vec![]).await.expect("dbg");
    assert!(after > before, "memory {before} → {after}; {dbg}");
    let url = c.current_url().await.expect("url");
    assert!(url.as_str().contains("in=16000") && url.as_str().contains("v=1"), "{url}");

    // A share link reproduces the numbers the core (and the CLI) computes.
    let q = "v=1&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16&gpu=h100-sxm-80gb&gpus=2&lang=en";
    c.goto(&format!("{base}?{q}")).await.expect("goto link");
    let shown = memory_bytes(&c).await;
    let want = expected_total(q);
    assert!((shown - want).abs() <= 1.0, "page {shown} vs core {want}");
    assert_eq!(
        wait_for(&c, "#in-model").await.prop("value").await.ok().flatten().as_deref(),
        Some("llama-3.1-70b")
    );

    // Bad values: a visible notice naming the keys; defaults for those keys.
    c.goto(&format!("{base}?v=1&in=-5&frobnicate=1&model=llama-3.1-8b&lang=en")).await.expect("goto bad");
    let notice = text(&c, "[data-testid=notice]").await;
    assert!(notice.contains("in") && notice.contains("frobnicate"), "{notice}");
    assert_eq!(wait_for(&c, "#in-in").await.prop("value").await.ok().flatten().as_deref(), Some("2000"));

    // Names from a link render as text: nothing executes.
    c.goto(&format!("{base}?v=1&region=%3Cimg%20src%3Dx%20onerror%3D%22window.pwned%3D1%22%3E&model=%3Cscript%3Ewindow.pwned%3D2%3C%2Fscript%3E"))
        .await
        .expect("goto xss");
    wait_for(&c, "[data-testid=recommendation]").await;
    let pwned = c.execute("return window.pwned === undefined", vec![]).await.expect("exec");
    assert_eq!(pwned, serde_json::json!(true));

    // The Chinese texts are fetched when the page turns Chinese: with the
    // fetch failing, the page stays in English and a notice names the file.
    c.goto(&format!("{base}?lang=en")).await.expect("goto");
    wait_for(&c, "[data-testid=lang-switch]").await;
    c.execute(
        "window.__fetch = window.fetch; window.fetch = () => Promise.reject(new TypeError('offline'))",
        vec![],
    )
    .await
    .expect("break fetch");
    wait_for(&c, "[data-testid=lang-switch]").await.click().await.expect("click lang");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let notice = text(&c, "[data-testid=notice]").await;
    assert!(
        notice.contains("messages-zh-") && notice.contains("offline") && notice.contains("English"),
        "{notice}"
    );
    assert!(!text(&c, "[data-testid=recommendation]").await.contains("推荐方案"));
    // Choosing Chinese again, with the network back, retries.
    c.execute("window.fetch = window.__fetch", vec![]).await.expect("mend fetch");
    wait_for(&c, "[data-testid=lang-switch]").await.click().await.expect("click lang again");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(text(&c, "[data-testid=recommendation]").await.contains("推荐方案"));

    // Language switch changes the text.
    c.goto(&format!("{base}?lang=en")).await.expect("goto");
    wait_for(&c, "[data-testid=lang-switch]").await.click().await.expect("click lang");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let zh = text(&c, "[data-testid=recommendation]").await;
    assert!(zh.contains("推荐方案"), "{zh}");
    assert!(c.current_url().await.expect("url").as_str().contains("lang=zh"));

    // The table sorts by speed when its header is clicked, and exports CSV.
    c.goto(&format!("{base}?lang=en")).await.expect("goto");
    wait_for(&c, "[data-testid=sort-speed]").await.click().await.expect("sort");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let speeds = c
        .execute(
            "return [...document.querySelectorAll('[data-testid=offers] tbody tr.fit td[data-speed]')].slice(0,5).map(td=>parseFloat(td.dataset.speed))",
            vec![],
        )
        .await
        .expect("speeds");
    let v: Vec<f64> = serde_json::from_value(speeds).expect("numbers");
    // Fastest first; offers within 5 % of a run's best are ordered by cost
    // (offers::rank), so a later row may be up to 1/0.95 × an earlier one.
    assert!(v.len() >= 2 && v.windows(2).all(|w| w[1] <= w[0] / 0.95), "{v:?}");
    c.execute("window.__csv=null;const o=URL.createObjectURL;URL.createObjectURL=b=>{b.text().then(t=>window.__csv=t);return o(b)}", vec![])
        .await
        .expect("hook");
    wait_for(&c, "[data-testid=export-csv]").await.click().await.expect("export");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let csv = c.execute("return window.__csv", vec![]).await.expect("csv");
    let csv = csv.as_str().unwrap_or_default().to_string();
    assert!(
        csv.starts_with("id,provider,instance") && csv.lines().count() > 100,
        "{}",
        &csv[..csv.len().min(200)]
    );

    // Each offer's source and price date from its row: first with the fetch
    // failing (a clear message in the page's language), then for real.
    c.goto(&format!("{base}?lang=zh")).await.expect("goto");
    wait_for(&c, "[data-testid=offers] tbody tr [data-testid=source-btn]").await;
    c.execute(
        "window.__fetch = window.fetch; window.fetch = () => Promise.reject(new TypeError('offline'))",
        vec![],
    )
    .await
    .expect("break fetch");
    wait_for(&c, "[data-testid=offers] tbody tr [data-testid=source-btn]")
        .await
        .click()
        .await
        .expect("open source");
    let failed = text(&c, "[data-testid=source-view] [data-testid=source-error]").await;
    assert!(
        failed.contains("无法从") && failed.contains("offers.csv") && failed.contains("offline"),
        "{failed}"
    );
    wait_for(&c, "[data-testid=source-view] button").await.click().await.expect("close");
    c.execute("window.fetch = window.__fetch", vec![]).await.expect("mend fetch");
    // Keyboard: focus the first row's button, open it with Enter.
    let first = wait_for(&c, "[data-testid=offers] tbody tr")
        .await
        .attr("data-offer")
        .await
        .ok()
        .flatten()
        .expect("data-offer");
    c.execute(
        "document.querySelector('[data-testid=offers] tbody tr [data-testid=source-btn]').focus()",
        vec![],
    )
    .await
    .expect("focus");
    c.active_element().await.expect("active").send_keys("\u{E007}").await.expect("enter");
    let shown = text(&c, "[data-testid=source-view] [data-testid=source-text]").await;
    let catalog = Catalog::bundled().expect("catalog");
    let offer = catalog.offers.iter().find(|o| *o.id == *first).expect("offer in the catalog");
    assert!(
        shown.starts_with("来源") && shown.contains(offer.source.split_whitespace().next().unwrap_or("?")),
        "{first}: {shown}"
    );
    let date = text(&c, "[data-testid=source-view] [data-testid=source-date]").await;
    assert!(date.contains(&offer.as_of.to_string()), "{date}");
    std::fs::write(shot_dir().join("source-view-zh.png"), c.screenshot().await.expect("screenshot"))
        .expect("write screenshot");
    // Escape closes the view and the focus returns to the row's button.
    c.active_element().await.expect("active").send_keys("\u{E00C}").await.expect("escape");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = js(&c, "return [document.querySelector('[data-testid=source-view]') === null, (document.activeElement||{}).dataset.testid || '']").await;
    assert_eq!(after, serde_json::json!([true, "source-btn"]), "after Escape");
    // The method card's accuracy table comes from static/accuracy.csv.
    let acc = text(&c, "[data-testid=accuracy]").await;
    assert!(acc.contains("解码速度") && acc.contains("留出集"), "{acc}");

    // Keyboard only: focus the weight-format select with Tab, change it with the arrow keys.
    c.goto(&format!("{base}?lang=en")).await.expect("goto");
    wait_for(&c, "#in-w").await;
    let before = memory_bytes(&c).await;
    let mut reached = false;
    for _ in 0..20 {
        c.active_element().await.expect("active").send_keys("\u{E004}").await.expect("tab");
        let id = c
            .execute("return document.activeElement && document.activeElement.id", vec![])
            .await
            .expect("id");
        if id == serde_json::json!("in-w") {
            reached = true;
            break;
        }
    }
    assert!(reached, "Tab never reached the weight-format select");
    c.active_element().await.expect("active").send_keys("\u{E013}").await.expect("arrow up: bf16 to fp32");
    c.active_element().await.expect("active").send_keys("\u{E004}").await.expect("tab away");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = memory_bytes(&c).await;
    assert!(after != before, "keyboard change did not change the memory ({before})");

    // Every request went to this origin.
    let foreign =
        c.execute("return performance.getEntriesByType('resource').map(e=>e.name).filter(u=>!u.startsWith(location.origin))", vec![]).await.expect("resources");
    assert_eq!(foreign, serde_json::json!([]));

    // Embed mode posts its height to the parent page.
    c.goto(&format!("http://127.0.0.1:{port}/__host.html")).await.expect("host");
    let mut height = 0.0;
    for _ in 0..100 {
        let h = c
            .execute("return window.heights.length ? window.heights[window.heights.length-1] : 0", vec![])
            .await
            .expect("h");
        height = h.as_f64().unwrap_or(0.0);
        if height > 100.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(height > 100.0, "no height message from the embedded page");

    // Browser timings: tests/timing.rs, its own binary, run alone.

    // Screenshots of the default page: both languages, both themes.
    for (lang, theme) in [("en", "light"), ("zh", "light"), ("en", "dark"), ("zh", "dark")] {
        c.goto(&format!("{base}?lang={lang}&theme={theme}")).await.expect("goto");
        wait_for(&c, "[data-testid=recommendation]").await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let png = c.screenshot().await.expect("screenshot");
        std::fs::write(shot_dir().join(format!("default-{lang}-{theme}.png")), png)
            .expect("write screenshot");
    }
    // A generation link prices the unit it makes: $ per 1000 images.
    c.goto(&format!("{base}?lang=en&task=generate&model=flux.1-dev")).await.expect("goto gen");
    let unit = text(&c, "[data-testid=unit-col]").await;
    assert_eq!(unit, "$ per 1000 images");
    let rows = c
        .execute("return document.querySelectorAll('[data-testid=offers] tbody tr').length", vec![])
        .await
        .expect("rows");
    assert!(rows.as_u64().unwrap_or(0) > 0, "no offers for FLUX");

    // A provider that publishes no storage price: the part is named, not $0.
    c.goto(&format!("{base}?lang=en&provider=vastai")).await.expect("goto vastai");
    let mark = text(&c, "[data-testid=offers] tbody tr [data-part=storage]").await;
    assert_eq!(mark, "storage: not published");
    c.goto(&format!("{base}?lang=zh&provider=vastai")).await.expect("goto vastai zh");
    let mark = text(&c, "[data-testid=offers] tbody tr [data-part=storage]").await;
    assert_eq!(mark, "存储：未公布");
    // A Chinese link shows yuan (cur defaults to cny), converted prices
    // marked, and the rate with its date under the table.
    let offers = text(&c, "[data-testid=offers]").await;
    assert!(offers.contains('¥') && offers.contains('*') && !offers.contains('$'), "{offers}");
    let note = text(&c, "[data-testid=converted]").await;
    assert!(note.contains("1 美元 =") && note.contains("CNY"), "{note}");

    // The commit select and, for jobs, the per-job input with the task's label.
    c.goto(&format!("{base}?lang=en&task=generate&model=flux.1-dev&use=jobs&per_job=500&commit=1yr"))
        .await
        .expect("goto jobs");
    assert_eq!(wait_for(&c, "#in-commit").await.prop("value").await.ok().flatten().as_deref(), Some("1yr"));
    assert_eq!(wait_for(&c, "#in-per_job").await.prop("value").await.ok().flatten().as_deref(), Some("500"));
    let label = text(&c, "label[for=in-per_job]").await;
    assert!(label.starts_with("Images per job"), "{label}");
    assert_eq!(text(&c, "[data-testid=unit-col]").await, "$ per job");

    // Notices in the page's language.
    c.goto(&format!("{base}?lang=zh&task=nope&batch=-1")).await.expect("goto zh notices");
    let notice = text(&c, "[data-testid=notice]").await;
    assert!(
        notice.contains("不是") && notice.contains("task") && notice.contains("1 到 100000 之间的整数"),
        "{notice}"
    );
    assert!(!notice.contains("is not valid"), "{notice}");

    // A Chinese generation page at full width.
    c.goto(&format!("{base}?lang=zh&task=generate&model=flux.1-dev&theme=light")).await.expect("goto zh gen");
    wait_for(&c, "[data-testid=unit-col]").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    std::fs::write(shot_dir().join("generate-flux-zh-wide.png"), c.screenshot().await.expect("screenshot"))
        .expect("write screenshot");

    // Fine-tuning an image model: the form lists image generators and the
    // answer shows the training memory breakdown.
    c.goto(&format!(
        "{base}?lang=en&task=finetune&model=flux.1-dev&method=qlora&res=1024x1024&enc_offload=1"
    ))
    .await
    .expect("goto");
    wait_for(&c, "[data-testid=recommendation]").await;
    let total = wait_for(&c, "[data-testid=memory-total]")
        .await
        .attr("data-bytes")
        .await
        .expect("attr")
        .unwrap_or_default();
    let gib = total.parse::<f64>().unwrap_or(0.0) / 1_073_741_824.0;
    assert!(gib > 5.0 && gib < 16.0, "FLUX QLoRA memory {gib} GiB");
    let selected =
        c.execute("return document.querySelector('#in-model').value", vec![]).await.expect("model");
    assert_eq!(selected.as_str(), Some("flux.1-dev"));
    tokio::time::sleep(Duration::from_millis(200)).await;
    std::fs::write(shot_dir().join("finetune-flux-qlora.png"), c.screenshot().await.expect("screenshot"))
        .expect("write screenshot");
    let _ = c.close().await;
}

/// The launch card: copying the pick's SkyPilot task puts exactly the
/// visible text on the clipboard, and that text asks for the pick's GPUs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_export_gives_the_visible_task() {
    let port = serve(dist());
    let (c, _driver) = browser(1280, 2000).await;
    let q = "v=1&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16&lang=en";
    c.goto(&format!("http://127.0.0.1:{port}/?{q}")).await.expect("goto");
    // The card asks for its texts once it comes into view.
    wait_for(&c, "[data-testid=export]").await;
    c.execute("document.querySelector('[data-testid=export]').scrollIntoView()", vec![])
        .await
        .expect("scroll");
    let shown = text(&c, "[data-testid=text-skypilot-pick]").await;
    assert!(
        shown.contains("resources:") && shown.contains("accelerators: ") && shown.contains("use_spot: "),
        "{shown}"
    );
    let pick = text(&c, "[data-testid=pick-offer]").await;
    assert!(!pick.is_empty());
    // Headless Chromium may refuse the clipboard: record what the page writes.
    c.execute(
        "window.__clip=null;navigator.clipboard.writeText=t=>{window.__clip=t;return Promise.resolve()}",
        vec![],
    )
    .await
    .expect("hook");
    let button = wait_for(&c, "[data-testid=copy-skypilot-pick]").await;
    assert_eq!(button.text().await.unwrap_or_default(), "Copy");
    button.click().await.expect("click copy");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let clip = c.execute("return window.__clip", vec![]).await.expect("clip");
    let clip = clip.as_str().unwrap_or_default().to_string();
    let pre = c
        .execute("return document.querySelector('[data-testid=text-skypilot-pick]').textContent", vec![])
        .await
        .expect("pre");
    assert_eq!(Some(clip.as_str()), pre.as_str(), "the clipboard holds the visible task");
    assert!(clip.starts_with("# whichgpu: SkyPilot task for offer "), "{clip}");
    assert_eq!(text(&c, "[data-testid=copy-skypilot-pick]").await, "Copied");
    // The command block is there too, with the pick's engine and the
    // catalog's repository as the model unless MODEL is set.
    let cmd = text(&c, "[data-testid=text-command-pick]").await;
    assert!(
        cmd.contains("vllm serve ${MODEL:-meta-llama/Llama-3.1-70B-Instruct} --tensor-parallel-size"),
        "{cmd}"
    );
    let _ = c.close().await;
}

/// Whether the page has requested any of the on-demand worker's files.
async fn worker_loaded(c: &Client) -> bool {
    let v = c
        .execute(
            "return performance.getEntriesByType('resource').some(e => e.name.includes('whichgpu-worker'))",
            vec![],
        )
        .await
        .expect("resources");
    v.as_bool().unwrap_or(true)
}

/// The launch card downloads the on-demand worker only when it is needed:
/// below the first screen, not until it is scrolled near; in an embedded
/// view (`embed=1`), not until the reader opens the card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_waits_for_the_launch_card() {
    let port = serve(dist());
    let (c, _driver) = viewport(1280, 600).await;
    let base = format!("http://127.0.0.1:{port}/?lang=en");
    c.goto(&base).await.expect("goto");
    wait_for(&c, "[data-testid=recommendation]").await;
    let below =
        c.execute("const r = document.querySelector('[data-testid=export]').getBoundingClientRect(); return r.top - innerHeight", vec![]).await.expect("where");
    assert!(
        below.as_f64().unwrap_or(0.0) > 300.0,
        "the launch card is not below the first screen ({below}): the test needs it there"
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(!worker_loaded(&c).await, "the worker was fetched before the card came into view");
    c.execute("document.querySelector('[data-testid=export]').scrollIntoView()", vec![])
        .await
        .expect("scroll");
    assert!(text(&c, "[data-testid=text-command-pick]").await.contains("serve"));
    assert!(worker_loaded(&c).await);

    c.goto(&format!("{base}&embed=1")).await.expect("goto embed");
    wait_for(&c, "[data-testid=recommendation]").await;
    c.execute("document.querySelector('[data-testid=export]').scrollIntoView()", vec![])
        .await
        .expect("scroll");
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(!worker_loaded(&c).await, "an embedded view fetched the worker before the card was opened");
    wait_for(&c, "[data-testid=export-open] summary").await.click().await.expect("open the card");
    assert!(text(&c, "[data-testid=text-command-pick]").await.contains("serve"));
    assert!(worker_loaded(&c).await);
    let _ = c.close().await;
}

/// Sets a textarea's value as a paste does and fires its `change`.
async fn paste(c: &Client, css: &str, text: &str) {
    c.execute(
        "const el = document.querySelector(arguments[0]); el.value = arguments[1]; el.dispatchEvent(new Event('change', {bubbles: true}));",
        vec![serde_json::Value::String(css.into()), serde_json::Value::String(text.into())],
    )
    .await
    .expect("paste");
}

/// Waits until the URL holds `part` (the page writes it after each change).
async fn url_with(c: &Client, part: &str) -> String {
    for _ in 0..50 {
        let url = c.current_url().await.expect("url").to_string();
        if url.contains(part) {
            return url;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the URL never held {part}: {}", c.current_url().await.expect("url"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_json_paste_import() {
    let port = serve(dist());
    let base = format!("http://127.0.0.1:{port}/");
    let (c, _driver) = browser(1280, 2000).await;
    c.goto(&format!("{base}?lang=en&model=llama-3.2-1b&gpu=h100-sxm-80gb")).await.expect("goto");
    let before = memory_bytes(&c).await;

    // Pasting Llama 3.1 70B's config.json makes the link the architecture.
    wait_for(&c, "[data-testid=hfconfig] summary").await.click().await.expect("open the import");
    let config =
        std::fs::read_to_string(root().join("tests/data/hf-configs/meta-llama--Meta-Llama-3.1-70B.json"))
            .expect("config.json");
    paste(&c, "[data-testid=hfconfig-paste]", &config).await;
    let url = url_with(&c, "model=custom").await;
    for part in ["layers=80", "hidden=8192", "kv_heads=8", "vocab=128256", "context=131072"] {
        assert!(url.contains(part), "{url} has {part}");
    }
    let after = memory_bytes(&c).await;
    assert!(after > 10.0 * before, "memory {before} → {after}");
    // The shared link alone gives the same numbers as the core.
    let query = url.split_once('?').map(|(_, q)| q.to_string()).unwrap_or_default();
    let want = expected_total(&query);
    assert!((after - want).abs() <= 1.0, "page {after} vs core {want} for {query}");

    // A file without a field: a notice naming it, and the last good architecture stays.
    paste(&c, "[data-testid=hfconfig-paste]", &config.replace("\"num_hidden_layers\"", "\"layers_renamed\""))
        .await;
    let notice = text(&c, "[data-testid=notice]").await;
    assert!(notice.contains("num_hidden_layers"), "{notice}");
    assert_eq!(c.current_url().await.expect("url").to_string(), url, "a bad file changes nothing");
    assert_eq!(memory_bytes(&c).await, after);

    // The import's labels in Chinese.
    c.goto(&format!("{base}?{query}&lang=zh")).await.expect("goto zh");
    let summary = text(&c, "[data-testid=hfconfig] summary").await;
    assert!(summary.contains("导入"), "{summary}");
    let _ = c.close().await;
}

/// The offer ids the offers table shows.
async fn table_ids(c: &Client) -> Vec<String> {
    let ids = js(c, "return [...document.querySelectorAll('[data-testid=offers] tbody tr[data-offer]')].map(r => r.dataset.offer)").await;
    ids.as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// An offers file pasted into the advanced section (parsed by the on-demand
/// module) replaces the offers; a bad one is the parser's own notice, and the
/// imported catalog stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offers_file_import() {
    let port = serve(dist());
    let (c, _driver) = browser(1280, 2000).await;
    c.goto(&format!("http://127.0.0.1:{port}/?lang=en&model=llama-3.1-8b")).await.expect("goto");
    wait_for(&c, "[data-testid=offers] tbody tr").await;
    wait_for(&c, "[data-testid=advanced] summary").await.click().await.expect("open the advanced inputs");
    let full = std::fs::read_to_string(root().join("static/offers.csv")).expect("offers.csv");
    let ten: String = full.lines().take(11).map(|l| format!("{l}\n")).collect();
    let want: Vec<String> = whichgpu::core::catalog::offers::parse_offers_any("import", &ten)
        .expect("parses")
        .iter()
        .map(|o| o.id.to_string())
        .collect();
    paste(&c, "[data-testid=import]", &ten).await;
    wait_for(&c, "[data-testid=imported]").await;
    let mut shown = Vec::new();
    for _ in 0..50 {
        shown = table_ids(&c).await;
        if !shown.is_empty() && shown.iter().all(|id| want.contains(id)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        !shown.is_empty() && shown.iter().all(|id| want.contains(id)),
        "table {shown:?}, imported {want:?}"
    );
    // A file that does not parse: the parser's message, and the imported offers stay.
    let bad = "id,nothing\n1,2\n";
    let why =
        whichgpu::core::catalog::offers::parse_offers_any("import", bad).expect_err("refused").to_string();
    paste(&c, "[data-testid=import]", bad).await;
    let mut notice = String::new();
    for _ in 0..50 {
        notice = text(&c, "[data-testid=notice]").await;
        if notice.contains(&why) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(notice.contains(&why), "{notice} names {why}");
    assert_eq!(table_ids(&c).await, shown, "a bad file changes nothing");
    let _ = c.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn narrow_screen_is_one_column() {
    let port = serve(dist());
    let (c, _driver) = viewport(360, 1400).await;
    c.goto(&format!("http://127.0.0.1:{port}/?lang=en")).await.expect("goto");
    wait_for(&c, "[data-testid=recommendation]").await;
    let wide = c
        .execute("return [...document.querySelectorAll('body *')].filter(e=>e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.scroll')).slice(0,5).map(e=>e.tagName+'.'+e.className+' '+Math.round(e.getBoundingClientRect().right))", vec![])
        .await
        .expect("w");
    assert_eq!(wide, serde_json::json!([]), "elements wider than a 360 px screen");
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(shot_dir().join("narrow-360.png"), png).expect("write");
    let _ = c.close().await;
}

/// axe-core, installed pinned by `scripts/setup.sh test` into the tools
/// directory; read from disk here and injected by WebDriver, never shipped.
fn axe_source() -> String {
    let tools = std::env::var("WHICHGPU_TOOLS").map(PathBuf::from).unwrap_or_else(|_| {
        PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".local/share/whichgpu-tools")
    });
    let path = tools.join("node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/setup.sh test)", path.display()))
}

async fn js(c: &Client, script: &str) -> serde_json::Value {
    c.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

async fn top(c: &Client, css: &str) -> f64 {
    wait_for(c, css).await;
    let v = c
        .execute(
            "return document.querySelector(arguments[0]).getBoundingClientRect().top",
            vec![serde_json::json!(css)],
        )
        .await
        .expect("top");
    v.as_f64().unwrap_or(f64::NAN)
}

/// Eight views (English and Chinese, light and dark, 1280×900 and 360×800):
/// the answer on the first screen, the order on a phone, no sideways
/// scroll, readable and named chart points, and no serious or critical
/// axe-core violation. Screenshots of each under tests/e2e/screenshots/.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn layout_charts_and_accessibility() {
    let port = serve(dist());
    let base = format!("http://127.0.0.1:{port}/");
    let axe = axe_source();
    let mut problems: Vec<String> = Vec::new();
    let mut overlaps: Vec<String> = Vec::new();
    for (width, height, size) in [(1280u32, 900u32, "wide"), (360, 800, "narrow")] {
        let (c, _driver) = viewport(width, height).await;
        for (lang, theme) in [("en", "light"), ("en", "dark"), ("zh", "light"), ("zh", "dark")] {
            let view = format!("{lang}-{theme}-{size}");
            c.goto(&format!("{base}?lang={lang}&theme={theme}")).await.expect("goto");
            wait_for(&c, "[data-testid=guidance]").await;
            wait_for(&c, "[data-testid=cost-chart]").await;
            tokio::time::sleep(Duration::from_millis(200)).await;

            let dims = js(&c, "return [innerWidth, innerHeight, document.documentElement.scrollWidth]").await;
            let dims: Vec<f64> = serde_json::from_value(dims).expect("numbers");
            let (inner_w, scroll_w) =
                (dims.first().copied().unwrap_or(0.0), dims.get(2).copied().unwrap_or(f64::MAX));
            assert_eq!(inner_w, f64::from(width), "{view}: the viewport is not {width} px wide");
            assert!(scroll_w <= inner_w, "{view}: the page scrolls sideways ({scroll_w} > {inner_w})");

            let (reco, guide, offers) = (
                top(&c, "[data-testid=recommendation]").await,
                top(&c, "[data-testid=guidance]").await,
                top(&c, "[data-testid=offers]").await,
            );
            if size == "wide" {
                assert!(
                    reco < 900.0 && guide < 900.0,
                    "{view}: recommendation at {reco}, guidance at {guide}: not on the first screen"
                );
            } else {
                assert!(
                    reco < guide && guide < offers,
                    "{view}: order recommendation {reco}, guidance {guide}, offers {offers}"
                );
            }

            let ticks = js(
                &c,
                "const s=document.querySelector('[data-testid=cost-chart]');const t=c=>[...s.querySelectorAll(c+' text')].map(e=>e.textContent.trim()).filter(x=>x);return [t('.tick-x'), t('.tick-y')]",
            )
            .await;
            let ticks: Vec<Vec<String>> = serde_json::from_value(ticks).expect("tick lists");
            assert!(
                ticks.len() == 2 && ticks.iter().all(|t| t.len() >= 3),
                "{view}: too few tick values {ticks:?}"
            );

            let names = js(&c, "const p=[...document.querySelectorAll('[data-testid=cost-chart] .pt')];return [p.length, p.filter(e=>!(e.getAttribute('aria-label')||'').trim()).length]").await;
            let names: Vec<u64> = serde_json::from_value(names).expect("counts");
            assert!(
                names.first().copied().unwrap_or(0) > 0 && names.get(1) == Some(&0),
                "{view}: chart points without a name {names:?}"
            );

            // No two labels of the cost chart (point labels, tick values) write over each other.
            let hits = js(
                &c,
                "const s=document.querySelector('[data-testid=cost-chart]');const b=[...s.querySelectorAll('.pt-label, .tick-x text, .tick-y text')].map(e=>{const r=e.getBoundingClientRect();return [e.textContent,r.left,r.top,r.right,r.bottom]});const h=[];for(let i=0;i<b.length;i++)for(let j=i+1;j<b.length;j++){const x=b[i],y=b[j];if(Math.min(x[3],y[3])-Math.max(x[1],y[1])>1&&Math.min(x[4],y[4])-Math.max(x[2],y[2])>1)h.push(x[0]+' / '+y[0])}return h",
            )
            .await;
            let hits: Vec<String> = serde_json::from_value(hits).expect("strings");
            println!("{view}: scroll width {scroll_w}/{inner_w}; tops: recommendation {reco:.0}, guidance {guide:.0}, offers {offers:.0}; ticks {ticks:?}; points {names:?} (count, unnamed); overlapping labels {hits:?}");
            overlaps.extend(hits.into_iter().map(|h| format!("{view}: {h}")));

            c.execute(&axe, vec![]).await.expect("inject axe-core");
            let found = c
                .execute_async(
                    "const done = arguments[arguments.length - 1];
                     axe.run(document, {resultTypes: ['violations']})
                       .then(r => done(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
                         .map(v => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 4).map(n => n.target.join(' ') + ' ' + (n.failureSummary || '').split('\\n').slice(1, 2).join('')).join(' | '))))
                       .catch(e => done(['axe failed: ' + e]));",
                    vec![],
                )
                .await
                .expect("axe.run");
            let found: Vec<String> = serde_json::from_value(found).expect("violations");
            problems.extend(found.into_iter().map(|v| format!("{view}: {v}")));

            let png = c.screenshot().await.expect("screenshot");
            std::fs::write(shot_dir().join(format!("view-{view}.png")), png).expect("write screenshot");
            // Then the chart alone (the element screenshot scrolls it into view).
            let chart = wait_for(&c, "[data-testid=scatter]").await;
            std::fs::write(
                shot_dir().join(format!("chart-{view}.png")),
                chart.screenshot().await.expect("chart screenshot"),
            )
            .expect("write chart screenshot");
        }
        let _ = c.close().await;
    }
    assert!(overlaps.is_empty(), "chart labels that overlap:\n{}", overlaps.join("\n"));
    assert!(problems.is_empty(), "axe-core: serious or critical violations:\n{}", problems.join("\n"));
}

/// The cost chart's live tooltip: the arrow keys step through the points
/// cheapest first, the tooltip names a listed offer and a live region says
/// it; the pointer over another point moves the tooltip there; Escape clears.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cost_chart_tooltip_keys_and_pointer() {
    use fantoccini::actions::{InputSource, MouseActions, PointerAction};
    let port = serve(dist());
    let (c, _driver) = browser(1280, 1400).await;
    c.goto(&format!("http://127.0.0.1:{port}/?lang=en")).await.expect("goto");
    wait_for(&c, "[data-testid=cost-chart] circle.pt").await;
    let tip = "const t=document.querySelector('[data-testid=cost-tip]');if(!t)return null;const r=t.getBoundingClientRect();\
        return [t.dataset.offer, t.textContent, r.width>0&&r.height>0&&getComputedStyle(t).visibility!=='hidden', parseFloat(t.style.left), \
        document.querySelector('[data-testid=cost-live]').textContent, document.activeElement===document.querySelector('[data-testid=cost-chart]')]";
    assert!(js(&c, tip).await.is_null(), "a tooltip before any pointer or key");

    js(&c, "document.querySelector('[data-testid=cost-chart]').focus();return 0").await;
    for _ in 0..2 {
        c.active_element().await.expect("active").send_keys("\u{E014}").await.expect("arrow right");
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (id, text, visible, _, live, focused): (String, String, bool, f64, String, bool) =
        serde_json::from_value(js(&c, tip).await).expect("tooltip after two arrows");
    assert!(
        focused && visible && !id.is_empty() && text.contains(&id) && text.contains('$'),
        "tooltip {id:?} {text:?} visible {visible} focused {focused}"
    );
    assert_eq!(live, text, "the live region announces the keyboard point");
    // The table lists the top offers only; the chart plots them all: the id is one of the answer's offers.
    let answer = evaluate_query(
        "lang=en",
        Catalog::bundled().expect("catalog"),
        Date::parse("2026-11-29").expect("date"),
    );
    assert!(answer.offers.iter().any(|o| *o.id == *id), "{id} is not one of the answer's offers");
    // The pointer over a marked point other than the keyboard's: the tooltip follows it.
    let target = c
        .find(Locator::Css(&format!("[data-testid=cost-chart] circle.pt:not([data-offer=\"{id}\"])")))
        .await
        .expect("another marked point");
    let cx: f64 = target.attr("cx").await.ok().flatten().and_then(|v| v.parse().ok()).expect("cx");
    c.perform_actions(MouseActions::new("mouse".into()).then(PointerAction::MoveToElement {
        element: target,
        duration: None,
        x: 0.0,
        y: 0.0,
    }))
    .await
    .expect("move the pointer");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (id2, text2, visible2, left, live2, _): (String, String, bool, f64, String, bool) =
        serde_json::from_value(js(&c, tip).await).expect("tooltip under the pointer");
    assert!(
        visible2 && id2 != id && text2.contains(&id2),
        "pointer: tooltip {id2:?} {text2:?} (keyboard had {id})"
    );
    let vbw = js(&c, "return document.querySelector('[data-testid=cost-chart]').viewBox.baseVal.width")
        .await
        .as_f64()
        .expect("viewBox width");
    assert!((left - cx / vbw * 100.0).abs() < 0.1, "tooltip at {left}% but the point at {cx} of {vbw}");
    assert!(live2.is_empty(), "the pointer is not announced: {live2:?}");

    // Back to the keyboard, then Escape clears.
    c.active_element().await.expect("active").send_keys("\u{E014}").await.expect("arrow right");
    c.active_element().await.expect("active").send_keys("\u{E00C}").await.expect("escape");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(js(&c, tip).await.is_null(), "Escape left the tooltip");
    let _ = c.close().await;
}
