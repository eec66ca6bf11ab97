//! Table cells the cards share: a row's column headers from their message
//! keys, built by one non-inlined function (one compiled copy instead of
//! one `html!` site per header).

use yew::prelude::*;

use crate::core::config::Lang;
use crate::core::messages::ui;

/// Column headers (`<th scope="col">`), one per message key, in order.
#[inline(never)]
pub fn col_heads(keys: &[&'static str], lang: Lang) -> Html {
    keys.iter().map(|k| html! { <th scope="col">{ ui(k, lang) }</th> }).collect()
}
