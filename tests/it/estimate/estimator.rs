//! Hand-computed cases and properties of the serving estimator.

use proptest::prelude::*;
use whichgpu::core::config::{Config, Engine};
use whichgpu::core::estimate::arch;
use whichgpu::core::estimate::engine::IMAGE_PREP_S_PER_MP;
use whichgpu::core::estimate::serve::{Plan, ServeJob};
use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::link;
use whichgpu::core::precision;

use crate::common::{catalog, today};

const GIB: f64 = 1_073_741_824.0;

#[test]
fn llama3_8b_kv_cache_at_8k_is_one_gib() {
    // 32 layers × 2 (K,V) × 8 KV heads × 128 dims × 2 bytes × 8192 tokens = 2^30.
    let m = catalog().model("llama-3-8b").expect("model");
    assert_eq!(arch::kv_bytes_per_seq(m, 8192.0, 2.0, 1.0), GIB);
    // FP8 halves it; tensor parallelism over 2 GPUs halves it per GPU.
    assert_eq!(arch::kv_bytes_per_seq(m, 8192.0, 1.0, 1.0), GIB / 2.0);
    assert_eq!(arch::kv_bytes_per_seq(m, 8192.0, 2.0, arch::kv_split(m, 2)), GIB / 2.0);
    // Beyond 8 ranks the KV heads are replicated, not split further.
    assert_eq!(arch::kv_split(m, 16), 8.0);
}

#[test]
fn llama2_7b_is_multi_head_so_its_cache_is_4x_llama3() {
    // MHA: 32 KV heads → 4× the per-token cache of Llama-3-8B's 8 KV heads.
    let l2 = catalog().model("llama-2-7b").expect("model");
    assert_eq!(arch::kv_bytes_per_seq(l2, 4096.0, 2.0, 1.0), 2.0 * GIB);
}

#[test]
fn sliding_window_and_mla_caches() {
    let c = catalog();
    // Mistral 7B v0.1: every layer windowed at 4096 → the cache stops growing.
    let mistral = c.model("mistral-7b").expect("model");
    assert_eq!(
        arch::kv_bytes_per_seq(mistral, 32_768.0, 2.0, 1.0),
        arch::kv_bytes_per_seq(mistral, 4096.0, 2.0, 1.0)
    );
    // Gemma 2 9B: 21 global + 21 local (4096) layers of 8×256.
    let g = c.model("gemma-2-9b").expect("model");
    let per = 2.0 * 8.0 * 256.0 * 2.0;
    assert_eq!(arch::kv_bytes_per_seq(g, 8192.0, 2.0, 1.0), per * (21.0 * 8192.0 + 21.0 * 4096.0));
    // DeepSeek-V3: 61 layers × (512 + 64) latent × 2 bytes per token.
    let ds = c.model("deepseek-v3").expect("model");
    assert_eq!(arch::kv_bytes_per_seq(ds, 1000.0, 2.0, 1.0), 61.0 * 576.0 * 2.0 * 1000.0);
}

#[test]
fn weights_of_llama3_8b_by_format() {
    let m = catalog().model("llama-3-8b").expect("model");
    let bf16 = precision::weight_format("bf16").expect("bf16");
    assert!((arch::weight_bytes(m, &bf16, 16.0) - 8.03e9 * 2.0).abs() < 1e6);
    // GGUF Q4_K_M: 4.58 GiB for Llama-3-8B, as llama-quantize lists.
    let q4 = precision::weight_format("gguf-q4_k_m").expect("q4");
    assert!((arch::weight_bytes(m, &q4, q4.body_bits) / GIB - 4.58).abs() < 0.01);
    // AWQ keeps embeddings and the head at 16 bits.
    let awq = precision::weight_format("int4-awq").expect("awq");
    let embed = 2.0 * 128_256.0 * 4096.0;
    let expect = (8.03e9 - embed) * awq.body_bits / 8.0 + embed * 2.0;
    assert!((arch::weight_bytes(m, &awq, awq.body_bits) - expect).abs() < 1.0);
}

#[test]
fn fp8_runs_at_bf16_on_an_a100_and_at_fp8_on_an_h100() {
    let c = catalog();
    let m = c.model("llama-3.1-8b").expect("model");
    let cfg = Config::default();
    let fp8 = precision::weight_format("fp8").expect("fp8");
    let job = ServeJob::new(m, &cfg, fp8);
    assert_eq!(job.executed(c.gpu("a100-sxm-80gb").expect("gpu")), precision::Compute::Bf16);
    assert_eq!(job.executed(c.gpu("h100-sxm-80gb").expect("gpu")), precision::Compute::Fp8);
}

#[test]
fn decode_is_bandwidth_bound_so_hbm_beats_gddr_at_equal_memory() {
    let c = catalog();
    let a = evaluate_query("model=llama-3.1-8b&w=int4-awq&batch=1&gpu=a10g-24gb", c, today());
    let b = evaluate_query("model=llama-3.1-8b&w=int4-awq&batch=1&gpu=l4-24gb", c, today());
    let speed =
        |x: &whichgpu::core::answer::Answer| x.results[0].speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0);
    // A10G (600 GB/s) vs L4 (300 GB/s), both 24 GB GDDR6: about 2×.
    let ratio = speed(&a) / speed(&b);
    assert!(ratio > 1.6 && ratio < 2.2, "ratio {ratio}");
}

