//! The third step of the pipeline: offers. Each offer that passes the
//! filters gets its plan from the [`Planner`], its bill from
//! [`super::billing`] for the work the user asked for, the cost of the unit
//! the task produces, and its reasons; then the ranking on the objective
//! (docs/objectives.md) and the pick with alternatives a practitioner
//! could defend. Nothing here knows which task it serves beyond
//! [`OfferPlan`], [`Output`] and [`super::plan::Unit`].

use super::answer::{OfferResult, Range};
use super::billing;
use super::catalog::{Catalog, Gpu, GpuClass, Offer, Provider, STALE_AFTER_DAYS};
use super::config::{Batch, Commit, Currency, Task, Usage};
use super::date::Date;
use super::messages::{Arg, Msg};
use super::plan::{FnvMap, OfferPlan, Output, Planner};
use super::settings::Settings;
use super::units::GIB;
use super::units::HOURS_PER_MONTH;

mod deadline;
mod objective;
mod rank;
mod recommend;
pub mod startup;
pub use objective::{cost_objective, objective, Objective};
pub use rank::STURDY_MARGIN;
pub use recommend::recommend;

/// Plans, bills and ranks every offer that passes the filters.
pub fn evaluate(
    cfg: &Settings,
    catalog: &Catalog,
    today: Date,
    planner: &mut Planner<'_>,
) -> Vec<OfferResult> {
    let mut out = Vec::with_capacity(catalog.offers.len());
    // Each offer's GPU type by id, hashed once rather than a scan per offer.
    let mut gpus: FnvMap<&str, &Gpu> = FnvMap::default();
    // (Only the link's GPU type where it names one: no other passes the filters.)
    let named = |g: &&Gpu| cfg.gpu.as_ref().is_none_or(|id| **id == g.id);
    gpus.reserve(catalog.gpus.len());
    gpus.extend(catalog.gpus.iter().filter(named).map(|g| (g.id.as_str(), g)));
    let mut dates = Dates { today, seen: Vec::new() };
    // The catalog lists each provider's offers together: its entry is
    // looked up once per run of them.
    let mut provider: Option<(&str, Option<&Provider>)> = None;
    for o in catalog.offers.iter().filter(|o| passes_filters(cfg, o)) {
        if let Some(gpu) = gpus.get(&*o.gpu).copied() {
            let plan = planner.offer(gpu, o);
            let p = match provider {
                Some((id, p)) if id == &*o.provider => p,
                _ => catalog.provider(&o.provider),
            };
            provider = Some((&o.provider, p));
            out.push(priced(cfg, catalog, o, p, plan, &mut dates));
        }
    }
    let unit = planner.unit();
    rank::rank(out, objective(cfg, unit), cost_objective(cfg, unit))
}

/// One job's real time: its work (`per_job` requests, images, clips or
/// audio seconds) at the plan's speed, or the training run, plus start-up:
/// the engine's (`p.startup_s`) and a fresh instance's (`fresh_s`,
/// `startup::fresh_instance_s`).
fn job_hours(cfg: &Settings, p: &OfferPlan, fresh_s: f64) -> Option<f64> {
    let startup_h = (p.startup_s + fresh_s) / 3600.0;
    let work_h = match (p.output, cfg.per_job) {
        // Training, and an image-model fine-tune timed from its steps.
        (Output::Training(_), _) | (Output::None, None) => p.job_hours,
        (_, None) => None,
        (Output::Tokens(tps), Some(n)) => {
            (tps > 0.0).then(|| n * f64::from(cfg.output_tokens) / tps / 3600.0)
        }
        (Output::Images(per_h) | Output::Clips(per_h), Some(n)) => (per_h > 0.0).then(|| n / per_h),
        (Output::Audio(rtf), Some(n)) => (rtf > 0.0).then(|| n / rtf / 3600.0),
        (Output::None, Some(_)) => None,
    };
    work_h.map(|h| h + startup_h)
}

