//! The chart elements drawn from many places (grid and axis lines, texts in
//! the foreground colour, legend entries), each built by one non-inlined
//! function: one compiled copy instead of one per `html!` site.

use yew::prelude::*;

/// A grid or axis line from (`x1`, `y1`) to (`x2`, `y2`).
#[inline(never)]
pub fn line(x1: AttrValue, y1: AttrValue, x2: AttrValue, y2: AttrValue, stroke: &'static str) -> Html {
    html! { <line {x1} {y1} {x2} {y2} {stroke} /> }
}

/// A text in the foreground colour at (`x`, `y`), anchored and sized as
/// given, rotated where `transform` says.
#[inline(never)]
pub fn text(
    x: AttrValue,
    y: AttrValue,
    anchor: &'static str,
    size: &'static str,
    transform: Option<AttrValue>,
    content: String,
) -> Html {
    html! {
        <text {x} {y} {transform} text-anchor={anchor} fill="var(--fg)" font-size={size}>{ content }</text>
    }
}

/// A legend entry: the swatch (`class`, `style`) and its name.
#[inline(never)]
pub fn legend(class: Option<&'static str>, style: AttrValue, name: String) -> Html {
    html! { <span><i class={class} {style} />{ name }</span> }
}
