//! The page's on-demand module: Trunk builds this binary as a Web Worker
//! (index.html, `data-type="worker"`), which the page starts on its first
//! request (`web::ondemand`). Each message is `<id>\n<request>`; the reply
//! is `<id>\n` and `core::ondemand::handle`'s answer. It says `ready` once
//! its handler is set, so the page holds requests until then.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn main() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let reply_to = scope.clone();
    let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let data = e.data().as_string().unwrap_or_default();
        let (id, request) = data.split_once('\n').unwrap_or((data.as_str(), ""));
        let reply = format!("{id}\n{}", whichgpu::core::ondemand::handle(request));
        let _ = reply_to.post_message(&JsValue::from_str(&reply));
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    let _ = scope.post_message(&JsValue::from_str("ready"));
}
