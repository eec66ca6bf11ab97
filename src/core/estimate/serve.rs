//! LLM serving: memory per GPU and decode/prefill speed for one plan
//! (a GPU type, a tensor-parallel group inside a node, pipeline stages across
//! nodes, a number of concurrent sequences).
//!
//! Speed is a sum of rooflines per decode step (Williams et al. 2009,
//! "Roofline"; applied to LLM decoding by Pope et al. 2022, "Efficiently
//! Scaling Transformer Inference"): the weight matmuls take the larger of
//! weight-streaming time and compute time; attention reads every sequence's
//! KV cache (memory bound); tensor parallelism adds two all-reduces per layer
//! (Shoeybi et al. 2019, Megatron-LM §3).

use super::super::catalog::{Gpu, GpuClass, Model};
use super::super::config::{Config, Engine};
use super::super::precision::{self, Compute, WeightFormat};
use super::engine::{self, Factors};
use super::engine_rules;
use super::prefill_fixed::{self, PrefillFixed};
pub use super::serve_plan::Plan;
use super::spec::Drafter;
use super::{allreduce, arch, attn_scores, dp4a, eager, layers};

/// Memory of a serving job per GPU, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ServeMemory {
    pub weights: f64,
    pub kv_cache: f64,
    pub activations: f64,
    pub overhead: f64,
}

impl ServeMemory {
    pub fn total(&self) -> f64 {
        self.weights + self.kv_cache + self.activations + self.overhead
    }
}

/// Speeds of one plan at one batch, likely values.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ServeSpeed {
    pub decode_tokens_per_s_per_seq: f64,
    pub decode_tokens_per_s_total: f64,
    pub prefill_tokens_per_s: f64,
    pub time_to_first_token_s: f64,
    pub request_latency_s: f64,
    /// Which roofline binds a decode step.
    pub decode_bound: Bound,
}

pub use super::bound::Bound;

/// Everything the serving estimator needs, resolved once per configuration.
#[derive(Debug, Clone)]
pub struct ServeJob<'a> {
    pub model: &'a Model,
    pub format: WeightFormat,
    pub engine: Engine,
    pub kv_elem_bytes: f64,
    pub input_tokens: f64,
    pub output_tokens: f64,
    /// Prompt tokens every request shares that the engine holds once and
    /// does not prefill again (whole blocks; 0 where it shares none, [`layers::shares_prefix`]).
    pub shared_prefix: f64,
    /// Extra context tokens per request from attached images.
    pub image_tokens: f64,
    /// Images attached to each request.
    pub images: f64,
    /// Vision-encoder FLOPs for one request's images.
    pub vision_flops: f64,
    /// Time one request's images spend on the request path before prefill
    /// (see [`engine::image_preprocess_s`]).
    pub image_prep_s: f64,
    /// Replaces the engine's fitted factors (used only when fitting them).
    pub factors_override: Option<Factors>,
    /// The measured engine kept the past as tuples (transformers before
    /// 4.36, and remote-code models written against them): see
    /// [`ServeJob::tuple_cache_copy_bytes`]. False for every configuration a
    /// link makes (current transformers); set only by the calibration when a
    /// measurement used such a version.
    pub tuple_kv_cache: bool,
    /// Replaces the engine's context-phase fixed costs (used only when fitting them).
    pub prefill_fixed_override: Option<PrefillFixed>,
    /// How the engine build launches a decode step's kernels: a current
    /// build for every configuration a link makes; the calibration sets a
    /// measurement's own (llama.cpp builds before 2024-05-08 launch kernel
    /// by kernel, those before 2025-08-28 replay unfused kernels, see
    /// [`engine::Launch`]).
    pub launch: engine::Launch,
    /// The build writes attention scores to memory (llama.cpp without
    /// FlashAttention, [`attn_scores`]); false for a link's current build.
    pub attn_scores_in_memory: bool,
    /// Routed experts run DeepGEMM grouped GEMMs, not the Triton fused-MoE
    /// runner the MoE launch costs were fitted on; false for a link.
    pub deepgemm_moe: bool,
    /// A measurement's llama.cpp micro-batch (`n_ubatch`); `None`: 512.
    pub ubatch: Option<u32>,
    /// The user's own measurement on one GPU type (`measured`, `measured_ttft`).
    pub rescale: Option<Rescale>,
    /// Speculative decoding's drafter (`spec`; `None`: off). Set by the
    /// planner, which holds the catalog a draft model comes from.
    pub spec: Option<std::sync::Arc<Drafter>>,
}

