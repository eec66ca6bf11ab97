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

/// The whole-number keys: their range, the field each sets and reads (a table,
/// not one `match` arm per key: the page's Wasm carries one copy of the
/// read-and-check code).
#[rustfmt::skip]
#[allow(clippy::type_complexity)]
const INTS: &[(&str, u32, u32, fn(&mut CustomArch, u32), fn(&CustomArch) -> Option<u32>)] = &[
    ("layers", 1, 1000, |a, v| a.layers = Some(v), |a| a.layers),
    ("hidden", 64, 131_072, |a, v| a.hidden = Some(v), |a| a.hidden),
    ("heads", 1, 1024, |a, v| a.heads = Some(v), |a| a.heads),
    ("kv_heads", 1, 1024, |a, v| a.kv_heads = Some(v), |a| a.kv_heads),
    ("head_dim", 8, 1024, |a, v| a.head_dim = Some(v), |a| a.head_dim),
    ("ffn", 64, 1_048_576, |a, v| a.ffn = Some(v), |a| a.ffn),
    ("vocab", 2, 10_000_000, |a, v| a.vocab = Some(v), |a| a.vocab),
    ("experts", 1, 4096, |a, v| a.experts = Some(v), |a| a.experts),
    ("experts_active", 1, 4096, |a, v| a.experts_active = Some(v), |a| a.experts_active),
    ("shared_experts", 0, 64, |a, v| a.shared_experts = Some(v), |a| a.shared_experts),
    ("expert_ffn", 16, 1_048_576, |a, v| a.expert_ffn = Some(v), |a| a.expert_ffn),
    ("dense_layers", 0, 1000, |a, v| a.dense_layers = Some(v), |a| a.dense_layers),
    ("kv_lora", 16, 65_536, |a, v| a.kv_lora = Some(v), |a| a.kv_lora),
    ("q_lora", 0, 65_536, |a, v| a.q_lora = Some(v), |a| a.q_lora),
    ("rope_dim", 0, 1024, |a, v| a.rope_dim = Some(v), |a| a.rope_dim),
    ("window", 1, 100_000_000, |a, v| a.window = Some(v), |a| a.window),
    ("global_every", 1, 1000, |a, v| a.global_every = Some(v), |a| a.global_every),
    ("context", 1, 100_000_000, |a, v| a.context = Some(v), |a| a.context),
    ("image_tokens", 1, 1_000_000, |a, v| a.image_tokens = Some(v), |a| a.image_tokens),
    ("image_px", 1, 8192, |a, v| a.image_px = Some(v), |a| a.image_px),
    ("image_tiles", 1, 256, |a, v| a.image_tiles = Some(v), |a| a.image_tiles),
    ("patch_px", 1, 1024, |a, v| a.patch_px = Some(v), |a| a.patch_px),
    ("cross_layers", 0, 1000, |a, v| a.cross_layers = Some(v), |a| a.cross_layers),
];

/// Applies one architecture key; an error leaves `a` untouched.
pub(super) fn apply(a: &mut CustomArch, key: &str, value: &str) -> Result<(), Notice> {
    match key {
        "params" => a.params_b = Some(num(value, key, 0.01, 20_000.0)?),
        "tied" => a.tied = Some(flag(value, key)?),
        "vision_params" => a.vision_params_b = Some(num(value, key, 0.0001, 100.0)?),
        _ => {
            let (_, min, max, set, _) = INTS.iter().find(|(k, ..)| *k == key).ok_or_else(|| Notice::unknown_key(key))?;
            set(a, int(value, key, *min, *max)?);
        }
    }
    Ok(())
}

/// The text a link writes for one architecture key; `None` where it is unset.
pub(super) fn value(a: &CustomArch, key: &str) -> Option<String> {
    match key {
        "params" => a.params_b.map(fmt_num),
        "tied" => a.tied.map(|t| if t { "1" } else { "0" }.into()),
        "vision_params" => a.vision_params_b.map(fmt_num),
        _ => INTS.iter().find(|(k, ..)| *k == key).and_then(|(.., get)| get(a)).map(|v| v.to_string()),
    }
}
