//! Component tests in a real browser (wasm-bindgen-test, headless Chromium):
//! render the app into a div, act on the DOM, let Yew's scheduler run, then
//! assert on what is shown.

#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlInputElement};
use whichgpu::web::app::App;

wasm_bindgen_test_configure!(run_in_browser);

fn mount() -> Element {
    // The page fetches its Chinese texts (next to index.html) before it
    // renders in Chinese; here they come from the file build.rs wrote.
    whichgpu::core::texts::install_zh(include_str!(concat!(env!("OUT_DIR"), "/messages-zh.txt")).to_string())
        .expect("the Chinese texts install");
    let doc = gloo::utils::document();
    let div = doc.create_element("div").expect("div");
    doc.body().expect("body").append_child(&div).expect("append");
    yew::Renderer::<App>::with_root(div.clone()).render();
    div
}

async fn settle() {
    // Yew renders on the microtask queue; give it a few turns.
    gloo::timers::future::sleep(Duration::from_millis(50)).await;
}

/// After mounting: the cards below the first screen (the memory bar, the
/// offers table) are built once the first render is painted, or after
/// `page.rs`'s 100 ms fallback; waits for the offers table, at most 10 s
/// (a debug build renders slowly).
async fn settle_mount(root: &Element) {
    for _ in 0..200 {
        if root.query_selector("[data-testid=offers]").ok().flatten().is_some() {
            break;
        }
        settle().await;
    }
    settle().await;
}

/// Opens the inputs' advanced section: its inputs are built when it first opens.
async fn open_advanced(root: &Element) {
    let details = root.query_selector("[data-testid=advanced]").ok().flatten().expect("advanced section");
    details.set_attribute("open", "").expect("open");
    settle().await;
}

fn bytes(root: &Element) -> f64 {
    root.query_selector("[data-testid=memory-total]")
        .ok()
        .flatten()
        .and_then(|e| e.get_attribute("data-bytes"))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

fn set_input(root: &Element, css: &str, value: &str) {
    let el: HtmlInputElement =
        root.query_selector(css).ok().flatten().expect("input").dyn_into().expect("input element");
    el.set_value(value);
    let ev = web_sys::Event::new("change").expect("event");
    el.dispatch_event(&ev).expect("dispatch");
}

#[wasm_bindgen_test]
async fn renders_a_recommendation_and_reacts_to_inputs() {
    let root = mount();
    settle_mount(&root).await;
    let text = root.text_content().unwrap_or_default();
    assert!(root.query_selector("[data-testid=recommendation]").ok().flatten().is_some(), "{text}");
    let before = bytes(&root);
    assert!(before > 1e9);

    // More users → more KV cache → more memory.
    set_input(&root, "#in-batch", "64");
    settle().await;
    let after = bytes(&root);
    assert!(after > before, "{before} → {after}");

    // A bad value shows a notice and keeps the last good state.
    set_input(&root, "#in-batch", "-3");
    settle().await;
    assert_eq!(bytes(&root), after);
    let notice = root
        .query_selector("[data-testid=notice]")
        .ok()
        .flatten()
        .and_then(|n| n.text_content())
        .unwrap_or_default();
    assert!(notice.contains("batch"), "{notice}");

    // A hostile name is rendered as text, not markup.
    open_advanced(&root).await;
    set_input(&root, "#in-region", "<img src=x onerror=alert(1)>");
    settle().await;
    assert!(root.query_selector("img").ok().flatten().is_none());
}

fn text_of(root: &Element, css: &str) -> String {
    root.query_selector(css).ok().flatten().and_then(|n| n.text_content()).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn a_chinese_link_shows_yuan_and_says_it_converted() {
    // The page reads its configuration from the address.
    let history = gloo::utils::window().history().expect("history");
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("?lang=zh")).expect("set the link");
    let root = mount();
    settle_mount(&root).await;
    let offers = text_of(&root, "[data-testid=offers]");
    assert!(offers.contains('¥') && offers.contains('*'), "{offers}");
    assert!(!offers.contains("美元") && !offers.contains('$'), "{offers}");
    let pick = text_of(&root, "[data-testid=pick-month]");
    assert!(pick.starts_with('¥'), "{pick}");
    // The note names the rate and its date.
    let note = text_of(&root, "[data-testid=converted]");
    assert!(note.contains("1 美元 =") && note.contains("CNY"), "{note}");

    // The currency control: US dollars, and nothing is converted any more.
    open_advanced(&root).await;
    let select: web_sys::HtmlSelectElement =
        root.query_selector("#in-cur").ok().flatten().expect("cur select").dyn_into().expect("select");
    select.set_value("usd");
    select.dispatch_event(&web_sys::Event::new("change").expect("event")).expect("dispatch");
    settle().await;
    let offers = text_of(&root, "[data-testid=offers]");
    assert!(!offers.contains('¥') && offers.contains("美元"), "{offers}");
    assert!(root.query_selector("[data-testid=converted]").ok().flatten().is_none());
    // The address is written once the inputs rest (120 ms, src/web/app.rs).
    gloo::timers::future::sleep(Duration::from_millis(300)).await;
    let href = gloo::utils::window().location().search().unwrap_or_default();
    assert!(href.contains("cur=usd"), "{href}");
    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("?")).expect("reset the link");
}
