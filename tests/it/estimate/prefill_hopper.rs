//! Issue 36: the context phase on Hopper, held out by source at ~2k and
//! ≥ 32k prompt tokens (rows s1023–s1028 of `serving_measurements.csv`, with
//! the TensorRT-LLM v0.5 first-token rows s042, s334–s342 and SGLang's
//! DeepSeek-V3 prefill s030 already there). Figures in
//! `tests/data/SERVING-NOTES.md` ("Prefill on Hopper, held out") and
//! `docs/estimates.md`.

use whichgpu::tools::calibrate::{self, HeldOutStats, Kind, Split};

use crate::common;

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn report() -> calibrate::Report {
    let text =
        calibrate::join(&[read("calibration.csv"), read("serving_measurements.csv")]).expect("same header");
    calibrate::run(&text, common::catalog(), false).expect("parses")
}

fn group<'a>(r: &'a calibrate::Report, g: &str) -> &'a HeldOutStats {
    r.held_out.iter().find(|h| h.group == g).unwrap_or_else(|| panic!("no held-out group {g}"))
}

#[test]
fn the_new_hopper_rows_are_held_out_and_scored() {
    let catalog = common::catalog();
    let text =
        calibrate::join(&[read("calibration.csv"), read("serving_measurements.csv")]).expect("same header");
    let (cases, unmapped) = calibrate::parse_cases(&text, catalog).expect("parses");
    // NIM 70B TP2 (500/5,000 tokens), TRT-LLM blog 16's Qwen3-30B-A3B at
    // ~130k on one H200, TensorRT-LLM #5929's DeepSeek-R1 TP8 (1,600/8,192),
    // LMSYS's Qwen3-235B-A22B FP8 on 4×H20 at 128K.
    for id in ["s1023", "s1024", "s1025", "s1026", "s1027", "s1028"] {
        assert!(!unmapped.iter().any(|u| u.id == id), "{id} is not mapped");
        let c = cases.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("{id}"));
        assert!(c.split == Split::HeldOut && c.kind == Kind::Ttft, "{id}");
        let p = calibrate::predict(c, catalog, None).unwrap_or_else(|| panic!("{id}: no prediction"));
        assert!(p.is_finite() && p > 0.0, "{id}: {p}");
        assert!(calibrate::split::hopper_prompt_band(c, catalog).is_some(), "{id}: not a Hopper prompt row");
    }
    // Their sources appear on no fit row.
    let long: Vec<&calibrate::Case> = cases
        .iter()
        .filter(|c| c.input >= 32_768 && calibrate::split::hopper_prompt_band(c, catalog).is_some())
        .collect();
    assert!(long.len() >= 2);
    for c in long {
        assert!(
            cases.iter().all(|x| x.split == Split::HeldOut || x.source != c.source),
            "{}: source also fits",
            c.id
        );
    }
}

#[test]
fn held_out_prefill_on_hopper_meets_the_median_and_is_guarded_at_p90() {
    let r = report();
    // Issue 36: prefill median ≤ 20 %, p90 ≤ 40 % held out by source.
    // All 13 held-out prefill/first-token rows on Hopper: median 15.9 %
    // (met), p90 69.5 %, worst 3.78× (not met: TensorRT-LLM #5929's
    // DeepSeek-R1 on 8×H200 through trtllm-serve v0.21.0rc2, s1026 −73.5 %
    // and s1027 −69.5 %). Without those two rows, 11 rows: 13.1 %, 24.5 %, 1.34×.
    // The p90 and the worst row are guarded at today's figures.
    let all = group(&r, "regime: Hopper prompt");
    assert!(all.rows >= 13 && all.median_ape <= 20.0, "{all:?}");
    assert!(all.p90_ape <= 70.0 && all.worst_ratio <= 3.8, "worse than 69.5 % / 3.78×: {all:?}");
    // ≥ 32k tokens (Qwen3-30B-A3B at ~130k on an H200, −15.9 %; Qwen3-235B-A22B
    // at 128K on 4×H20, −6.8 %): both targets met.
    let long = group(&r, "regime: Hopper prompt ≥32k");
    assert!(long.rows >= 2 && long.median_ape <= 20.0 && long.p90_ape <= 40.0, "{long:?}");
    // 1k–8k tokens (7 rows): median 13.1 % (met), p90 69.5 % (guarded).
    let mid = group(&r, "regime: Hopper prompt 1k–8k");
    assert!(mid.rows >= 7 && mid.median_ape <= 20.0 && mid.p90_ape <= 70.0, "{mid:?}");
    // ≤ 512 tokens (4 rows): 24.5 % and 25.2 %, the v0.5 first tokens all
    // predicted fast; guarded.
    let short = group(&r, "regime: Hopper prompt ≤512");
    assert!(short.rows >= 4 && short.median_ape <= 25.0 && short.p90_ape <= 26.0, "{short:?}");
}

#[test]
fn held_out_gpu_bound_decode_is_no_worse() {
    // Issue 36: the GPU-bound decode figures must not get worse. Held-out
    // decode before and after the rows above: 29 rows, median 5.4 %, p90 19.4 %.
    let r = report();
    let d = group(&r, "kind: decode");
    assert!(d.rows >= 29 && d.median_ape <= 5.5 && d.p90_ape <= 19.5, "held-out decode: {d:?}");
}
