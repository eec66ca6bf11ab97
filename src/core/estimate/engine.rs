//! Serving-engine profiles: how each engine lays out and reserves memory,
//! and its efficiency factors (fraction of the GPU's peak bandwidth and
//! dense compute that its kernels reach), fitted on
//! `shared/reference/calibration.csv` by `whichgpu calibrate --fit`.

use super::super::catalog::{Gpu, GpuClass};
use super::super::config::Engine;
use super::super::engines::{self, Reservation};
use super::super::thresholds::ALLOCATOR_RESERVE;

/// Fitted efficiency of an engine on a class of GPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Factors {
    /// Achieved / peak memory bandwidth while streaming weights and KV.
    pub bw: f64,
    /// Achieved / peak dense tensor rate in prefill and batched decode.
    pub compute: f64,
    /// Fixed time per decode step (kernel launches, sampling, scheduling), s.
    pub step_overhead_s: f64,
    /// CUDA-core FLOPs spent per weight to dequantize weight-only formats.
    pub dequant_flops_per_weight: f64,
    /// Compute efficiency of weight-only quantized matmuls relative to
    /// 16-bit ones (dequantizing kernels such as llama.cpp's MMQ or Marlin).
    pub quant_compute: f64,
    /// Fixed time per routed-expert layer per decode step, s: the router,
    /// top-k, sorting tokens by expert and the grouped-GEMM launches, each a
    /// kernel whose latency does not shrink with the work
    /// ([`MOE_LAYER_S`]).
    pub moe_layer_s: f64,
    /// Fixed time per routed-expert weight matrix of one token's step, s
    /// (gate, up and down of each active expert in each MoE layer,
    /// `arch::expert_matrices`): llama.cpp's matrix-vector kernel over the
    /// selected experts reads each expert's matrix as its own small slice
    /// ([`LLAMA_CPP_MOE_EXPERT_S`]). Charged once per step whatever the
    /// batch: the fit rows are single-token steps, and the fit source's
    /// microbatch 2–8 rows score +4…+15 % so and −3…−25 % when the count
    /// grows with the distinct experts the batch touches.
    pub moe_expert_s: f64,
    /// Fixed time per transformer layer per forward pass, s: an engine that
    /// launches each layer's kernels one by one (llama.cpp's ggml graph:
    /// norm, matmuls, RoPE, attention, FFN, about fifteen kernels a layer)
    /// pays each kernel's launch and its grid's fill and drain whatever the
    /// work; on a fast HBM card the tiny matrix-vector kernels of a
    /// single-token step finish in a few µs, so the fixed part is a large
    /// share of the step (llama.cpp issue #6763, NVIDIA's analysis of
    /// llama-2-7b Q4_K_M on an H100 PCIe: the per-kernel gaps between
    /// launches cost 14 % of a token, 143.35 → 163.83 tok/s once one CUDA
    /// graph launches them). Fitted per GPU class on decode rows of models
    /// with 32, 40 and 80 layers (`whichgpu calibrate --fit`). This is the
    /// cost of a current build, which replays each single-token step as one
    /// CUDA graph ([`Launch::Graph`]).
    pub layer_overhead_s: f64,
    /// Fixed time per transformer layer per forward pass when the kernels
    /// are launched one by one, s: every decode step of a llama.cpp build
    /// before CUDA graphs ([`Launch::PerKernel`]), and every multi-token pass
    /// (prompt processing) of any build, since graphs are captured for
    /// single-token steps only (llama.cpp PR #6766: "disable for ... batch
    /// size > 1"). Fitted per GPU class on the fit split's decode rows of
    /// such builds.
    pub launch_layer_s: f64,
    /// Fixed time per layer of a graph-replayed single-token step in builds
    /// with fused kernels ([`Launch::Fused`]), s.
    pub fused_layer_s: f64,
    /// Achieved / peak INT8 rate of llama.cpp's quantized matmul kernels
    /// (MMQ) on a card whose only int8 arithmetic is the `dp4a` instruction
    /// (Pascal GP102/GP104: the Tesla P40), over the tiles they compute
    /// (`dp4a::mmq_rate`); [`LLAMA_CPP_DP4A_SHARE`].
    pub dp4a_share: f64,
    /// Host time per transformer layer and forward pass of an engine that
    /// runs its model eagerly, s: Python, PyTorch's dispatcher and one
    /// kernel launch per op, which the GPU's work overlaps
    /// (`eager.rs`); zero for engines that replay CUDA graphs
    /// ([`HF_HOST_LAYER_S`]).
    pub host_layer_s: f64,
    /// Achieved / peak bandwidth of the KV cache's reads and copies in a
    /// decode step when it differs from `bw`'s weight stream (transformers'
    /// `torch.cat` and `repeat_kv` copies, [`HF_CACHE_BW`]); 0: the same as `bw`.
    pub cache_bw: f64,
}

