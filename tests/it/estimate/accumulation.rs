//! Gradient accumulation: a global batch (`gbs`) filled by micro-batches,
//! with the data-parallel exchange once per optimizer step (DDP, ZeRO-1)
//! or once per micro-batch (ZeRO-2/3). Before it, a step was one
//! micro-batch, so a 70B pre-training run on 13 instances spent most of
//! its time exchanging gradients and `mb=2` "halved" its GPU-hours.

use whichgpu::core::config::{Config, Method, Task, Trainer};
use whichgpu::core::estimate::train::{mfu, Layout, TrainJob};
use whichgpu::core::estimate::train_step::micro_batches;
use whichgpu::core::evaluate::evaluate;
use whichgpu::core::link;

use crate::common;
use proptest::prelude::*;

/// Inter-node bandwidth per GPU of a 400 Gb/s-per-GPU InfiniBand fabric.
const IB: f64 = 50e9;

fn rate(model: &str, zero: u8, mb: u32, gbs: Option<u32>, l: Layout) -> f64 {
    let catalog = common::catalog();
    let m = catalog.model(model).expect("model");
    let gpu = catalog.gpu("h100-sxm-80gb").expect("gpu");
    // torchtitan: a compiled stack, so the micro-batch does not also
    // amortise eager launches (`train_clock`), only the exchange.
    let cfg = Config {
        task: Task::Pretrain,
        method: Method::Full,
        zero: Some(zero),
        mb: Some(mb),
        gbs,
        trainer: Trainer::Torchtitan,
        ..Config::default()
    };
    let job = TrainJob::new(m, &cfg);
    job.tokens_per_s(gpu, mfu(gpu, job.method), l, IB, gpu.link_bytes_per_s(true))
}

const MODELS: [&str; 4] = ["llama-3.1-8b", "qwen2.5-14b", "llama-3.1-70b", "mixtral-8x7b"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// At a fixed global batch, the micro-batch changes a DDP or ZeRO-1
    /// step's time only through the share of the exchange the last round
    /// hides, not by halving the exchanges.
    #[test]
    fn the_micro_batch_does_not_halve_the_exchange(model in 0usize..4, zero in 0u8..2, dp in 2u32..64, tp in prop::sample::select(vec![1u32, 2, 4, 8]), rounds in 4u32..64) {
        let l = Layout { dp, tp, pp: 1 };
        let gbs = Some(dp * 2 * rounds);
        let (one, two) = (rate(MODELS[model], zero, 1, gbs, l), rate(MODELS[model], zero, 2, gbs, l));
        prop_assert!(one > 0.0 && two / one >= 0.99 && two / one <= 1.2, "mb=1 {one} tok/s, mb=2 {two} tok/s");
    }

    /// More sequences per step amortise a once-per-step exchange: never slower.
    #[test]
    fn a_larger_global_batch_is_never_slower_under_ddp(model in 0usize..4, zero in 0u8..2, dp in 2u32..64, tp in prop::sample::select(vec![1u32, 2, 4, 8]), g in 1u32..4096) {
        let l = Layout { dp, tp, pp: 1 };
        let (a, b) = (rate(MODELS[model], zero, 1, Some(g), l), rate(MODELS[model], zero, 1, Some(2 * g), l));
        prop_assert!(b >= a * 0.999, "gbs {g}: {a} tok/s, gbs {}: {b} tok/s", 2 * g);
    }

    /// ZeRO-2/3 exchange every micro-batch: accumulation changes nothing.
    #[test]
    fn sharded_stages_exchange_every_micro_batch(model in 0usize..4, zero in 2u8..4, dp in 2u32..64, rounds in 1u32..64) {
        let l = Layout { dp, tp: 1, pp: 1 };
        let (a, b) = (rate(MODELS[model], zero, 1, Some(dp), l), rate(MODELS[model], zero, 1, Some(dp * rounds), l));
        prop_assert!((a / b - 1.0).abs() < 1e-9, "{a} vs {b}");
    }
}

#[test]
fn micro_batches_fill_the_global_batch_in_whole_pipeline_rounds() {
    // 2048 sequences over 13 ranks of one: 158 micro-batches.
    assert_eq!(micro_batches(Layout { dp: 13, tp: 8, pp: 1 }, 1.0, Some(2048.0)), 158.0);
    // Under 4 pipeline stages, rounds of 16: 2048 / (4 × 2) = 256.
    assert_eq!(micro_batches(Layout { dp: 4, tp: 1, pp: 4 }, 2.0, Some(2048.0)), 256.0);
    assert_eq!(micro_batches(Layout { dp: 4, tp: 1, pp: 4 }, 2.0, Some(100.0)), 16.0);
    // No global batch: the pipeline's own.
    assert_eq!(micro_batches(Layout { dp: 8, tp: 1, pp: 1 }, 1.0, None), 1.0);
}

#[test]
fn pre_training_defaults_to_four_million_tokens_a_step_and_fine_tuning_to_none() {
    let pre = Config { task: Task::Pretrain, seq: 4096, ..Config::default() };
    assert_eq!(pre.global_batch(), Some(1024));
    assert_eq!(Config { task: Task::Finetune, ..Config::default() }.global_batch(), None);
    assert_eq!(Config { task: Task::Finetune, gbs: Some(64), ..Config::default() }.global_batch(), Some(64));
}

#[test]
fn the_global_batch_round_trips_in_the_link() {
    let (cfg, notices) = link::decode("task=pretrain&gbs=512&seq=4096");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(cfg.gbs, Some(512));
    assert!(link::encode(&cfg).contains("gbs=512"));
    assert_eq!(link::decode(&link::encode(&cfg)).0, cfg);
    let (bad, notices) = link::decode("task=pretrain&gbs=0");
    assert_eq!(bad.gbs, None);
    assert!(notices.iter().any(|n| n.key == "gbs"), "{notices:?}");
}

/// The whole answer: a 70B pre-training run with a deadline needs about the
/// same GPU-hours at micro-batch 1 and 2 (it did not: 70,663 and 31,897).
#[test]
fn a_multi_node_pre_training_answer_does_not_hinge_on_the_micro_batch() {
    let catalog = common::catalog();
    let gpu_hours = |q: &str| {
        let (cfg, _) = link::decode(q);
        let a = evaluate(&cfg, Vec::new(), catalog, common::today());
        let p = a.pick().expect("pick");
        (p.speeds.job_gpu_hours().expect("gpu-hours"), p.gpus * p.instances)
    };
    let base = "task=pretrain&model=llama-3.1-70b&tokens=1e11&days=30";
    let (one, n1) = gpu_hours(base);
    let (two, n2) = gpu_hours(&format!("{base}&mb=2"));
    assert!(
        (two / one - 1.0).abs() < 0.15,
        "mb=1 {one:.0} GPU-h on {n1} GPUs, mb=2 {two:.0} GPU-h on {n2} GPUs"
    );
}
