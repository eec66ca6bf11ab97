//! The fit / held-out split of `tests/data/media_measurements.csv` and the
//! generation estimator's errors on the held-out rows.
//!
//! The split is by source and was made before any model change: a source's
//! rows are all `fit` or all `held_out`. `tools::media_fit::fit` (run by
//! `whichgpu calibrate … --fit` and by `media.rs`) fits the constants on the
//! fit rows only; this module checks the split and scores the held-out rows,
//! family by family (speed and memory apart), and gates them at the targets
//! of issue 20.

use std::collections::{BTreeMap, BTreeSet};

use whichgpu::tools::media_fit::{self, Case};

use crate::estimate::media::{evaluate, MEASUREMENTS};

fn cases() -> (Vec<Case>, Vec<(String, String)>) {
    let mut reader = csv::ReaderBuilder::new().from_reader(MEASUREMENTS.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let col: BTreeMap<String, usize> = headers.iter().enumerate().map(|(i, h)| (h.to_string(), i)).collect();
    let (mut cases, mut unmapped) = (Vec::new(), Vec::new());
    for rec in reader.records() {
        let rec = rec.expect("row");
        match evaluate(&rec, &col) {
            Ok(c) => cases.push(c),
            Err(why) => {
                unmapped.push((col.get("id").and_then(|&i| rec.get(i)).unwrap_or("?").to_string(), why))
            }
        }
    }
    (cases, unmapped)
}

#[test]
fn media_rows_are_split_by_source() {
    let rows = media_fit::splits(MEASUREMENTS).expect("rows");
    for r in &rows {
        assert!(r.split == "fit" || r.split == "held_out", "{}: split `{}`", r.id, r.split);
    }
    // A held-out source among the fit rows would let the fit see held-out data.
    let leaks = media_fit::leaks(&rows);
    assert!(leaks.is_empty(), "held-out sources in the fit part: {leaks:?}");
    // At least 30 % of each family's sources are held out.
    let families: BTreeSet<&str> = rows.iter().map(|r| r.family.as_str()).collect();
    for fam in families {
        let mut by_source: BTreeMap<&str, &str> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.family == fam) {
            by_source.insert(r.source.as_str(), r.split.as_str());
        }
        let held = by_source.values().filter(|s| **s == "held_out").count();
        println!("{fam:<11} sources {:>3}, held out {held:>3}", by_source.len());
        assert!(
            held as f64 >= 0.3 * by_source.len() as f64,
            "{fam}: {held} of {} sources held out",
            by_source.len()
        );
    }
}

#[test]
fn the_leak_check_finds_a_held_out_source_in_the_fit_part() {
    let mut rows = media_fit::splits(MEASUREMENTS).expect("rows");
    let held = rows.iter().position(|r| r.split == "held_out").expect("a held-out row");
    let source = rows[held].source.clone();
    let fit = rows.iter().position(|r| r.split == "fit").expect("a fit row");
    rows[fit].source = source.clone();
    let leaks = media_fit::leaks(&rows);
    assert!(leaks.iter().any(|(s, _, _)| *s == source), "{leaks:?}");
}

