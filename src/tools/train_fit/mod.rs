//! The training side of `whichgpu calibrate`: scores the training
//! measurements (`tests/data/training_measurements.csv`, notes in
//! TRAINING-NOTES.md) and, with `--fit`, fits the linear layers'
//! utilisation per GPU class ([`TrainClass::efficiency`]) on the rows whose
//! `split` is `fit`. The split is by source and made before any fitting;
//! [`leaks`] lists a source on both sides, and the tests fail on any.
//! Held-out rows are scored, never fitted.

pub mod rows;

pub use rows::{predict, TrainRow};

use crate::core::catalog::Catalog;
use crate::core::estimate::train::TrainClass;
use crate::tools::calibrate::ape;
use crate::tools::calibrate::split::Split;

/// The first columns of a training measurement file.
pub const HEADER_START: &str = "id,kind,model_id,method,";

/// Whether a file is a training measurement file (not a serving one).
pub fn is_training_file(text: &str) -> bool {
    text.trim_start().starts_with(HEADER_START)
}

/// Rows of a training file and, optionally, the calibration file's
/// fine-tuning memory rows; with the rows not scored and why.
pub fn load(
    training: &str,
    calibration: Option<&str>,
    catalog: &Catalog,
) -> (Vec<TrainRow>, Vec<(String, String)>) {
    let (mut rows, mut skipped) = (Vec::new(), Vec::new());
    if let Some(c) = calibration {
        rows::load_calibration(c, &mut rows, &mut skipped);
    }
    rows::load_training(training, catalog, &mut rows, &mut skipped);
    (rows, skipped)
}

/// Sources with rows on both sides of the split: (source, held-out id, fit id).
pub fn leaks(rows: &[TrainRow]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for h in rows.iter().filter(|r| r.split == Split::HeldOut) {
        if let Some(f) = rows.iter().find(|r| r.split == Split::Fit && r.source == h.source) {
            out.push((h.source.clone(), h.id.clone(), f.id.clone()));
        }
    }
    out
}

/// One fitted class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassFit {
    pub class: TrainClass,
    /// Fit rows (tokens/s) of the class.
    pub rows: usize,
    pub fitted: f64,
    /// The value in the code now.
    pub current: f64,
}

fn class_of(row: &TrainRow, catalog: &Catalog) -> Option<TrainClass> {
    catalog.gpu(&row.gpu).map(TrainClass::of)
}

/// Fits each class's utilisation on its fit rows' tokens/s: a grid over
/// 0.20–0.80 in steps of 0.01 minimising the median |log error| plus a
/// quarter of its 90th percentile (as the serving fit does). Classes
/// without a fit row are left out.
pub fn fit(rows: &[TrainRow], catalog: &Catalog) -> Vec<ClassFit> {
    let mut out = Vec::new();
    for class in TrainClass::ALL {
        let cases: Vec<&TrainRow> = rows
            .iter()
            .filter(|r| {
                r.split == Split::Fit && r.kind == "tokens_per_s" && class_of(r, catalog) == Some(class)
            })
            .collect();
        if cases.is_empty() {
            continue;
        }
        let err = |eff: f64| {
            let errs: Vec<f64> = cases
                .iter()
                .filter_map(|r| predict(r, catalog, Some(eff)).map(|p| (p / r.measured).ln().abs()))
                .collect();
            median(&errs) + 0.25 * p90(&errs)
        };
        let mut best = (f64::MAX, class.efficiency());
        for i in 20..=80 {
            let eff = f64::from(i) / 100.0;
            let e = err(eff);
            if e < best.0 {
                best = (e, eff);
            }
        }
        out.push(ClassFit { class, rows: cases.len(), fitted: best.1, current: class.efficiency() });
    }
    out
}

/// Errors of one split and kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub split: Split,
    pub kind: String,
    pub n: usize,
    pub median: f64,
    pub p90: f64,
    /// Largest of predicted/measured and measured/predicted.
    pub worst: f64,
}

