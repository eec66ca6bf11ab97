//! The language-model table (`static/models.csv`): architectures copied from
//! each model's published `config.json` (sources per row), plus the
//! architecture inferred for a custom model given only its size.

use super::super::table::{Table, TableError};

pub const MODEL_COLUMNS: &[&str] = &[
    "id",
    "name",
    "family",
    "params_total_b",
    "params_active_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "intermediate_size",
    "vocab_size",
    "tie_embeddings",
    "max_context",
    "moe_experts_total",
    "moe_experts_active",
    "moe_shared_experts",
    "moe_intermediate_size",
    "first_dense_layers",
    "mla_kv_lora_rank",
    "mla_q_lora_rank",
    "mla_rope_head_dim",
    "sliding_window",
    "swa_pattern",
    "state_layers",
    "state_size",
    "encoder_decoder",
    "vision_params_b",
    "image_tokens",
    "image_tile_px",
    "max_image_tiles",
    "cross_attention_layers",
    "vision_patch_px",
    "repo",
    "repo_context",
    "yarn_factor",
    "yarn_original",
    "repo_source",
    "source",
    "notes",
];

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Moe {
    pub experts: u32,
    pub active: u32,
    pub shared: u32,
    pub expert_ffn: u32,
    pub first_dense_layers: u32,
}

/// DeepSeek multi-head latent attention: the cache holds the compressed
/// latent plus the decoupled RoPE key (DeepSeek-V2 paper, §2.1).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Mla {
    pub kv_lora_rank: u32,
    pub q_lora_rank: u32,
    pub rope_dim: u32,
}

/// Sliding-window attention: `local_per_global = None` means every layer is
/// windowed; `Some(n)` means n windowed layers per full-attention layer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SlidingWindow {
    pub window: u32,
    pub local_per_global: Option<u32>,
}

