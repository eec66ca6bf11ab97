//! The bill of an offer: a usage pattern turned into billed hours
//! (providers bill in increments — per second, minute or hour — with a
//! minimum charge, so a 7-minute job on per-hour billing costs a full
//! hour), spot where the workload tolerates it, storage and egress.
//!
//! Serverless platforms (provider `kind=serverless`, `scale_to_zero`) bill
//! per second only while a worker runs, and every time a worker starts from
//! zero it runs a cold start first: the platform's documented start
//! (`cold_start_s` in `providers.csv`) plus the plan's own start-up
//! (reading the weights and starting the engine, `estimate::engine`).
//! `use=always` keeps a worker up all month (730 h, as an instance);
//! `use=hours` is one busy period a day, each with one cold start and no
//! idle charge; `use=jobs` and `use=once` start from zero for every job.

use super::catalog::offers::HostBilling;
use super::catalog::{Catalog, Offer, Provider};
use super::config::{Commit, Task, Usage};
use super::kinds::UnknownCost;
use super::settings::Settings;
use super::units::HOURS_PER_MONTH;

/// Days per month used for daily patterns (365 / 12).
pub const DAYS_PER_MONTH: f64 = 365.0 / 12.0;

/// Seconds billed for one continuous run of `seconds`.
pub fn billed_seconds(seconds: f64, increment_s: f64, min_charge_s: f64) -> f64 {
    if seconds <= 0.0 {
        return 0.0;
    }
    let inc = increment_s.max(1.0);
    ((seconds / inc).ceil() * inc).max(min_charge_s)
}

/// Whether interruptible capacity suits this workload: batch jobs
/// (`use=jobs`/`once`) and checkpointed training tolerate a restart; a
/// user-facing endpoint (`use=always`/`hours`), of a language model or of
/// an image, video or audio model, does not.
pub fn tolerates_interruption(cfg: &Settings) -> bool {
    match cfg.task {
        Task::Finetune | Task::Pretrain => true,
        Task::Serve | Task::Generate => cfg.batch_usage(),
    }
}

/// The offer is billed at its spot price: spot allowed and tolerated, a
/// spot price published, and neither the user's own price nor a committed
/// term in its place. (`bill` also keeps long or multi-instance training
/// off spot.)
pub fn spot_priced(cfg: &Settings, o: &Offer) -> bool {
    let overridden = cfg.prices.iter().any(|(id, _)| **id == *o.id);
    cfg.spot
        && tolerates_interruption(cfg)
        && o.spot_usd_per_hour.is_some()
        && !overridden
        && o.committed_usd_per_hour(cfg.commit).is_none()
}

/// Busy and billed hours per month for one instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hours {
    pub busy_per_month: f64,
    pub billed_per_month: f64,
    /// Billed hours of one job (jobs / once patterns), else 0.
    pub billed_per_job: f64,
    /// Serverless: starts from zero a month (each billed as a cold start).
    pub cold_starts_per_month: f64,
}

/// A serverless worker's start from zero: the platform's documented cold
/// start (`None` where it publishes no figure: counted as 0 and named in
/// the bill's unknown costs) plus the plan's start-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColdStart {
    pub platform_s: Option<f64>,
    pub model_s: f64,
}

impl ColdStart {
    pub fn total_s(self) -> f64 {
        self.platform_s.unwrap_or(0.0) + self.model_s
    }
}

