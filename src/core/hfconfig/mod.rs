//! Import of a Hugging Face `config.json`: the file becomes the same
//! architecture record the catalog holds ([`Model`] with its MoE, latent
//! attention, sliding windows and vision tower), and that record becomes the
//! link's `model=custom` keys, so a shared link reproduces the answer
//! without the file.
//!
//! Families read: Llama, Mistral, Qwen2/Qwen3 dense; Mixtral, Qwen2-MoE and
//! Qwen3-MoE (shared experts), DeepSeek-V2/V3 and Kimi K2 (MLA, shared
//! experts, leading dense layers); Llama 4 (a shared expert in every MoE
//! layer, interleaved dense layers); Gemma 2/3 (sliding and global layers);
//! gpt-oss (MoE with alternating sliding layers); vision-language configs
//! with `text_config` and `vision_config` (LLaVA, Qwen-VL, Gemma 3, Llama
//! 3.2 Vision); hybrids with linear-attention or state-space layers
//! (Qwen3-Next, Jamba: `state.rs`). Field names are those of the `transformers` configuration
//! classes of each family.
//!
//! Never panics and never guesses silently: a file that is not JSON, a
//! missing or non-numeric field gives an [`HfError`] naming the field (the
//! caller keeps its last good architecture); a default taken from the
//! family's configuration class is said in a notice.

mod fields;
mod state;
mod vision;

use super::catalog::models::{Mla, Moe, SlidingWindow};
use super::catalog::Model;
use super::config::{Config, CustomArch, Task};
use super::link;
use super::messages::Msg;
use super::notice::{Notice, NoticeKind};
use fields::Doc;

pub use fields::{HfError, Problem, KEY};

/// A parsed file: the architecture, and what was filled in from defaults.
#[derive(Debug, Clone)]
pub struct Import {
    pub model: Model,
    pub notices: Vec<Notice>,
}

/// Parses a `config.json` into an architecture.
pub fn parse(text: &str) -> Result<Import, HfError> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| HfError::new("(file)", Problem::Json(e.to_string())))?;
    let doc = Doc::new(&value)?;
    let mut notices = Vec::new();
    let model = architecture(&doc, &mut notices)?;
    Ok(Import { model, notices })
}

/// The model type the text model declares (`llama`, `qwen3_moe`, …).
fn model_type<'a>(doc: &Doc<'a>) -> &'a str {
    doc.text_str("model_type").or_else(|| doc.root_str("model_type")).unwrap_or("")
}

/// Llama 4's text model (`llama4_text`, inside a `llama4` file).
fn is_llama4(kind: &str) -> bool {
    kind.starts_with("llama4")
}

fn architecture(doc: &Doc, notices: &mut Vec<Notice>) -> Result<Model, HfError> {
    let kind = model_type(doc);
    let layers = doc.required("num_hidden_layers", notices)?;
    let hidden = doc.required("hidden_size", notices)?;
    let heads = doc.required("num_attention_heads", notices)?;
    let kv_heads = doc.positive("num_key_value_heads")?.unwrap_or(heads);
    if heads % kv_heads != 0 {
        return Err(doc.bad("num_key_value_heads", Problem::Divides { heads }));
    }
    let vocab = doc.required("vocab_size", notices)?;
    let mla = match doc.positive("kv_lora_rank")? {
        Some(kv_lora_rank) => {
            let rope_dim = doc.must("qk_rope_head_dim")?;
            Some(Mla { kv_lora_rank, q_lora_rank: doc.whole("q_lora_rank")?.unwrap_or(0), rope_dim })
        }
        None => None,
    };
    let head_dim = match &mla {
        // The query/key width of latent attention: the no-RoPE part plus the RoPE part.
        Some(m) => doc.must("qk_nope_head_dim")?.saturating_add(m.rope_dim),
        None => doc.positive("head_dim")?.unwrap_or((hidden / heads).max(1)),
    };
    let moe = experts(doc, layers, kind)?;
    let dense_ffn_needed = moe.as_ref().is_none_or(|m| m.first_dense_layers > 0);
    // Llama 4's dense layers are `intermediate_size_mlp` wide; its
    // `intermediate_size` is the expert's (transformers
    // `Llama4TextDecoderLayer`: `Llama4TextMLP(config, intermediate_size=config.intermediate_size_mlp)`).
    let ffn_key =
        if is_llama4(kind) && moe.is_some() { "intermediate_size_mlp" } else { "intermediate_size" };
    let ffn = if dense_ffn_needed { Some(doc.required(ffn_key, notices)?) } else { None };
    let swa = sliding_window(doc, kind, layers)?;
    let state = state::layers(doc, kind, layers, hidden, notices)?;
    // Gemma ties its output head to the embedding by default (Gemma2Config,
    // Gemma3TextConfig); the other families' classes default to untied.
    let tied = doc.flag("tie_word_embeddings")?.unwrap_or(kind.starts_with("gemma"));
    let max_context = doc.positive("max_position_embeddings")?;
    let vision = vision::tower(doc, hidden)?;
    let name = doc
        .root_str("_name_or_path")
        .or_else(|| doc.text_str("_name_or_path"))
        .or_else(|| doc.architecture())
        .unwrap_or(if kind.is_empty() { "model" } else { kind });
    let mut model = Model {
        id: "custom".into(),
        name: format!("{name} (config.json)"),
        family: kind.to_string(),
        params_total: 0.0,
        params_active: 0.0,
        layers,
        hidden,
        heads,
        kv_heads,
        head_dim,
        ffn,
        vocab,
        tied_embeddings: tied,
        max_context,
        moe,
        mla,
        swa,
        state,
        encoder_decoder: false,
        vision,
        inferred: false,
        source: "imported config.json".into(),
    };
    let count = model.counted_params();
    model.params_total = count.total;
    model.params_active = count.active;
    Ok(model)
}

