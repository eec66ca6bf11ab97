//! Exchange rates (`static/rates.csv`): what one unit of a currency is worth
//! in US dollars, dated and sourced. Offers priced in another currency are
//! converted with these on load; the US dollar needs no row.

use super::super::date::Date;
use super::super::table::{Row, Table, TableError};
use crate::core::config::Currency;

pub const RATE_COLUMNS: &[&str] = &["currency", "usd_per_unit", "as_of", "source"];

/// One dated rate: `usd_per_unit` US dollars buy one unit of `currency`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Rate {
    pub currency: Currency,
    pub usd_per_unit: f64,
    pub as_of: Date,
}

/// A rate and where it comes from (the source text is empty in a Wasm build).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RateRow {
    pub rate: Rate,
    pub source: String,
}

pub fn parse_rates(text: &str) -> Result<Vec<RateRow>, TableError> {
    let table = Table::parse("rates.csv", text, RATE_COLUMNS)?;
    let mut out: Vec<RateRow> = Vec::with_capacity(table.len());
    for row in table.rows() {
        let rate = parse_row(&row)?;
        if rate.currency == Currency::Usd {
            return Err(row.error("currency", "`usd` is the base and has no row"));
        }
        if out.iter().any(|r| r.rate.currency == rate.currency) {
            return Err(row.error("currency", format!("a second row for `{}`", rate.currency.as_str())));
        }
        out.push(RateRow { rate, source: row.req_source()? });
    }
    Ok(out)
}

fn parse_row(row: &Row<'_>) -> Result<Rate, TableError> {
    let t = row.text("currency");
    let currency = Currency::parse(t).ok_or_else(|| {
        row.error("currency", format!("`{}` is not one of usd|cny", super::super::table::clip(t)))
    })?;
    let d = row.text("as_of");
    let as_of = Date::parse(d).ok_or_else(|| {
        row.error("as_of", format!("`{}` is not a YYYY-MM-DD date", super::super::table::clip(d)))
    })?;
    Ok(Rate { currency, usd_per_unit: row.positive("usd_per_unit")?, as_of })
}

/// US dollars per unit of `currency`: 1 for the dollar, the table's rate
/// otherwise, `None` where the table has none.
pub fn usd_per_unit(rates: &[RateRow], currency: Currency) -> Option<f64> {
    match currency {
        Currency::Usd => Some(1.0),
        c => rates.iter().find(|r| r.rate.currency == c).map(|r| r.rate.usd_per_unit),
    }
}
