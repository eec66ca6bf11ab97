//! A practitioner's check of training answers: what a person about to pay
//! for a fine-tuning or pre-training job reads must hold for that job.
//! CPU offload is said with the RAM it needs (DeepSpeed's own estimator),
//! the GPU figures say they leave the offloaded states out, and full
//! recomputation is not the only setting the what-if strip tries.

use proptest::prelude::*;
use whichgpu::core::config::Lang;

use crate::common::answer;

/// The rendered guidance of an answer, by item id, in both languages.
fn guidance(q: &str) -> Vec<(&'static str, &'static str, String, String)> {
    answer(q)
        .guidance
        .iter()
        .map(|g| (g.id, g.msg.key, g.msg.render(Lang::En), g.msg.render(Lang::Zh)))
        .collect()
}

#[test]
fn an_offloaded_full_fine_tune_says_the_ram_it_needs() {
    // Qwen2.5 14B (14.77e9 parameters), everything offloaded, one instance:
    // DeepSpeed's 18 bytes per parameter × 1.5 ≈ 371 GiB of RAM.
    let g = guidance("task=finetune&model=qwen2.5-14b&method=full&zero=3&param_offload=1&optim_offload=1&tokens=1e8&gpu=h100-sxm-80gb&gpus=1");
    let host = g.iter().find(|i| i.0 == "host-memory").expect("the RAM is said");
    assert_eq!(host.1, "g.train.host.all");
    let gib: f64 = host
        .2
        .split("about ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a GiB figure");
    assert!((350.0..400.0).contains(&gib), "{}", host.2);
    assert!(host.3.contains(&format!("{gib:.1}")), "{}", host.3);
    let methods = g.iter().find(|i| i.0 == "methods").expect("methods");
    assert_eq!(methods.1, "g.train.methods.offload", "{}", methods.2);
    assert!(!methods.2.contains("optimizer states for every parameter"), "{}", methods.2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The RAM sentence appears exactly when the plan offloads optimizer
    /// states, and the methods sentence never counts offloaded states as
    /// GPU memory; both languages carry the same figure.
    #[test]
    fn offload_sentences_follow_the_plan(
        m in prop::sample::select(vec!["llama-3.2-1b", "llama-3.1-8b", "qwen2.5-14b"]),
        method in prop::sample::select(vec!["full", "lora"]),
        trainer in prop::sample::select(vec!["hf", "deepspeed", "axolotl", "torchtune"]),
        zero in 0u8..4,
        optim in any::<bool>(),
        param in any::<bool>(),
        nodes in 1u32..3,
    ) {
        let q = format!(
            "task=finetune&model={m}&method={method}&trainer={trainer}&zero={zero}&optim_offload={}&param_offload={}&nodes={nodes}&gpus=8&tokens=1e8",
            u8::from(optim),
            u8::from(param)
        );
        let a = answer(&q);
        let cfg = whichgpu::core::link::decode(&a.query).0;
        let g: Vec<_> = a.guidance.iter().map(|g| (g.id, g.msg.key, g.msg.render(Lang::En), g.msg.render(Lang::Zh))).collect();
        let offloaded = cfg.optim_offload || (cfg.param_offload && cfg.zero_stage() >= 3);
        let host = g.iter().find(|i| i.0 == "host-memory");
        prop_assert_eq!(host.is_some(), offloaded && a.pick().is_some(), "{}", q);
        if let Some(h) = host {
            let gib = h.2.split("about ").nth(1).and_then(|t| t.split(' ').next()).unwrap_or("");
            prop_assert!(h.3.contains(gib) && !gib.is_empty(), "{} / {}", h.2, h.3);
        }
        if let Some(mm) = g.iter().find(|i| i.0 == "methods") {
            prop_assert_eq!(mm.1 == "g.train.methods.offload", offloaded, "{}", mm.2);
        }
    }
}

/// A 1B pre-training run on 180 GB cards with full recomputation uses a
/// fraction of the memory: dropping the recomputation is cheaper, and the
/// what-if strip says so.
#[test]
fn recomputation_is_tried_off_when_memory_allows() {
    let a = answer("task=pretrain&model=llama-3.2-1b&tokens=5e10&days=7");
    assert!(
        a.whatif.iter().any(|c| c.key == "gc" && c.value == "none" && c.better),
        "{:?}",
        a.whatif.iter().map(|c| (c.key, &c.value, c.better)).collect::<Vec<_>>()
    );
    let a = answer("task=pretrain&model=llama-3.1-8b&tokens=1e10&trainer=torchtitan&gpus=8");
    assert!(
        a.whatif.iter().any(|c| c.key == "gc" && c.value == "selective"),
        "torchtitan has a selective mode"
    );
}

/// Gemma 2 9B LoRA does not fit a 16 GB T4 with a 16-bit base; QLoRA's
/// 4-bit base does. The no-fit advice names QLoRA, never Megatron-LM,
/// which has no adapters and would plan the job as a full fine-tune.
#[test]
fn an_adapter_job_that_fits_nowhere_is_pointed_to_qlora_not_megatron() {
    let g = guidance("task=finetune&model=gemma-2-9b&method=lora&trainer=unsloth&gpu=t4-16gb&tokens=1e7");
    let nofit = g.iter().find(|i| i.2.contains("try them one at a time")).expect("the no-fit advice");
    assert!(nofit.2.contains("method=qlora") && !nofit.2.contains("trainer=megatron"), "{}", nofit.2);
    assert!(
        answer("task=finetune&model=gemma-2-9b&method=qlora&trainer=unsloth&gpu=t4-16gb&tokens=1e7")
            .pick()
            .is_some(),
        "the advice works"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn no_fit_advice_for_adapters_never_names_a_stack_without_them(
        m in prop::sample::select(vec!["llama-3.1-8b", "qwen2.5-14b", "llama-3.1-70b", "qwen2.5-72b"]),
        method in prop::sample::select(vec!["lora", "qlora"]),
        gpu in prop::sample::select(vec!["rtx-3070-8gb", "t4-16gb", "rtx-4090-24gb", "l40s-48gb"]),
        trainer in prop::sample::select(vec!["hf", "unsloth", "axolotl", "torchtune"]),
        seq in prop::sample::select(vec![2048u32, 8192, 32768]),
    ) {
        let q = format!("task=finetune&model={m}&method={method}&trainer={trainer}&gpu={gpu}&gpus=1&seq={seq}&tokens=1e7");
        for (_, _, en, _) in guidance(&q).iter().filter(|i| i.2.contains("try them one at a time")) {
            prop_assert!(!en.contains("trainer=megatron") && !en.contains("trainer=torchtitan"), "{}: {}", q, en);
            prop_assert_eq!(en.contains("method=qlora"), method == "lora", "{}: {}", q, en);
        }
    }
}
