//! Reading CSV tables with errors that name the row and the field.
//!
//! Every bundled or imported table goes through [`Table::parse`], which
//! checks the header against the expected columns (unknown and missing
//! columns are errors), then hands out typed fields. Nothing here panics on
//! any input.

use std::collections::HashMap;

/// An error in a table, naming where it is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TableError {
    #[error("{table}: cannot read CSV: {reason}")]
    Csv { table: String, reason: String },
    #[error("{table}: unknown column `{column}`")]
    UnknownColumn { table: String, column: String },
    #[error("{table}: missing column `{column}`")]
    MissingColumn { table: String, column: String },
    #[error("{table}: row {row}, field `{field}`: {reason}")]
    Field { table: String, row: usize, field: String, reason: String },
    #[error("{table}: row {row}: {reason}")]
    Row { table: String, row: usize, reason: String },
}

/// A parsed table: header positions plus raw records.
pub struct Table {
    name: String,
    index: HashMap<String, usize>,
    rows: Vec<csv::StringRecord>,
    /// A bundled table of a Wasm build, whose `source` cells `build.rs` emptied.
    stripped: bool,
}

/// The bundled tables (by the name the catalog parses them under) whose
/// Wasm copies have their `source` and `notes` cells emptied by `build.rs`.
const STRIPPED_IN_WASM: &[&str] = &["gpus.csv", "models.csv", "offers.csv", "providers.csv", "media_models.csv", "support.csv", "rates.csv"];

/// One row of a table, with typed accessors.
pub struct Row<'a> {
    table: &'a Table,
    /// 1-based data row number (the header is row 0).
    pub number: usize,
    record: &'a csv::StringRecord,
}

impl Table {
    /// Parses `text` as CSV whose header must be exactly the `columns` (any order).
    pub fn parse(name: &str, text: &str, columns: &[&str]) -> Result<Table, TableError> {
        Table::parse_with_optional(name, text, columns, &[])
    }

    /// As [`Table::parse`], where the `optional` columns may also be absent
    /// (a missing one reads as empty cells): columns added to a table after
    /// people wrote their own files in its format.
    pub fn parse_with_optional(name: &str, text: &str, columns: &[&str], optional: &[&str]) -> Result<Table, TableError> {
        let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(false).from_reader(text.as_bytes());
        let headers = reader.headers().map_err(|e| TableError::Csv { table: name.into(), reason: e.to_string() })?.clone();
        let mut index = HashMap::new();
        for (i, h) in headers.iter().enumerate() {
            let h = h.trim().trim_start_matches('\u{feff}');
            if !columns.contains(&h) && !optional.contains(&h) {
                return Err(TableError::UnknownColumn { table: name.into(), column: h.into() });
            }
            index.insert(h.to_string(), i);
        }
        for c in columns {
            if !index.contains_key(*c) && !optional.contains(c) {
                return Err(TableError::MissingColumn { table: name.into(), column: (*c).into() });
            }
        }
        let mut rows = Vec::new();
        for (i, rec) in reader.records().enumerate() {
            let rec = rec.map_err(|e| TableError::Row { table: name.into(), row: i + 1, reason: e.to_string() })?;
            rows.push(rec);
        }
        let stripped = cfg!(target_arch = "wasm32") && STRIPPED_IN_WASM.contains(&name);
        Ok(Table { name: name.into(), index, rows, stripped })
    }

    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().enumerate().map(move |(i, record)| Row { table: self, number: i + 1, record })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl Row<'_> {
    pub fn error(&self, field: &str, reason: impl Into<String>) -> TableError {
        TableError::Field { table: self.table.name.clone(), row: self.number, field: field.into(), reason: reason.into() }
    }

    /// The trimmed text of a field ("" when empty).
    pub fn text(&self, field: &str) -> &str {
        self.table.index.get(field).and_then(|&i| self.record.get(i)).map(str::trim).unwrap_or("")
    }

    pub fn req_str(&self, field: &str) -> Result<String, TableError> {
        let t = self.text(field);
        if t.is_empty() {
            return Err(self.error(field, "is empty"));
        }
        Ok(t.to_string())
    }

    /// The row's `source`: required, except in a bundled table of a Wasm
    /// build (its copy has the sources dropped); never relaxed natively or
    /// for an imported table.
    pub fn req_source(&self) -> Result<String, TableError> {
        if self.table.stripped {
            return Ok(self.text("source").to_string());
        }
        self.req_str("source")
    }

    pub fn opt_f64(&self, field: &str) -> Result<Option<f64>, TableError> {
        let t = self.text(field);
        if t.is_empty() {
            return Ok(None);
        }
        match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.error(field, format!("`{}` is not a number", clip(t)))),
        }
    }

    pub fn req_f64(&self, field: &str) -> Result<f64, TableError> {
        self.opt_f64(field)?.ok_or_else(|| self.error(field, "is empty"))
    }

    /// A required number that must be > 0.
    pub fn positive(&self, field: &str) -> Result<f64, TableError> {
        let v = self.req_f64(field)?;
        if v <= 0.0 {
            return Err(self.error(field, format!("must be positive, got {v}")));
        }
        Ok(v)
    }

    /// An optional number that must be >= 0 when present.
    pub fn opt_non_negative(&self, field: &str) -> Result<Option<f64>, TableError> {
        match self.opt_f64(field)? {
            Some(v) if v < 0.0 => Err(self.error(field, format!("must not be negative, got {v}"))),
            v => Ok(v),
        }
    }

    pub fn opt_u32(&self, field: &str) -> Result<Option<u32>, TableError> {
        let t = self.text(field);
        if t.is_empty() {
            return Ok(None);
        }
        t.parse::<u32>().map(Some).map_err(|_| self.error(field, format!("`{}` is not a whole number", clip(t))))
    }

    pub fn req_u32(&self, field: &str) -> Result<u32, TableError> {
        self.opt_u32(field)?.ok_or_else(|| self.error(field, "is empty"))
    }

    pub fn positive_u32(&self, field: &str) -> Result<u32, TableError> {
        let v = self.req_u32(field)?;
        if v == 0 {
            return Err(self.error(field, "must be at least 1"));
        }
        Ok(v)
    }

    pub fn opt_bool(&self, field: &str) -> Result<Option<bool>, TableError> {
        match self.text(field) {
            "" => Ok(None),
            "true" | "1" | "yes" | "y" => Ok(Some(true)),
            "false" | "0" | "no" | "n" => Ok(Some(false)),
            t => Err(self.error(field, format!("`{}` is not true/false", clip(t)))),
        }
    }
}

/// Shortens a hostile value before it is echoed in a message.
pub fn clip(s: &str) -> String {
    let mut out: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    out
}

/// True for lowercase ids made of `[a-z0-9._-]`, starting with a letter or digit.
pub fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 80
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-' || b == b'_')
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
}