#[test]
fn batching_raises_total_throughput_until_compute_binds() {
    let c = catalog();
    let m = c.model("llama-3.1-8b").expect("model");
    let gpu = c.gpu("h100-sxm-80gb").expect("gpu");
    let job = ServeJob::new(m, &Config::default(), precision::weight_format("bf16").expect("bf16"));
    let plan = Plan::tp_pp(1, 1);
    let t1 = job.speed(gpu, plan, 1.0).decode_tokens_per_s_total;
    let t16 = job.speed(gpu, plan, 16.0).decode_tokens_per_s_total;
    let t64 = job.speed(gpu, plan, 64.0).decode_tokens_per_s_total;
    assert!(t16 > 8.0 * t1, "{t1} → {t16}");
    assert!(t64 > t16);
    // Per-sequence speed falls as the batch grows.
    assert!(
        job.speed(gpu, plan, 64.0).decode_tokens_per_s_per_seq
            < job.speed(gpu, plan, 1.0).decode_tokens_per_s_per_seq
    );
}

#[test]
fn seventy_b_at_16_bits_needs_more_than_one_80gb_gpu() {
    let a = evaluate_query(
        "model=llama-3.1-70b&w=bf16&batch=1&in=1000&out=100&gpu=h100-sxm-80gb",
        catalog(),
        today(),
    );
    assert_eq!(a.answers.min_gpus, Some(2));
    let fp8 = evaluate_query(
        "model=llama-3.1-70b&w=fp8&batch=1&in=1000&out=100&gpu=h100-sxm-80gb",
        catalog(),
        today(),
    );
    assert_eq!(fp8.answers.min_gpus, Some(1));
    assert_eq!(fp8.answers.best_weight_format.as_deref(), Some("fp8"));
}

#[test]
fn inverse_answers_agree_with_forward_memory() {
    let c = catalog();
    let a = evaluate_query("model=llama-3.1-8b&gpu=l4-24gb&gpus=1&engine=vllm&batch=4", c, today());
    let max_ctx = a.answers.max_context_tokens.expect("fits");
    let at = |ctx: u64| {
        let q = format!("model=llama-3.1-8b&gpu=l4-24gb&gpus=1&engine=vllm&batch=4&in={}&out=500", ctx - 500);
        evaluate_query(&q, c, today()).results[0].fits
    };
    assert!(at(max_ctx - 64));
    assert!(!at(max_ctx + 256));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn memory_grows_with_context_and_users(input in 1u32..200_000, users in 1u32..256, extra in 1u32..50_000) {
        let c = catalog();
        let q = |i: u32, b: u32| format!("model=qwen2.5-7b&gpu=h100-sxm-80gb&gpus=1&in={i}&out=100&batch={b}");
        let base = evaluate_query(&q(input, users), c, today()).memory.total_bytes;
        let longer = evaluate_query(&q(input + extra, users), c, today()).memory.total_bytes;
        let more = evaluate_query(&q(input, users + 1), c, today()).memory.total_bytes;
        prop_assert!(longer >= base);
        prop_assert!(more > base);
    }

    #[test]
    fn memory_grows_with_parameters(p in 0.5f64..500.0, d in 0.5f64..100.0) {
        let c = catalog();
        let a = evaluate_query(&format!("model=custom&params={p}&gpus=1"), c, today()).memory.total_bytes;
        let b = evaluate_query(&format!("model=custom&params={}&gpus=1", p + d), c, today()).memory.total_bytes;
        prop_assert!(b > a);
    }

    #[test]
    fn outputs_are_finite_and_non_negative(model in 0usize..52, fmt in 0usize..23, input in 1u32..300_000, batch in 1u32..2000, engine in 0usize..5) {
        let c = catalog();
        let m = &c.models[model % c.models.len()];
        let f = precision::weight_formats()[fmt].id;
        let e = ["vllm", "sglang", "trt-llm", "llama.cpp", "hf"][engine];
        let a = evaluate_query(&format!("model={}&w={f}&in={input}&batch={batch}&engine={e}", m.id), c, today());
        prop_assert!(a.memory.total_bytes.is_finite() && a.memory.total_bytes > 0.0);
        for r in &a.results {
            for v in [r.per_gpu_bytes, r.speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0), r.speeds.prefill_tokens_per_s().unwrap_or(0.0), r.speeds.request_latency_s().unwrap_or(0.0)] {
                prop_assert!(v.is_finite() && v >= 0.0, "{} {}: {v}", m.id, r.gpu);
            }
        }
        for o in &a.offers {
            prop_assert!(o.usd_per_month.is_finite() && o.usd_per_month >= 0.0);
        }
    }
}

