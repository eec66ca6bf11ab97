//! The third step of the pipeline: offers. Each offer that passes the
//! filters gets its plan from the [`Planner`], its bill from
//! [`super::billing`] for the work the user asked for, the cost of the unit
//! the task produces, and its reasons; then the ranking on the objective
//! (README, "Objectives") and the pick with alternatives a practitioner
//! could defend. Nothing here knows which task it serves beyond
//! [`OfferPlan`], [`Output`] and [`super::plan::Unit`].

use super::answer::{OfferResult, Range};
use super::billing;
use super::catalog::{Catalog, Gpu, Offer, STALE_AFTER_DAYS};
use super::config::{Batch, Commit, Config, Currency, Engine, Task, Usage};
use super::date::Date;
use super::messages::Msg;
use super::plan::{FnvMap, OfferPlan, Output, Planner};
use super::units::GIB;
use super::units::HOURS_PER_MONTH;

mod objective;
mod recommend;
pub use objective::{cost_objective, objective, Objective};
pub use recommend::recommend;

/// Plans, bills and ranks every offer that passes the filters.
pub fn evaluate(cfg: &Config, catalog: &Catalog, today: Date, planner: &mut Planner<'_>) -> Vec<OfferResult> {
    let mut out = Vec::with_capacity(catalog.offers.len());
    // Each offer's GPU type by id, hashed once rather than a scan per offer.
    let mut gpus: FnvMap<&str, &Gpu> = FnvMap::default();
    // (Only the link's GPU type where it names one: no other passes the filters.)
    let named = |g: &&Gpu| cfg.gpu.as_ref().is_none_or(|id| **id == g.id);
    gpus.reserve(catalog.gpus.len());
    gpus.extend(catalog.gpus.iter().filter(named).map(|g| (g.id.as_str(), g)));
    let mut dates = Dates { today, texts: Vec::new() };
    for o in catalog.offers.iter().filter(|o| passes_filters(cfg, o)) {
        if let Some(gpu) = gpus.get(&*o.gpu).copied() {
            let plan = planner.offer(gpu, o);
            out.push(priced(cfg, catalog, o, plan, &mut dates));
        }
    }
    let unit = planner.unit();
    rank(out, objective(cfg, unit), cost_objective(cfg, unit))
}

/// One job's real time: its work (`per_job` requests, images, clips or
/// audio seconds) at the plan's speed, or the training run, plus start-up.
fn job_hours(cfg: &Config, p: &OfferPlan) -> Option<f64> {
    let startup_h = p.startup_s / 3600.0;
    let work_h = match (p.output, cfg.per_job) {
        (Output::Training(_), _) => p.job_hours,
        (_, None) => None,
        (Output::Tokens(tps), Some(n)) => (tps > 0.0).then(|| n * f64::from(cfg.output_tokens) / tps / 3600.0),
        (Output::Images(per_h) | Output::Clips(per_h), Some(n)) => (per_h > 0.0).then(|| n / per_h),
        (Output::Audio(rtf), Some(n)) => (rtf > 0.0).then(|| n / rtf / 3600.0),
        (Output::None, Some(_)) => None,
    };
    work_h.map(|h| h + startup_h)
}

