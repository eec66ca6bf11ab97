//! The launch card: for the pick and each alternative, the SkyPilot task
//! and the engine command the core's [`crate::core::export`] writes, each
//! in a visible `<pre>` with copy and download buttons. The texts are
//! written by the on-demand module ([`super::ondemand`], a Web Worker
//! running `core::ondemand`), so this module does not link the export
//! code; until they are in, the card says it is loading. The text itself
//! is the core's (YAML and shell are not translated); the labels are the
//! messages table's.

use std::rc::Rc;

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
}

/// The texts for one job, or why the on-demand module gave none.
type Reply = (Rc<Job>, Rc<Result<Vec<ExportText>, String>>);

/// One text block with its buttons; `copied` is the block last copied.
fn block(id: String, title: &'static str, file: String, text: &str, copied: &UseStateHandle<Option<String>>, lang: Lang) -> Html {
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
            <h4>{ ui(title, lang) }
                <button type="button" data-testid={format!("copy-{id}")} onclick={copy}>{ ui(if done { "ui.export.copied" } else { "ui.export.copy" }, lang) }</button>
                <button type="button" data-testid={format!("download-{id}")} onclick={download}>{ ui("ui.export.download", lang) }</button>
            </h4>
            <pre class="scroll" tabindex="0" role="region" aria-label={label} data-testid={format!("text-{id}")}>{ text }</pre>
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
            { block(format!("skypilot-{key}"), "ui.export.skypilot", format!("{}.sky.yaml", e.offer), &e.skypilot_yaml, copied, lang) }
            { block(format!("command-{key}"), "ui.export.command", format!("{}.sh", e.offer), &e.command, copied, lang) }
        </Disclosure>
    }
}

#[function_component(Launch)]
pub fn launch(p: &LaunchProps) -> Html {
    let copied = use_state(|| None::<String>);
    let reply = use_state(|| None::<Reply>);
    let wanted = p.answer.recommendation.is_some();
    {
        let reply = reply.clone();
        use_effect_with((p.job.clone(), wanted), move |(job, wanted)| {
            if *wanted {
                let job = job.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let texts = ask(job.request("export", "")).await.map(|r| split_exports(&r));
                    reply.set(Some((job, Rc::new(texts))));
                });
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
        Some(Err(why)) => html! { <p role="alert" data-testid="export-error">{ Msg::new("ui.ondemand.failed").arg("why", why.clone()).render_ui(lang) }</p> },
        Some(Ok(exports)) if exports.is_empty() => return html! {},
        Some(Ok(exports)) => html! { <>{ for exports.iter().enumerate().map(|(i, e)| one(i, e, &copied, lang)) }</> },
    };
    html! {
        <section class="card wide export" data-testid="export" aria-labelledby="h-export">
            <h2 id="h-export">{ ui("ui.export.title", lang) }</h2>
            <p>{ ui("ui.export.note", lang) }</p>
            { body }
        </section>
    }
}
