//! The serving estimator against published measurements: every task=serve
//! row of the reference calibration file through the CLI's code path.
//! Prints the predicted-vs-measured table; fails on coverage or error limits.

use whichgpu::core::config::Engine;
use whichgpu::core::estimate::engine::{self, Factors};
use whichgpu::tools::calibrate::{self, Kind};

use crate::common;

fn reference(name: &str) -> Option<String> {
    // The shared reference folder sits beside the checkout; the project
    // keeps a copy of the calibration file so a clean clone can run alone.
    let local = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(local).ok()
}

#[test]
fn calibration_rows_are_covered_and_within_limits() {
    let catalog = common::catalog();
    let text = reference("calibration.csv").expect("tests/data/calibration.csv");
    let report = calibrate::run(&text, catalog, false).expect("calibration file parses");
    println!("{}", report.text);
    let coverage = report.rows_mapped as f64 / report.rows_total as f64;
    assert!(coverage >= 0.9, "only {:.0}% of task=serve rows mapped", coverage * 100.0);
    for s in &report.stats {
        let limit = match s.kind {
            Kind::Decode => 15.0,
            Kind::Prefill | Kind::Ttft => 25.0,
            Kind::Throughput => 25.0,
            Kind::Memory => 10.0,
        };
        assert!(s.median_ape <= limit, "{:?}: median error {:.1}% > {limit}%", s.kind, s.median_ape);
    }
    let rows: usize = report.stats.iter().map(|s| s.rows).sum();
    let inside: f64 = report.stats.iter().map(|s| s.in_range * s.rows as f64).sum();
    assert!(
        inside / rows as f64 >= 0.7,
        "ranges hold only {:.0}% of measurements",
        100.0 * inside / rows as f64
    );
}

#[test]
fn holdout_serving_measurements_report() {
    // Measurements not used for fitting (vLLM, SGLang, more TensorRT-LLM):
    // reported, and held to a looser bound on the decode median.
    let catalog = common::catalog();
    let text = reference("serving_measurements.csv").expect("tests/data/serving_measurements.csv");
    let report = calibrate::run(&text, catalog, false).expect("holdout file parses");
    println!("{}", report.text);
    let decode = report.stats.iter().find(|s| s.kind == Kind::Decode).expect("decode rows");
    assert!(decode.median_ape <= 25.0, "holdout decode median {:.1}%", decode.median_ape);
}

#[test]
fn moe_layer_cost_is_the_median_of_the_single_stream_moe_rows() {
    // What each batch-1 vLLM/SGLang decode row of an MoE model leaves after
    // the roofline without the per-layer cost, per routed-expert layer.
    let catalog = common::catalog();
    let text = reference("serving_measurements.csv").expect("tests/data/serving_measurements.csv");
    let (cases, _) = calibrate::parse_cases(&text, catalog).expect("parses");
    let mut implied = Vec::new();
    for c in &cases {
        let moe_layers = catalog.model(&c.model).map_or(0, |m| m.moe_layers());
        let sglang_or_vllm = matches!(c.engine, Engine::Vllm | Engine::Sglang);
        // MXFP4 experts run a fused kernel without the per-layer cost.
        // Fit rows only: a held-out row never sets a constant.
        if c.split != calibrate::Split::Fit
            || c.kind != Kind::Decode
            || c.batch != Some(1)
            || moe_layers == 0
            || !sglang_or_vllm
            || c.format == "mxfp4"
        {
            continue;
        }
        let gpu = catalog.gpu(&c.gpu).expect("gpu");
        let without = Factors { moe_layer_s: 0.0, ..engine::factors(c.engine, gpu) };
        let predicted = calibrate::predict(c, catalog, Some(without)).expect("prediction");
        let per_layer = (1.0 / c.measured - 1.0 / predicted) / f64::from(moe_layers);
        println!("{} {} on {}: {:.1} µs per MoE layer", c.id, c.model, c.gpu, per_layer * 1e6);
        implied.push(per_layer);
    }
    assert!(implied.len() >= 5, "{} rows", implied.len());
    implied.sort_by(f64::total_cmp);
    let n = implied.len();
    let median = if n % 2 == 1 { implied[n / 2] } else { (implied[n / 2 - 1] + implied[n / 2]) / 2.0 };
    println!(
        "median {:.1} µs over {} rows; in code {:.1} µs",
        median * 1e6,
        implied.len(),
        engine::MOE_LAYER_S * 1e6
    );
    assert!((median / engine::MOE_LAYER_S - 1.0).abs() <= 0.05);
}