/// Busy and billed hours of a serverless worker. `job_hours` is one job's
/// time with the plan's start-up when the plan knows it; a `jobmin` job is
/// its work alone, so the start-up is added to it.
pub fn serverless_hours(
    cfg: &Settings,
    increment_s: f64,
    min_charge_s: f64,
    job_hours: Option<f64>,
    cold: ColdStart,
) -> Hours {
    let platform = cold.platform_s.unwrap_or(0.0);
    let job_s = || job_hours.map_or(cfg.job_minutes() * 60.0 + cold.model_s, |h| h * 3600.0) + platform;
    match cfg.usage() {
        // Always on (or busy around the clock): the worker never scales to
        // zero; every hour is billed.
        Usage::Always => Hours {
            busy_per_month: HOURS_PER_MONTH,
            billed_per_month: HOURS_PER_MONTH,
            billed_per_job: 0.0,
            cold_starts_per_month: 0.0,
        },
        Usage::Hours if cfg.hpd >= 24.0 => Hours {
            busy_per_month: HOURS_PER_MONTH,
            billed_per_month: HOURS_PER_MONTH,
            billed_per_job: 0.0,
            cold_starts_per_month: 0.0,
        },
        // No busy hours: nothing starts.
        Usage::Hours if cfg.hpd <= 0.0 => Hours {
            busy_per_month: 0.0,
            billed_per_month: 0.0,
            billed_per_job: 0.0,
            cold_starts_per_month: 0.0,
        },
        // One busy period a day (the assumption): one cold start, then the
        // busy hours; idle hours scale to zero.
        Usage::Hours => {
            let per_day =
                billed_seconds(cfg.hpd * 3600.0 + cold.total_s(), increment_s, min_charge_s) / 3600.0;
            Hours {
                busy_per_month: cfg.hpd * DAYS_PER_MONTH,
                billed_per_month: per_day * DAYS_PER_MONTH,
                billed_per_job: 0.0,
                cold_starts_per_month: DAYS_PER_MONTH,
            }
        }
        Usage::Jobs => {
            let per_job = billed_seconds(job_s(), increment_s, min_charge_s) / 3600.0;
            let busy = job_hours.map_or(cfg.job_minutes() / 60.0, |h| h);
            Hours {
                busy_per_month: cfg.jobs * busy,
                billed_per_month: cfg.jobs * per_job,
                billed_per_job: per_job,
                cold_starts_per_month: cfg.jobs,
            }
        }
        Usage::Once => {
            let per_job = billed_seconds(job_s(), increment_s, min_charge_s) / 3600.0;
            let busy = job_hours.map_or(cfg.job_minutes() / 60.0, |h| h);
            Hours {
                busy_per_month: busy,
                billed_per_month: per_job,
                billed_per_job: per_job,
                cold_starts_per_month: 1.0,
            }
        }
    }
}

/// `job_hours`: length of one job when the estimator knows it (training), else `jobmin`.
pub fn hours(
    cfg: &Settings,
    increment_s: f64,
    min_charge_s: f64,
    job_hours: Option<f64>,
    restart_factor: f64,
) -> Hours {
    match cfg.usage() {
        Usage::Always => Hours {
            busy_per_month: HOURS_PER_MONTH,
            billed_per_month: HOURS_PER_MONTH,
            billed_per_job: 0.0,
            cold_starts_per_month: 0.0,
        },
        Usage::Hours => {
            let per_day = billed_seconds(cfg.hpd * 3600.0, increment_s, min_charge_s) / 3600.0;
            Hours {
                busy_per_month: cfg.hpd * DAYS_PER_MONTH,
                billed_per_month: per_day * DAYS_PER_MONTH,
                billed_per_job: 0.0,
                cold_starts_per_month: 0.0,
            }
        }
        Usage::Jobs => {
            let job_s = job_hours.map_or(cfg.job_minutes() * 60.0, |h| h * 3600.0) * restart_factor;
            let per_job = billed_seconds(job_s, increment_s, min_charge_s) / 3600.0;
            Hours {
                busy_per_month: cfg.jobs * job_s / 3600.0,
                billed_per_month: cfg.jobs * per_job,
                billed_per_job: per_job,
                cold_starts_per_month: 0.0,
            }
        }
        Usage::Once => {
            let job_s = job_hours.map_or(cfg.job_minutes() * 60.0, |h| h * 3600.0) * restart_factor;
            let per_job = billed_seconds(job_s, increment_s, min_charge_s) / 3600.0;
            Hours {
                busy_per_month: job_s / 3600.0,
                billed_per_month: per_job,
                billed_per_job: per_job,
                cold_starts_per_month: 0.0,
            }
        }
    }
}

