//! The launch card: for the pick and each alternative, the SkyPilot task
//! and the engine command the core's [`crate::core::export`] writes, each
//! in a visible `<pre>` with copy and download buttons. The text itself is
//! the core's (YAML and shell are not translated); the labels are the
//! messages table's.

use std::rc::Rc;

use yew::prelude::*;

use super::disclosure::Disclosure;
use super::dom;
use crate::core::answer::Answer;
use crate::core::catalog::Catalog;
use crate::core::config::Lang;
use crate::core::export::{for_answer, Export};
use crate::core::messages::ui;

#[derive(Properties, PartialEq)]
pub struct LaunchProps {
    pub answer: Rc<Answer>,
    pub lang: Lang,
}

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

fn one(i: usize, e: &Export, copied: &UseStateHandle<Option<String>>, lang: Lang) -> Html {
    let role = ui(if e.role == "pick" { "ui.export.pick" } else { "ui.export.alt" }, lang);
    let key = if i == 0 { "pick".to_string() } else { format!("alt{i}") };
    html! {
        <Disclosure open={i == 0} testid={format!("export-{key}")} summary={format!("{role}: {}", e.offer)}>
            if e.unsupported.is_some() {
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
    let exports = {
        let a = p.answer.clone();
        use_memo(a, |a| Catalog::bundled().map(|c| for_answer(a, c)).unwrap_or_default())
    };
    if exports.is_empty() {
        return html! {};
    }
    let lang = p.lang;
    html! {
        <section class="card wide export" data-testid="export" aria-labelledby="h-export">
            <h2 id="h-export">{ ui("ui.export.title", lang) }</h2>
            <p>{ ui("ui.export.note", lang) }</p>
            { for exports.iter().enumerate().map(|(i, e)| one(i, e, &copied, lang)) }
        </section>
    }
}