/// The share of the INT8 (DP4A) peak llama.cpp's MMQ kernels reach on the
/// Tesla P40, fitted by `whichgpu calibrate tests/data/calibration.csv
/// tests/data/serving_measurements.csv tests/data/regime7_measurements.csv
/// --fit` on the fit split's P40 rows (llama.cpp PR #7314, May 2024: 7B
/// Q4_0 pp4096 at micro-batches of 16, 32 and 64 tokens, FlashAttention off
/// and on; `tests/data/regime7_measurements.csv`): "dp4a_share 0.16". The
/// same value in every profile: only llama.cpp on such a card reads it.
pub const LLAMA_CPP_DP4A_SHARE: f64 = 0.16;

/// How a llama.cpp build launches the kernels of a single-token decode
/// step. CUDA graphs arrived with commit bc4bba364fb96d908f2698e908648df5e6f55e02
/// (PR #6766 "Introduction of CUDA Graphs to LLama.cpp", merged 2024-05-08,
/// ggml-org/ci run of that commit), on by default in both the CMake and the
/// Makefile build. From late August 2025 a series of CUDA kernel fusions cut
/// the kernels per layer (PR #15631 "fuse adds, fuse add with rms norm",
/// JohannesGaessler 2025-08-28; PR #15715, rms_norm and its fused variants,
/// 2025-09-03; PR #16715 "General GEMV fusion", 2025-10-26). A link's
/// answer assumes a current build.
///
/// vLLM and SGLang replay each decode step as a CUDA graph in every build
/// the calibration reads; what differs is whether the graph holds the
/// model's eager PyTorch kernels or kernels fused by torch.compile
/// ([`PYTORCH_UNFUSED_LAYER_S`]): `Graph` for builds that captured the
/// eager model (vLLM's V0 engine, SGLang's 2024 builds without
/// `--enable-torch-compile`), `Fused` for compiled ones and for a link's
/// current build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Launch {
    /// One CUDA graph of fused kernels per token (llama.cpp builds from
    /// 2025-08-28 on; vLLM and SGLang compiled by torch.compile).
    #[default]
    Fused,
    /// One CUDA graph per token (llama.cpp builds from 2024-05-08 to
    /// 2025-08-27; vLLM and SGLang 2024 builds capturing the eager model).
    Graph,
    /// One launch per kernel (builds before 2024-05-08).
    PerKernel,
}

impl Factors {
    /// The share of peak bandwidth the KV cache's traffic reaches ([`Factors::cache_bw`]).
    pub fn cache_share(&self) -> f64 {
        if self.cache_bw > 0.0 {
            self.cache_bw
        } else {
            self.bw
        }
    }

    /// Fixed time per layer of one single-token decode step under `launch`.
    pub fn decode_layer_s(&self, launch: Launch) -> f64 {
        match launch {
            Launch::Fused => self.fused_layer_s,
            Launch::Graph => self.layer_overhead_s,
            Launch::PerKernel => self.launch_layer_s,
        }
    }
}

/// Per routed-expert layer and decode step in vLLM and SGLang's Triton
/// fused-MoE runner (the default for BF16/FP8 experts in tensor-parallel
/// runs, per SGLang PR #38374), fitted as the median of what the
/// single-stream MoE rows leave after the roofline: 44–46 µs per layer for
/// Qwen3-235B-A22B and 85–86 µs for DeepSeek-R1 (whose MLA adds kernels of
/// its own) on 8×B200 (sgl-cookbook), 6 rows. MXFP4 experts run a fused
/// FlashInfer kernel instead and are not charged (gpt-oss-120b's row leaves
/// 3 µs). `tests/calibration.rs` recomputes it.
pub const MOE_LAYER_S: f64 = 65.5e-6;