/// The bill of running `instances` of an offer under the user's usage.
#[derive(Debug, Clone)]
pub struct Bill {
    pub spot: bool,
    /// Spot was allowed but the spot policy keeps this run on-demand.
    pub spot_refused: bool,
    /// The price term applied: `Commit::None` (on-demand) unless the link
    /// asks for a term the offer publishes.
    pub commitment: Commit,
    pub overridden: bool,
    /// A serverless platform's bill, and its cold start per start from zero.
    pub cold_start: Option<ColdStart>,
    pub usd_per_hour: f64,
    pub hours: Hours,
    pub compute_month: f64,
    pub usd_per_month: f64,
    pub usd_per_job: Option<f64>,
    pub storage_usd_per_month: f64,
    pub egress_usd_per_month: f64,
    /// The host (CPU and memory) billed beside the GPUs at the provider's
    /// published rates, every instance, per hour: part of `usd_per_hour`.
    pub host_usd_per_hour: Option<f64>,
    /// Parts of the bill the provider does not publish (`storage`,
    /// `egress`, `billing_increment`) or bills beside the GPU price
    /// (`host`): never counted as $0 silently.
    pub unknown_costs: Vec<UnknownCost>,
}

/// The host a metered provider bills beside the GPUs, per instance, for a
/// job that asks for no more (`modal.com/docs/guide/resources`: billed on
/// "whichever is higher: your reservation or actual usage"; the default
/// reservation is 0.125 cores and 128 MiB, so usage decides).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HostNeed {
    pub vcpus: f64,
    pub gib: f64,
}

/// Resident memory of one GPU's engine process, GiB: "4GB RSS" for a
/// one-GPU vLLM server in a Kubernetes pod (vllm-project/vllm#3035).
pub const HOST_RSS_GIB_PER_GPU: f64 = 4.0;

impl HostNeed {
    /// One busy process per GPU in use plus one for the front end (vLLM V1
    /// runs the API server and the engine core as their own processes and
    /// one worker per GPU when a copy spans GPUs:
    /// blog.vllm.ai/2025/01/27/v1-alpha-release.html), a vCPU each; memory
    /// of `HOST_RSS_GIB_PER_GPU` per GPU, the weights once (read through
    /// the page cache, which the same pod counted as "28GB cache memory"
    /// beside its RSS, vllm-project/vllm#3035; copies on one instance read
    /// the same files), and any training state offloaded to the host.
    pub fn of(gpus_in_use: u32, load_bytes: f64, offload_bytes: Option<f64>) -> HostNeed {
        const GIB: f64 = 1_073_741_824.0;
        let gpus = f64::from(gpus_in_use.max(1));
        HostNeed {
            vcpus: gpus + 1.0,
            gib: gpus * HOST_RSS_GIB_PER_GPU
                + (load_bytes.max(0.0) + offload_bytes.unwrap_or(0.0).max(0.0)) / GIB,
        }
    }
}

/// The longest run put on spot: a week.
pub const SPOT_MAX_HOURS: f64 = 7.0 * 24.0;

/// Months a committed term runs (a month is 730 hours).
pub fn term_months(c: Commit) -> f64 {
    match c {
        Commit::None => 0.0,
        Commit::Month => 1.0,
        Commit::Year => 12.0,
        Commit::ThreeYears => 36.0,
    }
}

