//! Writes `static/accuracy.csv` (format: [`crate::core::accuracy`]), the
//! page's accuracy figures, from the estimator's own scoring of the two
//! measurement files (`calibration.csv`, `serving_measurements.csv`): their
//! `fit` rows, the ones the engine factors were fitted on (in-sample errors,
//! and the leave-one-GPU-out median of [`calibrate::run`]), and their
//! `held_out` rows, never used to tune (the split is by source,
//! `calibrate::split`). Per set and kind, one
//! example: the measurement whose error is nearest that kind's median.

use std::collections::BTreeMap;

use super::calibrate::{self, Case, Kind};
use crate::core::accuracy::{Set, ACCURACY_COLUMNS};
use crate::core::catalog::Catalog;
use crate::core::table::{Table, TableError};
use crate::core::units::GIB;

/// Where the summary's inputs and output live, relative to the checkout.
pub const FIT_FILE: &str = "tests/data/calibration.csv";
pub const HOLDOUT_FILE: &str = "tests/data/serving_measurements.csv";
pub const SUMMARY_FILE: &str = "static/accuracy.csv";
/// The command that rewrites the summary (the drift test prints it).
pub const REGENERATE: &str = "cargo run --bin whichgpu -- calibrate tests/data/calibration.csv --holdout \
        tests/data/serving_measurements.csv --summary static/accuracy.csv";

#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("cannot write CSV: {0}")]
    Csv(String),
}

/// One mapped measurement with its estimate.
struct Scored<'a> {
    case: &'a Case,
    estimated: f64,
    ape: f64,
}

/// The rows of a measurement file by id: split, engine as the source names it, source.
fn row_info(name: &str, text: &str) -> Result<BTreeMap<String, (String, String, String)>, TableError> {
    let table = Table::parse(name, text, calibrate::CALIBRATION_COLUMNS)?;
    Ok(table
        .rows()
        .map(|r| {
            let engine = r
                .text("method_notes")
                .split(|c: char| c.is_whitespace() || c == ';' || c == ',')
                .next()
                .unwrap_or("")
                .to_string();
            (r.text("id").to_string(), (r.text("split").to_string(), engine, r.text("source").to_string()))
        })
        .collect())
}

fn score<'a>(cases: &'a [Case], catalog: &Catalog) -> Vec<Scored<'a>> {
    cases
        .iter()
        .filter_map(|c| {
            calibrate::predict(c, catalog, None).map(|p| Scored {
                case: c,
                estimated: p,
                ape: calibrate::ape(p, c.measured),
            })
        })
        .filter(|s| s.ape.is_finite())
        .collect()
}

/// A value with four significant digits (enough to read, stable in the file).
fn sig4(x: f64) -> String {
    let decimals = (3 - x.abs().max(1e-9).log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.1}")
    } else {
        String::new()
    }
}

/// What a measurement was, in words that read the same in either
/// language: model, format, GPUs, engine, and the shape (`b` batch, `in`
/// and `out` tokens); the page names the kind in its own language.
fn case_label(c: &Case, engine: &str, catalog: &Catalog) -> String {
    let model = catalog.model(&c.model).map_or(c.model.as_str(), |m| m.name.as_str());
    let gpu = catalog.gpu(&c.gpu).map_or(c.gpu.as_str(), |g| g.name.as_str());
    let batch = c.batch.map_or("max".to_string(), |b| b.to_string());
    let shape = match c.kind {
        Kind::Decode | Kind::Memory => format!("b={batch}"),
        Kind::Prefill | Kind::Ttft => format!("in={}", c.input),
        Kind::Throughput => format!("in/out={}/{}, b={batch}", c.input, c.output),
    };
    format!("{model} {}, {}× {gpu}, {engine}, {shape}", c.format, c.tp)
}

