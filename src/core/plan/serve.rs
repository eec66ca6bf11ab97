//! Plans for serving a language model: per GPU type (`results`) the link's GPU count or the smallest
//! tensor-parallel group that holds the job; per offer the smallest group inside the instance, replicas
//! for the users' concurrent sequences, pipeline stages across instances only over a published network.

use super::super::settings::Settings;
use std::sync::Arc;

use super::super::answer::GpuResult;
use super::super::catalog::support::Kind;
use super::super::catalog::{Catalog, Gpu, Interconnect, Offer, Support};
use super::super::config::Batch;
use super::super::estimate::allreduce;
use super::super::estimate::engine;
use super::super::estimate::engine_rules::layouts;
use super::super::estimate::serve::{Plan, ServeJob};
use super::super::messages::Msg;
use super::super::precision::Compute;
use super::super::units::GIB;
use super::load::{little, Load};
use super::serve_speeds::{confidence, serve_speeds, OnGpu};
use super::shared::{unsupported, EngineSupport, FnvMap, OfferPlan, Output, PerArch};

/// Plans for one serving configuration, with the per-shape cache offers share.
pub struct ServePlanner<'r> {
    pub job: ServeJob<'r>,
    pub(super) cfg: &'r Settings,
    pub(super) catalog: &'r Catalog,
    /// Per GPU type: the job as run there, the figures its shapes share
    /// and the plan of each shape (GPUs per instance, several instances).
    on_gpu: FnvMap<Arc<str>, OnGpu<'r>>,
    /// The engine's support-matrix rows, picked when first read.
    pub(super) matrix: std::cell::OnceCell<EngineSupport<'r>>,
    support: PerArch<(bool, Option<Msg>)>,
}

/// The user's concurrent sequences (one for `max`, which is solved per plan).
pub(super) fn user_batch(cfg: &Settings) -> f64 {
    match cfg.batch() {
        Batch::N(n) => f64::from(n),
        Batch::Max => 1.0,
    }
}

impl<'r> ServePlanner<'r> {
    pub fn new(job: ServeJob<'r>, cfg: &'r Settings, catalog: &'r Catalog) -> ServePlanner<'r> {
        ServePlanner {
            job,
            cfg,
            catalog,
            on_gpu: FnvMap::default(),
            matrix: std::cell::OnceCell::new(),
            support: PerArch::default(),
        }
    }

    /// (weights only stored in their format, why unsupported) on a GPU's architecture.
    fn support_on(&self, gpu: &Gpu) -> (bool, Option<Msg>) {
        self.support.on(gpu.arch, || {
            let m = self.matrix.get_or_init(|| EngineSupport::new(self.catalog, self.cfg.engine));
            let weights = m.get(gpu.arch.as_str(), Kind::Weights, self.job.format.id);
            // (A format the matrix runs needs no second look; one it does not may still run as fp16.)
            let why = (weights == Support::Unsupported)
                .then(|| unsupported(m, gpu, Kind::Weights, self.job.format.id))
                .flatten()
                .or_else(|| unsupported(m, gpu, Kind::Kv, &self.cfg.kv));
            (weights == Support::WeightOnly, why)
        })
    }

    /// Why the engine cannot run this job's weights or KV cache on a GPU
    /// (support matrix), if it cannot.
    fn unsupported(&self, gpu: &Gpu) -> Option<Msg> {
        self.support_on(gpu).1
    }

    /// The job as the engine runs it on a GPU: where the support matrix says
    /// the weights are only stored in their format (dequantized, math at 16
    /// bits), the matmuls run at 16 bits with the dequantization cost.
    fn job_on(&self, gpu: &Gpu) -> ServeJob<'r> {
        self.job_as(self.support_on(gpu).0)
    }