#[test]
fn held_out_generation_rows() {
    let (cases, unmapped) = cases();
    let rows = media_fit::splits(MEASUREMENTS).expect("rows");
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
        println!(
            "  {:<34} {:<14} {:<16} {:<17} {:>9.3} {:>9.3} {:>+7.1}%",
            c.id, c.model, c.gpu, c.metric, c.measured, c.predicted, c.error_pct
        );
    }
    println!(
        "\n{:<7} {:<7} {:<9} {:>3} {:>8} {:>8} {:>7}",
        "family", "metric", "split", "n", "median%", "p90%", "worst×"
    );
    // Issue 20's targets for each held-out group: at least 5 rows, a median
    // within 25 % (image and video), no row off by more than 2×. Where a
    // target is not met yet (docs/estimates.md, "Held-out report"), the group is gated
    // at what it reaches now so that it cannot get worse: audio's worst rows
    // (the Bark and XTTS anecdotes, 2.51×, MEDIA-NOTES.md).
    let guard = |family: &str, _memory: bool| -> (f64, f64) {
        match family {
            "audio" => (40.0, 2.6),
            _ => (25.0, 2.0),
        }
    };
    let mut failures = Vec::new();
    let mut unmet = Vec::new();
    for g in media_fit::groups(&cases) {
        let what = if g.memory { "memory" } else { "speed" };
        println!(
            "{:<7} {what:<7} {:<9} {:>3} {:>8.1} {:>8.1} {:>7.2}",
            g.family, g.split, g.n, g.median_pct, g.p90_pct, g.worst
        );
        if g.split != "held_out" {
            continue;
        }
        if g.n < 5 {
            failures.push(format!("{} {what}: {} held-out rows < 5", g.family, g.n));
        }
        let (median_gate, worst_gate) = guard(&g.family, g.memory);
        if g.median_pct > median_gate {
            failures.push(format!(
                "{} {what}: held-out median {:.1} % > {median_gate} %",
                g.family, g.median_pct
            ));
        }
        if g.worst > worst_gate {
            failures.push(format!(
                "{} {what}: a held-out row is off by {:.2}× > {worst_gate}×",
                g.family, g.worst
            ));
        }
        if (g.family != "audio" && g.median_pct > 25.0) || g.worst > 2.0 {
            unmet.push(format!("{} {what} (median {:.1} %, worst {:.2}×)", g.family, g.median_pct, g.worst));
        }
    }
    println!("\nissue 20 targets not met yet: {unmet:?}");
    assert!(failures.is_empty(), "{failures:?}");
}

#[test]
fn calibrate_fit_prints_the_constants_the_fit_rows_give() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/media_measurements.csv");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["calibrate", path, "--fit"])
        .output()
        .expect("run whichgpu");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (cases, _) = cases();
    let fitted = media_fit::fit(&cases);
    for k in &fitted.constants {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(k.name))
            .unwrap_or_else(|| panic!("no line for {}:\n{text}", k.name));
        assert!(line.contains(&k.shown(k.fitted)), "{line}");
    }
    // The code holds what the fit finds (media.rs fails otherwise too).
    assert!(!text.contains("<- differs"), "{text}");
    // Without --fit, the scores only.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["calibrate", path])
        .output()
        .expect("run whichgpu");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("held_out") && !text.contains("fitted on the fit rows"),
        "{text}"
    );
}

#[test]
fn calibrate_refuses_to_fit_when_a_held_out_source_is_in_the_fit_part() {
    // Give the first fit row the source of a held-out row.
    let rows = media_fit::splits(MEASUREMENTS).expect("rows");
    let held = rows.iter().find(|r| r.split == "held_out").expect("a held-out row");
    let mut reader = csv::ReaderBuilder::new().from_reader(MEASUREMENTS.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let source_col = headers.iter().position(|h| h == "source").expect("source column");
    let split_col = headers.iter().position(|h| h == "split").expect("split column");
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&headers).expect("write");
    let mut planted = false;
    for rec in reader.records() {
        let mut rec: Vec<String> = rec.expect("row").iter().map(String::from).collect();
        if !planted && rec[split_col] == "fit" {
            rec[source_col] = held.source.clone();
            planted = true;
        }
        out.write_record(&rec).expect("write");
    }
    let text = String::from_utf8(out.into_inner().expect("csv")).expect("utf-8");
    let catalog = crate::common::catalog();
    let err = media_fit::run_bundled(&text, catalog, true).expect_err("a leak must stop the fit");
    assert!(err.contains("both sides"), "{err}");
    // Without --fit the scores are still printed, with the leak named.
    let report = media_fit::run_bundled(&text, catalog, false).expect("report");
    assert!(report.contains("LEAK"), "{report}");
}
