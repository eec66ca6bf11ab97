//! Which tensor-parallel group sizes an engine can run a model on.

use super::super::catalog::Model;
use super::super::config::Engine;

/// Whether an engine runs a tensor-parallel group of `tp` GPUs for a model:
/// a layer split takes any count; tensor parallelism needs `tp` to divide
/// the attention heads, and to divide the KV heads or be a multiple of them
/// (vLLM's QKVParallelLinear divides the KV heads over the group or
/// replicates them, `divide(total_num_kv_heads, tp)` or
/// `divide(tp, total_num_kv_heads)`, both asserting divisibility); MLA
/// caches no per-head K/V.
pub fn tp_allowed(model: &Model, engine: Engine, tp: u32) -> bool {
    let tp = tp.max(1);
    let kv = model.kv_heads.max(1);
    engine.splits_layers() || (model.heads % tp == 0 && (model.mla.is_some() || kv % tp == 0 || tp % kv == 0))
}

/// GPU counts per node worth trying: powers of two up to the node's GPU
/// count; for tensor-parallel engines they must divide the attention heads
/// (vLLM and TensorRT-LLM require it) and divide or be a multiple of the KV
/// heads; a layer split takes any.
pub fn tp_options(model: &Model, engine: Engine, gpus_per_node: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut tp = 1;
    while tp <= gpus_per_node.max(1) {
        if tp_allowed(model, engine, tp) {
            out.push(tp);
        }
        match tp.checked_mul(2) {
            Some(next) => tp = next,
            None => break,
        }
    }
    if out.is_empty() {
        out.push(1);
    }
    out
}
