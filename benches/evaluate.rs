//! Native benchmark of the whole answer for one configuration: decode the
//! link, then every GPU's plan and speeds, every offer's fit, speed, costs
//! and ranking, the recommendation and the guidance
//! (`evaluate_query(query, Catalog::bundled()?, date)`), as the page does on
//! every input change. Run with `cargo bench --bench evaluate` or
//! `scripts/bench.sh`, which also prints the medians. Budget: a median of at
//! most 0.5 ms per configuration natively.
//!
//! `evaluate/<name>` is the time of one configuration; its throughput, in
//! elements, is the number of offers in the catalog, so criterion prints
//! offers per second and `scripts/bench.sh` divides the median by it for
//! the cost per offer.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::evaluate::evaluate_query;

/// Representative configurations: the page's default, a 70B model in FP8,
/// llama.cpp with a 4-bit GGUF on one RTX 4090, the largest batch that fits,
/// a 70B full fine-tune that needs tensor/pipeline layouts, a QLoRA job and
/// SDXL image generation.
const QUERIES: &[(&str, &str)] = &[
    ("default", "v=1"),
    ("70b_fp8", "v=1&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16"),
    (
        "llamacpp_q4_4090",
        "v=1&model=llama-3.1-8b&w=gguf-q4_k_m&engine=llama.cpp&gpu=rtx-4090-24gb&batch=1&in=8000&out=500",
    ),
    ("batch_max", "v=1&model=qwen2.5-7b&batch=max&in=4000&out=1000"),
    ("finetune_70b_full", "v=1&task=finetune&model=llama-3.1-70b&method=full&zero=0"),
    ("qlora_8b", "v=1&task=finetune&model=llama-3.1-8b&method=qlora"),
    ("sdxl", "v=1&task=generate&model=sdxl"),
];

fn setup() -> (&'static Catalog, Date) {
    let catalog = match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => panic!("the bundled catalog does not load: {e}"),
    };
    let today = Date::parse("2026-11-29").unwrap_or(catalog.as_of);
    (catalog, today)
}

fn evaluate(c: &mut Criterion) {
    let (catalog, today) = setup();
    let offers = catalog.offers.len() as u64;
    let mut group = c.benchmark_group("evaluate");
    group.throughput(Throughput::Elements(offers));
    for (name, query) in QUERIES {
        // A sanity check outside the timing: the answer is a real one.
        let a = evaluate_query(query, catalog, today);
        assert!(a.notices.is_empty(), "{name}: {:?}", a.notices);
        assert!(!a.offers.is_empty() && !a.results.is_empty(), "{name}: empty answer");
        group.bench_function(*name, |b| {
            b.iter(|| evaluate_query(black_box(query), black_box(catalog), today))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3)).sample_size(50);
    targets = evaluate
}
criterion_main!(benches);