    /// [`Self::job_on`] for a GPU whose architecture stores the weights only (or not).
    fn job_as(&self, weight_only: bool) -> ServeJob<'r> {
        let mut j = self.job.clone();
        if weight_only && !j.format.weight_only {
            j.format.weight_only = true;
            j.format.compute = Compute::Bf16;
        }
        j
    }

    /// The batch a plan serves: the link's, or the concurrency its request
    /// rate keeps in flight when it gives `rps` and no `batch`, at the
    /// speed of `job` as the engine runs it on `gpu` (`job_on`: FP8 weights
    /// on an A100 decode as weight-only, slower, so more stay in flight).
    pub(super) fn batch_on(&self, job: &ServeJob<'r>, gpu: &Gpu, plan: Plan) -> Batch {
        match (self.cfg.rps, self.cfg.batch) {
            (Some(rps), None) => {
                Batch::N(little(job, gpu, plan, rps).map_or(1, |l| (l.batch * f64::from(l.copies)) as u32))
            }
            _ => self.cfg.batch(),
        }
    }

    /// Copies a request rate needs on a plan, with each copy's batch
    /// (`None` without a rate, or when the rate is out of reach).
    fn rate_copies(&self, job: &ServeJob<'r>, gpu: &Gpu, plan: Plan) -> Option<Option<Load>> {
        match (self.cfg.rps, self.cfg.batch) {
            (Some(rps), None) => Some(little(job, gpu, plan, rps)),
            _ => None,
        }
    }

    pub fn results(&mut self, gpus: &[&Gpu]) -> Vec<GpuResult> {
        let cfg = self.cfg;
        gpus.iter()
            .map(|gpu| {
                let job = &self.job_on(gpu);
                let unsupported = self.unsupported(gpu);
                let (plan, fits) = self.plan_for(gpu);
                let fits = fits && unsupported.is_none();
                let load = self.rate_copies(job, gpu, plan).flatten();
                let batch = match load {
                    Some(l) => l.batch,
                    _ => job.resolve_batch(self.batch_on(job, gpu, plan), gpu, plan),
                };
                let mem = job.memory(plan, batch);
                let (conf, widen) = confidence(cfg, job.model, gpu, plan);
                let (speeds, bound) = serve_speeds(job, gpu, plan, batch, widen);
                // Under a request rate, arriving prompts take their share of the decode's time.
                let speeds = match load {
                    Some(l) => speeds.sharing_prefill(l.prefill_share),
                    None => speeds,
                };
                let per_user = speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0);
                let ttft = speeds.time_to_first_token_s().unwrap_or(f64::MAX);
                let meets = cfg.mintps.is_none_or(|m| per_user >= m) && cfg.maxttft.is_none_or(|m| ttft <= m);
                let mut reason_msgs: Vec<Msg> = unsupported.into_iter().collect();
                if !fits && reason_msgs.is_empty() {
                    reason_msgs.push(Msg::new("reason.nofit").num("need", mem.total() / GIB, 1).num(
                        "have",
                        job.usable_bytes(gpu) / GIB,
                        1,
                    ));
                }
                if let Some(m) = cfg.mintps.filter(|m| per_user < *m) {
                    reason_msgs.push(Msg::new("reason.slow").num("tps", per_user, 0).num("min", m, 0));
                }
                if let Some(m) = cfg.maxttft.filter(|m| ttft > *m) {
                    reason_msgs.push(Msg::new("reason.ttft").num("ttft", ttft, 2).num("max", m, 2));
                }
                GpuResult {
                    gpu: gpu.id.clone(),
                    gpu_name: gpu.name.clone(),
                    gpus: plan.per_node(cfg.engine),
                    nodes: plan.gpus() / plan.per_node(cfg.engine).max(1),
                    batch,
                    fits,
                    meets,
                    reason_msgs,
                    per_gpu_bytes: mem.total(),
                    capacity_bytes: gpu.memory_bytes(),
                    confidence: conf,
                    bound,
                    executed_precision: format!("{:?}", job.executed(gpu)).to_ascii_lowercase(),
                    speeds,
                }
            })
            .collect()
    }

    /// What an offer's hardware gives the job, independent of its price:
    /// many offers share a GPU type and count, so this is planned once per shape.
    pub fn offer(&mut self, gpu: &Gpu, o: &Offer) -> OfferPlan {
        // PCIe cards an offer lists as NVLink-bridged: the bridge's rate, in pairs (`allreduce.rs`).
        let bridged = match o.interconnect {
            Interconnect::Nvlink => {
                allreduce::bridge_gbps(gpu).map(|nvlink_gbps| Gpu { nvlink_gbps, ..gpu.clone() })
            }
            _ => None,
        };
        let (gpu, key): (&Gpu, Arc<str>) = match &bridged {
            Some(b) => (b, Arc::from(format!("{}+nvlink", o.gpu))),
            None => (gpu, o.gpu.clone()),
        };
        // Several instances only as pipeline stages over a published network.
        let multi_node_ok = o.gpus > 1
            && o.inter_node_gbps.is_some_and(|g| g >= super::shared::MIN_SPLIT_GBPS)
            && !self.cfg.engine.splits_layers();
        let shape = (o.gpus, multi_node_ok);
        match self.on_gpu.get(&*key) {
            Some(on) => on.plan(shape, || self.shape(gpu, on, o.gpus, multi_node_ok)),
            None => {
                let (weight_only, why) = self.support_on(gpu);
                let on = OnGpu::new(self.job_as(weight_only), why);
                let p = on.plan(shape, || self.shape(gpu, &on, o.gpus, multi_node_ok));
                self.on_gpu.insert(key, on);
                p
            }
        }
    }

    fn shape(&self, gpu: &Gpu, on: &OnGpu<'r>, gpus: u32, multi_node_ok: bool) -> OfferPlan {
        let cfg = self.cfg;
        let job = &on.job;
        let usable = job.usable_bytes(gpu);
        let e = cfg.engine;
        let mut reasons: Vec<Msg> = on.unsupported.iter().cloned().collect();
        // The link's GPU count per instance (and instances) when it sets one,
        // else the smallest layout inside the instance that holds the
        // weights (`serve_layout::best`), else pipeline stages across instances.
        let cands = self.candidates(job, gpus);
        let (plan, nodes, fits_one) = match cfg.gpus {
            Some(g) => {
                let fits_here = g <= gpus && (cfg.nodes == 1 || multi_node_ok);
                if g > gpus {
                    reasons.push(Msg::new("reason.gpus_short").num("have", f64::from(gpus), 0).num(
                        "want",
                        f64::from(g),
                        0,
                    ));
                } else if !fits_here {
                    reasons.push(Msg::new("reason.no_network").num("nodes", f64::from(cfg.nodes), 0));
                }
                match self.best(gpu, on, gpus, &cands) {
                    Some(p) => (p, cfg.nodes, fits_here),
                    None => (
                        cands.first().copied().unwrap_or_else(|| Plan::in_node(e, g, cfg.nodes)),
                        cfg.nodes,
                        false,
                    ),
                }
            }
            None => match self.best(gpu, on, gpus, &cands) {
                Some(p) => (p, 1, true),
                None => {
                    // A larger group the engine refuses would hold it: the reason names the rule.
                    reasons.extend(Self::refused_fit(job, e, gpus, usable));
                    let mut opts = layouts(job.model, job.format.id, e, gpus);
                    opts.retain(|l| gpus % l.gpus() == 0);
                    let staged = Self::largest_staged(&opts);
                    let pp = (2..=16).find(|&pp| {
                        multi_node_ok && job.memory(Plan::of_layout(e, staged, pp), 1.0).total() <= usable
                    });
                    (Plan::of_layout(e, staged, pp.unwrap_or(1)), pp.unwrap_or(1), pp.is_some())
                }
            },
        };
        let batch_asked = self.batch_on(job, gpu, plan);
        let wanted = match batch_asked {
            Batch::N(n) => f64::from(n),
            Batch::Max => 1.0,
        };
        let per_instance = if nodes == 1 { (gpus / plan.per_node(e).max(1)).max(1) } else { 1 };
        let max_batch = f64::from(on.max_batch(gpu, plan));
        // Spread the users' concurrent sequences over replicas; add instances
        // when one instance cannot hold them all.
        let rate = self.rate_copies(job, gpu, plan);
        if let Some(None) = rate {
            reasons.push(Msg::new("reason.rps"));
        }
        let (batch, instances) = if let (Some(Some(l)), true) = (rate, fits_one) {
            // The copies a request rate needs, each at its own concurrency.
            (l.batch, (l.copies.div_ceil(per_instance.max(1))) * nodes)
        } else if fits_one && max_batch >= 1.0 {
            let per_instance_seqs = max_batch * f64::from(per_instance);
            let inst = match batch_asked {
                Batch::Max => 1.0,
                Batch::N(_) => (wanted / per_instance_seqs).ceil().max(1.0),
            };
            // The users fill as few copies as their sequences need (each
            // up to what it holds); copies beyond that stay idle rather than
            // thinning every batch: a box the load cannot use is not bought
            // for speed.
            let b = match batch_asked {
                Batch::Max => max_batch,
                Batch::N(_) => {
                    let busy = (wanted / max_batch).ceil().clamp(1.0, inst * f64::from(per_instance));
                    (wanted / busy).ceil().max(1.0)
                }
            };
            (b, inst as u32 * nodes)
        } else {
            (wanted, nodes)
        };
        let (conf, widen) = confidence(cfg, job.model, gpu, plan);
        let (speeds, _) = on.speeds(gpu, plan, batch, widen);
        // Under a request rate, arriving prompts take their share of the decode's time.
        let speeds = match (rate, fits_one) {
            (Some(Some(l)), true) => speeds.sharing_prefill(l.prefill_share),
            _ => speeds,
        };
        let fits = fits_one && max_batch >= 1.0 && on.unsupported.is_none() && !matches!(rate, Some(None));
        // Copies over every instance rented; the users' sequences keep only some busy (idle copies serve no
        // tokens).
        let replicas = per_instance * (instances / nodes.max(1)).max(1);
        let r = match (rate, batch_asked) {
            (Some(Some(l)), _) if fits => f64::from(l.copies).min(f64::from(replicas)),
            // The user's sequences, not each busy copy's rounded-up share: no token past the stated load is
            // counted.
            (_, Batch::N(_)) if fits => (wanted / batch.max(1.0)).clamp(1.0, f64::from(replicas)),
            _ => f64::from(replicas),
        };
        // Every `_total` speed covers every replica the offer bills (the busy ones).
        let mut speeds = speeds.with_copies(r);
        // A stated request rate produces its own tokens: rate × output tokens.
        if let (Some(Some(_)), Some(rps), true) = (rate, cfg.rps, fits) {
            speeds = speeds.with_output_total(rps * job.output_tokens);
        }
        // Priced on output tokens with the prompts' prefill included.
        let tokens_per_s = speeds.output_tokens_per_s_total().unwrap_or(0.0);
        let layout = if replicas > 1 {
            Msg::new("layout.replicas")
                .num("replicas", f64::from(replicas), 0)
                .num("per", f64::from(plan.gpus()), 0)
                .arg("gpu", gpu.name.clone())
        } else if plan.gpus() == 1 {
            Msg::new("layout.single")
        } else if nodes > 1 {
            Msg::new("layout.pp").num("tp", f64::from(plan.tp), 0).num("pp", f64::from(plan.pp), 0).num(
                "instances",
                f64::from(instances),
                0,
            )
        } else if e.splits_layers() {
            Msg::new("layout.layers").num("gpus", f64::from(plan.gpus()), 0)
        } else {
            Self::layout_msg(e, plan)
        };
        let ttft = speeds.time_to_first_token_s().unwrap_or(f64::MAX);
        let meets = cfg.maxttft.is_none_or(|m| ttft <= m);
        reasons.extend(
            cfg.maxttft
                .filter(|m| ttft > *m)
                .map(|m| Msg::new("reason.ttft").num("ttft", ttft, 2).num("max", m, 2)),
        );
        OfferPlan {
            meets,
            gpus: plan.gpus(),
            instances,
            replicas,
            tp: plan.tp,
            pp: plan.pp,
            dp: plan.dp.max(1),
            ep: plan.ep,
            speed_score: speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0),
            startup_s: engine::startup_s(job.weight_bytes()),
            load_bytes: job.weight_bytes(),
            store_gb: cfg.store_gb.unwrap_or(job.weight_bytes() / 1e9),
            output: Output::Tokens(tokens_per_s),
            extra_reasons: reasons,
            ..OfferPlan::new(fits, job.memory(plan, batch).total(), usable, batch, conf, layout, speeds)
        }
    }
}
