//! Reading the training measurements (`tests/data/training_measurements.csv`
//! and the fine-tuning memory rows of `tests/data/calibration.csv`) into
//! configurations the estimator can predict. Unstated settings take each
//! framework's documented defaults, the same way for every row
//! ([`defaults`]); rows that cannot be scored are listed with their reason.

use crate::core::catalog::{Catalog, Gpu};
use crate::core::config::{Checkpointing, Config, Method, Optim, Targets, Task, Trainer};
use crate::core::estimate::train::AttnKernel;
use crate::core::estimate::train::{mfu, TrainJob};
use crate::core::estimate::train_clock::Clock;
use crate::core::units::GIB;
use crate::tools::calibrate::split::{source_key, Split};

/// One scored measurement.
#[derive(Debug, Clone)]
pub struct TrainRow {
    pub id: String,
    /// `memory`, `tokens_per_s`, `mfu` or `max_seq`.
    pub kind: String,
    /// The source without its version or section: the unit of the split.
    pub source: String,
    pub split: Split,
    pub framework: String,
    pub cfg: Config,
    pub gpu: String,
    pub gpus: f64,
    /// Card capacity for `max_seq` rows (bytes).
    pub capacity: f64,
    /// bitsandbytes' paged optimizer (torchtune's single-GPU full recipe):
    /// its states move to host memory when the card runs out, so a peak
    /// above the card's capacity is never measured.
    pub paged: bool,
    /// The source reports PyTorch's CUDA caching-allocator peak (torchtune's
    /// `get_memory_stats`, pytorch/torchtune@30b8519e
    /// torchtune/training/memory.py: `max_memory_allocated`,
    /// `max_memory_reserved`, `active_bytes.all.peak`): it leaves out the
    /// CUDA context and whatever is allocated outside PyTorch's allocator,
    /// so the estimate's per-GPU allowance for those (`TrainMemory::overhead`)
    /// is not part of it, nor are bitsandbytes' paged optimizer states,
    /// which live in CUDA managed memory (`get_paged` →
    /// `cget_managed_ptr` → `cudaMallocManaged`, wrapped by
    /// `torch.frombuffer`: bitsandbytes-foundation/bitsandbytes@95f9af30
    /// bitsandbytes/functional.py, csrc/pythonInterface.cpp).
    pub allocator_peak: bool,
    pub attn_kernel: AttnKernel,
    /// Bytes, tokens/s, a fraction or tokens.
    pub measured: f64,
}

