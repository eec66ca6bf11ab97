//! The page's accuracy figures (`static/accuracy.csv`) are the estimator's
//! own scoring of the measurement files: regenerated here and compared with
//! the committed file, so a change to the estimator or the data that moves
//! them fails until the file is rewritten.

use whichgpu::core::accuracy::{self, Set};
use whichgpu::core::bundled;
use whichgpu::tools::accuracy::{summary, FIT_FILE, HOLDOUT_FILE, REGENERATE, SUMMARY_FILE};
use whichgpu::tools::calibrate;

use crate::common;

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn committed_accuracy_summary_is_the_estimators_own_scoring() {
    let fresh = summary(common::catalog(), (FIT_FILE, &read(FIT_FILE)), (HOLDOUT_FILE, &read(HOLDOUT_FILE)))
        .expect("summary");
    let committed = read(SUMMARY_FILE);
    if fresh != committed {
        let first = fresh
            .lines()
            .zip(committed.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("\n  now:       {a}\n  committed: {b}"))
            .unwrap_or_default();
        panic!("{SUMMARY_FILE} is out of date with the estimator or the measurements;{first}\nregenerate it with:\n  {REGENERATE}");
    }
    // What the page compiles in is that file.
    assert_eq!(accuracy::ACCURACY_CSV, committed);
}

#[test]
fn accuracy_summary_covers_every_kind_of_both_sets_with_one_example_each() {
    let a = accuracy::bundled().expect("static/accuracy.csv parses");
    // Both files hold both splits: calibrate scores every row of the two
    // together, and the summary divides them into the fit and held-out sets.
    let joined = calibrate::join(&[read(FIT_FILE), read(HOLDOUT_FILE)]).expect("same headers");
    let report = calibrate::run(&joined, common::catalog(), false).expect("calibration parses");
    let rows_of = |set: Set, kind: &str| a.set(set).find(|s| s.kind == kind).map_or(0, |s| s.rows as usize);
    for r in &report.stats {
        assert_eq!(
            rows_of(Set::Fit, r.kind.as_str()) + rows_of(Set::Holdout, r.kind.as_str()),
            r.rows,
            "{}",
            r.kind.as_str()
        );
    }
    for s in a.set(Set::Fit) {
        assert!(s.leave_one_gpu_out_median_pct.is_some(), "{}", s.kind);
        assert!(s.p90_pct >= s.median_pct);
    }
    assert_eq!((a.rows(Set::Fit) + a.rows(Set::Holdout)) as usize, report.rows_mapped);
    assert!(a.rows(Set::Holdout) >= 20, "held-out rows: {}", a.rows(Set::Holdout));
    for set in [Set::Fit, Set::Holdout] {
        for s in a.set(set) {
            let ex: Vec<_> = a.examples.iter().filter(|e| e.set == set && e.kind == s.kind).collect();
            assert_eq!(ex.len(), 1, "{set:?} {}", s.kind);
            assert!(!ex[0].source.is_empty() && !ex[0].case.is_empty());
            // The example is representative: its error is within the kind's p90.
            assert!(ex[0].error_pct().abs() <= s.p90_pct + 0.1, "{} {}", ex[0].id, ex[0].error_pct());
        }
    }
}

#[test]
fn method_card_rows_compiled_by_build_rs_are_the_committed_files_rows() {
    let a = accuracy::bundled().expect("static/accuracy.csv parses");
    let kinds = a.kind_rows();
    assert_eq!(kinds.len(), a.set(Set::Fit).count());
    assert_eq!(bundled::ACCURACY_KINDS.len(), kinds.len());
    for (compiled, parsed) in bundled::ACCURACY_KINDS.iter().zip(&kinds) {
        assert_eq!(
            (compiled.kind, compiled.label, compiled.cells.map(String::from)),
            (parsed.kind.as_str(), parsed.label, parsed.cells.clone())
        );
    }
    let examples = a.example_rows();
    assert_eq!(examples.len(), a.examples.len());
    assert_eq!(bundled::ACCURACY_EXAMPLES.len(), examples.len());
    for (compiled, parsed) in bundled::ACCURACY_EXAMPLES.iter().zip(&examples) {
        assert_eq!(
            (
                compiled.id,
                compiled.label,
                compiled.set,
                compiled.case,
                compiled.source,
                compiled.cells.map(String::from)
            ),
            (
                parsed.id.as_str(),
                parsed.label,
                parsed.set,
                parsed.case.as_str(),
                parsed.source.as_str(),
                parsed.cells.clone()
            )
        );
    }
    // The cells are the page's formatting of the file's numbers.
    let decode = kinds.iter().find(|k| k.kind == "decode").expect("a decode row");
    let fit = a.set(Set::Fit).find(|s| s.kind == "decode").expect("fit decode");
    assert_eq!(decode.cells[0], fit.rows.to_string());
    assert_eq!(decode.cells[1], format!("{:.1} % ({:.1} %)", fit.median_pct, fit.p90_pct));
}
