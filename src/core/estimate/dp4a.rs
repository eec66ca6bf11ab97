//! llama.cpp's quantized matmuls on cards with DP4A and no tensor cores
//! (Pascal GP102/GP104, compute capability 6.1: the Tesla P40).
//!
//! Which kernel runs: llama.cpp's `ggml_cuda_should_use_mmq`
//! (ggml-org/llama.cpp@027ef8769913a5f665e287c5e1f13d9d633a9d57
//! ggml/src/ggml-cuda/mmq.cu) takes its quantized matmul kernels (MMQ) for
//! every GGUF quantization of the catalog (Q2_K…Q8_0) on any NVIDIA card of
//! compute capability ≥ `GGML_CUDA_CC_DP4A` (6.1), and on a card without FP16
//! tensor cores for every batch size (`!fp16_mma_hardware_available(cc) ||
//! ne11 < MMQ_DP4A_MAX_BATCH_SIZE`); the January 2024 build measured on the
//! P40 did the same (`MMQ_MAX_BATCH_SIZE 32`, "max batch size to use MMQ
//! kernels when tensor cores are available"). Without int8 tensor cores
//! (`turing_mma_available`), MMQ's tiles multiply 8-bit integers with the
//! `dp4a` instruction (`ggml_cuda_dp4a`, ggml/src/ggml-cuda/common.cuh;
//! `vec_dot_*_q8_1` in vecdotq.cuh), four int8 multiply-adds per CUDA core
//! per clock: NVIDIA's Tesla P40 datasheet gives 47 INT8 TOPS beside 11.76
//! FP32 TFLOPS (`int8_tops` in static/gpus.csv), so the weights' matmuls of
//! a prompt run at the INT8 rate, not the FP32 rate the dequantize-and-GEMM
//! path would take, times the share of that peak the kernels reach
//! (`Factors::dp4a_share`, fitted by `whichgpu calibrate --fit` on the P40
//! rows of llama.cpp PR #7314; not the 16-bit `compute` × `quant_compute`
//! shares fitted on tensor-core cards). The attention matmuls (K·Q, KQ·V)
//! are not quantized and stay at the 16-bit (on Pascal, FP32) rate.
//!
//! Tiles: on Pascal every MMQ kernel computes tiles of 64 weight rows × 64
//! tokens with 8 warps (`MMQ_CONFIG_*.pascal` = {64, 64, 8} for every type,
//! ggerganov/llama.cpp@02240912ff3621da378ed62cb5d0f279f17fc9d1
//! ggml-cuda/mmq.cu, May 2024; `MMQ_X_*_PASCAL 64` in the January 2024
//! ggml-cuda.cu), so a micro-batch (`n_ubatch`) of b tokens costs ⌈b/64⌉
//! full tiles ([`mmq_pad`]). PR #7314's P40 table shows it: from 16 to 64
//! tokens a micro-batch takes about the same time (FlashAttention on: 89,
//! 95, 114 ms), so tokens/s grows almost in proportion to the micro-batch.
//! Micro-batches of at most 8 tokens run the matrix-vector kernel
//! (`MMVQ_MAX_BATCH_SIZE` 8) and are not padded here.
//!
//! Volta has DP4A but also FP16 tensor cores (dequantize + cuBLAS for prompt
//! batches); Turing and later run MMQ on int8 tensor cores (the `int8_tops`
//! column already); the P100 (compute capability 6.0) has no DP4A and no
//! `int8_tops` value. So only Pascal rows with an `int8_tops` value change.
//!
//! Single-token decode takes another kernel ([`mmvq_weights_s`]): the
//! matrix-vector product `mul_mat_vec_q`, whose integer arithmetic per weight
//! can outlast the weight stream on Pascal.

use super::super::catalog::gpus::{Arch, Vendor};
use super::super::catalog::{Gpu, Model};
use super::super::config::Engine;
use super::super::precision::{self, Compute, WeightFormat};
use super::engine::Factors;

