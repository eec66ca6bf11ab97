//! Your measurement (`measured`, `measured_ttft`): compared with the
//! estimate of the same configuration on the pinned GPU, and turned into
//! the factors that rescale that GPU type's speeds (`estimate::serve::Rescale`).
//!
//! The estimate compared is the one the answer would show without the
//! measurement: the pick's decode tokens/s per sequence and time to first
//! token (its layout and concurrency, on the pinned GPU). The factor
//! measured ÷ estimate then scales every decode step on that GPU type (and
//! the first-token time every prefill), so the pick's own speed becomes the
//! measurement and everything computed from speed follows: the copies a
//! request rate needs, a batch job's hours, the bills, $ per million tokens.

use super::super::answer::Measured;
use super::super::catalog::Catalog;
use super::super::estimate::serve::Rescale;
use super::super::messages::Msg;
use super::super::notice::Notice;
use super::super::settings::Settings;
use super::whatif::Rerun;

/// A measurement further than this factor from the estimate (either way)
/// is read as a mistake in the unit (a total over every user given as per
/// user: a factor of the batch) rather than as the engine's speed: the
/// estimator's own errors are within ×2 at p90 (`static/accuracy.csv`).
const FAR: f64 = 10.0;

/// The rescale factors, the comparison the answer shows, and the notices.
/// `rerun` answers the link without the measurement (the pipeline's `run`).
pub(super) fn rescale(
    cfg: &Settings,
    catalog: &Catalog,
    rerun: Rerun<'_>,
) -> (Option<Rescale>, Option<Measured>, Vec<Notice>) {
    let mut notices = Vec::new();
    let (Some(gpu), true) = (
        cfg.gpu.as_deref().and_then(|g| catalog.gpu(g)),
        cfg.measured.is_some() || cfg.measured_ttft.is_some(),
    ) else {
        return (None, None, notices);
    };
    let mut base = cfg.config().clone();
    base.measured = None;
    base.measured_ttft = None;
    let (answer, _) = rerun(&base, None);
    let Some(pick) = answer.pick() else {
        for (key, _) in [("measured", cfg.measured), ("measured_ttft", cfg.measured_ttft)]
            .into_iter()
            .filter(|(_, v)| v.is_some())
        {
            notices.push(Notice::said(
                key,
                Msg::new("notice.measured.none").arg("key", key).arg("gpu", gpu.name.clone()),
            ));
        }
        return (None, None, notices);
    };
    let est_decode = pick.speeds.decode_tokens_per_s_per_seq().filter(|v| *v > 0.0);
    let est_ttft = pick.speeds.time_to_first_token_s().filter(|v| *v > 0.0);
    // (key, measured, estimate, the factor on speed or on time, unit, decimals)
    let mut factor =
        |key: &'static str, value: Option<f64>, estimate: Option<f64>, unit: &'static str, dp: u8| -> f64 {
            let (Some(v), Some(e)) = (value, estimate) else { return 1.0 };
            let k = v / e;
            let msg = |id: &'static str| {
                Msg::new(id)
                    .arg("key", key)
                    .num("value", v, dp)
                    .arg("gpu", gpu.name.clone())
                    .num("estimate", e, dp)
                    .sub("unit", Msg::new(unit))
                    .num("factor", k, 2)
            };
            if (1.0 / FAR..=FAR).contains(&k) {
                notices.push(Notice::said(key, msg("notice.measured")));
                k
            } else {
                notices.push(Notice::said(key, msg("notice.measured.far")));
                1.0
            }
        };
    let decode = factor("measured", cfg.measured, est_decode, "unit.tps_seq", 1);
    let ttft = factor("measured_ttft", cfg.measured_ttft, est_ttft, "unit.ttft", 2);
    let shown = Measured {
        gpu: gpu.id.clone(),
        offer: pick.id.to_string(),
        decode_tokens_per_s_per_seq: cfg.measured,
        estimate_decode_tokens_per_s_per_seq: est_decode,
        decode_factor: decode,
        time_to_first_token_s: cfg.measured_ttft,
        estimate_time_to_first_token_s: est_ttft,
        ttft_factor: ttft,
    };
    let rescale = (decode != 1.0 || ttft != 1.0).then(|| Rescale { gpu: gpu.id.clone(), decode, ttft });
    (rescale, Some(shown), notices)
}