/// One offer with its plan: the bill for the instances the plan rents and
/// the work asked for, the cost of the unit the task produces, the reasons.
fn priced(cfg: &Config, catalog: &Catalog, o: &Offer, p: OfferPlan, dates: &mut Dates) -> OfferResult {
    let jobs_usage = matches!(cfg.usage(), Usage::Jobs | Usage::Once);
    let hours = if jobs_usage { job_hours(cfg, &p) } else { p.job_hours };
    let b = billing::bill(cfg, catalog, o, p.instances, hours, p.startup_s, p.store_gb);
    let fits = p.fits;
    let busy_h = b.hours.busy_per_month;
    // Work produced per month: the work asked for, else the plan's rate
    // over the busy hours.
    let jobs_per_month = match cfg.usage() {
        Usage::Jobs => cfg.jobs,
        _ => 1.0,
    };
    let per_month = |rate_per_h: f64, per_job_work: f64| match (jobs_usage, cfg.per_job) {
        (true, Some(_)) => per_job_work * jobs_per_month,
        _ => rate_per_h * busy_h,
    };
    let unit_cost = |units: f64| (fits && units > 0.0 && units.is_finite()).then(|| b.compute_month / units);
    let n = cfg.per_job.unwrap_or(0.0);
    let (mut per_million, mut per_1000_images, mut per_audio_hour, mut per_clip, mut throughput_total) = (None, None, None, None, 0.0);
    match p.output {
        Output::Tokens(tps) => {
            throughput_total = tps;
            per_million = unit_cost(per_month(tps * 3600.0, n * f64::from(cfg.output_tokens)) / 1e6);
        }
        Output::Training(tps) => throughput_total = tps,
        Output::Images(per_h) => {
            throughput_total = per_h;
            per_1000_images = unit_cost(per_month(per_h, n) / 1000.0);
        }
        Output::Clips(per_h) => {
            throughput_total = per_h;
            per_clip = unit_cost(per_month(per_h, n));
        }
        Output::Audio(rtf) => {
            per_audio_hour = unit_cost(per_month(rtf, n / 3600.0));
        }
        Output::None => {}
    }
    let thin = fits && crashes_when_short(cfg) && thin_margin(p.usable_bytes, p.need_bytes);
    let (mut reason_msgs, stale) = offer_reasons(cfg, o, dates, p.gpus, p.need_bytes, p.usable_bytes, (fits, thin), b.spot);
    // The user's own price is today's: not stale, whatever the catalog's date.
    let stale = stale && !b.overridden;
    // A yuan price from a China-region platform, for a user who reads dollars.
    // (Not when the link names the provider: the reader chose that market.)
    let foreign = o.currency == Currency::Cny && cfg.display_currency() != Currency::Cny && !b.overridden && !cfg.providers.iter().any(|p| **p == *o.provider);
    if foreign {
        reason_msgs.push(Msg::new("reason.foreign"));
    }
    reason_msgs.extend(p.extra_reasons);
    if b.spot_refused {
        reason_msgs.push(Msg::new("reason.spot_refused"));
    }
    let meets = fits && p.meets && cfg.mintps.is_none_or(|m| p.speed_score >= m) && cfg.maxusd.is_none_or(|m| b.usd_per_month <= m);
    // The job's hours as billed: its work plus start-up.
    let mut speeds = p.speeds;
    if let Some(h) = hours {
        let added = h - p.job_hours.unwrap_or(h);
        speeds.job_hours = Some(speeds.job_hours.map_or(Range { likely: h, low: h, high: h }, |r| r.shift(added)));
    }
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
        commitment: b.commitment,
        unknown_costs: b.unknown_costs,
        interconnect: o.interconnect.as_str(),
        confidence: p.confidence,
        speeds: Box::new(speeds),
        usd_per_hour: b.usd_per_hour,
        usd_per_month: b.usd_per_month,
        currency: o.currency,
        serverless: b.cold_start.is_some(),
        cold_start_s: b.cold_start.map(|c| c.total_s()),
        cold_starts_per_month: b.hours.cold_starts_per_month,
        busy_hours_per_month: b.hours.busy_per_month,
        committed_1yr_usd_per_month: o
            .committed_usd_per_hour(Commit::Year)
            // Only where the link asks for no term: a term it asks for is applied.
            // Not for a one-off job: its bill is the job, and a term is paid
            // for every month of the year however short the job.
            .filter(|_| cfg.commit == Commit::None && !b.overridden && cfg.usage() != Usage::Once)
            .map(|h| h * f64::from(p.instances) * HOURS_PER_MONTH + b.storage_usd_per_month + b.egress_usd_per_month),
        billed_hours_per_month: b.hours.billed_per_month,
        usd_per_job: b.usd_per_job,
        usd_per_million_output_tokens: per_million,
        usd_per_1000_images: per_1000_images,
        usd_per_audio_hour: per_audio_hour,
        usd_per_clip: per_clip,
        storage_usd_per_month: b.storage_usd_per_month,
        egress_usd_per_month: b.egress_usd_per_month,
        price_overridden: b.overridden,
        price_as_of: o.as_of,
        stale,
        foreign,
        thin,
        source: o.source.clone(),
        reason_msgs,
        throughput_total,
        speed_score: p.speed_score,
    }
}

pub fn passes_filters(cfg: &Config, o: &Offer) -> bool {
    (cfg.providers.is_empty() || cfg.providers.iter().any(|p| **p == *o.provider))
        && cfg.gpu.as_ref().is_none_or(|g| **g == *o.gpu)
        && cfg.region.as_ref().is_none_or(|r| o.region.to_ascii_lowercase().contains(&r.to_ascii_lowercase()))
}

/// Memory to spare below a GiB, or below 3 % of what the GPU leaves the
/// job: within the estimate's own spread (`estimate::ranges::MEMORY`, +8 %
/// at the high end) and a driver's or library's variation, so a longer
/// prompt or another build can run it out of memory. Where that crashes
/// the job ([`crashes_when_short`]) such an offer is shown and marked, and
/// is not picked while another offer meets everything with room.
pub fn thin_margin(usable: f64, need: f64) -> bool {
    usable - need < GIB.max(0.03 * usable)
}

