//! Hybrid models' fixed-state layers in a `config.json`: Qwen3-Next's
//! Gated DeltaNet (linear attention) and Jamba's Mamba layers become
//! [`StateLayers`]: how many, the state each holds per sequence, and its
//! mixer's parameters. Falcon-H1 and Nemotron-H are not read yet: their
//! state-space layers are counted as attention, said in a notice.

use super::super::catalog::models::StateLayers;
use super::super::messages::Msg;
use super::super::notice::Notice;
use super::fields::{Doc, HfError};

/// The state layers of a hybrid file, `None` for a transformer.
pub fn layers(
    doc: &Doc,
    kind: &str,
    layers: u32,
    hidden: u32,
    notices: &mut Vec<Notice>,
) -> Result<Option<StateLayers>, HfError> {
    if doc.positive("linear_num_value_heads")?.is_some() {
        return gated_delta_net(doc, layers, hidden, notices).map(Some);
    }
    if kind == "jamba" || doc.positive("attn_layer_period")?.is_some() {
        return mamba(doc, layers, hidden, notices).map(Some);
    }
    if let Some(field) = ["hybrid_override_pattern", "mamba_d_ssm"].into_iter().find(|f| doc.has(f)) {
        notices.push(Notice::said(super::fields::KEY, Msg::new("notice.hf.hybrid").arg("field", field)));
    }
    Ok(None)
}

/// A field the family's configuration class defaults, with a notice when the file leaves it out.
fn or_default(
    doc: &Doc,
    key: &str,
    default: u32,
    class: &str,
    notices: &mut Vec<Notice>,
) -> Result<u32, HfError> {
    if let Some(v) = doc.positive(key)? {
        return Ok(v);
    }
    notices.push(Notice::said(
        super::fields::KEY,
        Msg::new("notice.hf.default").arg("field", key).arg("value", default.to_string()).arg("class", class),
    ));
    Ok(default)
}

/// Qwen3-Next: a layer is linear attention unless `layer_types` names it
/// `full_attention`, or, without the list, unless its index + 1 is a
/// multiple of `full_attention_interval` (default 4): 36 of 48 layers in
/// Qwen3-Next-80B-A3B (huggingface/transformers@008e574391258935f3ecc3035c882e73bbcac419
/// `src/transformers/models/qwen3_next/configuration_qwen3_next.py`,
/// `Qwen3NextConfig.__post_init__`). The layer (transformers@2ccc6cae21faaf11631efa5fb9054687ae5dc931
/// `modular_qwen3_next.py`, `Qwen3NextGatedDeltaNet`): key width
/// `kd = linear_num_key_heads · linear_key_head_dim`, value width
/// `vd = linear_num_value_heads · linear_value_head_dim`; projections
/// `in_proj_qkvz` h·(2·kd + 2·vd), `in_proj_ba` h·2·heads_v, `out_proj`
/// vd·h, a depthwise convolution over `conv_dim = 2·kd + vd` channels of
/// `linear_conv_kernel_dim` taps. State (vLLM's `gated_delta_net_state_shape`):
/// heads_v · d_v · d_k recurrent, `conv_dim · (kernel − 1)` convolution.
fn gated_delta_net(
    doc: &Doc,
    layers: u32,
    hidden: u32,
    notices: &mut Vec<Notice>,
) -> Result<StateLayers, HfError> {
    let linear = match doc.strings("layer_types") {
        Some(types) => types.iter().filter(|t| t.contains("linear")).count().try_into().unwrap_or(u32::MAX),
        None => {
            let every = or_default(doc, "full_attention_interval", 4, "Qwen3NextConfig", notices)?;
            layers - layers / every
        }
    };
    let heads_v = f64::from(doc.must("linear_num_value_heads")?);
    let heads_k = f64::from(doc.must("linear_num_key_heads")?);
    let d_k = f64::from(doc.must("linear_key_head_dim")?);
    let d_v = f64::from(doc.must("linear_value_head_dim")?);
    let kernel = f64::from(or_default(doc, "linear_conv_kernel_dim", 4, "Qwen3NextConfig", notices)?);
    let (kd, vd, h) = (heads_k * d_k, heads_v * d_v, f64::from(hidden));
    let conv_dim = 2.0 * kd + vd;
    let size = heads_v * d_v * d_k + conv_dim * (kernel - 1.0);
    let mixer =
        h * (2.0 * kd + 2.0 * vd) + h * 2.0 * heads_v + conv_dim * kernel + vd * h + 2.0 * heads_v + d_v;
    Ok(StateLayers { layers: linear.min(layers), size: whole(size), mixer_params: Some(mixer as f32) })
}

/// Jamba: layer i attends when `i % attn_layer_period == attn_layer_offset`
/// (defaults 8 and 4), the others are Mamba
/// (huggingface/transformers@008f5c8c29be84d4721dc6d1e0fcd72300580be4
/// `src/transformers/models/jamba/configuration_jamba.py`,
/// `JambaConfig.layers_block_type`); `d_inner = mamba_expand · hidden`,
/// `dt_rank = mamba_dt_rank` or ⌈hidden / 16⌉. The Mamba mixer
/// (`modeling_jamba.py`, `JambaMambaMixer`): `in_proj` h·2·d_inner, a
/// depthwise convolution of `mamba_d_conv` taps, `x_proj`
/// d_inner·(dt_rank + 2·d_state), `dt_proj` dt_rank·d_inner, `A_log`
/// d_inner·d_state, `D`, `out_proj` d_inner·h. State (vLLM's
/// `mamba1_state_shape`): d_inner·d_state plus d_inner·(d_conv − 1).
fn mamba(doc: &Doc, layers: u32, hidden: u32, notices: &mut Vec<Notice>) -> Result<StateLayers, HfError> {
    let attention = match doc.strings("layers_block_type") {
        Some(types) => {
            types.iter().filter(|t| t.contains("attention")).count().try_into().unwrap_or(u32::MAX)
        }
        None => {
            let period = or_default(doc, "attn_layer_period", 8, "JambaConfig", notices)?;
            let offset = doc.whole("attn_layer_offset")?.unwrap_or(4);
            (0..layers).filter(|i| i % period == offset).count().try_into().unwrap_or(u32::MAX)
        }
    };
    let h = f64::from(hidden);
    let d_state = f64::from(or_default(doc, "mamba_d_state", 16, "JambaConfig", notices)?);
    let d_conv = f64::from(or_default(doc, "mamba_d_conv", 4, "JambaConfig", notices)?);
    let d_inner = f64::from(or_default(doc, "mamba_expand", 2, "JambaConfig", notices)?) * h;
    let dt_rank = doc.positive("mamba_dt_rank")?.map_or((h / 16.0).ceil(), f64::from);
    let size = d_inner * d_state + d_inner * (d_conv - 1.0);
    let mixer = h * 2.0 * d_inner
        + d_inner * d_conv
        + d_inner * (dt_rank + 2.0 * d_state)
        + dt_rank * d_inner
        + d_inner * d_state
        + d_inner
        + d_inner * h;
    Ok(StateLayers {
        layers: layers.saturating_sub(attention),
        size: whole(size),
        mixer_params: Some(mixer as f32),
    })
}

fn whole(x: f64) -> u32 {
    x.round().clamp(0.0, f64::from(u32::MAX)) as u32
}
