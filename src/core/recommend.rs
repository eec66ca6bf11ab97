//! Joining the estimate to the priced catalog: per offer, does the job fit,
//! how many instances, how fast, what it costs per hour, month, job and
//! million tokens; then ranking by the user's goal and the recommendation.

use std::sync::Arc;

use serde::Serialize;

use super::answer::{serve_speeds, confidence, Speeds};
use super::billing;
use super::catalog::{Catalog, Date, Gpu, Offer, STALE_AFTER_DAYS};
use super::config::{Batch, Config, Sort};
use super::estimate::serve::{tp_options, Plan, ServeJob};
use super::messages::Msg;
use super::units::GIB;

#[derive(Debug, Clone, Serialize)]
pub struct OfferResult {
    pub id: Arc<str>,
    pub provider: Arc<str>,
    pub instance: Arc<str>,
    pub region: Arc<str>,
    pub gpu: Arc<str>,
    pub gpus: u32,
    pub instances: u32,
    /// Model copies per instance (tensor-parallel groups).
    pub replicas: u32,
    pub tp: u32,
    pub fits: bool,
    pub headroom_bytes: f64,
    pub spot: bool,
    pub interconnect: &'static str,
    pub confidence: &'static str,
    #[serde(flatten)]
    /// Boxed: the results are moved while ranking, and this is most of their size.
    pub speeds: Box<Speeds>,
    pub usd_per_hour: f64,
    pub usd_per_month: f64,
    pub usd_per_job: Option<f64>,
    pub usd_per_million_output_tokens: Option<f64>,
    pub usd_per_1000_images: Option<f64>,
    pub usd_per_audio_hour: Option<f64>,
    pub storage_usd_per_month: f64,
    pub egress_usd_per_month: f64,
    pub price_overridden: bool,
    pub price_as_of: Date,
    pub stale: bool,
    pub source: Arc<str>,
    /// Rendered in English only when serialized (the page renders by key).
    #[serde(rename = "reasons", serialize_with = "english")]
    pub reason_msgs: Vec<Msg>,
    #[serde(skip)]
    pub throughput_total: f64,
    /// What "fastest" means for the task: decode tokens/s per sequence
    /// (serving) or training tokens/s of the whole job.
    #[serde(skip)]
    pub speed_score: f64,
}

