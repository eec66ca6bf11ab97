//! The China-region rows of the catalog: the China-market GPUs with their
//! architectures and driver totals, the CNY providers and their offers, and
//! answers pinned to those GPUs and providers.

use std::collections::BTreeSet;

use whichgpu::core::catalog::gpus::{Arch, Vendor};
use whichgpu::core::catalog::Date;
use whichgpu::core::config::Currency;

use crate::common::{answer, catalog};

#[test]
fn china_market_gpus_have_their_architecture_and_driver_total() {
    // (id, vendor, architecture, memory total as nvidia-smi / npu-smi prints it)
    for (id, vendor, arch, mib) in [
        ("h20-96gb", Vendor::Nvidia, Arch::Hopper, 97_871.0),
        ("h800-sxm-80gb", Vendor::Nvidia, Arch::Hopper, 81_559.0),
        ("h800-pcie-80gb", Vendor::Nvidia, Arch::Hopper, 81_559.0),
        ("a800-sxm-80gb", Vendor::Nvidia, Arch::Ampere, 81_920.0),
        ("a800-pcie-80gb", Vendor::Nvidia, Arch::Ampere, 81_920.0),
        ("l20-48gb", Vendor::Nvidia, Arch::Ada, 46_068.0),
        ("rtx-4090d-24gb", Vendor::Nvidia, Arch::Ada, 24_564.0),
        ("ascend-910b-64gb", Vendor::Huawei, Arch::Ascend910b, 65_536.0),
    ] {
        let g = catalog().gpu(id).unwrap_or_else(|| panic!("{id} in gpus.csv"));
        assert_eq!((g.vendor, g.arch, g.usable_mib), (vendor, arch, mib), "{id}");
    }
    // The export variants keep their base part's compute and cut only the link.
    let get = |id: &str| catalog().gpu(id).unwrap_or_else(|| panic!("{id}"));
    assert_eq!(get("h800-sxm-80gb").bf16_tflops, get("h100-sxm-80gb").bf16_tflops);
    assert!(get("h800-sxm-80gb").nvlink_gbps < get("h100-sxm-80gb").nvlink_gbps);
    assert_eq!(get("a800-sxm-80gb").bf16_tflops, get("a100-sxm-80gb").bf16_tflops);
    assert!(get("a800-sxm-80gb").nvlink_gbps < get("a100-sxm-80gb").nvlink_gbps);
    // The H20 trades compute for bandwidth; the 910B has no FP8 units.
    assert!(
        get("h20-96gb").bf16_tflops < get("h100-pcie-80gb").bf16_tflops
            && get("h20-96gb").mem_bw_gbps > get("h100-sxm-80gb").mem_bw_gbps
    );
    assert_eq!(get("ascend-910b-64gb").fp8_tflops, None);
}

#[test]
fn cny_offers_come_from_cny_providers_with_source_and_date() {
    let c = catalog();
    let cny: Vec<_> = c.offers.iter().filter(|o| o.currency == Currency::Cny).collect();
    assert!(cny.len() >= 25, "{} CNY offers", cny.len());
    let providers: BTreeSet<&str> = cny.iter().map(|o| &*o.provider).collect();
    assert!(providers.len() >= 4, "CNY providers: {providers:?}");
    for o in &cny {
        let p = c.provider(&o.provider).unwrap_or_else(|| panic!("{}: provider", o.id));
        assert_eq!(
            p.currency,
            Currency::Cny,
            "{}: a CNY offer from a provider billing in {:?}",
            o.id,
            p.currency
        );
        assert!(!o.source.trim().is_empty() && !o.region.trim().is_empty(), "{}", o.id);
        assert!(o.as_of >= Date::parse("2026-01-01").expect("date"), "{} dated {}", o.id, o.as_of);
    }
    // Every China-market GPU the CNY platforms list is rentable in the catalog.
    for gpu in
        ["h20-96gb", "h800-pcie-80gb", "a800-pcie-80gb", "l20-48gb", "rtx-4090d-24gb", "ascend-910b-64gb"]
    {
        assert!(cny.iter().any(|o| &*o.gpu == gpu), "no CNY offer for {gpu}");
    }
}

