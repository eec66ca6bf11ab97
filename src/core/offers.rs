//! The third step of the pipeline: offers. Each offer that passes the
//! filters gets its plan from the [`Planner`], its bill from
//! [`super::billing`], its per-unit prices from the plan's [`Output`] and
//! its reasons; then the ranking by the user's goal and the pick with its
//! alternatives. Nothing here knows which task it serves beyond that.

use super::answer::{OfferResult, Pick, Recommendation};
use super::billing::{self, Bill};
use super::catalog::{Catalog, Offer, STALE_AFTER_DAYS};
use super::config::{Config, Sort};
use super::date::Date;
use super::messages::Msg;
use super::plan::{OfferPlan, Output, Planner};
use super::units::GIB;

/// Plans, bills and ranks every offer that passes the filters.
pub fn evaluate(cfg: &Config, catalog: &Catalog, today: Date, planner: &mut Planner<'_>) -> Vec<OfferResult> {
    let mut out = Vec::with_capacity(catalog.offers.len());
    for o in catalog.offers.iter().filter(|o| passes_filters(cfg, o)) {
        if let Some(gpu) = catalog.gpu(&o.gpu) {
            let plan = planner.offer(gpu, o);
            out.push(priced(cfg, catalog, o, plan, today));
        }
    }
    rank(cfg, out)
}

/// One offer with its plan: the bill for the instances the plan rents, the
/// cost of the unit the task produces, and the reasons.
fn priced(cfg: &Config, catalog: &Catalog, o: &Offer, p: OfferPlan, today: Date) -> OfferResult {
    let b: Bill = billing::bill(cfg, catalog, o, p.instances, p.job_hours, p.store_gb);
    let fits = p.fits;
    let per_hour_unit = |per_hour: f64| (per_hour > 0.0 && fits).then(|| b.usd_per_hour / per_hour);
    let (mut usd_per_job, mut per_million, mut per_1000_images, mut per_audio_hour) = (b.usd_per_job, None, None, None);
    let mut throughput_total = 0.0;
    match p.output {
        Output::Tokens(tps) => {
            throughput_total = tps;
            let tokens_month = tps * b.hours.busy_per_month * 3600.0;
            per_million = (tokens_month > 0.0 && fits).then(|| b.compute_month / tokens_month * 1e6);
        }
        Output::Training(tps) => throughput_total = tps,
        Output::Images(per_hour) => {
            throughput_total = per_hour;
            per_1000_images = per_hour_unit(per_hour).map(|p| p * 1000.0);
        }
        Output::Clips(per_hour) => {
            throughput_total = per_hour;
            usd_per_job = per_hour_unit(per_hour);
        }
        Output::Audio(rtf) => {
            per_audio_hour = (rtf > 0.0 && fits).then(|| b.usd_per_hour / rtf);
        }
        Output::None => {}
    }
    let (mut reason_msgs, stale) = offer_reasons(cfg, o, today, p.gpus, p.need_bytes, p.usable_bytes, fits, b.spot);
    reason_msgs.extend(p.extra_reasons);
    let meets = fits && p.meets && cfg.mintps.is_none_or(|m| p.speed_score >= m) && cfg.maxusd.is_none_or(|m| b.usd_per_month <= m);
    OfferResult {
        id: o.id.clone(),
        provider: o.provider.clone(),
        instance: o.instance.clone(),
        region: o.region.clone(),
        gpu: o.gpu.clone(),
        gpus: o.gpus,
        instances: p.instances,
        replicas: p.replicas,
        tp: p.tp,
        pp: p.pp,
        dp: p.dp,
        batch: p.batch,
        fits,
        meets,
        layout_msg: p.layout,
        headroom_bytes: p.usable_bytes - p.need_bytes,
        need_bytes: p.need_bytes,
        usable_bytes: p.usable_bytes,
        spot: b.spot,
        interconnect: o.interconnect.as_str(),
        confidence: p.confidence,
        speeds: Box::new(p.speeds),
        usd_per_hour: b.usd_per_hour,
        usd_per_month: b.usd_per_month,
        usd_per_job,
        usd_per_million_output_tokens: per_million,
        usd_per_1000_images: per_1000_images,
        usd_per_audio_hour: per_audio_hour,
        storage_usd_per_month: b.storage_usd_per_month,
        egress_usd_per_month: b.egress_usd_per_month,
        price_overridden: b.overridden,
        price_as_of: o.as_of,
        stale,
        source: o.source.clone(),
        reason_msgs,
        throughput_total,
        speed_score: p.speed_score,
    }
}

pub fn passes_filters(cfg: &Config, o: &Offer) -> bool {
    (cfg.providers.is_empty() || cfg.providers.iter().any(|p| **p == *o.provider))
        && cfg.gpu.as_ref().is_none_or(|g| **g == *o.gpu)
        && cfg.region.as_ref().is_none_or(|r| o.region.to_lowercase().contains(&r.to_lowercase()))
}

