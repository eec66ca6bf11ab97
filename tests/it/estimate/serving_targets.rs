//! Issue 20's done-list where no other test gates it: regime 3's own
//! median and p90 (HF `generate` memory at batch > 1, at the serving-memory
//! targets), the serving factors in the code against what `whichgpu
//! calibrate … --fit` finds, and regime 7 (the cards the catalog lacked).
//! The "Issue 20 done-list" table of docs/estimates.md names the test of each line.

use whichgpu::core::estimate::engine;
use whichgpu::tools::calibrate::{self, Split};

use crate::common;

fn serving_text() -> String {
    let texts: Vec<String> = ["calibration.csv", "serving_measurements.csv"]
        .iter()
        .map(|n| {
            std::fs::read_to_string(format!("{}/tests/data/{n}", env!("CARGO_MANIFEST_DIR")))
                .expect("measurement file")
        })
        .collect();
    calibrate::join(&texts).expect("same header")
}

#[test]
fn regime_3_hf_memory_at_batch_above_1_meets_the_serving_memory_targets() {
    // Issue 20: serving memory median ≤ 8 %, p90 ≤ 20 %, none off by 2×;
    // regime 3 (HF at batch > 1) with at least five held-out rows of its own.
    let report = calibrate::run(&serving_text(), common::catalog(), false).expect("parses");
    let hf = report
        .held_out
        .iter()
        .find(|h| h.group == "regime: hf memory, batch > 1")
        .expect("held-out regime 3 rows");
    println!("{hf:?}");
    assert!(hf.rows >= 5 && hf.median_ape <= 8.0 && hf.p90_ape <= 20.0 && hf.worst_ratio < 2.0, "{hf:?}");
}

