//! The guidance card: the FAQ answers and rule notes the core chose.

use yew::prelude::*;

use crate::core::answer::Answer;
use crate::core::config::Lang;
use crate::core::messages::ui;

pub fn guidance(a: &Answer, lang: Lang) -> Html {
    let t = |k: &'static str| ui(k, lang);
    html! {
        <section class="card guide" data-testid="guidance" aria-labelledby="h-guide">
            <h2 id="h-guide">{ t("ui.guidance") }</h2>
            { for a.guidance.iter().map(|g| html! {
                <div class="faq" data-rule={g.id}>
                    if let Some(title) = &g.title_msg { <h3>{ title.render(lang) }</h3> }
                    <p>{ g.msg.render(lang) }{ " " }<a href="#method">{ t("ui.method") }</a></p>
                </div>
            }) }
        </section>
    }
}