/// Layers whose token mixer keeps a fixed state per sequence instead of a
/// growing KV cache: linear attention (Qwen3-Next's Gated DeltaNet) or a
/// state-space model (Mamba in Jamba, Mamba-2 in Falcon-H1 and Nemotron-H).
/// `size` is one layer's state elements per sequence, recurrent state plus
/// convolution window, as vLLM allocates them
/// (vllm-project/vllm@02d710837549a368073552333f66d714477415d2
/// `vllm/model_executor/layers/mamba/mamba_utils.py`,
/// `MambaStateShapeCalculator`): Gated DeltaNet
/// `linear_num_value_heads · linear_value_head_dim · linear_key_head_dim +
/// (2 · linear_num_key_heads · linear_key_head_dim + linear_num_value_heads ·
/// linear_value_head_dim) · (linear_conv_kernel_dim − 1)`; Mamba
/// `d_inner · d_state + d_inner · (d_conv − 1)`, `d_inner = expand ·
/// hidden`; Mamba-2 `heads · head_dim · d_state + (d_inner + 2 · groups ·
/// d_state) · (d_conv − 1)`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StateLayers {
    pub layers: u32,
    pub size: u32,
    /// Parameters of one such layer's mixer where the file says its shape
    /// (an import); `None`: counted as an attention layer's.
    pub mixer_params: Option<f32>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Vision {
    pub params: f64,
    /// LLM tokens per image, or per tile when the model tiles; `None` for
    /// dynamic-resolution encoders, where `tile_px` is the pixels per token side.
    pub image_tokens: Option<u32>,
    pub tile_px: Option<u32>,
    pub max_tiles: Option<u32>,
    /// Models whose image features enter through cross-attention keep them out
    /// of the text KV cache; these layers cache the image K/V instead.
    pub cross_attention_layers: Option<u32>,
    /// The vision transformer's patch side in pixels when it differs from
    /// the pixels per LLM token (Qwen2.5-VL: 14 px patches, merged 2×2 into
    /// one 28 px token); `None`: one patch per image token.
    pub patch_px: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Model {
    pub id: String,
    pub name: String,
    pub family: String,
    pub params_total: f64,
    pub params_active: f64,
    pub layers: u32,
    pub hidden: u32,
    pub heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
    pub ffn: Option<u32>,
    pub vocab: u32,
    pub tied_embeddings: bool,
    pub max_context: Option<u32>,
    pub moe: Option<Moe>,
    pub mla: Option<Mla>,
    pub swa: Option<SlidingWindow>,
    /// Linear-attention or state-space layers among `layers`; the others attend.
    pub state: Option<StateLayers>,
    pub encoder_decoder: bool,
    pub vision: Option<Vision>,
    /// True when the architecture was inferred from a parameter count.
    pub inferred: bool,
    pub source: String,
}

impl Vision {
    /// Tokens one image adds: fixed per tile × tiles, or for dynamic
    /// resolution (Qwen2.5-VL: one token per 28×28 px; Pixtral: per 16×16 px)
    /// the image area over the token footprint.
    pub fn tokens_per_image(&self, res: (u32, u32)) -> f64 {
        match (self.image_tokens, self.tile_px) {
            (Some(t), _) => f64::from(t) * f64::from(self.max_tiles.unwrap_or(1).max(1)),
            (None, Some(px)) if px > 0 => {
                (f64::from(res.0) / f64::from(px)).ceil() * (f64::from(res.1) / f64::from(px)).ceil()
            }
            _ => 0.0,
        }
    }

    /// Patches the vision encoder runs over for one image: the image tokens
    /// times the patches merged into each (`(tile_px / patch_px)²`).
    pub fn patches_per_image(&self, res: (u32, u32)) -> f64 {
        let merged = match (self.tile_px, self.patch_px) {
            (Some(tile), Some(patch)) if patch > 0 && self.image_tokens.is_none() => {
                (f64::from(tile) / f64::from(patch)).powi(2)
            }
            _ => 1.0,
        };
        self.tokens_per_image(res) * merged
    }
}

impl Model {
    /// Parameters of the token embedding and the output head (once if tied).
    pub fn embedding_params(&self) -> f64 {
        let one = f64::from(self.vocab) * f64::from(self.hidden);
        if self.tied_embeddings {
            one
        } else {
            2.0 * one
        }
    }

    pub fn vision_params(&self) -> f64 {
        self.vision.as_ref().map_or(0.0, |v| v.params)
    }

    /// Parameters of the transformer body (everything but embeddings and the
    /// vision tower), the part that quantized formats compress.
    pub fn body_params(&self) -> f64 {
        (self.params_total - self.embedding_params() - self.vision_params()).max(self.params_total * 0.05)
    }

    /// Body parameters read per generated token for one sequence (only the
    /// routed experts of an MoE; the output head is counted separately).
    pub fn active_body_params(&self) -> f64 {
        let head = f64::from(self.vocab) * f64::from(self.hidden);
        (self.params_active - head - self.vision_params())
            .clamp(self.params_active * 0.05, self.body_params())
    }

    /// Parameters of one routed expert in one layer (gated FFN: 3·h·f).
    pub fn expert_params(&self) -> f64 {
        self.moe.as_ref().map_or(0.0, |m| 3.0 * f64::from(self.hidden) * f64::from(m.expert_ffn))
    }

    pub fn moe_layers(&self) -> u32 {
        self.moe.as_ref().map_or(0, |m| self.layers.saturating_sub(m.first_dense_layers))
    }

    /// Layers that attend (hold a KV cache): all but the fixed-state ones.
    pub fn attention_layers(&self) -> u32 {
        self.layers.saturating_sub(self.state.as_ref().map_or(0, |s| s.layers))
    }

    /// Attention layers over the full context, and windowed layers.
    pub fn layer_split(&self) -> (u32, u32) {
        let layers = self.attention_layers();
        match &self.swa {
            None => (layers, 0),
            Some(SlidingWindow { local_per_global: None, .. }) => (0, layers),
            Some(SlidingWindow { local_per_global: Some(n), .. }) => {
                let group = n + 1;
                let global = layers / group;
                (global, layers - global)
            }
        }
    }

    /// Infers a Llama-style architecture from a parameter count alone:
    /// width ≈ 128 × depth, as in the Llama 2/3 family (7B: 32×4096,
    /// 13B: 40×5120, 405B: 126×16384; Touvron et al. 2023, Llama 3 report),
    /// so P ≈ 12·L·h² = 196 608·L³; GQA with 8 KV heads of 128, SwiGLU FFN
    /// of 3.5·h, vocabulary 128 256. Labelled `inferred` wherever shown.
    pub fn inferred_from_params(params_b: f64) -> Model {
        let params = params_b * 1e9;
        let layers = ((params / 196_608.0).cbrt().round() as u32).clamp(2, 200);
        // Heads of 128 in a multiple of 8, so 8 KV heads always divide them.
        let heads = layers.div_ceil(8).max(1) * 8;
        let hidden = heads * 128;
        let kv_heads = 8;
        Model {
            id: "custom".into(),
            name: format!("Custom {params_b}B (architecture inferred)"),
            family: "custom".into(),
            params_total: params,
            params_active: params,
            layers,
            hidden,
            heads,
            kv_heads,
            head_dim: 128,
            ffn: Some(hidden * 7 / 2),
            vocab: 128_256,
            tied_embeddings: false,
            max_context: None,
            moe: None,
            mla: None,
            swa: None,
            state: None,
            encoder_decoder: false,
            vision: None,
            inferred: true,
            source: "inferred from the parameter count (Llama-style shape)".into(),
        }
    }
}

pub fn parse_models(text: &str) -> Result<Vec<Model>, TableError> {
    let table = Table::parse("models.csv", text, MODEL_COLUMNS)?;
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        let params_total = row.positive("params_total_b")? * 1e9;
        let params_active = row.opt_f64("params_active_b")?.map_or(params_total, |v| v * 1e9);
        let layers = row.positive_u32("layers")?;
        let hidden = row.positive_u32("hidden_size")?;
        let heads = row.positive_u32("attention_heads")?;
        let kv_heads = row.positive_u32("kv_heads")?;
        if heads % kv_heads != 0 {
            return Err(row.error("kv_heads", format!("{kv_heads} does not divide {heads} attention heads")));
        }
        let head_dim = row.opt_u32("head_dim")?.unwrap_or(hidden / heads).max(1);
        let moe = match row.opt_u32("moe_experts_total")? {
            Some(experts) if experts > 1 => Some(Moe {
                experts,
                active: row.positive_u32("moe_experts_active")?,
                shared: row.opt_u32("moe_shared_experts")?.unwrap_or(0),
                expert_ffn: row.positive_u32("moe_intermediate_size")?,
                first_dense_layers: row.opt_u32("first_dense_layers")?.unwrap_or(0),
            }),
            _ => None,
        };
        let mla = match row.opt_u32("mla_kv_lora_rank")? {
            Some(rank) => Some(Mla {
                kv_lora_rank: rank,
                q_lora_rank: row.opt_u32("mla_q_lora_rank")?.unwrap_or(0),
                rope_dim: row.opt_u32("mla_rope_head_dim")?.unwrap_or(64),
            }),
            None => None,
        };
        let swa = match row.opt_u32("sliding_window")? {
            Some(window) => {
                let pattern = row.text("swa_pattern");
                let local_per_global = if pattern.is_empty() || pattern == "all" {
                    None
                } else {
                    let n = pattern
                        .strip_suffix(":1")
                        .and_then(|n| n.parse::<u32>().ok())
                        .ok_or_else(|| row.error("swa_pattern", format!("`{pattern}` is not all|N:1")))?;
                    Some(n)
                };
                Some(SlidingWindow { window, local_per_global })
            }
            None => None,
        };
        let state = match row.opt_u32("state_layers")?.filter(|n| *n > 0) {
            Some(n) if n > layers => {
                return Err(row.error("state_layers", format!("{n} is more than the {layers} layers")))
            }
            Some(n) => {
                Some(StateLayers { layers: n, size: row.positive_u32("state_size")?, mixer_params: None })
            }
            None => None,
        };
        let vision = match row.opt_f64("vision_params_b")? {
            Some(_) if row.text("image_tokens").is_empty() && row.text("image_tile_px").is_empty() => {
                return Err(row.error("image_tokens", "needs image_tokens or image_tile_px"));
            }
            Some(p) => Some(Vision {
                params: p * 1e9,
                image_tokens: row.opt_u32("image_tokens")?.filter(|t| *t > 0),
                tile_px: row.opt_u32("image_tile_px")?,
                max_tiles: row.opt_u32("max_image_tiles")?,
                cross_attention_layers: row.opt_u32("cross_attention_layers")?,
                patch_px: row.opt_u32("vision_patch_px")?,
            }),
            None => None,
        };
        out.push(Model {
            id: row.req_str("id")?,
            name: row.req_str("name")?,
            family: row.text("family").to_string(),
            params_total,
            params_active,
            layers,
            hidden,
            heads,
            kv_heads,
            head_dim,
            ffn: row.opt_u32("intermediate_size")?,
            vocab: row.positive_u32("vocab_size")?,
            tied_embeddings: row.opt_bool("tie_embeddings")?.unwrap_or(false),
            max_context: row.opt_u32("max_context")?,
            moe,
            mla,
            swa,
            state,
            encoder_decoder: row.opt_bool("encoder_decoder")?.unwrap_or(false),
            vision,
            inferred: false,
            source: row.req_source()?,
        });
    }
    Ok(out)
}
