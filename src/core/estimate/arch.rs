//! Per-token quantities derived from a model's architecture: bytes of KV
//! cache, FLOPs, bytes of weights read.

use super::super::catalog::Model;
use super::super::precision::WeightFormat;

/// Bytes of weights held for the whole model in a format.
/// Body at the format's bits; embeddings/head at the format's embedding
/// bits; a vision tower stays 16-bit (engines do not quantize it by default).
pub fn weight_bytes(m: &Model, f: &WeightFormat, body_bits: f64) -> f64 {
    m.body_params() * body_bits / 8.0 + m.embedding_params() * f.embed_bits / 8.0 + m.vision_params() * 2.0
}

/// KV-cache bytes of one sequence holding `tokens` tokens.
///
/// Full-attention layer: 2 (K and V) · kv_heads · head_dim · bytes per token
/// (GQA: Ainslie et al. 2023); sliding-window layer: the same but capped at
/// the window (Mistral 7B report; Gemma 2/3 reports); MLA layer: the latent
/// (kv_lora_rank) plus the decoupled RoPE key per token, no per-head K/V
/// (DeepSeek-V2 paper §2.1.2). `kv_split` divides the heads over tensor-
/// parallel ranks (a rank keeps at least one KV head; MLA's latent is replicated).
pub fn kv_bytes_per_seq(m: &Model, tokens: f64, kv_elem_bytes: f64, kv_split: f64) -> f64 {
    if let Some(mla) = &m.mla {
        return f64::from(m.attention_layers())
            * tokens
            * f64::from(mla.kv_lora_rank + mla.rope_dim)
            * kv_elem_bytes;
    }
    let per_layer_token = 2.0 * f64::from(m.kv_heads) * f64::from(m.head_dim) * kv_elem_bytes / kv_split;
    let (full, local) = m.layer_split();
    let window = m.swa.as_ref().map_or(tokens, |s| tokens.min(f64::from(s.window)));
    per_layer_token * (f64::from(full) * tokens + f64::from(local) * window)
}

/// How many ways the KV heads split over `tp` ranks (ranks hold at least one head).
pub fn kv_split(m: &Model, tp: u32) -> f64 {
    if m.mla.is_some() {
        return 1.0;
    }
    let per_rank = m.kv_heads.div_ceil(tp.max(1)).max(1);
    f64::from(m.kv_heads) / f64::from(per_rank)
}

/// Mean tokens in the cache over a generation of `out` tokens after `input`.
pub fn mean_context(input: f64, out: f64) -> f64 {
    input + out / 2.0
}

/// Body parameters read per decode step for `batch` sequences. For an MoE,
/// each sequence routes to `active` of `experts` per layer; the expected
/// number of distinct experts touched by B sequences is
/// E·(1 − (1 − k/E)^B) (uniform routing), so bytes grow with batch until
/// every expert is read.
pub fn body_params_read(m: &Model, batch: f64) -> f64 {
    let Some(moe) = &m.moe else { return m.body_params() };
    let e = f64::from(moe.experts);
    let k = f64::from(moe.active);
    let touched = e * (1.0 - (1.0 - k / e).powf(batch.max(1.0)));
    let per_expert_all_layers = m.expert_params() * f64::from(m.moe_layers());
    // Attention, shared experts and dense layers are read whatever the routing.
    let base = (m.active_body_params() - per_expert_all_layers * k).max(m.active_body_params() * 0.02);
    (base + per_expert_all_layers * touched).min(m.body_params())
}

/// [`body_params_read`] in three parts: the attention (read whole by every
/// step), the routed experts the batch touches, and the rest (dense FFN
/// layers, shared experts, norms, routers).
pub fn body_read_parts(m: &Model, batch: f64) -> (f64, f64, f64) {
    let total = body_params_read(m, batch);
    let attention = (m.attention_params() * f64::from(m.layers)).min(total);
    let experts = match &m.moe {
        Some(moe) => {
            let e = f64::from(moe.experts);
            let touched = e * (1.0 - (1.0 - f64::from(moe.active) / e).powf(batch.max(1.0)));
            (m.expert_params() * f64::from(m.moe_layers()) * touched).min(total - attention)
        }
        None => 0.0,
    };
    (attention, experts, total - attention - experts)
}

/// Routed-expert weight matrices one token's step reads: gate, up and
/// down (a gated FFN, as [`Model::expert_params`]) of each of the `active`
/// experts in each MoE layer; 0 for a dense model.
pub fn expert_matrices(m: &Model) -> f64 {
    m.moe.as_ref().map_or(0.0, |moe| 3.0 * f64::from(m.moe_layers()) * f64::from(moe.active))
}

/// The FFN width one token passes through: the `active` routed experts'
/// and the shared ones' widths summed for a mixture of experts, else the
/// dense FFN (4·h where the catalog gives none: Vaswani et al. 2017, §3.3).
pub fn active_ffn(m: &Model) -> f64 {
    match &m.moe {
        Some(moe) => f64::from(moe.expert_ffn) * f64::from(moe.active + moe.shared),
        None => f64::from(m.ffn.unwrap_or(4 * m.hidden)),
    }
}

/// A gated (GLU) FFN: gate, up and down matrices. Experts are; a dense FFN
/// is when narrower than 3.9·h, as gated FFNs shrink the 4·h width to keep
/// the parameter count (8/3·h: Shazeer 2020, "GLU Variants Improve
/// Transformer", §2), where a GeLU MLP keeps 4·h.
pub fn gated_ffn(m: &Model) -> bool {
    m.moe.is_some() || m.ffn.is_some_and(|x| f64::from(x) < 3.9 * f64::from(m.hidden))
}

/// Forward FLOPs per token of the weight matmuls: 2 per active parameter
/// (Kaplan et al. 2020, §2.1), output head included.
pub fn linear_flops_per_token(m: &Model) -> f64 {
    2.0 * (m.active_body_params() + f64::from(m.vocab) * f64::from(m.hidden))
}

/// Attention-score FLOPs of a causal prefill of `n` tokens: QKᵀ and AV cost
/// 2·d each per (query, key) pair, d = heads·head_dim (Kaplan et al. 2020,
/// Table 1); a causal layer has n²/2 pairs, a windowed one about n·w − w²/2.
pub fn attention_flops_prefill(m: &Model, n: f64) -> f64 {
    let (full, local) = m.layer_split();
    let d = f64::from(m.heads) * f64::from(m.head_dim);
    let w = m.swa.as_ref().map_or(n, |s| n.min(f64::from(s.window)));
    let pairs = f64::from(full) * n * n / 2.0 + f64::from(local) * (n * w - w * w / 2.0);
    4.0 * d * pairs
}

/// Attention FLOPs of one decode step at context `ctx` (4·d per cached token per layer).
pub fn attention_flops_decode(m: &Model, ctx: f64) -> f64 {
    let (full, local) = m.layer_split();
    let d = f64::from(m.heads) * f64::from(m.head_dim);
    let w = m.swa.as_ref().map_or(ctx, |s| ctx.min(f64::from(s.window)));
    4.0 * d * (f64::from(full) * ctx + f64::from(local) * w)
}
