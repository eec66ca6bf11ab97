//! Parameter counts computed from an architecture: what an imported
//! `config.json` or a custom link's keys add up to. Tests compare the count
//! with the catalog's published `params_total_b` / `params_active_b`.
//!
//! The formula (biases, which are under 0.1% in these families, left out):
//!
//! - embeddings: vocab · hidden, twice when the output head is untied;
//! - attention per layer, grouped-query (Ainslie et al. 2023): Q and O are
//!   hidden · heads · head_dim each, K and V hidden · kv_heads · head_dim each;
//! - multi-head latent attention per layer (DeepSeek-V2 paper §2.1;
//!   `q_a_proj`, `q_b_proj`, `kv_a_proj_with_mqa`, `kv_b_proj`, `o_proj` of
//!   its modeling code): Q = hidden · q_lora + q_lora · heads · qk_dim (or
//!   hidden · heads · qk_dim without a query latent), KV = hidden · (kv_lora +
//!   rope) + kv_lora · heads · (qk_dim − rope + v_dim), O = heads · v_dim ·
//!   hidden, with qk_dim = `head_dim` and v_dim = qk_dim − rope (128 + 64 and
//!   128 in DeepSeek-V2/V3 and Kimi K2);
//! - a gated FFN (SwiGLU/GeGLU: gate, up and down) is 3 · hidden · ffn;
//! - an MoE layer holds its routed and shared experts, each a gated FFN of
//!   `expert_ffn`, plus a router of hidden · experts; its first
//!   `first_dense_layers` layers are dense FFNs of `ffn`;
//! - a linear-attention or state-space layer holds its mixer's parameters
//!   instead of attention's (`hfconfig::state` counts them from the file);
//! - two norms per layer and a final one (hidden each);
//! - plus the vision tower's own count.
//!
//! Active parameters: a dense model uses every parameter (as the catalog
//! counts it); an MoE token uses attention, its `active` routed and the
//! shared experts, the dense layers and the output head — the input
//! embedding is a table lookup, as the gpt-oss model card counts it.

use super::models::Model;

/// A computed count, in parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamCount {
    pub total: f64,
    pub active: f64,
}

impl Model {
    /// Parameters of one layer's attention.
    pub fn attention_params(&self) -> f64 {
        let h = f64::from(self.hidden);
        let heads = f64::from(self.heads);
        match &self.mla {
            Some(mla) => {
                let qk = f64::from(self.head_dim);
                let rope = f64::from(mla.rope_dim);
                let v = (qk - rope).max(1.0);
                let (q_lora, kv_lora) = (f64::from(mla.q_lora_rank), f64::from(mla.kv_lora_rank));
                let q = if mla.q_lora_rank > 0 {
                    h * q_lora + q_lora + q_lora * heads * qk
                } else {
                    h * heads * qk
                };
                let kv = h * (kv_lora + rope) + kv_lora + kv_lora * heads * (qk - rope + v);
                q + kv + heads * v * h
            }
            None => h * f64::from(self.head_dim) * (2.0 * heads + 2.0 * f64::from(self.kv_heads)),
        }
    }

    /// The total and active parameters this architecture adds up to.
    pub fn counted_params(&self) -> ParamCount {
        let h = f64::from(self.hidden);
        let layers = f64::from(self.layers);
        let gated = |ffn: u32| 3.0 * h * f64::from(ffn);
        // A fixed-state layer's mixer replaces its attention (`StateLayers::mixer_params`).
        let (state_layers, mixer) = self.state.as_ref().map_or((0.0, 0.0), |s| {
            (f64::from(s.layers), s.mixer_params.map_or(self.attention_params(), f64::from))
        });
        let per_layer = self.attention_params() + 2.0 * h;
        let shared_body = layers * per_layer + h + state_layers * (mixer - self.attention_params());
        let (ffn_total, ffn_active) = match &self.moe {
            Some(moe) => {
                let dense_layers = f64::from(moe.first_dense_layers.min(self.layers));
                let moe_layers = f64::from(self.moe_layers());
                let dense_ffn =
                    self.ffn.unwrap_or(moe.expert_ffn.saturating_mul(moe.active.saturating_add(moe.shared)));
                let router = h * f64::from(moe.experts);
                let expert = gated(moe.expert_ffn);
                let dense = dense_layers * gated(dense_ffn);
                let total =
                    dense + moe_layers * ((f64::from(moe.experts) + f64::from(moe.shared)) * expert + router);
                let active =
                    dense + moe_layers * ((f64::from(moe.active) + f64::from(moe.shared)) * expert + router);
                (total, active)
            }
            None => {
                let all = layers * gated(self.ffn.unwrap_or(0));
                (all, all)
            }
        };
        let vision = self.vision_params();
        let total = self.embedding_params() + shared_body + ffn_total + vision;
        let active = if self.moe.is_some() {
            // The output head is read for every token; the input embedding is a lookup.
            f64::from(self.vocab) * h + shared_body + ffn_active + vision
        } else {
            total
        };
        ParamCount { total, active }
    }
}
