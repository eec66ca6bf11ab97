//! Reading CSV tables with errors that name the row and the field.
//!
//! Every bundled or imported table goes through [`Table::parse`], which
//! checks the header against the expected columns (unknown and missing
//! columns are errors), then hands out typed fields. Nothing here panics on
//! any input.
//!
//! The reader is a small RFC 4180 one (<https://www.rfc-editor.org/rfc/rfc4180>,
//! 2005): comma-separated fields, `"`-quoted fields that may hold commas,
//! quotes (doubled) and line breaks, records ended by LF, CRLF or a lone CR.
//! Like the `csv` crate's default reader, which it replaces in the page's
//! Wasm (it is smaller), it skips empty lines, takes text after a closing
//! quote into the field, and reads an unclosed quote to the end of the text;
//! `tests/it/catalog/table.rs` checks it against that crate on generated tables.

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
    rows: Vec<Record>,
}

/// One row of a table, with typed accessors.
pub struct Row<'a> {
    table: &'a Table,
    /// 1-based data row number (the header is row 0).
    pub number: usize,
    record: &'a Record,
}

/// One record's fields, stored as one string and the end offset of each field.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    text: String,
    ends: Vec<usize>,
}

impl Record {
    /// Appends a field.
    pub fn push(&mut self, field: &str) {
        self.text.push_str(field);
        self.ends.push(self.text.len());
    }

    /// The `i`-th field, if there is one.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { *self.ends.get(i - 1)? };
        self.text.get(start..end)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The fields in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// Reads `text` as CSV records (see the module's notes on the dialect).
pub fn read_csv(text: &str) -> Vec<Record> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut rec = Record::default();
    // The current field's bytes; split only at ASCII bytes, so always UTF-8.
    let mut field: Vec<u8> = Vec::new();
    // Whether the current line has any byte yet (an empty line is skipped).
    let mut started = false;
    let mut quoted = false;
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        if quoted {
            if b == b'"' {
                if bytes.get(i) == Some(&b'"') {
                    field.push(b'"');
                    i += 1;
                } else {
                    quoted = false;
                }
            } else {
                field.push(b);
            }
            continue;
        }
        match b {
            b'"' if field.is_empty() => {
                quoted = true;
                started = true;
            }
            b',' => {
                rec.push(&String::from_utf8_lossy(&field));
                field.clear();
                started = true;
            }
            b'\n' | b'\r' => {
                if b == b'\r' && bytes.get(i) == Some(&b'\n') {
                    i += 1;
                }
                if started {
                    rec.push(&String::from_utf8_lossy(&field));
                    field.clear();
                    out.push(std::mem::take(&mut rec));
                    started = false;
                }
            }
            _ => {
                field.push(b);
                started = true;
            }
        }
    }
    if started {
        rec.push(&String::from_utf8_lossy(&field));
        out.push(rec);
    }
    out
}

impl Table {
    /// Parses `text` as CSV whose header must be exactly the `columns` (any order).
    pub fn parse(name: &str, text: &str, columns: &[&str]) -> Result<Table, TableError> {
        Table::parse_with_optional(name, text, columns, &[])
    }

    /// As [`Table::parse`], where the `optional` columns may also be absent
    /// (a missing one reads as empty cells): columns added to a table after
    /// people wrote their own files in its format.
    pub fn parse_with_optional(
        name: &str,
        text: &str,
        columns: &[&str],
        optional: &[&str],
    ) -> Result<Table, TableError> {
        let mut records = read_csv(text).into_iter();
        let header = records
            .next()
            .ok_or_else(|| TableError::Csv { table: name.into(), reason: "no header row".into() })?;
        Table::from_records(name, &header.iter().collect::<Vec<_>>(), records.collect(), columns, optional)
    }

    /// A table from records read elsewhere (the offers' JSON import), checked
    /// as [`Table::parse_with_optional`] checks a CSV's.
    pub fn from_records(
        name: &str,
        header: &[&str],
        records: Vec<Record>,
        columns: &[&str],
        optional: &[&str],
    ) -> Result<Table, TableError> {
        let mut index = HashMap::new();
        for (i, h) in header.iter().enumerate() {
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
        for (i, rec) in records.iter().enumerate() {
            if rec.len() != header.len() {
                return Err(TableError::Row {
                    table: name.into(),
                    row: i + 1,
                    reason: format!("{} fields, the header has {}", rec.len(), header.len()),
                });
            }
        }
        Ok(Table { name: name.into(), index, rows: records })
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
        TableError::Field {
            table: self.table.name.clone(),
            row: self.number,
            field: field.into(),
            reason: reason.into(),
        }
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

    /// The row's `source`: required in every table (the Wasm parses no
    /// bundled table; its compiled catalog has the sources emptied after
    /// this check, in `build.rs`).
    pub fn req_source(&self) -> Result<String, TableError> {
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
        t.parse::<u32>()
            .map(Some)
            .map_err(|_| self.error(field, format!("`{}` is not a whole number", clip(t))))
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
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-' || b == b'_')
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
}
