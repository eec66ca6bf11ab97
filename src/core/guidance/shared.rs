//! What the task modules' answers share: the no-fit answer, the card-size
//! and spot answers, billing and rounding notes, tight memory, what-if
//! suggestions, and the cost an offer is ranked on.

use super::super::answer::{Answer, GuidanceItem, OfferResult};
use super::super::billing;
use super::super::config::{Commit, Engine, Task, Usage};
use super::super::engines;
use super::super::kinds::UnknownCost;
use super::super::messages::Msg;
use super::super::settings::Settings;
use super::super::units::GIB;
use super::ranked::ranked_cost;

/// The note when there is no pick: an empty offer list (the catalog sells
/// nothing that passes the filters, e.g. a pinned GPU nobody rents) is told
/// apart from offers that hold the job but miss what the link asks (a
/// budget, a speed or latency floor, a deadline) and from offers that
/// cannot hold it (`fallback`).
pub fn no_pick(cfg: &Settings, a: &Answer, fallback: Msg) -> GuidanceItem {
    if a.offers.is_empty() {
        let what = cfg.gpu.clone().unwrap_or_else(|| "—".into());
        return GuidanceItem::new("nooffer", None, Msg::new("g.note.nooffer").arg("gpu", what));
    }
    let cheapest =
        a.offers.iter().filter(|o| o.fits).min_by(|x, y| x.usd_per_month.total_cmp(&y.usd_per_month));
    if let Some(c) = cheapest {
        // Offers hold the job: what the link asks rules them out.
        let asked: Vec<&str> = [
            ("maxusd", cfg.maxusd.is_some()),
            ("mintps", cfg.mintps.is_some()),
            ("maxttft", cfg.maxttft.is_some()),
            ("days", cfg.days.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect();
        let msg = match cfg.maxusd {
            Some(budget) if c.usd_per_month > budget => {
                // `maxusd` is in US dollars; amounts in the reader's
                // currency beside it where that is another.
                let d = &a.display;
                let usd = super::super::money::Display::default();
                let budget_text = if d.currency == usd.currency {
                    usd.format(budget)
                } else {
                    format!("{} ({})", usd.format(budget), d.format(budget))
                };
                Msg::new("g.note.overbudget")
                    .arg("budget", budget_text)
                    .arg("offer", c.id.to_string())
                    .arg("month", d.format(c.usd_per_month))
            }
            _ => Msg::new("g.note.nomeet").arg("keys", asked.join(", ")),
        };
        return GuidanceItem::new("nomeet", None, msg);
    }
    GuidanceItem::new("nofit", None, fallback)
}

/// "80 GB datacenter GPU or a 24–48 GB card?", answered from what the
/// pick's plan needs per GPU (the memory breakdown's own figure): 24 and
/// 48 GB cards expose about 22 and 44 GiB. Serving also answers for speed
/// (HBM bandwidth); training and generation are compute bound, unless
/// the host sets the pace (`host_bound`: a small model at a small batch
/// waiting on kernel launches), which is then said instead.
pub fn gpu_size(a: &Answer, one_copy: Option<f64>, host_bound: bool) -> GuidanceItem {
    // Serving: one copy of the model on one GPU (`one_copy`: the pick's
    // sequences, no tensor split, so one GPU's runtime overhead; a pick
    // split over 8 GPUs carries 8). Training and generation: what each GPU
    // of the plan holds.
    let serving = one_copy.is_some();
    let need = one_copy.unwrap_or(a.memory.total_bytes / f64::from(a.memory.gpus.max(1)));
    // The classes' marks are what most cards of the class leave (an L4 or
    // A10's 22.5 GiB, an L40S's 45 GiB); a pick on a card of the class that
    // holds it (a 4090's 23.6 GiB) decides for itself, so the sentence
    // never says "24 GB cards do not" beside a 24 GB pick.
    let pick_holds = |cap: f64| {
        a.pick().is_some_and(|p| {
            p.fits
                && p.usable_bytes <= cap
                && (!serving || p.tp.max(1) * p.dp.max(1) * p.pp.max(1) == 1)
                && p.need_bytes <= p.usable_bytes
        })
    };
    // Training and generation: any fitting offer on a card of the class
    // that holds what each GPU of the plan holds (an RTX A6000's 47.5 GiB
    // beside a pick on an 80 GB card) answers the same way.
    let card_holds = |cap: f64| {
        !serving && a.offers.iter().any(|o| o.fits && o.usable_bytes <= cap && o.usable_bytes >= need)
    };
    let small = need <= 22.0 * GIB || pick_holds(26.0 * GIB) || card_holds(26.0 * GIB);
    let medium = need <= 44.0 * GIB || pick_holds(50.0 * GIB) || card_holds(50.0 * GIB);
    // A serving pick that splits one copy over GPUs none of which could
    // hold it alone answers the question itself: not one big card.
    let split =
        a.pick().filter(|p| serving && p.tp.max(1) * p.dp.max(1) * p.pp.max(1) > 1 && p.usable_bytes < need);
    // No offered GPU holds one copy alone: the question is how many.
    let none_holds = a.offers.iter().all(|o| o.usable_bytes < need);
    // Between the classes: a pick on a card under 80 GB (a 64 GB Ascend
    // 910B or MI250X) that holds what it needs answers "no" itself.
    let between = a.pick().filter(|_| !small && !medium && split.is_none() && pick_holds(70.0 * GIB));
    // What an 80 GB card holds under vLLM's default budget (the engine table's row).
    let vllm_share = engines::row(Engine::Vllm).usable_share.value;
    let key = match (small, medium, serving, host_bound) {
        (false, false, true, _) if split.is_some() && none_holds => "g.size.huge.split",
        (false, true, true, _) if split.is_some() => "g.size.medium.split",
        (false, false, true, _) if split.is_some() && need > vllm_share * 80.0 * GIB => "g.size.larger.split",
        (false, false, true, _) if split.is_some() => "g.size.large.split",
        (false, false, _, _) if between.is_some() => "g.size.between",
        (true, _, true, _) => "g.size.small",
        (true, _, false, true) => "g.size.small.host",
        (true, _, false, false) => "g.size.small.compute",
        (false, true, true, _) => "g.size.medium",
        (false, true, false, true) => "g.size.medium.host",
        (false, true, false, false) => "g.size.medium.compute",
        (false, false, true, _) => "g.size.large",
        (false, false, false, _) => "g.size.large.compute",
    };
    let mut msg = Msg::new(key).num("need", need / GIB, 1).num("cap80", vllm_share * 80.0, 0);
    if let Some(p) = split {
        msg = msg
            .num("gpus", f64::from(p.tp.max(1) * p.dp.max(1) * p.pp.max(1)), 0)
            .arg("gpu", p.gpu.to_string());
        msg = msg.sub("how", Msg::new(if p.dp > 1 { "g.split.how.dp" } else { "g.split.how.tp" }));
    }
    if let Some(p) = between {
        msg = msg.arg("gpu", p.gpu.to_string()).num("cap", p.usable_bytes / GIB, 1);
    }
    GuidanceItem::new("gpu-size", Some("g.size.title"), msg)
}

/// Spot, on-demand or reserved, as the pick is billed: spot where the pick
/// runs on spot; refused for a synchronous multi-instance or week-long run;
/// not offered for the pick; not asked for a workload that could restart.
pub fn spot(cfg: &Settings, a: &Answer) -> GuidanceItem {
    let pick = a.pick();
    // The spot policy of the bill: synchronous runs over several instances
    // or longer than a week stay off spot.
    let refused = |p: &super::super::answer::OfferResult| {
        cfg.is_training()
            && (p.instances > 1 || p.speeds.job_hours().is_some_and(|h| h > billing::SPOT_MAX_HOURS))
    };
    let msg = match pick {
        Some(p) if p.spot => Msg::new("g.spot.batch_on").num("restart", cfg.restart_pct, 0),
        // With a term asked for, the table mixes committed and on-demand prices.
        _ if !billing::tolerates_interruption(cfg) && cfg.commit != Commit::None => {
            Msg::new("g.spot.endpoint.commit").arg("term", cfg.commit.as_str())
        }
        _ if !billing::tolerates_interruption(cfg) => Msg::new("g.spot.endpoint"),
        Some(p) if refused(p) => Msg::new("g.spot.policy"),
        Some(p) if cfg.spot && p.reason_msgs.iter().any(|m| m.key == "reason.spot_refused") => {
            Msg::new("g.spot.refused")
        }
        Some(_) if cfg.spot => Msg::new("g.spot.unoffered"),
        _ => Msg::new("g.spot.batch_off"),
    };
    GuidanceItem::new("spot", Some("g.spot.title"), msg)
}

/// The rounding note, only where the pick's bill rounds its work up, and
/// the serverless note: why a serverless pick wins, or why none did.
pub fn billing_rounding(cfg: &Settings, a: &Answer) -> Vec<GuidanceItem> {
    let mut out: Vec<GuidanceItem> = serverless(cfg, a).into_iter().collect();
    // A serverless pick's extra hours are cold starts, said above.
    if a.pick().is_some_and(|p| !p.serverless) {
        out.extend(rounding(cfg, a));
    }
    out
}

/// When serverless wins and why: the pick's cold starts and idle time
/// against instances' rounding; for an always-on endpoint, that a worker
/// that never scales to zero bills every hour at serverless rates.
fn serverless(cfg: &Settings, a: &Answer) -> Option<GuidanceItem> {
    let pick = a.pick()?;
    let hours = |v: f64| if v < 10.0 { 1 } else { 0 };
    // Busy around the clock (`use=hours&hpd=24` too): a worker never
    // scales to zero and never starts cold (`billing::serverless_hours`).
    let always = cfg.usage() == Usage::Always || (cfg.usage() == Usage::Hours && cfg.hpd >= 24.0);
    if pick.serverless && always {
        // "Its rate is still below the instances'" only where no fitting
        // instance bills less for the month (one with an old price, in
        // another market or on a thin margin is not picked, but it exists).
        let month = |o: &super::super::answer::OfferResult| {
            o.usd_per_month - o.storage_usd_per_month - o.egress_usd_per_month
        };
        let cheaper = a
            .offers
            .iter()
            .filter(|o| !o.serverless && o.fits && month(o) < month(pick))
            .min_by(|x, y| month(x).total_cmp(&month(y)));
        let msg = match cheaper {
            Some(o) => Msg::new("g.serverless.pick.always.dearer").arg("other", o.id.to_string()).num(
                "ratio",
                month(pick) / month(o).max(1e-9),
                2,
            ),
            None => Msg::new("g.serverless.pick.always"),
        };
        let msg = msg.arg("offer", pick.id.to_string()).num("billed", pick.billed_hours_per_month, 0).num(
            "cold",
            pick.cold_start_s.unwrap_or(0.0),
            0,
        );
        return Some(GuidanceItem::new("serverless", Some("g.serverless.title"), msg));
    }
    // A training job's bill in worker- and GPU-hours.
    if let Some(item) = super::train_serverless::note(cfg, a, pick) {
        return item;
    }
    if pick.serverless {
        let cold_h = pick.cold_starts_per_month * pick.cold_start_s.unwrap_or(0.0) / 3600.0;
        let msg = Msg::new("g.serverless.pick")
            .arg("offer", pick.id.to_string())
            .num("billed", pick.billed_hours_per_month, hours(pick.billed_hours_per_month))
            .num("cold_h", cold_h, hours(cold_h))
            .num("starts", pick.cold_starts_per_month, 0)
            .num("cold", pick.cold_start_s.unwrap_or(0.0), 0);
        return Some(GuidanceItem::new("serverless", Some("g.serverless.title"), msg));
    }
    // The cheapest fitting serverless offer on the cost the offers are
    // ranked by (per million tokens, per image, per job…): a month's bill
    // alone would compare different amounts of work. On a monthly or
    // non-cost ranking, the month's compute (storage and egress aside, they
    // do not depend on serverless or not).
    let compute = |o: &super::super::answer::OfferResult| {
        o.usd_per_month - o.storage_usd_per_month - o.egress_usd_per_month
    };
    let ranked_cost = |o: &super::super::answer::OfferResult| ranked_cost(a, o);
    let per_unit = !always && ranked_cost(pick).is_some();
    let cost = |o: &super::super::answer::OfferResult| {
        if per_unit {
            ranked_cost(o).unwrap_or(f64::MAX)
        } else {
            compute(o)
        }
    };
    let best = a
        .offers
        .iter()
        .filter(|o| o.serverless && o.fits && cost(o) < f64::MAX)
        .min_by(|x, y| cost(x).total_cmp(&cost(y)))?;
    let ratio = cost(best) / cost(pick).max(1e-9);
    // Cheaper on the ranking yet not picked: the pick's tier (a current
    // price, the deadline, the reader's market) decided, and the
    // alternatives say so; "serverless lost on cost" would not be true.
    if ratio < 1.0 {
        return None;
    }
    let digits = if ratio < 10.0 { 2 } else { 0 };
    let msg = match (always, per_unit) {
        (true, _) => {
            Msg::new("g.serverless.always").arg("offer", best.id.to_string()).num("ratio", ratio, digits)
        }
        (_, unit) => Msg::new(if unit { "g.serverless.lost.unit" } else { "g.serverless.lost" })
            .arg("offer", best.id.to_string())
            .num("billed", best.billed_hours_per_month, hours(best.billed_hours_per_month))
            .num("starts", best.cold_starts_per_month, 0)
            .num("cold", best.cold_start_s.unwrap_or(0.0), 0)
            .num("ratio", ratio, digits),
    };
    Some(GuidanceItem::new("serverless", Some("g.serverless.title"), msg))
}

/// The rounding note: only where the pick's bill rounds its work up.
fn rounding(cfg: &Settings, a: &Answer) -> Option<GuidanceItem> {
    let p = a.pick()?;
    let jobs = match cfg.usage() {
        Usage::Jobs => cfg.jobs.max(1.0),
        Usage::Once => 1.0,
        _ => return None,
    };
    let key = if p.unknown_costs.contains(&UnknownCost::BillingIncrement) {
        "g.note.billing_assumed"
    } else {
        "g.note.billing"
    };
    (p.billed_hours_per_month > p.busy_hours_per_month * super::super::thresholds::ABOVE_TIE
        && p.commitment == Commit::None)
        .then(|| {
            GuidanceItem::new(
                "billing",
                None,
                Msg::new(key).num("billed", p.billed_hours_per_month / jobs * 60.0, 0).num(
                    "minutes",
                    p.busy_hours_per_month / jobs * 60.0,
                    0,
                ),
            )
        })
}

/// A pick with little memory to spare: under 1 GiB or 3 % of what a GPU
/// offers, fragmentation, a longer prompt or a driver update can tip it over.
pub fn tight_memory(cfg: &Settings, a: &Answer) -> Option<GuidanceItem> {
    let p = a.pick()?;
    let spare = p.usable_bytes - p.need_bytes;
    // What grows the peak differs by task: a prompt or concurrent sequences
    // when serving, a sequence or micro-batch when training, a batch or
    // resolution when generating.
    let key = match a.task {
        Task::Finetune | Task::Pretrain => "g.note.tight.train",
        Task::Generate => "g.note.tight.media",
        // A paged-KV engine gives its cache what is left after the weights:
        // short memory queues sequences instead of crashing.
        Task::Serve if !super::super::offers::crashes_when_short(cfg) => "g.note.tight.paged",
        Task::Serve => "g.note.tight",
    };
    super::super::offers::thin_margin(p.usable_bytes, p.need_bytes)
        .then(|| GuidanceItem::new("tight", None, Msg::new(key).num("spare", spare.max(0.0) / GIB, 1)))
}

/// The single changes the plan rates better, with a format's quality cost.
pub fn suggestions(a: &Answer) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    for c in a.whatif.iter().filter(|c| c.better).take(3) {
        let (before, after, key) = in_display(c, &a.display);
        let decimals = significant(before.abs().min(after.abs()));
        let msg = Msg::new("g.whatif")
            .arg("key", c.key)
            .arg("value", c.value.clone())
            .num("before", before, decimals)
            .num("after", after, decimals)
            .sub("objective", Msg::new(key));
        out.push(GuidanceItem::new("whatif", None, msg));
        if let Some(q) = &c.quality {
            out.push(GuidanceItem::new("quality", None, q.clone()));
        }
    }
    out
}

/// Decimals that show a value to three significant figures.
pub fn significant(v: f64) -> u8 {
    if v <= 0.0 || !v.is_finite() {
        return 2;
    }
    (2.0 - v.log10().floor()).clamp(0.0, 6.0) as u8
}

/// A change's before and after in the display currency where the
/// objective is a cost (the changes hold US dollars, as every `usd_*`
/// field), with the message key naming the objective in that currency.
pub fn in_display(
    c: &super::super::answer::Change,
    display: &super::super::money::Display,
) -> (f64, f64, &'static str) {
    match (display.currency, c.objective.cny_msg_key()) {
        (super::super::config::Currency::Cny, Some(cny)) => {
            (display.amount(c.before), display.amount(c.after), cny)
        }
        _ => (c.before, c.after, c.objective.msg_key()),
    }
}

pub fn gib1(bytes: f64) -> String {
    format!("{:.1}", bytes / GIB)
}

/// The note that prices are a dated snapshot, unless the user set the
/// pick's price.
pub fn prices_note(p: &OfferResult) -> Option<GuidanceItem> {
    (!p.price_overridden).then(|| {
        GuidanceItem::new("prices", None, Msg::new("g.note.prices").arg("date", p.price_as_of.to_string()))
    })
}