/// One offer with its plan: the bill for the instances the plan rents and
/// the work asked for, the cost of the unit the task produces, the reasons.
fn priced(
    cfg: &Settings,
    catalog: &Catalog,
    o: &Offer,
    provider: Option<&Provider>,
    p: OfferPlan,
    dates: &mut Dates,
) -> OfferResult {
    let jobs_usage = cfg.batch_usage();
    let restart = if billing::spot_priced(cfg, o) { 1.0 + cfg.restart_pct / 100.0 } else { 1.0 };
    let fresh_s = startup::fresh_instance_s(cfg, provider, p.load_bytes);
    let p = deadline::spread(cfg, p, restart, |p| job_hours(cfg, p, fresh_s));
    let hours = if jobs_usage { job_hours(cfg, &p, fresh_s) } else { p.job_hours };
    let host = billing::HostNeed::of((p.gpus * p.replicas).min(o.gpus), p.load_bytes, p.host_bytes);
    let b = billing::bill(cfg, catalog, o, provider, p.instances, hours, p.startup_s, p.store_gb, host);
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
    let (mut per_million, mut per_1000_images, mut per_audio_hour, mut per_clip, mut throughput_total) =
        (None, None, None, None, 0.0);
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
    let (mut reason_msgs, stale) =
        offer_reasons(cfg, o, dates, p.gpus, p.need_bytes, p.usable_bytes, (fits, thin), b.spot);
    // The user's own price is today's: not stale, whatever the catalog's date.
    let stale = stale && !b.overridden;
    // A yuan price from a China-region platform, for a user who reads dollars.
    // (Not when the link names the provider: the reader chose that market.)
    let foreign = o.currency == Currency::Cny
        && cfg.display_currency() != Currency::Cny
        && !b.overridden
        && !cfg.providers.iter().any(|p| **p == *o.provider);
    if foreign {
        reason_msgs.push(Msg::new("reason.foreign"));
    }
    reason_msgs.extend(p.extra_reasons);
    if b.host_usd_per_hour.is_some() {
        reason_msgs.push(Msg::new("reason.host_billed").num("vcpus", host.vcpus, 0).num("gib", host.gib, 0));
    }
    let fragile = fits && !thin && {
        // `batch=max` fills the memory by design: no margin to judge.
        let (usable, need) =
            if cfg.batch() == Batch::Max { (0.0, 0.0) } else { (p.usable_bytes, p.need_bytes) };
        let risks = fragility(o, catalog.gpu(&o.gpu), p.tp, usable, need);
        let any = !risks.is_empty();
        reason_msgs.extend(risks);
        any
    };
    if b.spot_refused {
        reason_msgs.push(Msg::new("reason.spot_refused"));
    }
    // On spot the run also pays its restarts (`restart`, the billing's own
    // factor): a training plan that meets the deadline only without them
    // does not. (A serving or generation job of `per_job` work met or
    // missed its deadline in `deadline::spread`, restarts counted.)
    let spot_late = match (cfg.days, p.job_hours) {
        (Some(days), Some(h)) if b.spot && p.meets && h * restart > days * 24.0 => {
            let took = h * restart;
            Some(
                Msg::new("reason.late_spot")
                    .num("restart", cfg.restart_pct, 0)
                    .num("took", took / 24.0, if took < 48.0 { 2 } else { 1 })
                    .num("days", days, super::plan::train_speed::day_decimals(days)),
            )
        }
        _ => None,
    };
    let on_time = spot_late.is_none();
    reason_msgs.extend(spot_late);
    let meets = fits
        && p.meets
        && on_time
        && cfg.mintps.is_none_or(|m| p.speed_score >= m)
        && cfg.maxusd.is_none_or(|m| b.usd_per_month <= m);
    // The job's hours as billed: its work plus start-up.
    let mut speeds = p.speeds;
    if let Some(h) = hours {
        let added = h - p.job_hours.unwrap_or(h);
        speeds.job_hours =
            Some(speeds.job_hours.map_or(Range { likely: h, low: h, high: h }, |r| r.shift(added)));
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
        ep: p.ep,
        zero: p.zero,
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
        host_usd_per_hour: b.host_usd_per_hour,
        startup_s: hours.filter(|_| jobs_usage && b.cold_start.is_none()).map(|_| p.startup_s + fresh_s),
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
            .map(|h| {
                h * f64::from(p.instances) * HOURS_PER_MONTH
                    + b.storage_usd_per_month
                    + b.egress_usd_per_month
            }),
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
        unverified: p.unverified,
        fragile,
        host_bytes: p.host_bytes,
        source: o.source.clone(),
        reason_msgs,
        throughput_total,
        speed_score: p.speed_score,
    }
}

