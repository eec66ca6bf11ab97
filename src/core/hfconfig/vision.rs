//! The vision tower of a vision-language `config.json` (`vision_config`):
//! its parameters and the LLM tokens an image becomes.
//!
//! Parameters of a ViT encoder (Dosovitskiy et al. 2020; CLIP, SigLIP and
//! the Qwen-VL encoders are ViTs): per layer 4·w² for Q, K, V and O plus
//! 2·w·f for the MLP (3·w·f when gated, as Qwen2.5-VL's), the patch
//! embedding channels·patch²·temporal·w, learned positions, and the
//! projector into the language model, by family (`transformers` modeling
//! code): LLaVA two linear layers w·t + t²; Qwen-VL a patch merger
//! (w·m²)² + w·m²·out per merger (the main one plus one per DeepStack
//! level of Qwen3-VL); Gemma 3 one w·t matrix; Llama 3.2 Vision
//! `vision_output_dim`·t. Biases and norms are left out (under 0.5%).

use super::super::catalog::models::Vision;
use super::fields::{Doc, HfError, Section};

pub fn tower(doc: &Doc, text_hidden: u32) -> Result<Option<Vision>, HfError> {
    let Some(v) = doc.vision()? else { return Ok(None) };
    // Qwen2-VL names the width `embed_dim` and its output `hidden_size`.
    let (width, out) = match v.whole("embed_dim")? {
        Some(w) => (w, v.whole("hidden_size")?.unwrap_or(text_hidden)),
        None => (v.must("hidden_size")?, v.whole("out_hidden_size")?.unwrap_or(text_hidden)),
    };
    let depth = match v.whole("depth")? {
        Some(d) => d,
        None => v.must("num_hidden_layers")?.saturating_add(v.whole("num_global_layers")?.unwrap_or(0)),
    };
    let w = f64::from(width);
    let ffn = match (v.whole("intermediate_size")?, v.number("mlp_ratio")?) {
        (Some(f), _) => f64::from(f),
        (None, Some(r)) => w * r,
        (None, None) => 4.0 * w,
    };
    let gated = v.str("model_type") == Some("qwen2_5_vl") || doc.root_str("model_type") == Some("qwen2_5_vl");
    let mlp = if gated { 3.0 } else { 2.0 } * w * ffn;
    let patch = v.must("patch_size")?;
    let channels =
        f64::from(v.whole("num_channels")?.or(v.whole("in_channels")?).or(v.whole("in_chans")?).unwrap_or(3));
    let temporal = f64::from(v.whole("temporal_patch_size")?.unwrap_or(1));
    let image = v.whole("image_size")?;
    let positions = match (v.whole("num_position_embeddings")?, image) {
        (Some(n), _) => f64::from(n),
        (None, Some(px)) => (f64::from(px / patch)).powi(2) + 1.0,
        (None, None) => 0.0,
    };
    let t = f64::from(text_hidden);
    let merge = v.whole("spatial_merge_size")?;
    let projector = match merge {
        Some(m) => {
            let merged = w * f64::from(m).powi(2);
            (merged * merged + merged * f64::from(out))
                * (1.0 + f64::from(v.count("deepstack_visual_indexes")))
        }
        None => projector(doc, &v, w, t)?,
    };
    let params = f64::from(depth) * (4.0 * w * w + mlp)
        + channels * f64::from(patch).powi(2) * temporal * w
        + positions * w
        + projector;
    let mut vision = Vision {
        params,
        image_tokens: None,
        tile_px: None,
        max_tiles: None,
        cross_attention_layers: None,
        patch_px: None,
    };
    if let Some(m) = merge {
        // Dynamic resolution: one LLM token per merged m×m patches.
        vision.tile_px = Some(patch.saturating_mul(m));
        vision.patch_px = Some(patch);
        return Ok(Some(vision));
    }
    let image = image.ok_or_else(|| HfError::new(&v.field("image_size"), super::fields::Problem::Missing))?;
    let side = image / patch;
    vision.tile_px = Some(image);
    if let Some(tokens) = doc.root_whole("mm_tokens_per_image")? {
        vision.image_tokens = Some(tokens);
        vision.max_tiles = Some(1);
    } else if let Some(tiles) = v.whole("max_num_tiles")? {
        // Llama 3.2 Vision: each tile's patches plus a class token, fed through cross-attention.
        vision.image_tokens = Some(side.saturating_mul(side).saturating_add(1));
        vision.max_tiles = Some(tiles);
        vision.cross_attention_layers = Some(doc.count("cross_attention_layers"));
    } else {
        // LLaVA's default feature selection drops the class token. Llama 4
        // shuffles pixels: `pixel_shuffle_ratio` r keeps r² of the patches
        // (transformers `processing_llama4.py`: (336 / 14)² ÷ round(1 / 0.5²) = 144 tokens a tile).
        let keep = v
            .number("pixel_shuffle_ratio")?
            .filter(|r| *r > 0.0 && *r <= 1.0)
            .map_or(1.0, |r| (1.0 / (r * r)).round().max(1.0));
        vision.image_tokens = Some((f64::from(side.saturating_mul(side)) / keep) as u32);
        vision.max_tiles = Some(1);
    }
    Ok(Some(vision))
}

fn projector(doc: &Doc, v: &Section, w: f64, t: f64) -> Result<f64, HfError> {
    if let Some(dim) = v.whole("vision_output_dim")? {
        return Ok(f64::from(dim) * t);
    }
    Ok(match doc.root_str("model_type") {
        Some(kind) if kind.starts_with("llava") => w * t + t * t,
        _ => w * t,
    })
}
