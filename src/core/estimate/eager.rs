//! What an engine that runs its model eagerly (no CUDA graph, no
//! torch.compile) pays beyond the GPU's work: the host's time to walk each
//! layer's Python modules and launch their kernels one by one, and, for
//! Hugging Face transformers, the KV cache's copies that its `DynamicCache`
//! and grouped-query attention make every step.
//!
//! The profile models transformers 4.35 (the version of every fit and
//! held-out `engine=hf` speed row: optimum-benchmark's running-llamas
//! artifacts ran 4.35.2, transformers issue #29651 ran 4.35.0).
//!
//! **Host and GPU overlap.** The host enqueues kernels asynchronously and
//! `generate` synchronises once a step (its stopping check reads
//! `unfinished_sequences` back, transformers v4.35.2
//! `generation/utils.py`, `greedy_search`), so a step lasts about the longer
//! of the host's launches and the GPU's work, not their sum. The fit data
//! decide it: with a maximum, Llama-2-7B (32 layers, 25.8 ms a step) and
//! Llama-2-13B (40 layers, 33.3 ms) at batch 1 on an A100 SXM both give
//! 0.81–0.83 ms a layer; with a sum (the GPU's weight read subtracted,
//! about 8 and 16 ms) they give 0.54 and 0.43 ms a layer, which a per-layer
//! cost cannot explain. And the step stays flat up to batch 8 (25.8 → 27.2
//! ms for 7B) while the GPU's work grows: the host hides it.

use super::super::catalog::Model;
use super::super::config::Engine;
use super::engine::Factors;

/// Host time of `passes` forward passes through `layers` layers, s: the
/// per-layer cost of an eager engine ([`Factors::host_layer_s`]; zero for
/// engines that replay CUDA graphs). A pass's GPU work overlaps it
/// ([`overlap`]).
pub fn host_s(f: &Factors, layers: u32, passes: f64) -> f64 {
    passes.max(1.0) * f64::from(layers) * f.host_layer_s
}

/// A step's time when the host launches `host` seconds of kernels whose GPU
/// work takes `gpu` seconds: the longer of the two (module docs), and
/// whether the host is the longer.
pub fn overlap(host: f64, gpu: f64) -> (f64, bool) {
    (gpu.max(host), host > gpu)
}

/// Bytes the KV cache moves in one decode step beyond attention's one read
/// of it (`kv`: the step's KV bytes on one GPU), for engines that keep it
/// as transformers does:
///
/// - each layer grows its K and V with `torch.cat([past, new], dim=-2)`,
///   which reads the whole past and writes it again (transformers v4.35.2
///   `models/llama/modeling_llama.py`, `LlamaAttention.forward`; the
///   `DynamicCache.update` of v4.36 on, PR #26681, does the same cat): 2×;
/// - with grouped-query attention, `repeat_kv` expands K and V to every
///   query head (`expand` then `reshape`, a copy; same file) and attention
///   reads the copies: one read of the cache, `n_rep` writes, and `n_rep`
///   reads instead of one, `2·n_rep` in all for `n_rep` > 1
///   (`n_rep` = query heads / KV heads; Llama-3-8B's is 4).
///
/// Other engines write each new token into a preallocated paged cache and
/// read it once (0).
pub fn cache_copy_bytes(engine: Engine, model: &Model, kv: f64) -> f64 {
    if super::super::engines::row(engine).kernels.value != super::super::engines::Kernels::Eager {
        return 0.0;
    }
    let n_rep = if model.mla.is_some() {
        1.0
    } else {
        (f64::from(model.heads) / f64::from(model.kv_heads.max(1))).max(1.0)
    };
    let expand = if n_rep > 1.0 { 2.0 * n_rep } else { 0.0 };
    kv * (2.0 + expand)
}
