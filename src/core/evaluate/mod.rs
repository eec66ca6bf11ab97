//! The pipeline: a link becomes an [`Answer`] in four steps, the same for
//! every task — [`resolve`] (the configuration checked against the
//! catalog), [`plan`] (per GPU type and per offer shape), [`offers`]
//! (bill, rank, pick) and [`guidance`] (read from the pick's plan) — with
//! the single changes the plan rates better ([`whatif`]) between the last two.

pub mod api;
pub mod measured;
mod region;
pub mod whatif;

use super::answer::{Answer, OfferResult};
use super::catalog::Catalog;
use super::config::Config;
use super::date::Date;
use super::estimate::serve::Rescale;
use super::link;
use super::messages::Msg;
use super::notice::Notice;
use super::offers::Objective;
use super::plan::Planner;
use super::settings::Settings;
use super::{guidance, offers, resolve};

/// Evaluates a query string against a catalog on a given day.
pub fn evaluate_query(query: &str, catalog: &Catalog, today: Date) -> Answer {
    let (cfg, notices) = link::decode(query);
    evaluate(&cfg, notices, catalog, today)
}

/// Evaluates a decoded configuration (with the decoder's notices); a
/// native build also prices a serving answer's load on a hosted API
/// ([`api`]: the `api` field and a guidance answer).
pub fn evaluate(cfg: &Config, notices: Vec<Notice>, catalog: &Catalog, today: Date) -> Answer {
    #[allow(unused_mut)]
    let mut answer = run(cfg, notices, catalog, today, true, true, None).0;
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(a) = api::compare(&answer, catalog) {
        answer.guidance.push(api::guidance(&answer, &a));
        answer.api = Some(a);
    }
    answer
}

/// The answer the page shows: [`evaluate`]'s, less the per-GPU-type table
/// (`results`, which the CLI and the JSON print and the page does not),
/// the same in every other field. It runs on every input change.
pub fn evaluate_offers(cfg: &Config, notices: Vec<Notice>, catalog: &Catalog, today: Date) -> Answer {
    run(cfg, notices, catalog, today, true, false, None).0
}

/// The pipeline; with `suggest`, also the single changes worth making;
/// with `per_gpu`, the per-GPU-type table too. A suggesting run compares
/// the link's own measurement with the estimate (`measured`) and rescales
/// by it; the runs it makes (the what-ifs) take that `rescale` as given.
/// Returns the answer and the objective it was ranked on.
fn run(
    cfg: &Config,
    notices: Vec<Notice>,
    catalog: &Catalog,
    today: Date,
    suggest: bool,
    per_gpu: bool,
    rescale: Option<&Rescale>,
) -> (Answer, Objective) {
    let r = resolve::resolve(cfg, notices, catalog);
    let cfg = &r.cfg;
    let (rescale, shown, measured_notices) = if suggest {
        measured::rescale(cfg, catalog, &|c, r| run(c, Vec::new(), catalog, today, false, false, r))
    } else {
        (rescale.cloned(), None, Vec::new())
    };
    let mut planner = Planner::new(&r, catalog);
    if let Planner::Serve(p) = &mut planner {
        p.job.rescale = rescale.clone();
    }
    let gpus = catalog.gpus_for(cfg.gpu.as_deref());
    // A what-if evaluation needs only the offers' ranking.
    let results = if suggest && per_gpu { planner.results(&gpus) } else { Vec::new() };
    let offers = offers::evaluate(cfg, catalog, today, &mut planner);
    let unit = planner.unit();
    let objective = offers::objective(cfg, unit);
    let cost = offers::cost_objective(cfg, unit);
    let display = super::money::Display::new(cfg, catalog);
    let recommendation = offers::recommend(
        &offers,
        objective,
        cost,
        &display,
        cfg.restart_pct,
        cfg.offline_job() && cfg.task == super::config::Task::Serve,
    );
    let pick = recommendation.as_ref().and_then(|rec| offers.iter().find(|o| o.id == rec.pick.offer));
    let mut focus = cfg.gpu.as_deref().or(pick.map(|o| &*o.gpu)).and_then(|g| catalog.gpu(g));
    if focus.is_none() && matches!(planner, Planner::Serve(_) | Planner::Train(_)) {
        // A breakdown on the reference card when nothing fits.
        focus = catalog.gpu("h100-sxm-80gb").or(catalog.gpus.first());
    }
    let (memory, answers) = if suggest { planner.focus(focus, pick) } else { Default::default() };
    let mut notices = r.notices.clone();
    notices.extend(measured_notices);
    notices.extend(commit_notice(cfg, &offers, pick, cost));
    if let Some(n) = region::outside_notice(cfg, catalog, &offers, pick, cost) {
        notices.push(n);
    }
    notices.extend(days_notice(cfg, &offers));
    let (id, name, inferred) = r.model_label();
    // The plan's own per-request length, whole tokens (the export's context flags).
    let request_tokens = match &planner {
        Planner::Serve(p) => Some(p.job.context_tokens())
            .filter(|t| t.is_finite() && *t >= 1.0)
            .map(|t| t.ceil().min(1e12) as u64),
        _ => None,
    };
    let mut answer = Answer {
        request_tokens,
        memory,
        results,
        answers,
        offers,
        recommendation,
        unusable: r.unusable,
        kv_format: cfg.kv.clone(),
        display,
        catalog_stale: catalog.as_of.days_until(today) > super::catalog::STALE_AFTER_DAYS,
        // The link in effect, normalized (what was ignored is left out);
        // a what-if's answer is read for its pick and notices alone.
        ..Answer::empty(
            if suggest { link::encode(cfg) } else { String::new() },
            cfg.clone(),
            notices,
            catalog.as_of,
            (id, name, inferred),
            r.weight_format(),
        )
    };
    if suggest {
        answer.measured = shown;
        answer.whatif = whatif::single_changes(cfg, &answer, objective, rescale.as_ref(), &|c, r| {
            run(c, Vec::new(), catalog, today, false, false, r)
        });
        answer.guidance = guidance::for_answer(cfg, &planner, catalog, &answer);
    }
    (answer, objective)
}

