//! What offers are ranked on: the objective by task, usage and `sort`,
//! and each offer's value on it.

use super::super::answer::OfferResult;
use super::super::config::Sort;
use super::super::plan::Unit;
use super::super::settings::Settings;

pub use super::super::kinds::Objective;

impl Objective {
    /// The offer's value, oriented so that smaller is better; unknown last.
    pub fn key(self, r: &OfferResult) -> f64 {
        let s = &r.speeds;
        let v = match self {
            Objective::UsdPerMillionOutputTokens => r.usd_per_million_output_tokens,
            Objective::UsdPer1000Images => r.usd_per_1000_images,
            Objective::UsdPerClip => r.usd_per_clip,
            Objective::UsdPerAudioHour => r.usd_per_audio_hour,
            Objective::UsdPerJob => r.usd_per_job,
            Objective::UsdPerMonth => Some(r.usd_per_month),
            Objective::TokensPerSPerUser => s.decode_tokens_per_s_per_seq().map(|v| -v),
            Objective::SecondsPerImage => s.seconds_per_image(),
            Objective::SecondsPerClip => s.seconds_per_clip(),
            Objective::AudioRealtimeFactor => s.audio_realtime_factor().map(|v| -v),
            Objective::ItemsPerHour => Some(-r.throughput_total),
            Objective::RequestLatency => s.request_latency_s(),
            Objective::JobHours => s.job_hours(),
        };
        v.filter(|x| x.is_finite()).unwrap_or(f64::MAX)
    }
}

/// The objective table (docs/objectives.md): `cost` ranks by the cost of
/// the unit the user buys; `speed` by tokens/s per user for serving, seconds
/// per request for generation endpoints, throughput for batch jobs, job
/// hours for training; `latency` by the time one request or job takes;
/// `token` by $ per million output tokens (serving) and otherwise as `cost`.
pub fn objective(cfg: &Settings, unit: Unit) -> Objective {
    objective_on(cfg, cfg.sort, unit)
}

/// [`objective`] for a `sort` in place of the link's.
fn objective_on(cfg: &Settings, sort: Sort, unit: Unit) -> Objective {
    let batch = cfg.batch_usage();
    let per_job = batch && cfg.per_job.is_some();
    // Jobs of a stated length (`jobmin`) and no stated work: each costs its
    // minutes on the offer, whatever it produces in them, so the bill per
    // job is what the user buys (issue 42: a $0.38 job ranked over a $0.12
    // one by cost per token).
    let fixed = batch && cfg.per_job.is_none() && cfg.jobmin.is_some();
    let cost = match unit {
        Unit::Tokens | Unit::Images | Unit::Clips | Unit::Audio if fixed => Objective::UsdPerJob,
        Unit::Tokens if per_job => Objective::UsdPerJob,
        Unit::Tokens if batch => Objective::UsdPerMillionOutputTokens,
        Unit::Tokens => Objective::UsdPerMillionOutputTokens,
        Unit::Images if per_job => Objective::UsdPerJob,
        Unit::Images => Objective::UsdPer1000Images,
        Unit::Clips if per_job => Objective::UsdPerJob,
        Unit::Clips => Objective::UsdPerClip,
        Unit::Audio if per_job => Objective::UsdPerJob,
        Unit::Audio => Objective::UsdPerAudioHour,
        Unit::Training | Unit::ImageTraining if batch => Objective::UsdPerJob,
        Unit::Training | Unit::ImageTraining => Objective::UsdPerMonth,
    };
    let speed = match unit {
        // An offline job of requests is done when all are: its hours.
        Unit::Tokens if per_job => Objective::JobHours,
        Unit::Tokens => Objective::TokensPerSPerUser,
        Unit::Images | Unit::Clips | Unit::Audio if batch => Objective::ItemsPerHour,
        Unit::Images => Objective::SecondsPerImage,
        Unit::Clips => Objective::SecondsPerClip,
        Unit::Audio => Objective::AudioRealtimeFactor,
        Unit::Training | Unit::ImageTraining => Objective::JobHours,
    };
    let latency = match unit {
        Unit::Tokens if per_job => Objective::JobHours,
        Unit::Tokens => Objective::RequestLatency,
        Unit::Images => Objective::SecondsPerImage,
        Unit::Clips => Objective::SecondsPerClip,
        Unit::Audio => Objective::AudioRealtimeFactor,
        Unit::Training | Unit::ImageTraining => Objective::JobHours,
    };
    match sort {
        Sort::Cost => cost,
        Sort::Token if unit == Unit::Tokens => Objective::UsdPerMillionOutputTokens,
        Sort::Token => cost,
        Sort::Speed => speed,
        Sort::Latency => latency,
    }
}

/// The cost objective of a task and usage (what "cheapest" and the 2× rule use).
pub fn cost_objective(cfg: &Settings, unit: Unit) -> Objective {
    objective_on(cfg, Sort::Cost, unit)
}
