//! Plans for fine-tuning and pre-training a language model: per GPU type
//! the fewest GPUs that some data × tensor × pipeline layout fits (and that
//! meet the deadline), per offer the same within the offer's instances and
//! network. Memory per GPU with gradients and optimizer states, training
//! tokens/s, job hours. Never prices anything.

use super::super::answer::{Answers, GpuResult, MemoryJson, OfferResult};
use super::super::catalog::support::Kind;
use super::super::catalog::{Catalog, Gpu, GpuClass, Model, Offer};
use super::super::config::{Engine, Method};
use super::super::estimate::engine;
use super::super::estimate::train::{mfu, Layout, TrainJob};
use super::super::messages::Msg;
use super::super::settings::Settings;
use super::super::units::GIB;
use super::shared::{unsupported, EngineSupport, OfferPlan, Output};
use super::train_count::{offer_count, FitCache, OfferCount};
use super::train_layouts::{best_layout, smallest_fitting};
use super::train_speed::{
    confidence, day_decimals, gpus_for_deadline, layout_tokens_per_s, link_bytes_per_s, speeds,
};
use super::train_zero::{search, Candidate};

/// Usable share of a GPU's memory for training (the allocator's slack).
const USABLE: f64 = super::super::thresholds::USABLE_SHARE;

pub struct TrainPlan {
    /// The job ends within the deadline (true without one).
    pub meets: bool,
    pub gpus: u32,
    pub fits: bool,
    pub layout: Layout,
    /// Training tokens/s of the layout.
    pub tps: f64,
}

/// Fewest GPUs of a type (powers of two in a node, then whole nodes) that
/// some layout fits, and that meet the deadline when one is set; then the
/// fastest layout of that many.
fn plan_for(job: &TrainJob<'_>, cfg: &Settings, gpu: &Gpu, cache: &mut FitCache) -> TrainPlan {
    let cap = gpu.usable_bytes() * USABLE;
    let per_node = gpu.gpus_per_node.max(1);
    let pick = |n: u32| {
        best_layout(
            job,
            gpu,
            n,
            per_node,
            cap,
            (link_bytes_per_s(gpu, n), gpu.link_bytes_per_s(true)),
            gpu.nvlink_gbps > 0.0,
        )
    };
    if let Some(g) = cfg.gpus {
        let n = g.saturating_mul(cfg.nodes).max(1);
        return match pick(n) {
            Some((layout, tps)) => {
                TrainPlan { gpus: n, fits: true, meets: on_time(job, cfg, tps), layout, tps }
            }
            None => TrainPlan { gpus: n, fits: false, meets: false, layout: Layout::data(n), tps: 0.0 },
        };
    }
    // Several nodes only for datacenter boards with a cluster network.
    let nodes = gpu.class == GpuClass::Datacenter;
    let deadline_gpus = cfg.days.map_or(1, |days| gpus_for_deadline(job, cfg, gpu, days));
    let mut candidates: Vec<u32> = (0..8).map(|i| 1u32 << i).filter(|n| *n <= per_node).collect();
    if nodes {
        candidates.extend((2..=512).map(|nodes| nodes * per_node));
    }
    let mut locate = |at_least: u32| {
        let smallest = cache.smallest((cap.to_bits(), per_node, nodes, at_least, job.zero), || {
            smallest_fitting(job, &candidates, per_node, cap, at_least)
        });
        smallest.and_then(|n| Some((n, pick(n)?)))
    };
    // Fits (memory) with the fewest GPUs that hold it; the deadline's count
    // when one is set and some count reaches it.
    // A deadline no count reaches: the most GPUs, the closest to it.
    let largest = candidates.last().copied().unwrap_or(1);
    match locate(deadline_gpus)
        .or_else(|| if deadline_gpus > largest { locate(largest) } else { None })
        .or_else(|| if deadline_gpus > 1 { locate(1) } else { None })
    {
        Some((n, (layout, tps))) => {
            TrainPlan { gpus: n, fits: true, meets: on_time(job, cfg, tps), layout, tps }
        }
        None => TrainPlan { gpus: 1, fits: false, meets: false, layout: Layout::data(1), tps: 0.0 },
    }
}

/// Whether a job at `tps` tokens/s ends within the link's deadline.
fn on_time(job: &TrainJob<'_>, cfg: &Settings, tps: f64) -> bool {
    cfg.days.is_none_or(|d| job.job_tokens(cfg) / tps.max(1e-9) <= d * 86_400.0)
}