/// On a link that asks for a term (`commit`): why the pick is not on it —
/// no offer publishes it, only offers that do not meet the job do, or the
/// nearest one lost on the ranked cost (cheaper, yet ranked lower for its
/// own reasons, or dearer).
fn commit_notice(
    cfg: &Settings,
    offers: &[OfferResult],
    pick: Option<&OfferResult>,
    cost: Objective,
) -> Option<Notice> {
    if cfg.commit == super::config::Commit::None {
        return None;
    }
    // The cheapest offer on the term that meets everything, if any.
    let termed = offers
        .iter()
        .filter(|o| o.commitment == cfg.commit && o.meets)
        .min_by(|a, b| cost.key(a).total_cmp(&cost.key(b)));
    if !offers.iter().any(|o| o.commitment == cfg.commit) {
        return Some(Notice::said("commit", Msg::new("notice.commit").arg("term", cfg.commit.as_str())));
    } else if termed.is_none() {
        // Terms are published, but only on offers that do not meet
        // the job (too small, too slow, over the budget).
        return Some(Notice::said(
            "commit",
            Msg::new("notice.commit.unfit").arg("term", cfg.commit.as_str()),
        ));
    } else if let (Some(p), Some(t)) = (pick.filter(|p| p.commitment != cfg.commit), termed) {
        // Terms are published, yet the pick is on-demand: say which term
        // came nearest and by how much it lost on the ranked cost.
        // Cheaper per unit yet not picked: ranked after the pick for its
        // own reasons (an old price, a thin margin, unverified support).
        let ratio = cost.key(t) / cost.key(p).max(1e-12);
        let key = if ratio < 1.0 { "notice.commit.ranked" } else { "notice.commit.dearer" };
        return Some(Notice::said(
            "commit",
            Msg::new(key)
                .arg("term", cfg.commit.as_str())
                .arg("offer", t.id.to_string())
                .num("ratio", ratio, 2),
        ));
    }
    None
}

/// On a deadline (`days`) no offer meets: the fastest fitting offer's time,
/// or that nothing fits.
fn days_notice(cfg: &Settings, offers: &[OfferResult]) -> Option<Notice> {
    let days = cfg.days?;
    if !offers.iter().any(|o| o.meets) {
        // The fastest fitting offer, in days, for the notice.
        let fastest =
            offers.iter().filter(|o| o.fits).filter_map(|o| o.speeds.job_hours()).fold(f64::MAX, f64::min);
        let msg = if fastest < f64::MAX {
            // Two decimals under a day: 0.05 days is not "0.1".
            let took = fastest / 24.0;
            Msg::new("notice.days.fastest").arg("days", link::fmt_num(days)).num(
                "took",
                took,
                if took < 1.0 { 2 } else { 1 },
            )
        } else {
            Msg::new("notice.days").arg("days", link::fmt_num(days))
        };
        return Some(Notice::said("days", msg));
    }
    None
}
