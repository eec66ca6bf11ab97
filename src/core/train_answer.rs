//! The answer for `task=finetune` and `task=pretrain`: memory per GPU with
//! gradients and optimizer states, training tokens/s, job hours, and each
//! offer's cost for the whole job (usage defaults to one job).

use super::answer::{Answer, Answers, GpuResult, MemoryJson, Speeds};
use super::catalog::{Catalog, Date, Gpu, Model, Offer};
use super::config::{Config, Method, Usage};
use super::estimate::ranges;
use super::estimate::train::{mfu, TrainJob};
use super::guidance;
use super::link::{self, Notice};
use super::recommend::{self, bill, OfferResult};

/// Usable share of a GPU's memory for training (the allocator's slack).
const USABLE: f64 = 0.95;

/// Node-to-node bandwidth per GPU assumed when an offer publishes none:
/// 400 Gb/s InfiniBand NDR per GPU, the usual HGX H100 fabric.
const DEFAULT_INTER_NODE_BYTES_PER_S: f64 = 50e9;

struct Plan {
    gpus: u32,
    fits: bool,
}

/// Fewest GPUs of a type (powers of two in a node, then whole nodes) whose
/// per-GPU memory fits, and that meet the deadline when one is set.
fn plan(job: &TrainJob<'_>, cfg: &Config, gpu: &Gpu) -> Plan {
    let cap = gpu.memory_bytes() * USABLE;
    if let Some(g) = cfg.gpus {
        let n = g * cfg.nodes;
        return Plan { gpus: n, fits: job.memory(f64::from(n)).total() <= cap };
    }
    let per_node = gpu.gpus_per_node.max(1);
    let mut candidates: Vec<u32> = (0..8).map(|i| 1u32 << i).filter(|n| *n <= per_node).collect();
    // Several nodes only for datacenter boards with a cluster network.
    if gpu.class == super::catalog::GpuClass::Datacenter {
        candidates.extend((2..=512).map(|nodes| nodes * per_node));
    }
    let deadline_gpus = cfg.days.map(|days| gpus_for_deadline(job, cfg, gpu, days));
    for n in candidates {
        if job.memory(f64::from(n)).total() <= cap && deadline_gpus.is_none_or(|d| n >= d) {
            return Plan { gpus: n, fits: true };
        }
    }
    Plan { gpus: 1, fits: false }
}

fn link_bytes_per_s(gpu: &Gpu, gpus: u32) -> f64 {
    if gpus > gpu.gpus_per_node {
        DEFAULT_INTER_NODE_BYTES_PER_S
    } else {
        gpu.link_bytes_per_s(true)
    }
}

fn tokens_per_s(job: &TrainJob<'_>, gpu: &Gpu, gpus: u32) -> f64 {
    job.tokens_per_s_per_gpu(gpu, mfu(gpu, job.method), f64::from(gpus), link_bytes_per_s(gpu, gpus)) * f64::from(gpus)
}

/// GPUs needed to train the job's tokens within `days` (the inverse question).
pub fn gpus_for_deadline(job: &TrainJob<'_>, cfg: &Config, gpu: &Gpu, days: f64) -> u32 {
    let tokens = job.job_tokens(cfg);
    let per_gpu = tokens_per_s(job, gpu, 1).max(1e-9);
    let n = (tokens / (per_gpu * days * 86_400.0)).ceil();
    if n.is_finite() {
        n.clamp(1.0, 1e6) as u32
    } else {
        1
    }
}

fn speeds(job: &TrainJob<'_>, cfg: &Config, gpu: &Gpu, gpus: u32, widen: f64) -> Speeds {
    let tps = tokens_per_s(job, gpu, gpus);
    let hours = job.job_tokens(cfg) / tps.max(1e-9) / 3600.0;
    let s = ranges::widen(ranges::TRAIN, widen);
    Speeds {
        train_tokens_per_s: Some(tps),
        train_tokens_per_s_low: Some(tps * s.low),
        train_tokens_per_s_high: Some(tps * s.high),
        job_hours: Some(hours),
        job_hours_low: Some(hours / s.high),
        job_hours_high: Some(hours / s.low),
        job_gpu_hours: Some(hours * f64::from(gpus)),
        ..Speeds::default()
    }
}