#[test]
fn no_held_out_source_appears_among_the_fit_rows() {
    // The split is by source: one source on both sides would let the fit
    // see what the held-out score is meant to test.
    let mut rows = Vec::new();
    for name in ["calibration.csv", "serving_measurements.csv"] {
        let text = reference(name).expect("measurement file");
        rows.extend(calibrate::split::rows(&text).expect("parses"));
    }
    let leaks = calibrate::split::leaks(&rows);
    assert!(leaks.is_empty(), "held-out sources also among the fit rows: {leaks:?}");
    // At least 30 % of the sources are held out.
    let sources = |s: calibrate::Split| {
        rows.iter()
            .filter(|r| r.1 == s)
            .map(|r| r.2.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    };
    let (held, fit) = (sources(calibrate::Split::HeldOut), sources(calibrate::Split::Fit));
    assert!(held * 10 >= (held + fit) * 3, "{held} of {} sources held out", held + fit);
}

#[test]
fn held_out_serving_rows_per_regime() {
    // Both files together, as `whichgpu calibrate FILE FILE` reads them.
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let text = calibrate::join(&texts).expect("same header");
    // WHICHGPU_FIT=1 also prints the factors fitted on the fit rows (what
    // `whichgpu calibrate … --fit` prints), without building the CLI.
    let report = calibrate::run(&text, catalog, std::env::var("WHICHGPU_FIT").is_ok()).expect("parses");
    println!("{}", report.text);
    let scored = report.rows_mapped as f64 / report.rows_total as f64;
    assert!(scored >= 0.8, "only {:.0}% of task=serve rows scored", scored * 100.0);
    let group = |g: &str| report.held_out.iter().find(|h| h.group == g);
    let decode = group("kind: decode").expect("held-out decode rows");
    // Issue 20: median ≤ 10 % and p90 ≤ 25 %, none off by 2× (6.2 % and
    // 22.0 % with the llama.cpp MoE rows of PR #15631, s986–s987).
    // The eager `engine=hf` rows are scored apart (issue 36: within 2×).
    assert!(
        decode.median_ape <= 10.0 && decode.p90_ape <= 25.0 && decode.worst_ratio < 2.0,
        "held-out decode: {decode:?}"
    );
    let eager = group("kind: decode, eager (hf)").expect("held-out hf decode rows");
    assert!(eager.rows >= 3 && eager.worst_ratio < 2.0, "held-out hf decode: {eager:?}");
    let llama_hbm = group("regime: llama.cpp on HBM").expect("held-out llama.cpp rows on HBM cards");
    // Issue 20, regime 1: at least five held-out rows, the decode targets
    // (median ≤ 10 %, p90 ≤ 25 %), none off by 2× or more.
    assert!(
        llama_hbm.rows >= 5
            && llama_hbm.median_ape <= 10.0
            && llama_hbm.p90_ape <= 25.0
            && llama_hbm.worst_ratio < 2.0,
        "llama.cpp on HBM: {llama_hbm:?}"
    );
    // Prompt processing, issue 20: at least five held-out rows, median
    // ≤ 20 %, p90 ≤ 40 %, none off by 2×.
    let prefill = group("kind: prefill").expect("held-out prefill rows");
    assert!(
        prefill.rows >= 5
            && prefill.median_ape <= 20.0
            && prefill.p90_ape <= 40.0
            && prefill.worst_ratio < 2.0,
        "prefill: {prefill:?}"
    );
    // Issue 20, regime 2 and the throughput rows: median ≤ 20 %, p90 ≤ 40 %,
    // no held-out point off by 2× (prompts ≤ 256 tokens with at least five
    // rows, offline throughput).
    for g in ["regime: short prompt (≤256)", "kind: throughput"] {
        let h = group(g).unwrap_or_else(|| panic!("held-out rows of {g}"));
        assert!(
            h.rows >= 5 && h.median_ape <= 20.0 && h.p90_ape <= 40.0 && h.worst_ratio < 2.0,
            "{g}: {h:?}"
        );
    }
    // Time to first token, all held-out rows: the median and p90 targets
    // hold (16.8 %, 38.6 % over 24 rows); "none off by 2×" no longer does
    // since issue 36 added DeepSeek-R1 FP8 on 8×H200 under trtllm-serve
    // v0.21.0rc2 (TensorRT-LLM issue #5929: s1026 −73.5 %, s1027 −69.5 %,
    // 3.78× at worst; SERVING-NOTES.md). Guarded at today's worst so that it
    // cannot get worse.
    let ttft = group("kind: ttft").expect("held-out ttft rows");
    assert!(
        ttft.rows >= 5 && ttft.median_ape <= 20.0 && ttft.p90_ape <= 40.0 && ttft.worst_ratio <= 3.8,
        "ttft: {ttft:?}"
    );
}

#[test]
fn prefill_fixed_costs_are_the_fit_of_the_ttft_fit_rows() {
    // `whichgpu calibrate … --fit` grid-searches the context phase's fixed
    // costs on the split=fit TTFT rows; the constants in the code must be
    // that optimum: no neighbour on the grid (0.25 ms per request, 2.5 µs
    // per layer, 10 µs per expert layer) fits those rows better. The full
    // search is what the CLI prints; this checks the committed values.
    use whichgpu::core::estimate::prefill_fixed::{prefill_fixed, PrefillFixed};
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let text = calibrate::join(&texts).expect("same header");
    let (cases, _) = calibrate::parse_cases(&text, catalog).expect("parses");
    for engine in [Engine::TrtLlm, Engine::Sglang] {
        let rows: Vec<&calibrate::Case> = cases
            .iter()
            .filter(|c| c.split == calibrate::Split::Fit && c.kind == Kind::Ttft && c.engine == engine)
            .collect();
        assert!(rows.len() >= 5, "{} TTFT fit rows for {}", rows.len(), engine.as_str());
        let loss = |f: PrefillFixed| {
            let mut e: Vec<f64> = rows
                .iter()
                .map(|c| {
                    (calibrate::predict_with(c, catalog, None, Some(f)).expect("prediction") / c.measured)
                        .ln()
                        .abs()
                })
                .collect();
            e.sort_by(f64::total_cmp);
            calibrate::percentile(&e, 0.5) + 0.25 * calibrate::percentile(&e, 0.9)
        };
        let fitted = prefill_fixed(engine);
        let at = loss(fitted);
        for (dr, dl, dm) in [
            (0.25e-3, 0.0, 0.0),
            (-0.25e-3, 0.0, 0.0),
            (0.0, 2.5e-6, 0.0),
            (0.0, -2.5e-6, 0.0),
            (0.0, 0.0, 10e-6),
            (0.0, 0.0, -10e-6),
        ] {
            let n = PrefillFixed {
                request_s: fitted.request_s + dr,
                layer_s: fitted.layer_s + dl,
                moe_layer_s: fitted.moe_layer_s + dm,
            };
            if n.request_s < 0.0
                || n.layer_s < 0.0
                || n.moe_layer_s < 0.0
                || (dm != 0.0 && fitted.moe_layer_s == 0.0)
                || (dl != 0.0 && fitted.layer_s == 0.0)
            {
                continue;
            }
            assert!(
                at <= loss(n) + 1e-12,
                "{}: {n:?} fits the TTFT fit rows better than {fitted:?}",
                engine.as_str()
            );
        }
    }
}

#[test]
fn held_out_serving_memory_meets_issue_20() {
    // Issue 20: serving memory median ≤ 8 %, p90 ≤ 20 %, at least five
    // held-out rows, none off by 2× or more; regime 3 (HF at batch > 1)
    // with at least five rows of its own.
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let report =
        calibrate::run(&calibrate::join(&texts).expect("same header"), catalog, false).expect("parses");
    let group = |g: &str| {
        report
            .held_out
            .iter()
            .find(|h| h.group == g)
            .cloned()
            .unwrap_or_else(|| panic!("no held-out group {g}"))
    };
    let memory = group("kind: memory");
    assert!(
        memory.rows >= 5 && memory.median_ape <= 8.0 && memory.p90_ape <= 20.0 && memory.worst_ratio < 2.0,
        "{memory:?}"
    );
    let hf_batch = group("regime: hf memory, batch > 1");
    assert!(hf_batch.rows >= 5 && hf_batch.worst_ratio < 2.0, "{hf_batch:?}");
}

#[test]
fn a_tuple_kv_cache_holds_the_whole_cache_twice() {
    use whichgpu::core::config::{Batch, Config};
    use whichgpu::core::estimate::serve::{Plan, ServeJob};
    use whichgpu::core::precision;
    let catalog = common::catalog();
    let text = reference("serving_measurements.csv").expect("tests/data/serving_measurements.csv");
    let (cases, _) = calibrate::parse_cases(&text, catalog).expect("parses");
    let tuple: Vec<_> = cases.iter().filter(|c| c.tuple_kv_cache && c.kind == Kind::Memory).collect();
    assert!(tuple.len() >= 5, "{} rows", tuple.len());
    for c in tuple {
        let with = calibrate::predict(c, catalog, None).expect("prediction");
        let without =
            calibrate::predict(&calibrate::Case { tuple_kv_cache: false, ..c.clone() }, catalog, None)
                .expect("prediction");
        let model = catalog.model(&c.model).expect("model");
        let batch = f64::from(c.batch.unwrap_or(1));
        let cfg = Config {
            model: Some(c.model.clone()),
            engine: c.engine,
            input_tokens: c.input,
            output_tokens: c.output,
            batch: Some(Batch::N(c.batch.unwrap_or(1))),
            kv: c.kv.to_string(),
            ..Config::default()
        };
        let job = ServeJob::new(model, &cfg, precision::weight_format(&c.format).expect("format"));
        let plan = Plan::in_node(c.engine, c.tp, 1);
        let cache = batch * job.kv_per_seq_per_gpu(plan, job.context_tokens()) * f64::from(plan.gpus());
        assert!(
            ((with - without) / cache - 1.0).abs() < 1e-9,
            "{}: copy {} vs cache {}",
            c.id,
            with - without,
            cache
        );
    }
    // A link's configuration never sets it: current transformers replaces the cache in place.
    let model = catalog.model("qwen-7b").expect("model");
    let job = ServeJob::new(
        model,
        &Config { engine: whichgpu::core::config::Engine::Hf, ..Config::default() },
        precision::weight_format("bf16").expect("bf16"),
    );
    assert!(!job.tuple_kv_cache && job.tuple_cache_copy_bytes(Plan::in_node(job.engine, 1, 1), 8.0) == 0.0);
}

#[test]
fn hf_prefills_the_whole_batch_at_once_and_engines_a_token_budget() {
    use whichgpu::core::config::{Config, Engine};
    use whichgpu::core::estimate::serve::{Plan, ServeJob};
    use whichgpu::core::precision;
    let catalog = common::catalog();
    let model = catalog.model("llama-3.1-8b").expect("model");
    let bf16 = precision::weight_format("bf16").expect("bf16");
    for engine in [Engine::Hf, Engine::Vllm] {
        let cfg = Config { engine, input_tokens: 2000, output_tokens: 100, ..Config::default() };
        let job = ServeJob::new(model, &cfg, bf16);
        let plan = Plan::in_node(engine, 1, 1);
        let per_seq = job.activation_bytes(plan, 2.0) - job.activation_bytes(plan, 1.0);
        let logits = f64::from(model.vocab) * 4.0;
        match engine {
            // Each more sequence brings its logits and its prompt's
            // workspace, which grows with the prompt.
            Engine::Hf => {
                let longer = ServeJob::new(model, &Config { input_tokens: 4000, ..cfg.clone() }, bf16);
                let per_seq_longer = longer.activation_bytes(plan, 2.0) - longer.activation_bytes(plan, 1.0);
                assert!(
                    ((per_seq_longer - logits) / (per_seq - logits) - 2.0).abs() < 1e-9,
                    "{per_seq} {per_seq_longer}"
                );
            }
            // A serving engine's prefill chunk does not grow with the batch.
            _ => assert!((per_seq - logits).abs() < 1e-6, "{per_seq}"),
        }
        let four = job.activation_bytes(plan, 4.0) - job.activation_bytes(plan, 1.0);
        assert!((four / per_seq - 3.0).abs() < 1e-9);
    }
}

#[test]
fn llama_cpp_rows_are_placed_before_or_after_cuda_graphs() {
    use whichgpu::core::estimate::engine::Launch;
    use whichgpu::tools::calibrate::engine_build::launch_of;
    // What the notes say outright wins over any date; else the first date
    // against the merge of llama.cpp PR #6766 (2024-05-08).
    assert_eq!(
        launch_of("llama.cpp main (master of 2024-04-19, no CUDA graphs)", ""),
        Some(Launch::PerKernel)
    );
    assert_eq!(launch_of("llama.cpp main with the CUDA-graphs branch (2024-04-19)", ""), Some(Launch::Graph));
    assert_eq!(launch_of("llama.cpp main (Dec 2023 build)", ""), Some(Launch::PerKernel));
    assert_eq!(launch_of("llama.cpp llama-bench (build of 2024-01-10)", ""), Some(Launch::PerKernel));
    assert_eq!(
        launch_of("llama.cpp (server)", "https://example.org/x (posted 2026-06-07)"),
        Some(Launch::Fused)
    );
    assert_eq!(
        launch_of("llama.cpp llama-bench master of 2026-01-23 (CUDA graphs)", ""),
        Some(Launch::Fused)
    );
    assert_eq!(launch_of("llama.cpp llama-bench build 233d773d0 (6413, Sep 2025)", ""), Some(Launch::Fused));
    assert_eq!(launch_of("llama.cpp llama-bench, Aug 2025", ""), None);
    assert_eq!(launch_of("llama.cpp, master of 2024-05-08", ""), Some(Launch::Graph));
    assert_eq!(launch_of("llama.cpp, May 2024", ""), None);
    assert_eq!(launch_of("llama.cpp, Jun 2024", ""), Some(Launch::Graph));
    // Every llama.cpp row of both files is placed, and a graph build's step
    // is never slower than the same step launched kernel by kernel, nor a
    // build with fused kernels slower than one without.
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let (cases, unmapped) =
        calibrate::parse_cases(&calibrate::join(&texts).expect("same header"), catalog).expect("parses");
    assert!(unmapped.iter().all(|u| !u.reason.contains("CUDA graphs")), "{unmapped:?}");
    let llama: Vec<_> =
        cases.iter().filter(|c| c.engine == Engine::LlamaCpp && c.kind == Kind::Decode).collect();
    assert!(
        llama.iter().any(|c| c.launch == Launch::PerKernel)
            && llama.iter().any(|c| c.launch == Launch::Graph)
    );
    for c in llama {
        let graph =
            calibrate::predict(&calibrate::Case { launch: Launch::Graph, ..c.clone() }, catalog, None)
                .expect("prediction");
        let per_kernel =
            calibrate::predict(&calibrate::Case { launch: Launch::PerKernel, ..c.clone() }, catalog, None)
                .expect("prediction");
        let fused =
            calibrate::predict(&calibrate::Case { launch: Launch::Fused, ..c.clone() }, catalog, None)
                .expect("prediction");
        assert!(fused >= graph && graph >= per_kernel, "{}: {fused} < {graph} < {per_kernel}", c.id);
    }
    // A link's configuration is a current build.
    let model = catalog.model("llama-3-8b").expect("model");
    let cfg = whichgpu::core::config::Config { engine: Engine::LlamaCpp, ..Default::default() };
    let job = whichgpu::core::estimate::serve::ServeJob::new(
        model,
        &cfg,
        whichgpu::core::precision::weight_format("gguf-q4_k_m").expect("format"),
    );
    assert_eq!(job.launch, Launch::Fused);
}

#[test]
fn llama_cpp_layer_costs_are_the_fit_of_the_fit_rows() {
    // `whichgpu calibrate … --fit` grid-searches llama.cpp's per-layer costs
    // (5 µs steps) on the fit split's decode rows of each launch generation;
    // the constants in the code must be that optimum: no neighbour on the
    // grid fits those rows better.
    use whichgpu::core::estimate::engine::Launch;
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let (cases, _) =
        calibrate::parse_cases(&calibrate::join(&texts).expect("same header"), catalog).expect("parses");
    let mut checked = 0;
    for hbm in [false, true] {
        for launch in [Launch::PerKernel, Launch::Graph, Launch::Fused] {
            let rows: Vec<&calibrate::Case> = cases
                .iter()
                .filter(|c| {
                    c.split == calibrate::Split::Fit
                        && c.engine == Engine::LlamaCpp
                        && c.kind == Kind::Decode
                        && c.launch == launch
                })
                .filter(|c| calibrate::group(c, catalog) == Some((Engine::LlamaCpp, hbm)))
                // MoE rows fit only the MoE costs (`llama_cpp_moe_expert_cost_*`).
                .filter(|c| catalog.model(&c.model).is_some_and(|m| m.moe_layers() == 0))
                .collect();
            let Some(gpu) = rows.first().and_then(|c| catalog.gpu(&c.gpu)) else { continue };
            let fitted = engine::factors(Engine::LlamaCpp, gpu);
            let loss = |f: Factors| {
                let mut e: Vec<f64> = rows
                    .iter()
                    .map(|c| {
                        (calibrate::predict(c, catalog, Some(f)).expect("prediction") / c.measured).ln().abs()
                    })
                    .collect();
                e.sort_by(f64::total_cmp);
                calibrate::percentile(&e, 0.5) + 0.25 * calibrate::percentile(&e, 0.9)
            };
            let with = |d: f64| match launch {
                Launch::PerKernel => Factors { launch_layer_s: fitted.launch_layer_s + d, ..fitted },
                Launch::Graph => Factors { layer_overhead_s: fitted.layer_overhead_s + d, ..fitted },
                Launch::Fused => Factors { fused_layer_s: fitted.fused_layer_s + d, ..fitted },
            };
            let at = loss(fitted);
            for d in [-5e-6, 5e-6] {
                assert!(
                    at <= loss(with(d)) + 1e-12,
                    "hbm={hbm} {launch:?}: {d:e} s fits {} rows better",
                    rows.len()
                );
            }
            checked += 1;
        }
    }
    // GDDR has rows of all three generations, HBM of the first two.
    assert_eq!(checked, 5);
}

#[test]
fn vllm_and_sglang_rows_are_read_as_eager_or_compiled_graphs() {
    use whichgpu::core::estimate::engine::Launch;
    use whichgpu::tools::calibrate::engine_build::pytorch_launch_of;
    // torch.compile named in use wins; else a vLLM before 0.8 (the V0
    // engine) or a 2024 date captured the eager model; else a current build.
    assert_eq!(
        pytorch_launch_of(
            Engine::Sglang,
            "sglang bench_latency (Aug 2024 main), --enable-torch-compile, TP1",
            ""
        ),
        Launch::Fused
    );
    assert_eq!(
        pytorch_launch_of(Engine::Sglang, "sglang bench_latency (Aug 2024 main), CUDA graph, TP8", ""),
        Launch::Graph
    );
    assert_eq!(
        pytorch_launch_of(
            Engine::Sglang,
            "sglang bench_latency, CUDA graph, no torch.compile",
            "https://x (2024-09-12)"
        ),
        Launch::Graph
    );
    assert_eq!(pytorch_launch_of(Engine::Sglang, "sglang 0.5.6 (sgl-cookbook)", ""), Launch::Fused);
    assert_eq!(pytorch_launch_of(Engine::Vllm, "vllm v0.6.0 (--num-scheduler-steps 10)", ""), Launch::Graph);
    assert_eq!(pytorch_launch_of(Engine::Vllm, "vllm 0.10.0 on RHEL 9.6", ""), Launch::Fused);
    assert_eq!(
        pytorch_launch_of(Engine::Vllm, "vllm nightly CI (a V0-engine build of 2024-10-28)", ""),
        Launch::Graph
    );
    assert_eq!(pytorch_launch_of(Engine::Vllm, "vllm serve, run 2026-05-16", ""), Launch::Fused);
    // An eager graph is never faster than a compiled one, and a link's
    // configuration is a current (compiled) build.
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let (cases, _) =
        calibrate::parse_cases(&calibrate::join(&texts).expect("same header"), catalog).expect("parses");
    let rows: Vec<_> = cases
        .iter()
        .filter(|c| matches!(c.engine, Engine::Vllm | Engine::Sglang) && c.kind == Kind::Decode)
        .collect();
    assert!(rows.iter().any(|c| c.launch == Launch::Graph) && rows.iter().any(|c| c.launch == Launch::Fused));
    for c in rows {
        let eager =
            calibrate::predict(&calibrate::Case { launch: Launch::Graph, ..c.clone() }, catalog, None)
                .expect("prediction");
        let compiled =
            calibrate::predict(&calibrate::Case { launch: Launch::Fused, ..c.clone() }, catalog, None)
                .expect("prediction");
        assert!(compiled > eager, "{}: {compiled} <= {eager}", c.id);
    }
    let model = catalog.model("llama-3-8b").expect("model");
    for engine in [Engine::Vllm, Engine::Sglang] {
        let cfg = whichgpu::core::config::Config { engine, ..Default::default() };
        let job = whichgpu::core::estimate::serve::ServeJob::new(
            model,
            &cfg,
            whichgpu::core::precision::weight_format("bf16").expect("format"),
        );
        assert_eq!(job.launch, Launch::Fused);
    }
}

#[test]
fn eager_graph_layer_cost_is_the_fit_of_the_fit_rows() {
    // `whichgpu calibrate … --fit` grid-searches vLLM's and SGLang's
    // per-layer cost of an eager model's CUDA graph (1 µs steps) on the fit
    // split's decode rows of such builds, the bandwidth share held; the
    // constant in the code must be that optimum.
    use whichgpu::core::estimate::engine::{Launch, PYTORCH_UNFUSED_LAYER_S};
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let (cases, _) =
        calibrate::parse_cases(&calibrate::join(&texts).expect("same header"), catalog).expect("parses");
    let rows: Vec<&calibrate::Case> = cases
        .iter()
        .filter(|c| {
            c.split == calibrate::Split::Fit
                && matches!(c.engine, Engine::Vllm | Engine::Sglang)
                && c.kind == Kind::Decode
                && c.launch == Launch::Graph
        })
        .collect();
    assert!(rows.len() >= 2, "{} fit rows", rows.len());
    let loss = |l: f64| {
        let e: Vec<f64> = rows
            .iter()
            .map(|c| {
                let gpu = catalog.gpu(&c.gpu).expect("gpu");
                let f = Factors { layer_overhead_s: l, ..engine::factors(c.engine, gpu) };
                (calibrate::predict(c, catalog, Some(f)).expect("prediction") / c.measured).ln().abs()
            })
            .collect();
        calibrate::percentile(&e, 0.5) + 0.25 * calibrate::percentile(&e, 0.9)
    };
    let at = loss(PYTORCH_UNFUSED_LAYER_S);
    for d in [-1e-6, 1e-6] {
        assert!(at <= loss(PYTORCH_UNFUSED_LAYER_S + d) + 1e-12, "{d:e} s fits {} rows better", rows.len());
    }
}

/// llama.cpp's single-stream decode rows of MoE models of one split.
fn llama_cpp_moe_decode_rows(cases: &[calibrate::Case], split: calibrate::Split) -> Vec<&calibrate::Case> {
    let catalog = common::catalog();
    cases
        .iter()
        .filter(|c| {
            c.split == split && c.engine == Engine::LlamaCpp && c.kind == Kind::Decode && c.batch == Some(1)
        })
        .filter(|c| catalog.model(&c.model).is_some_and(|m| m.moe_layers() > 0))
        .collect()
}

#[test]
fn llama_cpp_moe_expert_cost_is_the_fit_of_the_fit_rows_and_helps_the_held_out_rows() {
    // `whichgpu calibrate … --fit` grid-searches llama.cpp's per-MoE-layer
    // cost (5 µs steps) and per-expert-matrix cost (0.05 µs steps) jointly
    // on the fit split's MoE decode rows, each source weighing the same; the
    // constants must be that optimum (no grid neighbour fits better), and the
    // held-out MoE rows must score better with them than without.
    let catalog = common::catalog();
    let texts = ["calibration.csv", "serving_measurements.csv"].map(|n| reference(n).expect("file")).to_vec();
    let (cases, _) =
        calibrate::parse_cases(&calibrate::join(&texts).expect("same header"), catalog).expect("parses");
    let fit = llama_cpp_moe_decode_rows(&cases, calibrate::Split::Fit);
    let held = llama_cpp_moe_decode_rows(&cases, calibrate::Split::HeldOut);
    assert!(fit.len() >= 8 && held.len() >= 8, "{} fit and {} held-out MoE rows", fit.len(), held.len());
    assert!(
        fit.iter().all(|c| catalog.gpu(&c.gpu).is_some_and(|g| !engine::is_hbm_class(g))),
        "an HBM fit row: the constant's doc says none"
    );
    // A held-out row's source never appears among the fit rows.
    assert!(held.iter().all(|h| fit.iter().all(|f| f.source != h.source)), "a source in both splits");
    let with = |c: &calibrate::Case, layer: f64, expert: f64| {
        let g = catalog.gpu(&c.gpu).expect("gpu");
        Factors { moe_layer_s: layer, moe_expert_s: expert, ..engine::factors(Engine::LlamaCpp, g) }
    };
    let log_errs = |rows: &[&calibrate::Case], layer: f64, expert: f64| -> Vec<f64> {
        rows.iter()
            .map(|c| {
                (calibrate::predict(c, catalog, Some(with(c, layer, expert))).expect("prediction")
                    / c.measured)
                    .ln()
                    .abs()
            })
            .collect()
    };
    let fit_loss = |layer: f64, expert: f64| {
        let e = log_errs(&fit, layer, expert);
        let pairs: Vec<(&str, f64)> = fit.iter().zip(e).map(|(c, e)| (c.source.as_str(), e)).collect();
        calibrate::source_balanced_loss(&pairs)
    };
    let gddr = catalog.gpu("rtx-3090-24gb").expect("gpu");
    let fitted = engine::factors(Engine::LlamaCpp, gddr);
    assert_eq!(fitted.moe_expert_s, engine::LLAMA_CPP_MOE_EXPERT_S);
    let at = fit_loss(fitted.moe_layer_s, fitted.moe_expert_s);
    for (dl, dx) in [(0.0, -5e-8), (0.0, 5e-8), (5e-6, 0.0), (5e-6, -5e-8)] {
        let (l, x) = (fitted.moe_layer_s + dl, fitted.moe_expert_s + dx);
        if l >= 0.0 && x >= 0.0 {
            assert!(at <= fit_loss(l, x) + 1e-12, "layer {l:e} s, expert {x:e} s fits the MoE rows better");
        }
    }
    let median = |mut e: Vec<f64>| {
        e.sort_by(f64::total_cmp);
        calibrate::percentile(&e, 0.5)
    };
    let worst = |e: Vec<f64>| e.into_iter().fold(0.0, f64::max);
    let (before, after) =
        (log_errs(&held, 0.0, 0.0), log_errs(&held, fitted.moe_layer_s, fitted.moe_expert_s));
    println!(
        "held-out MoE rows: median |log error| {:.3} without, {:.3} with the fitted cost",
        median(before.clone()),
        median(after.clone())
    );
    assert!(
        median(after.clone()) < median(before.clone()),
        "the fitted MoE cost no longer helps the held-out rows"
    );
    assert!(worst(after) < worst(before), "the fitted MoE cost worsens the worst held-out row");
    // HBM cards have no fit row and are not charged.
    let hbm = catalog.gpu("h100-sxm-80gb").expect("gpu");
    assert_eq!(engine::factors(Engine::LlamaCpp, hbm).moe_expert_s, 0.0);
}
