//! The app: the reducer's state ([`super::state`]) is the link
//! configuration; the answer is derived from it; [`Page`] renders both.

use std::rc::Rc;

use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::dom;
use super::ondemand::Job;
use super::page::Page;
use super::state::{lang_of, Action, State};
use crate::core::answer::Answer;
use crate::core::catalog::{Catalog, Date};
use crate::core::config::Lang;
use crate::core::evaluate::evaluate_offers;
use crate::core::link;
use crate::core::ondemand::{hf_request, offers_request};
use crate::core::texts;

/// How long the inputs must rest before the address bar is rewritten.
const URL_REST_MS: u32 = 120;

#[function_component(App)]
pub fn app() -> Html {
    dom::mark("__whichgpu_app_ms");
    let state = use_reducer(|| {
        let (cfg, notices) = link::decode(&dom::location_query());
        State { cfg, notices, copied: false, imported: None, lang_tries: 0 }
    });
    let today: Date = *use_memo((), |_| dom::today());
    let bundled = match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => return html! { <p class="fatal" role="alert">{ format!("catalog error: {e}") }</p> },
    };
    let answer: Rc<Answer> = {
        let deps = (state.cfg.clone(), state.imported.clone());
        use_memo(deps, move |(cfg, imported)| {
            let catalog: &Catalog = imported.as_ref().map_or(bundled, |i| i.0.as_ref());
            let t0 = dom::now_ms();
            let a = evaluate_offers(cfg, Vec::new(), catalog, today);
            record_timing(dom::now_ms() - t0);
            a
        })
    };
    // What the on-demand module needs to rebuild this answer.
    let job: Rc<Job> = use_memo((state.cfg.clone(), state.imported.clone()), move |(cfg, imported)| Job {
        today,
        cfg: cfg.clone(),
        import: imported.as_ref().map(|i| i.1.clone()),
    });
    {
        // The previous answer is freed after this update is on screen, not
        // during it: dropping an answer frees every offer's strings and
        // reasons, a millisecond or two that the input-to-DOM path need not wait for.
        let last = use_mut_ref(|| None::<Rc<Answer>>);
        let old = last.replace(Some(answer.clone()));
        if let Some(old) = old.filter(|o| !Rc::ptr_eq(o, &answer)) {
            gloo::timers::callback::Timeout::new(0, move || drop(old)).forget();
        }
    }
    {
        // Every change updates the URL (replace, so history is not flooded),
        // once the inputs rest for URL_REST_MS: `history.replaceState` costs
        // several milliseconds in Chromium, too much to pay on every
        // keystroke inside the input-to-DOM budget. A newer change drops the
        // pending write (dropping a gloo `Timeout` cancels it).
        let pending = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
        let mut cfg = state.cfg.clone();
        use_effect_with(cfg.clone(), move |_| {
            if cfg.cat.is_none() {
                cfg.cat = Catalog::bundled().ok().map(|c| c.as_of);
            }
            let write = gloo::timers::callback::Timeout::new(URL_REST_MS, move || {
                let t0 = dom::now_ms();
                dom::replace_query(&link::encode(&cfg));
                record("__whichgpu_url_ms", dom::now_ms() - t0);
            });
            *pending.borrow_mut() = Some(write);
        });
    }
    // The language asked for, and the one shown: Chinese once its texts are in.
    let wanted = lang_of(&state.cfg);
    let lang = if wanted == Lang::Zh && !texts::zh_loaded() { Lang::En } else { wanted };
    {
        let dispatch = state.dispatcher();
        use_effect_with((wanted, state.lang_tries), move |(wanted, _)| {
            if *wanted == Lang::Zh && !texts::zh_loaded() {
                wasm_bindgen_futures::spawn_local(async move {
                    super::texts::load_zh().await;
                    dispatch.dispatch(Action::Texts);
                });
            }
        });
    }
    {
        let theme = state.cfg.theme;
        use_effect_with((lang, theme), move |(lang, theme)| {
            dom::set_lang_attr(if *lang == Lang::Zh { "zh-CN" } else { "en" });
            dom::set_theme_attr(theme.as_str());
        });
    }
    let embed = state.cfg.embed;
    use_effect(move || {
        if embed {
            dom::post_height();
        }
        mark_rendered();
    });
    // One callback for the page's lifetime, so that inputs whose props did
    // not change are skipped by the diff.
    let dispatch = state.dispatcher();
    let on_set =
        use_callback((), move |(k, v): (&'static str, String), _| dispatch.dispatch(Action::Set(k, v)));
    // Notices from the link and from analysis (unknown model, stale catalog…).
    let mut notices = state.notices.clone();
    notices.extend(answer.notices.iter().cloned());
    notices.extend(super::texts::failure().filter(|_| lang != wanted));
    let on_import = {
        let d = state.dispatcher();
        Callback::from(move |t: String| import_offers(d.clone(), t))
    };
    let on_config = {
        let d = state.dispatcher();
        Callback::from(move |t: String| import_config(d.clone(), t))
    };
    let on_price = {
        let d = state.dispatcher();
        Callback::from(move |(o, v): (String, String)| d.dispatch(Action::Price(o, v)))
    };
    html! {
        <Page
            cfg={state.cfg.clone()}
            copied={state.copied}
            imported={state.imported.is_some()}
            answer={answer.clone()}
            job={job}
            notices={notices}
            lang={lang}
            on_set={on_set}
            on_copied={let d = state.dispatcher(); Callback::from(move |_| d.dispatch(Action::Copied))}
            on_api={let d = state.dispatcher(); Callback::from(move |_| d.dispatch(Action::Texts))}
            {on_import}
            {on_config}
            {on_price}
        />
    }
}

/// A pasted or chosen `config.json` goes to the on-demand worker, which
/// reads it (`core::hfconfig`, not linked here); its reply is applied to
/// the state as it is when the reply comes.
fn import_config(dispatch: UseReducerDispatcher<State>, text: String) {
    wasm_bindgen_futures::spawn_local(async move {
        let reply = super::ondemand::ask(hf_request(&text)).await;
        dispatch.dispatch(Action::ImportConfig(reply));
    });
}

/// An offers file goes to the on-demand worker, which parses it
/// (`core::catalog::offers`, not linked here); the reducer checks its
/// offers against the bundled catalog as before.
fn import_offers(dispatch: UseReducerDispatcher<State>, text: String) {
    wasm_bindgen_futures::spawn_local(async move {
        let reply = super::ondemand::ask(offers_request(&text)).await;
        dispatch.dispatch(Action::Import(text, reply));
    });
}

/// Timing marks for the browser benchmark: the last evaluation time inside
/// Wasm, and the moment the first result was rendered.
fn record_timing(ms: f64) {
    record("__whichgpu_eval_ms", ms);
}

fn record(name: &str, ms: f64) {
    if let Some(w) = dom::window() {
        let _ = js_sys::Reflect::set(&w, &name.into(), &ms.into());
    }
}

fn mark_rendered() {
    if let Some(w) = dom::window() {
        let now = dom::now_ms();
        let key = wasm_bindgen::JsValue::from_str("__whichgpu_first_render_ms");
        if js_sys::Reflect::get(&w, &key).map(|v| v.is_undefined()).unwrap_or(true) {
            let _ = js_sys::Reflect::set(&w, &key, &now.into());
        }
        let _ = js_sys::Reflect::set(&w, &"__whichgpu_render_ms".into(), &now.into());
        // The Wasm heap after rendering, for the browser benchmark.
        if let Ok(mem) = wasm_bindgen::memory().dyn_into::<js_sys::WebAssembly::Memory>() {
            if let Ok(buf) = mem.buffer().dyn_into::<js_sys::ArrayBuffer>() {
                let _ = js_sys::Reflect::set(
                    &w,
                    &"__whichgpu_heap_bytes".into(),
                    &f64::from(buf.byte_length()).into(),
                );
            }
        }
    }
}
