//! Serverless platforms: per-second workers that scale to zero, billed
//! for their work plus a cold start per start from zero. Short bursts
//! against an instance that bills by the minute: serverless is the pick;
//! the same GPUs always on: it is not, and never costs less than 730 hours
//! at its hourly price.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use whichgpu::core::billing::{bill, DAYS_PER_MONTH};
use whichgpu::core::config::{Config, Task, Usage};
use whichgpu::core::estimate::engine::startup_s;
use whichgpu::core::resolve::resolve;

use crate::common::{answer, catalog};

const BURSTS: &str = "task=generate&model=sdxl&gpu=a100-sxm-40gb&provider=lambda,modal&store=0";

#[test]
fn there_are_three_serverless_platforms_with_offers() {
    let c = catalog();
    let serverless: Vec<_> = c.providers.iter().filter(|p| p.is_serverless()).collect();
    assert!(serverless.len() >= 3, "{:?}", serverless.iter().map(|p| &p.id).collect::<Vec<_>>());
    for p in serverless {
        let offers: Vec<_> = c.offers.iter().filter(|o| *o.provider == *p.id).collect();
        assert!(!offers.is_empty(), "{}: no offers", p.id);
        assert_eq!(p.billing_increment_s, Some(1.0), "{}: per-second billing", p.id);
        for o in offers {
            assert!(!o.source.is_empty(), "{}", o.id);
        }
    }
}

#[test]
fn thirty_short_image_jobs_pick_serverless() {
    let a = answer(&format!("{BURSTS}&use=jobs&jobs=30&per_job=5"));
    let pick = a.pick().expect("pick");
    assert!(pick.serverless, "pick {}", pick.id);
    let cold = pick.cold_start_s.expect("a cold start");
    // The platform's documented start plus reading SDXL's weights and starting the engine.
    let platform =
        catalog().provider("modal").and_then(|p| p.cold_start_s).expect("modal publishes its cold start");
    assert!(cold > platform + 59.0, "{cold}");
    assert_eq!(pick.cold_starts_per_month, 30.0);
    // Each job is billed to the second: its time plus the platform's start.
    let job_s = pick.speeds.job_hours().expect("job time") * 3600.0 + platform;
    assert!((pick.billed_hours_per_month - 30.0 * job_s.ceil() / 3600.0).abs() < 1e-9);
    // The instance bills whole minutes for the same work, and loses.
    let lambda = a.offers.iter().find(|o| !o.serverless && o.gpus == 1).expect("instance");
    assert!(lambda.usd_per_job > pick.usd_per_job, "{:?} vs {:?}", lambda.usd_per_job, pick.usd_per_job);
    let g = a.guidance.iter().find(|g| g.id == "serverless").expect("serverless guidance");
    assert_eq!(g.msg.key, "g.serverless.pick");
    assert!(g.text().contains(&*pick.id), "{}", g.text());
}

#[test]
fn an_always_on_endpoint_does_not_pick_serverless() {
    let a = answer(&format!("{BURSTS}&use=always"));
    let pick = a.pick().expect("pick");
    assert!(!pick.serverless, "pick {}", pick.id);
    let modal = a.offers.iter().find(|o| o.serverless).expect("serverless offer");
    assert!((modal.billed_hours_per_month - 730.0).abs() < 1e-9);
    assert_eq!(modal.cold_starts_per_month, 0.0);
    let g = a.guidance.iter().find(|g| g.id == "serverless").expect("serverless guidance");
    assert_eq!(g.msg.key, "g.serverless.always");
}

#[test]
fn a_few_busy_hours_a_day_bill_one_cold_start_a_day_and_no_idle() {
    let a = answer(&format!("{BURSTS}&use=hours&hpd=3"));
    let modal = a.offers.iter().find(|o| o.serverless).expect("serverless offer");
    let cold = modal.cold_start_s.expect("cold start");
    assert!((modal.cold_starts_per_month - DAYS_PER_MONTH).abs() < 1e-9);
    let want = (3.0 * 3600.0 + cold).ceil() / 3600.0 * DAYS_PER_MONTH;
    assert!((modal.billed_hours_per_month - want).abs() < 1e-9, "{} vs {want}", modal.billed_hours_per_month);
    assert!(modal.billed_hours_per_month < 4.0 * DAYS_PER_MONTH);
}

#[test]
fn a_platform_without_a_published_cold_start_says_so() {
    let a = answer(
        "task=generate&model=sdxl&use=jobs&jobs=30&per_job=5&provider=runpod-serverless,modal&store=0",
    );
    for o in &a.offers {
        let unknown = o.unknown_costs.contains(&whichgpu::core::kinds::UnknownCost::ColdStart);
        match &*o.provider {
            "runpod-serverless" => assert!(unknown, "{}", o.id),
            _ => assert!(!unknown, "{}", o.id),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Always on, a serverless worker never scales to zero: whatever the
    /// price, start-up, instances or task, it bills at least 730 hours.
    #[test]
    fn always_on_serverless_never_costs_less_than_730_hours(
        pick in 0usize..64,
        price in prop::option::of(0.01f64..50.0),
        instances in 1u32..8,
        weights_gb in 0.0f64..400.0,
        task in prop::sample::select(vec![Task::Serve, Task::Generate, Task::Finetune, Task::Pretrain]),
        hpd in 0.0f64..24.0,
        jobs in 0.0f64..1000.0,
    ) {
        let c = catalog();
        let serverless: Vec<_> = c.offers.iter().filter(|o| c.provider(&o.provider).is_some_and(|p| p.is_serverless())).collect();
        let o = serverless[pick % serverless.len()];
        let cfg = Config {
            task,
            usage: Some(Usage::Always),
            hpd,
            jobs,
            prices: price.map(|p| vec![(o.id.to_string(), p)]).unwrap_or_default(),
            ..Config::default()
        };
        let b = bill(&resolve(&cfg, Vec::new(), c).cfg, c, o, c.provider(&o.provider), instances, None, startup_s(weights_gb * 1e9), 0.0, Default::default());
        prop_assert!(b.cold_start.is_some());
        prop_assert!(b.compute_month >= 730.0 * b.usd_per_hour * (1.0 - 1e-12), "{}: {} < 730 × {}", o.id, b.compute_month, b.usd_per_hour);
    }
}