/// Prices an offer: the user's override if any, a committed term where
/// asked and published, spot only where the workload tolerates
/// interruption (with the restart overhead), billed in the provider's
/// increments; storage (GB × months × price per instance) and egress beyond
/// the provider's free allowance. `job_hours` is one job's real time (work
/// plus start-up) when the plan knows it, else `jobmin` is used;
/// `startup_s` is the plan's start-up (a serverless cold start counts it).
/// The user's price (`price=`) is in the offer's own currency. `provider`
/// is the offer's provider in the catalog (`catalog.provider(&o.provider)`,
/// which the offers step looks up once per run of one provider's offers).
#[allow(clippy::too_many_arguments)]
pub fn bill(
    cfg: &Settings,
    catalog: &Catalog,
    o: &Offer,
    provider: Option<&Provider>,
    instances: u32,
    job_hours: Option<f64>,
    startup_s: f64,
    store_gb: f64,
    host: HostNeed,
) -> Bill {
    let own_to_usd = catalog.usd_per_unit(o.currency).unwrap_or(1.0);
    let override_price = cfg.prices.iter().find(|(id, _)| **id == *o.id).map(|(_, p)| *p * own_to_usd);
    let committed = override_price.is_none().then(|| o.committed_usd_per_hour(cfg.commit)).flatten();
    let commitment = if committed.is_some() { cfg.commit } else { Commit::None };
    // A synchronous training run over several instances, or planned for
    // longer than a week, stays off spot: one preemption stalls every GPU
    // (the brief: reserved capacity for long pre-training).
    let spot_refused = cfg.is_training() && (instances > 1 || job_hours.is_some_and(|h| h > SPOT_MAX_HOURS));
    let spot = spot_priced(cfg, o) && !spot_refused;
    let hourly = override_price.or(committed).unwrap_or(if spot {
        o.spot_usd_per_hour.unwrap_or(o.usd_per_hour)
    } else {
        o.usd_per_hour
    });
    let restart = if spot { 1.0 + cfg.restart_pct / 100.0 } else { 1.0 };
    // The user's own price is all-in: no host added to it.
    let host_usd_per_hour = provider
        .and_then(|p| p.host_usd_per_hour(host.vcpus, host.gib))
        .filter(|_| override_price.is_none())
        .map(|h| h * f64::from(instances));
    let usd_per_hour = hourly * f64::from(instances) + host_usd_per_hour.unwrap_or(0.0);
    let (increment, min_charge, increment_unknown) = o.billing(provider);
    let cold_start = provider
        .filter(|p| p.is_serverless())
        .map(|p| ColdStart { platform_s: p.cold_start_s, model_s: startup_s.max(0.0) });
    let mut hours = match cold_start {
        Some(c) => serverless_hours(cfg, increment, min_charge, job_hours, c),
        None => hours(cfg, increment, min_charge, job_hours, restart),
    };
    if committed.is_some() {
        on_term(cfg, commitment, &mut hours);
    }
    let storage_price = o.storage_usd_per_gb_month.or(provider.and_then(|p| p.storage_usd_per_gb_month));
    let egress_price = o.egress_usd_per_gb.or(provider.and_then(|p| p.egress_usd_per_gb));
    let free_egress = provider.map_or(0.0, |p| p.free_egress_gb_month);
    let egress_gb = (cfg.egress_gb - free_egress).max(0.0);
    let mut unknown_costs = Vec::new();
    if storage_price.is_none() && store_gb > 0.0 {
        unknown_costs.push(UnknownCost::Storage);
    }
    if egress_price.is_none() && egress_gb > 0.0 {
        unknown_costs.push(UnknownCost::Egress);
    }
    // Rounding matters only where jobs or busy hours are billed.
    if increment_unknown && cfg.usage() != Usage::Always {
        unknown_costs.push(UnknownCost::BillingIncrement);
    }
    if host_usd_per_hour.is_none() && provider.is_some_and(|p| p.host_billing != HostBilling::Included) {
        unknown_costs.push(UnknownCost::Host);
    }
    if cold_start.is_some_and(|c| c.platform_s.is_none()) && hours.cold_starts_per_month > 0.0 {
        unknown_costs.push(UnknownCost::ColdStart);
    }
    // Storage is priced per GB-month: kept all month between jobs or busy
    // hours, but a one-off run (`use=once`) keeps its disk for the hours it
    // bills, and pays that share of a month (the catalog holds monthly
    // rates, not how finely each provider prorates them).
    // (A committed term is billed by the month, its storage too.) A
    // training run's disk holds the checkpoints it keeps (`ckpts`), which
    // outlive the run: they are billed by the month while kept, a first
    // month at least, as the guidance's checkpoint answer says (issue 42).
    let prorated = cfg.usage() == Usage::Once && committed.is_none() && !cfg.is_training();
    let storage_months = if prorated { hours.billed_per_job / HOURS_PER_MONTH } else { 1.0 };
    let storage_usd_per_month =
        store_gb * storage_price.unwrap_or(0.0) * f64::from(instances.max(1)) * storage_months;
    let egress_usd_per_month = egress_gb * egress_price.unwrap_or(0.0);
    let compute_month = usd_per_hour * hours.billed_per_month;
    Bill {
        spot,
        spot_refused: spot_refused && cfg.spot,
        commitment,
        overridden: override_price.is_some(),
        cold_start,
        usd_per_hour,
        hours,
        compute_month,
        usd_per_month: compute_month + storage_usd_per_month + egress_usd_per_month,
        usd_per_job: (hours.billed_per_job > 0.0).then_some(usd_per_hour * hours.billed_per_job),
        storage_usd_per_month,
        egress_usd_per_month,
        host_usd_per_hour,
        unknown_costs,
    }
}