/// llama.cpp's fixed time per routed-expert weight matrix read in a decode
/// step on GDDR cards, s ([`Factors::moe_expert_s`]), as `whichgpu calibrate
/// tests/data/calibration.csv tests/data/serving_measurements.csv --fit`
/// fits it ("moe 0 µs moe_expert 0.85 µs", a joint grid with the per-MoE-layer
/// cost, each fit source weighing the same) on the fit split's single-stream
/// MoE decode rows: llama.cpp PR #16834 (am17an, 2025-10-29, RTX 4090,
/// gpt-oss-20b and Qwen3-30B-A3B tg128/256/512), PR #16991 (ORippler, Nov
/// 2025, RTX PRO 6000, gpt-oss-20b) and PR #21159 (gaugarg-nv, 2026-03-29,
/// RTX PRO 6000, Qwen3-30B-A3B, gpt-oss-20b and gpt-oss-120b at microbatch 1).
///
/// Why per expert matrix and not per layer: at one token `mul_mat_id` runs
/// the matrix-vector kernel with the selected experts as the grid's second
/// dimension, each expert's matrix its own slice of one-row CUDA blocks
/// (ggml-org/llama.cpp@000f4625abc4efd46ee160e4473ffe0da004082e
/// `ggml/src/ggml-cuda/mmvq.cu`: `channel_x = ... ids[channel_dst]`, one row
/// per block, 4 warps striding the row by `vdr·128/qi` quant blocks), so the
/// work that does not shrink with the bytes grows with the experts read:
/// Qwen3-30B-A3B reads 48 layers × 8 experts × 3 matrices of 2048×768 a
/// token (1,152 slices of 0.9 MB at Q4_0; its down-projection rows, 768
/// weights, fill 3/8 of a block's threads), gpt-oss-20b 24 × 4 × 3 = 288 of
/// 2880×2880 (4.4 MB). PR #21159's one card and build leaves 1.3 ms a token
/// for Qwen3-30B-A3B, 0.55 ms for gpt-oss-120b (36 × 4 × 3) and none for
/// gpt-oss-20b: 1.1–1.3 µs a matrix, not a constant per layer (27 and 15 µs).
/// HBM cards are not charged: no fit row measures one, and their per-layer
/// cost ([`LLAMA_CPP_LAYER_S_HBM`], 85 µs) already leaves the held-out
/// H100/H200 rows within 5 %. See `tests/data/SERVING-NOTES.md`.
pub const LLAMA_CPP_MOE_EXPERT_S: f64 = 0.85e-6;

/// llama.cpp's fixed cost per layer and single-token step on GDDR cards
/// with CUDA graphs, s ([`Factors::layer_overhead_s`]), fitted by
/// `whichgpu calibrate --fit` on the fit split's decode rows of builds
/// after 2024-05-08 (XiongjieDai's May 2024 llama-bench runs, builds
/// 2824–2843, GeForce and workstation cards; the CUDA-graphs rows of
/// llama.cpp PR #6766).
pub const LLAMA_CPP_LAYER_S_GDDR: f64 = 65e-6;
/// The same on HBM datacenter cards, s, fitted the same way (A100 PCIe,
/// A100 SXM and H100 PCIe rows of the same May 2024 runs).
pub const LLAMA_CPP_LAYER_S_HBM: f64 = 85e-6;
/// llama.cpp's achieved share of peak bandwidth on GDDR cards, fitted
/// jointly with [`LLAMA_CPP_LAYER_S_GDDR`].
pub const LLAMA_CPP_BW_GDDR: f64 = 0.93;
/// llama.cpp's achieved share of peak bandwidth on HBM cards, fitted jointly
/// with [`LLAMA_CPP_LAYER_S_HBM`].
pub const LLAMA_CPP_BW_HBM: f64 = 0.67;
/// llama.cpp's fixed cost per layer and pass with one launch per kernel on
/// GDDR cards, s ([`Factors::launch_layer_s`]), fitted on the fit split's
/// decode rows of builds before CUDA graphs (llama.cpp PR #6766, master of
/// 2024-04-19 on an RTX 3090 and an RTX 4090), the bandwidth share held at
/// the graph builds' (graphs change how kernels start, not the kernels).
pub const LLAMA_CPP_LAUNCH_LAYER_S_GDDR: f64 = 80e-6;
/// The same on HBM cards, s (XiongjieDai's Dec 2023 runs on A100 80GB and
/// H100 PCIe, 7B–70B).
pub const LLAMA_CPP_LAUNCH_LAYER_S_HBM: f64 = 110e-6;
/// llama.cpp's fixed cost per layer and single-token step on GDDR cards in
/// builds with fused kernels, s ([`Factors::fused_layer_s`]), fitted on the
/// fit split's decode rows of such builds (llama.cpp PR #15802, Sep 2025,
/// RTX 3090, Llama 3 8B Q4_0 at microbatch 1), the bandwidth share held at
/// the graph builds'.
pub const LLAMA_CPP_FUSED_LAYER_S_GDDR: f64 = 10e-6;
/// The same on HBM cards: no fit row runs such a build on an HBM card, so
/// it is the graph builds' figure ([`LLAMA_CPP_LAYER_S_HBM`]).
pub const LLAMA_CPP_FUSED_LAYER_S_HBM: f64 = LLAMA_CPP_LAYER_S_HBM;

