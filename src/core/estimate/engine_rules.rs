//! What the tensor-parallel serving engines refuse at load: the one home of
//! the rules a layout must pass before it is a plan. Each rule cites the
//! engine source or the issue that shows the failure.
//!
//! Under tensor parallelism of `tp` every sharded dimension is cut `tp`
//! ways: the query heads (the attention output projection's input, a
//! row-parallel layer's K), the KV heads (divided over the group, or one
//! head replicated on each GPU when there are fewer KV heads than GPUs), the
//! FFN width (the down projection's K, the gate/up projections' N) and each
//! expert's FFN width. A checkpoint whose weights are quantized in blocks
//! or groups along those dimensions loads only when each GPU's slice is a
//! whole number of blocks:
//!
//! - **FP8 block 128** (`weight_block_size: [128, 128]`: DeepSeek-V3/R1,
//!   the Qwen3 FP8 releases): vLLM's `validate_fp8_block_shape` raises
//!   "input_size_per_partition … is not divisible by weight quantization
//!   block_k" for a row-parallel slice and "output_partition_size … block_n"
//!   for each column-parallel one (q, k and v separately)
//!   (vllm-project/vllm vllm/model_executor/layers/quantization/utils/fp8_utils.py);
//!   the MoE method raises "The output_size of gate's and up's weight = 96
//!   is not divisible by weight quantization block_n = 128" for
//!   Qwen3-30B-A3B-FP8 at TP 8 (vllm-project/vllm#17569) and 192 for
//!   Qwen3-235B-A22B-FP8 at TP 8 (vllm-project/vllm#25292); SGLang raises
//!   the same error.
//! - **AWQ/GPTQ group 128** (`int4-awq`, `int4-gptq`), run by the Marlin
//!   kernels: `verify_marlin_supports_shape` needs a row-parallel slice to
//!   be a multiple of `min_thread_k` = 128 and of the group, a
//!   column-parallel slice a multiple of `min_thread_n` = 64, and
//!   `check_moe_marlin_supports_layer` each expert's slice a multiple of
//!   max(64, group) (vllm-project/vllm
//!   vllm/model_executor/layers/quantization/utils/marlin_utils.py
//!   @007d50058a06dec0f82472d63c819244d460c40d); the fallbacks fail too:
//!   Qwen3-30B-A3B-AWQ at TP 4 and 8, "size_k must divisible by
//!   BLOCK_SIZE_K" (vllm-project/vllm#17604), Qwen2.5-VL-72B-Instruct-AWQ
//!   at TP 2, "input_size_per_partition = 14784 is not divisible by
//!   min_thread_k = 128" (vllm-project/vllm#13640; Qwen later republished
//!   that checkpoint with its FFN padded to 29,696, which loads:
//!   `PADDED_GROUP_FFN` holds the published checkpoints' widths), and AutoAWQ's kernel, "The input
//!   size is not aligned with the quantized weight shape" (vllm-project/vllm#21695).
//!
//! At one GPU nothing is cut: a checkpoint that exists was quantized whole.
//! Engines that give each GPU a run of layers (llama.cpp, transformers)
//! shard no dimension. TensorRT-LLM builds its own engine from the
//! checkpoint; no failure of this kind is recorded for it, so no rule here.

use super::super::catalog::Model;
use super::super::config::Engine;
use super::super::messages::Msg;

/// How a weight format's scales are laid along the sharded dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grain {
    /// FP8 with one scale per 128 × 128 block.
    Fp8Block128,
    /// 4-bit weights with one scale per group of 128 along K (AWQ, GPTQ).
    Group128,
}

impl Grain {
    /// The multiple a slice must be: (row-parallel K, column-parallel N, expert width).
    pub fn multiples(self) -> (u32, u32, u32) {
        match self {
            Grain::Fp8Block128 => (128, 128, 128),
            // Marlin: K by min_thread_k and the group, N by min_thread_n, experts by max(64, group).
            Grain::Group128 => (128, 64, 128),
        }
    }

    /// The format's name as the reasons print it.
    pub fn label(self) -> &'static str {
        match self {
            Grain::Fp8Block128 => "FP8 block 128",
            Grain::Group128 => "AWQ/GPTQ group 128",
        }
    }
}

/// A sharded dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    /// The query heads × head size (the output projection's K).
    QHeads,
    /// The KV heads × head size on one GPU (the k and v projections' N).
    KvHeads,
    /// The dense FFN width (the down projection's K).
    Ffn,
    /// One expert's FFN width.
    ExpertFfn,
}

