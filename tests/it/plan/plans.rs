//! Rules every plan keeps, over a generated grid of configurations (all
//! tasks, every GPU type, pinned and free): `fits` is memory only and never
//! depends on the deadline; a fitting plan's need is within the usable
//! memory; an always-on endpoint's $ per million tokens is its hourly price
//! over the tokens of every replica it bills; a GPU count in the link is
//! honoured or a notice says why not.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use whichgpu::core::catalog::{Date, Kind, Support};
use whichgpu::core::evaluate::evaluate_query;

use crate::common::{catalog, date};

fn today() -> Date {
    date("2026-12-01")
}

/// A realistic configuration as a link.
fn config() -> impl Strategy<Value = String> {
    let c = catalog();
    let llms: Vec<String> = c.models.iter().map(|m| m.id.clone()).collect();
    let media: Vec<String> = c.media.iter().map(|m| m.id.clone()).collect();
    let mut gpus: Vec<Option<String>> = c.gpus.iter().map(|g| Some(g.id.clone())).collect();
    gpus.extend(std::iter::repeat_n(None, gpus.len()));
    (
        prop::sample::select(vec!["serve", "serve", "generate", "finetune", "pretrain"]),
        prop::sample::select(llms),
        prop::sample::select(media),
        prop::sample::select(gpus),
        prop::sample::select(vec![None, Some(1u32), Some(2), Some(3), Some(4), Some(8)]),
        prop::sample::select(vec!["bf16", "fp8", "int4-awq", "gguf-q4_k_m", "nf4", "mxfp4"]),
        prop::sample::select(vec!["vllm", "sglang", "trt-llm", "llama.cpp", "hf"]),
        prop::sample::select(vec!["1", "8", "64", "max"]),
        prop::sample::select(vec![None, Some(3u32), Some(30)]),
        prop::sample::select(vec!["always", "hours", "jobs", "once"]),
        (prop::sample::select(vec![200u32, 2000, 16000]), prop::sample::select(vec!["lora", "qlora", "full"])),
    )
        .prop_map(|(task, llm, gen, gpu, n, w, engine, batch, days, usage, (inp, method))| {
            let model = if task == "generate" || (task == "finetune" && method == "lora" && inp == 200) { gen } else { llm };
            let mut q = format!("task={task}&model={model}&w={w}&engine={engine}&batch={batch}&use={usage}&in={inp}&method={method}");
            if let Some(g) = gpu {
                q.push_str(&format!("&gpu={g}"));
            }
            if let Some(n) = n {
                q.push_str(&format!("&gpus={n}"));
            }
            if let Some(d) = days {
                q.push_str(&format!("&days={d}&tokens=2000000000"));
            }
            q
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn plans_keep_their_rules(q in config()) {
        let a = evaluate_query(&q, catalog(), today());
        // fits ⇔ the per-GPU need is within the usable memory (or a reason
        // names the instance shape that cannot host the link's GPU count).
        for o in &a.offers {
            if o.fits {
                prop_assert!(o.need_bytes <= o.usable_bytes * (1.0 + 1e-9), "{q}: {} fits with {} > {}", o.id, o.need_bytes, o.usable_bytes);
            } else {
                let shape = o.reason_msgs.iter().any(|m| matches!(m.key, "reason.gpus_short" | "reason.gpus_more" | "reason.no_network" | "reason.unsupported"));
                prop_assert!(shape || o.need_bytes > o.usable_bytes,
                    "{q}: {} does not fit although {} <= {}", o.id, o.need_bytes, o.usable_bytes);
            }
            prop_assert!(!o.meets || o.fits, "{q}: {} meets without fitting", o.id);
        }
        // No plan on a format its GPU cannot execute (support matrix).
        if a.task.as_str() == "serve" {
            let engine = q.split('&').find_map(|p| p.strip_prefix("engine=")).unwrap_or("vllm");
            for o in a.offers.iter().filter(|o| o.fits) {
                let arch = &catalog().gpu(&o.gpu).expect("offer GPU").arch;
                let runs = |f: &str| catalog().support(engine, arch.as_str(), Kind::Weights, f) != Support::Unsupported;
                prop_assert!(runs(&a.weight_format) || (a.weight_format == "bf16" && runs("fp16")),
                    "{q}: {} fits with {} on {arch}", o.id, a.weight_format);
            }
        }
        // Layouts an engine would run: TP divides the heads and divides or
        // is a multiple of the KV heads; splits across instances only over
        // a published link of 100 Gbit/s or more.
        let model = catalog().model(a.model.as_str());
        let engine = q.split('&').find_map(|p| p.strip_prefix("engine=")).unwrap_or("vllm");
        for o in a.offers.iter().filter(|o| o.fits) {
            if let (Some(m), "serve", false) = (model, a.task.as_str(), matches!(engine, "llama.cpp" | "hf")) {
                let kv = m.kv_heads.max(1);
                prop_assert!(m.heads % o.tp == 0 && (m.mla.is_some() || kv % o.tp == 0 || o.tp % kv == 0), "{q}: {} runs TP {} on {} heads / {kv} KV heads", o.id, o.tp, m.heads);
            }
            let split = (a.task.as_str() == "serve" && o.tp * o.dp.max(1) * o.pp > o.gpus) || (matches!(a.task.as_str(), "finetune" | "pretrain") && o.instances > 1);
            if split {
                let gbps = catalog().offer(&o.id).and_then(|x| x.inter_node_gbps).unwrap_or(0.0);
                prop_assert!(gbps >= 100.0, "{q}: {} splits a job over instances joined at {gbps} Gbit/s", o.id);
            }
        }
        // Every pick meets the deadline, or a notice says none does.
        if q.contains("&days=") {
            let pick_meets = a.pick().is_some_and(|p| p.meets);
            prop_assert!(pick_meets || a.notices.iter().any(|n| n.key == "days"), "{q}: a late pick without a days notice");
        }
        // results[].fits never depends on the deadline.
        if q.contains("&days=") {
            let without: String = q.split('&').filter(|p| !p.starts_with("days=")).collect::<Vec<_>>().join("&");
            let b = evaluate_query(&without, catalog(), today());
            for (x, y) in a.results.iter().zip(&b.results) {
                prop_assert_eq!(x.fits, y.fits, "{}: {} fits differently with a deadline", q, x.gpu);
            }
        }
        // An always-on endpoint: $/Mtok = $/h ÷ (tokens/s of every replica × 3600) × 10⁶.
        if a.task.as_str() == "serve" && q.contains("use=always") {
            for o in a.offers.iter().filter(|o| o.fits) {
                let (Some(per_m), Some(tps)) = (o.usd_per_million_output_tokens, o.speeds.output_tokens_per_s_total()) else {
                    prop_assert!(false, "{q}: {} fits without a $/Mtok or a total", o.id);
                    continue;
                };
                let want = o.usd_per_hour / (tps * 3600.0) * 1e6;
                prop_assert!((per_m - want).abs() <= 1e-9 * want.max(1e-12), "{q}: {} {per_m} vs {want}", o.id);
                // The total is one replica's times the busy replicas: all of
                // them for `batch=max`, else the users' sequences over each
                // copy's (no busy copy's rounded-up share counted as served).
                let one = o.speeds.output_tokens_per_s().unwrap_or(0.0);
                let busy = match q.split('&').find_map(|p| p.strip_prefix("batch=")).and_then(|v| v.parse::<f64>().ok()) {
                    Some(n) => (n / o.batch.max(1.0)).clamp(1.0, f64::from(o.replicas)),
                    None => f64::from(o.replicas),
                };
                prop_assert!((tps - one * busy).abs() <= 1e-9 * tps, "{q}: {} total {tps} vs {one} × {busy} of {}", o.id, o.replicas);
            }
        }
        // A link's GPU count is honoured by every fitting serving offer, or noticed.
        if a.task.as_str() == "serve" {
            if let Some(g) = q.split('&').find_map(|p| p.strip_prefix("gpus=")).and_then(|v| v.parse::<u32>().ok()) {
                let noticed = a.notices.iter().any(|n| n.key == "gpus");
                if !noticed {
                    for o in a.offers.iter().filter(|o| o.fits) {
                        prop_assert_eq!(o.tp * o.dp.max(1) * o.pp, g, "{}: {} runs on {}×{}×{} GPUs", q, o.id, o.tp, o.dp, o.pp);
                    }
                    for r in &a.results {
                        prop_assert_eq!(r.gpus * r.nodes, g, "{}: result {}", q, r.gpu);
                    }
                }
            }
        }
    }
}
