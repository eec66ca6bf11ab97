//! Speculative decoding (`spec`): a cheap drafter proposes `k` tokens per
//! sequence, the model verifies them in one step `k + 1` tokens wide, and
//! keeps the longest accepted run plus one token of its own. With each
//! drafted token accepted with probability α (independently), a step yields
//! E = (1 − α^(k+1)) / (1 − α) tokens (Leviathan, Kalman & Matias 2023,
//! "Fast Inference from Transformers via Speculative Decoding", §3.1, eq. 1;
//! Chen et al. 2023, "Accelerating Large Language Model Decoding with
//! Speculative Sampling", §2).
//!
//! Time per generated token is (verify step + k draft passes) / E. The
//! verify step is the serving roofline's own decode step with k + 1 tokens
//! per sequence (`ServeJob::pass_s`): weights are read once, so at a small
//! batch it costs about what a one-token step costs; its matmuls do k + 1
//! times the work, so once the batch makes the step compute-bound it costs
//! k + 1 times as much and speculation is a loss. The draft passes are the
//! same roofline on the drafter (an EAGLE head, the model's MTP layer or a
//! draft model; n-gram lookup runs on the host and costs no GPU time).
//!
//! Memory: the drafter's weights and its own KV cache per sequence.

use std::sync::Arc;

use super::super::catalog::Model;
use super::super::config::{Config, Engine, Spec};
use super::super::precision::{self, WeightFormat};
use super::arch;

/// The drafter of one configuration, resolved once.
#[derive(Debug, Clone)]
pub struct Drafter {
    pub method: Spec,
    /// Tokens drafted per step.
    pub k: f64,
    /// Chance each drafted token is accepted.
    pub alpha: f64,
    /// The model the draft passes run (`None`: n-gram lookup on the host).
    pub model: Option<Model>,
    pub format: WeightFormat,
    /// Parameters the drafter holds beside the target's (an MTP layer or an
    /// EAGLE-1 head shares the target's embedding and output head).
    pub stored_params: f64,
}

/// Expected tokens per verify step for acceptance `alpha` and `k` drafted
/// tokens (Leviathan et al. 2023, eq. 1): `k + 1` when every draft is accepted.
pub fn expected_tokens(alpha: f64, k: f64) -> f64 {
    if alpha >= 1.0 {
        return k + 1.0;
    }
    (1.0 - alpha.clamp(0.0, 1.0).powf(k + 1.0)) / (1.0 - alpha.clamp(0.0, 1.0))
}

/// Tokens drafted per step where the link names none. EAGLE: 3 (vLLM PR
/// #16937's sweep on Llama 3.1 8B, H100, batch 1: K = 2–4 best, K = 7
/// slower; the Red Hat gpt-oss study finds "2-3 draft tokens to be the sweet
/// spot"); MTP: 1, the one MTP module DeepSeek-V3 trains and evaluates
/// (technical report §2.2, §5.4.3); a draft model and n-gram 5, as vLLM's
/// docs examples draft (docs.vllm.ai v0.9.1 features/spec_decode:
/// `num_speculative_tokens: 5` with facebook/opt-125m and with n-gram
/// lookup; TensorRT-LLM blog 7's n-gram runs draft 5 too).
pub fn default_tokens(m: Spec) -> u32 {
    match m {
        Spec::Mtp => 1,
        Spec::Eagle => 3,
        Spec::Off | Spec::Draft | Spec::Ngram => 5,
    }
}

/// Acceptance per drafted token where the link names none, solved from the
/// mean acceptance length AL = E(α, k) of the fit sources
/// (`tests/data/spec_decoding.csv`, fit part; `docs/speculative-decoding.md`):
/// - EAGLE (EAGLE-3 heads, chain drafting): vLLM issue #20780, Llama 3.1 8B
///   on MT-bench, AL 3.08 at K = 4 (α = 0.755) and 3.54 at K = 7 (α = 0.744): 0.75;
/// - MTP: DeepSeek-V3 technical report §5.4.3, "acceptance rate of the
///   second token prediction ranges between 85% and 90%": 0.875;
/// - n-gram: TensorRT-LLM tech blog 7 (@7274a59), Llama 4 Scout on
///   multi-turn chat, AL 1.66 with 5 drafted tokens: α = 0.40;
/// - a draft model: none. How well a small model predicts a large one
///   depends on the pair, and no fit source states it: without
///   `spec_accept` it is not planned (unknown is not zero; a notice).
pub fn default_accept(m: Spec) -> Option<f64> {
    match m {
        Spec::Eagle => Some(0.75),
        Spec::Mtp => Some(0.875),
        Spec::Ngram => Some(0.40),
        Spec::Off | Spec::Draft => None,
    }
}