fn memory_json(job: &TrainJob<'_>, gpu: &Gpu, layout: Layout) -> MemoryJson {
    let m = job.memory_layout(layout);
    let gpus = layout.gpus();
    let n = f64::from(gpus);
    let total = m.total() * n;
    MemoryJson {
        weights_bytes: m.weights * n,
        activations_bytes: m.activations * n,
        gradients_bytes: m.gradients * n,
        optimizer_bytes: m.optimizer * n,
        overhead_bytes: m.overhead * n,
        // PyTorch's caching allocator keeps ~10 % above its peak.
        ..super::shared::memory_json(
            total,
            super::shared::reserved(m.total()).min(gpu.memory_bytes()).max(m.total()) * n,
            job.mb,
            gpus,
            gpu.id.clone(),
            gpu.memory_bytes() * n,
        )
    }
}

fn offer_plan(job: &TrainJob<'_>, cfg: &Settings, gpu: &Gpu, o: &Offer, cache: &mut FitCache) -> OfferPlan {
    let cap = gpu.usable_bytes() * USABLE;
    let OfferCount { found, need, most, asked, tp_link } = offer_count(job, cfg, gpu, o, cap, cache);
    let fits = found.is_some();
    let (gpus, layout, tps) = match found {
        Some((n, (l, tps))) => (n, l, tps),
        None => (
            o.gpus,
            Layout::data(o.gpus),
            job.tokens_per_s(gpu, mfu(gpu, job.method), Layout::data(o.gpus), tp_link, tp_link),
        ),
    };
    let instances = gpus.div_ceil(o.gpus.max(1));
    let job_hours = job.job_tokens(cfg) / tps.max(1e-9) / 3600.0;
    let (conf, widen) = confidence(job.model, gpu, gpus);
    let sp = speeds(job, cfg, tps, layout, widen);
    let store_gb = cfg.store_gb.unwrap_or((job.checkpoint_bytes() * f64::from(cfg.ckpts.max(1))) / 1e9);
    let mem = job.memory_layout(layout).total();
    let mut extra_reasons = Vec::new();
    // Fewer GPUs than the link asks for: a single instance without a
    // published network cannot grow to `nodes` instances.
    let other_size = cfg.gpus.filter(|g| *g != o.gpus);
    let short = gpus < asked || other_size.is_some();
    match other_size {
        Some(g) if o.gpus < g => extra_reasons.push(
            Msg::new("reason.gpus_short").num("have", f64::from(o.gpus), 0).num("want", f64::from(g), 0),
        ),
        Some(g) => extra_reasons.push(Msg::new("reason.gpus_more").num("have", f64::from(o.gpus), 0).num(
            "want",
            f64::from(g),
            0,
        )),
        None if short => {
            extra_reasons.push(Msg::new("reason.no_network").num("nodes", f64::from(cfg.nodes), 0))
        }
        None => {}
    }
    // Offloaded states live in each instance's CPU memory (DeepSpeed's
    // estimate, `host_offload_bytes`): an instance whose published RAM is
    // smaller cannot run the job. Unpublished RAM is neither a refusal nor
    // enough: such an offer ranks after those that publish enough, and the
    // guidance asks the reader to check it.
    let host = job.host_offload_bytes(instances);
    let host_short = host.zip(o.ram_gb).filter(|(need, have)| *need > have * GIB);
    if let Some((need, have)) = host_short {
        extra_reasons.push(Msg::new("reason.host_ram").num("need", need / GIB, 0).num("have", have, 0));
    }
    let unverified = host.is_some() && o.ram_gb.is_none();
    if let Some(need) = host.filter(|_| unverified) {
        extra_reasons.push(Msg::new("reason.host_unknown").num("need", need / GIB, 0));
    }
    let meets = fits && !short && host_short.is_none() && cfg.days.is_none_or(|d| job_hours <= d * 24.0);
    if let (Some(days), true, false) = (cfg.days, fits, meets) {
        if need > most {
            extra_reasons.push(
                Msg::new("reason.deadline")
                    .num("days", days, day_decimals(days))
                    .num("need", f64::from(need), 0)
                    .num("most", f64::from(most), 0),
            );
        } else {
            extra_reasons.push(
                Msg::new("reason.late")
                    .num("took", job_hours / 24.0, if job_hours < 48.0 { 2 } else { 1 })
                    .num("days", days, day_decimals(days)),
            );
        }
    }
    // The stage is named where it shards something (more than one replica).
    let layout_msg =
        Msg::new(if job.zero > 0 && layout.dp > 1 { "layout.train.zero" } else { "layout.train" })
            .num("zero", f64::from(job.zero), 0)
            .num("dp", f64::from(layout.dp), 0)
            .num("tp", f64::from(layout.tp), 0)
            .num("pp", f64::from(layout.pp), 0)
            .num("gpus", f64::from(gpus), 0)
            .num("instances", f64::from(instances), 0);
    OfferPlan {
        meets,
        gpus,
        instances,
        tp: layout.tp,
        pp: layout.pp,
        dp: layout.dp,
        zero: Some(job.zero),
        // A layout that runs nothing (an RL step with no room for its
        // generation engine) has no run length: unknown, not astronomical.
        job_hours: (tps > 0.0).then_some(job_hours),
        startup_s: engine::startup_s(job.model.params_total * job.format.body_bits / 8.0),
        load_bytes: job.model.params_total * job.format.body_bits / 8.0,
        store_gb,
        output: Output::Training(tps),
        speed_score: tps,
        extra_reasons,
        unverified,
        host_bytes: host,
        ..OfferPlan::new(fits, mem, cap, job.mb, conf, layout_msg, sp)
    }
}

