//! What the tensor-parallel serving engines refuse at load, and which
//! layouts they run: the one home of the rules a layout must pass before it
//! is a plan (tensor parallel, expert parallel, data-parallel attention,
//! [`Layout`]). Each rule cites the engine source, its docs or the issue
//! that shows the failure.
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
//! Expert parallelism (vLLM `--enable-expert-parallel`, SGLang `--ep-size`)
//! deals the routed experts out whole over the group instead of cutting
//! each one's width, so the expert-width rule no longer binds; SGLang then
//! needs the experts to divide over the group ([`layout_refusal`]).
//! Data-parallel attention (vLLM `--data-parallel-size`, SGLang
//! `--enable-dp-attention`) cuts the attention over each rank's `tp` GPUs
//! only, the dense FFN as the engine splits it ([`dense_ways`]).
//!
//! At one GPU nothing is cut: a checkpoint that exists was quantized whole.
//! Engines that give each GPU a run of layers (llama.cpp, transformers)
//! shard no dimension. TensorRT-LLM builds its own engine from the
//! checkpoint; no failure of this kind is recorded for it, so no rule here.

use super::super::catalog::Model;
use super::super::config::Engine;
use super::super::engines;
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
    /// The routed experts, dealt out whole under expert parallelism.
    Experts,
}

impl Dim {
    /// The message key of its name in the reasons.
    pub fn msg_key(self) -> &'static str {
        match self {
            Dim::QHeads => "rule.dim.q",
            Dim::KvHeads => "rule.dim.kv",
            Dim::Ffn => "rule.dim.ffn",
            Dim::ExpertFfn => "rule.dim.expert",
            Dim::Experts => "rule.dim.experts",
        }
    }
}

/// A serving group's layout inside one node: `tp` GPUs split each
/// attention layer (tensor parallel); `dp` attention data-parallel ranks of
/// `tp` GPUs each, every rank holding only its own sequences' KV cache; the
/// FFN and expert layers run over all `tp × dp` GPUs, each expert's width
/// split (tensor parallel) or the experts dealt out whole (`ep`, expert
/// parallel). Tensor parallelism alone is `dp` 1 without `ep`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub tp: u32,
    pub dp: u32,
    pub ep: bool,
}

impl Layout {
    /// Tensor parallel over `tp` GPUs.
    pub fn tensor(tp: u32) -> Layout {
        Layout { tp: tp.max(1), dp: 1, ep: false }
    }

    /// GPUs of the group.
    pub fn gpus(self) -> u32 {
        self.tp.max(1) * self.dp.max(1)
    }
}

/// One rule a layout breaks: the dimension, its full width, its width on one GPU and the multiple it must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub dim: Dim,
    pub full: u32,
    pub per_gpu: u32,
    pub multiple: u32,
    /// The format whose blocks or groups the slice breaks (`None`: the expert-count rule).
    pub grain: Option<Grain>,
    /// How many ways the dimension is cut.
    pub ways: u32,
    /// Where the failure is shown.
    pub source: &'static str,
}

impl Refusal {
    /// The reason `engine` refuses the layout, in the reader's language.
    pub fn msg(&self, engine: Engine) -> Msg {
        if self.dim == Dim::Experts {
            return Msg::new("reason.engine_rule.ep")
                .arg("engine", engine.to_string())
                .num("ep", f64::from(self.ways), 0)
                .num("experts", f64::from(self.full), 0)
                .arg("source", self.source);
        }
        Msg::new("reason.engine_rule")
            .arg("engine", engine.to_string())
            .num("tp", f64::from(self.ways), 0)
            .sub("dim", Msg::new(self.dim.msg_key()))
            .num("full", f64::from(self.full), 0)
            .num("per", f64::from(self.per_gpu), 0)
            .num("multiple", f64::from(self.multiple), 0)
            .arg("format", self.grain.map_or("", Grain::label))
            .arg("source", self.source)
    }
}

/// Families whose published FP8 checkpoints are block-quantized 128 × 128
/// (`quantization_config.weight_block_size` in deepseek-ai/DeepSeek-V3's, moonshotai/Kimi-K2-Instruct's
/// and Qwen/Qwen3-*-FP8's config.json; the Qwen3 model cards: "fine-grained
/// fp8 quantization with block size of 128"). Other models' FP8 checkpoints
/// (ModelOpt, llm-compressor) and vLLM's online `--quantization fp8` scale
/// per tensor or per channel, which any split keeps whole.
const FP8_BLOCK_FAMILIES: &[&str] = &["deepseek-v3", "kimi-k2", "qwen3", "qwen3-moe", "qwen3-vl-moe"];