/// Mixture of experts under each family's names: `num_local_experts`
/// (Mixtral, gpt-oss: the expert FFN is `intermediate_size`),
/// `num_experts` + `moe_intermediate_size` (Qwen2/3-MoE, shared experts as
/// `shared_expert_intermediate_size`, dense layers as `mlp_only_layers`),
/// `n_routed_experts` (DeepSeek, Kimi: `n_shared_experts`,
/// `first_k_dense_replace`); Llama 4 (`num_local_experts`, one MoE layer in
/// `interleave_moe_layer_step`, and a shared expert of the expert's width in
/// every MoE layer that its config does not name: transformers
/// `modeling_llama4.py`, `Llama4TextMoe.__init__`:
/// `self.shared_expert = Llama4TextMLP(config)`).
fn experts(doc: &Doc, layers: u32, kind: &str) -> Result<Option<Moe>, HfError> {
    let (experts, ffn_key) = if let (Some(e), "jamba") = (doc.positive("num_experts")?, kind) {
        // Jamba's experts are `intermediate_size` wide, as its dense FFNs
        // (`JambaSparseMoeBlock`: `JambaMLP(config)` per expert).
        (e, "intermediate_size")
    } else if let Some(e) = doc.positive("n_routed_experts")? {
        (e, "moe_intermediate_size")
    } else if let Some(e) = doc.positive("num_local_experts")? {
        (e, "intermediate_size")
    } else if let Some(e) = doc.positive("num_experts")? {
        (e, "moe_intermediate_size")
    } else {
        return Ok(None);
    };
    if experts < 2 {
        return Ok(None);
    }
    let active = match doc.positive("num_experts_per_tok")? {
        Some(k) => k,
        None => doc.must("experts_per_token").map_err(|_| doc.missing("num_experts_per_tok"))?,
    };
    if active > experts {
        return Err(doc.bad("num_experts_per_tok", Problem::AtMost { most: experts }));
    }
    let expert_ffn = doc.must(ffn_key)?;
    let shared = match doc.whole("n_shared_experts")? {
        Some(s) => s,
        None if is_llama4(kind) => 1,
        // A shared expert of k expert widths counts as k shared experts.
        None => doc
            .whole("shared_expert_intermediate_size")?
            .map_or(0, |w| (f64::from(w) / f64::from(expert_ffn)).round() as u32),
    };
    let mut dense = doc.whole("first_k_dense_replace")?.unwrap_or(0);
    dense = dense.saturating_add(doc.count("mlp_only_layers"));
    // One MoE layer in `step` (DeepSeek `moe_layer_freq`, Qwen `decoder_sparse_step`).
    // Jamba: one in `expert_layer_period` (`JambaConfig.layers_num_experts`).
    let step = doc
        .positive("moe_layer_freq")?
        .or(doc.positive("decoder_sparse_step")?)
        .or(doc.positive("interleave_moe_layer_step")?)
        .or(doc.positive("expert_layer_period")?)
        .unwrap_or(1);
    if step > 1 {
        let rest = layers.saturating_sub(dense);
        dense = dense.saturating_add(rest - rest / step);
    }
    Ok(Some(Moe { experts, active, shared, expert_ffn, first_dense_layers: dense.min(layers) }))
}

