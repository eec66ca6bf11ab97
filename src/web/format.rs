//! How the page writes numbers, money and sizes. Leaf module: imports
//! nothing from the shell.

use crate::core::config::Lang;
use crate::core::messages::{ui, Msg};
use crate::core::units::GIB;

/// Formats a number for the locale (thousands separators; Chinese uses the same digits).
pub fn num(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let s = format!("{:.*}", digits, v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(a, b)| (a, b));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

pub fn usd(v: f64, lang: Lang) -> String {
    let digits = if v.abs() < 10.0 { 2 } else { 0 };
    match lang {
        Lang::En => format!("${}", num(v, digits)),
        Lang::Zh => format!("{} 美元", num(v, digits)),
    }
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
