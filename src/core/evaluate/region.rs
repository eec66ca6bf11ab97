//! The notice on an answer read in Chinese or in yuan (`lang=zh` or
//! `cur=cny`) whose pick lies outside the China region: why (no
//! China-region offer meets the job, or the nearest one costs more per
//! unit of work) and which China-region offer comes nearest or is the
//! largest there. A China-region offer is one priced in CNY by a
//! China-region platform (the catalog's CNY providers, docs/catalog.md).

use super::super::answer::OfferResult;
use super::super::catalog::{Catalog, Offer};
use super::super::config::{Currency, Lang};
use super::super::messages::Msg;
use super::super::notice::Notice;
use super::super::offers::Objective;
use super::super::settings::Settings;

/// The notice, or `None` when the reader is not on `lang=zh`/`cur=cny`,
/// when nothing is picked, when the pick is itself in the region, or when
/// the link already narrows the offers (`provider=`, `region=`: the user
/// chose where to look).
pub fn outside_notice(
    cfg: &Settings,
    catalog: &Catalog,
    offers: &[OfferResult],
    pick: Option<&OfferResult>,
    cost: Objective,
) -> Option<Notice> {
    let key = if cfg.cur == Some(Currency::Cny) {
        "cur"
    } else if cfg.lang == Some(Lang::Zh) {
        "lang"
    } else {
        return None;
    };
    if !cfg.providers.is_empty() || cfg.region.is_some() {
        return None;
    }
    let pick = pick?;
    let in_region = |id: &str| catalog.offer(id).is_some_and(|o| o.currency == Currency::Cny);
    if in_region(&pick.id) {
        return None;
    }
    // The cheapest China-region offer that meets everything, ranked on the
    // same cost as the pick.
    let nearest = offers
        .iter()
        .filter(|o| o.meets && in_region(&o.id))
        .min_by(|a, b| cost.key(a).total_cmp(&cost.key(b)));
    if let Some(t) = nearest {
        let ratio = cost.key(t) / cost.key(pick).max(1e-12);
        let msg = if ratio < 1.0 { "notice.region.ranked" } else { "notice.region.dearer" };
        return Some(Notice::said(key, Msg::new(msg).arg("offer", t.id.to_string()).num("ratio", ratio, 2)));
    }
    // None meets: name the largest China-region offer (most GPU memory in
    // one instance), whatever the filters on GPU type.
    let memory = |o: &Offer| catalog.gpu(&o.gpu).map_or(0.0, |g| g.memory_gb * f64::from(o.gpus));
    let largest = catalog
        .offers
        .iter()
        .filter(|o| o.currency == Currency::Cny)
        .max_by(|a, b| memory(a).total_cmp(&memory(b)))?;
    Some(Notice::said(
        key,
        Msg::new("notice.region.none")
            .arg("offer", largest.id.to_string())
            .arg("gpus", largest.gpus.to_string())
            .arg("gpu", largest.gpu.to_string())
            .num("gb", memory(largest), 0),
    ))
}