pub fn passes_filters(cfg: &Settings, o: &Offer) -> bool {
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

/// The share of a GPU's usable memory a sturdy plan leaves free: a tenth,
/// the margin a practitioner keeps for what varies between runs (a longer
/// prompt, a larger image, another engine or driver build; issue 42's
/// review of picks); under it the plan runs but is fragile. Below
/// [`thin_margin`] it is not picked at all.
pub const STURDY_SPARE: f64 = 0.10;

/// What makes a fitting plan fragile, as reasons (empty: sturdy): memory
/// to spare under [`STURDY_SPARE`] of what each GPU leaves the job (not
/// judged where `usable` is 0), and
/// tensor parallelism over PCIe on cards whose driver disables
/// peer-to-peer (GeForce: every all-reduce staged through host memory,
/// `Gpu::pcie_peer_bytes_per_s`, NVIDIA/nccl-tests#307), where a link
/// failure or a slow host stalls every token.
fn fragility(o: &Offer, gpu: Option<&Gpu>, tp: u32, usable: f64, need: f64) -> Vec<Msg> {
    let mut out = Vec::new();
    let spare = (usable - need).max(0.0);
    // In whole percent, as the reason shows it: the memory estimate's own
    // spread (`estimate::ranges::MEMORY`) is far wider than a fraction of a
    // percent, so 9.99 % to spare reads, and counts, as a tenth.
    let pct = (100.0 * spare / usable).round();
    if usable > 0.0 && pct < 100.0 * STURDY_SPARE {
        out.push(Msg::new("reason.fragile_memory").num("spare", spare / GIB, 1).num("pct", pct, 0));
    }
    if tp > 1 && !o.interconnect.is_scale_up() && gpu.is_some_and(|g| g.class == GpuClass::Consumer) {
        out.push(Msg::new("reason.fragile_pcie").arg("tp", tp.to_string()));
    }
    out
}

/// Whether running short of memory crashes the job: training and
/// generation (a PyTorch out-of-memory error), and serving engines that
/// size their cache up front for the batch asked (llama.cpp's context,
/// transformers). A paged-KV engine (vLLM, SGLang, TensorRT-LLM) gives the
/// KV pool what is left after the weights, so a short margin serves fewer
/// sequences at once instead; `batch=max` fills the memory by design.
pub fn crashes_when_short(cfg: &Settings) -> bool {
    if cfg.batch() == Batch::Max {
        return false;
    }
    cfg.task != Task::Serve || !super::engines::row(cfg.engine).reservation.value.pages_kv()
}

/// Today, and for each offer price date seen, whether it is stale and its
/// text: many offers share a date, so each is judged and formatted once
/// per evaluation.
struct Dates {
    today: Date,
    seen: Vec<(Date, Option<String>)>,
}

impl Dates {
    /// The date as text when a price of that date is stale ([`STALE_AFTER_DAYS`]).
    fn stale(&mut self, d: Date) -> Option<String> {
        if let Some((_, t)) = self.seen.iter().find(|(x, _)| *x == d) {
            return t.clone();
        }
        let t = (d.days_until(self.today) > STALE_AFTER_DAYS).then(|| d.to_string());
        self.seen.push((d, t.clone()));
        t
    }
}

/// The one-line reasons every offer carries — fits (with headroom, and whether on a thin margin) or not,
/// spot, a possibly stale price — and whether the price is stale.
/// (Each message's placeholders are allocated at their size in one go:
/// this runs for every offer on every input change.)
#[allow(clippy::too_many_arguments)]
fn offer_reasons(
    cfg: &Settings,
    o: &Offer,
    dates: &mut Dates,
    gpus: u32,
    need: f64,
    usable: f64,
    (fits, thin): (bool, bool),
    spot: bool,
) -> (Vec<Msg>, bool) {
    let mut msgs = Vec::with_capacity(4);
    if fits {
        msgs.push(Msg {
            key: "reason.fits",
            args: vec![
                ("headroom", Arg::Fixed((usable - need).max(0.0) / GIB, 1)),
                ("gpus", Arg::Fixed(f64::from(gpus), 0)),
            ],
        });
        if thin {
            msgs.push(Msg::new("reason.thin"));
        }
    } else {
        msgs.push(Msg {
            key: "reason.nofit",
            args: vec![("need", Arg::Fixed(need / GIB, 1)), ("have", Arg::Fixed(usable / GIB, 1))],
        });
    }
    if spot {
        msgs.push(Msg { key: "reason.spot", args: vec![("restart", Arg::Fixed(cfg.restart_pct, 0))] });
    }
    let stale = dates.stale(o.as_of);
    let is_stale = stale.is_some();
    if let Some(date) = stale {
        msgs.push(Msg { key: "reason.stale", args: vec![("date", Arg::Text(date))] });
    }
    (msgs, is_stale)
}