/// Executed rate of llama.cpp's quantized matmuls on a DP4A card without
/// tensor cores, FLOP/s; `None` where another path runs.
pub fn mmq_rate(engine: Engine, format: &WeightFormat, gpu: &Gpu, f: &Factors) -> Option<f64> {
    let dp4a_only = gpu.vendor == Vendor::Nvidia && gpu.arch == Arch::Pascal && gpu.int8_tops.is_some();
    (engine == Engine::LlamaCpp && format.gguf && format.weight_only && dp4a_only)
        .then(|| precision::tensor_flops(gpu, Compute::Int8) * f.dp4a_share)
}

/// Tokens per MMQ tile on Pascal (`MMQ_CONFIG_*.pascal.x`, see the module).
pub const MMQ_TILE_TOKENS: f64 = 64.0;

/// Executed over useful weight-matmul work when `n` tokens pass in
/// micro-batches of `chunk` tokens, each padded to whole MMQ tiles: 1.0 for
/// micro-batches of at most 8 tokens (the matrix-vector kernel) and for
/// whole tiles (512 / 64).
pub fn mmq_pad(n: f64, chunk: f64) -> f64 {
    if n <= 0.0 || chunk <= 8.0 {
        return 1.0;
    }
    let tiles = |b: f64| (b / MMQ_TILE_TOKENS).ceil() * MMQ_TILE_TOKENS;
    let full = (n / chunk).floor();
    let rest = n - full * chunk;
    let rest = if rest > 8.0 { tiles(rest) } else { rest };
    (full * tiles(chunk) + rest) / n
}

/// Time of a pass's matmuls: `linear` = (FLOPs of the weight matmuls among
/// `total_flops`, their tile padding [`mmq_pad`]), at `rate16` (the engine's
/// 16-bit rate) unless the weight matmuls run at [`mmq_rate`]: then they
/// cost their padded tiles, and the rest (attention) keeps `rate16`.
pub fn matmul_s(
    engine: Engine,
    format: &WeightFormat,
    gpu: &Gpu,
    f: &Factors,
    linear: (f64, f64),
    total_flops: f64,
    rate16: f64,
) -> f64 {
    let (linear_flops, pad) = linear;
    match mmq_rate(engine, format, gpu, f) {
        Some(r) => linear_flops * pad / r + (total_flops - linear_flops).max(0.0) / rate16,
        None => total_flops / rate16,
    }
}