/// Sliding-window layers: `layer_types` (gpt-oss, newer Gemma 3 files)
/// counts them; `sliding_window_pattern` N (Gemma 3) makes every Nth
/// layer global; Gemma 2 alternates (Gemma 2 report); otherwise a window
/// applies to every layer (Mistral, Phi-3) unless `use_sliding_window` is
/// false (Qwen2/Qwen3).
fn sliding_window(doc: &Doc, kind: &str, layers: u32) -> Result<Option<SlidingWindow>, HfError> {
    if is_llama4(kind) {
        return chunked_attention(doc, layers);
    }
    let Some(window) = doc.positive("sliding_window")? else { return Ok(None) };
    if doc.flag("use_sliding_window")? == Some(false) {
        return Ok(None);
    }
    if let Some((sliding, full)) = doc.layer_types() {
        return Ok(match (sliding, full) {
            (0, _) => None,
            (_, 0) => Some(SlidingWindow { window, local_per_global: None }),
            (s, f) => Some(SlidingWindow {
                window,
                local_per_global: Some(((f64::from(s) / f64::from(f)).round() as u32).max(1)),
            }),
        });
    }
    let pattern = match doc.positive("sliding_window_pattern")? {
        Some(p) => Some(p),
        None => doc.positive("_sliding_window_pattern")?,
    };
    let global_every = match pattern {
        Some(p) => Some(p),
        None if kind == "gemma2" => Some(2),
        None => None,
    };
    let local_per_global = global_every.map(|g| g.saturating_sub(1).min(layers));
    Ok(Some(SlidingWindow { window, local_per_global }))
}

/// Llama 4's chunked local attention: the RoPE layers attend within
/// chunks of `attention_chunk_size` tokens, the NoPE layers over the whole
/// context. `no_rope_layers` lists them (1 = RoPE); absent, every
/// `no_rope_layer_interval`-th layer (default 4) is NoPE, and a RoPE layer
/// is `"chunked_attention"` (huggingface/transformers@008e574391258935f3ecc3035c882e73bbcac419
/// `src/transformers/models/llama4/configuration_llama4.py`,
/// `Llama4TextConfig.__post_init__`): Scout and Maverick, 36 chunked
/// layers and 12 full ones. vLLM: `self.nope = self.no_rope_layers[self.layer_idx] == 0`,
/// the other layers chunked (vllm-project/vllm@0121c95efe85a732d1f5c1ade6c5434152b76276
/// `vllm/model_executor/models/llama4.py`, `use_irope=not self.nope`), and
/// a chunked layer's cache holds the chunk, not the context
/// (vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18
/// `vllm/v1/kv_cache_interface.py`, `ChunkedLocalAttentionSpec`: at most
/// `attention_chunk_size + max_num_batched_tokens` tokens, never more than
/// `max_model_len`) — what a sliding window of the chunk's length holds,
/// so the chunk becomes the window. (A chunked layer attends to w/2 tokens
/// on average where a window attends to w: its attention time is
/// over-stated, never its memory under-stated.)
fn chunked_attention(doc: &Doc, layers: u32) -> Result<Option<SlidingWindow>, HfError> {
    let Some(window) = doc.positive("attention_chunk_size")? else { return Ok(None) };
    let every = doc.positive("no_rope_layer_interval")?.unwrap_or(4);
    let (chunked, full) = doc
        .ones("no_rope_layers")
        .filter(|(c, f)| c.saturating_add(*f) > 0)
        .unwrap_or((layers - layers / every, layers / every));
    Ok(match (chunked, full) {
        (0, _) => None,
        (_, 0) => Some(SlidingWindow { window, local_per_global: None }),
        (c, f) => Some(SlidingWindow {
            window,
            local_per_global: Some(((f64::from(c) / f64::from(f)).round() as u32).max(1)),
        }),
    })
}

