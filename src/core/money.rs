//! Money as the reader sees it: amounts kept in US dollars (every `usd_*`
//! field of the answer) shown in the display currency (`cur`), converted
//! at the catalog's dated rate, with a mark on every converted price.
//! Formatting only; nothing here changes a bill or a ranking.

use super::catalog::{Catalog, Rate};
use super::config::Currency;
use super::date::Date;
use super::settings::Settings;

/// The display currency of an answer and its rate to US dollars.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Display {
    pub currency: Currency,
    /// US dollars per unit of `currency` (1 for the dollar).
    pub usd_per_unit: f64,
    /// The date of the rate (`None` for the dollar).
    pub rate_as_of: Option<Date>,
    /// Every rate of the catalog (a converted price names the one it used).
    pub rates: Vec<Rate>,
}

impl Default for Display {
    fn default() -> Display {
        Display { currency: Currency::Usd, usd_per_unit: 1.0, rate_as_of: None, rates: Vec::new() }
    }
}

impl Display {
    /// The display currency the configuration asks for, at the catalog's
    /// rate; US dollars where the catalog has no rate for it.
    pub fn new(cfg: &Settings, catalog: &Catalog) -> Display {
        let rates = catalog.rates.iter().map(|r| r.rate).collect();
        match (cfg.display_currency(), catalog.rate(cfg.display_currency())) {
            (Currency::Usd, _) | (_, None) => Display { rates, ..Display::default() },
            (currency, Some(r)) => {
                Display { currency, usd_per_unit: r.usd_per_unit, rate_as_of: Some(r.as_of), rates }
            }
        }
    }

    /// An amount in US dollars, in the display currency.
    pub fn amount(&self, usd: f64) -> f64 {
        usd / self.usd_per_unit
    }

    pub fn symbol(&self) -> &'static str {
        symbol(self.currency)
    }

    /// `$1.23` / `¥8.40`: cents below 100 units, whole units above.
    pub fn format(&self, usd: f64) -> String {
        let v = self.amount(usd);
        if v.abs() < 100.0 {
            format!("{}{v:.2}", self.symbol())
        } else {
            format!("{}{v:.0}", self.symbol())
        }
    }

    /// A price in `own` currency shown in this one is converted.
    pub fn converts(&self, own: Currency) -> bool {
        own != self.currency
    }

    /// US dollars per unit of `c` (1 for the dollar and for a currency
    /// without a rate, which the catalog does not load).
    pub fn usd_per_unit_of(&self, c: Currency) -> f64 {
        self.rates.iter().find(|r| r.currency == c).map_or(1.0, |r| r.usd_per_unit)
    }

    /// The rate a price in `own` currency was converted with: its own
    /// currency's when that is not the dollar, else the display's; `None`
    /// when nothing was converted.
    pub fn rate_for(&self, own: Currency) -> Option<Rate> {
        let foreign = if own == Currency::Usd { self.currency } else { own };
        (self.converts(own)).then(|| self.rates.iter().find(|r| r.currency == foreign).copied()).flatten()
    }

    /// "1 USD = 6.8271 CNY (rate of 2026-05-04)": the note on converted prices.
    pub fn rate_text(r: &Rate) -> String {
        format!(
            "1 USD = {:.4} {} ({})",
            1.0 / r.usd_per_unit,
            r.currency.as_str().to_ascii_uppercase(),
            r.as_of
        )
    }
}

pub fn symbol(c: Currency) -> &'static str {
    match c {
        Currency::Usd => "$",
        Currency::Cny => "¥",
    }
}

/// The mark on a converted price.
pub const CONVERTED_MARK: &str = "*";
