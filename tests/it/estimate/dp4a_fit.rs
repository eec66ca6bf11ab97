//! The share of the INT8 (DP4A) peak llama.cpp's quantized matmul kernels
//! reach on the Tesla P40 (`Factors::dp4a_share`), fitted on the P40 rows of
//! llama.cpp PR #7314 (fit split), and the 64-token MMQ tiles that pad a
//! micro-batch (`estimate::dp4a::mmq_pad`).

use proptest::prelude::*;
use whichgpu::core::config::Engine;
use whichgpu::core::estimate::dp4a::{self, mmq_pad, MMQ_TILE_TOKENS};
use whichgpu::core::estimate::engine::{self, Factors, LLAMA_CPP_DP4A_SHARE};
use whichgpu::core::precision;
use whichgpu::tools::calibrate::{self, Kind, Split};

use crate::common;

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn serving_cases() -> Vec<calibrate::Case> {
    let text = calibrate::join(
        &["calibration.csv", "serving_measurements.csv", "regime7_measurements.csv"].map(read),
    )
    .expect("same header");
    calibrate::parse_cases(&text, common::catalog()).expect("parses").0
}

/// Fit-split prompt rows whose weight matmuls run the DP4A kernels.
fn dp4a_rows(cases: &[calibrate::Case]) -> Vec<&calibrate::Case> {
    let catalog = common::catalog();
    cases
        .iter()
        .filter(|c| matches!(c.kind, Kind::Prefill | Kind::Throughput))
        .filter(|c| {
            let (Some(g), Some(w)) = (catalog.gpu(&c.gpu), precision::weight_format(&c.format)) else {
                return false;
            };
            dp4a::mmq_rate(c.engine, &w, g, &engine::factors(c.engine, g)).is_some()
        })
        .collect()
}

#[test]
fn dp4a_share_is_the_fit_of_the_p40_fit_rows_and_no_held_out_row_is_among_them() {
    // `whichgpu calibrate … --fit` grid-searches `dp4a_share` (0.01 steps)
    // on the fit split's DP4A prompt rows, minimising the median plus a
    // quarter of the p90 absolute log error; the constant must be that
    // optimum, and the held-out PR #4766 rows must not be among its rows.
    let catalog = common::catalog();
    let cases = serving_cases();
    let all = dp4a_rows(&cases);
    let rows: Vec<&calibrate::Case> = all.iter().copied().filter(|c| c.split == Split::Fit).collect();
    assert!(rows.len() >= 8, "{} DP4A fit rows", rows.len());
    assert!(rows.iter().all(|c| c.source.contains("pull/7314")), "a DP4A fit row from another source");
    assert!(
        all.iter().filter(|c| c.split == Split::HeldOut).all(|c| c.source.contains("pull/4766")),
        "held-out DP4A rows"
    );
    assert!(all.iter().any(|c| c.split == Split::HeldOut), "no held-out DP4A row is scored");
    let p40 = catalog.gpu("tesla-p40-24gb").expect("P40");
    let fitted = engine::factors(Engine::LlamaCpp, p40);
    assert_eq!(fitted.dp4a_share, LLAMA_CPP_DP4A_SHARE);
    let loss = |f: Factors| {
        let e: Vec<f64> = rows
            .iter()
            .map(|c| (calibrate::predict(c, catalog, Some(f)).expect("prediction") / c.measured).ln().abs())
            .collect();
        calibrate::percentile(&e, 0.5) + 0.25 * calibrate::percentile(&e, 0.9)
    };
    let at = loss(fitted);
    for d in [-0.01, 0.01] {
        let f = Factors { dp4a_share: fitted.dp4a_share + d, ..fitted };
        assert!(at < loss(f), "dp4a_share {} fits as well or better", f.dp4a_share);
    }
    // And what the fit itself finds on the llama.cpp GDDR group.
    let group: Vec<&calibrate::Case> = cases
        .iter()
        .filter(|c| c.split == Split::Fit && calibrate::group(c, catalog) == Some((Engine::LlamaCpp, false)))
        .collect();
    let refit = calibrate::fit_group(&group, catalog, fitted);
    assert!((refit.dp4a_share - LLAMA_CPP_DP4A_SHARE).abs() < 1e-9, "--fit finds {}", refit.dp4a_share);
    assert_eq!(
        (refit.compute, refit.quant_compute),
        (fitted.compute, fitted.quant_compute),
        "the DP4A rows moved the 16-bit shares"
    );
}

#[test]
fn a_micro_batch_within_one_tile_costs_the_tile() {
    // PR #7314's P40 rows: micro-batches of 16, 32 and 64 tokens each run
    // one 64-token MMQ tile, so the weight matmuls of a 4096-token prompt
    // cost 4×, 2× and 1× their useful work; 512-token micro-batches are
    // whole tiles; 8 tokens or fewer run the matrix-vector kernel.
    assert_eq!(mmq_pad(4096.0, 16.0), 4.0);
    assert_eq!(mmq_pad(4096.0, 32.0), 2.0);
    assert_eq!(mmq_pad(4096.0, 64.0), 1.0);
    assert_eq!(mmq_pad(512.0, 512.0), 1.0);
    assert_eq!(mmq_pad(4096.0, 8.0), 1.0);
    assert_eq!(mmq_pad(100.0, 512.0), 128.0 / 100.0);
}

proptest! {
    #[test]
    fn padding_never_shrinks_the_work_nor_adds_a_tile_per_micro_batch(n in 1u32..20_000, chunk in 1u32..2048) {
        let (n, chunk) = (f64::from(n), f64::from(chunk.min(n)));
        let pad = mmq_pad(n, chunk);
        prop_assert!(pad >= 1.0 - 1e-12, "pad {pad}");
        // At most one partly filled tile per micro-batch.
        let passes = (n / chunk).ceil();
        prop_assert!(pad * n <= n + passes * (MMQ_TILE_TOKENS - 1.0) + 1e-9, "pad {pad} n {n} chunk {chunk}");
    }
}
