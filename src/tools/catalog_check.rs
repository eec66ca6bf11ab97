//! `whichgpu catalog check [--today YYYY-MM-DD]`: the bundled catalog's
//! rows against the rule that every fact carries its source and date. It
//! fails only on a row that lacks one of them: a `source` (every table), a
//! date (`as_of` of offers and rates, `commit_as_of` where a commit price is
//! given), a currency (offers, providers, rates) or a unit (an offer's
//! billing increment: on the row, on its provider, or listed as not
//! published by the provider). It lists, without failing, what is older
//! than six months ([`STALE_AFTER_DAYS`]) relative to `today`.
//!
//! It reads the tables raw (CSV records), so it names every bad row instead
//! of stopping at the first, and it works on tables the catalog's loader
//! would reject.

use std::collections::HashMap;

use crate::core::catalog::{Date, STALE_AFTER_DAYS};
use crate::core::config::Currency;

/// One finding: the table, the row (1-based, header = 0), the row's id and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub table: String,
    pub row: usize,
    pub id: String,
    pub what: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} row {} ({}): {}", self.table, self.row, self.id, self.what)
    }
}

/// What the check found: rows missing a fact (failures) and rows older
/// than six months (listed only).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub missing: Vec<Finding>,
    pub stale: Vec<Finding>,
    pub rows: usize,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.missing.is_empty()
    }
}

/// A table as header → column index and records.
struct Raw {
    name: String,
    index: HashMap<String, usize>,
    records: Vec<csv::StringRecord>,
}

impl Raw {
    fn parse(name: &str, text: &str) -> Result<Raw, String> {
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
        let headers = reader.headers().map_err(|e| format!("{name}: {e}"))?.clone();
        let index = headers
            .iter()
            .enumerate()
            .map(|(i, h)| (h.trim().trim_start_matches('\u{feff}').to_string(), i))
            .collect();
        let records = reader.records().collect::<Result<Vec<_>, _>>().map_err(|e| format!("{name}: {e}"))?;
        Ok(Raw { name: name.to_string(), index, records })
    }

    fn cell<'a>(&self, rec: &'a csv::StringRecord, col: &str) -> Option<&'a str> {
        self.index.get(col).and_then(|&i| rec.get(i)).map(str::trim)
    }

    fn has(&self, col: &str) -> bool {
        self.index.contains_key(col)
    }
}

/// Checks the tables (`(file name, CSV text)`), on `today`.
pub fn check(tables: &[(&str, &str)], today: Date) -> Result<Report, String> {
    let raws = tables.iter().map(|(n, t)| Raw::parse(n, t)).collect::<Result<Vec<_>, _>>()?;
    // Providers' billing increments, published or listed as not published.
    let mut increment_of: HashMap<String, bool> = HashMap::new();
    if let Some(p) = raws.iter().find(|r| r.name == "providers.csv") {
        for rec in &p.records {
            let id = p.cell(rec, "id").unwrap_or("").to_string();
            let published = !p.cell(rec, "billing_increment_s").unwrap_or("").is_empty();
            let listed = p
                .cell(rec, "unpublished_fields")
                .unwrap_or("")
                .split(';')
                .any(|f| f.trim() == "billing_increment_s");
            increment_of.insert(id, published || listed);
        }
    }
    let mut report = Report::default();
    for raw in &raws {
        for (i, rec) in raw.records.iter().enumerate() {
            report.rows += 1;
            let id = raw.cell(rec, "id").or_else(|| raw.cell(rec, "currency")).unwrap_or("").to_string();
            let finding =
                |what: String| Finding { table: raw.name.clone(), row: i + 1, id: id.clone(), what };
            if raw.has("source") && raw.cell(rec, "source").unwrap_or("").is_empty() {
                report.missing.push(finding("no source".into()));
            }
            if raw.has("currency") {
                match raw.cell(rec, "currency").unwrap_or("") {
                    "" => report.missing.push(finding("no currency".into())),
                    c if Currency::parse(c).is_none() => {
                        report.missing.push(finding(format!("unknown currency `{c}`")))
                    }
                    _ => {}
                }
            }
            let mut dated = |col: &str, required: bool| match raw.cell(rec, col).unwrap_or("") {
                "" if required => report.missing.push(finding(format!("no date ({col})"))),
                "" => {}
                t => match Date::parse(t) {
                    None => report.missing.push(finding(format!("`{t}` in {col} is not a YYYY-MM-DD date"))),
                    Some(d) if d.days_until(today) > STALE_AFTER_DAYS => report
                        .stale
                        .push(finding(format!("{col} {d} is {} days before {today}", d.days_until(today)))),
                    Some(_) => {}
                },
            };
            if raw.has("as_of") {
                dated("as_of", true);
            }
            if raw.has("commit_as_of") {
                let any_commit =
                    ["commit_1mo_usd_per_hour", "commit_1yr_usd_per_hour", "commit_3yr_usd_per_hour"]
                        .iter()
                        .any(|c| !raw.cell(rec, c).unwrap_or("").is_empty());
                dated("commit_as_of", any_commit);
            }
            if raw.name == "offers.csv" {
                let own = !raw.cell(rec, "billing_increment_s").unwrap_or("").is_empty();
                let provider = raw.cell(rec, "provider").unwrap_or("");
                if !own && !increment_of.get(provider).copied().unwrap_or(false) {
                    report.missing.push(finding(format!(
                        "no unit: no billing increment on the row or \
                        provider `{provider}`, and not listed as unpublished"
                    )));
                }
            }
        }
    }
    Ok(report)
}

/// The report as text: failures first, then the stale rows.
pub fn text(r: &Report, today: Date) -> String {
    let mut s = format!(
        "catalog check on {today}: {} rows, {} missing a fact, {} older than six months\n",
        r.rows,
        r.missing.len(),
        r.stale.len()
    );
    for f in &r.missing {
        s.push_str(&format!("missing: {f}\n"));
    }
    for f in &r.stale {
        s.push_str(&format!("stale: {f}\n"));
    }
    s
}
