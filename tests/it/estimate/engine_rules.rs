//! Issue 37: layouts the serving engines refuse at load are not plans
//! (`core::estimate::engine_rules`), and NVLink-bridged PCIe offers all-reduce
//! in two levels (`core::estimate::allreduce`).

use crate::common::{answer, catalog};
use proptest::prelude::*;
use whichgpu::core::answer::{Answer, OfferResult};
use whichgpu::core::config::{Engine, Lang};
use whichgpu::core::estimate::engine_rules::{self, Dim, Grain, Layout};

/// The offers an answer picks or names: the pick and every alternative.
fn named(a: &Answer) -> Vec<&OfferResult> {
    let Some(r) = &a.recommendation else { return Vec::new() };
    std::iter::once(&r.pick)
        .chain(r.alternatives.iter())
        .filter_map(|p| a.offers.iter().find(|o| o.id == p.offer))
        .collect()
}

/// Tensor-parallel sizes the pick and alternatives of a query use, and whether they deal the experts out whole.
fn named_tp(q: &str) -> Vec<(String, u32, bool)> {
    named(&answer(q)).iter().map(|o| (o.id.to_string(), o.tp * o.dp.max(1), o.ep)).collect()
}

/// The layout an offer runs.
fn layout(o: &OfferResult) -> Layout {
    Layout { tp: o.tp, dp: o.dp.max(1), ep: o.ep }
}

#[test]
fn qwen3_30b_fp8_on_4090s_never_splits_768_wide_experts_4_or_8_ways() {
    // vllm-project/vllm#17569: 768/8 = 96 and 768/4 = 192 are not multiples
    // of FP8's 128 block. A group of 4 or 8 deals the experts out whole
    // (expert parallel), which the engine loads.
    let tps = named_tp("model=qwen3-30b-a3b&w=fp8&in=8000&out=1000&batch=32&gpu=rtx-4090-24gb");
    assert!(!tps.is_empty());
    assert!(tps.iter().all(|(_, gpus, ep)| *gpus <= 2 || *ep), "{tps:?}");
}

#[test]
fn qwen3_235b_awq_never_splits_1536_wide_experts_8_ways() {
    // vllm-project/vllm#17604: 1536/8 = 192 is not a multiple of the Marlin MoE kernel's 128.
    let a = answer("model=qwen3-235b-a22b&w=int4-awq&in=4000&out=1000&batch=8");
    assert!(!named(&a).is_empty());
    assert!(
        named(&a).iter().all(|o| o.tp != 8 || o.ep),
        "{:?}",
        named(&a).iter().map(|o| (&o.id, o.tp, o.ep)).collect::<Vec<_>>()
    );
    assert!(a.offers.iter().filter(|o| o.fits).all(|o| o.tp != 8 || o.ep));
}

#[test]
fn llama_2_13b_awq_names_no_tp_8_alternative() {
    // 13824/8 = 1728 is not a multiple of the AWQ group of 128 (vllm-project/vllm#13640's rule, Marlin's min_thread_k).
    let tps = named_tp("model=llama-2-13b&w=int4-awq&gpu=rtx-4090-24gb");
    assert!(!tps.is_empty());
    assert!(tps.iter().all(|(_, tp, _)| *tp != 8), "{tps:?}");
}

