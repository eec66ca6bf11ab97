//! The launch card: for the pick and each alternative, the SkyPilot task
//! and the engine command the core's [`crate::core::export`] writes, each
//! in a visible `<pre>` with copy and download buttons. The texts are
//! written by the on-demand module ([`super::ondemand`], a Web Worker
//! running `core::ondemand`), so this module does not link the export
//! code; until they are in, the card says it is loading. The worker is
//! asked (and so downloaded and started) only once the card comes into
//! the viewport, or, in an embedded view (`embed=1`), once
//! the reader opens the card: a reader who never scrolls to it, or a
//! documentation page that embeds the calculator, does not download the
//! worker. The reply also carries the hosted API's price for the same
//! answer (`super::api`), which the recommendation and guidance cards
//! show. The text itself
//! is the core's (YAML and shell are not translated); the labels are the
//! messages table's.

use std::rc::Rc;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::disclosure::Disclosure;
use super::dom;
use super::format::RenderUi;
use super::ondemand::{ask, Job};
use crate::core::answer::Answer;
use crate::core::config::Lang;
use crate::core::messages::{ui, Msg};
use crate::core::ondemand::{split_exports, ExportText};

#[derive(Properties, PartialEq)]
pub struct LaunchProps {
    pub answer: Rc<Answer>,
    /// The request the texts are written for.
    pub job: Rc<Job>,
    pub lang: Lang,
    /// An embedded view: the card is closed, and opening it asks.
    pub embed: bool,
    /// The hosted API's price for the job came in with the texts (`super::api`).
    pub on_api: Callback<()>,
}

/// What watches the card: dropped (and disconnected) once it was seen.
type Watch = (web_sys::IntersectionObserver, Closure<dyn FnMut(web_sys::Event)>);

