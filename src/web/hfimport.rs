//! The model section's config.json import: paste a Hugging Face
//! `config.json` or choose the file; the text goes to the on-demand worker
//! (`web::app::import_config`), which turns it into `model=custom` and
//! architecture keys (`core::hfconfig`, not linked into the page), and its
//! reply to the reducer (a bad file leaves a notice naming the field and
//! changes nothing).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::core::config::Lang;
use crate::core::messages::ui;

#[derive(Properties, PartialEq)]
pub struct HfImportProps {
    pub lang: Lang,
    pub on_config: Callback<String>,
}

#[function_component(HfImport)]
pub fn hf_import(p: &HfImportProps) -> Html {
    let t = |k: &'static str| ui(k, p.lang);
    let on_paste = {
        let cb = p.on_config.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            if !el.value().trim().is_empty() {
                cb.emit(el.value());
            }
        })
    };
    let on_file = {
        let cb = p.on_config.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            let Some(file) = el.files().and_then(|f| f.get(0)) else { return };
            let cb = cb.clone();
            // The file's text arrives asynchronously; the closure runs once.
            let done = Closure::once(move |v: JsValue| cb.emit(v.as_string().unwrap_or_default()));
            let _ = file.text().then(&done);
            done.forget();
        })
    };
    html! {
        <details class="hfconfig" data-testid="hfconfig">
            <summary>{ t("ui.hfconfig") }</summary>
            <label for="in-hfconfig">
                { t("ui.hfconfig.paste") }
                <textarea
                    id="in-hfconfig"
                    rows="4"
                    data-testid="hfconfig-paste"
                    spellcheck="false"
                    placeholder="{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 4096, …}"
                    onchange={on_paste}
                />
            </label>
            <label for="in-hfconfig-file">
                { t("ui.hfconfig.file") }
                <input
                    id="in-hfconfig-file"
                    type="file"
                    accept=".json,application/json"
                    data-testid="hfconfig-file"
                    onchange={on_file}
                />
            </label>
        </details>
    }
}
