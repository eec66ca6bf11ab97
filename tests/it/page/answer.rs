//! The page's answer (`evaluate_offers`) is the full answer less the
//! per-GPU-type table and the hosted-API comparison (`api` and its guidance
//! answer: the page carries no API prices): every other field the same,
//! for every task.

use proptest::prelude::*;
use whichgpu::core::evaluate::{evaluate, evaluate_offers};
use whichgpu::core::link::decode;

use crate::common::{catalog, today};

/// Links of every task and planner (the benchmark's configurations and more).
const LINKS: &[&str] = &[
    "v=1",
    "v=1&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16",
    "v=1&model=llama-3.1-8b&w=gguf-q4_k_m&engine=llama.cpp&gpu=rtx-4090-24gb&batch=1&in=8000&out=500",
    "v=1&model=qwen2.5-7b&batch=max&in=4000&out=1000",
    "v=1&rps=5&model=llama-3.1-8b",
    "v=1&task=finetune&model=llama-3.1-70b&method=full&zero=0",
    "v=1&task=finetune&model=llama-3.1-8b&method=qlora",
    "v=1&task=generate&model=sdxl",
    "v=1&task=generate&model=flux.1-dev&use=jobs&per_job=100",
];

fn same_but_results(query: &str) {
    let (cfg, notices) = decode(query);
    let full = evaluate(&cfg, notices.clone(), catalog(), today());
    let page = evaluate_offers(&cfg, notices, catalog(), today());
    assert!(page.results.is_empty(), "{query}: the page's answer has no per-GPU table");
    let mut full = serde_json::to_value(&full).expect("json");
    let page = serde_json::to_value(&page).expect("json");
    if let Some(o) = full.as_object_mut() {
        o.insert("results".into(), serde_json::json!([]));
        o.remove("api");
        if let Some(serde_json::Value::Array(g)) = o.get_mut("guidance") {
            g.retain(|item| item["id"] != "api");
        }
    }
    assert_eq!(full, page, "{query}");
}

#[test]
fn page_answer_is_the_full_answer_less_the_gpu_table() {
    for q in LINKS {
        same_but_results(q);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Input tokens, output tokens and users vary on every keystroke: the two answers never differ.
    #[test]
    fn page_answer_matches_for_any_sizes(input in 1u32..200_000, output in 1u32..8_000, batch in 1u32..256, i in 0usize..LINKS.len()) {
        let base = LINKS.get(i).copied().unwrap_or("v=1");
        same_but_results(&format!("{base}&in={input}&out={output}&batch={batch}"));
    }
}
