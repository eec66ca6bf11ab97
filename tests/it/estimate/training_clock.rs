//! The training clock against public runs (`tests/data/training_clock.csv`,
//! split by source): the one fitted constant of `estimate::train_clock`
//! (DeepSpeed ZeRO-3's fixed time per collective) is the best fit on the
//! fit rows alone, and the held-out rows' errors are what the notes report.
//! Plus the issue's directional rules: a mixture-of-experts fine-tune is not
//! rated faster per token than a dense model of its total size on the same
//! stack (LlamaFactory#7921: Qwen3-30B-A3B slower than QwQ-32B), CPU
//! optimizer offload pays the CPU step, and ZeRO-3 LoRA gathers its base twice.

use whichgpu::core::config::Config;
use whichgpu::core::estimate::train::{Layout, TrainJob};
use whichgpu::core::estimate::train_clock::ZERO3_S_PER_COLLECTIVE;
use whichgpu::core::link;
use whichgpu::core::plan::train_speed::layout_tokens_per_s;
use whichgpu::core::resolve::{resolve, Subject};

use crate::common;

struct Row {
    id: String,
    split: String,
    link: String,
    gpus: u32,
    measured: f64,
}

fn rows() -> Vec<Row> {
    let text = include_str!("../../data/training_clock.csv");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader
        .records()
        .map(|r| {
            let r = r.expect("row");
            Row {
                id: r[0].to_string(),
                split: r[1].to_string(),
                link: r[3].to_string(),
                gpus: r[4].parse().expect("gpus"),
                measured: r[5].parse().expect("tokens/s"),
            }
        })
        .collect()
}

/// Tokens/s per GPU the whole pipeline answers for a row (the pinned GPU's
/// result), with its stated range.
fn answered(row: &Row) -> (f64, f64, f64) {
    let a = common::answer(&format!("{}&tokens=100000000", row.link));
    assert!(
        a.notices.is_empty(),
        "{}: {:?}",
        row.id,
        a.notices.iter().map(|n| &n.message).collect::<Vec<_>>()
    );
    let r = a.results.first().expect("a result");
    let v = serde_json::to_value(r).expect("json");
    let n = f64::from(row.gpus);
    let get = |k: &str| v[k].as_f64().expect(k) / n;
    (get("train_tokens_per_s"), get("train_tokens_per_s_low"), get("train_tokens_per_s_high"))
}