/// Plans for one training configuration, with the caches offers share.
pub struct TrainPlanner<'r> {
    pub job: TrainJob<'r>,
    /// The job at each ZeRO stage the plan may use (`Config::zero_stages`).
    stages: Vec<TrainJob<'r>>,
    cfg: &'r Settings,
    catalog: &'r Catalog,
    cache: FitCache,
    /// The support matrix's transformers rows, picked when first read.
    matrix: std::cell::OnceCell<EngineSupport<'r>>,
}

impl<'r> TrainPlanner<'r> {
    pub fn new(job: TrainJob<'r>, cfg: &'r Settings, catalog: &'r Catalog) -> TrainPlanner<'r> {
        let stages = cfg.zero_stages().iter().map(|z| TrainJob { zero: *z, ..job.clone() }).collect();
        TrainPlanner {
            job,
            stages,
            cfg,
            catalog,
            cache: FitCache::default(),
            matrix: std::cell::OnceCell::new(),
        }
    }

    /// The job at a plan's ZeRO stage (the planner's own job without one).
    pub fn job_at(&self, zero: Option<u8>) -> &TrainJob<'r> {
        zero.and_then(|z| self.stages.iter().find(|j| j.zero == z)).unwrap_or(&self.job)
    }

    /// An RL job's stages on `gpu` (its generation engine's memory share
    /// depends on the GPU's memory); nothing for a supervised job.
    fn on_gpu(&mut self, gpu: &Gpu) {
        if self.job.rl.is_some_and(|r| r.gpu_bytes != gpu.memory_bytes()) {
            self.job = self.job.on_gpu(gpu);
            self.stages = self.stages.iter().map(|j| j.on_gpu(gpu)).collect();
        }
    }

    /// The plan of a GPU type at the best of the stages
    /// (`train_zero`), with the stage's job.
    fn plan_best(&mut self, gpu: &Gpu) -> (TrainPlan, usize) {
        self.on_gpu(gpu);
        let scale_up = gpu.nvlink_gbps > 0.0;
        let cap = gpu.usable_bytes() * USABLE;
        let (stages, cfg, cache) = (&self.stages, self.cfg, &mut self.cache);
        let found = search(stages.len(), 1, |i| {
            let job = stages.get(i).unwrap_or(&self.job);
            let p = plan_for(job, cfg, gpu, cache);
            let c = Candidate {
                fits: p.fits,
                meets: p.meets,
                roomy: Candidate::roomy(cap, job.memory_layout(p.layout).total()),
                pcie_tp: Candidate::pcie_tp(p.layout.tp, scale_up),
                gpus: p.gpus,
                tps: p.tps,
                zero: job.zero,
            };
            let whole = p.layout.tp == 1 && p.layout.pp == 1;
            (p, c, whole)
        });
        match found {
            Some(found) => found,
            None => (plan_for(&self.job, self.cfg, gpu, &mut self.cache), usize::MAX),
        }
    }