/// The fixed cost per layer of a vLLM or SGLang decode step whose CUDA
/// graph replays the model's eager PyTorch kernels, s
/// ([`Factors::layer_overhead_s`] of those engines, [`Launch::Graph`]).
/// Without torch.compile each layer's small elementwise and normalisation
/// kernels (residual adds, RMSNorm, rotary embedding, the SiLU·mul of the
/// gated FFN, the KV-cache write) run one by one, and at batch 1 every one
/// costs its launch inside the graph and its grid's fill and drain whatever
/// the work; torch.compile (Inductor) fuses them into the neighbouring
/// kernels. SGLang measured the difference on Llama-3-8B at batch 1 (issue
/// #1008, 2024-08-09: 135.64 tok/s with CUDA graphs, 155.67 with
/// `--enable-torch-compile`); SGLang compiles only when asked (docs.sglang.io
/// `references/torch_compile_cache`, read 2026-12-01: "SGLang uses
/// max-autotune-no-cudagraphs mode of torch.compile", launched with
/// `--enable-torch-compile`), and vLLM's V0 engine captured the eager model
/// (its V1 engine, the default from v0.8.0, compiles by default). Fitted by `whichgpu calibrate …
/// --fit` on the fit split's decode rows of such builds (SGLang PR #1401,
/// 2024-09-12: Llama-3-8B at batch 1 with CUDA graphs, FlashInfer and
/// Triton attention), the bandwidth share held at the profile's. A link's
/// answer is a current build and is not charged it: no fit row measures a
/// current uncompiled build apart from its MoE kernels (the 8×B200 rows of
/// sgl-cookbook leave no room for it beside `MOE_LAYER_S`).
pub const PYTORCH_UNFUSED_LAYER_S: f64 = 24e-6;

/// Host time per layer and forward pass of transformers 4.35's eager
/// `generate`, s ([`Factors::host_layer_s`]), fitted by `whichgpu calibrate
/// tests/data/calibration.csv tests/data/serving_measurements.csv --fit`
/// jointly with [`HF_BW`] on the fit split's `engine=hf` decode rows
/// (huggingface/optimum-benchmark `examples/running-llamas/artifacts`
/// @f75d9f9 and @c8bbe4e: transformers 4.35.2, torch 2.1.1, A100 SXM 80GB,
/// Llama-2-7B and 13B fp16 at batch 1–64, 256-token prompts, 512 new
/// tokens). The research notes' per-launch figure agrees: about 30 µs
/// between eager launches (vllm-project/vllm-omni PR #6516, Nsight) × about
/// 30 ops a Llama layer. Newer transformers on other hosts differ (issue 36
/// states about 105 ms a step for Llama-3.1-8B on an H200 under 5.17,
/// 3.3 ms a layer; not fitted).
pub const HF_HOST_LAYER_S: f64 = 820e-6;
/// transformers' achieved share of peak bandwidth, fitted with
/// [`HF_HOST_LAYER_S`] and [`HF_CACHE_BW`] (the GDDR and HBM rows alike;
/// the batch 16–64 rows, where the GPU's work is the longer, pin it).
pub const HF_BW: f64 = 0.47;
/// transformers' achieved share of peak bandwidth over the KV cache's
/// reads and copies (`eager::cache_copy_bytes`), fitted with
/// [`HF_HOST_LAYER_S`] and [`HF_BW`]: many small strided copies and
/// freshly allocated tensors each step, well below the weight stream's share.
pub const HF_CACHE_BW: f64 = 0.34;
/// transformers' achieved share of the dense tensor rate in a prompt's
/// forward pass, fitted by the same command on the same source's two
/// prefill rows (256-token prompts).
pub const HF_COMPUTE: f64 = 0.36;

