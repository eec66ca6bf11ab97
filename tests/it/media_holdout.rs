//! The fit / held-out split of `tests/data/media_measurements.csv` and the
//! generation estimator's errors on the held-out rows.
//!
//! The split is by source and was made before any model change: a source's
//! rows are all `fit` or all `held_out`. `media.rs` fits the efficiency and
//! host constants on the fit rows only; this module checks the split and
//! scores the held-out rows, family by family (speed and memory apart), and
//! gates the diffusion families (image, video) at the targets of issue 20.

use std::collections::{BTreeMap, BTreeSet};

use whichgpu::tools::calibrate::split::source_key;

use crate::media::{evaluate, median, Case, MEASUREMENTS};

struct Row {
    id: String,
    split: String,
    family: String,
    source: String,
}

fn rows_and_cases() -> (Vec<Row>, Vec<Case>, Vec<(String, String)>) {
    let mut reader = csv::ReaderBuilder::new().from_reader(MEASUREMENTS.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let col: BTreeMap<String, usize> = headers.iter().enumerate().map(|(i, h)| (h.to_string(), i)).collect();
    let (mut rows, mut cases, mut unmapped) = (Vec::new(), Vec::new(), Vec::new());
    for rec in reader.records() {
        let rec = rec.expect("row");
        let get = |k: &str| col.get(k).and_then(|&i| rec.get(i)).unwrap_or("").trim().to_string();
        rows.push(Row { id: get("id"), split: get("split"), family: get("family"), source: source_key(&get("source")).to_string() });
        match evaluate(&rec, &col) {
            Ok(c) => cases.push(c),
            Err(why) => unmapped.push((get("id"), why)),
        }
    }
    (rows, cases, unmapped)
}

/// max(predicted/measured, measured/predicted).
fn ratio(c: &Case) -> f64 {
    let r = c.predicted / c.measured;
    if r >= 1.0 {
        r
    } else {
        1.0 / r
    }
}

fn p90(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let i = ((s.len() as f64) * 0.9).ceil() as usize;
    s.get(i.saturating_sub(1).min(s.len().saturating_sub(1))).copied().unwrap_or(f64::NAN)
}

#[test]
fn media_rows_are_split_by_source() {
    let (rows, _, _) = rows_and_cases();
    for r in &rows {
        assert!(r.split == "fit" || r.split == "held_out", "{}: split `{}`", r.id, r.split);
    }
    // A source on both sides would let the fit see held-out data.
    let mut sides: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in &rows {
        sides.entry(r.source.as_str()).or_default().insert(r.split.as_str());
    }
    let leaks: Vec<&&str> = sides.iter().filter(|(_, s)| s.len() > 1).map(|(k, _)| k).collect();
    assert!(leaks.is_empty(), "sources with rows on both sides: {leaks:?}");
    // At least 30 % of each family's sources are held out.
    let families: BTreeSet<&str> = rows.iter().map(|r| r.family.as_str()).collect();
    for fam in families {
        let mut by_source: BTreeMap<&str, &str> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.family == fam) {
            by_source.insert(r.source.as_str(), r.split.as_str());
        }
        let held = by_source.values().filter(|s| **s == "held_out").count();
        println!("{fam:<11} sources {:>3}, held out {held:>3}", by_source.len());
        assert!(held as f64 >= 0.3 * by_source.len() as f64, "{fam}: {held} of {} sources held out", by_source.len());
    }
}

#[test]
fn held_out_generation_rows() {
    let (rows, cases, unmapped) = rows_and_cases();
    // Every image, video and audio row is scored here or listed with its
    // reason; multimodal rows go through the serving estimator (`media.rs`).
    let generation = rows.iter().filter(|r| r.family != "multimodal").count();
    let scored = cases.len();
    println!("generation rows: {generation}, scored {scored}");
    for (id, why) in unmapped.iter().filter(|(id, _)| !id.starts_with("mm-")) {
        println!("  not scored {id}: {why}");
    }
    assert!(scored as f64 >= 0.8 * generation as f64, "{scored} of {generation} generation rows scored");

    println!("\nheld-out rows:");
    for c in cases.iter().filter(|c| c.split == "held_out") {
        println!("  {:<34} {:<14} {:<16} {:<17} {:>9.3} {:>9.3} {:>+7.1}%", c.id, c.model, c.gpu, c.metric, c.measured, c.predicted, c.error_pct);
    }
    println!("\n{:<7} {:<7} {:<6} {:>3} {:>8} {:>8} {:>7}", "family", "metric", "split", "n", "median%", "p90%", "worst×");
    let mut failures = Vec::new();
    let mut diffusion_held = 0;
    for fam in ["image", "video", "audio"] {
        for what in ["speed", "memory"] {
            for split in ["fit", "held_out"] {
                let sel: Vec<&Case> =
                    cases.iter().filter(|c| c.family == fam && c.split == split && (c.metric == "peak_memory_gib") == (what == "memory")).collect();
                if sel.is_empty() {
                    continue;
                }
                let mut errs: Vec<f64> = sel.iter().map(|c| c.error_pct.abs()).collect();
                let worst = sel.iter().map(|c| ratio(c)).fold(1.0, f64::max);
                let (n, med, p) = (sel.len(), median(&mut errs), p90(&errs));
                println!("{fam:<7} {what:<7} {split:<6} {n:>3} {med:>8.1} {p:>8.1} {worst:>7.2}");
                if split == "held_out" && fam != "audio" {
                    diffusion_held += n;
                    if med > 25.0 {
                        failures.push(format!("{fam} {what}: held-out median {med:.1} % > 25 %"));
                    }
                    if worst > 2.0 {
                        failures.push(format!("{fam} {what}: a held-out row is off by {worst:.2}×"));
                    }
                }
            }
        }
    }
    assert!(diffusion_held >= 5, "only {diffusion_held} held-out diffusion rows");
    assert!(failures.is_empty(), "{failures:?}");
}