#[test]
fn images_add_tokens_vision_flops_and_preparation_to_the_first_token() {
    let m = catalog().model("qwen2.5-vl-7b").expect("model");
    let (cfg, notices) = link::decode("model=qwen2.5-vl-7b&images=2&res=1280x720&in=100&out=100&batch=1");
    assert!(notices.is_empty(), "{notices:?}");
    let bf16 = precision::weight_format("bf16").expect("bf16");
    let job = ServeJob::new(m, &cfg, bf16);
    // One token per 28×28 px: ceil(1280/28) × ceil(720/28) = 46 × 26 per image.
    assert_eq!(job.image_tokens, 2.0 * 46.0 * 26.0);
    // The ViT sees 14 px patches, 4 per token, at 2 FLOPs per parameter each.
    let close = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-9;
    assert!(close(job.vision_flops, 2.0 * 0.68e9 * 4.0 * job.image_tokens));
    assert!(close(job.image_prep_s, 2.0 * 1280.0 * 720.0 / 1e6 * IMAGE_PREP_S_PER_MP));
    let gpu = catalog().gpu("h100-sxm-80gb").expect("gpu");
    let plan = Plan::tp_pp(1, 1);
    let rate = precision::tensor_flops(gpu, job.executed(gpu)) * job.factors(gpu).compute;
    // The request's own fixed cost of the context phase comes on top (`prefill_fixed.rs`).
    let request = job.prefill_fixed().request_s;
    let expect = job.image_prep_s
        + job.vision_flops / rate
        + job.prefill_s(gpu, plan, 100.0 + job.image_tokens, 1.0)
        + request;
    assert!(close(job.speed(gpu, plan, 1.0).time_to_first_token_s, expect));
    // Without images none of it is there.
    let (text_only, _) = link::decode("model=qwen2.5-vl-7b&in=100&out=100&batch=1");
    let plain = ServeJob::new(m, &text_only, bf16);
    assert_eq!((plain.image_tokens, plain.vision_flops, plain.image_prep_s), (0.0, 0.0, 0.0));
    assert!(close(
        plain.speed(gpu, plan, 1.0).time_to_first_token_s,
        plain.prefill_s(gpu, plan, 100.0, 1.0) + request
    ));
}

#[test]
fn transformers_splits_layers_so_a_second_gpu_adds_memory_not_speed() {
    assert_eq!(Plan::in_node(Engine::Hf, 2, 1), Plan::tp_pp(1, 2));
    assert_eq!(Plan::in_node(Engine::Vllm, 2, 1), Plan::tp_pp(2, 1));
    let m = catalog().model("llama-3.1-8b").expect("model");
    let (cfg, _) = link::decode("model=llama-3.1-8b&engine=hf&batch=1");
    let job = ServeJob::new(m, &cfg, precision::weight_format("bf16").expect("bf16"));
    let gpu = catalog().gpu("a100-sxm-80gb").expect("gpu");
    let one = job.speed(gpu, Plan::in_node(Engine::Hf, 1, 1), 1.0).decode_tokens_per_s_per_seq;
    let two = job.speed(gpu, Plan::in_node(Engine::Hf, 2, 1), 1.0).decode_tokens_per_s_per_seq;
    assert!((two / one - 1.0).abs() < 1e-9, "{one} vs {two}");
    assert!((job.memory(Plan::tp_pp(1, 2), 1.0).weights * 2.0 / job.weight_bytes() - 1.0).abs() < 1e-9);
}

#[test]
fn a_power_capped_t4_computes_at_its_measured_rate() {
    let t4 = catalog().gpu("t4-16gb").expect("t4");
    // 24 of 65 TFLOPS sustained, against the H100's 794.5 of 989 (0.80).
    let f = 24.0 / 65.0 / 0.80;
    assert!((t4.sustained_fraction() - f).abs() < 1e-12);
    let bf16 = precision::tensor_flops(t4, precision::Compute::Bf16);
    assert!((bf16 / (65e12 * f) - 1.0).abs() < 1e-12);
    for id in ["h100-sxm-80gb", "a100-sxm-80gb", "rtx-4090-24gb"] {
        assert_eq!(catalog().gpu(id).expect("gpu").sustained_fraction(), 1.0, "{id}");
    }
    // The L4 is power capped as well (72 W): 56.9 of its 121 TFLOPS in
    // long BF16 matmuls (static/gpus.csv, its source).
    let l4 = catalog().gpu("l4-24gb").expect("l4");
    assert!((l4.sustained_fraction() - 56.9 / 121.0 / 0.80).abs() < 1e-12);
    // The same applies to every card whose measured rate is a smaller share
    // of its datasheet peak than the H100's: MI300X 668.4 of 1300 TFLOPS.
    let mi300x = catalog().gpu("mi300x-192gb").expect("mi300x");
    assert!((mi300x.sustained_fraction() - 668.4 / 1300.0 / 0.80).abs() < 1e-12);
    for id in ["mi325x-256gb", "mi250x-64gb", "gaudi3-128gb"] {
        assert!(catalog().gpu(id).expect("gpu").sustained_fraction() < 1.0, "{id}");
    }
}
