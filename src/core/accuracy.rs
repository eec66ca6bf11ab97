//! How far the serving estimator is from published measurements, as the
//! page's method card shows it: `static/accuracy.csv`, written by
//! `whichgpu calibrate … --summary` (`tools::accuracy`) from the estimator's
//! own scoring of the calibration files, and compiled in. A native test
//! regenerates it and fails when the committed file differs, so the
//! figures cannot drift from the estimator.
//!
//! Two kinds of rows share one header: `summary` (per set and kind: rows,
//! median and 90th-percentile absolute error, and for the fit set the
//! median when each GPU is left out of the fit) and `example` (one
//! measurement with its estimate and source).
//!
//! The page does not parse the file: `build.rs` parses it with this module
//! and writes the method card's cells ([`KindRow`], [`ExampleRow`]: the
//! numbers already formatted) as `core::bundled`'s statics `ACCURACY_KINDS`
//! and `ACCURACY_EXAMPLES` (`OUT_DIR/accuracy.rs`), which
//! `tests/it/estimate/accuracy.rs` checks against the rows parsed here.

use std::sync::OnceLock;

use super::table::{Row, Table, TableError};
use super::units::num;

pub const ACCURACY_COLUMNS: &[&str] = &[
    "row",
    "set",
    "kind",
    "rows",
    "median_pct",
    "p90_pct",
    "leave_one_gpu_out_median_pct",
    "id",
    "case",
    "measured",
    "estimated",
    "unit",
    "source",
];

/// The committed summary.
pub const ACCURACY_CSV: &str = include_str!("../../static/accuracy.csv");

/// Which measurements a row speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Set {
    /// `tests/data/calibration.csv`: the rows the engine factors were fitted on.
    Fit,
    /// `split=holdout` rows of `tests/data/serving_measurements.csv`, never used to tune.
    Holdout,
}

impl Set {
    pub fn as_str(self) -> &'static str {
        match self {
            Set::Fit => "fit",
            Set::Holdout => "holdout",
        }
    }

    fn parse(row: &Row<'_>) -> Result<Set, TableError> {
        match row.text("set") {
            "fit" => Ok(Set::Fit),
            "holdout" => Ok(Set::Holdout),
            other => {
                Err(row.error("set", format!("`{}` is not one of fit|holdout", super::table::clip(other))))
            }
        }
    }
}

/// Errors of one kind of measurement (decode, prefill, throughput, memory) in one set.
#[derive(Debug, Clone, PartialEq)]
pub struct KindSummary {
    pub set: Set,
    pub kind: String,
    pub rows: u32,
    pub median_pct: f64,
    pub p90_pct: f64,
    /// Fit set only: the median error when each GPU's rows are predicted
    /// with factors refitted without them.
    pub leave_one_gpu_out_median_pct: Option<f64>,
    /// The file the rows come from.
    pub source: String,
}

/// One measurement next to its estimate.
#[derive(Debug, Clone, PartialEq)]
pub struct Example {
    pub set: Set,
    pub kind: String,
    pub id: String,
    pub case: String,
    pub measured: f64,
    pub estimated: f64,
    /// `tok/s` or `GiB`.
    pub unit: String,
    pub source: String,
}