/// The hours a committed term bills: every hour it runs, busy or not — the
/// month, a one-off job at least the term, a month's jobs sharing it.
fn on_term(cfg: &Settings, commitment: Commit, hours: &mut Hours) {
    let jobs = match cfg.usage() {
        Usage::Jobs => cfg.jobs.max(1.0),
        _ => 1.0,
    };
    let term_hours = HOURS_PER_MONTH * term_months(commitment);
    hours.billed_per_job = match cfg.usage() {
        Usage::Once => hours.billed_per_job.max(term_hours),
        Usage::Jobs => HOURS_PER_MONTH / jobs,
        _ => 0.0,
    };
    hours.billed_per_month = HOURS_PER_MONTH;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::Config;

    /// The steps after `resolve` take its settings; these configurations
    /// need no checking against a catalog.
    fn settled(cfg: Config) -> Settings {
        Settings::resolved(cfg)
    }

    #[test]
    fn seven_minutes_on_hourly_billing_costs_an_hour() {
        assert_eq!(billed_seconds(7.0 * 60.0, 3600.0, 0.0), 3600.0);
        assert_eq!(billed_seconds(7.0 * 60.0, 60.0, 0.0), 420.0);
        assert_eq!(billed_seconds(7.5 * 60.0, 60.0, 0.0), 480.0);
        assert_eq!(billed_seconds(30.0, 1.0, 60.0), 60.0);
        assert_eq!(billed_seconds(90.5, 1.0, 60.0), 91.0);
        assert_eq!(billed_seconds(0.0, 3600.0, 60.0), 0.0);
    }

    #[test]
    fn jobs_per_month_are_billed_each() {
        let cfg =
            settled(Config { usage: Some(Usage::Jobs), jobs: 100.0, jobmin: Some(7.0), ..Config::default() });
        let h = hours(&cfg, 3600.0, 0.0, None, 1.0);
        assert_eq!(h.billed_per_month, 100.0);
        let h = hours(&cfg, 1.0, 60.0, None, 1.0);
        assert!((h.billed_per_month - 100.0 * 7.0 / 60.0).abs() < 1e-9);
    }

    #[test]
    fn serverless_hours_start_once_a_day_and_not_when_idle_or_always_busy() {
        let cold = ColdStart { platform_s: Some(1.0), model_s: 59.0 };
        let cfg = |hpd: f64| settled(Config { usage: Some(Usage::Hours), hpd, ..Config::default() });
        let h = serverless_hours(&cfg(3.0), 1.0, 0.0, None, cold);
        assert!((h.billed_per_month - (3.0 + 60.0 / 3600.0) * DAYS_PER_MONTH).abs() < 1e-9);
        assert_eq!(h.cold_starts_per_month, DAYS_PER_MONTH);
        assert_eq!(serverless_hours(&cfg(0.0), 1.0, 0.0, None, cold).billed_per_month, 0.0);
        let all_day = serverless_hours(&cfg(24.0), 1.0, 0.0, None, cold);
        assert_eq!((all_day.billed_per_month, all_day.cold_starts_per_month), (HOURS_PER_MONTH, 0.0));
    }

    #[test]
    fn endpoints_never_take_spot() {
        let endpoint = Config::default();
        assert!(!tolerates_interruption(&settled(endpoint)));
        let batch = Config { usage: Some(Usage::Jobs), ..Config::default() };
        assert!(tolerates_interruption(&settled(batch)));
        let ft = Config { task: Task::Finetune, ..Config::default() };
        assert!(tolerates_interruption(&settled(ft)));
        // An always-on image endpoint drops live requests too.
        let images = Config { task: Task::Generate, usage: Some(Usage::Always), ..Config::default() };
        assert!(!tolerates_interruption(&settled(images.clone())));
        assert!(tolerates_interruption(&settled(Config { usage: Some(Usage::Jobs), ..images })));
    }
}
