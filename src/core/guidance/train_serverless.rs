//! Serverless for a training job: the bill in worker-hours and GPU-hours
//! of that job (or of the month's jobs), not the "hours a month" of an
//! endpoint. A worker bills its wall time at the per-second rate of all
//! its GPUs; workers run side by side, so their hours add up as
//! worker-hours, not as hours on a clock (`billing::serverless_hours`).

use super::super::answer::{Answer, GuidanceItem, OfferResult};
use super::super::config::Usage;
use super::super::messages::Msg;
use super::super::settings::Settings;
use super::ranked::ranked_cost;

/// Decimals for a number of hours: two below one, one below ten.
fn digits(h: f64) -> u8 {
    if h < 1.0 {
        2
    } else if h < 10.0 {
        1
    } else {
        0
    }
}

/// Worker-hours and GPU-hours an offer bills for the job or the month's jobs.
fn hours(o: &OfferResult) -> (f64, f64) {
    let workers = o.billed_hours_per_month * f64::from(o.instances.max(1));
    (workers, workers * f64::from(o.gpus.max(1)))
}

/// "the job" or "the N jobs a month".
fn what(cfg: &Settings) -> Msg {
    match cfg.usage() {
        Usage::Jobs => Msg::new("g.serverless.what.jobs").num("jobs", cfg.jobs, 0),
        _ => Msg::new("g.serverless.what.once"),
    }
}

/// The serverless note of a training job run once or as jobs; `None`
/// under other usages (the endpoint's notes apply) or when no serverless
/// offer fits at or above the pick's cost.
pub fn note(cfg: &Settings, a: &Answer, pick: &OfferResult) -> Option<Option<GuidanceItem>> {
    if !cfg.is_training() || !cfg.batch_usage() {
        return None;
    }
    let cold = |o: &OfferResult| o.cold_start_s.unwrap_or(0.0);
    let msg = |key: &'static str, o: &OfferResult| {
        let (workers, gpus) = hours(o);
        let cold_h = o.cold_starts_per_month * cold(o) / 3600.0;
        Msg::new(key)
            .arg("offer", o.id.to_string())
            .sub("what", what(cfg))
            .num("workers", workers, digits(workers))
            .num("gpuh", gpus, digits(gpus))
            .num("cold_h", cold_h, digits(cold_h))
            .num("starts", o.cold_starts_per_month, 0)
            .num("cold", cold(o), 0)
    };
    if pick.serverless {
        return Some(Some(GuidanceItem::new(
            "serverless",
            Some("g.serverless.title"),
            msg("g.serverless.train.pick", pick),
        )));
    }
    // The cheapest fitting serverless offer per unit of work (the job),
    // on the cost the offers are ranked by; none on a speed ranking.
    let cost = |o: &OfferResult| ranked_cost(a, o).unwrap_or(f64::MAX);
    let best = a
        .offers
        .iter()
        .filter(|o| o.serverless && o.fits && cost(o) < f64::MAX)
        .min_by(|x, y| cost(x).total_cmp(&cost(y)));
    let ratio = best.map(|b| cost(b) / cost(pick).max(1e-9));
    Some(best.zip(ratio).filter(|(_, r)| *r >= 1.0 && r.is_finite()).map(|(b, r)| {
        let m = msg("g.serverless.train.lost", b).num("ratio", r, if r < 10.0 { 2 } else { 0 });
        GuidanceItem::new("serverless", Some("g.serverless.title"), m)
    }))
}
