//! The pick and the alternatives a practitioner could defend, from the
//! ranked offers.

use super::super::answer::{OfferResult, Pick, Recommendation};
use super::super::kinds::{AltKind, UnknownCost};
use super::super::messages::Msg;
use super::super::money::Display;
use super::super::thresholds::BELOW_TIE;
use super::super::units::HOURS_PER_MONTH;
use super::objective::Objective;

/// The pick (the first ranked offer that meets everything) and the
/// alternatives a practitioner could defend: the cheapest per unit of work
/// (named only for a saving of 5 % or more);
/// the fastest among offers within 2× of the pick's cost per unit; an
/// instance with exactly one GPU when the pick spans several; on-demand when
/// the pick is spot. Amounts in the reasons are in the display currency.
/// A spot offer's speed counts its restarts (`restart_pct`, as its bill and
/// its deadline do), so "× the speed" of the on-demand alternative is the
/// work's; an offline serving job's (`offline`) is the whole offer's output,
/// which sets when the job is done, not one sequence's.
pub fn recommend(
    ranked: &[OfferResult],
    objective: Objective,
    cost: Objective,
    display: &Display,
    restart_pct: f64,
    offline: bool,
) -> Option<Recommendation> {
    let speed = |r: &OfferResult| {
        let s = if offline { r.throughput_total } else { r.speed_score };
        if r.spot {
            s / (1.0 + restart_pct.max(0.0) / 100.0)
        } else {
            s
        }
    };
    let ok = |r: &&OfferResult| r.meets;
    let pick = ranked.iter().find(ok)?;
    let pick_cost = cost.key(pick);
    let mut alts: Vec<(&OfferResult, AltKind)> = Vec::new();
    if let Some(c) = ranked.iter().filter(ok).min_by(|a, b| cost.key(a).total_cmp(&cost.key(b))) {
        // A saving worth a person's attention: 5 % or more (a cheaper offer
        // by less is a tie, not an alternative).
        if cost.key(c) <= BELOW_TIE * pick_cost {
            alts.push((c, AltKind::Cheapest));
        }
    }
    // The fragile offers the pick was preferred over (`offers::rank`'s
    // sturdiness margin): the cheapest of them, with what it saves (the
    // cost ratio) and what it risks (its reasons).
    if !pick.fragile {
        let passed_over = ranked.iter().filter(ok).filter(|r| {
            r.fragile && !r.stale && !r.foreign && !r.unverified && cost.key(r) <= BELOW_TIE * pick_cost
        });
        if let Some(f) = passed_over.min_by(|a, b| cost.key(a).total_cmp(&cost.key(b))) {
            alts.push((f, AltKind::Fragile));
        }
    }
    let affordable = |r: &&OfferResult| pick_cost < f64::MAX && cost.key(r) <= 2.0 * pick_cost;
    let fastest = ranked
        .iter()
        .filter(ok)
        .filter(affordable)
        .max_by(|a, b| speed(a).total_cmp(&speed(b)).then(cost.key(b).total_cmp(&cost.key(a))));
    // Named only when the speed-up is worth a person's attention (a fifth or
    // more), and never where speed is not estimated (image-model training).
    if let Some(f) = fastest.filter(|f| speed(pick) > 0.0 && speed(f) >= speed(pick) * 1.2) {
        alts.push((f, AltKind::Fastest));
    }
    if pick.gpus * pick.instances > 1 {
        if let Some(s) = ranked.iter().filter(ok).find(|r| r.gpus == 1 && r.instances == 1) {
            alts.push((s, AltKind::SingleGpu));
        }
    }
    if pick.spot {
        if let Some(s) = ranked.iter().filter(ok).find(|r| !r.spot) {
            alts.push((s, AltKind::OnDemand));
        }
    }
    // A published 1-year term for a load that keeps the GPUs busy all month:
    // the offer whose cost per unit of work on the term is lowest, if it
    // undercuts the pick's on-demand cost per unit and is not much slower
    // (at least half the pick's speed).
    let on_term =
        |r: &OfferResult| r.committed_1yr_usd_per_month.map(|m| cost.key(r) * m / r.usd_per_month.max(1e-9));
    let committed = ranked
        .iter()
        .filter(ok)
        .filter(|r| r.busy_hours_per_month >= HOURS_PER_MONTH * 0.999 && speed(r) >= 0.5 * speed(pick))
        .filter_map(|r| on_term(r).map(|u| (r, u)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((c, unit)) = committed {
        if unit < pick_cost {
            alts.push((c, AltKind::Committed));
        }
    }
    let mut seen = vec![pick.id.clone()];
    let alternatives: Vec<Pick> = alts
        .into_iter()
        .filter(|(r, why)| {
            // The pick itself on a term is a committed alternative worth naming.
            if *why == AltKind::Committed {
                true
            } else if seen.contains(&r.id) {
                false
            } else {
                seen.push(r.id.clone());
                true
            }
        })
        .map(|(r, why)| make_pick(r, why, pick, cost, display, &speed))
        .collect();
    Some(Recommendation {
        objective,
        pick: make_pick(pick, AltKind::Best, pick, cost, display, &speed),
        alternatives,
    })
}

fn make_pick(
    r: &OfferResult,
    why: AltKind,
    against: &OfferResult,
    cost: Objective,
    display: &Display,
    speed: &dyn Fn(&OfferResult) -> f64,
) -> Pick {
    let mut msgs = r.reason_msgs.clone();
    // A committed alternative is compared at its term's price.
    let term = if why == AltKind::Committed {
        r.committed_1yr_usd_per_month.map_or(1.0, |m| m / r.usd_per_month.max(1e-9))
    } else {
        1.0
    };
    let (c_r, c_a) = (cost.key(r) * term, cost.key(against));
    if r.id != against.id && c_a > 0.0 && c_a < f64::MAX && c_r < f64::MAX {
        // Without a speed (an image-model fine-tune given its own length,
        // `jobmin`), the costs compare that length, and the reason says so.
        let versus = if speed(against) > 0.0 {
            Msg::new("reason.versus").num("speed", speed(r) / speed(against), 2)
        } else {
            Msg::new("reason.versus_run")
        };
        msgs.push(versus.num("price", c_r / c_a, 2).arg("other", against.id.to_string()));
    }
    if let (true, Some(month)) = (why == AltKind::Committed, r.committed_1yr_usd_per_month) {
        let side = r.storage_usd_per_month + r.egress_usd_per_month;
        // Busy hours a day above which the term beats paying on-demand by the hour.
        let break_even = 24.0 * (month - side) / (r.usd_per_month - side).max(1e-9);
        // The month in the reader's currency, as the offers table shows it.
        msgs.push(
            Msg::new("reason.committed")
                .arg("month", display.format(month))
                .num("pct", 100.0 * (1.0 - month / r.usd_per_month.max(1e-9)), 0)
                .num("hours", break_even.min(24.0), 1),
        );
    }
    if why == AltKind::Cheapest && !r.unknown_costs.is_empty() {
        msgs.push(Msg::new("reason.leaves_out").sub("parts", parts(&r.unknown_costs)));
    }
    Pick { offer: r.id.clone(), why, reason_msgs: msgs }
}

/// The parts of a bill left out, named in the reader's language and
/// joined as a list ("storage, host CPU/RAM" / "存储、主机 CPU/内存").
fn parts(ids: &[UnknownCost]) -> Msg {
    let name = |id: &UnknownCost| Msg::new(id.part_key());
    let mut rest = ids.iter().rev();
    let last = rest.next().map_or_else(|| Msg::new("part.other").arg("id", ""), &name);
    rest.fold(last, |acc, id| Msg::new("list.pair").sub("a", name(id)).sub("b", acc))
}