/// The grain of a weight format for a model, where it has one an engine checks.
pub fn grain(model: &Model, format: &str) -> Option<Grain> {
    match format {
        "fp8" if FP8_BLOCK_FAMILIES.contains(&model.family.as_str()) => Some(Grain::Fp8Block128),
        "int4-awq" | "int4-gptq" => Some(Grain::Group128),
        _ => None,
    }
}

/// Whether an engine shards tensors and checks these shapes at load (the engine table's `shape_rules`).
fn checks(engine: Engine) -> bool {
    engines::row(engine).shape_rules.value
}

/// Whether an engine runs expert parallelism and data-parallel attention:
/// vLLM's `--enable-expert-parallel` and `--data-parallel-size` ("EP_SIZE =
/// TP_SIZE × DP_SIZE", vllm-project/vllm docs/serving/
/// expert_parallel_deployment.md @017025691b3006ed548f763fd394a846affa6064;
/// "it can be advantageous to use data parallel for the attention layers
/// and expert or tensor parallel (EP or TP) for the expert layers",
/// docs/serving/data_parallel_deployment.md
/// @01e4fce07423dafcc832600ba05159fb28dc1126), SGLang's `--ep-size` and
/// `--dp-size` with `--enable-dp-attention` (sgl-project/sglang
/// @001067fffe33427bee0ed2f007fb7551a1d76b44 python/sglang/srt/server_args.py:
/// "Enabling data parallelism for attention and tensor parallelism for
/// FFN"). TensorRT-LLM builds its own engine; llama.cpp and transformers
/// split layers. The engine table's `expert_parallel` and `dp_attention`.
pub fn runs_ep_and_dp_attention(engine: Engine) -> bool {
    let r = engines::row(engine);
    r.expert_parallel.is_some() && r.dp_attention.is_some()
}

/// GPUs the dense FFN, the shared experts, the embeddings and the output
/// head are split over under data-parallel attention: vLLM runs each
/// data-parallel rank as its own engine of `tp` GPUs, so they are split
/// within the rank ("each DP engine owns a number of per-GPU worker
/// processes equal to the configured TP size", data_parallel_deployment.md;
/// "The attention weights are replicated across all GPUs, while the expert
/// weights are split across GPUs" at TP 1, expert_parallel_deployment.md);
/// SGLang runs them tensor parallel over the whole group by default
/// (server_args.py @001067ff: `enable_dense_mlp_attn_tp` "Shard dense MLP
/// weights across the attention TP group under DP attention" and
/// `enable_dp_lm_head` "Enable vocabulary parallel across the attention TP
/// group", both off by default).
/// The engine table's `dp_attention.dense_over_group`.
pub fn dense_ways(engine: Engine, l: Layout) -> u32 {
    if engines::row(engine).dp_attention.is_some_and(|d| d.value.dense_over_group) {
        l.gpus()
    } else {
        l.tp.max(1)
    }
}

/// Each sharded dimension of a model under a layout: (dimension, full
/// width, width on one GPU, ways cut); `None` for a width the split does
/// not cut evenly (the heads rule refuses those). The attention is cut
/// over `tp`, the dense FFN as [`dense_ways`] says, each expert's width
/// over the whole group unless the experts are dealt out whole.
pub fn layout_shards(model: &Model, engine: Engine, l: Layout) -> Vec<(Dim, u32, Option<u32>, u32)> {
    let (tp, dense, group) = (l.tp.max(1), dense_ways(engine, l).max(1), l.gpus());
    let cut = |full: u32, ways: u32| (full % ways == 0).then(|| full / ways);
    let hd = model.head_dim.max(1);
    let kv = model.kv_heads.max(1);
    // Fewer KV heads than GPUs: each GPU holds one, replicated (vLLM's QKVParallelLinear).
    let kv_per_gpu = if kv < tp { (tp % kv == 0).then_some(1) } else { cut(kv, tp) };
    let mut out = vec![
        (Dim::QHeads, model.heads * hd, cut(model.heads, tp).map(|h| h * hd), tp),
        (Dim::KvHeads, kv * hd, kv_per_gpu.map(|h| h * hd), tp),
    ];
    // A model whose every layer is an MoE layer has no dense FFN to cut.
    if let Some(f) = model.ffn.filter(|_| model.moe.as_ref().is_none_or(|m| m.first_dense_layers > 0)) {
        out.push((Dim::Ffn, f, cut(f, dense), dense));
    }
    if let Some(m) = model.moe.as_ref().filter(|_| !l.ep) {
        out.push((Dim::ExpertFfn, m.expert_ffn, cut(m.expert_ffn, group), group));
    }
    out
}