#[test]
fn answers_pinned_to_china_gpus_and_providers_pick_from_them() {
    // H20: 72B at FP8 (~70 GiB of weights) fits one 96 GB card.
    let picked =
        |q: &str| answer(q).recommendation.map(|r| r.pick.offer).and_then(|id| catalog().offer(&id).cloned());
    let o = picked("model=qwen2.5-72b&w=fp8&gpu=h20-96gb").expect("an H20 offer is picked");
    assert_eq!((&*o.gpu, o.gpus), ("h20-96gb", 1));
    // Ascend 910B with vLLM Ascend runs bf16; TensorRT-LLM does not run there.
    let o = picked("model=qwen2.5-7b&gpu=ascend-910b-64gb").expect("vLLM Ascend on the 910B gives a pick");
    assert_eq!(&*o.gpu, "ascend-910b-64gb");
    assert!(
        picked("model=qwen2.5-7b&gpu=ascend-910b-64gb&engine=trt-llm").is_none(),
        "TensorRT-LLM does not run on Ascend"
    );
    // provider= keeps the pick on that provider.
    for provider in ["autodl", "matpool", "compshare", "gongjiyun"] {
        let o = picked(&format!("model=llama-3.1-8b&provider={provider}"))
            .unwrap_or_else(|| panic!("{provider}: a pick"));
        assert_eq!(&*o.provider, provider);
    }
}

#[test]
fn an_answer_in_yuan_outside_the_region_says_why_and_names_a_china_region_offer() {
    let c = catalog();
    let in_region = |id: &str| c.offer(id).is_some_and(|o| o.currency == Currency::Cny);
    // Qwen2.5-72B FP8 fits China-region cards: the notice names the cheapest
    // that meets the job and how much dearer it is, or the pick is in the region.
    for q in ["cur=cny&model=qwen2.5-72b&w=fp8", "lang=zh&model=qwen2.5-72b&w=fp8&in=3000&out=600&batch=24"] {
        let a = answer(q);
        let pick = a.recommendation.as_ref().map(|r| r.pick.offer.to_string()).expect("a pick");
        let notice = a.notices.iter().find(|n| n.message.contains("China region"));
        if in_region(&pick) {
            assert!(notice.is_none(), "{q}: {notice:?}");
        } else {
            let n = notice
                .unwrap_or_else(|| panic!("{q}: the pick {pick} is outside the region and nothing says why"));
            assert_eq!(n.key, if q.starts_with("cur") { "cur" } else { "lang" });
            let named = c
                .offers
                .iter()
                .find(|o| n.message.contains(&format!(" {},", o.id)))
                .unwrap_or_else(|| panic!("{q}: {}", n.message));
            assert!(in_region(&named.id), "{q}: {}", n.message);
        }
    }
    // Read in dollars, or narrowed by provider, nothing is said.
    for q in ["model=qwen2.5-72b&w=fp8", "cur=cny&model=qwen2.5-72b&w=fp8&provider=lambda"] {
        assert!(!answer(q).notices.iter().any(|n| n.message.contains("China region")), "{q}");
    }
}

#[test]
fn deepseek_r1_in_yuan_picks_a_china_region_offer_or_names_the_largest() {
    let c = catalog();
    let q = "lang=zh&cur=cny&model=deepseek-r1&w=fp8&in=4000&out=4000&batch=16";
    let a = answer(q);
    let pick = a.recommendation.as_ref().map(|r| r.pick.offer.to_string()).expect("a pick");
    let pick = c.offer(&pick).expect("the pick is a catalog offer");
    if pick.currency == Currency::Cny {
        return;
    }
    let n = a
        .notices
        .iter()
        .find(|n| n.key == "cur" && n.message.contains("China region"))
        .unwrap_or_else(|| panic!("{q}: {:?}", a.notices));
    // The largest China-region offer by GPU memory in one instance.
    let memory =
        |o: &whichgpu::core::catalog::Offer| c.gpu(&o.gpu).map_or(0.0, |g| g.memory_gb * f64::from(o.gpus));
    let largest = c.offers.iter().filter(|o| o.currency == Currency::Cny).map(memory).fold(0.0, f64::max);
    let named = c
        .offers
        .iter()
        .filter(|o| o.currency == Currency::Cny)
        .find(|o| n.message.contains(&format!(" {} ", o.id)))
        .expect("names an offer");
    assert!(memory(named) == largest || n.message.contains("cheapest"), "{}", n.message);
}
