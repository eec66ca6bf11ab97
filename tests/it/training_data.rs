//! The training estimator against measured training memory and throughput:
//! every fine-tuning memory row of the reference calibration file, and the
//! project's own gathered rows (tests/data/training_measurements.csv, notes
//! in TRAINING-NOTES.md). Rows are split by source into `fit` and
//! `held_out` before any scoring; held-out rows are reported apart and
//! never used to tune. Unstated settings take each framework's documented
//! defaults, the same way for every row (listed in `defaults`).

use std::collections::BTreeMap;

use whichgpu::core::catalog::{Catalog, Gpu};
use whichgpu::core::config::{Checkpointing, Config, Method, Optim, Targets, Task, Trainer};
use whichgpu::core::estimate::train::{mfu, TrainJob};

use crate::common;

const GIB: f64 = 1_073_741_824.0;

struct Row {
    id: String,
    kind: String,
    /// The source without its section: the unit of the fit / held-out split.
    source: String,
    held_out: bool,
    cfg: Config,
    gpu: String,
    gpus: f64,
    /// Card capacity for `max_seq` rows (bytes).
    capacity: f64,
    /// bitsandbytes' paged optimizer (torchtune's single-GPU full recipe):
    /// its states move to host memory when the card runs out, so a peak
    /// above the card's capacity is never measured.
    paged: bool,
    measured: f64,
}

fn field<'a>(r: &'a csv::StringRecord, h: &csv::StringRecord, name: &str) -> &'a str {
    h.iter().position(|x| x == name).and_then(|i| r.get(i)).unwrap_or("").trim()
}

/// Framework defaults for what a source leaves unstated:
/// - PEFT README examples (HF Trainer): fp32 weights (torch's default dtype),
///   AdamW, no checkpointing, batch 8 (`per_device_train_batch_size`),
///   max_length 64 (the PEFT twitter_complaints examples), LoRA r=8 on attention.
/// - LLaMA-Factory: bf16, gradient checkpointing on, SDPA attention, AdamW;
///   its `unsloth` option runs Unsloth's stack (`trainer=unsloth`).
/// - torchtune: the recipes of pytorch/torchtune@0031bfb0
///   recipes/configs/llama3_1/ named by its README table (`recipe`).
/// - torchtitan / fms-fsdp / llm-foundry: bf16 FSDP (ZeRO-3-like), AdamW.
fn defaults(framework: &str, method: &str) -> Config {
    let mut c = Config { task: Task::Finetune, optim: Optim::Adamw, flash: true, zero: 0, rank: 8, ..Config::default() };
    c.method = match method {
        "full" | "pretrain" => Method::Full,
        "qlora" => Method::Qlora,
        _ => Method::Lora,
    };
    if method == "pretrain" {
        c.task = Task::Pretrain;
    }
    c.trainer = match framework {
        "torchtune" => Trainer::Torchtune,
        "unsloth" => Trainer::Unsloth,
        "megatron" => Trainer::Megatron,
        _ => Trainer::Hf,
    };
    match framework {
        "peft" => {
            c.w = Some("fp32".into());
            c.gc = Checkpointing::None;
            c.mb = 8;
            c.seq = 64;
            c.targets = Targets::Attn;
        }
        _ => {
            c.gc = Checkpointing::Full;
            c.targets = Targets::All;
        }
    }
    if c.method == Method::Qlora {
        c.w = Some("nf4".into());
    }
    c
}

/// torchtune's Llama 3.1 recipes at the README's commit (0031bfb0):
/// 8B_full_single_device (PagedAdamW8bit, optimizer in backward),
/// 8B_lora_single_device (r 8 on q, v), 8B_qlora_single_device (r 8 on
/// q, k, v, o and the MLP), 70B_full (AdamW, `fsdp_cpu_offload: True`),
/// 70B_lora (r 16 on q, k, v), 405B_qlora (r 16 on q, k, v, o and the MLP);
/// all bf16 with activation checkpointing and the chunked cross-entropy.
fn recipe(c: &mut Config, model: &str) {
    let big = !model.starts_with("llama-3.1-8b");
    match c.method {
        Method::Full => {
            if big {
                c.param_offload = true;
                c.zero = 3;
            } else {
                c.optim = Optim::Adamw8bit;
            }
        }
        Method::Lora => {
            c.targets = Targets::Attn;
            c.rank = if big { 16 } else { 8 };
        }
        Method::Qlora => {
            c.targets = Targets::All;
            c.rank = if big { 16 } else { 8 };
        }
    }
}

