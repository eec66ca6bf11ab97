//! What a sequence holds beside its KV cache, and what requests share:
//! the fixed state of linear-attention and state-space layers, and a
//! prompt prefix common to every request, stored and prefilled once.

use super::super::catalog::Model;
use super::super::config::Engine;
use super::arch;

/// Bytes of one state element. vLLM keeps the convolution and recurrent
/// states in `mamba_cache_dtype` / `mamba_ssm_cache_dtype`, both `auto` by
/// default: the model's dtype, 16 bits for these checkpoints, whatever the
/// KV cache's format (vllm-project/vllm@02d710837549a368073552333f66d714477415d2
/// `vllm/model_executor/layers/mamba/mamba_utils.py`,
/// `MambaStateDtypeCalculator._mamba_state_dtype`).
pub const STATE_ELEM_BYTES: f64 = 2.0;

/// Fixed-state bytes of one sequence on one tensor-parallel rank: every
/// linear-attention or state-space layer's state (`StateLayers::size`),
/// whatever the context. vLLM divides the heads (or the inner width) over
/// the ranks (`MambaStateShapeCalculator`: `divide(num_v_heads, tp)`,
/// `divide(intermediate_size, tp)`).
pub fn state_bytes_per_seq(m: &Model, tp: u32) -> f64 {
    m.state
        .as_ref()
        .map_or(0.0, |s| f64::from(s.layers) * f64::from(s.size) * STATE_ELEM_BYTES / f64::from(tp.max(1)))
}

/// KV bytes of a prefix of `shared` tokens that every sequence reads from
/// one copy: the full-attention layers' (or latent attention's) KV of those
/// tokens. A windowed layer keeps its own last `window` tokens per
/// sequence, which soon are the sequence's own: its share is left private.
pub fn shared_kv_bytes(m: &Model, shared: f64, kv_elem_bytes: f64, kv_split: f64) -> f64 {
    if shared <= 0.0 {
        return 0.0;
    }
    if m.mla.is_some() {
        return arch::kv_bytes_per_seq(m, shared, kv_elem_bytes, kv_split);
    }
    let (full, _) = m.layer_split();
    f64::from(full) * shared * 2.0 * f64::from(m.kv_heads) * f64::from(m.head_dim) * kv_elem_bytes / kv_split
}

/// Whether the engine keeps a prompt prefix's KV blocks for later requests
/// by default, so requests that share it store and prefill it once: vLLM's
/// automatic prefix caching (on by default in V1, docs.vllm.ai "Automatic
/// Prefix Caching"; caches full blocks only), SGLang's RadixAttention (on
/// unless `--disable-radix-cache`, docs.sglang.ai server arguments),
/// TensorRT-LLM's block reuse (`KvCacheConfig.enable_block_reuse = True`,
/// nvidia.github.io/TensorRT-LLM llm-api reference `KvCacheConfig`).
/// llama.cpp's server reuses a slot's own previous prompt
/// (`cache_prompt`), not another slot's; transformers' `generate` keeps no
/// cache between calls. A model with fixed-state layers shares none by
/// default: the state at the prefix's end is not in the block cache, and
/// vLLM leaves prefix caching off for these models (its Qwen3-Next recipe:
/// "does not support automatic prefix caching", vllm-project/vllm#25874;
/// off by default while `mamba_cache_mode=align` is experimental,
/// vllm-project/vllm#38988).
pub fn shares_prefix(engine: Engine, m: &Model) -> bool {
    super::super::engines::row(engine).prefix_cache.value && m.state.is_none()
}

/// Tokens of a shared prefix an engine holds once: the whole blocks of
/// its allocation size (`block` tokens) the prefix fills; a partly filled
/// block is each sequence's own.
pub fn cached_tokens(prefix: f64, block: u32) -> f64 {
    let block = f64::from(block.max(1));
    (prefix / block).floor() * block
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_blocks_are_shared() {
        assert_eq!(cached_tokens(4000.0, 16), 4000.0);
        assert_eq!(cached_tokens(4010.0, 16), 4000.0);
        assert_eq!(cached_tokens(10.0, 16), 0.0);
    }
}
