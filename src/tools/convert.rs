//! The price converters' shared core ([`super::skypilot`], [`super::ocp`],
//! [`super::silybench`]): the record loop that reads a price file by its
//! header names and lists the rows it cannot read, and the writer of
//! `static/offers.csv` rows (the header is exactly [`OFFER_COLUMNS`]). Each
//! converter keeps only what its source means: which columns, how a row
//! maps to a catalog GPU, how rows merge into one offer.

use std::collections::HashMap;

use crate::core::catalog::offers::OFFER_COLUMNS;
use crate::core::table::{clip, TableError};

/// Rows not converted: (data-row number, header = row 0; reason naming the field).
pub type Skipped = Vec<(usize, String)>;

/// A price file's records with their header, read by column name.
pub struct Sheet {
    names: Vec<String>,
    /// (data-row number, record) of each row with as many fields as the header.
    pub rows: Vec<(usize, csv::StringRecord)>,
}

impl Sheet {
    /// Reads `text` (CSV with a header row; a BOM and spaces around names
    /// are ignored), checking that every `required` column is there. Rows
    /// that cannot be read, or whose field count is not the header's, go
    /// to `skipped` with their reason.
    pub fn read(
        table: &str,
        text: &str,
        required: &[&str],
        skipped: &mut Skipped,
    ) -> Result<Sheet, TableError> {
        let mut reader =
            csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(text.as_bytes());
        let headers = reader
            .headers()
            .map_err(|e| TableError::Csv { table: table.into(), reason: e.to_string() })?
            .clone();
        let names: Vec<String> =
            headers.iter().map(|h| h.trim().trim_start_matches('\u{feff}').to_string()).collect();
        for c in required {
            if !names.iter().any(|n| n == c) {
                return Err(TableError::MissingColumn { table: table.into(), column: (*c).into() });
            }
        }
        let mut rows = Vec::new();
        for (i, rec) in reader.records().enumerate() {
            let row = i + 1;
            match rec {
                Ok(r) if r.len() == names.len() => rows.push((row, r)),
                Ok(r) => {
                    skipped.push((row, format!("has {} fields, the header has {}", r.len(), names.len())))
                }
                Err(e) => skipped.push((row, format!("cannot read the row: {e}"))),
            }
        }
        Ok(Sheet { names, rows })
    }

    /// The column's index, if the file has it.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|h| h == name)
    }

    /// One record read by column name.
    pub fn fields<'a>(&'a self, rec: &'a csv::StringRecord) -> Fields<'a> {
        Fields { sheet: self, rec }
    }
}

/// One record with its header, read by column name.
pub struct Fields<'a> {
    sheet: &'a Sheet,
    rec: &'a csv::StringRecord,
}

impl<'a> Fields<'a> {
    /// The trimmed field, or "" when the column is absent.
    pub fn get(&self, name: &str) -> &'a str {
        self.sheet.column(name).and_then(|i| self.rec.get(i)).map(str::trim).unwrap_or("")
    }
}

/// The `offers.csv` text being written: the header, then one row per offer.
pub struct OfferWriter {
    table: &'static str,
    out: csv::Writer<Vec<u8>>,
    /// Rows written.
    pub converted: usize,
}

impl OfferWriter {
    /// A writer with the header written; errors name `table`.
    pub fn new(table: &'static str) -> Result<OfferWriter, TableError> {
        let mut w =
            OfferWriter { table, out: csv::WriterBuilder::new().from_writer(Vec::new()), converted: 0 };
        w.record(OFFER_COLUMNS.iter().copied())?;
        Ok(w)
    }

    /// One offer: its fields by column name, in the table's column order
    /// (a column not given is left empty for the provider's row to supply).
    pub fn offer(&mut self, fields: &[(&str, String)]) -> Result<(), TableError> {
        let by_name: HashMap<&str, &str> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.record(OFFER_COLUMNS.iter().map(|col| by_name.get(col).copied().unwrap_or("")))?;
        self.converted += 1;
        Ok(())
    }

    fn record<'a>(&mut self, fields: impl Iterator<Item = &'a str>) -> Result<(), TableError> {
        self.out
            .write_record(fields)
            .map_err(|e| TableError::Csv { table: self.table.into(), reason: e.to_string() })
    }

    /// The text written and the number of offers in it; the `skipped`
    /// rows are put in row order.
    pub fn finish(self, skipped: &mut Skipped) -> Result<(String, usize), TableError> {
        let table = self.table;
        let bytes = self
            .out
            .into_inner()
            .map_err(|e| TableError::Csv { table: table.into(), reason: e.to_string() })?;
        let text = String::from_utf8(bytes)
            .map_err(|e| TableError::Csv { table: table.into(), reason: e.to_string() })?;
        skipped.sort_by_key(|(row, _)| *row);
        Ok((text, self.converted))
    }
}

/// `items` grouped by `key`, the groups in the order their first item
/// came (one offer per group: the converters' merge of hosts, regions,
/// tiers or zones).
pub fn group_in_order<K: Eq + std::hash::Hash + Clone, T>(
    items: Vec<T>,
    key: impl Fn(&T) -> K,
) -> Vec<(K, Vec<T>)> {
    let mut groups: Vec<(K, Vec<T>)> = Vec::new();
    let mut index: HashMap<K, usize> = HashMap::new();
    for item in items {
        let k = key(&item);
        match index.get(&k).and_then(|&i| groups.get_mut(i)) {
            Some((_, group)) => group.push(item),
            None => {
                index.insert(k.clone(), groups.len());
                groups.push((k, vec![item]));
            }
        }
    }
    groups
}

/// The file's `source` trimmed; an error naming `table` when it is empty
/// (every offer needs its source).
pub fn require_source<'a>(table: &str, source: &'a str) -> Result<&'a str, TableError> {
    let source = source.trim();
    if source.is_empty() {
        return Err(TableError::Field {
            table: table.into(),
            row: 0,
            field: "source".into(),
            reason: "is empty (every offer needs its source)".into(),
        });
    }
    Ok(source)
}

/// An optional number: `None` when empty, an error naming the field when not a finite number.
pub fn number_field(field: &str, text: &str) -> Result<Option<f64>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        _ => Err(format!("`{field}` `{}` is not a number", clip(text))),
    }
}

/// A price or size without float noise (sums of two prices are rounded to
/// 1e-6; `8.0` prints as `8`).
pub fn number(v: f64) -> String {
    let r = (v * 1e6).round() / 1e6;
    format!("{r}")
}

/// Lowercase, with characters outside `[a-z0-9.-]` replaced by '-'.
pub fn slug(s: &str) -> String {
    s.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-' { c } else { '-' })
        .collect()
}
