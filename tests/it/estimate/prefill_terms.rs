//! The context phase's build- and kernel-dependent terms: llama.cpp's
//! attention scores through memory without FlashAttention, the build
//! placement that decides it, DeepGEMM experts without the Triton runner's
//! launches, and the llama.cpp compute shares refitted with them.

use proptest::prelude::*;
use whichgpu::core::config::{Config, Engine};
use whichgpu::core::estimate::attn_scores;
use whichgpu::core::estimate::engine::{self, Factors};
use whichgpu::core::estimate::serve::{Plan, ServeJob};
use whichgpu::core::precision;
use whichgpu::tools::calibrate::{self, engine_build::flash_attn_of, Kind};

use crate::common;

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn job<'a>(model: &'a str, engine: Engine, format: &str) -> ServeJob<'a> {
    let m = common::catalog().model(model).expect("model");
    let cfg = Config { engine, ..Config::default() };
    ServeJob::new(m, &cfg, precision::weight_format(format).expect("format"))
}

#[test]
fn llama_cpp_rows_are_placed_with_or_without_flash_attention() {
    // What the notes say wins; else the first date against the default's
    // arrival (PR #15434, by 2025-08-31); undated rows ran without it.
    assert!(flash_attn_of("llama.cpp llama-bench -fa 1, build of 2024-06-10", ""));
    assert!(flash_attn_of("llama.cpp llama-bench master of 2026-01-23, pp8096", ""));
    assert!(flash_attn_of("llama.cpp llama-bench, Sep 2025", ""));
    assert!(!flash_attn_of("llama.cpp llama-bench, Aug 2025", ""));
    assert!(!flash_attn_of(
        "llama.cpp llama-bench build 4426e298 (2824), after CUDA graphs (bc4bba3, 2024-05-08)",
        ""
    ));
    assert!(!flash_attn_of("llama.cpp main (Dec 2023 build)", ""));
    assert!(!flash_attn_of("llama.cpp (server)", ""));
    assert!(!flash_attn_of("llama.cpp llama-bench master of 2026-01-23, fa 0", ""));
    assert!(!flash_attn_of("llama.cpp server, flash attention off", "posted 2026-06-07"));
    // Both files: the May 2024 llama-bench rows write their scores out, the
    // 2026 row keeps them on chip, and no other engine is marked.
    let text =
        calibrate::join(&[read("calibration.csv"), read("serving_measurements.csv")]).expect("same header");
    let (cases, _) = calibrate::parse_cases(&text, common::catalog()).expect("parses");
    let by_id = |id: &str| cases.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("{id}"));
    assert!(by_id("v060").scores_in_memory && by_id("s932").scores_in_memory);
    assert!(!by_id("s327").scores_in_memory);
    assert!(cases.iter().filter(|c| c.engine != Engine::LlamaCpp).all(|c| !c.scores_in_memory));
    assert!(by_id("s030").deepgemm_moe && cases.iter().filter(|c| c.deepgemm_moe).count() == 1);
}

#[test]
fn a_link_pays_no_score_traffic_and_no_deepgemm_exemption() {
    let j = job("llama-3-8b", Engine::LlamaCpp, "gguf-q4_k_m");
    assert!(!j.attn_scores_in_memory && !j.deepgemm_moe);
}

#[test]
fn score_count_of_a_chunked_prompt() {
    // Llama 3 8B: 32 layers × 32 heads; 8,192 tokens in 512-token chunks
    // hold Σ 512·(512·i) over 16 chunks = 8192·8704/2 scores per head.
    let m = common::catalog().model("llama-3-8b").expect("model");
    let want = 32.0 * 32.0 * 8192.0 * 8704.0 / 2.0;
    assert!((attn_scores::prompt_scores(m, 8192.0, 512.0) / want - 1.0).abs() < 1e-12);
    // One chunk holding the whole prompt: n·(n + n)/2 = n² per head.
    assert!(
        (attn_scores::prompt_scores(m, 512.0, 512.0) / (32.0 * 32.0 * 512.0 * 512.0) - 1.0).abs() < 1e-12
    );
    assert!(
        (attn_scores::prompt_score_bytes(m, 512.0, 512.0, 2.0) / attn_scores::prompt_scores(m, 512.0, 512.0)
            - 10.0)
            .abs()
            < 1e-12
    );
}