/// Whether the model ships multi-token-prediction layers: DeepSeek-V3/R1
/// (`num_nextn_predict_layers: 1`, the 14B MTP module beside the 671B main
/// model, huggingface.co/deepseek-ai/DeepSeek-V3 README "685B … 671B of the
/// Main Model weights and 14B of the Multi-Token Prediction (MTP) Module
/// weights") and Qwen3-Next (`mtp_num_hidden_layers: 1` in its config.json;
/// vLLM method `qwen3_next_mtp`). The catalog's parameter counts are the
/// main model's (DeepSeek-V3 671B), so the MTP layer is added by [`Drafter`].
pub fn has_mtp(m: &Model) -> bool {
    matches!(m.family.as_str(), "deepseek-v3" | "qwen3-next")
}

/// Published EAGLE-3 heads for catalog models (each repository seen in
/// engine sources or issues): yuhuili/EAGLE3-LLaMA3.1-Instruct-8B and
/// yuhuili/EAGLE3-LLaMA3.3-Instruct-70B (NVIDIA/TensorRT-LLM's integration
/// tests load both; vLLM's examples), Tengyunw/qwen3_8b_eagle3 (its model
/// card; the GPUStack and card measurements). Others: none known (a notice).
pub fn eagle_head(model_id: &str) -> Option<&'static str> {
    match model_id {
        "llama-3.1-8b" | "deepseek-r1-distill-llama-8b" => Some("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"),
        "llama-3.3-70b" | "llama-3.1-70b" | "deepseek-r1-distill-llama-70b" => {
            Some("yuhuili/EAGLE3-LLaMA3.3-Instruct-70B")
        }
        "qwen3-8b" => Some("Tengyunw/qwen3_8b_eagle3"),
        _ => None,
    }
}

/// Whether an engine runs a method, as its pinned version documents it:
/// - vLLM: `--speculative-config` methods `eagle3`, `deepseek_mtp` /
///   `qwen3_next_mtp`, `ngram` (vllm/config/speculative.py; docs.vllm.ai
///   v0.12.0 api/vllm/config/speculative lists them) and `draft_model`
///   (added by vLLM PR #24322, in v0.12.0's list);
/// - SGLang: `--speculative-algorithm` EAGLE3, NEXTN (MTP), STANDALONE
///   (draft model), NGRAM (python/sglang/srt/server_args.py; docs.sglang.io
///   advanced_features/speculative_decoding, method table);
/// - TensorRT-LLM: EAGLE 3, MTP (DeepSeek-V3/R1), draft/target, NGram
///   (nvidia.github.io/TensorRT-LLM/features/speculative-decoding.html);
/// - llama.cpp: `--spec-type draft-simple, draft-eagle3, draft-mtp,
///   ngram-simple` (ggml-org/llama.cpp@00dc8057 tools/server/README.md);
/// - transformers: a draft model (`generate(assistant_model=…)`) and
///   prompt lookup (`prompt_lookup_num_tokens`), no EAGLE head or MTP layer.
///
/// The engine table's `speculative` holds these lists.
pub fn engine_runs(engine: Engine, m: Spec) -> bool {
    super::super::engines::row(engine).speculative.value.contains(&m)
}

impl Drafter {
    /// The drafter `cfg` asks for on `target` (served in `format`); `None`
    /// when speculation is off or cannot be planned (`resolve` has said why).
    pub fn new(
        cfg: &Config,
        target: &Model,
        format: WeightFormat,
        draft: Option<&Model>,
    ) -> Option<Arc<Drafter>> {
        let alpha = cfg.spec_accept.or_else(|| default_accept(cfg.spec))?;
        let k = f64::from(cfg.spec_tokens.unwrap_or_else(|| default_tokens(cfg.spec)));
        let (model, format, stored_params) = match cfg.spec {
            Spec::Off => return None,
            Spec::Ngram => (None, format, 0.0),
            Spec::Eagle => {
                let head = eagle3_head(target);
                let stored = head.params_total;
                (Some(head), precision::BF16, stored)
            }
            Spec::Mtp => {
                let layer = mtp_layer(target);
                let stored = layer.params_total - f64::from(layer.vocab) * f64::from(layer.hidden);
                (Some(layer), format, stored)
            }
            Spec::Draft => {
                let d = draft?.clone();
                let stored = d.params_total;
                (Some(d), format, stored)
            }
        };
        Some(Arc::new(Drafter { method: cfg.spec, k, alpha, model, format, stored_params }))
    }

