//! The Yew shell: one reducer whose state is the share-link configuration,
//! components that render what the core returns, and the few browser
//! services the core must not touch (URL, clock, clipboard, postMessage).

pub mod api;
pub mod app;
pub mod cells;
pub mod chart_axes;
pub mod chart_tip;
pub mod charts;
pub mod disclosure;
pub mod dom;
pub mod export;
pub mod fields;
pub mod form;
pub mod format;
pub mod guidance;
pub mod hfimport;
pub mod memory;
pub mod method;
pub mod offers;
pub mod ondemand;
pub mod options;
pub mod page;
pub mod recommendation;
pub mod sources;
pub mod state;
pub mod svg;
pub mod texts;

/// Mounts the app. A panic hook first, so a bug shows a message on the page
/// instead of leaving it dead; a page in Chinese first fetches its texts.
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        dom::show_fatal(&msg);
        web_sys::console::error_1(&msg.into());
    }));
    // A page in Chinese fetches its texts before the first render.
    let (cfg, _) = crate::core::link::decode(&dom::location_query());
    if state::lang_of(&cfg) == crate::core::config::Lang::Zh && !crate::core::texts::zh_loaded() {
        wasm_bindgen_futures::spawn_local(async {
            texts::load_zh().await;
            mount();
        });
    } else {
        mount();
    }
}

fn mount() {
    match gloo::utils::document().get_element_by_id("app") {
        Some(el) => {
            yew::Renderer::<app::App>::with_root(el).render();
        }
        None => {
            yew::Renderer::<app::App>::new().render();
        }
    }
}