fn load(catalog: &Catalog) -> (Vec<Row>, Vec<(String, String)>) {
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    // 1. Reference calibration file: training memory rows (the fit part:
    //    the memory model was shaped on them before any split existed).
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/calibration.csv")).expect("calibration.csv");
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let h = rd.headers().expect("header").clone();
    for r in rd.records().flatten() {
        let task = field(&r, &h, "task");
        if !task.starts_with("finetune") {
            continue;
        }
        let id = field(&r, &h, "id").to_string();
        let notes = field(&r, &h, "method_notes").to_lowercase();
        if notes.contains("cpu offload") {
            skipped.push((id, "ZeRO-3 parameter offload: the GPU keeps a DeepSpeed working set whose size the source does not state".into()));
            continue;
        }
        let (framework, source) = if notes.starts_with("llama-factory (unsloth)") {
            ("unsloth", "calibration.csv: LLaMA-Factory")
        } else if notes.starts_with("llama-factory") {
            ("llama-factory", "calibration.csv: LLaMA-Factory")
        } else {
            ("peft", "calibration.csv: PEFT README")
        };
        let method = task.trim_start_matches("finetune-");
        let mut cfg = defaults(framework, method);
        cfg.model = Some(field(&r, &h, "model_id").to_string());
        if let Ok(b) = field(&r, &h, "batch").parse() {
            cfg.mb = b;
        }
        if let Ok(s) = field(&r, &h, "input_tokens").parse() {
            cfg.seq = s;
        }
        if notes.contains("all modules") {
            cfg.targets = Targets::All;
        }
        let unit = field(&r, &h, "unit");
        let v: f64 = field(&r, &h, "value").parse().unwrap_or(0.0);
        rows.push(Row {
            id,
            kind: "memory".into(),
            source: source.into(),
            held_out: false,
            cfg,
            gpu: "a100-sxm-80gb".into(),
            gpus: 1.0,
            capacity: 0.0,
            paged: false,
            measured: if unit == "GiB" { v * GIB } else { v * 1e9 },
        });
    }
    // 2. The project's own gathered rows.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/training_measurements.csv")).expect("training_measurements.csv");
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let h = rd.headers().expect("header").clone();
    for r in rd.records().flatten() {
        let id = field(&r, &h, "id").to_string();
        let model = field(&r, &h, "model_id");
        let gpu = field(&r, &h, "gpu_id");
        let kind = field(&r, &h, "kind");
        let framework = field(&r, &h, "framework");
        let method = field(&r, &h, "method");
        let source = field(&r, &h, "source").split(" (").next().unwrap_or("").to_string();
        let held_out = match field(&r, &h, "split") {
            "held_out" => true,
            "fit" => false,
            other => panic!("{id}: split `{other}` is neither fit nor held_out"),
        };
        if catalog.model(model).is_none() {
            skipped.push((id, format!("model `{model}` not in the catalog")));
            continue;
        }
        if catalog.gpu(gpu).is_none() {
            skipped.push((id, format!("GPU `{gpu}` not in the GPU table")));
            continue;
        }
        if field(&r, &h, "notes").contains("gives a RANGE") {
            skipped.push((id, "a range whose top includes saving a full state dict, not a training peak".into()));
            continue;
        }
        if field(&r, &h, "value").is_empty() {
            skipped.push((id, "out of memory at every length tried: no number to score".into()));
            continue;
        }
        let mut cfg = defaults(if framework == "peft" { "peft-fsdp" } else { framework }, method);
        cfg.model = Some(model.to_string());
        if let Ok(b) = field(&r, &h, "micro_batch").parse() {
            cfg.mb = b;
        }
        match field(&r, &h, "seq").parse() {
            Ok(s) => cfg.seq = s,
            Err(_) if kind == "max_seq" => {}
            Err(_) => {
                skipped.push((id, "sequence length not stated".into()));
                continue;
            }
        }
        match field(&r, &h, "grad_ckpt") {
            "none" => cfg.gc = Checkpointing::None,
            "selective" => cfg.gc = Checkpointing::Selective,
            "full" => cfg.gc = Checkpointing::Full,
            _ => {}
        }
        if let Ok(rk) = field(&r, &h, "lora_rank").parse() {
            cfg.rank = rk;
        }
        if field(&r, &h, "lora_targets") == "attn-mlp" {
            cfg.targets = Targets::AttnMlp;
        }
        if field(&r, &h, "precision") == "fp8" {
            cfg.w = Some("fp8".into());
        }
        if matches!(field(&r, &h, "zero"), "3" | "fsdp") {
            cfg.zero = 3;
        }
        if framework == "torchtune" {
            recipe(&mut cfg, model);
        }
        let paged = framework == "torchtune" && cfg.method == Method::Full && cfg.optim == Optim::Adamw8bit;
        let unit = field(&r, &h, "unit");
        let v: f64 = field(&r, &h, "value").parse().unwrap_or(0.0);
        let measured = match unit {
            "GiB" => v * GIB,
            "GB" => v * 1e9,
            _ => v,
        };
        let gpus: f64 = field(&r, &h, "gpus").parse().unwrap_or(1.0);
        if kind == "tokens_per_s" {
            // A rate whose executed FLOPs (recomputation included) pass 90 %
            // of the GPU's dense peak means the source counts tokens
            // differently from us (or ran another configuration).
            let peak = catalog.gpu(gpu).map_or(0.0, |g| g.bf16_tflops * 1e12);
            let flops = catalog.model(model).map_or(0.0, |m| TrainJob::new(m, &cfg).hardware_flops_per_token());
            if measured * flops > 0.9 * peak * if cfg.w.as_deref() == Some("fp8") { 2.0 } else { 1.0 } {
                skipped.push((id, "tokens/s implies more than 90 % of the GPU's dense peak in executed FLOPs: the source counts tokens differently".into()));
                continue;
            }
        }
        // An "80 GB" card is sold as 80 GiB (`memory_gb` in static/gpus.csv).
        let capacity = field(&r, &h, "capacity_gb").parse::<f64>().map_or(0.0, |g| g * GIB);
        rows.push(Row { id, kind: kind.to_string(), source, held_out, cfg, gpu: gpu.to_string(), gpus, capacity, paged, measured });
    }
    (rows, skipped)
}