#[test]
fn a_72b_awq_with_the_unpadded_ffn_is_refused_at_tp_2_with_the_rule_named() {
    // vllm-project/vllm#13640 (Qwen2.5-VL-72B-Instruct-AWQ as first published)
    // and #21695 (InternVL3-78B-AWQ, the same 29,568-wide FFN): 14784 per
    // GPU is not a multiple of 128. A config.json of that shape, imported:
    let shape = "model=custom&layers=80&hidden=8192&heads=64&kv_heads=8&head_dim=128&ffn=29568&vocab=152064&context=32768&w=int4-awq";
    let (cfg, _) = whichgpu::core::link::decode(shape);
    let resolved = whichgpu::core::resolve::resolve(&cfg, Vec::new(), catalog());
    let whichgpu::core::resolve::Subject::Llm { model, .. } = &resolved.subject else {
        panic!("a language model")
    };
    let r = engine_rules::refusal(model, "int4-awq", Engine::Vllm, 2).expect("refused");
    assert_eq!((r.dim, r.per_gpu, r.multiple), (Dim::Ffn, 14784, 128));
    // The link's own gpus=2 is said and dropped.
    let a = answer(&format!("{shape}&gpus=2&gpu=rtx-a6000-48gb"));
    let notes: String = a.notices.iter().map(|n| n.message.clone()).collect();
    assert!(notes.contains("14784"), "{notes}");
    // Two 32 GB cards would hold it at TP 2 (one does not): the offers say why they do not.
    let a = answer(&format!("{shape}&gpu=rtx-5090-32gb"));
    assert!(a.offers.iter().all(|o| !o.fits));
    let why = |lang| {
        a.offers
            .iter()
            .filter(|o| o.gpus >= 2)
            .map(|o| whichgpu::core::answer::reasons(&o.reason_msgs, lang))
            .collect::<Vec<_>>()
    };
    assert!(
        why(Lang::En)
            .iter()
            .any(|w| w.contains("refuses tensor parallel 2") && w.contains("14784") && w.contains("#13640")),
        "{:?}",
        why(Lang::En)
    );
    assert!(why(Lang::Zh).iter().any(|w| w.contains("拒绝张量并行 2")), "{:?}", why(Lang::Zh));
}

/// Qwen's published 72B AWQ/GPTQ checkpoints pad the FFN to 29,696
/// (QwenLM/Qwen3-VL#230, vllm-project/vllm#21695): they load at TP 2, 4, 8.
#[test]
fn qwen_72b_group_quantized_checkpoints_are_padded_and_load() {
    for id in ["qwen2.5-72b", "qwen2-vl-72b", "qwen2.5-vl-72b"] {
        let m = catalog().model(id).expect("in the catalog");
        for tp in [2u32, 4, 8] {
            assert!(engine_rules::refusal(m, "int4-awq", Engine::Vllm, tp).is_none(), "{id} tp {tp}");
        }
    }
    let a = answer("model=qwen2.5-72b&w=int4-gptq&gpu=rtx-4090-24gb&batch=4");
    assert!(a.pick().is_some(), "72B int4 on 4090s has a plan");
}

