//! A deadline (`days`) for batch work of a stated size: `use=jobs` or
//! `once` with `per_job`, serving or generation. Its requests, images,
//! clips or audio seconds are independent of each other, so an offer
//! meets the deadline by renting more of the same instances, each doing an
//! equal share of the job after loading the model itself; no network
//! between them is needed. (Training plans its own deadline: its GPUs work
//! on one model, see `plan::train`.)

use super::super::messages::Msg;
use super::super::plan::{train_speed::day_decimals, OfferPlan, Output};
use super::super::settings::Settings;

/// The most instances of one offer a batch job is spread over: as many as
/// a training run's multi-instance plans use (`plan::train`), far beyond
/// what a provider rents on demand without a quote.
pub const MAX_INSTANCES: u32 = 64;

/// The plan with as many copies of its instances as the job needs to end
/// within `days`; where no count up to [`MAX_INSTANCES`] does (or loading
/// the model alone takes longer), the most of them, marked late. Unchanged
/// without a deadline, for other work, or where one set of instances is
/// in time. `job_hours` is one job's real time on the plan as it is;
/// `restart` stretches it on spot (1 + `restart`%, as the bill does).
pub fn spread(
    cfg: &Settings,
    mut p: OfferPlan,
    restart: f64,
    job_hours: impl Fn(&OfferPlan) -> Option<f64>,
) -> OfferPlan {
    let batch = cfg.offline_job() && !cfg.is_training();
    let (Some(days), true, true) = (cfg.days, batch, p.fits) else { return p };
    let Some(hours) = job_hours(&p) else { return p };
    let limit = days * 24.0;
    if hours * restart <= limit {
        return p;
    }
    let startup_h = p.startup_s / 3600.0;
    let work_h = (hours - startup_h).max(0.0);
    let room = limit / restart - startup_h;
    let wanted = if room > 0.0 { (work_h / room).ceil() } else { f64::INFINITY };
    let n = if wanted.is_finite() { (wanted as u32).clamp(2, MAX_INSTANCES) } else { MAX_INSTANCES };
    let k = f64::from(n);
    p.output = match p.output {
        Output::Tokens(x) => Output::Tokens(x * k),
        Output::Images(x) => Output::Images(x * k),
        Output::Clips(x) => Output::Clips(x * k),
        Output::Audio(x) => Output::Audio(x * k),
        other => other,
    };
    if matches!(p.output, Output::Images(_) | Output::Clips(_) | Output::Audio(_)) {
        // Batch generation's speed is the offer's items per hour.
        p.speed_score *= k;
    }
    p.instances = p.instances.saturating_mul(n);
    p.replicas = p.replicas.saturating_mul(n);
    p.layout = Msg::new("layout.instances").num("instances", k, 0).sub("each", p.layout);
    let took = job_hours(&p).unwrap_or(hours) * restart;
    if took > limit {
        p.meets = false;
        let late = if restart > 1.0 {
            Msg::new("reason.late_spot").num("restart", cfg.restart_pct, 0)
        } else {
            Msg::new("reason.late")
        };
        p.extra_reasons.push(late.num("took", took / 24.0, if took < 48.0 { 2 } else { 1 }).num(
            "days",
            days,
            day_decimals(days),
        ));
    }
    p
}
