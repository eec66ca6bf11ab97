//! The model of `model=custom`: the link's architecture keys over the
//! shape inferred from the parameter count.

use super::super::catalog::models::{Mla, Moe, SlidingWindow, StateLayers, Vision};
use super::super::catalog::Model;
use super::super::config::CustomArch;
use super::super::messages::Msg;
use super::super::notice::Notice;

/// The model of `model=custom`: the link's architecture keys, the rest
/// inferred from the parameter count. A complete shape without `params`
/// takes the count its architecture adds up to; an MoE's active
/// parameters are the total less the routed experts a token does not use.
pub fn custom_model(a: &CustomArch, notices: &mut Vec<Notice>) -> Model {
    let full = a.layers.is_some() && a.hidden.is_some() && a.heads.is_some();
    let counted = full && a.vocab.is_some() && (a.ffn.is_some() || a.experts.is_some());
    let params_b = match a.params_b {
        Some(p) => p,
        None if counted => 7.0,
        None => {
            notices.push(Notice::said("params", Msg::new("notice.params")));
            7.0
        }
    };
    let mut m = Model::inferred_from_params(params_b);
    if let Some(v) = a.layers {
        m.layers = v;
    }
    if let Some(v) = a.hidden {
        m.hidden = v;
    }
    if let Some(v) = a.heads {
        m.heads = v;
        m.head_dim = (m.hidden / v).max(1);
        m.kv_heads = m.kv_heads.min(v);
    }
    if let Some(v) = a.head_dim {
        m.head_dim = v;
    }
    if let Some(v) = a.kv_heads {
        if m.heads % v == 0 {
            m.kv_heads = v;
        } else {
            notices.push(Notice::said(
                "kv_heads",
                Msg::new("notice.kv_heads")
                    .arg("value", v.to_string())
                    .arg("heads", m.heads.to_string())
                    .arg("kv", m.kv_heads.to_string()),
            ));
        }
    }
    if m.heads % m.kv_heads != 0 {
        m.kv_heads = 1;
    }
    if let Some(v) = a.vocab {
        m.vocab = v;
    }
    if let Some(v) = a.tied {
        m.tied_embeddings = v;
    }
    if a.context.is_some() {
        m.max_context = a.context;
    }
    m.ffn = if a.experts.is_some() { a.ffn } else { a.ffn.or(m.ffn) };
    custom_attention(a, &mut m, notices);
    if full {
        m.inferred = false;
        m.name = match a.params_b {
            Some(p) => format!("Custom {p}B"),
            None => "Custom".into(),
        };
        m.source = "architecture given in the link".into();
    }
    let count = m.counted_params();
    if a.params_b.is_none() && counted {
        m.params_total = count.total;
        m.params_active = count.total;
        m.name = format!("Custom {}B", (count.total / 1e6).round() / 1e3);
    }
    if m.moe.is_some() {
        m.params_active = (m.params_total - (count.total - count.active)).max(m.params_total * 0.01);
    }
    m
}

/// The custom model's experts, latent attention, windows and vision tower.
fn custom_attention(a: &CustomArch, m: &mut Model, notices: &mut Vec<Notice>) {
    if let Some(experts) = a.experts.filter(|e| *e > 1) {
        match (a.experts_active, a.expert_ffn) {
            (Some(active), Some(expert_ffn)) if active <= experts => {
                let first_dense_layers = a.dense_layers.unwrap_or(0).min(m.layers);
                m.moe = Some(Moe {
                    experts,
                    active,
                    shared: a.shared_experts.unwrap_or(0),
                    expert_ffn,
                    first_dense_layers,
                });
            }
            _ => notices.push(Notice::said("experts", Msg::new("notice.custom.moe"))),
        }
    }
    if m.moe.is_none() && m.ffn.is_none() {
        m.ffn = Some(m.hidden.saturating_mul(7) / 2);
    }
    if let Some(kv_lora_rank) = a.kv_lora {
        let mut rope_dim = a.rope_dim.unwrap_or(64);
        if rope_dim >= m.head_dim {
            let fallback = m.head_dim / 3;
            notices.push(Notice::said(
                "rope_dim",
                Msg::new("notice.custom.rope_dim")
                    .arg("head_dim", m.head_dim.to_string())
                    .arg("rope", fallback.to_string()),
            ));
            rope_dim = fallback;
        }
        m.mla = Some(Mla { kv_lora_rank, q_lora_rank: a.q_lora.unwrap_or(0), rope_dim });
    }
    if let Some(window) = a.window {
        m.swa = Some(SlidingWindow { window, local_per_global: a.global_every.map(|g| g.saturating_sub(1)) });
    }
    // Fixed-state layers need their state's size: without it they are attention layers, said.
    match (a.state_layers.filter(|n| *n > 0), a.state_size) {
        (Some(n), Some(size)) => {
            m.state = Some(StateLayers { layers: n.min(m.layers), size, mixer_params: None })
        }
        (Some(_), None) => notices.push(Notice::said("state_layers", Msg::new("notice.custom.state"))),
        _ => {}
    }
    if let Some(p) = a.vision_params_b {
        if a.image_tokens.is_some() || a.image_px.is_some() {
            m.vision = Some(Vision {
                params: p * 1e9,
                image_tokens: a.image_tokens,
                tile_px: a.image_px,
                max_tiles: a.image_tiles,
                cross_attention_layers: a.cross_layers,
                patch_px: a.patch_px,
            });
        } else {
            notices.push(Notice::said("vision_params", Msg::new("notice.custom.vision")));
        }
    }
}
