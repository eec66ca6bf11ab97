//! The memory traffic of attention scores that an engine writes out instead
//! of keeping them on chip: llama.cpp without FlashAttention. It never
//! decides whether a build uses FlashAttention; the caller says so.
//!
//! Without FlashAttention llama.cpp builds a layer's attention from three
//! ggml ops (ggml-org/llama.cpp `llama.cpp`, `llm_build_kqv`, as of mid
//! 2024): `kq = ggml_mul_mat(k, q)` at `GGML_PREC_F32`, an F32 tensor of
//! `n_kv × n_tokens × n_head` scores; `ggml_soft_max_ext(kq, mask, scale)`,
//! which reads it and writes the probabilities back in F32; and
//! `ggml_mul_mat(v, kq)`, whose CUDA path converts the F32 probabilities to
//! F16 for cuBLAS (`ggml_cuda_op_mul_mat_cublas`) and reads them again. Per
//! score that is 4 (written) + 4 + 4 (softmax) + 4 + 2 (conversion) + 2
//! (GEMM read) = 20 bytes moved through DRAM, work that grows with the
//! square of the prompt and that no FLOP count sees. FlashAttention
//! (`-fa`, PR #5021, merged 2024-04-30, off by default) keeps the scores in
//! registers and shared memory; llama.cpp PR #15434 ("use FA + max. GPU
//! layers by default", JohannesGaessler, opened 2025-08-19) turned it on by
//! default (`-fa auto`; LocalAI PR #6168 followed on 2025-08-31), so a
//! link's answer (a current build) pays none of this.

use super::super::catalog::Model;

/// Bytes moved per attention score without FlashAttention (module doc).
pub const SCORE_BYTES: f64 = 20.0;

/// Attention scores of a prompt of `n` tokens processed in chunks of
/// `chunk` tokens, summed over the layers: chunk `i` (1-based) attends to
/// the `i·chunk` tokens cached so far, so one full-attention layer holds
/// `Σ i·chunk·chunk = n·(n + chunk)/2` scores per head; a sliding-window
/// layer at most `n·window`.
pub fn prompt_scores(m: &Model, n: f64, chunk: f64) -> f64 {
    let (full, local) = m.layer_split();
    let chunk = chunk.clamp(1.0, n.max(1.0));
    let full_pairs = n * (n + chunk) / 2.0;
    let local_pairs =
        m.swa.as_ref().map_or(full_pairs, |s| full_pairs.min(n * (f64::from(s.window) + chunk)));
    f64::from(m.heads) * (f64::from(full) * full_pairs + f64::from(local) * local_pairs)
}

/// Bytes the scores of a prompt move without FlashAttention, per GPU of a
/// tensor-parallel group of `tp` (the heads are split).
pub fn prompt_score_bytes(m: &Model, n: f64, chunk: f64, tp: f64) -> f64 {
    prompt_scores(m, n, chunk) * SCORE_BYTES / tp.max(1.0)
}