    fn stage_job(&self, i: usize) -> &TrainJob<'r> {
        self.stages.get(i).unwrap_or(&self.job)
    }

    /// Why a quantized base (NF4, FP8, INT4…) cannot be trained on a GPU:
    /// the support matrix's transformers row (PyTorch trainers load it the
    /// same way). 16- and 32-bit bases are a mixed-precision choice the
    /// trainer adapts to the GPU (fp16 where bf16 is missing), so they pass.
    fn unsupported(&self, gpu: &Gpu) -> Option<Msg> {
        let f = self.job.format.id;
        if matches!(f, "bf16" | "fp16" | "fp32") {
            return None;
        }
        unsupported(
            self.matrix.get_or_init(|| EngineSupport::new(self.catalog, Engine::Hf)),
            gpu,
            Kind::Weights,
            f,
        )
    }

    pub fn results(&mut self, gpus: &[&Gpu]) -> Vec<GpuResult> {
        let cfg = self.cfg;
        gpus.iter()
            .map(|gpu| {
                let unsupported = self.unsupported(gpu);
                let (p, i) = self.plan_best(gpu);
                let job = self.stage_job(i);
                let (conf, widen) = confidence(job.model, gpu, p.gpus);
                let tps = layout_tokens_per_s(job, gpu, p.layout);
                GpuResult {
                    gpu: gpu.id.clone(),
                    gpu_name: gpu.name.clone(),
                    gpus: p.gpus.min(gpu.gpus_per_node),
                    nodes: p.gpus.div_ceil(gpu.gpus_per_node.max(1)),
                    batch: job.mb,
                    fits: p.fits && unsupported.is_none(),
                    meets: p.meets && unsupported.is_none(),
                    reason_msgs: unsupported.into_iter().collect(),
                    per_gpu_bytes: job.memory_layout(p.layout).total(),
                    capacity_bytes: gpu.memory_bytes(),
                    confidence: conf,
                    bound: super::super::estimate::Bound::Compute,
                    executed_precision: format!("{:?}", job.compute(gpu)).to_ascii_lowercase(),
                    speeds: speeds(job, cfg, tps, p.layout, widen),
                }
            })
            .collect()
    }

    pub fn offer(&mut self, gpu: &Gpu, o: &Offer) -> OfferPlan {
        self.on_gpu(gpu);
        let scale_up = o.interconnect.is_scale_up();
        let (stages, cfg, cache) = (&self.stages, self.cfg, &mut self.cache);
        // One instance is the fewest GPUs an offer rents.
        let found = search(stages.len(), o.gpus, |i| {
            let p = offer_plan(stages.get(i).unwrap_or(&self.job), cfg, gpu, o, cache);
            let c = Candidate {
                fits: p.fits,
                meets: p.meets,
                roomy: Candidate::roomy(p.usable_bytes, p.need_bytes),
                pcie_tp: Candidate::pcie_tp(p.tp, scale_up),
                gpus: p.gpus,
                tps: p.speed_score,
                zero: p.zero.unwrap_or(0),
            };
            let whole = p.tp == 1 && p.pp == 1;
            (p, c, whole)
        });
        let Some((mut p, _)) = found else {
            return offer_plan(&self.job, self.cfg, gpu, o, &mut self.cache);
        };
        if let Some(why) = self.unsupported(gpu) {
            p.fits = false;
            p.meets = false;
            p.extra_reasons.insert(0, why);
        }
        p
    }

    /// Memory and the inverse answers on the focus GPU type.
    pub fn focus(&mut self, gpu: &Gpu, pick: Option<&OfferResult>) -> (MemoryJson, Answers) {
        let cfg = self.cfg;
        let (p, i) = self.plan_best(gpu);
        // The pick's own stage when the pick is on this GPU type.
        let on_pick = pick.filter(|o| *o.gpu == *gpu.id);
        let job = match on_pick.and_then(|o| o.zero) {
            Some(z) => self.job_at(Some(z)),
            None => self.stage_job(i),
        };
        let ckpt = job.checkpoint_bytes();
        // The breakdown is the pick's own layout when the pick is on this
        // GPU type (its ZeRO shards and parallel degrees), else the
        // fewest GPUs of this type that fit.
        let layout = on_pick
            .filter(|o| o.dp.saturating_mul(o.tp).saturating_mul(o.pp) > 0)
            .map_or(p.layout, |o| Layout { dp: o.dp, tp: o.tp, pp: o.pp });
        (
            memory_json(job, gpu, layout),
            Answers {
                min_gpus: p.fits.then_some(p.gpus),
                gpus_for_deadline: cfg.days.map(|d| gpus_for_deadline(job, cfg, gpu, d)),
                checkpoint_bytes: Some(ckpt),
                checkpoints_bytes_total: Some(ckpt * f64::from(cfg.ckpts)),
                training_tokens: Some(job.job_tokens(cfg)),
                rl: super::train_rl::answer(job, gpu, layout),
                best_weight_format: Some(cfg.weight_format_id().to_string()),
                ..Answers::default()
            },
        )
    }
}

/// Per-GPU memory of the three methods for the same model and settings,
/// for the guidance that explains why LoRA/QLoRA fit where full does not.
pub fn method_comparison(model: &Model, cfg: &Settings) -> [(Method, f64); 3] {
    [Method::Full, Method::Lora, Method::Qlora].map(|method| {
        let mut c = cfg.config().clone();
        c.method = method;
        c.w = None;
        (method, TrainJob::new(model, &c).memory(1.0).total())
    })
}
