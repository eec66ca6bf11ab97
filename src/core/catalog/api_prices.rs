//! Hosted API prices (`static/api_prices.csv`): US dollars per million
//! input and output tokens for a catalog model on a host's API, dated and
//! sourced, with a `stale` mark on rows known to be superseded (kept for
//! the record, never compared). Only the CLI's answers compare with them
//! (`evaluate::api`), so they are not in the page's compiled catalog.

use super::super::date::Date;
use super::super::table::{Table, TableError};
use super::models::Model;

pub const API_PRICE_COLUMNS: &[&str] = &["model", "host", "api_model", "usd_per_million_input", "usd_per_million_output", "as_of", "stale", "source", "notes"];

/// One host's price for one model.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiPrice {
    pub model: String,
    /// The host, with its tier in parentheses where it sells several ("DeepInfra (Turbo, FP8)").
    pub host: String,
    /// The host's own name for the model.
    pub api_model: String,
    pub usd_per_million_input: f64,
    pub usd_per_million_output: f64,
    pub as_of: Date,
    pub stale: bool,
    pub source: String,
}

impl ApiPrice {
    /// US dollars for one request of `input` prompt and `output` generated tokens.
    pub fn usd_per_request(&self, input: f64, output: f64) -> f64 {
        (input * self.usd_per_million_input + output * self.usd_per_million_output) / 1e6
    }
}

/// Parses the table; every `model` must be a catalog model.
pub fn parse_api_prices(text: &str, models: &[Model]) -> Result<Vec<ApiPrice>, TableError> {
    let table = Table::parse("api_prices.csv", text, API_PRICE_COLUMNS)?;
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        let model = row.req_str("model")?;
        if !models.iter().any(|m| m.id == model) {
            return Err(row.error("model", format!("`{}` is not in models.csv", super::super::table::clip(&model))));
        }
        let d = row.text("as_of");
        let as_of = Date::parse(d).ok_or_else(|| row.error("as_of", format!("`{}` is not a YYYY-MM-DD date", super::super::table::clip(d))))?;
        out.push(ApiPrice {
            model,
            host: row.req_str("host")?,
            api_model: row.req_str("api_model")?,
            usd_per_million_input: row.positive("usd_per_million_input")?,
            usd_per_million_output: row.positive("usd_per_million_output")?,
            as_of,
            stale: row.opt_bool("stale")?.ok_or_else(|| row.error("stale", "is empty: `true` or `false`"))?,
            source: row.req_source()?,
        });
    }
    Ok(out)
}

/// The bundled table, parsed once (native builds). A table that does not
/// parse gives no prices here; `tests/it/api.rs` fails on it.
#[cfg(not(target_arch = "wasm32"))]
pub fn bundled(models: &[Model]) -> &'static [ApiPrice] {
    static PRICES: std::sync::OnceLock<Vec<ApiPrice>> = std::sync::OnceLock::new();
    PRICES.get_or_init(|| parse_api_prices(bundled_table!("api_prices.csv"), models).unwrap_or_default())
}
