//! The architecture keys of `model=custom`: a dense shape (`layers` …
//! `vocab`), mixture of experts, latent attention, sliding windows, the
//! context length and a vision tower. Importing a Hugging Face
//! `config.json` fills exactly these keys, so a shared link reproduces the
//! answer without the file. Never reads a catalog and never infers.

use super::super::config::CustomArch;
use super::{flag, fmt_num, int, num, Notice};

/// The keys, in the order links write them.
#[rustfmt::skip]
pub const KEYS: &[&str] = &[
    "params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "experts", "experts_active",
    "shared_experts", "expert_ffn", "dense_layers", "kv_lora", "q_lora", "rope_dim", "window", "global_every", "tied",
    "context", "vision_params", "image_tokens", "image_px", "image_tiles", "patch_px", "cross_layers",
];

/// Applies one architecture key; an error leaves `a` untouched.
pub(super) fn apply(a: &mut CustomArch, key: &str, value: &str) -> Result<(), Notice> {
    match key {
        "params" => a.params_b = Some(num(value, key, 0.01, 20_000.0)?),
        "layers" => a.layers = Some(int(value, key, 1, 1000)?),
        "hidden" => a.hidden = Some(int(value, key, 64, 131_072)?),
        "heads" => a.heads = Some(int(value, key, 1, 1024)?),
        "kv_heads" => a.kv_heads = Some(int(value, key, 1, 1024)?),
        "head_dim" => a.head_dim = Some(int(value, key, 8, 1024)?),
        "ffn" => a.ffn = Some(int(value, key, 64, 1_048_576)?),
        "vocab" => a.vocab = Some(int(value, key, 2, 10_000_000)?),
        "experts" => a.experts = Some(int(value, key, 1, 4096)?),
        "experts_active" => a.experts_active = Some(int(value, key, 1, 4096)?),
        "shared_experts" => a.shared_experts = Some(int(value, key, 0, 64)?),
        "expert_ffn" => a.expert_ffn = Some(int(value, key, 16, 1_048_576)?),
        "dense_layers" => a.dense_layers = Some(int(value, key, 0, 1000)?),
        "kv_lora" => a.kv_lora = Some(int(value, key, 16, 65_536)?),
        "q_lora" => a.q_lora = Some(int(value, key, 0, 65_536)?),
        "rope_dim" => a.rope_dim = Some(int(value, key, 0, 1024)?),
        "window" => a.window = Some(int(value, key, 1, 100_000_000)?),
        "global_every" => a.global_every = Some(int(value, key, 1, 1000)?),
        "tied" => a.tied = Some(flag(value, key)?),
        "context" => a.context = Some(int(value, key, 1, 100_000_000)?),
        "vision_params" => a.vision_params_b = Some(num(value, key, 0.0001, 100.0)?),
        "image_tokens" => a.image_tokens = Some(int(value, key, 1, 1_000_000)?),
        "image_px" => a.image_px = Some(int(value, key, 1, 8192)?),
        "image_tiles" => a.image_tiles = Some(int(value, key, 1, 256)?),
        "patch_px" => a.patch_px = Some(int(value, key, 1, 1024)?),
        "cross_layers" => a.cross_layers = Some(int(value, key, 0, 1000)?),
        _ => return Err(Notice::unknown_key(key)),
    }
    Ok(())
}

/// Writes every architecture key that is set, in [`KEYS`] order.
pub(super) fn encode(a: &CustomArch, put: &mut impl FnMut(&'static str, String)) {
    if let Some(v) = a.params_b {
        put("params", fmt_num(v));
    }
    let ints = [
        ("layers", a.layers),
        ("hidden", a.hidden),
        ("heads", a.heads),
        ("kv_heads", a.kv_heads),
        ("head_dim", a.head_dim),
        ("ffn", a.ffn),
        ("vocab", a.vocab),
        ("experts", a.experts),
        ("experts_active", a.experts_active),
        ("shared_experts", a.shared_experts),
        ("expert_ffn", a.expert_ffn),
        ("dense_layers", a.dense_layers),
        ("kv_lora", a.kv_lora),
        ("q_lora", a.q_lora),
        ("rope_dim", a.rope_dim),
        ("window", a.window),
        ("global_every", a.global_every),
    ];
    for (k, v) in ints {
        if let Some(v) = v {
            put(k, v.to_string());
        }
    }
    if let Some(t) = a.tied {
        put("tied", if t { "1" } else { "0" }.into());
    }
    if let Some(v) = a.context {
        put("context", v.to_string());
    }
    if let Some(v) = a.vision_params_b {
        put("vision_params", fmt_num(v));
    }
    for (k, v) in
        [("image_tokens", a.image_tokens), ("image_px", a.image_px), ("image_tiles", a.image_tiles), ("patch_px", a.patch_px), ("cross_layers", a.cross_layers)]
    {
        if let Some(v) = v {
            put(k, v.to_string());
        }
    }
}
