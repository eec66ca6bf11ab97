//! Hosted API prices (`static/api_prices.csv`): US dollars per million
//! input and output tokens for a catalog model on a host's API, dated and
//! sourced, with a `stale` mark on rows known to be superseded (kept for
//! the record, never compared). The CLI's answers compare with them
//! (`evaluate::api`, [`bundled`]), and the on-demand worker with its copy
//! ([`ApiFile`]); they are not in the page's compiled catalog.

use super::super::date::Date;
use super::super::table::{Table, TableError};
use super::models::Model;

pub const API_PRICE_COLUMNS: &[&str] = &[
    "model",
    "host",
    "api_model",
    "usd_per_million_input",
    "usd_per_million_output",
    "as_of",
    "stale",
    "source",
    "notes",
];

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
            return Err(
                row.error("model", format!("`{}` is not in models.csv", super::super::table::clip(&model)))
            );
        }
        let d = row.text("as_of");
        let as_of = Date::parse(d).ok_or_else(|| {
            row.error("as_of", format!("`{}` is not a YYYY-MM-DD date", super::super::table::clip(d)))
        })?;
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

/// The on-demand worker's copy of the table and of the API texts
/// (`g.api.*`, both languages), which the page's first answer does not
/// carry: `build.rs` writes it (`OUT_DIR/api-prices.txt`) and
/// `core::ondemand::api_file` reads it (only the worker's calls link it: the page's
/// module never does). Lines, fields [`US`]
/// apart: a head `whichgpu-api <stamp>`, then `t`, key, English, Chinese
/// for each text, and `p`, then every column of an [`ApiPrice`] in order
/// (numbers in Rust's shortest round-trip form, `stale` as `1`/`0`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ApiFile {
    pub prices: Vec<ApiPrice>,
    /// (key, English, Chinese).
    pub texts: Vec<(String, String, String)>,
}

/// Between the fields of a line of the file (ASCII unit separator).
pub const US: char = '\u{1f}';

impl ApiFile {
    /// The text of `key` in `lang`, if the file has it.
    pub fn text(&self, key: &str, lang: super::super::config::Lang) -> Option<&str> {
        let row = self.texts.iter().find(|t| t.0 == key)?;
        Some(if lang == super::super::config::Lang::Zh { &row.2 } else { &row.1 })
    }
}

/// The file's body (without its head); an error names a field that holds a
/// separator or a line break.
pub fn encode_file(prices: &[ApiPrice], texts: &[(&str, &str, &str)]) -> Result<String, String> {
    let mut out = String::new();
    let mut line = |fields: &[&str]| -> Result<(), String> {
        if let Some(bad) = fields.iter().find(|f| f.contains([US, '\n', '\r'])) {
            return Err(format!(
                "api_prices: `{}` holds a line break or a unit separator",
                super::super::table::clip(bad)
            ));
        }
        out.push_str(&fields.join(&US.to_string()));
        out.push('\n');
        Ok(())
    };
    for (key, en, zh) in texts {
        line(&["t", key, en, zh])?;
    }
    for p in prices {
        let (i, o, d) =
            (p.usd_per_million_input.to_string(), p.usd_per_million_output.to_string(), p.as_of.to_string());
        line(&[
            "p",
            &p.model,
            &p.host,
            &p.api_model,
            &i,
            &o,
            &d,
            if p.stale { "1" } else { "0" },
            &p.source,
        ])?;
    }
    Ok(out)
}

/// Reads the file back; `None` for a file that is not one (the page then shows no API line).
pub fn parse_file(text: &str) -> Option<ApiFile> {
    let mut lines = text.lines();
    if !lines.next()?.starts_with("whichgpu-api ") {
        return None;
    }
    let mut file = ApiFile::default();
    for l in lines {
        let f: Vec<&str> = l.split(US).collect();
        match f.as_slice() {
            ["t", key, en, zh] => file.texts.push((key.to_string(), en.to_string(), zh.to_string())),
            ["p", model, host, api_model, i, o, d, stale, source] => file.prices.push(ApiPrice {
                model: model.to_string(),
                host: host.to_string(),
                api_model: api_model.to_string(),
                usd_per_million_input: i.parse().ok()?,
                usd_per_million_output: o.parse().ok()?,
                as_of: Date::parse(d)?,
                stale: *stale == "1",
                source: source.to_string(),
            }),
            _ => return None,
        }
    }
    Some(file)
}