/// Your measurement on one GPU type, as factors on the estimate there:
/// decode speed × `decode`, prefill and first-token time × `ttft`
/// (`evaluate::measured` derives them from the pick's own estimate).
#[derive(Debug, Clone, PartialEq)]
pub struct Rescale {
    pub gpu: String,
    pub decode: f64,
    pub ttft: f64,
}

impl<'a> ServeJob<'a> {
    pub fn new(model: &'a Model, cfg: &Config, format: WeightFormat) -> ServeJob<'a> {
        let image_tokens = match &model.vision {
            Some(v) if v.cross_attention_layers.is_none() => {
                v.tokens_per_image(cfg.resolution()) * f64::from(cfg.images)
            }
            _ => 0.0,
        };
        ServeJob {
            model,
            format,
            engine: cfg.engine,
            kv_elem_bytes: precision::kv_bytes(&cfg.kv).unwrap_or(2.0),
            input_tokens: f64::from(cfg.input_tokens),
            output_tokens: f64::from(cfg.output_tokens),
            shared_prefix: if layers::shares_prefix(cfg.engine, model) {
                layers::cached_tokens(
                    f64::from(cfg.prefix.min(cfg.input_tokens)),
                    engine::kv_block_tokens(cfg.engine),
                )
            } else {
                0.0
            },
            image_tokens,
            images: f64::from(cfg.images),
            // A ViT forward pass costs ≈ 2 FLOPs per parameter per patch
            // (Kaplan et al. 2020, "Scaling Laws for Neural Language
            // Models", §2.1; patches as tokens: Dosovitskiy et al. 2021).
            vision_flops: model.vision.as_ref().map_or(0.0, |v| {
                2.0 * v.params * v.patches_per_image(cfg.resolution()) * f64::from(cfg.images)
            }),
            image_prep_s: match model.vision {
                Some(_) => f64::from(cfg.images) * engine::image_preprocess_s(cfg.resolution()),
                None => 0.0,
            },
            factors_override: None,
            tuple_kv_cache: false,
            prefill_fixed_override: None,
            launch: engine::Launch::Fused,
            attn_scores_in_memory: false,
            deepgemm_moe: false,
            ubatch: None,
            rescale: None,
            spec: None,
        }
    }

    /// (decode speed, first-token time) factors of the user's measurement on `gpu`; 1 elsewhere.
    fn rescaled(&self, gpu: &Gpu) -> (f64, f64) {
        self.rescale.as_ref().filter(|r| r.gpu == gpu.id).map_or((1.0, 1.0), |r| (r.decode, r.ttft))
    }

    pub fn factors(&self, gpu: &Gpu) -> Factors {
        self.factors_override.unwrap_or_else(|| engine::factors(self.engine, gpu))
    }

    /// The engine's fixed costs of the context phase ([`prefill_fixed`]).
    pub fn prefill_fixed(&self) -> PrefillFixed {
        self.prefill_fixed_override.unwrap_or_else(|| prefill_fixed::prefill_fixed(self.engine))
    }

    /// Bits per body weight under this engine: transformers' bitsandbytes
    /// NF4 defaults to no double quantization (`bnb_4bit_use_double_quant =
    /// False`: one fp32 absmax per 64 weights, 4.5 bits).
    pub(super) fn body_bits(&self) -> f64 {
        if self.engine == Engine::Hf && self.format.id == "nf4" {
            4.0 + 32.0 / 64.0
        } else {
            self.format.body_bits
        }
    }

    pub fn weight_bytes(&self) -> f64 {
        arch::weight_bytes(self.model, &self.format, self.body_bits())
    }

    pub fn context_tokens(&self) -> f64 {
        self.input_tokens + self.image_tokens + self.output_tokens
    }

    pub fn prompt_tokens(&self) -> f64 {
        self.input_tokens + self.image_tokens
    }

    /// Prompt tokens a request prefills: those after the shared prefix.
    pub fn new_prompt_tokens(&self) -> f64 {
        (self.prompt_tokens() - self.shared_prefix).max(1.0)
    }

    fn compute_rate(&self, gpu: &Gpu, f: &Factors) -> f64 {
        let exec = self.executed(gpu);
        let quant = if self.format.weight_only { f.quant_compute } else { 1.0 };
        // The table holds the 16-bit tensor rate with FP32 accumulation, the
        // one PyTorch engines use; GeForce cards run it at half the rate of
        // FP16 accumulation (NVIDIA Ada whitepaper: RTX 4090 165.2 vs 330.3
        // TFLOPS; Ampere GA102 whitepaper: RTX 3090 71 vs 142), workstation
        // and datacenter parts at the full rate. llama.cpp accumulates its
        // 16-bit GEMMs in FP16 (cuBLAS `CUBLAS_COMPUTE_16F`, llama.cpp PR
        // #3816) and runs quantized matmuls on INT8 MMA, so on GeForce its
        // ceiling is twice the table's figure.
        let full_rate =
            if self.engine == Engine::LlamaCpp && gpu.class == GpuClass::Consumer && exec == Compute::Bf16 {
                2.0
            } else {
                1.0
            };
        precision::tensor_flops(gpu, exec) * full_rate * f.compute * quant
    }

    /// Precision of the matmuls on this GPU under this engine.
    pub fn executed(&self, gpu: &Gpu) -> Compute {
        let want = match (self.engine, self.format.compute) {
            // Only TensorRT-LLM, vLLM and SGLang run INT8 W8A8 kernels;
            // elsewhere int8 is weight-only and computes in 16 bits.
            (Engine::LlamaCpp | Engine::Hf, Compute::Int8) if !self.format.gguf => Compute::Bf16,
            (_, c) => c,
        };
        precision::executed(want, gpu)
    }

    /// Weight bytes one GPU reads per decode step of `batch` sequences: the
    /// experts they route to (MoE), the rest of the body and the head.
    pub fn weight_bytes_per_step(&self, plan: Plan, batch: f64) -> f64 {
        let m = self.model;
        let body_read = arch::body_params_read(m, batch);
        let head_params = f64::from(m.vocab) * f64::from(m.hidden);
        if plan.dp <= 1 {
            return (body_read * self.body_bits() / 8.0 + head_params * self.format.embed_bits / 8.0)
                / f64::from(plan.tp);
        }
        // Data-parallel attention: every rank reads its whole attention share, the group the experts its
        // sequences touch.
        let (attention, experts, rest) = arch::body_read_parts(m, batch);
        let l = plan.layout();
        let bits = self.body_bits() / 8.0;
        attention * bits / f64::from(l.tp.max(1))
            + experts * bits / f64::from(l.gpus())
            + (rest * bits + head_params * self.format.embed_bits / 8.0)
                / f64::from(engine_rules::dense_ways(self.engine, l))
    }

    /// Time per generated token of each of `batch` sequences at mean
    /// context `ctx`: one decode step, or under speculative decoding a
    /// verify step `k + 1` tokens wide plus the drafter's `k` passes, over
    /// the tokens a step yields (`spec.rs`).
    pub fn decode_step_s(&self, gpu: &Gpu, plan: Plan, batch: f64, ctx: f64) -> (f64, Bound) {
        let Some(d) = self.spec.as_deref() else { return self.pass_s(gpu, plan, batch, 1.0, ctx) };
        let (verify, bound) = self.pass_s(gpu, plan, batch, d.k + 1.0, ctx);
        ((verify + self.draft_s(gpu, plan, batch, ctx)) / d.tokens_per_step(), bound)
    }

    /// One forward pass of `batch` sequences, `width` new tokens each, at
    /// mean context `ctx`: the weights are read once for all `batch × width`
    /// tokens (an MoE's experts by the tokens routed), the matmuls do their
    /// work, each sequence's cache is read once (its `width` queries attend
    /// together).
    pub fn pass_s(&self, gpu: &Gpu, plan: Plan, batch: f64, width: f64, ctx: f64) -> (f64, Bound) {
        let m = self.model;
        let f = self.factors(gpu);
        let bw = gpu.bandwidth_bytes_per_s() * f.bw;
        let tp = f64::from(plan.group());
        let tokens = batch * width;
        let body_read = arch::body_params_read(m, tokens);
        let bytes = self.weight_bytes_per_step(plan, tokens);
        let mut t_weights = dp4a::mmvq_weights_s(self.engine, &self.format, gpu, m, tp, tokens, bytes / bw);
        let issue = t_weights > bytes / bw;
        if self.format.weight_only {
            // Dequantization runs on the vector units (CDNA3/4: the unpacked FP32 rate).
            t_weights += body_read / tp * f.dequant_flops_per_weight / precision::fp32_vector_flops(gpu);
        }
        let flops = tokens * arch::linear_flops_per_token(m) / tp;
        let t_compute = dp4a::matmul_s(
            self.engine,
            &self.format,
            gpu,
            &f,
            (flops, 1.0),
            flops,
            self.compute_rate(gpu, &f),
        );
        // Each sequence reads its whole context, prefix too; a fixed state is also
        // written back. Under data-parallel attention a GPU holds `1 / dp` of them.
        let kv = batch
            * (self.kv_per_seq_per_gpu(plan.stage(), ctx)
                + layers::state_bytes_per_seq(m, plan.tp) / f64::from(plan.dp.max(1)));
        let t_kv = (kv + eager::cache_copy_bytes(self.engine, m, kv))
            / (gpu.bandwidth_bytes_per_s() * f.cache_share());
        let t_comm = self.allreduce_s(gpu, plan, tokens);
        let bound = if t_compute > t_weights {
            Bound::Compute
        } else if issue {
            Bound::Issue
        } else {
            Bound::Memory
        };
        // MXFP4 experts run FlashInfer's fused MoE kernel in vLLM/SGLang (SGLang PR #8898,
        // vLLM PR #23696), not the Triton runner's launches; llama.cpp runs its usual MoE kernels.
        let fused =
            (self.format.compute == Compute::Fp4 && self.engine != Engine::LlamaCpp) || self.deepgemm_moe;
        let t_moe = if fused {
            0.0
        } else {
            f64::from(m.moe_layers()) * f.moe_layer_s + arch::expert_matrices(m) * f.moe_expert_s
        };
        // Every layer's kernels run once per step; a CUDA graph replays them with less fixed cost than one
        // launch each.
        let t_layers = f64::from(m.layers) * f.decode_layer_s(self.launch);
        // An eager engine's host launches overlap this work (`eager.rs`).
        let (step, host) = eager::overlap(
            eager::host_s(&f, m.layers, 1.0),
            t_weights.max(t_compute) + t_kv + t_comm + t_moe + t_layers + f.step_overhead_s,
        );
        (step / self.rescaled(gpu).0, if host { Bound::Host } else { bound })
    }

    /// The collectives of one pass over `tokens` tokens (`allreduce::pass_s`).
    fn allreduce_s(&self, gpu: &Gpu, plan: Plan, tokens: f64) -> f64 {
        allreduce::pass_s(gpu, plan, self.model.layers, tokens * f64::from(self.model.hidden) * 2.0)
    }

    /// Time to prefill `n` prompt tokens for `batch` sequences together,
    /// after the shared prefix they attend to (the causal pairs of the
    /// prefix and the new tokens, less the prefix's own).
    pub fn prefill_s(&self, gpu: &Gpu, plan: Plan, n: f64, batch: f64) -> f64 {
        let m = self.model;
        let f = self.factors(gpu);
        let tp = f64::from(plan.tp);
        // Only the tokens after a shared prefix are prefilled; they attend to it.
        let past = self.shared_prefix;
        let attn = arch::attention_flops_prefill(m, past + n) - arch::attention_flops_prefill(m, past);
        let (flops, linear) = if plan.dp <= 1 {
            (
                batch * (n * arch::linear_flops_per_token(m) + attn) / tp,
                batch * n * arch::linear_flops_per_token(m) / tp,
            )
        } else {
            // Data-parallel attention: a prompt's attention runs on its own rank's `tp` GPUs (the busiest
            // rank's prompts
            // bound the pass), the rest of the layer over the group.
            let busiest = (batch / f64::from(plan.dp)).ceil().max(1.0);
            let attention = 2.0 * m.attention_params() * f64::from(m.layers);
            let linear = busiest * n * attention / tp
                + batch * n * (arch::linear_flops_per_token(m) - attention).max(0.0)
                    / f64::from(plan.group());
            (linear + busiest * attn / tp, linear)
        };
        // The fixed per-layer cost is paid once per prefill chunk (llama.cpp's
        // `n_ubatch`), kernel by kernel: CUDA graphs capture single-token
        // steps only. Pascal's MMQ tiles pad each chunk (`dp4a::mmq_pad`).
        let chunk = f64::from(
            self.ubatch
                .map_or_else(
                    || engine::prefill_chunk_tokens(self.engine, n.round() as u32),
                    |u| u.min(n.round() as u32),
                )
                .max(1),
        );
        let t_compute = dp4a::matmul_s(
            self.engine,
            &self.format,
            gpu,
            &f,
            (linear, dp4a::mmq_pad(n, chunk)),
            flops,
            self.compute_rate(gpu, &f),
        );
        // Pipeline stages run one after another, so only TP divides the read.
        let t_weights = self.weights_per_gpu(plan.stage()) / (gpu.bandwidth_bytes_per_s() * f.bw);
        let scores = if self.attn_scores_in_memory {
            batch * attn_scores::prompt_score_bytes(m, n, chunk, tp)
        } else {
            0.0
        };
        let t_scores = scores / (gpu.bandwidth_bytes_per_s() * f.bw);
        let passes = (n * batch / chunk).ceil();
        let t_layers = passes * f64::from(m.layers) * f.launch_layer_s;
        // The context phase's launches per layer and expert layer, outside any CUDA graph
        // (`prefill_fixed.rs`); MXFP4
        // experts run a fused kernel, as in decode. A batched engine packs several prompts into one pass of
        // up to its
        // token budget, so these are paid per pass, not per prompt.
        let moe_layers =
            if self.format.compute == Compute::Fp4 || self.deepgemm_moe { 0 } else { m.moe_layers() };
        let total = (n * batch).max(1.0);
        let packed = f64::from(
            engine::prefill_chunk_tokens(self.engine, total.min(f64::from(u32::MAX)).round() as u32).max(1),
        );
        let t_fixed = self.prefill_fixed().passes_s((total / packed).ceil(), m.layers, moe_layers);
        let gpu_s =
            t_compute.max(t_weights) + t_scores + t_layers + t_fixed + self.allreduce_s(gpu, plan, n * batch);
        eager::overlap(eager::host_s(&f, m.layers, passes), gpu_s).0 * self.rescaled(gpu).1
    }

    /// Time to take in the images of `batch` requests: each request's
    /// images are prepared one request after another, then the vision tower
    /// runs before the language model's prefill, sharded like it (vLLM and
    /// SGLang shard the Qwen2.5-VL and Mllama vision towers over the TP
    /// group). Quantized checkpoints keep the tower in 16 bits, so it runs
    /// at the 16-bit rate whatever the language model's format.
    pub fn vision_s(&self, gpu: &Gpu, plan: Plan, batch: f64) -> f64 {
        if self.vision_flops <= 0.0 {
            return 0.0;
        }
        let rate = precision::tensor_flops(gpu, Compute::Bf16) * self.factors(gpu).compute;
        batch * (self.image_prep_s + self.vision_flops / f64::from(plan.tp) / rate) * self.rescaled(gpu).1
    }

    pub fn speed(&self, gpu: &Gpu, plan: Plan, batch: f64) -> ServeSpeed {
        let ctx = arch::mean_context(self.prompt_tokens(), self.output_tokens);
        let (step, bound) = self.decode_step_s(gpu, plan, batch, ctx);
        let prompt = self.new_prompt_tokens();
        // One request's first token also waits for its admission, scheduling
        // and first sample (`prefill_fixed.rs`).
        let ttft = self.vision_s(gpu, plan, 1.0)
            + self.prefill_s(gpu, plan, prompt, 1.0)
            + self.prefill_fixed().request_s * self.rescaled(gpu).1;
        ServeSpeed {
            decode_tokens_per_s_per_seq: 1.0 / step,
            decode_tokens_per_s_total: batch / step,
            prefill_tokens_per_s: prompt / ttft,
            time_to_first_token_s: ttft,
            request_latency_s: ttft + self.output_tokens * step,
            decode_bound: bound,
        }
    }

    /// Offline throughput (output tokens/s) with `batch` sequences cycling
    /// through prefill and decode: B·out / (prefill of B prompts + out steps).
    pub fn offline_throughput(&self, gpu: &Gpu, plan: Plan, batch: f64) -> f64 {
        let ctx = arch::mean_context(self.prompt_tokens(), self.output_tokens);
        let prefill =
            self.vision_s(gpu, plan, batch) + self.prefill_s(gpu, plan, self.new_prompt_tokens(), batch);
        let (step, _) = self.decode_step_s(gpu, plan, batch, ctx);
        batch * self.output_tokens / (prefill + self.output_tokens * step)
    }
}
