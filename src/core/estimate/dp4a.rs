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
//! path would take. The fitted compute share (`Factors::compute`, and
//! `quant_compute` for quantized weights) is kept as it is: no factor is
//! fitted here. The attention matmuls (K·Q, KQ·V) are not quantized and stay
//! at the 16-bit (on Pascal, FP32) rate.
//!
//! Volta has DP4A but also FP16 tensor cores (dequantize + cuBLAS for prompt
//! batches); Turing and later run MMQ on int8 tensor cores (the `int8_tops`
//! column already); the P100 (compute capability 6.0) has no DP4A and no
//! `int8_tops` value. So only Pascal rows with an `int8_tops` value change.

use super::super::catalog::gpus::{Arch, Vendor};
use super::super::catalog::Gpu;
use super::super::config::Engine;
use super::super::precision::{self, Compute, WeightFormat};
use super::engine::Factors;

/// Executed rate of llama.cpp's quantized matmuls on a DP4A card without
/// tensor cores, FLOP/s; `None` where another path runs.
pub fn mmq_rate(engine: Engine, format: &WeightFormat, gpu: &Gpu, f: &Factors) -> Option<f64> {
    let dp4a_only = gpu.vendor == Vendor::Nvidia && gpu.arch == Arch::Pascal && gpu.int8_tops.is_some();
    (engine == Engine::LlamaCpp && format.gguf && format.weight_only && dp4a_only)
        .then(|| precision::tensor_flops(gpu, Compute::Int8) * f.compute * f.quant_compute)
}

/// Time of a pass's matmuls: `linear_flops` of weight matmuls among
/// `total_flops`, at `rate16` (the engine's 16-bit rate) unless the weight
/// matmuls run at [`mmq_rate`]; then the rest (attention) keeps `rate16`.
pub fn matmul_s(engine: Engine, format: &WeightFormat, gpu: &Gpu, f: &Factors, linear_flops: f64, total_flops: f64, rate16: f64) -> f64 {
    match mmq_rate(engine, format, gpu, f) {
        Some(r) => linear_flops / r + (total_flops - linear_flops).max(0.0) / rate16,
        None => total_flops / rate16,
    }
}