/// Each sharded dimension of a model at tensor parallel `tp`: (dimension, full width, width on one GPU).
/// `None` for a width the split does not cut evenly (the heads rule refuses those).
pub fn shards(model: &Model, tp: u32) -> Vec<(Dim, u32, Option<u32>)> {
    layout_shards(model, Engine::Vllm, Layout::tensor(tp))
        .into_iter()
        .map(|(d, full, per, _)| (d, full, per))
        .collect()
}

/// Models whose published AWQ/GPTQ checkpoints pad the FFN width to 29,696
/// (29,568 + 128) so that tensor parallel 2, 4 and 8 load: Qwen re-quantized
/// its 72B checkpoints "with the intermediate size adjusted to 29696"
/// (QwenLM/Qwen3-VL#230, for Qwen2-VL-72B's AWQ/GPTQ-Int4/GPTQ-Int8), later
/// Qwen2.5-VL-72B-Instruct-AWQ too ("until they updated their
/// intermediate_size to be compatible with TP=2", vllm-project/vllm#21695),
/// and points users at the same padding for the 72B text model
/// (QwenLM/Qwen3#698, "similar to QwenLM/Qwen2#578").
const PADDED_GROUP_FFN: &[(&str, u32)] =
    &[("qwen2.5-72b", 29_696), ("qwen2-vl-72b", 29_696), ("qwen2.5-vl-72b", 29_696)];

/// The FFN width of the checkpoint a link's format loads: the padded one
/// where the published group-quantized checkpoint pads it.
pub fn checkpoint_ffn(model: &Model, g: Grain) -> Option<u32> {
    if g != Grain::Group128 {
        return None;
    }
    padded_ffn(&model.id)
}

/// The padded FFN width a catalog model's group-quantized checkpoint must
/// have for the plans here to load ([`PADDED_GROUP_FFN`]).
pub fn padded_ffn(model_id: &str) -> Option<u32> {
    PADDED_GROUP_FFN.iter().find(|(id, _)| model_id == *id).map(|(_, f)| *f)
}