proptest! {
    #[test]
    fn scores_in_memory_add_their_bytes_at_the_engines_bandwidth(n in 1u32..32_768, gpu_i in 0usize..4) {
        let catalog = common::catalog();
        let gpu = catalog.gpu(["rtx-4090-24gb", "rtx-3090-24gb", "a100-sxm-80gb", "h100-pcie-80gb"][gpu_i]).expect("gpu");
        let mut j = job("llama-3-8b", Engine::LlamaCpp, "gguf-q4_k_m");
        let plan = Plan::in_node(Engine::LlamaCpp, 1, 1);
        let n = f64::from(n);
        let without = j.prefill_s(gpu, plan, n, 1.0);
        j.attn_scores_in_memory = true;
        let with = j.prefill_s(gpu, plan, n, 1.0);
        let chunk = f64::from(engine::prefill_chunk_tokens(Engine::LlamaCpp, n as u32));
        let bytes = attn_scores::prompt_score_bytes(j.model, n, chunk, 1.0);
        let f = engine::factors(Engine::LlamaCpp, gpu);
        prop_assert!(((with - without) - bytes / (gpu.bandwidth_bytes_per_s() * f.bw)).abs() <= 1e-9 * with);
    }
}

#[test]
fn deepgemm_experts_skip_only_the_triton_launch_costs() {
    let catalog = common::catalog();
    let gpu = catalog.gpu("h100-sxm-80gb").expect("gpu");
    let plan = Plan::in_node(Engine::Sglang, 8, 1);
    for (model, moe) in [("deepseek-v3", true), ("llama-3.1-70b", false)] {
        let mut j = job(model, Engine::Sglang, "fp8");
        let triton = j.prefill_s(gpu, plan, 4096.0, 4.0);
        j.deepgemm_moe = true;
        let deepgemm = j.prefill_s(gpu, plan, 4096.0, 4.0);
        assert!(if moe { deepgemm < triton } else { deepgemm == triton }, "{model}: {deepgemm} vs {triton}");
    }
}

#[test]
fn llama_cpp_compute_shares_are_the_fit_of_the_fit_rows() {
    // `whichgpu calibrate … --fit` grid-searches llama.cpp's compute share
    // (0.01 steps) jointly with the quantized-matmul share (0.05 steps) on
    // the fit split's prompt rows of each GPU class; the constants in the
    // code must be that optimum: no neighbour on the grid fits better.
    let catalog = common::catalog();
    let text =
        calibrate::join(&[read("calibration.csv"), read("serving_measurements.csv")]).expect("same header");
    let (cases, _) = calibrate::parse_cases(&text, catalog).expect("parses");
    for hbm in [false, true] {
        let rows: Vec<&calibrate::Case> = cases
            .iter()
            .filter(|c| {
                c.split == calibrate::Split::Fit && matches!(c.kind, Kind::Prefill | Kind::Throughput)
            })
            .filter(|c| calibrate::group(c, catalog) == Some((Engine::LlamaCpp, hbm)))
            .collect();
        assert!(rows.len() >= 5, "hbm={hbm}: {} rows", rows.len());
        let gpu = catalog.gpu(&rows[0].gpu).expect("gpu");
        let fitted = engine::factors(Engine::LlamaCpp, gpu);
        let loss = |f: Factors| {
            let e: Vec<f64> = rows
                .iter()
                .map(|c| {
                    (calibrate::predict(c, catalog, Some(f)).expect("prediction") / c.measured).ln().abs()
                })
                .collect();
            calibrate::percentile(&e, 0.5) + 0.25 * calibrate::percentile(&e, 0.9)
        };
        let at = loss(fitted);
        for (dc, dq) in [(-0.01, 0.0), (0.01, 0.0), (0.0, -0.05), (0.0, 0.05)] {
            let f =
                Factors { compute: fitted.compute + dc, quant_compute: fitted.quant_compute + dq, ..fitted };
            assert!(
                at <= loss(f) + 1e-12,
                "hbm={hbm}: compute {} quant {} fits better",
                f.compute,
                f.quant_compute
            );
        }
    }
}
