//! Where one offer's price comes from and how old it is, opened from its
//! row of the offers table. The Wasm build's bundled catalog has no
//! sources (`build.rs` drops them for size), so the view fetches the
//! page's own copy of `static/offers.csv` (same origin, on demand, once;
//! Trunk copies it beside index.html) and has the on-demand worker read it
//! with the catalog's own parser (`core::ondemand::read_sources`; the
//! parser is not linked here). An imported offer carries its source and
//! needs no fetch. A leaf: of the shell it imports only `format`, `dom`
//! and `ondemand`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use yew::prelude::*;

use super::dom::fetch_text;
use super::format::RenderUi;
use super::ondemand::ask;
use crate::core::catalog::STALE_AFTER_DAYS;
use crate::core::config::Lang;
use crate::core::messages::{ui, Msg};
use crate::core::ondemand::{read_sources, sources_request};

/// What the full offers table says of one offer beyond the bundled copy.
#[derive(Debug, Clone, PartialEq)]
struct SourceText {
    source: String,
    notes: String,
}

/// The page's offers table by offer id, or why it could not be read.
type Loaded = Rc<Result<HashMap<String, SourceText>, String>>;

thread_local! {
    /// The table once it was read; a failure is not kept, so the next opening retries.
    static CACHE: RefCell<Option<Loaded>> = const { RefCell::new(None) };
}

async fn load(url: String) -> Loaded {
    if let Some(hit) = CACHE.with(|c| c.borrow().clone()) {
        return hit;
    }
    let loaded = match fetch_text(&url).await {
        Ok(text) => ask(sources_request(&text)).await.and_then(|reply| by_id(&reply)),
        Err(e) => Err(e),
    };
    let loaded = Rc::new(loaded);
    if loaded.is_ok() {
        CACHE.with(|c| *c.borrow_mut() = Some(loaded.clone()));
    }
    loaded
}

/// The worker's reply (the table parsed under its own name, so that the
/// rule "a bundled table of a Wasm build may lack sources" does not apply:
/// this copy must have them) by offer id.
fn by_id(reply: &str) -> Result<HashMap<String, SourceText>, String> {
    Ok(read_sources(reply)?
        .into_iter()
        .map(|(id, source, notes)| (id, SourceText { source, notes }))
        .collect())
}

#[derive(Properties, PartialEq)]
pub struct SourceProps {
    pub id: AttrValue,
    /// Provider and instance, as the row shows them.
    pub title: AttrValue,
    pub as_of: AttrValue,
    pub stale: bool,
    /// The offer's own source: set for imported offers, empty for the
    /// bundled catalog of a Wasm build.
    pub source: AttrValue,
    /// The address of the page's copy of `offers.csv`.
    pub url: AttrValue,
    pub lang: Lang,
}

/// A row's "source" button and, when opened, a modal view of the price's
/// date, stale mark and source (Escape or the close button shut it; the
/// browser returns the focus to the button).
#[function_component(OfferSource)]
pub fn offer_source(p: &SourceProps) -> Html {
    let lang = p.lang;
    let t = |k: &'static str| ui(k, lang);
    let open = use_state(|| false);
    let loaded = use_state(|| None::<Loaded>);
    let dialog = use_node_ref();
    {
        let dialog = dialog.clone();
        use_effect_with(*open, move |open| {
            if *open {
                if let Some(d) = dialog.cast::<web_sys::HtmlDialogElement>() {
                    if !d.open() {
                        let _ = d.show_modal();
                    }
                }
            }
        });
    }
    let on_open = {
        let (open, loaded, url, own) = (open.clone(), loaded.clone(), p.url.to_string(), p.source.is_empty());
        Callback::from(move |_: MouseEvent| {
            open.set(true);
            if own {
                let (loaded, url) = (loaded.clone(), url.clone());
                loaded.set(None);
                wasm_bindgen_futures::spawn_local(async move { loaded.set(Some(load(url).await)) });
            }
        })
    };
    let on_closed = {
        let open = open.clone();
        Callback::from(move |_: Event| open.set(false))
    };
    let close = {
        let dialog = dialog.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(d) = dialog.cast::<web_sys::HtmlDialogElement>() {
                d.close();
            }
        })
    };
    let heading = format!("src-{}", p.id);
    let body = if !p.source.is_empty() {
        source_text(&p.source, "", lang)
    } else {
        match loaded.as_ref().map(|l| l.as_ref()) {
            None => html! { <p role="status">{ t("ui.src.loading") }</p> },
            Some(Err(e)) => {
                html! {
                    <p role="alert" data-testid="source-error">
                        { Msg::new("ui.src.failed")
                              .arg("url", p.url.to_string())
                              .arg("why", e.clone())
                              .render_ui(lang) }
                    </p>
                }
            }
            Some(Ok(map)) => match map.get(p.id.as_str()) {
                Some(s) => source_text(&s.source, &s.notes, lang),
                None => {
                    html! {
                        <p role="alert" data-testid="source-error">
                            { Msg::new("ui.src.missing").arg("url", p.url.to_string()).render_ui(lang) }
                        </p>
                    }
                }
            },
        }
    };
    html! {
        <>
            <button
                type="button"
                class="src"
                data-testid="source-btn"
                aria-haspopup="dialog"
                aria-label={format!("{}: {}", t("ui.src.open"), p.title)}
                onclick={on_open}
            >
                { t("ui.src") }
            </button>
            if *open {
                <dialog
                    ref={dialog}
                    class="source-view"
                    data-testid="source-view"
                    aria-labelledby={heading.clone()}
                    onclose={on_closed}
                >
                    <h3 id={heading}>{ p.title.clone() }</h3>
                    <p><small><code>{ p.id.clone() }</code></small></p>
                    <p data-testid="source-date">
                        { format!("{}: {}", t("ui.col.date"), p.as_of) }
                        if p.stale {
                            { " \
                        " }
                            <span class="mark" data-testid="source-stale">
                                { Msg::new("ui.src.stale")
                                      .num("days", STALE_AFTER_DAYS as f64, 0)
                                      .render_ui(lang) }
                            </span>
                        }
                    </p>
                    { body }
                    <p><small>{ t("ui.src.snapshot") }</small></p>
                    <button type="button" onclick={close} autofocus=true>{ t("ui.src.close") }</button>
                </dialog>
            }
        </>
    }
}

/// The source text, its web addresses as links (opened in a new tab), and the row's notes.
fn source_text(source: &str, notes: &str, lang: Lang) -> Html {
    let words = source.split(' ').enumerate().map(|(i, w)| {
        let sep = if i > 0 { " " } else { "" };
        if w.starts_with("https://") || w.starts_with("http://") {
            let href = w.trim_end_matches([',', ';', ')', '.']).to_string();
            let rest = w.get(href.len()..).unwrap_or_default().to_string();
            html! {
                <>
                    { sep }
                    <a
                        href={href.clone()}
                        target="_blank"
                        rel="noopener \
            noreferrer"
                    >
                        { href }
                    </a>
                    { rest }
                </>
            }
        } else {
            html! { <>{ sep }{ w.to_string() }</> }
        }
    });
    html! {
        <>
            <p data-testid="source-text">
                <strong>{ ui("ui.src.source", lang) }{ ": " }</strong>
                { for words }
            </p>
            if !notes.is_empty() { <p><small>{ notes.to_string() }</small></p> }
        </>
    }
}