/// The link keys that describe an architecture (`model=custom` plus these
/// reproduces it); parameters in billions to the nearest thousand.
pub fn to_custom(m: &Model) -> CustomArch {
    let moe = m.moe.as_ref();
    let v = m.vision.as_ref();
    CustomArch {
        params_b: Some((m.params_total / 1e6).round() / 1e3),
        layers: Some(m.layers),
        hidden: Some(m.hidden),
        heads: Some(m.heads),
        kv_heads: Some(m.kv_heads),
        head_dim: Some(m.head_dim),
        ffn: m.ffn,
        vocab: Some(m.vocab),
        experts: moe.map(|x| x.experts),
        experts_active: moe.map(|x| x.active),
        shared_experts: moe.map(|x| x.shared).filter(|s| *s > 0),
        expert_ffn: moe.map(|x| x.expert_ffn),
        dense_layers: moe.map(|x| x.first_dense_layers).filter(|d| *d > 0),
        kv_lora: m.mla.as_ref().map(|x| x.kv_lora_rank),
        q_lora: m.mla.as_ref().map(|x| x.q_lora_rank),
        rope_dim: m.mla.as_ref().map(|x| x.rope_dim),
        window: m.swa.as_ref().map(|s| s.window),
        global_every: m.swa.as_ref().and_then(|s| s.local_per_global).map(|n| n + 1),
        state_layers: m.state.as_ref().map(|s| s.layers),
        state_size: m.state.as_ref().map(|s| s.size),
        tied: Some(m.tied_embeddings),
        context: m.max_context,
        vision_params_b: v.map(|x| (x.params / 1e6).round() / 1e3),
        image_tokens: v.and_then(|x| x.image_tokens),
        image_px: v.and_then(|x| x.tile_px),
        image_tiles: v.and_then(|x| x.max_tiles),
        patch_px: v.and_then(|x| x.patch_px),
        cross_layers: v.and_then(|x| x.cross_attention_layers),
    }
}

/// Imports a file into a configuration: `model=custom` and the
/// architecture keys (replacing any earlier ones), with the notices about
/// defaults; a generation task becomes serving. On a bad file, the notice
/// naming the field, and the caller keeps its configuration.
pub fn import(cfg: &Config, text: &str) -> Result<(Config, Vec<Notice>), Notice> {
    let parsed = parse(text).map_err(|e| e.notice())?;
    let mut next = cfg.clone();
    next.model = Some("custom".into());
    next.custom = to_custom(&parsed.model);
    if next.task == Task::Generate {
        next.task = Task::Serve;
    }
    // A value no link can carry would not reproduce: refuse the file.
    let (_, refused) = link::decode(&link::encode(&next));
    if let Some(n) = refused.into_iter().find(|n| link::is_arch_key(&n.key)) {
        let value = match n.kind {
            NoticeKind::BadValue { value, .. } => value,
            _ => String::new(),
        };
        return Err(Notice::said(
            KEY,
            Msg::new("notice.hf.range").arg("key", n.key.clone()).arg("value", value),
        ));
    }
    Ok((next, parsed.notices))
}

impl HfError {
    /// The notice for the page and the CLI, naming the field.
    pub fn notice(&self) -> Notice {
        let msg = match &self.problem {
            Problem::Json(why) => Msg::new("notice.hf.json").arg("why", why.clone()),
            Problem::NotObject => Msg::new("notice.hf.object"),
            Problem::Missing => Msg::new("notice.hf.missing").arg("field", self.field.clone()),
            Problem::NotWhole { value } => {
                Msg::new("notice.hf.whole").arg("field", self.field.clone()).arg("value", value.clone())
            }
            Problem::NotBool { value } => {
                Msg::new("notice.hf.bool").arg("field", self.field.clone()).arg("value", value.clone())
            }
            Problem::NotSection { value } => {
                Msg::new("notice.hf.section").arg("field", self.field.clone()).arg("value", value.clone())
            }
            Problem::Divides { heads } => {
                Msg::new("notice.hf.divides").arg("field", self.field.clone()).arg("heads", heads.to_string())
            }
            Problem::AtMost { most } => {
                Msg::new("notice.hf.at_most").arg("field", self.field.clone()).arg("most", most.to_string())
            }
        };
        Notice::said(KEY, msg)
    }
}
