//! The guidance card: the FAQ answers and rule notes the core chose, then
//! the hosted API's answer once the on-demand worker gave it (`super::api`).

use yew::prelude::*;

use crate::core::answer::{Answer, GuidanceItem};
use crate::core::config::Lang;
use crate::core::messages::ui;

/// One answer.
fn item(g: &GuidanceItem, lang: Lang) -> Html {
    html! {
        <div class="faq" data-rule={g.id}>
            if let Some(title) = &g.title_msg { <h3>{ title.render(lang) }</h3> }
            <p>{ g.msg.render(lang) }{ " " }<a href="#method">{ ui("ui.method", lang) }</a></p>
        </div>
    }
}

/// `api`: the answer "rent a GPU or call an API?", once the on-demand worker gave it.
pub fn guidance(a: &Answer, lang: Lang, api: Option<&GuidanceItem>) -> Html {
    html! {
        <section class="card guide" data-testid="guidance" aria-labelledby="h-guide">
            <h2 id="h-guide">{ ui("ui.guidance", lang) }</h2>
            { for a.guidance.iter().chain(api).map(|g| item(g, lang)) }
        </section>
    }
}