/// Every row's prediction (rows without one move to `skipped`) and the
/// errors per split and kind.
pub fn score<'a>(
    rows: &'a [TrainRow],
    catalog: &Catalog,
    skipped: &mut Vec<(String, String)>,
) -> (Vec<(&'a TrainRow, f64)>, Vec<Stats>) {
    let mut scored = Vec::new();
    for r in rows {
        let Some(p) = predict(r, catalog, None) else {
            skipped.push((r.id.clone(), format!("kind `{}` has no estimate", r.kind)));
            continue;
        };
        scored.push((r, p));
    }
    let mut groups: std::collections::BTreeMap<(Split, String), Vec<(f64, f64)>> = Default::default();
    for (r, p) in &scored {
        groups
            .entry((r.split, r.kind.clone()))
            .or_default()
            .push((ape(*p, r.measured), (p / r.measured).max(r.measured / p)));
    }
    let stats = groups
        .into_iter()
        .map(|((split, kind), v)| {
            let errs: Vec<f64> = v.iter().map(|x| x.0).collect();
            Stats {
                split,
                kind,
                n: v.len(),
                median: median(&errs),
                p90: p90(&errs),
                worst: v.iter().map(|x| x.1).fold(1.0, f64::max),
            }
        })
        .collect();
    (scored, stats)
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    v
}

/// The upper median (the element at n/2 of the sorted values).
pub fn median(v: &[f64]) -> f64 {
    let v = sorted(v);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The 90th percentile as the nearest rank (⌈0.9·n⌉-th value).
pub fn p90(v: &[f64]) -> f64 {
    let v = sorted(v);
    let i = ((v.len() as f64) * 0.9).ceil() as usize;
    v.get(i.saturating_sub(1)).copied().unwrap_or(f64::NAN)
}

fn split_name(s: Split) -> &'static str {
    match s {
        Split::Fit => "fit",
        Split::HeldOut => "held_out",
    }
}

/// The report `whichgpu calibrate FILE [--fit]` prints for a training file.
pub fn run(training: &str, catalog: &Catalog, with_fit: bool) -> String {
    use std::fmt::Write;
    let (rows, mut skipped) = load(training, None, catalog);
    let mut out = String::new();
    for (source, held, fit) in leaks(&rows) {
        let _ = writeln!(out, "LEAK: source `{source}` is held out ({held}) and in the fit part ({fit})");
    }
    let (scored, stats) = score(&rows, catalog, &mut skipped);
    let _ = writeln!(
        out,
        "{:<6} {:<9} {:<13} {:<18} {:<16} {:>5} {:>12} {:>12} {:>7}",
        "id", "split", "kind", "model", "gpu", "gpus", "measured", "predicted", "err%"
    );
    for (r, p) in &scored {
        let scale = if r.kind == "memory" { crate::core::units::GIB } else { 1.0 };
        let _ = writeln!(
            out,
            "{:<6} {:<9} {:<13} {:<18} {:<16} {:>5} {:>12.2} {:>12.2} {:>+7.1}",
            r.id,
            split_name(r.split),
            r.kind,
            r.cfg.model_id(),
            r.gpu,
            r.gpus,
            r.measured / scale,
            p / scale,
            (p - r.measured) / r.measured * 100.0
        );
    }
    for (id, why) in &skipped {
        let _ = writeln!(out, "not scored {id}: {why}");
    }
    let _ = writeln!(
        out,
        "{:<9} {:<13} {:>4} {:>8} {:>8} {:>7}",
        "split", "kind", "n", "median%", "p90%", "worst×"
    );
    for s in &stats {
        let _ = writeln!(
            out,
            "{:<9} {:<13} {:>4} {:>8.1} {:>8.1} {:>7.2}",
            split_name(s.split),
            s.kind,
            s.n,
            s.median,
            s.p90,
            s.worst
        );
    }
    if with_fit {
        let _ = writeln!(
            out,
            "fitted linear-layer utilisation (fit rows' tokens/s only; \
            src/core/estimate/train_class.rs `TrainClass::efficiency`):"
        );
        for f in fit(&rows, catalog) {
            let flag = if (f.fitted - f.current).abs() > 0.005 { "  ← differs from the code" } else { "" };
            let _ = writeln!(
                out,
                "  {:<17} {:>2} rows  fitted {:.2}  in code {:.2}{flag}",
                f.class.as_str(),
                f.rows,
                f.fitted,
                f.current
            );
        }
    }
    out
}