impl Dim {
    /// The message key of its name in the reasons.
    pub fn msg_key(self) -> &'static str {
        match self {
            Dim::QHeads => "rule.dim.q",
            Dim::KvHeads => "rule.dim.kv",
            Dim::Ffn => "rule.dim.ffn",
            Dim::ExpertFfn => "rule.dim.expert",
        }
    }
}

/// One rule a layout breaks: the dimension, its full width, its width on one GPU and the multiple it must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub dim: Dim,
    pub full: u32,
    pub per_gpu: u32,
    pub multiple: u32,
    pub grain: Grain,
    /// Where the failure is shown.
    pub source: &'static str,
}

impl Refusal {
    /// The reason `engine` refuses tensor parallel `tp`, in the reader's language.
    pub fn msg(&self, engine: Engine, tp: u32) -> Msg {
        Msg::new("reason.engine_rule")
            .arg("engine", engine.to_string())
            .num("tp", f64::from(tp), 0)
            .sub("dim", Msg::new(self.dim.msg_key()))
            .num("full", f64::from(self.full), 0)
            .num("per", f64::from(self.per_gpu), 0)
            .num("multiple", f64::from(self.multiple), 0)
            .arg("format", self.grain.label())
            .arg("source", self.source)
    }
}

/// Families whose published FP8 checkpoints are block-quantized 128 × 128
/// (`quantization_config.weight_block_size` in deepseek-ai/DeepSeek-V3's
/// and Qwen/Qwen3-*-FP8's config.json; the Qwen3 model cards: "fine-grained
/// fp8 quantization with block size of 128"). Other models' FP8 checkpoints
/// (ModelOpt, llm-compressor) and vLLM's online `--quantization fp8` scale
/// per tensor or per channel, which any split keeps whole.
const FP8_BLOCK_FAMILIES: &[&str] = &["deepseek-v3", "qwen3", "qwen3-moe", "qwen3-vl-moe"];

/// The grain of a weight format for a model, where it has one an engine checks.
pub fn grain(model: &Model, format: &str) -> Option<Grain> {
    match format {
        "fp8" if FP8_BLOCK_FAMILIES.contains(&model.family.as_str()) => Some(Grain::Fp8Block128),
        "int4-awq" | "int4-gptq" => Some(Grain::Group128),
        _ => None,
    }
}

/// Whether an engine shards tensors and checks these shapes at load.
fn checks(engine: Engine) -> bool {
    matches!(engine, Engine::Vllm | Engine::Sglang)
}

/// Each sharded dimension of a model at `tp`: (dimension, full width, width on one GPU).
/// `None` for a width the split does not cut evenly (the heads rule refuses those).
pub fn shards(model: &Model, tp: u32) -> Vec<(Dim, u32, Option<u32>)> {
    let tp = tp.max(1);
    let hd = model.head_dim.max(1);
    let cut = |full: u32| (full % tp == 0).then(|| full / tp);
    let kv = model.kv_heads.max(1);
    // Fewer KV heads than GPUs: each GPU holds one, replicated (vLLM's QKVParallelLinear).
    let kv_per_gpu = if kv < tp { (tp % kv == 0).then_some(1) } else { cut(kv) };
    let mut out = vec![(Dim::QHeads, model.heads * hd, cut(model.heads).map(|h| h * hd)), (Dim::KvHeads, kv * hd, kv_per_gpu.map(|h| h * hd))];
    // A model whose every layer is an MoE layer has no dense FFN to cut.
    if let Some(f) = model.ffn.filter(|_| model.moe.as_ref().is_none_or(|m| m.first_dense_layers > 0)) {
        out.push((Dim::Ffn, f, cut(f)));
    }
    if let Some(m) = &model.moe {
        out.push((Dim::ExpertFfn, m.expert_ffn, cut(m.expert_ffn)));
    }
    out
}

/// Models whose published AWQ/GPTQ checkpoints pad the FFN width to 29,696
/// (29,568 + 128) so that tensor parallel 2, 4 and 8 load: Qwen re-quantized
/// its 72B checkpoints "with the intermediate size adjusted to 29696"
/// (QwenLM/Qwen3-VL#230, for Qwen2-VL-72B's AWQ/GPTQ-Int4/GPTQ-Int8), later
/// Qwen2.5-VL-72B-Instruct-AWQ too ("until they updated their
/// intermediate_size to be compatible with TP=2", vllm-project/vllm#21695),
/// and points users at the same padding for the 72B text model
/// (QwenLM/Qwen3#698, "similar to QwenLM/Qwen2#578").
const PADDED_GROUP_FFN: &[(&str, u32)] = &[("qwen2.5-72b", 29_696), ("qwen2-vl-72b", 29_696), ("qwen2.5-vl-72b", 29_696)];

