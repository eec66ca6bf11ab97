//! The pick a practitioner would make: among offers that meet everything
//! on a current price within `STURDY_MARGIN` (a quarter) of the cheapest
//! cost per unit, a sturdy one (a tenth of memory to spare, no tensor
//! parallelism over PCIe without peer-to-peer) over a fragile one, the
//! fragile one named as an alternative.

use whichgpu::core::answer::{Answer, OfferResult};
use whichgpu::core::config::Lang;
use whichgpu::core::offers::STURDY_MARGIN;

use crate::answer_hashes::{link, Rng};
use crate::common::answer;

/// The offer's value on the field the answer was ranked on (smaller is
/// better for the cost fields this rule applies to).
fn on(o: &OfferResult, field: &str) -> Option<f64> {
    serde_json::to_value(o).ok()?.get(field)?.as_f64()
}

fn pick<'a>(a: &'a Answer) -> Option<&'a OfferResult> {
    let id = &a.recommendation.as_ref()?.pick.offer;
    a.offers.iter().find(|o| &o.id == id)
}

/// Meets everything on a current price in the reader's reach: what the
/// pick is chosen from first.
fn first_tier(o: &OfferResult) -> bool {
    o.meets && !o.stale && !o.foreign && !o.thin && !o.unverified
}

#[test]
fn the_default_70b_endpoint_is_picked_on_a_sturdy_offer_and_names_the_fragile_cheaper_one() {
    let a = answer("model=llama-3.1-70b&w=bf16");
    let p = pick(&a).expect("a pick");
    assert!(!p.fragile, "picked {} on a fragile margin", p.id);
    let rec = a.recommendation.as_ref().expect("recommendation");
    let f = rec
        .alternatives
        .iter()
        .find(|x| x.why.as_str() == "fragile")
        .expect("the fragile cheaper offer is named");
    let fo = a.offers.iter().find(|o| o.id == f.offer).expect("named offer");
    assert!(fo.fragile && fo.gpu.contains("4090") && fo.tp == 8, "{} tp {}", fo.id, fo.tp);
    let field = rec.objective.as_str();
    assert!(on(fo, field) < on(p, field), "the fragile one is the cheaper");
    let text: Vec<String> = f.reason_msgs.iter().map(|m| m.render(Lang::En)).collect();
    assert!(text.iter().any(|t| t.contains("peer-to-peer")), "says what it risks: {text:?}");
    assert!(text.iter().any(|t| t.contains("the cost per unit of work")), "says what it saves: {text:?}");
}

#[test]
fn the_default_8b_endpoint_says_its_margin_where_no_sturdy_offer_is_near() {
    // The 4090 with half a GiB to spare is the cheapest; every sturdy offer
    // that meets on a current price costs more than a quarter above it, so
    // it stays the pick and its reasons say it is fragile.
    let a = answer("");
    let p = pick(&a).expect("a pick");
    let field = a.recommendation.as_ref().expect("rec").objective.as_str();
    let cheapest = on(p, field).expect("priced");
    let near_sturdy = a
        .offers
        .iter()
        .filter(|o| first_tier(o) && !o.fragile)
        .any(|o| on(o, field).is_some_and(|v| v <= STURDY_MARGIN * cheapest));
    assert_eq!(p.fragile, !near_sturdy);
    if p.fragile {
        assert!(p.reason_msgs.iter().any(|m| m.key == "reason.fragile_memory"), "{:?}", p.reason_msgs);
    }
}

#[test]
fn no_pick_is_fragile_while_a_sturdy_current_offer_is_within_the_margin() {
    let mut r = Rng(0x57D_2026_1204);
    let (mut checked, mut fragile_kept, mut moved) = (0, 0, 0);
    for _ in 0..400 {
        let q = link(&mut r);
        let a = answer(&q);
        let Some(rec) = a.recommendation.as_ref() else { continue };
        if !rec.objective.as_str().starts_with("usd_") {
            continue;
        }
        let Some(p) = pick(&a) else { continue };
        checked += 1;
        if rec.alternatives.iter().any(|x| x.why.as_str() == "fragile") {
            moved += 1;
        }
        if !p.fragile || !first_tier(p) {
            continue;
        }
        fragile_kept += 1;
        let Some(cost) = on(p, rec.objective.as_str()) else { continue };
        let sturdy = a.offers.iter().find(|o| {
            first_tier(o)
                && !o.fragile
                && on(o, rec.objective.as_str()).is_some_and(|v| v <= STURDY_MARGIN * cost)
        });
        assert!(
            sturdy.is_none(),
            "{q}: picked fragile {} while {} is sturdy within the margin",
            p.id,
            sturdy.map_or("", |o| &o.id)
        );
    }
    println!("{checked} cost-ranked answers, {moved} picks moved off a fragile offer, {fragile_kept} fragile picks with no sturdy offer near");
    assert!(checked > 150, "only {checked} cost-ranked answers");
    assert!(moved > 0, "the rule never moved a pick: is it reached?");
}