/// Tokens/s per GPU of a fit row's data-parallel layout at ZeRO-3
/// collective time `c` (the fit rows pin every GPU of one instance).
fn at_collective_time(row: &Row, c: f64) -> f64 {
    let catalog = common::catalog();
    let (cfg, _) = link::decode(&row.link);
    let resolved = resolve(&cfg, Vec::new(), catalog);
    let Subject::Llm { model, .. } = &resolved.subject else { panic!("{}: not a language model", row.id) };
    let gpu = catalog.gpu(cfg.gpu.as_deref().expect("pinned")).expect("gpu");
    let mut job = TrainJob::new(model, &resolved.cfg);
    job.clock.zero3_collective_s = c;
    layout_tokens_per_s(&job, gpu, Layout::data(row.gpus)) / f64::from(row.gpus)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

#[test]
fn the_zero3_collective_time_is_the_fit_rows_best() {
    let fit: Vec<Row> = rows().into_iter().filter(|r| r.split == "fit").collect();
    assert!(fit.len() >= 3);
    // Grid over 0–20 ms in 0.1 ms steps: the median |log error| of the fit rows.
    let score =
        |c: f64| median(fit.iter().map(|r| (at_collective_time(r, c) / r.measured).ln().abs()).collect());
    let best =
        (0..=200).map(|i| f64::from(i) * 1e-4).min_by(|a, b| score(*a).total_cmp(&score(*b))).expect("grid");
    assert!(
        (best - ZERO3_S_PER_COLLECTIVE).abs() < 1.5e-4,
        "fit says {best}, the code has {ZERO3_S_PER_COLLECTIVE}"
    );
}

#[test]
fn held_out_errors() {
    let mut errors = Vec::new();
    let mut worst: (f64, String) = (1.0, String::new());
    let mut inside = 0;
    for row in rows().iter().filter(|r| r.split == "holdout") {
        let (likely, low, high) = answered(row);
        let ratio = likely / row.measured;
        inside += usize::from((low..=high).contains(&row.measured));
        println!("{} {:.2}", row.id, ratio);
        errors.push((ratio - 1.0).abs());
        let off = ratio.max(1.0 / ratio);
        if off > worst.0 {
            worst = (off, row.id.clone());
        }
    }
    let (med, p90) = (median(errors.clone()), percentile(errors.clone(), 0.9));
    println!(
        "held out: {} rows, median {:.1} %, p90 {:.1} %, worst {:.2}x ({}), {inside} inside the stated range",
        errors.len(),
        med * 100.0,
        p90 * 100.0,
        worst.0,
        worst.1
    );
    // The figures the notes report (tests/data/TRAINING-NOTES.md, "Training
    // clock"): the issue's median (20 %) is met, its p90 (35 %) and "nothing
    // off by 2x" are not (h007, h017, h018); a change that makes them worse
    // fails here.
    assert!(med <= 0.20 && p90 <= 0.80 && worst.0 <= 4.2, "median {med}, p90 {p90}, worst {worst:?}");
}

#[test]
fn a_mixture_of_experts_fine_tune_is_not_faster_per_token_than_a_dense_model_of_its_size() {
    for trainer in ["hf", "deepspeed", "axolotl", "unsloth", "torchtune"] {
        for gpu in ["h100-sxm-80gb&gpus=8", "gh200-96gb&gpus=1", "a100-sxm-80gb&gpus=8"] {
            let q = |model: &str| {
                format!(
                    "task=finetune&model={model}&method=lora&trainer={trainer}&tokens=100000000&gpu={gpu}"
                )
            };
            let moe = common::answer(&q("qwen3-30b-a3b"));
            let dense = common::answer(&q("qwen3-32b"));
            let tps = |a: &whichgpu::core::answer::Answer| {
                let v = serde_json::to_value(&a.results[0]).expect("json");
                v["train_tokens_per_s"].as_f64().unwrap_or(0.0)
            };
            if tps(&dense) > 0.0 {
                assert!(
                    tps(&moe) <= tps(&dense),
                    "{trainer} {gpu}: MoE {} against dense {}",
                    tps(&moe),
                    tps(&dense)
                );
            }
        }
    }
}

#[test]
fn cpu_optimizer_offload_pays_the_cpu_step_and_zero3_lora_gathers_twice() {
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-70b").expect("model");
    let gpu = catalog.gpu("h100-sxm-80gb").expect("gpu");
    let cfg = |q: &str| -> Config { link::decode(q).0 };
    let on = TrainJob::new(m, &cfg("task=finetune&method=full&zero=3&optim_offload=1"));
    let off = TrainJob::new(m, &cfg("task=finetune&method=full&zero=3"));
    let l = Layout::data(8);
    // 70e9 parameters over 8 ranks of one instance: 70e9 · 30 B at the host's rate.
    let expect = 70.6e9 * 30.0 / whichgpu::core::estimate::train_clock::HOST_ADAM_BYTES_PER_S;
    assert!(
        (on.cpu_optimizer_s(gpu, l) / expect - 1.0).abs() < 0.05,
        "{} vs {expect}",
        on.cpu_optimizer_s(gpu, l)
    );
    assert_eq!(off.cpu_optimizer_s(gpu, l), 0.0);
    assert!(layout_tokens_per_s(&on, gpu, l) < 0.5 * layout_tokens_per_s(&off, gpu, l));
    // ZeRO-3 LoRA over infinitely fast compute: the step is the gathers, two of the base.
    let lora = TrainJob::new(m, &cfg("task=finetune&method=lora&zero=3&trainer=torchtitan&mb=1&seq=16"));
    let slow_link = 1e9;
    let tokens = lora.tokens_per_s(gpu, 1.0, l, slow_link, slow_link);
    let gather_s = 2.0 * 7.0 / 8.0 * m.params_total * 2.0 / slow_link;
    let step = 8.0 * 16.0 / tokens;
    assert!(step >= gather_s * 0.95, "a step of {step} s hides two gathers of {gather_s} s");
}

#[test]
fn the_issues_offload_case_takes_at_least_twice_its_old_time() {
    // Before this change: 23.0 h on one 8 x H100 instance (the CLI on the
    // parent commit), 184 GPU-hours.
    let a = common::answer(
        "task=finetune&model=llama-3.1-70b&method=full&zero=3&optim_offload=1&tokens=500000000&days=3",
    );
    let o = &a.offers[0];
    let v = serde_json::to_value(o).expect("json");
    let gpu_hours = v["job_hours"].as_f64().expect("hours") * f64::from(o.gpus) * f64::from(o.instances);
    assert!(gpu_hours >= 2.0 * 184.0, "{gpu_hours} GPU-hours");
}