impl OfferResult {
    /// What every task fills the same way: the offer itself, its bill, its
    /// price date and the reasons. Fit, speed and the per-unit costs are the
    /// task's to set (`OfferResult { fits, .., ..OfferResult::priced(..) }`).
    pub fn priced(o: &Offer, b: &Bill, stale: bool, reason_msgs: Vec<Msg>) -> OfferResult {
        OfferResult {
            id: o.id.clone(),
            provider: o.provider.clone(),
            instance: o.instance.clone(),
            region: o.region.clone(),
            gpu: o.gpu.clone(),
            gpus: o.gpus,
            instances: 1,
            replicas: 1,
            tp: 1,
            fits: false,
            headroom_bytes: 0.0,
            spot: b.spot,
            interconnect: o.interconnect.as_str(),
            confidence: "low",
            speeds: Box::default(),
            usd_per_hour: b.usd_per_hour,
            usd_per_month: b.usd_per_month,
            usd_per_job: b.usd_per_job,
            usd_per_million_output_tokens: None,
            usd_per_1000_images: None,
            usd_per_audio_hour: None,
            storage_usd_per_month: b.storage_usd_per_month,
            egress_usd_per_month: b.egress_usd_per_month,
            price_overridden: b.overridden,
            price_as_of: o.as_of,
            stale,
            source: o.source.clone(),
            reason_msgs,
            throughput_total: 0.0,
            speed_score: 0.0,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Pick {
    pub offer: Arc<str>,
    pub why: &'static str,
    #[serde(rename = "reasons", serialize_with = "english")]
    pub reason_msgs: Vec<Msg>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Recommendation {
    pub pick: Pick,
    pub alternatives: Vec<Pick>,
}

fn english<S: serde::Serializer>(msgs: &[Msg], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(msgs.iter().map(|m| m.render(super::config::Lang::En)))
}

/// English text of reasons (the CLI's report).
pub fn reasons_en(msgs: &[Msg]) -> String {
    msgs.iter().map(|m| m.render(super::config::Lang::En)).collect::<Vec<_>>().join("; ")
}

pub fn passes_filters(cfg: &Config, o: &Offer) -> bool {
    (cfg.providers.is_empty() || cfg.providers.iter().any(|p| **p == *o.provider))
        && cfg.gpu.as_ref().is_none_or(|g| **g == *o.gpu)
        && cfg.region.as_ref().is_none_or(|r| o.region.to_lowercase().contains(&r.to_lowercase()))
}

/// Evaluates every offer that passes the filters and ranks them: offers
/// that fit (and meet `mintps` / `maxusd`) first, in the order of the goal.
pub fn rank_offers(cfg: &Config, job: &ServeJob<'_>, catalog: &Catalog, today: Date) -> Vec<OfferResult> {
    let mut cache = Vec::new();
    let mut out = Vec::with_capacity(catalog.offers.len());
    for o in catalog.offers.iter().filter(|o| passes_filters(cfg, o)) {
        if let Some(gpu) = catalog.gpu(&o.gpu) {
            out.push(evaluate_offer(cfg, job, catalog, gpu, o, today, &mut cache));
        }
    }
    rank(cfg, out)
}

/// Filters and evaluations done, orders the offers by the user's goal.
pub fn rank(cfg: &Config, out: Vec<OfferResult>) -> Vec<OfferResult> {
    let meets = |r: &OfferResult| {
        r.fits
            && cfg.mintps.is_none_or(|m| r.speed_score >= m)
            && cfg.maxusd.is_none_or(|m| r.usd_per_month <= m)
    };
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

/// The one-line reasons every offer carries — fits (with headroom) or not,
/// spot, a possibly stale price — and whether the price is stale.
#[allow(clippy::too_many_arguments)]
pub fn offer_reasons(cfg: &Config, o: &Offer, today: Date, gpus: u32, need: f64, usable: f64, fits: bool, spot: bool) -> (Vec<Msg>, bool) {
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

/// The bill of running `instances` of an offer under the user's usage.
#[derive(Debug, Clone, Copy)]
pub struct Bill {
    pub spot: bool,
    pub overridden: bool,
    pub usd_per_hour: f64,
    pub hours: billing::Hours,
    pub compute_month: f64,
    pub usd_per_month: f64,
    pub usd_per_job: Option<f64>,
    pub storage_usd_per_month: f64,
    pub egress_usd_per_month: f64,
}

/// Prices an offer: the user's override if any, spot only where the
/// workload tolerates interruption (with the restart overhead), billed in
/// the provider's increments; storage (GB × months × price per instance)
/// and egress beyond the provider's free allowance.
pub fn bill(cfg: &Config, catalog: &Catalog, o: &Offer, instances: u32, job_hours: Option<f64>, store_gb: f64) -> Bill {
    let override_price = cfg.prices.iter().find(|(id, _)| **id == *o.id).map(|(_, p)| *p);
    let spot = cfg.spot && billing::tolerates_interruption(cfg) && o.spot_usd_per_hour.is_some() && override_price.is_none();
    let hourly = override_price.unwrap_or(if spot { o.spot_usd_per_hour.unwrap_or(o.usd_per_hour) } else { o.usd_per_hour });
    let restart = if spot { 1.0 + cfg.restart_pct / 100.0 } else { 1.0 };
    let usd_per_hour = hourly * f64::from(instances);
    let provider = catalog.provider(&o.provider);
    let (increment, min_charge, _) = o.billing(provider);
    let hours = billing::hours(cfg, increment, min_charge, job_hours, restart);
    let storage_price = o.storage_usd_per_gb_month.or(provider.and_then(|p| p.storage_usd_per_gb_month)).unwrap_or(0.0);
    let egress_price = o.egress_usd_per_gb.or(provider.and_then(|p| p.egress_usd_per_gb)).unwrap_or(0.0);
    let free_egress = provider.map_or(0.0, |p| p.free_egress_gb_month);
    let storage_usd_per_month = store_gb * storage_price * f64::from(instances.max(1));
    let egress_usd_per_month = (cfg.egress_gb - free_egress).max(0.0) * egress_price;
    let compute_month = usd_per_hour * hours.billed_per_month;
    Bill {
        spot,
        overridden: override_price.is_some(),
        usd_per_hour,
        hours,
        compute_month,
        usd_per_month: compute_month + storage_usd_per_month + egress_usd_per_month,
        usd_per_job: (hours.billed_per_job > 0.0).then_some(usd_per_hour * hours.billed_per_job),
        storage_usd_per_month,
        egress_usd_per_month,
    }
}

/// What an offer's hardware gives the job, independent of its price: many
/// offers share a GPU type and count, so this is computed once per shape.
#[derive(Debug, Clone)]
struct Shape {
    n: u32,
    nodes: u32,
    plan: Plan,
    replicas: u32,
    instances: u32,
    fits: bool,
    usable: f64,
    mem_total: f64,
    conf: &'static str,
    speeds: Speeds,
}

fn shape(cfg: &Config, job: &ServeJob<'_>, gpu: &Gpu, gpus: u32, multi_node_ok: bool) -> Shape {
    // Smallest tensor-parallel group inside the instance that holds the job.
    let usable = job.usable_bytes(gpu);
    let per_seq_batch = match cfg.batch {
        Batch::N(n) => f64::from(n),
        Batch::Max => 1.0,
    };
    let e = cfg.engine;
    let opts: Vec<u32> = tp_options(job.model, e, gpus).into_iter().filter(|n| gpus % n == 0).collect();
    let fitting = opts.iter().copied().find(|&n| job.memory(Plan::in_node(e, n, 1), 1.0).total() <= usable);
    let (n, nodes, fits_one) = match fitting {
        Some(n) => (n, 1, true),
        None => {
            let n = opts.last().copied().unwrap_or(1);
            let pp = (2..=16).find(|&pp| multi_node_ok && job.memory(Plan::in_node(e, n, pp), 1.0).total() <= usable);
            (n, pp.unwrap_or(1), pp.is_some())
        }
    };
    let plan = Plan::in_node(e, n, nodes);
    let replicas = if nodes == 1 { (gpus / n).max(1) } else { 1 };
    let max_batch = f64::from(job.max_batch(gpu, plan));
    // Spread the users' concurrent sequences over replicas; add instances
    // when one instance cannot hold them all.
    let (batch_per_replica, instances) = if fits_one && max_batch >= 1.0 {
        let per_instance = max_batch * f64::from(replicas);
        let inst = match cfg.batch {
            Batch::Max => 1.0,
            Batch::N(_) => (per_seq_batch / per_instance).ceil().max(1.0),
        };
        let b = match cfg.batch {
            Batch::Max => max_batch,
            Batch::N(_) => (per_seq_batch / (inst * f64::from(replicas))).ceil().max(1.0),
        };
        (b, inst as u32 * nodes)
    } else {
        (per_seq_batch, nodes)
    };
    let (conf, widen) = confidence(cfg, job.model, gpu, plan);
    let (speeds, _) = serve_speeds(job, gpu, plan, batch_per_replica, widen);
    Shape {
        n,
        nodes,
        plan,
        replicas,
        instances,
        fits: fits_one && max_batch >= 1.0,
        usable,
        mem_total: job.memory(plan, batch_per_replica).total(),
        conf,
        speeds,
    }
}

/// Shapes already evaluated, by GPU, count and whether several instances may be joined.
type ShapeCache = Vec<((Arc<str>, u32, bool), Shape)>;

fn evaluate_offer(cfg: &Config, job: &ServeJob<'_>, catalog: &Catalog, gpu: &Gpu, o: &Offer, today: Date, cache: &mut ShapeCache) -> OfferResult {
    // Several instances only as pipeline stages over a published network.
    let multi_node_ok = o.gpus > 1 && o.inter_node_gbps.is_some_and(|g| g > 0.0) && !cfg.engine.splits_layers();
    let key = (o.gpu.clone(), o.gpus, multi_node_ok);
    let sh = match cache.iter().find(|(k, _)| *k == key) {
        Some((_, sh)) => sh.clone(),
        None => {
            let sh = shape(cfg, job, gpu, o.gpus, multi_node_ok);
            cache.push((key, sh.clone()));
            sh
        }
    };
    let Shape { n, nodes, plan, replicas, instances, fits, usable, mem_total, conf, speeds } = sh;
    let speeds_decode = speeds.decode_tokens_per_s_per_seq.unwrap_or(0.0);
    let replicas_total = f64::from(replicas) * f64::from(instances / nodes.max(1));
    // Priced on output tokens with the prompts' prefill included.
    let throughput_total = speeds.output_tokens_per_s.or(speeds.decode_tokens_per_s_total).unwrap_or(0.0) * replicas_total;

    let store_gb = cfg.store_gb.unwrap_or(job.weight_bytes() / 1e9);
    let b = bill(cfg, catalog, o, instances, None, store_gb);
    let tokens_month = throughput_total * b.hours.busy_per_month * 3600.0;
    let usd_per_million = (tokens_month > 0.0 && fits).then(|| b.compute_month / tokens_month * 1e6);
    let headroom = usable - mem_total;

    let (reason_msgs, stale) = offer_reasons(cfg, o, today, plan.gpus(), mem_total, usable, fits, b.spot);
    OfferResult {
        instances,
        replicas,
        tp: n,
        fits,
        headroom_bytes: headroom,
        confidence: conf,
        speeds: Box::new(speeds),
        usd_per_million_output_tokens: usd_per_million,
        throughput_total,
        speed_score: speeds_decode,
        ..OfferResult::priced(o, &b, stale, reason_msgs)
    }
}

/// The pick (first ranked offer that fits and meets the filters) and up to
/// three alternatives: the cheapest, the fastest, a single-GPU option when
/// the pick spans GPUs, an on-demand option when the pick is spot.
pub fn recommend(cfg: &Config, ranked: &[OfferResult]) -> Option<Recommendation> {
    let ok = |r: &&OfferResult| {
        r.fits
            && cfg.mintps.is_none_or(|m| r.speed_score >= m)
            && cfg.maxusd.is_none_or(|m| r.usd_per_month <= m)
    };
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
    if pick.tp * pick.instances > 1 {
        if let Some(s) = ranked.iter().filter(ok).find(|r| r.tp == 1 && r.instances == 1) {
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
