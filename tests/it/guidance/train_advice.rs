//! Advice a person acts on before paying for a training job: each change
//! the no-fit note offers shrinks what every GPU holds at the GPU count the
//! link asks for; "the fastest that fits" of an unreachable deadline is
//! the fastest any offer can be; the answer to "do I need an 80 GB card?"
//! is "no" where a fitting 24–48 GB card holds the job; a run of months
//! without a deadline says that `days` scales it out, and it does.

use proptest::prelude::*;
use whichgpu::core::answer::Answer;
use whichgpu::core::config::Lang;
use whichgpu::core::messages::{Arg, Msg};
use whichgpu::core::units::GIB;

use crate::common::answer;

/// The no-fit note's changes, as `key=value`.
fn nofit_tries(a: &Answer) -> Option<Vec<String>> {
    let g = a.guidance.iter().find(|g| g.msg.key == "g.train.nofit")?;
    let text = g.msg.render(Lang::En);
    let list = text.split("one at a time: ").nth(1)?.trim_end_matches('.');
    Some(list.split(", ").map(str::to_string).collect())
}

fn per_gpu(a: &Answer) -> f64 {
    a.memory.total_bytes / f64::from(a.memory.gpus.max(1))
}

/// A 70B QLoRA on one 48 GB card with the Hugging Face stack
/// does not fit; ZeRO-3 on one GPU shards nothing, so it is not offered;
/// Unsloth's fused loss and offloaded checkpoints are, and they fit.
#[test]
fn one_gpu_no_fit_offers_what_shrinks_it_not_zero3() {
    let q = "task=finetune&model=llama-3.1-70b&method=qlora&gpu=l40s-48gb&gpus=1&tokens=5e7";
    let a = answer(q);
    assert!(a.pick().is_none(), "{q} fits: the case is gone");
    let tries = nofit_tries(&a).expect("the no-fit note");
    assert!(!tries.iter().any(|t| t == "zero=3"), "{tries:?}");
    assert!(tries.iter().any(|t| t == "trainer=unsloth"), "{tries:?}");
    assert!(answer(&format!("{q}&trainer=unsloth")).pick().is_some(), "the advice works");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every change the no-fit note names, applied to the link alone,
    /// lowers the memory per GPU of the same GPU type and count (Megatron's
    /// pipeline stages excepted: they split layers, which the data-parallel
    /// figure does not show; they are never offered for one GPU).
    #[test]
    fn every_nofit_try_shrinks_the_memory_per_gpu(
        m in prop::sample::select(vec!["llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b", "llama-3.1-70b"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        trainer in prop::sample::select(vec!["hf", "deepspeed", "axolotl", "torchtune", "unsloth", "torchtitan"]),
        gpu in prop::sample::select(vec!["rtx-4090-24gb", "l40s-48gb", "a100-sxm-40gb", "h100-sxm-80gb"]),
        gpus in prop::sample::select(vec![1u32, 2, 8]),
        seq in prop::sample::select(vec![2048u32, 8192, 32768]),
        mb in prop::sample::select(vec![1u32, 4]),
        gc in prop::sample::select(vec!["full", "none"]),
    ) {
        let task = if trainer == "torchtitan" { "pretrain" } else { "finetune" };
        let q = format!("task={task}&model={m}&method={method}&trainer={trainer}&gpu={gpu}&gpus={gpus}&seq={seq}&mb={mb}&gc={gc}&tokens=1e7");
        let a = answer(&q);
        let Some(tries) = nofit_tries(&a) else { return Ok(()) };
        prop_assert!(!tries.is_empty(), "{}", q);
        let before = per_gpu(&a);
        for t in &tries {
            if t == "trainer=megatron" {
                prop_assert!(gpus > 1, "{}: pipeline stages offered for one GPU", q);
                continue;
            }
            let after = answer(&format!("{q}&{t}"));
            prop_assert_eq!(after.memory.gpus, a.memory.gpus, "{}&{}", q, t);
            prop_assert!(per_gpu(&after) < before, "{}&{}: {:.1} GiB per GPU, was {:.1}", q, t, per_gpu(&after) / GIB, before / GIB);
        }
    }
}

/// The notice's number for an unreachable deadline, in days.
fn fastest_days(a: &Answer) -> Option<f64> {
    let n = a.notices.iter().find(|n| n.key == "days")?;
    n.message.split("takes ").nth(1)?.split(' ').next()?.parse().ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    /// "The fastest that fits takes T days" is the fastest any offer can
    /// be: a deadline a little under T is still met by none.
    #[test]
    fn the_fastest_of_an_unreachable_deadline_is_the_fastest(
        m in prop::sample::select(vec!["llama-3.2-1b", "llama-3.1-8b"]),
        tokens in prop::sample::select(vec!["1e11", "1e12"]),
    ) {
        let q = format!("task=pretrain&model={m}&tokens={tokens}");
        let a = answer(&format!("{q}&days=0.01"));
        let took = fastest_days(&a).expect("the deadline notice with the fastest time");
        let shorter = took * 0.8;
        if shorter >= 0.01 {
            let b = answer(&format!("{q}&days={shorter:.3}"));
            prop_assert!(b.offers.iter().all(|o| !o.meets), "{}: days={:.3} is met although the fastest takes {} days", q, shorter, took);
        }
    }
}

/// An SDXL DreamBooth run needs about 45 GiB: the cheapest fitting offer is
/// a 48 GB RTX A6000, so "Yes, an 80 GB card" would be false.
#[test]
fn a_job_a_fitting_48gb_card_holds_is_not_sent_to_80gb() {
    let a = answer("task=finetune&model=sdxl&method=full");
    assert!(a.offers.iter().any(|o| o.fits && o.gpu.contains("48gb")), "the case is gone");
    let size = a.guidance.iter().find(|g| g.id == "gpu-size").expect("size answer");
    assert!(size.msg.key.starts_with("g.size.medium"), "{}: {}", size.msg.key, size.msg.render(Lang::En));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// The size answer says a datacenter card is needed only where no
    /// fitting offer on a card of 50 GiB or less holds what each GPU of the
    /// plan holds (training and generation: every GPU holds its share).
    #[test]
    fn the_large_size_answer_only_where_no_smaller_card_holds_it(
        m in prop::sample::select(vec!["sdxl", "flux.1-dev", "sd-3.5-large", "llama-3.1-8b", "qwen2.5-14b", "wan-2.1-14b", "hunyuanvideo"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        res in prop::sample::select(vec!["512x512", "1024x1024"]),
    ) {
        let video = m.starts_with("wan") || m.starts_with("hunyuan");
        let task = if video { "generate" } else { "finetune" };
        let q = format!("task={task}&model={m}&method={method}&res={res}&tokens=1e7");
        let a = answer(&q);
        let Some(size) = a.guidance.iter().find(|g| g.id == "gpu-size") else { return Ok(()) };
        if size.msg.key.starts_with("g.size.large") {
            let need = per_gpu(&a);
            let small = a.offers.iter().find(|o| o.fits && o.usable_bytes <= 50.0 * GIB && o.usable_bytes >= need);
            prop_assert!(small.is_none(), "{}: {} beside {:?} holding {:.1} GiB", q, size.msg.render(Lang::En), small.map(|o| &o.id), need / GIB);
        }
    }
}

/// An 8B pre-training on 1e12 tokens with no deadline takes months on the
/// fewest GPUs; the note says so in both languages, and a deadline a
/// quarter of that time is met with more GPUs, as it says.
#[test]
fn a_months_long_run_says_days_scales_it_out() {
    let q = "task=pretrain&model=llama-3.1-8b&tokens=1e12";
    let a = answer(q);
    let note = a.guidance.iter().find(|g| g.id == "long-run").expect("the long-run note");
    let (en, zh) = (note.msg.render(Lang::En), note.msg.render(Lang::Zh));
    let days: f64 = en
        .split("about ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|d| d.parse().ok())
        .expect("days");
    assert!(zh.contains(&format!("{days}")), "{zh}");
    let pick = a.pick().expect("a pick");
    assert!((pick.speeds.job_hours().unwrap_or(0.0) / 24.0 - days).abs() <= 0.51, "{en}");
    let faster = answer(&format!("{q}&days={}", (days / 4.0).ceil()));
    let p = faster.pick().expect("a pick with the deadline");
    assert!(
        p.meets && p.gpus * p.instances > pick.gpus * pick.instances,
        "{:?}",
        (p.meets, p.gpus, p.instances)
    );
    assert!(faster.guidance.iter().all(|g| g.id != "long-run"), "the note with a deadline");
    // Short runs and pinned counts get no note.
    assert!(answer("task=pretrain&model=llama-3.1-8b&tokens=1e10")
        .guidance
        .iter()
        .all(|g| g.id != "long-run"));
    assert!(answer(&format!("{q}&gpus=8")).guidance.iter().all(|g| g.id != "long-run"));
}

/// Two A100 40GB hold an 8B LoRA at micro-batch 4, but no provider rents
/// instances of two: the note says the shape is missing and names the
/// sizes offered (not memory changes), and one of them gets a pick.
#[test]
fn a_missing_instance_size_is_said_as_such() {
    let q = "task=finetune&model=llama-3.1-8b&method=lora&gpu=a100-sxm-40gb&gpus=2&mb=4&gc=none&tokens=1e7";
    let a = answer(q);
    assert!(a.pick().is_none(), "{q}: the case is gone");
    assert!(nofit_tries(&a).is_none(), "memory changes for a missing shape");
    let note = a.guidance.iter().find(|g| g.id == "noshape").expect("the shape note");
    let sizes: Vec<u32> = note
        .msg
        .render(Lang::En)
        .split("come with ")
        .nth(1)
        .and_then(|t| t.split(" GPUs").next())
        .expect("sizes")
        .split(", ")
        .map(|s| s.parse().expect("a size"))
        .collect();
    assert!(
        sizes.iter().all(|s| a.offers.iter().any(|o| o.gpus == *s && *o.gpu == *a.memory.gpu)),
        "{sizes:?}"
    );
    let en = note.msg.render(Lang::En);
    let need = en.split('(').nth(1).and_then(|t| t.split(' ').next()).expect("GiB per GPU");
    assert!(note.msg.render(Lang::Zh).contains(need), "{}", note.msg.render(Lang::Zh));
    let size = sizes.iter().max().expect("a size");
    assert!(
        answer(&q.replace("gpus=2", &format!("gpus={size}"))).pick().is_some(),
        "gpus={size} has no pick"
    );
}

/// A pre-training run over three 8-GPU instances: the launch text's
/// header names every instance, not one instance's GPUs alone.
#[test]
fn a_multi_instance_launch_names_its_instances() {
    let a = answer("task=pretrain&model=llama-3.1-8b&tokens=2e11&days=7");
    for e in whichgpu::core::export::for_answer(&a, crate::common::catalog()) {
        let o = a.offers.iter().find(|o| o.id == e.offer).expect("the offer");
        let header = e.command.lines().next().unwrap_or_default();
        assert_eq!(
            header.contains(&format!("{} instances", o.instances)),
            o.instances > 1,
            "{}: {header}",
            e.offer
        );
    }
    assert!(a.pick().is_some_and(|p| p.instances > 1), "the case is gone");
}

/// Qwen2.5 14B with parameters and optimizer states offloaded on one H100:
/// the PCIe transfers, not the matrix multiplies, set the pace, and the
/// sentence says so (the job runs at a quarter of its compute rate).
#[test]
fn an_offload_bound_job_is_not_called_compute_bound() {
    let q = "task=finetune&model=qwen2.5-14b&method=full&zero=3&param_offload=1&optim_offload=1&tokens=1e8&gpu=h100-sxm-80gb&gpus=1";
    let bound = answer(q).guidance.into_iter().find(|g| g.id == "train-bound").expect("the speed answer");
    // The host link, or the CPU's optimizer step (`train_clock`), sets the pace.
    assert!(offload_bound(&bound.msg), "{}", bound.msg.render(Lang::En));
    // On a 24 GB card the size answer does not call it compute bound either.
    let g = answer(&q.replace("h100-sxm-80gb", "rtx-4090-24gb")).guidance;
    assert!(g.iter().any(|i| offload_bound(&i.msg)), "the 4090 case is gone");
    let size = g.iter().find(|i| i.id == "gpu-size").expect("the size answer");
    assert_eq!(size.msg.key, "g.size.small.offload", "{}", size.msg.render(Lang::En));
    let off = answer("task=finetune&model=llama-3.1-8b&method=lora&tokens=1e8&gpu=h100-sxm-80gb&gpus=1");
    let bound = off.guidance.into_iter().find(|g| g.id == "train-bound").expect("the speed answer");
    // One GPU, nothing offloaded: compute, or the eager stack's own clock
    // (launches, unfused elementwise ops), never the host link or the CPU.
    assert!(
        matches!(bound.msg.key, "g.train.bound.one" | "g.train.clock") && !offload_bound(&bound.msg),
        "{}",
        bound.msg.render(Lang::En)
    );
}

/// The clock term a `g.train.clock` sentence names.
fn clock_term(m: &Msg) -> Option<&'static str> {
    m.args.iter().find_map(|(name, a)| match (m.key, *name, a) {
        ("g.train.clock", "term", Arg::Msg(t)) => Some(t.key),
        _ => None,
    })
}

/// A sentence that puts the pace on offloading: the host link or the CPU's optimizer step.
fn offload_bound(m: &Msg) -> bool {
    m.key == "g.train.hostlink" || clock_term(m) == Some("g.train.clock.cpu")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The speed answer fits the pick: "plus the traffic between GPUs" only
    /// where the pick has more than one; the host link only where the job
    /// offloads something to CPU memory.
    #[test]
    fn the_speed_answer_fits_the_pick(
        m in prop::sample::select(vec!["llama-3.2-1b", "llama-3.1-8b", "qwen2.5-14b"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        trainer in prop::sample::select(vec!["hf", "deepspeed", "unsloth", "torchtune"]),
        gpus in prop::sample::select(vec![1u32, 2, 8]),
        offload in prop::sample::select(vec!["", "&optim_offload=1", "&act_offload=1", "&param_offload=1&zero=3"]),
    ) {
        let q = format!("task=finetune&model={m}&method={method}&trainer={trainer}&gpu=h100-sxm-80gb&gpus={gpus}&tokens=1e7{offload}");
        let a = answer(&q);
        let (Some(p), Some(g)) = (a.pick(), a.guidance.iter().find(|g| g.id == "train-bound")) else { return Ok(()) };
        let n = p.dp * p.tp * p.pp;
        match g.msg.key {
            "g.train.bound.one" => prop_assert_eq!(n, 1, "{}", q),
            "g.train.bound" | "g.train.network" | "g.train.network.sharded" => prop_assert!(n > 1, "{}: {}", q, g.msg.render(Lang::En)),
            "g.train.hostlink" => prop_assert!(!offload.is_empty() || trainer == "unsloth" || trainer == "torchtune", "{}: host link without offload", q),
            // The stack's own clock: the CPU step only where the optimizer is
            // offloaded, ZeRO-3's collectives only over several GPUs at ZeRO-3,
            // no looped experts for a dense model.
            "g.train.clock" => match clock_term(&g.msg) {
                Some("g.train.clock.cpu") => prop_assert!(offload.contains("optim") || offload.contains("param"), "{}", q),
                Some("g.train.clock.zero3") => prop_assert!(n > 1 && p.zero == Some(3), "{}", q),
                Some("g.train.clock.host" | "g.train.clock.elementwise") => prop_assert!(trainer != "torchtitan", "{}", q),
                other => prop_assert!(false, "{}: {:?}", q, other),
            },
            other => prop_assert!(false, "{}: {}", q, other),
        }
    }
}

/// "Do I need an 80 GB card? Yes" is said of the pick's plan only where no
/// fitting offer runs the job on 80 GB cards or smaller: an 8B full
/// fine-tune picked unsharded on B200s (125 GiB a GPU) also runs sharded
/// on 80 GB cards, and the answer names that offer.
#[test]
fn a_yes_for_80_gb_names_the_smaller_cards_that_run_the_job() {
    use whichgpu::core::config::Lang;
    // Hyperstack's offers: its B200 node is the pick, its H100 nodes run the
    // job sharded (across every provider, a fast-starting H100 node wins).
    let a = answer("task=finetune&model=llama-3.1-8b&method=full&tokens=5e8&days=1&provider=hyperstack");
    let size = a.guidance.iter().find(|g| g.id == "gpu-size").expect("the size answer");
    let per_gpu = a.memory.total_bytes / f64::from(a.memory.gpus.max(1));
    let smaller =
        a.offers.iter().find(|o| o.fits && o.usable_bytes <= 76.0 * GIB && o.usable_bytes < per_gpu);
    assert!(
        per_gpu > 80.0 * GIB && smaller.is_some(),
        "the test expects a >80 GiB plan and a smaller card that fits"
    );
    assert_eq!(size.msg.key, "g.size.sharded", "{}", size.msg.render(Lang::En));
}