/// Every catalog model's sharded dimensions at TP 2, 4 and 8, for FP8 block 128 and group 128:
/// the rule refuses exactly the layouts where some slice is not a whole number of blocks.
#[test]
fn the_table_covers_every_sharded_dimension_of_every_catalog_model() {
    let mut checked = 0;
    for m in catalog().models.iter() {
        for (format, grain) in
            [("fp8", Grain::Fp8Block128), ("int4-awq", Grain::Group128), ("int4-gptq", Grain::Group128)]
        {
            for tp in [2u32, 4, 8] {
                let mut shards = engine_rules::shards(m, tp);
                // A published checkpoint's own (padded) FFN width.
                if let Some(f) = engine_rules::checkpoint_ffn(m, grain) {
                    shards
                        .iter_mut()
                        .filter(|(d, _, _)| *d == Dim::Ffn)
                        .for_each(|s| *s = (Dim::Ffn, f, (f % tp == 0).then(|| f / tp)));
                }
                assert!(
                    shards.iter().any(|(d, _, _)| *d == Dim::QHeads)
                        && shards.iter().any(|(d, _, _)| *d == Dim::KvHeads)
                );
                assert_eq!(shards.iter().any(|(d, _, _)| *d == Dim::ExpertFfn), m.moe.is_some(), "{}", m.id);
                let applies = engine_rules::grain(m, format) == Some(grain);
                let (k, n, e) = grain.multiples();
                let breaks = shards.iter().any(|(d, _, per)| {
                    let multiple = match d {
                        Dim::KvHeads => n,
                        Dim::ExpertFfn => e,
                        _ => k,
                    };
                    per.is_some_and(|p| p % multiple != 0)
                });
                let got = engine_rules::refusal(m, format, Engine::Vllm, tp);
                assert_eq!(got.is_some(), applies && breaks, "{} {format} tp {tp}: {got:?}", m.id);
                // Engines that split layers shard nothing.
                assert!(engine_rules::refusal(m, format, Engine::LlamaCpp, tp).is_none());
                checked += 1;
            }
        }
    }
    assert!(checked >= 3 * 3 * 60, "{checked}");
    // The shapes.
    let shape = |id: &str, f: &str, tp: u32| {
        engine_rules::refusal(catalog().model(id).expect("model"), f, Engine::Vllm, tp)
            .map(|r| (r.dim, r.per_gpu))
    };
    assert_eq!(shape("qwen3-30b-a3b", "fp8", 8), Some((Dim::ExpertFfn, 96)));
    assert_eq!(shape("qwen3-30b-a3b", "fp8", 4), Some((Dim::ExpertFfn, 192)));
    assert_eq!(shape("qwen3-30b-a3b", "fp8", 2), None);
    assert_eq!(shape("qwen3-235b-a22b", "fp8", 8), Some((Dim::ExpertFfn, 192))); // vllm-project/vllm#25292
    assert_eq!(shape("qwen3-235b-a22b", "int4-awq", 8), Some((Dim::ExpertFfn, 192)));
    assert_eq!(shape("qwen3-235b-a22b", "int4-awq", 4), None);
    assert_eq!(shape("llama-2-13b", "int4-awq", 8), Some((Dim::Ffn, 1728)));
    assert_eq!(shape("llama-2-13b", "int4-awq", 4), None);
    assert_eq!(shape("deepseek-v3", "fp8", 8), None); // 2048/8 = 256, 18432/8 = 2304: whole blocks.
                                                      // Per-tensor FP8 (Llama's checkpoints) is cut anywhere.
    assert_eq!(shape("llama-2-13b", "fp8", 8), None);
}

#[test]
fn nvlink_bridged_h100_pcie_is_faster_than_plain_pcie_at_tp_2_and_above() {
    let a = answer("model=llama-3.3-70b&w=bf16&batch=16&gpu=h100-pcie-80gb");
    let speed = |id: &str| a.offers.iter().find(|o| &*o.id == id).map(|o| (o.tp, o.speed_score));
    let (bridged, plain) =
        (speed("hyperstack-n3-h100x8-nvlink").expect("offer"), speed("hyperstack-n3-h100x8").expect("offer"));
    assert_eq!(bridged.0, plain.0);
    assert!(bridged.0 >= 2);
    assert!(bridged.1 > plain.1 * 1.02, "bridged {bridged:?} plain {plain:?}");
    // At each group size the bridged link is faster, TP 2 (one pair) the most.
    use whichgpu::core::estimate::allreduce;
    let gpu = catalog().gpu("h100-pcie-80gb").expect("gpu").clone();
    let bridged = whichgpu::core::catalog::Gpu {
        nvlink_gbps: allreduce::bridge_gbps(&gpu).expect("bridge"),
        ..gpu.clone()
    };
    for tp in [2, 4, 8] {
        for msg in [16.0 * 8192.0 * 2.0, 4096.0 * 8192.0 * 2.0] {
            assert!(
                allreduce::allreduce_s(&bridged, tp, msg) < allreduce::allreduce_s(&gpu, tp, msg),
                "tp {tp} msg {msg}"
            );
        }
    }
}