#[test]
fn serving_factors_in_the_code_are_what_calibrate_fit_finds() {
    // `whichgpu calibrate … --fit` fits each (engine, HBM class) group's
    // bandwidth and compute shares on its fit rows, starting from the code's
    // factors (`calibrate::fit_group`); the code must hold what it finds,
    // to the two decimals the report prints.
    let catalog = common::catalog();
    let (cases, _) = calibrate::parse_cases(&serving_text(), catalog).expect("parses");
    let mut keys: Vec<_> = cases.iter().filter_map(|c| calibrate::group(c, catalog)).collect();
    keys.sort_by_key(|k| (k.0.as_str(), k.1));
    keys.dedup();
    let mut drift = Vec::new();
    let mut checked = 0;
    for key in keys {
        let train: Vec<&calibrate::Case> = cases
            .iter()
            .filter(|c| c.split == Split::Fit && calibrate::group(c, catalog) == Some(key))
            .collect();
        let Some(gpu) = train.first().and_then(|c| catalog.gpu(&c.gpu)) else { continue };
        let code = engine::factors(key.0, gpu);
        let fitted = calibrate::fit_group(&train, catalog, code);
        println!(
            "{:<10} hbm={:<5} rows {:>3}  bw {:.3} (code {:.3})  compute {:.3} (code {:.3})",
            key.0.as_str(),
            key.1,
            train.len(),
            fitted.bw,
            code.bw,
            fitted.compute,
            code.compute
        );
        for (name, f, c) in [("bw", fitted.bw, code.bw), ("compute", fitted.compute, code.compute)] {
            if (f - c).abs() > 0.005 + 1e-9 {
                drift.push(format!("{} hbm={} {name}: fit {f:.3}, code {c:.3}", key.0.as_str(), key.1));
            }
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked} groups");
    // vLLM and SGLang take TensorRT-LLM's bandwidth share by design
    // (`engine::factors`); their fit rows fit the per-layer cost of an
    // uncompiled graph (`calibrate::fit_group`), so nothing may drift.
    assert!(drift.is_empty(), "{drift:?}");
}

/// The cards issue 20 names in regime 7 (the catalog lacked them).
const REGIME_7_GPUS: [&str; 6] = [
    "rtx-3090-ti-24gb",
    "rtx-4070-ti-super-16gb",
    "rtx-5070-ti-16gb",
    "tesla-p40-24gb",
    "radeon-pro-w7900-48gb",
    "radeon-rx-7900-xtx-24gb",
];

#[test]
fn regime_7_cards_are_in_the_catalog_with_a_source_and_their_held_out_rows_are_counted() {
    let catalog = common::catalog();
    for id in REGIME_7_GPUS {
        let g = catalog.gpu(id).unwrap_or_else(|| panic!("{id} not in the catalog"));
        assert!(!g.source.trim().is_empty(), "{id}: no source");
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let read = |name: &str| std::fs::read_to_string(format!("{dir}/{name}")).expect("file");
    // Serving rows on those cards: the two serving files and the regime-7
    // file (same header; `whichgpu calibrate FILE FILE FILE` reads them
    // together). A source on both sides of the split fails here too.
    let serving = calibrate::join(
        &["calibration.csv", "serving_measurements.csv", "regime7_measurements.csv"].map(read),
    )
    .expect("same header");
    let leaks = calibrate::split::leaks(&calibrate::split::rows(&serving).expect("rows"));
    assert!(leaks.is_empty(), "held-out sources among the fit rows: {leaks:?}");
    let (cases, _) = calibrate::parse_cases(&serving, catalog).expect("parses");
    let mut ratios = Vec::new();
    for c in cases.iter().filter(|c| c.split == Split::HeldOut && REGIME_7_GPUS.contains(&c.gpu.as_str())) {
        let p = calibrate::predict(c, catalog, None).unwrap_or_else(|| panic!("{}: no prediction", c.id));
        println!(
            "  {:<8} {:<16} {:<8} {:<14} measured {:>8.2} predicted {:>8.2} ({:+.1} %)",
            c.id,
            c.gpu,
            c.kind.as_str(),
            c.format,
            c.measured,
            p,
            (p / c.measured - 1.0) * 100.0
        );
        ratios.push(p / c.measured);
    }
    // Media, training and multi-GPU rows on those cards.
    let mut others = Vec::new();
    for name in ["media_measurements.csv", "training_measurements.csv", "multigpu_measurements.csv"] {
        let text = read(name);
        let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let headers = reader.headers().expect("header").clone();
        let col = |k: &str| headers.iter().position(|h| h == k);
        let (Some(gpu), Some(split), Some(id)) = (col("gpu_id"), col("split"), col("id")) else {
            panic!("{name}: no gpu_id/split/id column")
        };
        for rec in reader.records() {
            let rec = rec.expect("row");
            if rec.get(gpu).is_some_and(|g| REGIME_7_GPUS.contains(&g))
                && matches!(rec.get(split), Some("held_out" | "holdout"))
            {
                others.push(format!("{name}:{}", rec.get(id).unwrap_or("?")));
            }
        }
    }
    let mut errs: Vec<f64> = ratios.iter().map(|r| (r - 1.0).abs() * 100.0).collect();
    errs.sort_by(f64::total_cmp);
    let worst = ratios.iter().map(|r| r.max(1.0 / r)).fold(1.0, f64::max);
    println!(
        "regime 7: {} held-out serving rows (median {:.1} %, p90 {:.1} %, worst {worst:.2}×), other rows {others:?}",
        ratios.len(),
        calibrate::percentile(&errs, 0.5),
        calibrate::percentile(&errs, 0.9)
    );
    // Issue 20: at least five held-out rows in the regime (met), none off by
    // 2× (met since Q2_K decode on the Tesla P40 pays the issue time of
    // llama.cpp's single-token kernel, `estimate::dp4a::mmvq_weights_s`:
    // 2.33× before, 1.40× after). The worst row is a prompt row: 1.53× too
    // fast with the borrowed 16-bit share, 1.66× too slow (−39.9 %) with the
    // DP4A share fitted on PR #7314's P40 rows (pp4096 in 16–64-token
    // micro-batches, `Factors::dp4a_share`): the pp512 rows' 512-token
    // micro-batches reach a larger share than those. Held at what it is.
    assert!(worst <= 1.67, "a regime-7 row is off by {worst:.2}×");
}

/// llama.cpp's quantized prompt matmuls run at the DP4A (INT8) rate only on
/// the catalog's Pascal card (`estimate::dp4a`); every other card's matmul
/// time is the 16-bit one, unchanged to the bit.
#[test]
fn only_the_pascal_card_with_an_int8_rate_takes_the_dp4a_rate() {
    use whichgpu::core::catalog::gpus::Arch;
    use whichgpu::core::config::Engine;
    use whichgpu::core::estimate::dp4a::{matmul_s, mmq_rate};
    use whichgpu::core::precision::{self, Compute};
    let catalog = common::catalog();
    let q4 = precision::weight_format("gguf-q4_0").unwrap();
    let f16 = precision::weight_format("gguf-f16").unwrap();
    let mut changed = Vec::new();
    for g in catalog.gpus_for(None) {
        let f = engine::factors(Engine::LlamaCpp, g);
        if mmq_rate(Engine::LlamaCpp, &q4, g, &f).is_some() {
            changed.push(g.id.clone());
        }
        assert!(mmq_rate(Engine::LlamaCpp, &f16, g, &f).is_none(), "{}: F16 is not quantized", g.id);
        assert!(mmq_rate(Engine::Vllm, &q4, g, &f).is_none(), "{}: vLLM runs no MMQ", g.id);
        if g.arch != Arch::Pascal {
            assert_eq!(
                matmul_s(Engine::LlamaCpp, &q4, g, &f, (7e12, 4.0), 7.5e12, 4e12),
                7.5e12 / 4e12,
                "{}",
                g.id
            );
            // W8A8 int8 still runs on the int8 tensor cores where they exist.
            assert_eq!(
                precision::executed(Compute::Int8, g) == Compute::Int8,
                g.int8_tops.is_some(),
                "{}",
                g.id
            );
        } else {
            assert_ne!(
                precision::executed(Compute::Int8, g),
                Compute::Int8,
                "{}: no int8 tensor cores",
                g.id
            );
        }
    }
    assert_eq!(changed, ["tesla-p40-24gb"]);
    let p40 = catalog.gpu("tesla-p40-24gb").unwrap();
    let f = engine::factors(Engine::LlamaCpp, p40);
    let r = mmq_rate(Engine::LlamaCpp, &q4, p40, &f).unwrap();
    // 47 INT8 TOPS (DP4A) times the share fitted on PR #7314's P40 rows.
    assert!((r - 47e12 * engine::LLAMA_CPP_DP4A_SHARE).abs() < 1e3, "{r}");
}