/// The one-line reasons every offer carries — fits (with headroom) or not,
/// spot, a possibly stale price — and whether the price is stale.
#[allow(clippy::too_many_arguments)]
fn offer_reasons(cfg: &Config, o: &Offer, today: Date, gpus: u32, need: f64, usable: f64, fits: bool, spot: bool) -> (Vec<Msg>, bool) {
    let mut msgs = Vec::new();
    if fits {
        msgs.push(Msg::new("reason.fits").num("headroom", (usable - need).max(0.0) / GIB, 1).num("gpus", f64::from(gpus), 0));
    } else {
        msgs.push(Msg::new("reason.nofit").num("need", need / GIB, 1).num("have", usable / GIB, 1));
    }
    if spot {
        msgs.push(Msg::new("reason.spot").num("restart", cfg.restart_pct, 0));
    }
    let stale = o.as_of.days_until(today) > STALE_AFTER_DAYS;
    if stale {
        msgs.push(Msg::new("reason.stale").arg("date", o.as_of.to_string()));
    }
    (msgs, stale)
}

/// Filters and evaluations done, orders the offers by the user's goal.
fn rank(cfg: &Config, out: Vec<OfferResult>) -> Vec<OfferResult> {
    let meets = |r: &OfferResult| r.meets;
    let key = |r: &OfferResult| -> f64 {
        match cfg.sort {
            // A training job is compared by what the job costs.
            Sort::Cost if cfg.is_training() => r.usd_per_job.unwrap_or(r.usd_per_month),
            Sort::Cost => r.usd_per_month,
            Sort::Token => r.usd_per_million_output_tokens.unwrap_or(f64::MAX),
            Sort::Speed => -r.speed_score,
            Sort::Latency => r.speeds.request_latency_s.or(r.speeds.job_hours).unwrap_or(f64::MAX),
        }
    };
    // Sort small keys, then move each result once: results are large, and
    // a comparison sort would move them many times.
    let keys: Vec<(bool, f64, f64)> = out.iter().map(|r| (!meets(r), key(r), r.usd_per_month)).collect();
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_unstable_by(|&i, &j| {
        let (a, b) = (keys.get(i), keys.get(j));
        let (Some(a), Some(b)) = (a, b) else { return i.cmp(&j) };
        a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.total_cmp(&b.2)).then_with(|| out.get(i).map(|r| &r.id).cmp(&out.get(j).map(|r| &r.id)))
    });
    let mut slots: Vec<Option<OfferResult>> = out.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)).collect()
}


/// The pick (first ranked offer that fits and meets the filters) and up to
/// three alternatives: the cheapest, the fastest, a single-GPU option when
/// the pick spans GPUs, an on-demand option when the pick is spot.
pub fn recommend(ranked: &[OfferResult]) -> Option<Recommendation> {
    let ok = |r: &&OfferResult| r.meets;
    let pick = ranked.iter().find(ok)?;
    let speed = |r: &OfferResult| r.speed_score;
    let mut alts: Vec<(&OfferResult, &'static str)> = Vec::new();
    let cheapest = ranked.iter().filter(ok).min_by(|a, b| a.usd_per_month.total_cmp(&b.usd_per_month));
    if let Some(c) = cheapest {
        alts.push((c, "cheapest"));
    }
    let fastest = ranked.iter().filter(ok).max_by(|a, b| speed(a).total_cmp(&speed(b)).then(b.usd_per_month.total_cmp(&a.usd_per_month)));
    if let Some(f) = fastest {
        alts.push((f, "fastest"));
    }
    if pick.tp * pick.pp * pick.instances > 1 {
        if let Some(s) = ranked.iter().filter(ok).find(|r| r.tp * r.pp == 1 && r.instances == 1) {
            alts.push((s, "single-gpu"));
        }
    }
    if pick.spot {
        if let Some(s) = ranked.iter().filter(ok).find(|r| !r.spot) {
            alts.push((s, "on-demand"));
        }
    }
    let mut seen = vec![pick.id.clone()];
    let alternatives: Vec<Pick> = alts
        .into_iter()
        .filter(|(r, _)| {
            if seen.contains(&r.id) {
                false
            } else {
                seen.push(r.id.clone());
                true
            }
        })
        .take(3)
        .map(|(r, why)| make_pick(r, why, pick))
        .collect();
    Some(Recommendation { pick: make_pick(pick, "best", pick), alternatives })
}

fn make_pick(r: &OfferResult, why: &'static str, against: &OfferResult) -> Pick {
    let mut msgs = r.reason_msgs.clone();
    let speed = |x: &OfferResult| x.speed_score;
    if r.id != against.id && speed(against) > 0.0 && against.usd_per_month > 0.0 {
        msgs.push(
            Msg::new("reason.versus")
                .num("speed", speed(r) / speed(against), 2)
                .num("price", r.usd_per_month / against.usd_per_month, 2)
                .arg("other", against.instance.to_string()),
        );
    }
    Pick { offer: r.id.clone(), why, reason_msgs: msgs }
}