const MODELS: &[&str] = &[
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "qwen3-32b",
    "qwen3-8b",
    "deepseek-v3",
    "llama-2-13b",
    "llama-3.1-8b",
    "llama-3.3-70b",
    "qwen2.5-72b",
    "qwen2.5-vl-72b",
    "qwen2.5-14b",
    "mixtral-8x7b",
    "phi-3-medium",
    "gemma-2-27b",
    "qwen3-vl-235b-a22b",
    "deepseek-r1",
    "kimi-k2",
];
const FORMATS: &[&str] = &["fp8", "int4-awq", "int4-gptq", "bf16"];
const GPUS: &[&str] = &[
    "rtx-4090-24gb",
    "rtx-a6000-48gb",
    "l40s-48gb",
    "a100-sxm-80gb",
    "h100-pcie-80gb",
    "h100-sxm-80gb",
    "rtx-5090-32gb",
    "a10-24gb",
    "h20-96gb",
    "mi300x-192gb",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    /// No pick and no named alternative of a serving answer breaks a rule of the table.
    #[test]
    fn no_pick_or_alternative_breaks_an_engine_rule(
        m in 0..MODELS.len(), f in 0..FORMATS.len(), g in 0..GPUS.len(), batch in 1u32..64, sglang in any::<bool>(), input in 1u32..16
    ) {
        let (model, format) = (MODELS[m], FORMATS[f]);
        let engine = if sglang { "sglang" } else { "vllm" };
        let q = format!("model={model}&w={format}&gpu={}&batch={batch}&in={}&out=500&engine={engine}", GPUS[g], input * 1000);
        let a = answer(&q);
        let spec = catalog().model(model).expect("model");
        let e = if sglang { Engine::Sglang } else { Engine::Vllm };
        for o in named(&a) {
            prop_assert!(engine_rules::layout_loads(spec, format, e, layout(o)), "{q}: {} at {:?}", o.id, layout(o));
        }
        for o in a.offers.iter().filter(|o| o.fits) {
            prop_assert!(engine_rules::layout_loads(spec, format, e, layout(o)), "{q}: {} fits at {:?}", o.id, layout(o));
        }
    }
}

/// The heads rule ("Total number of attention heads (32) must be divisible
/// by tensor parallel size", vllm-project/vllm#17604, Qwen3-30B-A3B's 32
/// heads and 4 KV heads): a tensor-parallel group divides the heads, and
/// divides the KV heads or is a multiple of them; a layer split takes any count.
#[test]
fn tensor_parallel_sizes_must_divide_the_heads() {
    let m = catalog().model("qwen3-30b-a3b").expect("model");
    assert_eq!((m.heads, m.kv_heads), (32, 4));
    for (tp, ok) in [(2, true), (3, false), (4, true), (6, false), (8, true)] {
        assert_eq!(engine_rules::tp_allowed(m, Engine::Vllm, tp), ok, "tp {tp}");
        assert!(engine_rules::tp_allowed(m, Engine::LlamaCpp, tp), "a layer split takes {tp}");
    }
    // 12 heads over 3 KV heads: 2 GPUs divide the heads but neither divide the KV heads nor are a multiple of them.
    let odd = whichgpu::core::catalog::Model { heads: 12, kv_heads: 3, ..m.clone() };
    assert!(!engine_rules::tp_allowed(&odd, Engine::Vllm, 2));
    assert!(engine_rules::tp_allowed(&odd, Engine::Vllm, 3));
}

/// vLLM's `validate_fp8_block_shape` on the attention: the output
/// projection's input (query heads × head size) on one GPU must be a whole
/// number of 128 blocks (fp8_utils.py: "input_size_per_partition … is not
/// divisible by weight quantization block_k"). A Qwen3 (block-quantized
/// FP8) shape with a head size of 80 cuts 32 × 80 = 2560 into 640 at TP 4
/// (5 blocks) and 320 at TP 8 (2.5 blocks).
#[test]
fn fp8_blocks_bind_the_attention_slices_too() {
    let base = catalog().model("qwen3-8b").expect("model");
    let m = whichgpu::core::catalog::Model { heads: 32, kv_heads: 32, head_dim: 80, ..base.clone() };
    assert!(engine_rules::refusal(&m, "fp8", Engine::Vllm, 4).is_none());
    let r = engine_rules::refusal(&m, "fp8", Engine::Vllm, 8).expect("refused at TP 8");
    assert_eq!((r.dim, r.full, r.per_gpu, r.multiple), (Dim::QHeads, 2560, 320, 128));
    assert!(r.source.contains("validate_fp8_block_shape"), "{}", r.source);
    // TensorRT-LLM builds its own engine: the engine table records no such check for it.
    assert!(engine_rules::refusal(&m, "fp8", Engine::TrtLlm, 8).is_none());
}
