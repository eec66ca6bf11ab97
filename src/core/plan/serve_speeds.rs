//! The figures of one serving plan: its speeds with their ranges, and how
//! sure they are (the confidence that widens those ranges).

use super::super::answer::{Range, ServeSpeeds, Speeds, TaskSpeeds};
use super::super::catalog::gpus::Vendor;
use super::super::catalog::{Gpu, Model};
use super::super::estimate::engine;
use super::super::estimate::ranges::{self, Confidence};
use super::super::settings::Settings;
use std::cell::RefCell;

use super::super::estimate::serve::{Bound, Plan, ServeJob, ServeSpeed};
use super::super::messages::Msg;
use super::shared::OfferPlan;

/// Speeds of a serving plan with their ranges. Times scale inversely.
pub fn serve_speeds(job: &ServeJob<'_>, gpu: &Gpu, plan: Plan, batch: f64, widen: f64) -> (Speeds, Bound) {
    with_ranges(job.speed(gpu, plan, batch), job.offline_throughput(gpu, plan, batch), widen)
}

/// [`serve_speeds`] from a plan's likely speeds and offline throughput.
fn with_ranges(s: ServeSpeed, output: f64, widen: f64) -> (Speeds, Bound) {
    let dec = ranges::widen(ranges::DECODE, widen);
    let pre = ranges::widen(ranges::PREFILL, widen);
    let serve = ServeSpeeds {
        decode_per_seq: Range::rate(s.decode_tokens_per_s_per_seq, dec),
        decode_total: Range::rate(s.decode_tokens_per_s_total, dec),
        prefill: Range::rate(s.prefill_tokens_per_s, pre),
        time_to_first_token: Range::time(s.time_to_first_token_s, pre),
        request_latency: Range::time(s.request_latency_s, dec),
        output_per_s: (output.is_finite() && output > 0.0).then_some(output),
        output_total: None,
    };
    (Speeds::of(TaskSpeeds::Serve(serve)), s.decode_bound)
}

/// How sure we are of a GPU's figures: high where the engine and the GPU
/// class have calibration rows, lower for engines tuned from comparisons,
/// inferred architectures, GPUs of vendors without data, and multi-node plans.
pub fn confidence(cfg: &Settings, model: &Model, gpu: &Gpu, plan: Plan) -> (Confidence, f64) {
    let mut score = 0;
    if !engine::has_direct_data(cfg.engine) {
        score += 1;
    }
    if model.inferred {
        score += 2;
    }
    if gpu.vendor != Vendor::Nvidia {
        score += 1;
    }
    if plan.pp > 1 {
        score += 1;
    }
    let c = Confidence::from_doubts(score);
    (c, c.widen())
}

/// One GPU type's figures for the job, worked out once per evaluation:
/// offers of several shapes (1, 2, 4, 8 GPUs, with or without a network)
/// share a GPU type, and each shape weighs the same tensor-parallel groups
/// (their sequences per copy, their speeds). The job as the engine runs it
/// on the GPU, why it cannot (support matrix), and each figure by plan
/// and batch as first computed: the same function of the same inputs, so
/// every answer is the one the estimator gives.
pub struct OnGpu<'r> {
    pub job: ServeJob<'r>,
    pub unsupported: Option<Msg>,
    seen: RefCell<Seen>,
}

#[derive(Default)]
struct Seen {
    /// By (GPUs per instance, whether several instances may be joined).
    plans: Vec<((u32, bool), OfferPlan)>,
    max_batch: Vec<(Plan, u32)>,
    speed: Vec<(Plan, u64, ServeSpeed)>,
}

impl<'r> OnGpu<'r> {
    pub fn new(job: ServeJob<'r>, unsupported: Option<Msg>) -> OnGpu<'r> {
        OnGpu { job, unsupported, seen: RefCell::new(Seen::default()) }
    }

    /// The plan of an offer shape on this GPU type: `work`'s, once.
    pub fn plan(&self, shape: (u32, bool), work: impl FnOnce() -> OfferPlan) -> OfferPlan {
        if let Some((_, p)) = self.seen.borrow().plans.iter().find(|(s, _)| *s == shape) {
            return p.clone();
        }
        let p = work();
        self.seen.borrow_mut().plans.push((shape, p.clone()));
        p
    }

    /// [`ServeJob::max_batch`].
    pub fn max_batch(&self, gpu: &Gpu, plan: Plan) -> u32 {
        if let Some((_, v)) = self.seen.borrow().max_batch.iter().find(|(p, _)| *p == plan) {
            return *v;
        }
        let v = self.job.max_batch(gpu, plan);
        self.seen.borrow_mut().max_batch.push((plan, v));
        v
    }

    /// [`ServeJob::speed`].
    pub fn speed(&self, gpu: &Gpu, plan: Plan, batch: f64) -> ServeSpeed {
        let b = batch.to_bits();
        if let Some((_, _, v)) = self.seen.borrow().speed.iter().find(|(p, x, _)| *p == plan && *x == b) {
            return *v;
        }
        let v = self.job.speed(gpu, plan, batch);
        self.seen.borrow_mut().speed.push((plan, b, v));
        v
    }

    /// [`serve_speeds`].
    pub fn speeds(&self, gpu: &Gpu, plan: Plan, batch: f64, widen: f64) -> (Speeds, Bound) {
        with_ranges(self.speed(gpu, plan, batch), self.job.offline_throughput(gpu, plan, batch), widen)
    }
}
