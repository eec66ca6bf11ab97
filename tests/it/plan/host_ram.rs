//! Offloaded training states live in each instance's CPU memory. An offer
//! whose published RAM is smaller than that is not picked (the job would
//! die on the host), one whose RAM is unpublished is not picked while an
//! offer that publishes enough meets everything, and the guidance says
//! which of the two the pick is.

use proptest::prelude::*;
use whichgpu::core::answer::Answer;
use whichgpu::core::config::Lang;
use whichgpu::core::units::GIB;

use crate::common::{answer, catalog};

/// The RAM the whole job's offloaded states take (GiB, all instances
/// together), read from the host sentence, and that sentence in English.
fn host_total(a: &Answer) -> Option<(f64, String)> {
    let g = a.guidance.iter().find(|g| g.id == "host-memory")?;
    let en = g.msg.render(Lang::En);
    let per_instance: f64 = en.split("about ").nth(1)?.split(' ').next()?.parse().ok()?;
    Some((per_instance * f64::from(a.pick()?.instances.max(1)), en))
}

#[test]
fn an_offloaded_job_is_not_picked_on_an_instance_with_too_little_ram() {
    // Qwen2.5 14B, everything offloaded: about 370 GiB of RAM. AWS's
    // single-GPU g5/g6 instances publish 16–256 GiB; the p4d publishes 1,152.
    let q = "task=finetune&model=qwen2.5-14b&method=full&zero=3&param_offload=1&optim_offload=1&tokens=2e7&provider=aws";
    let a = answer(q);
    let pick = a.pick().expect("a pick");
    let ram = catalog().offer(&pick.id).and_then(|o| o.ram_gb).expect("AWS publishes RAM");
    let (total, en) = host_total(&a).expect("the RAM sentence");
    assert!(ram >= total / f64::from(pick.instances.max(1)), "{}: {ram} GiB", pick.id);
    assert!(en.contains(&format!("has {ram:.0} GiB")), "{en}");
    let refused =
        a.offers.iter().filter(|o| o.reason_msgs.iter().any(|m| m.key == "reason.host_ram")).count();
    assert!(refused > 0, "some AWS instance has too little RAM and says so");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_pick_has_the_ram_its_offloaded_states_need(
        m in prop::sample::select(vec!["llama-3.2-1b", "llama-3.1-8b", "qwen2.5-14b", "qwen2.5-32b"]),
        method in prop::sample::select(vec!["full", "lora"]),
        param in any::<bool>(),
        provider in prop::sample::select(vec!["", "&provider=aws", "&provider=runpod", "&provider=lambda", "&provider=vastai"]),
        gpus in prop::sample::select(vec!["", "&gpus=1", "&gpus=8"]),
    ) {
        let q = format!("task=finetune&model={m}&method={method}&zero=3&optim_offload=1&param_offload={}&tokens=1e8{provider}{gpus}", u8::from(param));
        let a = answer(&q);
        let Some(pick) = a.pick() else { return Ok(()) };
        let (total, en) = host_total(&a).expect("an offloading pick says the RAM it needs");
        let need = |instances: u32| total / f64::from(instances.max(1));
        let ram = |id: &str| catalog().offer(id).and_then(|o| o.ram_gb);
        // Known and too small: never meets, and says why (rounding: the
        // sentence's figure has one decimal).
        for o in &a.offers {
            if let Some(r) = ram(&o.id) {
                if r < need(o.instances) - 0.1 {
                    prop_assert!(!o.meets, "{}: {} has {} GiB < {:.1}", q, o.id, r, need(o.instances));
                    prop_assert!(o.reason_msgs.iter().any(|m| m.key == "reason.host_ram"), "{}: {}", q, o.id);
                }
            }
        }
        match ram(&pick.id) {
            Some(r) => {
                prop_assert!(r >= need(pick.instances) - 0.1, "{}: picked {} with {} GiB", q, pick.id, r);
                prop_assert!(en.contains(&format!("has {r:.0} GiB")), "{}: {}", q, en);
            }
            None => {
                // Unpublished: only when no offer that publishes enough meets
                // everything on a current price in reach with room.
                let known_enough = a.offers.iter().filter(|o| o.meets && !o.stale && !o.foreign && !o.thin).find(|o| ram(&o.id).is_some_and(|r| r * GIB >= need(o.instances) * GIB));
                prop_assert!(known_enough.is_none(), "{}: picked {} (RAM unpublished) over {:?}", q, pick.id, known_enough.map(|o| &o.id));
                prop_assert!(en.contains("does not publish"), "{}: {}", q, en);
                prop_assert!(pick.reason_msgs.iter().any(|m| m.key == "reason.host_unknown"), "{}", q);
            }
        }
    }
}

#[test]
fn the_skypilot_task_asks_for_the_ram_the_offloaded_states_need() {
    use whichgpu::core::export::for_answer;
    let q = "task=finetune&model=qwen2.5-14b&method=full&zero=3&param_offload=1&optim_offload=1&tokens=2e7";
    let a = answer(q);
    crate::export::texts::check(&a);
    let (total, _) = host_total(&a).expect("the RAM sentence");
    for e in for_answer(&a, catalog()) {
        let o = a.offers.iter().find(|o| o.id == e.offer).expect("the offer");
        let need = (total / f64::from(o.instances.max(1))).ceil();
        let line = e
            .skypilot_yaml
            .lines()
            .find(|l| l.trim_start().starts_with("memory:"))
            .unwrap_or_else(|| panic!("no memory line:\n{}", e.skypilot_yaml));
        let asked: f64 =
            line.trim().trim_start_matches("memory:").trim().trim_end_matches('+').parse().expect("GiB");
        // The sentence rounds to one decimal; the task rounds up.
        assert!((asked - need).abs() <= 1.0, "{}: asks {asked} GiB, needs {need}", e.offer);
    }
    // Nothing offloaded: nothing asked.
    let plain = answer("task=finetune&model=qwen2.5-14b&method=lora&tokens=2e7");
    assert!(for_answer(&plain, catalog()).iter().all(|e| !e.skypilot_yaml.contains("memory:")));
}