/// Whether the calibration data constrain this engine directly.
pub fn has_direct_data(engine: Engine) -> bool {
    matches!(engine, Engine::LlamaCpp | Engine::TrtLlm | Engine::Hf)
}

/// GPU classes for fitting: HBM datacenter parts vs GDDR cards.
pub fn is_hbm_class(gpu: &Gpu) -> bool {
    gpu.is_hbm() || gpu.class == GpuClass::Datacenter && gpu.memory_type.starts_with("HBM")
}

/// The factor table. Values come from `whichgpu calibrate --fit`
/// (median of measured/ideal per engine × class over the calibration rows);
/// vLLM and SGLang, which have no rows there, scale the TensorRT-LLM
/// factors by published side-by-side comparisons (see `tests/data/SERVING-NOTES.md`).
pub fn factors(engine: Engine, gpu: &Gpu) -> Factors {
    let hbm = is_hbm_class(gpu);
    // Fitted on the calibration rows (`whichgpu calibrate FILE --fit`);
    // errors per kind are in docs/estimates.md.
    let trt = Factors {
        bw: 0.73,
        compute: 0.55,
        step_overhead_s: 0.0002,
        dequant_flops_per_weight: 2.5,
        quant_compute: 1.0,
        moe_layer_s: 0.0,
        moe_expert_s: 0.0,
        layer_overhead_s: 0.0,
        launch_layer_s: 0.0,
        fused_layer_s: 0.0,
        dp4a_share: LLAMA_CPP_DP4A_SHARE,
        host_layer_s: 0.0,
        cache_bw: 0.0,
    };
    match (engine, hbm) {
        // llama.cpp on GDDR cards: 44 llama-bench rows on GeForce cards
        // (fit split). `compute` is relative to the full-rate 16-bit tensor
        // rate (twice the table's FP32-accumulate figure on GeForce, see
        // `ServeJob::compute_rate`). `compute` and `quant_compute` refitted
        // by `whichgpu calibrate tests/data/calibration.csv
        // tests/data/serving_measurements.csv --fit` once the prompt rows of
        // builds without FlashAttention pay their attention scores'
        // traffic (`attn_scores.rs`): "compute 0.47 quant_compute 0.85"
        // (0.50 and 0.65 before, pulled down by the 8,192-token rows).
        (Engine::LlamaCpp, false) => Factors {
            bw: LLAMA_CPP_BW_GDDR,
            compute: 0.47,
            step_overhead_s: 0.0006,
            dequant_flops_per_weight: 2.0,
            quant_compute: 0.85,
            moe_layer_s: 0.0,
            moe_expert_s: LLAMA_CPP_MOE_EXPERT_S,
            layer_overhead_s: LLAMA_CPP_LAYER_S_GDDR,
            launch_layer_s: LLAMA_CPP_LAUNCH_LAYER_S_GDDR,
            fused_layer_s: LLAMA_CPP_FUSED_LAYER_S_GDDR,
            dp4a_share: LLAMA_CPP_DP4A_SHARE,
            host_layer_s: 0.0,
            cache_bw: 0.0,
        },
        // llama.cpp on HBM datacenter cards: 10 decode rows on A100 80GB
        // and H100 PCIe (7B, 13B, 70B; XiongjieDai, Dec 2023 snapshot).
        // The same kernels leave a fixed cost per layer several times the
        // GeForce one: the weight read of a layer is over in a few µs on
        // 2 TB/s, so launches and grid fill/drain of ~15 kernels a layer
        // are no longer hidden. `compute` and `quant_compute` are the same
        // refit on the HBM fit split's pp512 rows (XiongjieDai, May 2024:
        // A100 PCIe/SXM, H100 PCIe): "compute 0.41 quant_compute 0.85"
        // (0.23 and 1.45 before; the two trade off on these few rows).
        (Engine::LlamaCpp, true) => Factors {
            bw: LLAMA_CPP_BW_HBM,
            compute: 0.41,
            step_overhead_s: 0.0006,
            dequant_flops_per_weight: 0.5,
            quant_compute: 0.85,
            moe_layer_s: 0.0,
            moe_expert_s: 0.0,
            layer_overhead_s: LLAMA_CPP_LAYER_S_HBM,
            launch_layer_s: LLAMA_CPP_LAUNCH_LAYER_S_HBM,
            fused_layer_s: LLAMA_CPP_FUSED_LAYER_S_HBM,
            dp4a_share: LLAMA_CPP_DP4A_SHARE,
            host_layer_s: 0.0,
            cache_bw: 0.0,
        },
        // TensorRT-LLM: 10 trtllm-bench throughput rows (H100/H200) and 17
        // gpt-fast decode rows (A100), mapped to this profile.
        (Engine::TrtLlm, _) => trt,
        // vLLM and SGLang have no calibration rows: same-GPU comparisons put
        // their batch-1 decode at TensorRT-LLM's bandwidth use and their
        // throughput ~5 % below it, SGLang ~4 % above vLLM (SERVING-NOTES.md).
        // Their MoE layers run Triton fused-MoE kernels with a fixed cost
        // per layer that batch-1 decoding exposes (MOE_LAYER_S); TensorRT-LLM
        // and gpt-fast rows show none.
        // Builds that graph-capture the eager model pay PYTORCH_UNFUSED_LAYER_S
        // per layer and step (`Launch::Graph`); compiled ones do not.
        (Engine::Vllm, _) => Factors {
            compute: trt.compute * 0.95,
            step_overhead_s: 0.0004,
            moe_layer_s: MOE_LAYER_S,
            layer_overhead_s: PYTORCH_UNFUSED_LAYER_S,
            ..trt
        },
        (Engine::Sglang, _) => Factors {
            compute: trt.compute * 0.95 * 1.04,
            step_overhead_s: 0.0003,
            moe_layer_s: MOE_LAYER_S,
            layer_overhead_s: PYTORCH_UNFUSED_LAYER_S,
            ..trt
        },
        // HF transformers 4.35 eager `generate` (`eager.rs`): the host's
        // per-layer launches overlap the GPU's work, and the cache's copies
        // add to its reads. `bw`, `compute` and `host_layer_s` HF_* (fitted).
        (Engine::Hf, _) => Factors {
            bw: HF_BW,
            compute: HF_COMPUTE,
            step_overhead_s: 0.0,
            dequant_flops_per_weight: 10.0,
            quant_compute: 0.8,
            moe_layer_s: 0.0,
            moe_expert_s: 0.0,
            layer_overhead_s: 0.0,
            launch_layer_s: 0.0,
            fused_layer_s: 0.0,
            dp4a_share: LLAMA_CPP_DP4A_SHARE,
            host_layer_s: HF_HOST_LAYER_S,
            cache_bw: HF_CACHE_BW,
        },
    }
}

