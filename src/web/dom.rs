//! Browser services the shell passes to or takes from the core. Every call
//! tolerates a missing API (old browser, sandboxed iframe) instead of panicking.

use wasm_bindgen::JsCast;

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// The current query string without the leading `?`.
pub fn location_query() -> String {
    window().and_then(|w| w.location().search().ok()).unwrap_or_default().trim_start_matches('?').to_string()
}

/// The `content` of the page's `<meta name="…">`, if it has one.
pub fn meta_content(name: &str) -> Option<String> {
    let doc = window()?.document()?;
    doc.query_selector(&format!("meta[name=\"{name}\"]")).ok()??.get_attribute("content")
}

pub fn location_base() -> String {
    window()
        .map(|w| {
            let l = w.location();
            format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
        })
        .unwrap_or_default()
}

/// Writes the query to the address bar without adding a history entry.
pub fn replace_query(query: &str) {
    if let Some(w) = window() {
        if let Ok(h) = w.history() {
            let url = format!("?{query}");
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }
}

/// Today's date from the browser clock, for staleness (the core reads no clock).
pub fn today() -> crate::core::catalog::Date {
    let d = js_sys::Date::new_0();
    crate::core::catalog::Date {
        year: d.get_utc_full_year() as i32,
        month: d.get_utc_month() + 1,
        day: d.get_utc_date(),
    }
}

pub fn browser_prefers_zh() -> bool {
    window().and_then(|w| w.navigator().language()).is_some_and(|l| l.to_ascii_lowercase().starts_with("zh"))
}

pub fn now_ms() -> f64 {
    window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// Sets `window[name]` to the current `performance.now()`: timing marks
/// read by the browser benchmark.
pub fn mark(name: &str) {
    if let Some(w) = window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), &now_ms().into());
    }
}

pub fn copy_to_clipboard(text: &str) {
    if let Some(w) = window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

/// Offers a text file for download (CSV export).
pub fn download(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let doc = gloo::utils::document();
    if let Ok(a) = doc.create_element("a") {
        if let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>() {
            a.set_href(&url);
            a.set_download(name);
            a.click();
        }
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

pub fn print() {
    if let Some(w) = window() {
        let _ = w.print();
    }
}

/// In embed mode, tells the parent page our height
/// (`{type: "whichgpu:height", height}`, docs/link-format.md).
pub fn post_height() {
    let Some(w) = window() else { return };
    let height = gloo::utils::document().document_element().map_or(0, |e| e.scroll_height());
    let Ok(Some(parent)) = w.parent() else { return };
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"type".into(), &"whichgpu:height".into());
    let _ = js_sys::Reflect::set(&msg, &"height".into(), &f64::from(height).into());
    let _ = parent.post_message(&msg, "*");
}

/// Replaces the page with an error message (used by the panic hook).
pub fn show_fatal(message: &str) {
    let doc = gloo::utils::document();
    let Some(body) = doc.body() else { return };
    if let Ok(el) = doc.create_element("div") {
        el.set_attribute("role", "alert").ok();
        el.set_attribute("class", "fatal").ok();
        el.set_attribute("data-testid", "fatal").ok();
        // Text, never HTML.
        el.set_text_content(Some(&format!("whichgpu stopped: {message}")));
        let _ = body.prepend_with_node_1(&el);
    }
}

pub fn set_theme_attr(theme: &str) {
    if let Some(el) = gloo::utils::document().document_element() {
        let _ = el.set_attribute("data-theme", theme);
    }
}

pub fn set_lang_attr(lang: &str) {
    if let Some(el) = gloo::utils::document().document_element() {
        let _ = el.set_attribute("lang", lang);
    }
}

/// Runs `f` once the browser has painted what is on screen now: in a task
/// queued from the next animation frame (a frame's callbacks run before its
/// paint, a task queued there after it). Where frames do not come (a hidden
/// tab, an off-screen frame), a timer runs it after `fallback_ms`; `f` runs
/// once either way.
pub fn after_paint(fallback_ms: u32, f: impl FnOnce() + 'static) {
    use std::cell::Cell;
    use std::rc::Rc;
    type Once = Rc<Cell<Option<Box<dyn FnOnce()>>>>;
    let once: Once = Rc::new(Cell::new(Some(Box::new(f))));
    let run = {
        let once = once.clone();
        move || {
            if let Some(f) = once.take() {
                f();
            }
        }
    };
    let fallback = {
        let run = run.clone();
        gloo::timers::callback::Timeout::new(fallback_ms, run)
    };
    fallback.forget();
    if let Some(w) = window() {
        let frame = wasm_bindgen::closure::Closure::once_into_js(move || {
            gloo::timers::callback::Timeout::new(0, run).forget()
        });
        let _ = w.request_animation_frame(frame.unchecked_ref());
    }
}

fn js_error(e: wasm_bindgen::JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "network error".into())
}

/// A same-origin file as text (`url` relative to the page), or why it could not be read.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen_futures::JsFuture;
    let w = web_sys::window().ok_or("no window")?;
    let resp: web_sys::Response =
        JsFuture::from(w.fetch_with_str(url)).await.map_err(js_error)?.dyn_into().map_err(js_error)?;
    if !resp.ok() {
        return Err(format!("HTTP {} {}", resp.status(), resp.status_text()));
    }
    let text = JsFuture::from(resp.text().map_err(js_error)?).await.map_err(js_error)?;
    text.as_string().ok_or_else(|| "the response is not text".into())
}