/// Framework defaults for what a source leaves unstated:
/// - PEFT README examples (HF Trainer): fp32 weights (torch's default dtype),
///   AdamW, no checkpointing, batch 8 (`per_device_train_batch_size`),
///   max_length 64 (the PEFT twitter_complaints examples), LoRA r=8 on attention.
/// - LLaMA-Factory: bf16, gradient checkpointing on, SDPA attention, AdamW;
///   its `unsloth` option runs Unsloth's stack (`trainer=unsloth`).
/// - torchtune: the recipes of pytorch/torchtune@0031bfb0
///   recipes/configs/llama3_1/ named by its README table ([`recipe`]).
/// - torchtitan / fms-fsdp / llm-foundry: bf16 FSDP (ZeRO-3-like), AdamW;
///   llm-foundry's MPT runs use Triton FlashAttention (`attn_impl: triton`,
///   mosaicml/llm-foundry@15fb4ffa scripts/train/yamls/pretrain/mpt-7b.yaml).
pub fn defaults(framework: &str, method: &str) -> Config {
    let mut c = Config {
        task: Task::Finetune,
        optim: Optim::Adamw,
        flash: true,
        zero: Some(0),
        rank: 8,
        ..Config::default()
    };
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
        "torchtitan" => Trainer::Torchtitan,
        _ => Trainer::Hf,
    };
    if framework == "peft" {
        c.w = Some("fp32".into());
        c.gc = Checkpointing::None;
        c.mb = Some(8);
        c.seq = 64;
        c.targets = Targets::Attn;
    } else {
        c.gc = Checkpointing::Full;
        c.targets = Targets::All;
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
pub fn recipe(c: &mut Config, model: &str) {
    let big = !model.starts_with("llama-3.1-8b");
    match c.method {
        Method::Full if big => {
            c.param_offload = true;
            c.zero = Some(3);
        }
        Method::Full => c.optim = Optim::Adamw8bit,
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

fn field<'a>(r: &'a csv::StringRecord, h: &csv::StringRecord, name: &str) -> &'a str {
    h.iter().position(|x| x == name).and_then(|i| r.get(i)).unwrap_or("").trim()
}

fn bytes(v: f64, unit: &str) -> f64 {
    match unit {
        "GiB" => v * GIB,
        "GB" => v * 1e9,
        _ => v,
    }
}

/// The fine-tuning memory rows of the reference calibration file (all on
/// the fit side: the memory model was shaped on them before any split).
pub fn load_calibration(text: &str, rows: &mut Vec<TrainRow>, skipped: &mut Vec<(String, String)>) {
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let Ok(h) = rd.headers().cloned() else { return };
    for r in rd.records().flatten() {
        let task = field(&r, &h, "task");
        if !task.starts_with("finetune") {
            continue;
        }
        let id = field(&r, &h, "id").to_string();
        let notes = field(&r, &h, "method_notes").to_lowercase();
        if notes.contains("cpu offload") {
            skipped.push((
                id,
                "ZeRO-3 parameter offload: the GPU keeps a DeepSpeed working set whose size \
                the source does not state"
                    .into(),
            ));
            continue;
        }
        let (framework, source) = if notes.starts_with("llama-factory (unsloth)") {
            ("unsloth", "calibration.csv: LLaMA-Factory")
        } else if notes.starts_with("llama-factory") {
            ("llama-factory", "calibration.csv: LLaMA-Factory")
        } else {
            ("peft", "calibration.csv: PEFT README")
        };
        let mut cfg = defaults(framework, task.trim_start_matches("finetune-"));
        cfg.model = Some(field(&r, &h, "model_id").to_string());
        if let Ok(b) = field(&r, &h, "batch").parse() {
            cfg.mb = Some(b);
        }
        if let Ok(s) = field(&r, &h, "input_tokens").parse() {
            cfg.seq = s;
        }
        if notes.contains("all modules") {
            cfg.targets = Targets::All;
        }
        let v: f64 = field(&r, &h, "value").parse().unwrap_or(0.0);
        rows.push(TrainRow {
            id,
            kind: "memory".into(),
            source: source.into(),
            split: Split::Fit,
            framework: framework.into(),
            cfg,
            gpu: "a100-sxm-80gb".into(),
            gpus: 1.0,
            capacity: 0.0,
            paged: false,
            allocator_peak: false,
            attn_kernel: AttnKernel::Flash2,
            measured: bytes(v, if field(&r, &h, "unit") == "GiB" { "GiB" } else { "GB" }),
        });
    }
}

/// The project's gathered training rows.
pub fn load_training(
    text: &str,
    catalog: &Catalog,
    rows: &mut Vec<TrainRow>,
    skipped: &mut Vec<(String, String)>,
) {
    let mut rd = csv::Reader::from_reader(text.as_bytes());
    let Ok(h) = rd.headers().cloned() else { return };
    for r in rd.records().flatten() {
        let id = field(&r, &h, "id").to_string();
        let (model, gpu, kind) = (field(&r, &h, "model_id"), field(&r, &h, "gpu_id"), field(&r, &h, "kind"));
        let (framework, method) = (field(&r, &h, "framework"), field(&r, &h, "method"));
        let Some(split) = Split::parse(field(&r, &h, "split")) else {
            skipped.push((id, format!("split `{}` is neither fit nor held_out", field(&r, &h, "split"))));
            continue;
        };
        let why = if catalog.model(model).is_none() {
            Some(format!("model `{model}` not in the catalog"))
        } else if catalog.gpu(gpu).is_none() {
            Some(format!("GPU `{gpu}` not in the GPU table"))
        } else if field(&r, &h, "notes").contains("gives a RANGE") {
            Some("a range whose top includes saving a full state dict, not a training peak".into())
        } else if field(&r, &h, "value").is_empty() {
            Some("out of memory at every length tried: no number to score".into())
        } else {
            None
        };
        if let Some(why) = why {
            skipped.push((id, why));
            continue;
        }
        let mut cfg = defaults(if framework == "peft" { "peft-fsdp" } else { framework }, method);
        cfg.model = Some(model.to_string());
        if let Ok(b) = field(&r, &h, "micro_batch").parse() {
            cfg.mb = Some(b);
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
            cfg.zero = Some(3);
        }
        if framework == "torchtune" {
            recipe(&mut cfg, model);
        }
        let paged = framework == "torchtune" && cfg.method == Method::Full && cfg.optim == Optim::Adamw8bit;
        let measured = bytes(field(&r, &h, "value").parse().unwrap_or(0.0), field(&r, &h, "unit"));
        let gpus: f64 = field(&r, &h, "gpus").parse().unwrap_or(1.0);
        let attn_kernel =
            if framework == "llm-foundry" { AttnKernel::TritonFlash } else { AttnKernel::Flash2 };
        if kind == "tokens_per_s" {
            // A rate whose executed FLOPs (recomputation included) pass 90 %
            // of the GPU's dense peak means the source counts tokens
            // differently from us (or ran another configuration).
            let peak = catalog.gpu(gpu).map_or(0.0, |g| g.bf16_tflops * 1e12);
            let flops =
                catalog.model(model).map_or(0.0, |m| TrainJob::new(m, &cfg).hardware_flops_per_token());
            if measured * flops > 0.9 * peak * if cfg.w.as_deref() == Some("fp8") { 2.0 } else { 1.0 } {
                skipped.push((
                    id,
                    "tokens/s implies more than 90 % of the GPU's dense peak in executed FLOPs \
                    (recomputation included): the run had another setup than the row records, or counts \
                        tokens differently"
                        .into(),
                ));
                continue;
            }
        }
        // An "80 GB" card is sold as 80 GiB (`memory_gb` in static/gpus.csv).
        let capacity = field(&r, &h, "capacity_gb").parse::<f64>().map_or(0.0, |g| g * GIB);
        let source = source_key(field(&r, &h, "source")).to_string();
        rows.push(TrainRow {
            id,
            kind: kind.to_string(),
            source,
            split,
            framework: framework.to_string(),
            cfg,
            gpu: gpu.to_string(),
            gpus,
            capacity,
            paged,
            allocator_peak: framework == "torchtune",
            attn_kernel,
            measured,
        });
    }
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

/// The estimate for a row, with the linear-layer utilisation `eff` (the
/// GPU class's fitted one when `None`). `mfu` rows are predicted as the
/// estimated tokens/s times the model FLOPs per token over the peak.
pub fn predict(row: &TrainRow, catalog: &Catalog, eff: Option<f64>) -> Option<f64> {
    let model = catalog.model(row.cfg.model_id())?;
    let gpu: &Gpu = catalog.gpu(&row.gpu)?;
    let mut job = TrainJob::new(model, &row.cfg);
    job.attn_kernel = row.attn_kernel;
    // The runs the utilisation is fitted on and those like them: llm-foundry
    // (its fused Triton kernels), fms-fsdp (`use_torch_compile`) and the
    // torchtune README's table (run with `compile=True`, TRAINING-NOTES.md)
    // carry their launch and elementwise time in the utilisation itself, so
    // the eager stacks' terms (`estimate::train_clock`) are not added to them.
    if matches!(row.framework.as_str(), "llm-foundry" | "fms-fsdp" | "torchtune") {
        job.clock = Clock::of(Trainer::Torchtitan);
    }
    let eff = eff.unwrap_or_else(|| mfu(gpu, job.method));
    let tps = || job.tokens_per_s_per_gpu(gpu, eff, row.gpus, gpu.link_bytes_per_s(true));
    Some(match row.kind.as_str() {
        "memory" => {
            let m = job.memory(row.gpus);
            match (row.allocator_peak, row.paged) {
                (true, true) => m.total() - m.overhead - m.optimizer,
                (true, false) => m.total() - m.overhead,
                (false, _) => m.total(),
            }
        }
        "tokens_per_s" => tps(),
        "mfu" => tps() * job.flops_per_token() / (gpu.bf16_tflops * 1e12).max(1.0),
        "max_seq" => max_seq(&job, row.capacity),
        _ => return None,
    })
}