/// The summary file's text for the two measurement files.
pub fn summary(catalog: &Catalog, fit: (&str, &str), holdout: (&str, &str)) -> Result<String, SummaryError> {
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let csv_err = |e: csv::Error| SummaryError::Csv(e.to_string());
    w.write_record(ACCURACY_COLUMNS).map_err(csv_err)?;
    let mut examples: Vec<[String; 13]> = Vec::new();
    // Both files hold both splits (assigned by source, `calibrate::split`):
    // the fit set is every `fit` row, the held-out set every `held_out` row.
    let joined = calibrate::join(&[fit.1.to_string(), holdout.1.to_string()]).map_err(SummaryError::Csv)?;
    let mut info = row_info(fit.0, fit.1)?;
    info.extend(row_info(holdout.0, holdout.1)?);
    let (all_cases, _) = calibrate::parse_cases(&joined, catalog)?;
    let files = format!("{} + {}", fit.0, holdout.0);
    for set in [Set::Fit, Set::Holdout] {
        let name = files.as_str();
        let want = if set == Set::Fit { calibrate::Split::Fit } else { calibrate::Split::HeldOut };
        let cases: Vec<Case> = all_cases.iter().filter(|c| c.split == want).cloned().collect();
        // The fit set's figures are calibrate's own report (with its
        // leave-one-GPU-out refits); the held-out rows are only scored.
        let logo: BTreeMap<Kind, f64> = if set == Set::Fit {
            calibrate::run(&joined, catalog, false)?
                .stats
                .iter()
                .map(|s| (s.kind, s.logo_median_ape))
                .collect()
        } else {
            BTreeMap::new()
        };
        let scored = score(&cases, catalog);
        let mut by_kind: BTreeMap<Kind, Vec<&Scored>> = BTreeMap::new();
        for s in &scored {
            by_kind.entry(s.case.kind).or_default().push(s);
        }
        for (kind, rows) in &by_kind {
            let errs: Vec<f64> = rows.iter().map(|s| s.ape).collect();
            let median = calibrate::percentile(&errs, 0.5);
            let record = [
                "summary",
                set.as_str(),
                kind.as_str(),
                &rows.len().to_string(),
                &pct(median),
                &pct(calibrate::percentile(&errs, 0.9)),
                &logo.get(kind).map_or(String::new(), |v| pct(*v)),
                "",
                "",
                "",
                "",
                "",
                name,
            ];
            w.write_record(record).map_err(csv_err)?;
            // The representative row: error nearest the median, the first id on a tie.
            let Some(s) = rows.iter().min_by(|a, b| {
                (a.ape - median)
                    .abs()
                    .total_cmp(&(b.ape - median).abs())
                    .then_with(|| a.case.id.cmp(&b.case.id))
            }) else {
                continue;
            };
            let (_, engine, source) = info.get(&s.case.id).cloned().unwrap_or_default();
            let (measured, estimated, unit) = match kind {
                Kind::Memory => (s.case.measured / GIB, s.estimated / GIB, "GiB"),
                // Time to first token is a time, in seconds.
                Kind::Ttft => (s.case.measured, s.estimated, "s"),
                _ => (s.case.measured, s.estimated, "tok/s"),
            };
            examples.push([
                "example".into(),
                set.as_str().into(),
                kind.as_str().into(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                s.case.id.clone(),
                case_label(s.case, &engine, catalog),
                sig4(measured),
                sig4(estimated),
                unit.into(),
                source,
            ]);
        }
    }
    for e in &examples {
        w.write_record(e).map_err(csv_err)?;
    }
    let bytes = w.into_inner().map_err(|e| SummaryError::Csv(e.to_string()))?;
    String::from_utf8(bytes).map_err(|e| SummaryError::Csv(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::sig4;

    #[test]
    fn four_significant_digits() {
        assert_eq!(sig4(130.6123), "130.6");
        assert_eq!(sig4(26221.4), "26221");
        assert_eq!(sig4(29.0345), "29.03");
        assert_eq!(sig4(0.51234), "0.5123");
    }
}