impl Example {
    /// Signed error of the estimate, in percent of the measurement.
    pub fn error_pct(&self) -> f64 {
        (self.estimated - self.measured) / self.measured * 100.0
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Accuracy {
    pub summaries: Vec<KindSummary>,
    pub examples: Vec<Example>,
}

impl Accuracy {
    /// The summaries of one set, in file order.
    pub fn set(&self, set: Set) -> impl Iterator<Item = &KindSummary> {
        self.summaries.iter().filter(move |s| s.set == set)
    }

    /// Measurements in one set (the sum over its kinds).
    pub fn rows(&self, set: Set) -> u32 {
        self.set(set).map(|s| s.rows).sum()
    }
}

pub fn parse_accuracy(text: &str) -> Result<Accuracy, TableError> {
    let table = Table::parse("accuracy.csv", text, ACCURACY_COLUMNS)?;
    let mut out = Accuracy::default();
    for row in table.rows() {
        let set = Set::parse(&row)?;
        let kind = row.req_str("kind")?;
        let source = row.req_str("source")?;
        match row.text("row") {
            "summary" => out.summaries.push(KindSummary {
                set,
                kind,
                rows: row.positive_u32("rows")?,
                median_pct: row.req_f64("median_pct")?,
                p90_pct: row.req_f64("p90_pct")?,
                leave_one_gpu_out_median_pct: row.opt_f64("leave_one_gpu_out_median_pct")?,
                source,
            }),
            "example" => out.examples.push(Example {
                set,
                kind,
                id: row.req_str("id")?,
                case: row.req_str("case")?,
                measured: row.positive("measured")?,
                estimated: row.positive("estimated")?,
                unit: row.req_str("unit")?,
                source,
            }),
            other => {
                return Err(row
                    .error("row", format!("`{}` is not one of summary|example", super::table::clip(other))))
            }
        }
    }
    Ok(out)
}

/// The committed summary, parsed once.
pub fn bundled() -> Result<&'static Accuracy, TableError> {
    static CELL: OnceLock<Result<Accuracy, TableError>> = OnceLock::new();
    CELL.get_or_init(|| parse_accuracy(ACCURACY_CSV)).as_ref().map_err(Clone::clone)
}

/// A measured quantity's page string (`ui.acc.*`); memory for any other kind.
pub fn label_key(kind: &str) -> &'static str {
    match kind {
        "decode" => "ui.acc.decode",
        "prefill" => "ui.acc.prefill",
        "throughput" => "ui.acc.throughput",
        "ttft" => "ui.acc.ttft",
        _ => "ui.acc.memory",
    }
}

/// One row of the method card's summary table: a kind of the fit set.
/// `cells`: fit rows, fit error (median (p90)), leave-one-GPU-out median,
/// held-out rows, held-out error; "–" where there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct KindRow<S = &'static str> {
    pub kind: S,
    /// The kind's page string ([`label_key`]).
    pub label: &'static str,
    pub cells: [S; 5],
}

/// One row of the method card's examples table. `cells`: measured,
/// estimated (with the unit), signed error.
#[derive(Debug, Clone, PartialEq)]
pub struct ExampleRow<S = &'static str> {
    pub id: S,
    /// The kind's page string ([`label_key`]).
    pub label: &'static str,
    /// The set's page string (`ui.acc.set.*`).
    pub set: &'static str,
    pub case: S,
    pub source: S,
    pub cells: [S; 3],
}

impl Accuracy {
    /// The summary table's rows, in file order of the fit set's kinds.
    pub fn kind_rows(&self) -> Vec<KindRow<String>> {
        let pct = |v: f64| format!("{} %", num(v, 1));
        let err = |s: Option<&KindSummary>| {
            s.map_or("–".to_string(), |s| format!("{} ({})", pct(s.median_pct), pct(s.p90_pct)))
        };
        let held = |kind: &str| self.set(Set::Holdout).find(|s| s.kind == kind);
        self.set(Set::Fit)
            .map(|s| KindRow {
                kind: s.kind.clone(),
                label: label_key(&s.kind),
                cells: [
                    s.rows.to_string(),
                    err(Some(s)),
                    s.leave_one_gpu_out_median_pct.map_or("–".to_string(), pct),
                    held(&s.kind).map_or("–".to_string(), |h| h.rows.to_string()),
                    err(held(&s.kind)),
                ],
            })
            .collect()
    }

    /// The examples table's rows, in file order.
    pub fn example_rows(&self) -> Vec<ExampleRow<String>> {
        self.examples
            .iter()
            .map(|e| {
                let digits = if e.measured >= 1000.0 {
                    0
                } else if e.measured >= 100.0 {
                    1
                } else {
                    2
                };
                ExampleRow {
                    id: e.id.clone(),
                    label: label_key(&e.kind),
                    set: if e.set == Set::Fit { "ui.acc.set.fit" } else { "ui.acc.set.holdout" },
                    case: e.case.clone(),
                    source: e.source.clone(),
                    cells: [
                        format!("{} {}", num(e.measured, digits), e.unit),
                        format!("{} {}", num(e.estimated, digits), e.unit),
                        format!("{:+.1} %", e.error_pct()),
                    ],
                }
            })
            .collect()
    }
}
