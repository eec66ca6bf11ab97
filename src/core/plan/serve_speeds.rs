//! The figures of one serving plan: its speeds with their ranges, and how
//! sure they are (the confidence that widens those ranges).

use super::super::answer::{Range, ServeSpeeds, Speeds, TaskSpeeds};
use super::super::catalog::gpus::Vendor;
use super::super::catalog::{Gpu, Model};
use super::super::config::Config;
use super::super::estimate::engine;
use super::super::estimate::ranges::{self, Confidence};
use super::super::estimate::serve::{Bound, Plan, ServeJob};

/// Speeds of a serving plan with their ranges. Times scale inversely.
pub fn serve_speeds(job: &ServeJob<'_>, gpu: &Gpu, plan: Plan, batch: f64, widen: f64) -> (Speeds, &'static str) {
    let s = job.speed(gpu, plan, batch);
    let dec = ranges::widen(ranges::DECODE, widen);
    let pre = ranges::widen(ranges::PREFILL, widen);
    let output = job.offline_throughput(gpu, plan, batch);
    let bound = match s.decode_bound {
        Bound::Memory => "memory",
        Bound::Compute => "compute",
    };
    let serve = ServeSpeeds {
        decode_per_seq: Range::rate(s.decode_tokens_per_s_per_seq, dec),
        decode_total: Range::rate(s.decode_tokens_per_s_total, dec),
        prefill: Range::rate(s.prefill_tokens_per_s, pre),
        time_to_first_token: Range::time(s.time_to_first_token_s, pre),
        request_latency: Range::time(s.request_latency_s, dec),
        output_per_s: (output.is_finite() && output > 0.0).then_some(output),
        output_total: None,
    };
    (Speeds::of(TaskSpeeds::Serve(serve)), bound)
}

/// How sure we are of a GPU's figures: high where the engine and the GPU
/// class have calibration rows, lower for engines tuned from comparisons,
/// inferred architectures, GPUs of vendors without data, and multi-node plans.
pub fn confidence(cfg: &Config, model: &Model, gpu: &Gpu, plan: Plan) -> (Confidence, f64) {
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
