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

/// The whole-number keys: their range and the field each sets (a table,
/// not one `match` arm per key: the page's Wasm carries one copy of the
/// read-and-check code).
#[rustfmt::skip]
#[allow(clippy::type_complexity)]
const INTS: &[(&str, u32, u32, fn(&mut CustomArch, u32))] = &[
    ("layers", 1, 1000, |a, v| a.layers = Some(v)),
    ("hidden", 64, 131_072, |a, v| a.hidden = Some(v)),
    ("heads", 1, 1024, |a, v| a.heads = Some(v)),
    ("kv_heads", 1, 1024, |a, v| a.kv_heads = Some(v)),
    ("head_dim", 8, 1024, |a, v| a.head_dim = Some(v)),
    ("ffn", 64, 1_048_576, |a, v| a.ffn = Some(v)),
    ("vocab", 2, 10_000_000, |a, v| a.vocab = Some(v)),
    ("experts", 1, 4096, |a, v| a.experts = Some(v)),
    ("experts_active", 1, 4096, |a, v| a.experts_active = Some(v)),
    ("shared_experts", 0, 64, |a, v| a.shared_experts = Some(v)),
    ("expert_ffn", 16, 1_048_576, |a, v| a.expert_ffn = Some(v)),
    ("dense_layers", 0, 1000, |a, v| a.dense_layers = Some(v)),
    ("kv_lora", 16, 65_536, |a, v| a.kv_lora = Some(v)),
    ("q_lora", 0, 65_536, |a, v| a.q_lora = Some(v)),
    ("rope_dim", 0, 1024, |a, v| a.rope_dim = Some(v)),
    ("window", 1, 100_000_000, |a, v| a.window = Some(v)),
    ("global_every", 1, 1000, |a, v| a.global_every = Some(v)),
    ("context", 1, 100_000_000, |a, v| a.context = Some(v)),
    ("image_tokens", 1, 1_000_000, |a, v| a.image_tokens = Some(v)),
    ("image_px", 1, 8192, |a, v| a.image_px = Some(v)),
    ("image_tiles", 1, 256, |a, v| a.image_tiles = Some(v)),
    ("patch_px", 1, 1024, |a, v| a.patch_px = Some(v)),
    ("cross_layers", 0, 1000, |a, v| a.cross_layers = Some(v)),
];

/// Applies one architecture key; an error leaves `a` untouched.
pub(super) fn apply(a: &mut CustomArch, key: &str, value: &str) -> Result<(), Notice> {
    match key {
        "params" => a.params_b = Some(num(value, key, 0.01, 20_000.0)?),
        "tied" => a.tied = Some(flag(value, key)?),
        "vision_params" => a.vision_params_b = Some(num(value, key, 0.0001, 100.0)?),
        _ => {
            let (_, min, max, set) = INTS.iter().find(|(k, ..)| *k == key).ok_or_else(|| Notice::unknown_key(key))?;
            set(a, int(value, key, *min, *max)?);
        }
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
