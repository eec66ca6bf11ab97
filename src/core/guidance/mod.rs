//! The fourth step of the pipeline: FAQ-style guidance, per task, read
//! from the finished answer and the same job the plans used — the pick's
//! own plan, never one recomputed on another GPU or layout. Text comes from
//! [`super::messages`] by key, so the page can show either language.

mod media;
mod media_train;
mod ranked;
mod serve;
mod shared;
mod train;
mod train_rl;
mod train_serverless;

use super::answer::{Answer, GuidanceItem};
use super::catalog::Catalog;
use super::kinds::AltKind;
use super::messages::Msg;
use super::plan::Planner;
use super::settings::Settings;

/// The guidance for an answer, by the task's planner.
pub fn for_answer(cfg: &Settings, planner: &Planner<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    let mut out = match planner {
        Planner::Serve(p) => serve::guidance(cfg, &p.job, catalog, a),
        Planner::Train(p) => {
            let mut g = train::guidance(cfg, p.job_at(a.pick().and_then(|o| o.zero)), catalog, a);
            g.extend(train_rl::guidance(a));
            g
        }
        Planner::Generate(p) => media::guidance(cfg, p.job, catalog, a),
        Planner::ImageTrain(p) => media_train::guidance(cfg, p.job, catalog, a),
    };
    if let Some(item) = stale_cheaper(cfg, planner, a) {
        // Beside the note that prices are a snapshot, where there is one.
        let at = out.iter().position(|g| g.id == "prices").map_or(out.len(), |i| i + 1);
        out.insert(at, item);
    }
    out
}

/// A cheaper offer passed over only because its price is old: where the
/// offers are ranked on cost, the pick is on a current price with nothing
/// else that ranks it lower (`offers::rank`), and the cheapest alternative
/// is on an old price and would save a fifth or more (the threshold the
/// fastest alternative uses for speed), the reader is told why it is not
/// the pick and when it would do the job for less.
fn stale_cheaper(cfg: &Settings, planner: &Planner<'_>, a: &Answer) -> Option<GuidanceItem> {
    let rec = a.recommendation.as_ref()?;
    let pick = a.pick()?;
    if rec.objective != super::offers::cost_objective(cfg, planner.unit())
        || pick.stale
        || pick.foreign
        || pick.thin
        || pick.unverified
    {
        return None;
    }
    let alt = rec.alternatives.iter().find(|p| p.why == AltKind::Cheapest)?;
    let offer = a.offers.iter().find(|o| o.id == alt.offer && o.stale && o.meets && !o.price_overridden)?;
    // The ratio on the cost the offers are ranked by (the objective is
    // the cost objective, checked above), as the alternative's reason
    // computes it; an image-model fine-tune given its own length (`jobmin`
    // without `train_steps`) compares that length on every GPU, and the
    // note says so.
    let cost = super::offers::cost_objective(cfg, planner.unit());
    let ratio = cost.key(offer) / cost.key(pick);
    if !(ratio.is_finite() && ratio > 0.0) {
        return None;
    }
    let own_length = planner.unit() == super::plan::Unit::ImageTraining
        && super::plan::media_train::timed_steps(cfg).is_none();
    let key = if own_length { "g.note.stale_cheaper.run" } else { "g.note.stale_cheaper" };
    (ratio <= 0.8).then(|| {
        GuidanceItem::new(
            "stale-cheaper",
            None,
            Msg::new(key)
                .arg("offer", offer.id.to_string())
                .num("ratio", ratio, 2)
                .arg("date", offer.price_as_of.to_string()),
        )
    })
}

pub use shared::in_display;