/// The first rule an engine breaks loading `model` in `format` under a
/// layout (heads that do not divide are `tp_allowed`'s rule). Expert
/// parallelism deals the experts out whole, so no expert's width is cut;
/// SGLang's MoE layer then needs the experts to divide over the group
/// (`assert num_experts % self.moe_ep_size == 0` in FusedMoE.__init__,
/// sgl-project/sglang python/sglang/srt/layers/moe/fused_moe_triton/layer.py);
/// vLLM gives the remainder to the first ranks (`determine_expert_map`,
/// vllm-project/vllm vllm/model_executor/layers/fused_moe/layer.py).
pub fn layout_refusal(model: &Model, format: &str, engine: Engine, l: Layout) -> Option<Refusal> {
    if l.gpus() <= 1 || !checks(engine) {
        return None;
    }
    let divide = engines::row(engine).expert_parallel.is_some_and(|e| e.value.experts_divide_group);
    if let Some(m) = model.moe.as_ref().filter(|m| l.ep && divide && m.experts % l.gpus() != 0) {
        let source = "sglang fused_moe_triton/layer.py: num_experts % moe_ep_size == 0";
        return Some(Refusal {
            dim: Dim::Experts,
            full: m.experts,
            per_gpu: m.experts / l.gpus(),
            multiple: l.gpus(),
            grain: None,
            ways: l.gpus(),
            source,
        });
    }
    let g = grain(model, format)?;
    let (k, n, e) = g.multiples();
    let padded = checkpoint_ffn(model, g);
    layout_shards(model, engine, l).into_iter().filter(|s| s.3 > 1).find_map(|(dim, full, per, ways)| {
        let (full, per) = match (dim, padded) {
            (Dim::Ffn, Some(f)) => (f, (f % ways == 0).then(|| f / ways)),
            _ => (full, per),
        };
        let multiple = match dim {
            Dim::QHeads | Dim::Ffn | Dim::Experts => k,
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
        (per_gpu % multiple != 0).then_some(Refusal {
            dim,
            full,
            per_gpu,
            multiple,
            grain: Some(g),
            ways,
            source,
        })
    })
}

/// The first rule an engine breaks loading `model` in `format` at tensor
/// parallel `tp` (heads that do not divide are `tp_allowed`'s rule).
pub fn refusal(model: &Model, format: &str, engine: Engine, tp: u32) -> Option<Refusal> {
    layout_refusal(model, format, engine, Layout::tensor(tp))
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

/// Whether an engine loads `model` in `format` under a layout: the heads
/// rule at the attention's tensor-parallel size, the format's rules, and
/// expert parallelism or data-parallel attention only where the engine runs
/// them, expert parallelism only for a mixture of experts.
pub fn layout_loads(model: &Model, format: &str, engine: Engine, l: Layout) -> bool {
    let modes = (l.dp <= 1 && !l.ep) || (runs_ep_and_dp_attention(engine) && (!l.ep || model.moe.is_some()));
    modes && tp_allowed(model, engine, l.tp) && layout_refusal(model, format, engine, l).is_none()
}

/// Powers of two up to `gpus_per_node`.
fn powers(gpus_per_node: u32) -> impl Iterator<Item = u32> {
    (0..32).map(|i| 1u32 << i).take_while(move |&tp| tp <= gpus_per_node.max(1))
}

/// The layouts worth trying for a group of `n` GPUs, in the order a plan
/// prefers them: tensor parallel where the engine loads it; where it does
/// not and the model is a mixture of experts, expert parallel (the experts
/// dealt out whole, so no expert's width binds the format's block or
/// group); for a latent-attention mixture of experts, data-parallel
/// attention at each power of two `d` from 2 to `n` (attention tensor
/// parallel `n / d`) with expert parallel, as the engines' recipes for
/// DeepSeek-V3/R1 and Kimi K2 run it (`--data-parallel-size 8
/// --enable-expert-parallel`, expert_parallel_deployment.md; `--tp 8 --ep 8
/// --enable-dp-attention`, sgl-project/sglang docs/advanced_features/
/// dp_dpa_router_guide.md @1c34b5e3131c8e02dd66447180af32447efaa323, which
/// says why: "DeepSeek models use MLA and only have one KV head. If we use
/// tensor parallelism on 8 GPUs, it will lead to: Duplicated KV cache across
/// all GPUs"). Data-parallel attention copies the attention weights `d`
/// times, so it is a plan only where the cache it spreads pays for them.
pub fn layouts_at(model: &Model, format: &str, engine: Engine, n: u32) -> Vec<Layout> {
    let loads = |l: Layout| layout_loads(model, format, engine, l);
    let mut out: Vec<Layout> = Vec::new();
    let tp = Layout::tensor(n);
    if loads(tp) {
        out.push(tp);
    } else if model.moe.is_some() && loads(Layout { ep: true, ..tp }) {
        out.push(Layout { ep: true, ..tp });
    }
    if model.mla.is_some() && model.moe.is_some() && runs_ep_and_dp_attention(engine) {
        for d in powers(n) {
            let dp = Layout { tp: n / d, dp: d, ep: true };
            if d > 1 && n % d == 0 {
                if loads(dp) {
                    out.push(dp);
                } else if loads(Layout { ep: false, ..dp }) {
                    out.push(Layout { ep: false, ..dp });
                }
            }
        }
    }
    out
}

/// The layouts worth trying in a node of `gpus_per_node` GPUs, smallest
/// group first ([`layouts_at`] at each power of two); a layer split takes any count.
pub fn layouts(model: &Model, format: &str, engine: Engine, gpus_per_node: u32) -> Vec<Layout> {
    let mut out: Vec<Layout> = Vec::new();
    for n in powers(gpus_per_node) {
        out.extend(layouts_at(model, format, engine, n));
    }
    if out.is_empty() {
        vec![Layout::tensor(1)]
    } else {
        out
    }
}

/// The rules the layouts tried at a group of `n` GPUs break: tensor
/// parallel's, and expert parallel's where the engine runs it for an MoE.
pub fn refusals_at(model: &Model, format: &str, engine: Engine, n: u32) -> Vec<Refusal> {
    let tp = Layout::tensor(n);
    let mut out: Vec<Refusal> = layout_refusal(model, format, engine, tp).into_iter().collect();
    if model.moe.is_some() && runs_ep_and_dp_attention(engine) {
        out.extend(layout_refusal(model, format, engine, Layout { ep: true, ..tp }));
    }
    out
}

/// The group sizes the heads allow where no layout loads, with the rule
/// each layout tried breaks ([`refusals_at`]).
pub fn tp_refused(model: &Model, format: &str, engine: Engine, gpus_per_node: u32) -> Vec<(u32, Refusal)> {
    let mut out = Vec::new();
    for n in powers(gpus_per_node) {
        if tp_allowed(model, engine, n) && layouts_at(model, format, engine, n).is_empty() {
            out.extend(refusals_at(model, format, engine, n).into_iter().map(|r| (n, r)));
        }
    }
    out
}
