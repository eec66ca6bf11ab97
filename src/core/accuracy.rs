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

use std::sync::OnceLock;

use super::table::{Row, Table, TableError};

pub const ACCURACY_COLUMNS: &[&str] =
    &["row", "set", "kind", "rows", "median_pct", "p90_pct", "leave_one_gpu_out_median_pct", "id", "case", "measured", "estimated", "unit", "source"];

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
            other => Err(row.error("set", format!("`{}` is not one of fit|holdout", super::table::clip(other)))),
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
            other => return Err(row.error("row", format!("`{}` is not one of summary|example", super::table::clip(other)))),
        }
    }
    Ok(out)
}

/// The committed summary, parsed once.
pub fn bundled() -> Result<&'static Accuracy, TableError> {
    static CELL: OnceLock<Result<Accuracy, TableError>> = OnceLock::new();
    CELL.get_or_init(|| parse_accuracy(ACCURACY_CSV)).as_ref().map_err(Clone::clone)
}