/// The FFN width of the checkpoint a link's format loads: the padded one
/// where the published group-quantized checkpoint pads it.
pub fn checkpoint_ffn(model: &Model, g: Grain) -> Option<u32> {
    if g != Grain::Group128 {
        return None;
    }
    PADDED_GROUP_FFN.iter().find(|(id, _)| model.id == *id).map(|(_, f)| *f)
}

/// The first rule an engine breaks loading `model` in `format` at tensor
/// parallel `tp` (heads that do not divide are `tp_allowed`'s rule).
pub fn refusal(model: &Model, format: &str, engine: Engine, tp: u32) -> Option<Refusal> {
    if tp <= 1 || !checks(engine) {
        return None;
    }
    let g = grain(model, format)?;
    let (k, n, e) = g.multiples();
    let padded = checkpoint_ffn(model, g);
    shards(model, tp).into_iter().find_map(|(dim, full, per)| {
        let (full, per) = match (dim, padded) {
            (Dim::Ffn, Some(f)) => (f, (f % tp == 0).then(|| f / tp)),
            _ => (full, per),
        };
        let multiple = match dim {
            Dim::QHeads | Dim::Ffn => k,
            Dim::KvHeads => n,
            Dim::ExpertFfn => e,
        };
        let source = match (g, dim) {
            (Grain::Fp8Block128, Dim::ExpertFfn) => "vllm-project/vllm#17569, #25292",
            (Grain::Fp8Block128, _) => "vllm fp8_utils.py validate_fp8_block_shape",
            (Grain::Group128, Dim::ExpertFfn) => "vllm-project/vllm#17604",
            (Grain::Group128, _) => "vllm-project/vllm#13640",
        };
        let per_gpu = per?;
        (per_gpu % multiple != 0).then_some(Refusal { dim, full, per_gpu, multiple, grain: g, source })
    })
}

/// Whether an engine runs a tensor-parallel group of `tp` GPUs for a model:
/// a layer split takes any count; tensor parallelism needs `tp` to divide
/// the attention heads, and to divide the KV heads or be a multiple of them
/// (vLLM's QKVParallelLinear divides the KV heads over the group or
/// replicates them, `divide(total_num_kv_heads, tp)` or
/// `divide(tp, total_num_kv_heads)`, both asserting divisibility; "Total
/// number of attention heads (32) must be divisible by tensor parallel
/// size", vllm-project/vllm#17604); MLA caches no per-head K/V.
pub fn tp_allowed(model: &Model, engine: Engine, tp: u32) -> bool {
    let tp = tp.max(1);
    let kv = model.kv_heads.max(1);
    engine.splits_layers() || (model.heads % tp == 0 && (model.mla.is_some() || kv % tp == 0 || tp % kv == 0))
}

/// Whether an engine loads `model` in `format` at tensor parallel `tp`: the heads rule and the format's.
pub fn tp_loads(model: &Model, format: &str, engine: Engine, tp: u32) -> bool {
    tp_allowed(model, engine, tp) && refusal(model, format, engine, tp).is_none()
}

/// Powers of two up to `gpus_per_node`.
fn powers(gpus_per_node: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|i| 1u32 << i).take_while(move |&tp| tp <= gpus_per_node.max(1))
}

/// GPU counts per node worth trying: powers of two up to the node's GPU
/// count that the engine loads ([`tp_loads`]); a layer split takes any.
pub fn tp_options(model: &Model, format: &str, engine: Engine, gpus_per_node: u32) -> Vec<u32> {
    let out: Vec<u32> = powers(gpus_per_node).filter(|&tp| tp_loads(model, format, engine, tp)).collect();
    if out.is_empty() {
        vec![1]
    } else {
        out
    }
}

/// The counts of [`tp_options`]' range that the heads allow and the format refuses, with the rule each breaks.
pub fn tp_refused(model: &Model, format: &str, engine: Engine, gpus_per_node: u32) -> Vec<(u32, Refusal)> {
    powers(gpus_per_node).filter(|&tp| tp_allowed(model, engine, tp)).filter_map(|tp| refusal(model, format, engine, tp).map(|r| (tp, r))).collect()
}
