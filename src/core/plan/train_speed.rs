//! A training plan's speed on a layout: tokens/s over the links a GPU
//! count crosses, the shares of the compute rate the network and the host
//! link leave (what the guidance quotes), and the GPUs a deadline needs.

use super::super::answer::{Range, Speeds, TaskSpeeds, TrainSpeeds};
use super::super::catalog::gpus::Vendor;
use super::super::catalog::{Gpu, Model};
use super::super::estimate::ranges::{self, Confidence};
use super::super::estimate::train::{mfu, Layout, TrainJob};
use super::super::estimate::train_clock::Term;
use super::super::settings::Settings;

/// Node-to-node bandwidth per GPU assumed when an offer publishes none:
/// 400 Gb/s InfiniBand NDR per GPU, the usual HGX H100 fabric.
pub const DEFAULT_INTER_NODE_BYTES_PER_S: f64 = 50e9;

pub fn link_bytes_per_s(gpu: &Gpu, gpus: u32) -> f64 {
    if gpus > gpu.gpus_per_node {
        DEFAULT_INTER_NODE_BYTES_PER_S
    } else {
        gpu.link_bytes_per_s(true)
    }
}

pub fn tokens_per_s(job: &TrainJob<'_>, gpu: &Gpu, gpus: u32) -> f64 {
    job.tokens_per_s_per_gpu(gpu, mfu(gpu, job.method), f64::from(gpus), link_bytes_per_s(gpu, gpus))
        * f64::from(gpus)
}

pub fn layout_tokens_per_s(job: &TrainJob<'_>, gpu: &Gpu, l: Layout) -> f64 {
    job.tokens_per_s(
        gpu,
        mfu(gpu, job.method),
        l,
        link_bytes_per_s(gpu, l.gpus()),
        gpu.link_bytes_per_s(true),
    )
}

/// The share of its compute rate a layout keeps once the traffic between
/// GPUs is counted (1 = none lost): the same step with links of unlimited
/// bandwidth is the compute alone.
pub fn network_share(job: &TrainJob<'_>, gpu: &Gpu, l: Layout) -> f64 {
    let free = job.tokens_per_s(gpu, mfu(gpu, job.method), l, f64::INFINITY, f64::INFINITY);
    if free > 0.0 {
        layout_tokens_per_s(job, gpu, l) / free
    } else {
        1.0
    }
}

/// The share of its rate a layout keeps once the offloaded states and
/// activations cross the host link (1 = nothing offloaded, or all of it
/// hidden behind the compute): the same step with nothing offloaded.
pub fn host_share(job: &TrainJob<'_>, gpu: &Gpu, l: Layout) -> f64 {
    // The CPU's optimizer step is a clock term of its own (`clock_term`).
    let with = TrainJob { clock: Term::CpuOptimizer.without(job.clock), ..job.clone() };
    let kept =
        TrainJob { optim_offload: false, offload_params: false, offload_activations: false, ..with.clone() };
    let without = layout_tokens_per_s(&kept, gpu, l);
    if without > 0.0 {
        (layout_tokens_per_s(&with, gpu, l) / without).min(1.0)
    } else {
        1.0
    }
}

/// The clock term (`estimate::train_clock`) that costs the layout the most,
/// and the share of the rate it keeps with that term (1 = none costs anything).
pub fn clock_term(job: &TrainJob<'_>, gpu: &Gpu, l: Layout) -> (Term, f64) {
    let rate = layout_tokens_per_s(job, gpu, l);
    Term::ALL
        .iter()
        .map(|t| {
            let without =
                layout_tokens_per_s(&TrainJob { clock: t.without(job.clock), ..job.clone() }, gpu, l);
            (*t, if without > 0.0 { (rate / without).min(1.0) } else { 1.0 })
        })
        .fold((Term::HostLaunch, 1.0), |best, t| if t.1 < best.1 { t } else { best })
}

/// GPUs needed to train the job's tokens within `days` (the inverse question).
pub fn gpus_for_deadline(job: &TrainJob<'_>, cfg: &Settings, gpu: &Gpu, days: f64) -> u32 {
    let tokens = job.job_tokens(cfg);
    // An RL step's rate does not start at one GPU (a split needs two, a
    // colocated engine may need several to hold the weights): it is taken
    // per GPU of a whole node.
    let probe = if job.rl.is_some() { gpu.gpus_per_node.max(1) } else { 1 };
    let per_gpu = (tokens_per_s(job, gpu, probe) / f64::from(probe)).max(1e-9);
    let n = (tokens / (per_gpu * days * 86_400.0)).ceil();
    if n.is_finite() {
        n.clamp(1.0, 1e6) as u32
    } else {
        1
    }
}

/// Decimals to show a deadline in days with: whole days as they are, a
/// fraction of a day (`days=0.16`) with two.
pub fn day_decimals(days: f64) -> u8 {
    if days.fract() == 0.0 {
        0
    } else {
        2
    }
}

/// A plan's speeds at `tps`: tokens/s, and the run's hours and GPU-hours,
/// within the range `widen` sets.
pub(super) fn speeds(job: &TrainJob<'_>, cfg: &Settings, tps: f64, layout: Layout, widen: f64) -> Speeds {
    let gpus = layout.gpus();
    let hours = (tps > 0.0).then(|| job.job_tokens(cfg) / tps / 3600.0);
    let s = ranges::widen(ranges::TRAIN, widen);
    Speeds {
        task: TaskSpeeds::Train(TrainSpeeds {
            tokens_per_s: Some(Range::rate(tps, s)),
            dp: layout.dp,
            tp: layout.tp,
            pp: layout.pp,
        }),
        job_hours: hours.map(|h| Range::time(h, s)),
        job_gpu_hours: hours.map(|h| h * f64::from(gpus)),
    }
}

/// How sure the speed is (an inferred model, a card outside the fitted
/// HBM NVIDIA class, a plan past one node), and how much it widens the range.
pub(super) fn confidence(model: &Model, gpu: &Gpu, gpus: u32) -> (Confidence, f64) {
    let mut score = 0;
    if model.inferred {
        score += 2;
    }
    if !gpu.is_hbm() || gpu.vendor != Vendor::Nvidia {
        score += 1;
    }
    if gpus > gpu.gpus_per_node {
        score += 1;
    }
    let c = Confidence::from_doubts(score);
    (c, c.widen())
}