fn confidence(model: &Model, gpu: &Gpu, gpus: u32) -> (&'static str, f64) {
    let mut score = 0;
    if model.inferred {
        score += 2;
    }
    if !gpu.is_hbm() || gpu.vendor != "nvidia" {
        score += 1;
    }
    if gpus > gpu.gpus_per_node {
        score += 1;
    }
    match score {
        0 => ("high", 1.0),
        1 => ("medium", 1.6),
        _ => ("low", 2.5),
    }
}

fn memory_json(job: &TrainJob<'_>, gpu: &Gpu, gpus: u32) -> MemoryJson {
    let m = job.memory(f64::from(gpus));
    let n = f64::from(gpus);
    let total = m.total() * n;
    MemoryJson {
        weights_bytes: m.weights * n,
        kv_cache_bytes: 0.0,
        activations_bytes: m.activations * n,
        gradients_bytes: m.gradients * n,
        optimizer_bytes: m.optimizer * n,
        overhead_bytes: m.overhead * n,
        total_bytes: total,
        total_bytes_low: total * ranges::MEMORY.low,
        total_bytes_high: total * ranges::MEMORY.high,
        // PyTorch's caching allocator keeps ~10 % above its peak.
        reserved_bytes: (m.total() * 1.1).min(gpu.memory_bytes()).max(m.total()) * n,
        gpus,
        gpu: gpu.id.clone(),
        capacity_bytes: gpu.memory_bytes() * n,
    }
}

fn offer_result(job: &TrainJob<'_>, cfg: &Config, catalog: &Catalog, gpu: &Gpu, o: &Offer, today: Date) -> OfferResult {
    let cap = gpu.memory_bytes() * USABLE;
    let multi = o.inter_node_gbps.is_some_and(|g| g > 0.0) && job.zero >= 1;
    let instances = (1..=64u32)
        .find(|i| (*i == 1 || multi) && job.memory(f64::from(o.gpus * i)).total() <= cap)
        .map(|i| {
            // Add instances to meet a deadline.
            let need = cfg.days.map_or(0, |d| gpus_for_deadline(job, cfg, gpu, d));
            i.max(need.div_ceil(o.gpus))
        });
    let fits = instances.is_some();
    let instances = instances.unwrap_or(1);
    let gpus = o.gpus * instances;
    let link = if instances > 1 {
        o.inter_node_gbps.map_or(DEFAULT_INTER_NODE_BYTES_PER_S, |g| g * 1e9 / 8.0 / f64::from(o.gpus))
    } else if o.interconnect.is_scale_up() {
        gpu.link_bytes_per_s(true)
    } else {
        gpu.pcie_bytes_per_s()
    };
    let tps = job.tokens_per_s_per_gpu(gpu, mfu(gpu, job.method), f64::from(gpus), link) * f64::from(gpus);
    let job_hours = job.job_tokens(cfg) / tps.max(1e-9) / 3600.0;
    let (conf, widen) = confidence(job.model, gpu, gpus);
    let mut sp = speeds(job, cfg, gpu, gpus, widen);
    sp.train_tokens_per_s = Some(tps);
    sp.job_hours = Some(job_hours);
    sp.job_gpu_hours = Some(job_hours * f64::from(gpus));
    let store_gb = cfg.store_gb.unwrap_or((job.checkpoint_bytes() * f64::from(cfg.ckpts.max(1))) / 1e9);
    let b = bill(cfg, catalog, o, instances, Some(job_hours), store_gb);
    let mem = job.memory(f64::from(gpus)).total();
    let (reason_msgs, stale) = recommend::offer_reasons(cfg, o, today, gpus, mem, cap, fits, b.spot);
    OfferResult {
        id: o.id.clone(),
        provider: o.provider.clone(),
        instance: o.instance.clone(),
        region: o.region.clone(),
        gpu: o.gpu.clone(),
        gpus: o.gpus,
        instances,
        replicas: 1,
        tp: gpus,
        fits,
        headroom_bytes: cap - mem,
        spot: b.spot,
        interconnect: o.interconnect.as_str(),
        confidence: conf,
        speeds: sp,
        usd_per_hour: b.usd_per_hour,
        usd_per_month: b.usd_per_month,
        usd_per_job: b.usd_per_job,
        usd_per_million_output_tokens: None,
        usd_per_1000_images: None,
        usd_per_audio_hour: None,
        storage_usd_per_month: b.storage_usd_per_month,
        egress_usd_per_month: b.egress_usd_per_month,
        price_overridden: b.overridden,
        price_as_of: o.as_of,
        stale,
        source: o.source.clone(),
        reason_msgs,
        throughput_total: tps,
        speed_score: tps,
    }
}

