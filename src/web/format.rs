//! How the page writes numbers, money and sizes. Leaf module: imports
//! nothing from the shell.

use crate::core::config::{Currency, Lang};
use crate::core::messages::{ui, Msg};
use crate::core::money::{symbol, Display, CONVERTED_MARK};
pub use crate::core::units::num;
use crate::core::units::GIB;

/// An amount kept in US dollars, shown in the display currency.
pub fn money(usd: f64, d: &Display, lang: Lang) -> String {
    let v = d.amount(usd);
    let digits = if v.abs() < 10.0 { 2 } else { 0 };
    match (d.currency, lang) {
        (Currency::Usd, Lang::Zh) => format!("{} 美元", num(v, digits)),
        (c, _) => format!("{}{}", symbol(c), num(v, digits)),
    }
}

/// A money label ("$/hour", "美元/月") in the display currency.
pub fn in_currency(label: &str, d: &Display) -> String {
    match d.currency {
        Currency::Usd => label.to_string(),
        Currency::Cny => label.replace("美元", "元").replace('$', "¥"),
    }
}

/// An offer's price (in US dollars) shown in the display currency, marked
/// when the offer is priced in another currency (converted).
pub fn price(usd: f64, own: Currency, d: &Display, lang: Lang) -> String {
    let mark = if d.converts(own) { CONVERTED_MARK } else { "" };
    format!("{}{mark}", money(usd, d, lang))
}

pub fn gib(b: f64) -> String {
    format!("{} GiB", num(b / GIB, 1))
}

/// A message whose template is a page string (`ui.*`) rather than a rule message.
pub trait RenderUi {
    fn render_ui(&self, lang: Lang) -> String;
}

impl RenderUi for Msg {
    fn render_ui(&self, lang: Lang) -> String {
        self.fill(ui(self.key, lang), lang)
    }
}
