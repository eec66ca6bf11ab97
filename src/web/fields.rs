//! The form's two widgets: a labelled `<select>` and a labelled text input,
//! each bound to one link key. A component with equal props is not
//! re-rendered: the long model and GPU lists cost nothing when another
//! input changes.

use std::rc::Rc;

use yew::prelude::*;

use crate::core::config::Lang;
use crate::core::messages::ui;

/// (value, label) pairs of a `<select>`, shared between renders so that an
/// unchanged select is skipped by the diff.
pub type Options = Rc<Vec<(String, String)>>;

#[derive(Properties, PartialEq)]
pub struct ChoiceProps {
    /// Message key of the label.
    pub label: &'static str,
    pub id: AttrValue,
    pub key_name: &'static str,
    pub current: String,
    pub options: Options,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
}

#[function_component(Choice)]
pub fn choice(p: &ChoiceProps) -> Html {
    let key = p.key_name;
    let cb = p.on_set.clone();
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        cb.emit((key, el.value()));
    });
    html! {
        <label for={p.id.clone()}>
            { ui(p.label, p.lang) }
            <select id={p.id.clone()} name={key} {onchange}>
                { for p.options.iter().map(|(v, text)| html! {
                    <option value={v.clone()} selected={*v == p.current}>{ text.clone() }</option>
                }) }
            </select>
        </label>
    }
}

#[derive(Properties, PartialEq)]
pub struct FieldProps {
    /// Message key of the label.
    pub label: &'static str,
    pub id: AttrValue,
    pub key_name: &'static str,
    pub current: String,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
}

#[function_component(Field)]
pub fn field(p: &FieldProps) -> Html {
    let key = p.key_name;
    let cb = p.on_set.clone();
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        cb.emit((key, el.value()));
    });
    html! {
        <label for={p.id.clone()}>
            { ui(p.label, p.lang) }
            <input
                id={p.id.clone()}
                name={key}
                type="text"
                inputmode="decimal"
                value={p.current.clone()}
                {onchange}
            />
        </label>
    }
}