pub fn evaluate_training(user_cfg: &Config, notices: Vec<Notice>, catalog: &Catalog, today: Date, model: &Model, unusable: bool) -> Answer {
    // A training run is billed as one job unless the user says otherwise.
    let mut cfg = user_cfg.clone();
    if cfg.usage == Usage::Always {
        cfg.usage = Usage::Once;
    }
    let job = TrainJob::new(model, &cfg);
    let gpus: Vec<&Gpu> = match &cfg.gpu {
        Some(g) => catalog.gpu(g).into_iter().collect(),
        None => catalog.gpus.iter().collect(),
    };
    let mut results = Vec::new();
    for gpu in &gpus {
        let p = plan(&job, &cfg, gpu);
        let (conf, widen) = confidence(model, gpu, p.gpus);
        results.push(GpuResult {
            gpu: gpu.id.clone(),
            gpu_name: gpu.name.clone(),
            gpus: p.gpus.min(gpu.gpus_per_node),
            nodes: p.gpus.div_ceil(gpu.gpus_per_node.max(1)),
            batch: job.mb,
            fits: p.fits,
            per_gpu_bytes: job.memory(f64::from(p.gpus)).total(),
            capacity_bytes: gpu.memory_bytes(),
            confidence: conf,
            bound: "compute",
            executed_precision: format!("{:?}", job.compute(gpu)).to_lowercase(),
            speeds: speeds(&job, &cfg, gpu, p.gpus, widen),
        });
    }
    let offers: Vec<OfferResult> = catalog
        .offers
        .iter()
        .filter(|o| recommend::passes_filters(&cfg, o))
        .filter_map(|o| Some(offer_result(&job, &cfg, catalog, catalog.gpu(&o.gpu)?, o, today)))
        .collect();
    let offers = recommend::rank(&cfg, offers);
    let recommendation = recommend::recommend(&cfg, &offers);
    let focus = cfg
        .gpu
        .clone()
        .or_else(|| recommendation.as_ref().and_then(|r| offers.iter().find(|o| o.id == r.pick.offer)).map(|o| o.gpu.to_string()))
        .and_then(|g| catalog.gpu(&g))
        .or_else(|| catalog.gpu("h100-sxm-80gb"));
    let (memory, answers) = match focus {
        Some(gpu) => {
            let p = plan(&job, &cfg, gpu);
            let ckpt = job.checkpoint_bytes();
            (
                memory_json(&job, gpu, p.gpus),
                Answers {
                    min_gpus: p.fits.then_some(p.gpus),
                    gpus_for_deadline: cfg.days.map(|d| gpus_for_deadline(&job, &cfg, gpu, d)),
                    checkpoint_bytes: Some(ckpt),
                    checkpoints_bytes_total: Some(ckpt * f64::from(cfg.ckpts)),
                    training_tokens: Some(job.job_tokens(&cfg)),
                    best_weight_format: Some(cfg.weight_format_id().to_string()),
                    ..Answers::default()
                },
            )
        }
        None => (MemoryJson::default(), Answers::default()),
    };
    let mut answer = Answer {
        query: link::encode(user_cfg),
        notices,
        catalog_as_of: catalog.as_of.to_string(),
        task: cfg.task,
        model: model.id.clone(),
        model_name: model.name.clone(),
        architecture_inferred: model.inferred,
        weight_format: cfg.weight_format_id().to_string(),
        memory,
        results,
        answers,
        offers,
        recommendation,
        guidance: Vec::new(),
        unusable,
    };
    answer.guidance = guidance::training_guidance(&cfg, model, &job, catalog, &answer);
    answer
}

/// Per-GPU memory of the three methods for the same model and settings,
/// for the guidance that explains why LoRA/QLoRA fit where full does not.
pub fn method_comparison(model: &Model, cfg: &Config) -> [(Method, f64); 3] {
    [Method::Full, Method::Lora, Method::Qlora].map(|method| {
        let mut c = cfg.clone();
        c.method = method;
        c.w = None;
        (method, TrainJob::new(model, &c).memory(1.0).total())
    })
}
