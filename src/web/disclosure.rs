//! A `<details>` whose contents are built into the page only once it is
//! first opened. A closed disclosure costs its summary, not its contents:
//! the inputs' advanced section (about a hundred elements, the GPU list
//! among them) and the alternatives' launch texts stay out of the first
//! render. Once opened, the contents stay in the page when it closes again,
//! so what was typed there keeps its place and state.

use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DisclosureProps {
    pub summary: AttrValue,
    /// Open (and so built) from the first render.
    #[prop_or_default]
    pub open: bool,
    #[prop_or_default]
    pub testid: Option<AttrValue>,
    #[prop_or_default]
    pub class: Classes,
    pub children: Html,
}

#[function_component(Disclosure)]
pub fn disclosure(p: &DisclosureProps) -> Html {
    let built = use_state_eq(|| p.open);
    let ontoggle = {
        let built = built.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::Element = e.target_unchecked_into();
            if el.has_attribute("open") {
                built.set(true);
            }
        })
    };
    html! {
        <details class={p.class.clone()} open={p.open} data-testid={p.testid.clone()} {ontoggle}>
            <summary>{ p.summary.clone() }</summary>
            if *built || p.open { { p.children.clone() } }
        </details>
    }
}