/// KV-cache allocation granularity in tokens (the engine table's `kv_block_tokens`).
pub fn kv_block_tokens(engine: Engine) -> u32 {
    engines::row(engine).kv_block_tokens.value
}

/// Tokens processed per prefill chunk, which sizes the activation workspace
/// (the engine table's `prefill_chunk`; none: the whole prompt at once).
pub fn prefill_chunk_tokens(engine: Engine, prompt_tokens: u32) -> u32 {
    match engines::row(engine).prefill_chunk.value {
        Some(chunk) => prompt_tokens.clamp(1, chunk),
        None => prompt_tokens.max(1),
    }
}

/// The share of GPU memory each engine is told it may take, as the plan
/// assumes it (and the export's command sets it): the engine table's
/// reservation (vLLM's `--gpu-memory-utilization`, SGLang's
/// `--mem-fraction-static`, TensorRT-LLM's `--kv_cache_free_gpu_memory_fraction`
/// of what is free after the weights). llama.cpp and HF transformers take
/// no fraction: `None`.
pub fn memory_fraction(engine: Engine) -> Option<f64> {
    engines::row(engine).reservation.value.fraction()
}

/// What nvidia-smi will show per GPU, given what the job needs, by the
/// engine table's reservation: vLLM pre-allocates its share of the card;
/// SGLang its static share plus its activations; TensorRT-LLM gives the KV
/// cache its share of what is left; llama.cpp allocates exactly its
/// context; PyTorch's caching allocator keeps ~10 % more than it uses.
pub fn reserved_per_gpu(engine: Engine, needed_per_gpu: f64, needed_without_kv: f64, capacity: f64) -> f64 {
    let r = match engines::row(engine).reservation.value {
        Reservation::Card { share, .. } => needed_per_gpu.max(share * capacity),
        Reservation::Static { share, .. } => {
            needed_per_gpu.max(share * capacity + (needed_per_gpu - needed_without_kv).min(0.0))
        }
        Reservation::FreeForKv { share, .. } => {
            needed_per_gpu.max(needed_without_kv + share * (capacity - needed_without_kv).max(0.0))
        }
        Reservation::Exact => needed_per_gpu,
        Reservation::Allocator => needed_per_gpu * ALLOCATOR_RESERVE,
    };
    r.max(needed_per_gpu)
}

