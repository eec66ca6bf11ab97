//! The training estimator against measured training memory and throughput:
//! every fine-tuning memory row of the reference calibration file, and the
//! project's own gathered rows (tests/data/training_measurements.csv, notes
//! in TRAINING-NOTES.md). Rows are split by source into `fit` and
//! `held_out` before any scoring; held-out rows are reported apart and
//! never used to tune. The rows are read, mapped to configurations and
//! scored by `whichgpu::tools::train_fit`, the code `whichgpu calibrate`
//! runs, so that the test and the fit see the same rows.

use whichgpu::core::estimate::train::TrainClass;
use whichgpu::tools::calibrate::split::Split;
use whichgpu::tools::train_fit::{self, Stats, TrainRow};

use crate::common;

fn texts() -> (String, String) {
    let training =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/training_measurements.csv"))
            .expect("training_measurements.csv");
    let calibration =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration.csv"))
            .expect("calibration.csv");
    (training, calibration)
}

fn stats<'a>(all: &'a [Stats], split: Split, kind: &str) -> &'a Stats {
    all.iter()
        .find(|s| s.split == split && s.kind == kind)
        .unwrap_or_else(|| panic!("no {split:?} {kind} rows"))
}

#[test]
fn training_estimates_match_measurements() {
    let catalog = common::catalog();
    let (training, calibration) = texts();
    let (rows, mut skipped) = train_fit::load(&training, Some(&calibration), catalog);
    let (scored, all) = train_fit::score(&rows, catalog, &mut skipped);
    // The report `whichgpu calibrate` prints, with the calibration file's rows.
    for (r, p) in &scored {
        let g = if r.kind == "memory" { 1_073_741_824.0 } else { 1.0 };
        println!(
            "{:<6} {:<8?} {:<13} {:<18} {:<16} {:>4} {:>12.2} {:>12.2} {:>+7.1}",
            r.id,
            r.split,
            r.kind,
            r.cfg.model_id(),
            r.gpu,
            r.gpus,
            r.measured / g,
            p / g,
            (p - r.measured) / r.measured * 100.0
        );
    }
    for (id, why) in &skipped {
        println!("not scored {id}: {why}");
    }
    for s in &all {
        println!(
            "{:<8?} {:<13} {:>4} {:>8.1} {:>8.1} {:>7.2}",
            s.split, s.kind, s.n, s.median, s.p90, s.worst
        );
    }
    let total = scored.len() + skipped.len();
    println!("scored {} of {total} rows ({:.0} %)", scored.len(), 100.0 * scored.len() as f64 / total as f64);
    // Issue 20: at least 80 % of the gathered rows scored, the rest listed with their reason.
    assert!(scored.len() as f64 >= 0.8 * total as f64, "too few rows scored: {} of {total}", scored.len());

    // Issue 20's goals on the held-out rows: median 15 % / p90 30 % for
    // memory, 20 % / 40 % for throughput, none off by 2×.
    let mem = stats(&all, Split::HeldOut, "memory");
    assert!(mem.n >= 5, "at least five held-out memory rows, got {}", mem.n);
    assert!(
        mem.median <= 15.0 && mem.p90 <= 30.0 && mem.worst <= 2.0,
        "held-out training memory: median {:.1} %, p90 {:.1} %, worst {:.2}×",
        mem.median,
        mem.p90,
        mem.worst
    );
    let fit_mem = stats(&all, Split::Fit, "memory");
    assert!(fit_mem.median <= 15.0, "fit training memory median {:.1} %", fit_mem.median);
    let tps = stats(&all, Split::HeldOut, "tokens_per_s");
    assert!(tps.n >= 5, "at least five held-out throughput rows, got {}", tps.n);
    assert!(
        tps.median <= 20.0 && tps.p90 <= 40.0 && tps.worst <= 2.0,
        "held-out training throughput: median {:.1} %, p90 {:.1} %, worst {:.2}×",
        tps.median,
        tps.p90,
        tps.worst
    );
    let fit_tps = stats(&all, Split::Fit, "tokens_per_s");
    assert!(
        fit_tps.median <= 20.0 && fit_tps.p90 <= 40.0,
        "fit training throughput: median {:.1} %, p90 {:.1} %",
        fit_tps.median,
        fit_tps.p90
    );
}

#[test]
fn a_source_is_either_fit_or_held_out_and_enough_are_held_out() {
    // Every gathered row, scored or not, by the same source key the fit uses.
    let (training, _) = texts();
    let mut rd = csv::Reader::from_reader(training.as_bytes());
    let h = rd.headers().expect("header").clone();
    let col = |name: &str| h.iter().position(|x| x == name).expect(name);
    let mut split: std::collections::BTreeMap<String, Split> = Default::default();
    for r in rd.records().flatten() {
        let source = whichgpu::tools::calibrate::split::source_key(&r[col("source")]).to_string();
        let s = Split::parse(&r[col("split")])
            .unwrap_or_else(|| panic!("{}: split `{}`", &r[col("id")], &r[col("split")]));
        let prior = *split.entry(source.clone()).or_insert(s);
        assert_eq!(prior, s, "source `{source}` has rows on both sides of the split ({})", &r[col("id")]);
    }
    let held = split.values().filter(|s| **s == Split::HeldOut).count();
    assert!(held as f64 >= 0.3 * split.len() as f64, "{held} of {} sources held out", split.len());
}

#[test]
fn the_fit_never_sees_a_held_out_source() {
    let catalog = common::catalog();
    let (training, calibration) = texts();
    let (rows, _) = train_fit::load(&training, Some(&calibration), catalog);
    assert!(
        train_fit::leaks(&rows).is_empty(),
        "held-out sources in the fit part: {:?}",
        train_fit::leaks(&rows)
    );
    // A held-out row moved into the fit part is caught.
    let mut leaked: Vec<TrainRow> = rows.clone();
    let held = leaked.iter().position(|r| r.split == Split::HeldOut).expect("a held-out row");
    let mut copy = leaked[held].clone();
    copy.split = Split::Fit;
    leaked.push(copy);
    assert!(!train_fit::leaks(&leaked).is_empty());
    // The fit reads fit rows only: changing every held-out measurement
    // leaves the fitted values as they are.
    let fitted = train_fit::fit(&rows, catalog);
    for r in leaked.iter_mut().filter(|r| r.split == Split::HeldOut) {
        r.measured *= 3.0;
    }
    leaked.pop();
    assert_eq!(train_fit::fit(&leaked, catalog), fitted);
}

#[test]
fn the_utilisation_in_the_code_is_what_calibrate_fit_finds() {
    // `whichgpu calibrate tests/data/training_measurements.csv --fit` on the
    // fit rows gives the constants `TrainClass::efficiency` holds.
    let catalog = common::catalog();
    let (training, _) = texts();
    let (rows, _) = train_fit::load(&training, None, catalog);
    let fits = train_fit::fit(&rows, catalog);
    println!("{fits:?}");
    for class in TrainClass::ALL.into_iter().filter(|c| c.fitted()) {
        let f = fits
            .iter()
            .find(|f| f.class == class)
            .unwrap_or_else(|| panic!("{} has no fit rows", class.as_str()));
        assert!(f.rows >= 3, "{}: {} fit rows", class.as_str(), f.rows);
        assert!(
            (f.fitted - class.efficiency()).abs() < 0.005,
            "{}: fitted {:.2}, code {:.2}: rerun calibrate --fit",
            class.as_str(),
            f.fitted,
            class.efficiency()
        );
    }
}