/// Issue cycles per weight of llama.cpp's single-token matrix-vector kernel
/// on compute capability 6.1, per GGUF file type, averaged over the file's
/// tensor types; `None` for formats it does not run.
///
/// The kernel: with one token (`src1->ne[1] == 1`) on a card of compute
/// capability ≥ 6.1, `ggml_cuda_mul_mat` takes `ggml_cuda_op_mul_mat_vec_q`
/// unless built with `GGML_CUDA_FORCE_DMMV` (the dequantize-and-multiply
/// path), after quantizing the activations to q8_1 (`quantize_q8_1`, one
/// small kernel per matmul, paid in the fitted per-layer cost); each row is
/// one warp of 32 threads (`GGML_CUDA_MMV_Y` 1) walking the row in steps of
/// `vdr·32/qi` blocks. For Q2_K (`QI2_K` 16, `VDR_Q2_K_Q8_1_MMVQ` 1) a step
/// covers two 84-byte super-blocks, each thread one 32-bit word of 16
/// weights: 4 dp4a, 4 integer scale multiplies, 4 scale bytes, 4 q8_1 words
/// and their 4 fp16 scales (ggml-org/ggml@61268136ca5777724d511397cf97467ac952166d
/// src/ggml-cuda.cu, the llama.cpp file of 2024-01-12, synced from
/// llama.cpp PR #4862; the P40 rows' build).
///
/// The counts: that file's `mul_mat_vec_q` instantiated for each ggml type,
/// compiled by NVRTC and ptxas 12.9 for sm_61 and disassembled; the loop
/// body's SASS per weight one thread handles, each instruction weighted by
/// the issue cycles of its class in NVIDIA's throughput table (CUDA C++
/// Programming Guide, "Arithmetic Instructions", compute capability 6.1: 128
/// results per clock and multiprocessor for FP32 and integer add, logic and
/// the XMAD steps of integer multiplies, 64 for shifts, compares and
/// bit-field extracts, 32 for type conversions) and 32 per clock for loads
/// (8 LD/ST units in each of the SM's four blocks, NVIDIA GP104
/// whitepaper). Per ggml type (instructions, conversions, loads per weight →
/// cycles per weight): Q2_K 6.44, 0.88, 0.88 → 12.69; Q3_K 10.75, 0.56,
/// 1.31 → 18.06; Q4_K 6.25, 0.50, 0.75 → 10.38; Q5_K → 12.00; Q6_K → 16.75;
/// Q4_0 → 5.38; Q4_1 → 4.91; Q5_0 → 9.34; Q8_0 → 7.00
/// (`tests/data/mmvq_sm61_sass.csv`; the loop issues no fp16 arithmetic, its
/// half values are converted to fp32, F2F). A file mixes types as
/// `llama_tensor_get_type` assigns them (ggml-org/llama.cpp@8784689fee07c6daabf3487d24e1535534ef6e6b
/// src/llama-quant.cpp: Q2_K keeps attn_v, attn_output and ffn_down in Q3_K;
/// K-quant files keep the output head in Q6_K, …), weighted here by a
/// LLaMA-7B's tensor sizes (`tests/it/estimate/mmvq.rs` recomputes them).
pub fn mmvq_cycles_per_weight(format_id: &str) -> Option<f64> {
    Some(match format_id {
        "gguf-q2_k" => 14.82,
        "gguf-q3_k_m" => 15.14,
        "gguf-q4_0" => 5.60,
        "gguf-q4_1" => 5.14,
        "gguf-q4_k_s" => 10.56,
        "gguf-q4_k_m" => 11.46,
        "gguf-q5_0" => 9.34,
        "gguf-q5_k_m" => 12.81,
        "gguf-q6_k" => 16.75,
        "gguf-q8_0" => 7.00,
        _ => return None,
    })
}

/// Time of a single-token step's weight matmuls in llama.cpp on a DP4A card
/// without tensor cores: the weight stream `t_mem` or the kernel's issue time,
/// whichever is longer (the roofline: the warps of other rows hide one under
/// the other). The issue time is the cycles per weight
/// ([`mmvq_cycles_per_weight`]) over the card's issue rate, 128 thread
/// instructions per clock and multiprocessor on Pascal, half its FP32 FLOP
/// rate (an FMA counts two). Memory-bound formats (Q4_0, Q4_1, Q5_0 on the
/// P40) keep `t_mem`; Q2_K's 2.96 bits per weight are read sooner than its
/// arithmetic issues. The counts are sm_61 code, so other cards keep
/// `t_mem`; batches above one token run other kernels and keep it too.
pub fn mmvq_weights_s(
    engine: Engine,
    format: &WeightFormat,
    gpu: &Gpu,
    m: &Model,
    tp: f64,
    batch: f64,
    t_mem: f64,
) -> f64 {
    let Some(cycles) = mmvq_cycles_per_weight(format.id) else { return t_mem };
    let dp4a_only = gpu.vendor == Vendor::Nvidia && gpu.arch == Arch::Pascal && gpu.int8_tops.is_some();
    if engine != Engine::LlamaCpp || !format.gguf || !dp4a_only || batch > 1.0 {
        return t_mem;
    }
    let weights =
        (super::arch::body_params_read(m, batch) + f64::from(m.vocab) * f64::from(m.hidden)) / tp.max(1.0);
    let issue_per_s = precision::tensor_flops(gpu, Compute::Fp32) / 2.0;
    t_mem.max(weights * cycles / issue_per_s)
}