/// Per-GPU runtime memory outside the model (the engine table's `overhead_gib`).
pub fn runtime_overhead_bytes(engine: Engine) -> f64 {
    engines::row(engine).overhead_gib.value * super::super::units::GIB
}

/// Seconds per megapixel of submitted image that a multimodal request spends
/// before its prefill: decoding the image, resizing, normalising and
/// patchifying it, and launching the vision tower per request. It does not
/// batch across requests and holds up the engine's loop: in SGLang's
/// 100-concurrent Qwen2.5-VL-72B run (sgl-cookbook, SGLang 0.5.6, 8×MI300X)
/// the 95th-percentile inter-token latency is 428 ms, one request's images.
/// The median of what the two single-stream TTFT rows with two 720p images
/// leave after prefill and the context phase's fixed costs
/// (`prefill_fixed.rs`: SGLang's per-request and per-expert-layer costs):
/// 0.184 s/MP on 8×MI300X with Qwen2.5-VL, 0.044 on 8×B200 with Qwen3-VL
/// (stacks differ 4×; 0.147 before those costs were separated);
/// `tests/media.rs` recomputes it.
pub const IMAGE_PREP_S_PER_MP: f64 = 0.114;

/// Time one image of `res` pixels spends on the request path (see
/// [`IMAGE_PREP_S_PER_MP`]); one figure for every engine until data separate them.
pub fn image_preprocess_s(res: (u32, u32)) -> f64 {
    IMAGE_PREP_S_PER_MP * f64::from(res.0) * f64::from(res.1) / 1e6
}

/// Per-all-reduce latency over the scale-up link (s): ~25 µs measured from
/// gpt-fast's TP scaling on A100 NVLink (calibration rows v278–v282), and
/// PCIe roughly 2× that through host bridges (NCCL tests show PCIe
/// all-reduce latency 2–3× NVLink's at small sizes).
pub fn allreduce_latency_s(nvlink: bool) -> f64 {
    if nvlink {
        25e-6
    } else {
        55e-6
    }
}

/// Read rate of model weights at start-up, bytes/s: 21.82 GiB loaded in
/// about 18 s from a serverless worker's volume (vllm-project/vllm#44881,
/// "Weight loading (3 shards, 21.82 GiB) ~18s", RTX 5090 on RunPod).
pub const STARTUP_READ_BYTES_PER_S: f64 = 21.82 * 1_073_741_824.0 / 18.0;

/// Engine start beyond reading the weights, seconds: vLLM answered its
/// first request 59 s after start with a warm torch.compile cache and
/// 0.9 s of weight loading (vllm-project/vllm#20264: init engine 34 s,
/// graph capture 17 s, the rest unlogged). Engines that capture no graphs
/// (llama.cpp, transformers) start faster; this overstates theirs.
pub const ENGINE_START_S: f64 = 59.0;

/// Seconds from starting an instance's job to its first useful work:
/// reading the weights plus starting the engine.
pub fn startup_s(weight_bytes: f64) -> f64 {
    weight_bytes.max(0.0) / STARTUP_READ_BYTES_PER_S + ENGINE_START_S
}