/// Whether running short of memory crashes the job: training and
/// generation (a PyTorch out-of-memory error), and serving engines that
/// size their cache up front for the batch asked (llama.cpp's context,
/// transformers). A paged-KV engine (vLLM, SGLang, TensorRT-LLM) gives the
/// KV pool what is left after the weights, so a short margin serves fewer
/// sequences at once instead; `batch=max` fills the memory by design.
pub fn crashes_when_short(cfg: &Config) -> bool {
    if cfg.batch == Some(Batch::Max) {
        return false;
    }
    cfg.task != Task::Serve || matches!(cfg.engine, Engine::LlamaCpp | Engine::Hf)
}

/// Today, and the offers' price dates as text: many offers share a date,
/// so each is formatted once per evaluation.
struct Dates {
    today: Date,
    texts: Vec<(Date, String)>,
}

impl Dates {
    fn text(&mut self, d: Date) -> String {
        if let Some((_, t)) = self.texts.iter().find(|(x, _)| *x == d) {
            return t.clone();
        }
        let t = d.to_string();
        self.texts.push((d, t.clone()));
        t
    }
}

/// The one-line reasons every offer carries — fits (with headroom, and whether on a thin margin) or not,
/// spot, a possibly stale price — and whether the price is stale.
#[allow(clippy::too_many_arguments)]
fn offer_reasons(cfg: &Config, o: &Offer, dates: &mut Dates, gpus: u32, need: f64, usable: f64, (fits, thin): (bool, bool), spot: bool) -> (Vec<Msg>, bool) {
    let mut msgs = Vec::new();
    if fits {
        msgs.push(Msg::new("reason.fits").num("headroom", (usable - need).max(0.0) / GIB, 1).num("gpus", f64::from(gpus), 0));
        if thin {
            msgs.push(Msg::new("reason.thin"));
        }
    } else {
        msgs.push(Msg::new("reason.nofit").num("need", need / GIB, 1).num("have", usable / GIB, 1));
    }
    if spot {
        msgs.push(Msg::new("reason.spot").num("restart", cfg.restart_pct, 0));
    }
    let stale = o.as_of.days_until(dates.today) > STALE_AFTER_DAYS;
    if stale {
        msgs.push(Msg::new("reason.stale").arg("date", dates.text(o.as_of)));
    }
    (msgs, stale)
}

/// Orders the offers: those that meet everything first, and among them
/// those whose price is current (dated within [`STALE_AFTER_DAYS`]) and in
/// the reader's reach before the rest — a price nobody has confirmed for
/// half a year may be gone, and a yuan price on a China-region platform
/// shown to a reader of dollars is a different market (`cur=cny` or
/// `lang=zh` ranks it on price alone); such offers are shown, marked, and
/// named as the cheapest alternative where they are, but not picked while
/// another offer meets everything (so too an offer on a thin memory margin,
/// [`thin_margin`]); then by the
/// objective; near-ties (within 5 %) of a speed objective are broken by
/// cost; then by monthly cost and id.
fn rank(out: Vec<OfferResult>, objective: Objective, cost: Objective) -> Vec<OfferResult> {
    // Sort small keys, then move each result once: results are large.
    // The tier: 0 meets on a current price in reach, 1 meets otherwise, 2 the rest.
    let tier = |r: &OfferResult| if !r.meets { 2u8 } else { u8::from(r.stale || r.foreign || r.thin) };
    let keys: Vec<(u8, f64, f64, f64)> = out.iter().map(|r| (tier(r), objective.key(r), cost.key(r), r.usd_per_month)).collect();
    let mut order: Vec<usize> = (0..out.len()).collect();
    // Ids are unique, so the order is total and a stable sort gives the same.
    super::order::sort_indices(&mut order, &|i, j| {
        let (Some(a), Some(b)) = (keys.get(i), keys.get(j)) else { return i.cmp(&j) };
        a.0.cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.total_cmp(&b.3))
            .then_with(|| out.get(i).map(|r| &r.id).cmp(&out.get(j).map(|r| &r.id)))
    });
    if !objective.is_cost() {
        // Runs of offers within 5 % of the run's best on the objective are
        // ordered by cost: a few percent of speed is not worth paying for.
        let mut start = 0;
        while start < order.len() {
            let first = order.get(start).and_then(|&i| keys.get(i)).copied();
            let end = match first {
                Some(f) => {
                    let within = |k: &(u8, f64, f64, f64)| k.0 == f.0 && (k.1 - f.1).abs() <= 0.05 * f.1.abs();
                    start + order.iter().skip(start).take_while(|&&i| keys.get(i).is_some_and(within)).count().max(1)
                }
                None => start + 1,
            };
            if let Some(run) = order.get_mut(start..end) {
                super::order::sort_indices(run, &|i, j| {
                    let (Some(a), Some(b)) = (keys.get(i), keys.get(j)) else { return i.cmp(&j) };
                    a.2.total_cmp(&b.2).then(a.3.total_cmp(&b.3))
                });
            }
            start = end;
        }
    }
    let mut slots: Vec<Option<OfferResult>> = out.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)).collect()
}
