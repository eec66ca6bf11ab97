//! How a training plan splits a model when the link names no ZeRO stage:
//! data-parallel replicas sharded by ZeRO/FSDP where they fit, tensor
//! parallelism over PCIe only where nothing else does (docs/link-format.md, `zero`);
//! torchtune, whose distributed recipes always shard with FSDP2, never
//! planned unsharded.

use proptest::prelude::*;
use whichgpu::core::answer::{Answer, OfferResult};

use crate::common::answer;

fn offer<'a>(a: &'a Answer, id: &str) -> Option<&'a OfferResult> {
    a.offers.iter().find(|o| &*o.id == id)
}

/// The ranking's margin (`offers::thin_margin`).
fn roomy(o: &OfferResult) -> bool {
    !whichgpu::core::offers::thin_margin(o.usable_bytes, o.need_bytes)
}

fn pcie(o: &OfferResult) -> bool {
    !matches!(o.interconnect, "nvlink" | "nvswitch" | "xgmi" | "nvl72")
}

/// The defect: an 8B full fine-tune on four L40S (PCIe) at the default
/// was planned as tensor parallel 4 with no sharding; ZeRO-3 over four
/// replicas holds it.
#[test]
fn eight_b_full_on_four_l40s_shards_instead_of_tensor_parallel() {
    let a = answer("task=finetune&model=llama-3.1-8b&method=full&gpu=l40s-48gb&gpus=4");
    let p = a.pick().expect("a pick");
    assert_eq!((p.dp, p.tp, p.pp, p.zero), (4, 1, 1, Some(3)), "{}", p.id);
    // Asked for, the unsharded layout is still what the link says.
    let z0 = answer("task=finetune&model=llama-3.1-8b&method=full&gpu=l40s-48gb&gpus=4&zero=0");
    let p0 = z0.pick().expect("a pick");
    assert_eq!((p0.tp, p0.zero), (4, Some(0)));
}

/// torchtune at the default and at zero=0 shards with FSDP2: an 8B full
/// fine-tune fits two L40S (it fitted nothing as an unsharded plan).
#[test]
fn torchtune_is_planned_sharded() {
    for q in [
        "task=finetune&model=llama-3.1-8b&method=full&trainer=torchtune&gpu=l40s-48gb",
        "task=finetune&model=llama-3.1-8b&method=full&trainer=torchtune&gpu=l40s-48gb&zero=0",
    ] {
        let a = answer(q);
        let p = a.pick().expect("a pick");
        assert!(p.dp > 1 && p.zero == Some(3), "{q}: {} dp {} zero {:?}", p.id, p.dp, p.zero);
        assert_eq!(a.notices.iter().any(|n| n.key == "zero"), q.ends_with("zero=0"), "{q}: {:?}", a.notices);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// At the default, no fitting offer runs tensor parallelism over GPUs
    /// joined only by PCIe when the same offer holds the job at some ZeRO
    /// stage without it (with memory to spare, which the order puts first:
    /// `plan::train_zero`); and every offer's stage is one the stack runs.
    #[test]
    fn no_tensor_parallel_over_pcie_where_sharding_fits(
        m in prop::sample::select(vec!["llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "llama-3.1-70b"]),
        method in prop::sample::select(vec!["full", "lora"]),
        trainer in prop::sample::select(vec!["hf", "deepspeed", "axolotl", "torchtitan", "megatron", "torchtune"]),
        gpu in prop::sample::select(vec!["rtx-4090-24gb", "l40s-48gb", "rtx-a6000-48gb", "a100-pcie-80gb", "l4-24gb", "rtx-5090-32gb"]),
        seq in prop::sample::select(vec![2048u32, 8192]),
    ) {
        let q = format!("task=finetune&model={m}&method={method}&trainer={trainer}&gpu={gpu}&seq={seq}&tokens=1e7");
        let auto = answer(&q);
        let explicit: Vec<Answer> = (0..=3).map(|z| answer(&format!("{q}&zero={z}"))).collect();
        for o in auto.offers.iter().filter(|o| o.fits) {
            let zero = o.zero.expect("a training offer names its stage");
            prop_assert!(trainer != "torchtune" || zero == 3, "{q}: torchtune at zero {zero}");
            if o.tp > 1 && pcie(o) {
                let sharded = explicit.iter().filter_map(|a| offer(a, &o.id)).find(|e| e.fits && e.tp == 1 && roomy(e));
                prop_assert!(sharded.is_none(), "{q}: {} runs tp {} over PCIe while zero {:?} fits with tp 1", o.id, o.tp, sharded.and_then(|e| e.zero));
            }
        }
    }
}