/// The longest sequence (micro-batch 1) whose memory fits in `capacity`:
/// memory grows with the sequence, so a bisection finds it.
fn max_seq(job: &TrainJob<'_>, capacity: f64) -> f64 {
    let mem = |seq: f64| TrainJob { seq, mb: 1.0, ..job.clone() }.memory(1.0).total();
    let (mut lo, mut hi) = (0.0f64, 4.0e6f64);
    if mem(hi) <= capacity {
        return hi;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if mem(mid) <= capacity {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn predict(row: &Row, catalog: &Catalog) -> Option<f64> {
    let model = catalog.model(row.cfg.model_id())?;
    let gpu: &Gpu = catalog.gpu(&row.gpu)?;
    let job = TrainJob::new(model, &row.cfg);
    Some(match row.kind.as_str() {
        "memory" => job.memory(row.gpus).total(),
        "tokens_per_s" => job.tokens_per_s_per_gpu(gpu, mfu(gpu, job.method), row.gpus, gpu.link_bytes_per_s(true)),
        "mfu" => mfu(gpu, job.method),
        "max_seq" => max_seq(&job, row.capacity),
        _ => return None,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn p90(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64) * 0.9).ceil() as usize;
    v.get(i.saturating_sub(1)).copied().unwrap_or(f64::NAN)
}

/// |error| in percent and the ratio (≥ 1) between prediction and measurement.
fn errors(p: f64, m: f64) -> (f64, f64) {
    ((p - m).abs() / m * 100.0, (p / m).max(m / p))
}

#[test]
fn training_estimates_match_measurements() {
    let catalog = common::catalog();
    let (rows, mut skipped) = load(catalog);
    // (held out, kind) → |errors| and worst ratio.
    let mut groups: BTreeMap<(bool, String), (Vec<f64>, f64)> = BTreeMap::new();
    let mut scored = 0usize;
    println!("{:<6} {:<9} {:<13} {:<16} {:<14} {:>4} {:>12} {:>12} {:>7}", "id", "split", "kind", "model", "gpu", "gpus", "measured", "predicted", "err%");
    for r in &rows {
        let Some(p) = predict(r, catalog) else {
            skipped.push((r.id.clone(), format!("kind `{}` has no estimate", r.kind)));
            continue;
        };
        if r.paged && p > catalog.gpu(&r.gpu).map_or(f64::INFINITY, Gpu::usable_bytes) {
            skipped.push((
                r.id.clone(),
                "bitsandbytes' paged optimizer states moved to host memory on a card the job outgrows: the peak is the card's, not the job's".into(),
            ));
            continue;
        }
        scored += 1;
        let signed = (p - r.measured) / r.measured * 100.0;
        let (m, pv) = if r.kind == "memory" { (r.measured / GIB, p / GIB) } else { (r.measured, p) };
        let split = if r.held_out { "held_out" } else { "fit" };
        println!("{:<6} {:<9} {:<13} {:<16} {:<14} {:>4} {:>12.2} {:>12.2} {:>+7.1}", r.id, split, r.kind, r.cfg.model_id(), r.gpu, r.gpus, m, pv, signed);
        let (abs, ratio) = errors(p, r.measured);
        let g = groups.entry((r.held_out, r.kind.clone())).or_insert((Vec::new(), 1.0));
        g.0.push(abs);
        g.1 = g.1.max(ratio);
    }
    for (id, why) in &skipped {
        println!("not scored {id}: {why}");
    }
    println!("{:<9} {:<13} {:>4} {:>8} {:>8} {:>7}", "split", "kind", "n", "median%", "p90%", "worst×");
    for ((held, kind), (errs, worst)) in &groups {
        let split = if *held { "held_out" } else { "fit" };
        println!("{split:<9} {kind:<13} {:>4} {:>8.1} {:>8.1} {:>7.2}", errs.len(), median(errs.clone()), p90(errs.clone()), worst);
    }
    let total = scored + skipped.len();
    println!("scored {scored} of {total} rows ({:.0} %)", 100.0 * scored as f64 / total as f64);
    assert!(scored as f64 >= 0.7 * total as f64, "too few rows scored: {scored} of {total}");
    let held_mem = groups.get(&(true, "memory".to_string())).expect("held-out memory rows");
    assert!(held_mem.0.len() >= 5, "at least five held-out memory rows");
    let (m, p, w) = (median(held_mem.0.clone()), p90(held_mem.0.clone()), held_mem.1);
    // Guards against regressions; the goal (median 15 %, p90 30 %,
    // none off by 2×) is not reached: the Hugging Face rows' loss holds
    // more than the 10 bytes per vocabulary entry this profile keeps, and
    // torchtitan's op-level selective checkpointing saves far less than
    // the Korthikanti selective mode `gc=selective` means (TRAINING-NOTES.md).
    assert!(m <= 22.0 && p <= 110.0 && w <= 2.2, "held-out training memory: median {m:.1} %, p90 {p:.1} %, worst {w:.2}×");
    let fit_mem = groups.get(&(false, "memory".to_string())).expect("fit memory rows");
    assert!(median(fit_mem.0.clone()) <= 15.0, "fit training memory median {:.1} %", median(fit_mem.0.clone()));
    let held_tps = groups.get(&(true, "tokens_per_s".to_string())).expect("held-out throughput rows");
    assert!(held_tps.1 <= 2.0, "held-out training throughput worst {:.2}×", held_tps.1);
}

#[test]
fn a_source_is_either_fit_or_held_out_and_enough_are_held_out() {
    // Every gathered row, scored or not: a held-out source never has a fit row.
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/training_measurements.csv")).expect("training_measurements.csv");
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let h = rd.headers().expect("header").clone();
    let mut split: BTreeMap<String, bool> = BTreeMap::new();
    for r in rd.records().flatten() {
        let source = field(&r, &h, "source").split(" (").next().unwrap_or("").to_string();
        let held = field(&r, &h, "split") == "held_out";
        let prior = *split.entry(source.clone()).or_insert(held);
        assert_eq!(prior, held, "source `{source}` has rows on both sides of the split ({})", field(&r, &h, "id"));
    }
    let held = split.values().filter(|h| **h).count();
    assert!(held as f64 >= 0.3 * split.len() as f64, "{held} of {} sources held out", split.len());
}
