//! The cost an offer is ranked on, which several answers quote.

use super::super::answer::{Answer, OfferResult};
use super::super::kinds::Objective;

/// An offer's cost per unit of work on the objective the offers are ranked
/// by (per million tokens, per image, per job…); `None` on a monthly or
/// a speed ranking.
pub fn ranked_cost(a: &Answer, o: &OfferResult) -> Option<f64> {
    match a.recommendation.as_ref().map(|r| r.objective)? {
        Objective::UsdPerMillionOutputTokens => o.usd_per_million_output_tokens,
        Objective::UsdPer1000Images => o.usd_per_1000_images,
        Objective::UsdPerClip => o.usd_per_clip,
        Objective::UsdPerAudioHour => o.usd_per_audio_hour,
        Objective::UsdPerJob => o.usd_per_job,
        _ => None,
    }
}