/// Sets `seen` once `el` comes into the viewport; `None`
/// where the browser cannot watch (the caller then asks at once).
fn watch(el: &web_sys::Element, seen: UseStateHandle<bool>) -> Option<Watch> {
    // Typed as an event handler (the page has that closure's glue already);
    // the first argument is the array of entries (one target: the first
    // says whether it is near).
    let cb = Closure::<dyn FnMut(web_sys::Event)>::new(move |entries: web_sys::Event| {
        if entries
            .unchecked_into::<js_sys::Array>()
            .get(0)
            .unchecked_into::<web_sys::IntersectionObserverEntry>()
            .is_intersecting()
        {
            seen.set(true);
        }
    });
    let observer = web_sys::IntersectionObserver::new(cb.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    Some((observer, cb))
}

/// The texts for one job, or why the on-demand module gave none.
type Reply = (Rc<Job>, Rc<Result<Vec<ExportText>, String>>);

/// One text block with its buttons; `copied` is the block last copied.
fn block(
    id: String,
    title: &'static str,
    file: String,
    text: &str,
    copied: &UseStateHandle<Option<String>>,
    lang: Lang,
) -> Html {
    let copy = {
        let (text, copied, id) = (text.to_string(), copied.clone(), id.clone());
        Callback::from(move |_| {
            dom::copy_to_clipboard(&text);
            copied.set(Some(id.clone()));
        })
    };
    let label = format!("{} — {file}", ui(title, lang));
    let download = {
        let text = text.to_string();
        Callback::from(move |_| dom::download(&file, "text/plain", &text))
    };
    let done = copied.as_deref() == Some(id.as_str());
    html! {
        <div class="export-block">
            <h4>
                { ui(title, lang) }
                <button type="button" data-testid={format!("copy-{id}")} onclick={copy}>
                    { ui(if done { "ui.export.copied" } else { "ui.export.copy" }, lang) }
                </button>
                <button type="button" data-testid={format!("download-{id}")} onclick={download}>
                    { ui("ui.export.download", lang) }
                </button>
            </h4>
            <pre
                class="scroll"
                tabindex="0"
                role="region"
                aria-label={label}
                data-testid={format!("text-{id}")}
            >
                { text }
            </pre>
        </div>
    }
}

fn one(i: usize, e: &ExportText, copied: &UseStateHandle<Option<String>>, lang: Lang) -> Html {
    let role = ui(if e.role == "pick" { "ui.export.pick" } else { "ui.export.alt" }, lang);
    let key = if i == 0 { "pick".to_string() } else { format!("alt{i}") };
    html! {
        <Disclosure open={i == 0} testid={format!("export-{key}")} summary={format!("{role}: {}", e.offer)}>
            if !e.unsupported.is_empty() {
                <p class="misses" data-testid="export-unsupported">{ ui("ui.export.unsupported", lang) }</p>
            }
            { block(
                  format!("skypilot-{key}"),
                  "ui.export.skypilot",
                  format!("{}.sky.yaml", e.offer),
                  &e.skypilot_yaml,
                  copied,
                  lang,
              ) }
            { block(
                  format!("command-{key}"),
                  "ui.export.command",
                  format!("{}.sh", e.offer),
                  &e.command,
                  copied,
                  lang,
              ) }
        </Disclosure>
    }
}

#[function_component(Launch)]
pub fn launch(p: &LaunchProps) -> Html {
    let copied = use_state(|| None::<String>);
    let reply = use_state(|| None::<Reply>);
    // Seen (or opened): from then on the card asks for each job's texts.
    let seen = use_state_eq(|| false);
    let node = use_node_ref();
    let wanted = p.answer.recommendation.is_some();
    {
        // One effect (each costs the page its own copy of Yew's hook code):
        // once seen, ask for this job's texts; before, watch for the card
        // coming into view (not in an embedded view: there opening it asks).
        let (reply, seen, node, on_api) = (reply.clone(), seen.clone(), node.clone(), p.on_api.clone());
        use_effect_with((p.job.clone(), wanted, *seen, p.embed), move |(job, wanted, was_seen, embed)| {
            let mut watching = None;
            if *wanted && *was_seen {
                let job = job.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let r = ask(job.request("export", "")).await;
                    // The reply carries the hosted API's price too, which the
                    // recommendation and guidance cards show (`super::api`).
                    let priced = super::api::keep(&job, &r);
                    reply.set(Some((job, Rc::new(r.map(|r| split_exports(&r))))));
                    if priced {
                        on_api.emit(());
                    }
                });
            } else if *wanted && !*embed {
                watching = node.cast::<web_sys::Element>().and_then(|el| watch(&el, seen.clone()));
                if watching.is_none() {
                    seen.set(true);
                }
            }
            move || {
                if let Some((observer, _cb)) = watching {
                    observer.disconnect();
                }
            }
        });
    }
    if !wanted {
        return html! {};
    }
    let lang = p.lang;
    // Only the reply to this very job: an earlier one describes another answer.
    let body = match reply.as_ref().filter(|(job, _)| *job == p.job).map(|(_, r)| r.as_ref()) {
        None => html! { <p role="status" data-testid="export-loading">{ ui("ui.export.loading", lang) }</p> },
        Some(Err(why)) => {
            html! {
                <p role="alert" data-testid="export-error">
                    { Msg::new("ui.ondemand.failed").arg("why", why.clone()).render_ui(lang) }
                </p>
            }
        }
        Some(Ok(exports)) if exports.is_empty() => return html! {},
        Some(Ok(exports)) => {
            html! { <>{ for exports.iter().enumerate().map(|(i, e)| one(i, e, &copied, lang)) }</> }
        }
    };
    let title = html! { <h2 id="h-export">{ ui("ui.export.title", lang) }</h2> };
    let texts = html! { <><p>{ ui("ui.export.note", lang) }</p>{ body }</> };
    // An embedded view: the card closed under its title; opening it asks.
    let ontoggle = Callback::from(move |e: Event| {
        if e.target_unchecked_into::<web_sys::Element>().has_attribute("open") {
            seen.set(true);
        }
    });
    html! {
        <section ref={node} class="card wide export" data-testid="export" aria-labelledby="h-export">
            if p.embed {
                <details data-testid="export-open" {ontoggle}><summary>{ title }</summary>{ texts }</details>
            } else {
                { title }
                { texts }
            }
        </section>
    }
}