    /// Tokens one verify step yields per sequence.
    pub fn tokens_per_step(&self) -> f64 {
        expected_tokens(self.alpha, self.k)
    }
}

/// An EAGLE-3 head as the published ones are built (EAGLE-3 paper,
/// arXiv 2503.01840 §3; SGLang/vLLM `LlamaForCausalLMEagle3`): one decoder
/// layer at the target's width whose attention reads the token embedding and
/// the fused feature side by side (q, k, v projections 2h wide), the
/// target's FFN width (a dense FFN as wide as the active experts for an
/// MoE), the fusion of three target layers' hidden states (3h → h), and its
/// own output head over a 32,000-token draft vocabulary (`draft_vocab_size`
/// 32000 in the Llama 3 heads' config.json; SGLang's CUDA-graph runner
/// sizes the draft logits by it). The embedding is the target's.
fn eagle3_head(t: &Model) -> Model {
    let h = f64::from(t.hidden);
    let (q, kv) = (f64::from(t.heads * t.head_dim), f64::from(t.kv_heads * t.head_dim));
    let ffn = t.ffn.map_or_else(|| arch::active_ffn(t), f64::from);
    let vocab = t.vocab.min(32_000);
    let layer = 2.0 * h * (q + 2.0 * kv) + q * h + 3.0 * h * ffn + 3.0 * h * h;
    let total = layer + f64::from(vocab) * h;
    Model {
        id: format!("{}-eagle3", t.id),
        name: format!("{} EAGLE-3 head", t.name),
        params_total: total,
        params_active: total,
        layers: 1,
        ffn: Some(ffn.round() as u32),
        vocab,
        tied_embeddings: true,
        moe: None,
        mla: None,
        swa: None,
        state: None,
        vision: None,
        ..t.clone()
    }
}

/// One MTP module (DeepSeek-V3 technical report §2.2): a transformer block
/// like the main model's (its mean layer: the body over the layers), the
/// projection of the concatenated hidden state and embedding (2h → h), and
/// the main model's embedding and output head, shared. Qwen3-Next's MTP
/// layer is one full-attention MoE layer, counted the same way.
fn mtp_layer(t: &Model) -> Model {
    let h = f64::from(t.hidden);
    let layers = f64::from(t.layers.max(1));
    let head = f64::from(t.vocab) * h;
    let proj = 2.0 * h * h;
    Model {
        id: format!("{}-mtp", t.id),
        name: format!("{} MTP layer", t.name),
        params_total: t.body_params() / layers + proj + head,
        params_active: t.active_body_params() / layers + proj + head,
        layers: 1,
        tied_embeddings: true,
        moe: t.moe.clone().map(|m| super::super::catalog::models::Moe { first_dense_layers: 0, ..m }),
        swa: None,
        state: None,
        vision: None,
        ..t.clone()
    }
}

/// The host's share of one draft pass in vLLM V1's proposer, beside the
/// drafter's roofline pass: each pass prepares its inputs, samples its
/// token and launches the head outside the target's CUDA graph
/// (vllm/v1/spec_decode/eagle.py `propose`, one loop iteration per drafted
/// token). Fitted on the fit part only (vLLM PR #16937 and issue #20780,
/// Llama 3.1 8B on one H100 at batch 1, K = 2–7: the median over those five
/// runs of the time per drafted token the measured speed-ups leave after
/// the roofline, `tests/it/estimate/spec_decoding.rs`, `vllm_draft_pass_is_the_fit`).
/// The other engines have no fit source: SGLang and TensorRT-LLM capture
/// the draft loop in CUDA graphs (SGLang `EAGLEDraftCudaGraphRunner`;
/// TensorRT-LLM's one-model drafter "can launch the entire drafting loop as
/// a single CUDA graph"), so none is added for them.
pub const VLLM_DRAFT_PASS_S: f64 = 0.73e-3;
