//! Fixed costs of the context phase (prefill) that no roofline counts: what
//! a short prompt's first token waits for beyond streaming the weights or
//! computing the prompt. Two terms per engine, both fitted by `whichgpu
//! calibrate … --fit` on `split=fit` time-to-first-token rows only
//! (`src/tools/calibrate/prefill_fit.rs`):
//!
//! - a cost per request: taking the request in, scheduling it, sampling
//!   and returning its first token (for served engines also the HTTP
//!   front end, tokenizer and detokenizer processes);
//! - a cost per transformer layer and prefill forward pass: the context
//!   phase launches each layer's kernels (norms, GEMMs, attention, RoPE,
//!   activation) without the CUDA graph that decode steps replay.
//!   TensorRT-LLM's PyTorch backend captures its graphs in a
//!   `DecodingCUDAGraphRunner` (NVIDIA/TensorRT-LLM
//!   `tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py`), and SGLang's
//!   graph runner takes only the forward modes that `is_cuda_graph`
//!   admits, DECODE, TARGET_VERIFY and IDLE, never EXTEND (prefill)
//!   (sgl-project/sglang `python/sglang/srt/model_executor/forward_batch_info.py`).
//!   A routed-expert layer adds its router, top-k, token sort and
//!   grouped-GEMM launches per pass, as in decode
//!   ([`super::engine::MOE_LAYER_S`]).
//!
//! This module never reads the configuration or the catalog directly: it
//! maps an engine, a layer count and an expert-layer count to seconds.

use super::super::config::Engine;

/// Fixed costs of one engine's context phase, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PrefillFixed {
    /// Per request: admission, scheduling, first-token sampling and return.
    pub request_s: f64,
    /// Per transformer layer and prefill forward pass.
    pub layer_s: f64,
    /// Per routed-expert layer and prefill forward pass, beyond `layer_s`
    /// (BF16/FP8 experts on the Triton fused-MoE runner; MXFP4 experts run
    /// FlashInfer's fused kernel and are not charged, as in decode; nor are
    /// experts on DeepGEMM's grouped GEMMs behind DeepEP dispatch, the
    /// large-scale expert-parallel setup of lm-sys's 2025-05-05 blog
    /// "large-scale-ep": `ServeJob::deepgemm_moe`).
    pub moe_layer_s: f64,
}

/// TensorRT-LLM, per request, s. Fitted by `whichgpu calibrate
/// tests/data/calibration.csv tests/data/serving_measurements.csv --fit`
/// ("trt-llm request 0.00 ms, layer 92.5 µs, MoE layer 0 µs (40 fit
/// rows)") on the fit rows s601–s640: the v0.9.0 "Low Latency" tables of
/// NVIDIA/TensorRT-LLM `docs/source/performance/perf-overview.md` (GPT-J 6B,
/// Mistral 7B, Mixtral 8x7B, Llama 2 7B and 70B at 128 and 2,048 prompt
/// tokens on H200, H100, L40S and A100, TP 1–8, one request, one output
/// token, gptSessionBenchmark). Their 28-, 32- and 80-layer models put the
/// whole fixed cost on the layers: none is left per request.
pub const TRT_REQUEST_S: f64 = 0.0;
/// TensorRT-LLM, per layer and prefill pass, s: fitted jointly with
/// [`TRT_REQUEST_S`] (see there).
pub const TRT_LAYER_S: f64 = 92.5e-6;
/// SGLang, per request, s. Fitted by the same command ("sglang request
/// 33.00 ms, layer 0.0 µs, MoE layer 610 µs (7 fit rows)") on the fit rows
/// s346–s352: sgl-cookbook's `sglang.bench_serving --max-concurrency 1`
/// mean TTFT through the HTTP server on 8×B200 (Qwen3-235B-A22B BF16,
/// DeepSeek-R1 FP8, gpt-oss-120b MXFP4). gpt-oss-120b, whose MXFP4 experts
/// are not charged, carries the request cost alone (34 ms measured, 3 ms
/// of roofline).
pub const SGLANG_REQUEST_S: f64 = 33e-3;
/// SGLang, per routed-expert layer and prefill pass, s: fitted jointly
/// with [`SGLANG_REQUEST_S`] on the BF16/FP8 MoE rows (Qwen3-235B-A22B's
/// 94 and DeepSeek-R1's 58 expert layers; the DeepSeek rows stay 30–42 %
/// under, its MLA prefill adds kernels of its own).
pub const SGLANG_MOE_LAYER_S: f64 = 610e-6;

/// The context phase's fixed costs of an engine. vLLM serves through the
/// same kind of front end and Triton MoE runner as SGLang and has no TTFT
/// fit rows, so it takes SGLang's figures (an assumption docs/estimates.md
/// states). llama.cpp's per-layer cost is already in its factors
/// (`Factors::layer_overhead_s`, paid per `n_ubatch` chunk); HF
/// transformers' host cost per layer and forward pass is in its
/// `Factors::host_layer_s`, which the pass's GPU work overlaps (`eager.rs`).
pub fn prefill_fixed(engine: Engine) -> PrefillFixed {
    match engine {
        Engine::TrtLlm => PrefillFixed { request_s: TRT_REQUEST_S, layer_s: TRT_LAYER_S, moe_layer_s: 0.0 },
        Engine::Sglang | Engine::Vllm => {
            PrefillFixed { request_s: SGLANG_REQUEST_S, layer_s: 0.0, moe_layer_s: SGLANG_MOE_LAYER_S }
        }
        Engine::LlamaCpp | Engine::Hf => PrefillFixed::default(),
    }
}

impl PrefillFixed {
    /// Fixed time of `passes` prefill forward passes through `layers`
    /// layers, `moe_layers` of them with charged routed experts.
    pub fn passes_s(&self, passes: f64, layers: u32, moe_layers: u32) -> f64 {
        passes.max(0.0) * (f64::from(layers) * self.layer_s + f64::from(moe_layers) * self.moe_layer_s)
    }
}
