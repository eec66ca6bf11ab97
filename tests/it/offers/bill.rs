//! The bill and the pick, over generated configurations (every task ×
//! usage × sort × spot × commit): each offer's bill equals an independent
//! recomputation here; the ranking follows `recommendation.objective`; no
//! part a provider does not publish is a silent $0; every alternative keeps
//! its rule. Then hand-checked cases.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::Value;
use whichgpu::core::answer::{Answer, OfferResult};
use whichgpu::core::catalog::Date;
use whichgpu::core::units::GIB;

use crate::common::catalog;
use whichgpu::core::config::{Commit, Currency};
use whichgpu::core::evaluate::evaluate_query;

fn eval(q: &str) -> Answer {
    evaluate_query(q, catalog(), Date::parse("2026-12-01").expect("date"))
}

fn param<'a>(q: &'a str, key: &str) -> Option<&'a str> {
    q.split('&').find_map(|p| p.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

/// Billed seconds of one run: whole increments, at least the minimum.
fn billed(seconds: f64, inc: f64, min: f64) -> f64 {
    if seconds <= 0.0 {
        0.0
    } else {
        ((seconds / inc.max(1.0)).ceil() * inc.max(1.0)).max(min)
    }
}

/// The month's bill of an offer, recomputed from the catalog and the link.
fn recompute(q: &str, o: &OfferResult) -> f64 {
    let c = catalog();
    let offer = c.offer(&o.id).expect("offer in catalog");
    let provider = c.provider(&offer.provider);
    let inc = offer.billing_increment_s.or(provider.and_then(|p| p.billing_increment_s)).unwrap_or(3600.0);
    let min = offer.min_charge_s.or(provider.and_then(|p| p.min_charge_s)).unwrap_or(0.0);
    let hourly = if o.commitment != Commit::None {
        offer.committed_usd_per_hour(o.commitment).expect("a published term")
    } else if o.spot {
        offer.spot_usd_per_hour.expect("a spot price")
    } else {
        offer.usd_per_hour
    };
    let restart = if o.spot {
        1.0 + param(q, "restart").and_then(|v| v.parse().ok()).unwrap_or(10.0) / 100.0
    } else {
        1.0
    };
    let usage = param(q, "use").unwrap_or("always");
    let jobs: f64 = param(q, "jobs").and_then(|v| v.parse().ok()).unwrap_or(30.0);
    let jobmin_s = param(q, "jobmin").and_then(|v| v.parse::<f64>().ok()).unwrap_or(60.0) * 60.0;
    let job_s = || o.speeds.job_hours().map_or(jobmin_s, |h| h * 3600.0) * restart;
    let hpd_s = param(q, "hpd").and_then(|v| v.parse::<f64>().ok()).unwrap_or(8.0) * 3600.0;
    let serverless = provider.is_some_and(|p| p.kind == "serverless" && p.scale_to_zero);
    // Serverless: each start from zero bills a cold start (the platform's
    // own plus loading the model); a plan's job time already holds the
    // model's start-up, a `jobmin` job does not.
    let platform = provider.and_then(|p| p.cold_start_s).unwrap_or(0.0);
    let cold = o.cold_start_s.unwrap_or(0.0);
    let sls_job_s = || o.speeds.job_hours().map_or(jobmin_s + cold, |h| h * 3600.0 + platform);
    let hours = if serverless {
        assert_eq!(o.serverless, true, "{}", o.id);
        assert!(cold >= platform, "{}: cold start {cold} s below the platform's {platform} s", o.id);
        match usage {
            "always" => 730.0,
            "hours" if hpd_s >= 24.0 * 3600.0 => 730.0,
            "hours" if hpd_s <= 0.0 => 0.0,
            "hours" => billed(hpd_s + cold, inc, min) / 3600.0 * 365.0 / 12.0,
            "jobs" => jobs * billed(sls_job_s(), inc, min) / 3600.0,
            _ => billed(sls_job_s(), inc, min) / 3600.0,
        }
    } else if o.commitment != Commit::None {
        730.0
    } else {
        match usage {
            "always" => 730.0,
            "hours" => billed(hpd_s, inc, min) / 3600.0 * 365.0 / 12.0,
            "jobs" => jobs * billed(job_s(), inc, min) / 3600.0,
            _ => billed(job_s(), inc, min) / 3600.0,
        }
    };
    let store: f64 = param(q, "store").and_then(|v| v.parse().ok()).unwrap_or(0.0);
    let egress: f64 = param(q, "egress").and_then(|v| v.parse().ok()).unwrap_or(0.0);
    // A one-off run keeps its disk for the hours it bills; else all month.
    // A training run's disk holds the checkpoints it keeps: a month at least.
    let training = q.contains("task=finetune") || q.contains("task=pretrain");
    let months =
        if usage == "once" && o.commitment == Commit::None && !training { hours / 730.0 } else { 1.0 };
    let storage = store
        * offer.storage_usd_per_gb_month.or(provider.and_then(|p| p.storage_usd_per_gb_month)).unwrap_or(0.0)
        * f64::from(o.instances)
        * months;
    let out = (egress - provider.map_or(0.0, |p| p.free_egress_gb_month)).max(0.0)
        * offer.egress_usd_per_gb.or(provider.and_then(|p| p.egress_usd_per_gb)).unwrap_or(0.0);
    // A host billed beside the GPUs at published rates is part of the hour.
    (hourly * f64::from(o.instances) + o.host_usd_per_hour.unwrap_or(0.0)) * hours + storage + out
}

fn config() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "task=serve&model=llama-3.1-8b",
            "task=serve&model=qwen2.5-32b&w=int4-awq",
            "task=generate&model=flux.1-dev",
            "task=generate&model=wan-2.1-14b",
            "task=generate&model=musicgen-large",
            "task=finetune&model=llama-3.1-8b&method=qlora",
            "task=pretrain&model=llama-3.2-1b&tokens=5000000000",
        ]),
        prop::sample::select(vec!["always", "hours", "jobs", "once"]),
        prop::sample::select(vec!["cost", "token", "speed", "latency"]),
        prop::sample::select(vec!["0", "1"]),
        prop::sample::select(vec!["none", "1mo", "1yr"]),
        prop::sample::select(vec![None, Some(50u32)]),
        prop::sample::select(vec!["", "&provider=azure,gcp,vastai", "&provider=paperspace,runpod,aws"]),
    )
        .prop_map(|(base, usage, sort, spot, commit, per_job, providers)| {
            let mut q = format!("{base}&use={usage}&sort={sort}&spot={spot}&commit={commit}&store=100&egress=500&jobmin=7&hpd=3{providers}");
            if let Some(n) = per_job {
                q.push_str(&format!("&per_job={n}"));
            }
            q
        })
}

/// An offer's value on a JSON field, oriented so that smaller ranks first.
fn oriented(o: &Value, field: &str) -> Option<f64> {
    let v = o.get(field)?.as_f64()?;
    Some(if matches!(field, "decode_tokens_per_s_per_seq" | "audio_realtime_factor") { -v } else { v })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn bills_ranking_and_alternatives_keep_their_rules(q in config()) {
        let a = eval(&q);
        let json = serde_json::to_value(&a).expect("json");
        let offers = json["offers"].as_array().expect("offers");
        for o in &a.offers {
            let want = recompute(&q, o);
            prop_assert!((o.usd_per_month - want).abs() <= 1e-6 * want.max(1.0), "{q}: {} bills {} a month, recomputed {want}", o.id, o.usd_per_month);
            // No silent $0 for what the provider does not publish.
            let c = catalog();
            let offer = c.offer(&o.id).expect("offer");
            let p = c.provider(&offer.provider);
            if offer.storage_usd_per_gb_month.or(p.and_then(|p| p.storage_usd_per_gb_month)).is_none() {
                prop_assert!(o.unknown_costs.contains(&whichgpu::core::kinds::UnknownCost::Storage), "{q}: {} stores for $0 unflagged", o.id);
            }
            if offer.egress_usd_per_gb.or(p.and_then(|p| p.egress_usd_per_gb)).is_none() && p.is_some_and(|p| p.free_egress_gb_month < 500.0) {
                prop_assert!(o.unknown_costs.contains(&whichgpu::core::kinds::UnknownCost::Egress), "{q}: {} sends for $0 unflagged", o.id);
            }
        }
        let Some(rec) = &a.recommendation else { return Ok(()) };
        // The ranking follows the objective among offers that meet everything
        // (speed objectives reorder near-ties within 5 % by cost).
        let cost_objective = rec.objective.as_str().starts_with("usd_");
        // Offers on a current price in the reader's market, with memory to
        // spare, come first (a stale price, a yuan price shown in dollars, or
        // a thin memory margin, after them): the ranking follows the
        // objective within each group.
        let meeting: Vec<&Value> = offers.iter().filter(|o| o["meets"].as_bool() == Some(true)).collect();
        // So too an offer on a thin memory margin (under a GiB or 3 % of
        // what the GPU leaves) where running short crashes the job: training,
        // generation, llama.cpp or transformers serving, unless batch=max.
        let crashes = !q.contains("batch=max") && (!q.contains("task=serve") || q.contains("engine=llama.cpp") || q.contains("engine=hf"));
        let thin = |o: &Value| {
            let (usable, need) = (o["usable_bytes"].as_f64().unwrap_or(0.0), o["need_bytes"].as_f64().unwrap_or(0.0));
            crashes && usable - need < GIB.max(0.03 * usable)
        };
        let later = |o: &Value| {
            o["stale"].as_bool() == Some(true)
                || thin(o)
                || (o["currency"] == "cny" && a.display.currency != Currency::Cny && o["price_overridden"].as_bool() != Some(true) && !q.contains("provider="))
        };
        let first_later = meeting.iter().position(|o| later(o)).unwrap_or(meeting.len());
        prop_assert!(meeting.iter().skip(first_later).all(|o| later(o)), "{q}: a current offer ranked after a stale or foreign one");
        // On a cost ranking a sturdy offer within a quarter of a fragile
        // cheapest one comes first (`offers::rank`'s sturdiness margin); the
        // rest follows the objective.
        let promoted = cost_objective && rec.alternatives.iter().any(|x| x.why.as_str() == "fragile") && first_later > 0;
        if promoted {
            let first = oriented(meeting[0], rec.objective.as_str()).unwrap_or(f64::MAX);
            let least = meeting[..first_later].iter().filter_map(|o| oriented(o, rec.objective.as_str())).fold(f64::MAX, f64::min);
            prop_assert!(first <= 1.25 * least * (1.0 + 1e-9), "{q}: a sturdy pick {first} beyond a quarter above {least}");
        }
        let skip = usize::from(promoted);
        for group in [&meeting[skip..first_later], &meeting[first_later..]] {
            let keys: Vec<f64> = group.iter().map(|o| oriented(o, rec.objective.as_str()).unwrap_or(f64::MAX)).collect();
            for w in keys.windows(2) {
                let slack = if cost_objective { 1e-9 } else { 0.051 };
                prop_assert!(w[0] <= w[1] + slack * w[1].abs().max(w[0].abs()), "{q}: ranked {} before {} on {}", w[0], w[1], rec.objective.as_str());
            }
        }
        let pick = a.pick().expect("pick");
        let cost = |o: &Value| oriented(o, if cost_objective { rec.objective.as_str() } else { "usd_per_month" });
        let by_id = |id: &str| offers.iter().find(|o| o["id"].as_str() == Some(id)).expect("alternative offer");
        let pick_json = by_id(&pick.id);
        for alt in &rec.alternatives {
            let r = a.offers.iter().find(|o| o.id == alt.offer).expect("alternative");
            prop_assert!(r.meets, "{q}: alternative {} does not meet", r.id);
            // A one-off job is never told to take a year's term.
            prop_assert!(alt.why.as_str() != "committed" || !q.contains("use=once"), "{q}: a term offered for a one-off job ({})", r.id);
            match alt.why.as_str() {
                "single-gpu" => prop_assert!(r.gpus == 1 && r.instances == 1, "{q}: single-gpu {}", r.id),
                "on-demand" => prop_assert!(!r.spot && pick.spot, "{q}: on-demand {}", r.id),
                "fragile" => prop_assert!(r.fragile && !pick.fragile, "{q}: fragile {} named beside a fragile pick", r.id),
                // Off a cost goal the test knows no cost per unit: the code's unit is the task's.
                "committed" if cost_objective => {
                    let m = r.committed_1yr_usd_per_month.expect("a term price");
                    let (Some(c_r), Some(c_p)) = (cost(by_id(&r.id)), cost(pick_json)) else { continue };
                    prop_assert!(c_r * m / r.usd_per_month < c_p, "{q}: committed {} is not cheaper per unit on its term", r.id);
                }
                // Speed as the alternatives compare it: an offline serving
                // job's is the offer's output; a spot offer's counts its restarts.
                "fastest" => {
                    let offline = q.contains("task=serve") && q.contains("per_job=") && (q.contains("use=jobs") || q.contains("use=once"));
                    let restart = q.split('&').find_map(|p| p.strip_prefix("restart=")).and_then(|v| v.parse::<f64>().ok()).unwrap_or(10.0);
                    let speed = |o: &whichgpu::core::answer::OfferResult| {
                        let s = if offline { o.throughput_total } else { o.speed_score };
                        if o.spot {
                            s / (1.0 + restart / 100.0)
                        } else {
                            s
                        }
                    };
                    prop_assert!(speed(r) >= 1.2 * speed(pick), "{q}: fastest {} is not faster", r.id)
                }
                "cheapest" if cost_objective => prop_assert!(cost(by_id(&r.id)) < cost(pick_json), "{q}: cheapest {} is not cheaper", r.id),
                _ => {}
            }
        }
    }
}

#[test]
fn an_always_on_image_endpoint_pays_the_whole_month() {
    let a = eval("task=generate&model=flux.1-dev&use=always&store=0");
    let p = a.pick().expect("pick");
    assert!(
        (p.usd_per_month - p.usd_per_hour * 730.0).abs() < 1e-6 * p.usd_per_month,
        "{} vs {}/h",
        p.usd_per_month,
        p.usd_per_hour
    );
    assert_eq!(a.recommendation.as_ref().map(|r| r.objective.as_str()), Some("usd_per_1000_images"));
    // $ per 1,000 images = the month's bill over the images the month produces.
    let images = p.throughput_total * 730.0;
    assert!((p.usd_per_1000_images.expect("price") - p.usd_per_month / images * 1000.0).abs() < 1e-9);
}

#[test]
fn a_100_clip_video_batch_is_billed_for_its_work() {
    let a = eval("task=generate&model=wan-2.1-14b&use=once&per_job=100&gpu=h100-sxm-80gb&store=0");
    let p = a.pick().expect("pick");
    let hours = p.speeds.job_hours().expect("job hours");
    let clip_s = p.speeds.seconds_per_clip().expect("s/clip");
    // 100 clips over the instance's pipelines, plus start-up (provisioning,
    // the image, the weights' download, the engine's start).
    let work = 100.0 * clip_s / f64::from(p.replicas) / 3600.0;
    let startup_h = p.startup_s.expect("a one-off job's start-up") / 3600.0;
    assert!(startup_h > 0.0 && startup_h < 0.5, "{startup_h} h of start-up");
    assert!(
        (hours - (work + startup_h)).abs() < 1e-9,
        "{hours} h for {work} h of work and {startup_h} h of start-up"
    );
    assert_eq!(a.recommendation.as_ref().map(|r| r.objective.as_str()), Some("usd_per_job"));
    assert!((p.usd_per_clip.expect("per clip") - p.usd_per_job.expect("per job") / 100.0).abs() < 1e-9);
}

#[test]
fn a_five_minute_llm_job_on_hourly_and_per_second_billing() {
    // Paperspace bills by the hour: a 5-minute job costs an hour.
    let a = eval("model=llama-3.1-8b&use=jobs&jobs=1&jobmin=5&provider=paperspace&store=0");
    let p = a.pick().expect("pick");
    assert!(
        (p.usd_per_job.expect("job") - p.usd_per_hour).abs() < 1e-9,
        "hourly: {:?} vs {}",
        p.usd_per_job,
        p.usd_per_hour
    );
    // RunPod bills by the second: 5 minutes cost 5 minutes.
    let a = eval("model=llama-3.1-8b&use=jobs&jobs=1&jobmin=5&provider=runpod&store=0");
    let p = a.pick().expect("pick");
    assert!(
        (p.usd_per_job.expect("job") - p.usd_per_hour * 5.0 / 60.0).abs() < 1e-9,
        "per-second: {:?}",
        p.usd_per_job
    );
}

#[test]
fn a_one_year_committed_endpoint() {
    let a = eval("model=llama-3.1-70b&w=fp8&gpu=h100-nvl-94gb&provider=azure&commit=1yr&store=0");
    let p = a.pick().expect("pick");
    assert_eq!(p.commitment, Commit::Year);
    let offer = catalog().offer(&p.id).expect("offer");
    let term = offer.committed_usd_per_hour(Commit::Year).expect("term price");
    assert!(term < offer.usd_per_hour);
    assert!((p.usd_per_month - term * f64::from(p.instances) * 730.0).abs() < 1e-6 * p.usd_per_month);
    // Without the link's term, the same endpoint names the committed alternative.
    let a = eval("model=llama-3.1-70b&w=fp8&gpu=h100-nvl-94gb&provider=azure&store=0");
    assert!(a.recommendation.expect("rec").alternatives.iter().any(|x| x.why.as_str() == "committed"));
}

#[test]
fn pre_training_keeps_off_spot_and_names_its_committed_term() {
    let a = eval("task=pretrain&model=llama-3.1-8b&tokens=100000000000&spot=1&provider=azure,gcp");
    let p = a.pick().expect("pick");
    assert!(!p.spot, "a long synchronous run is not put on spot");
    assert!(p.reason_msgs.iter().any(|m| m.key == "reason.spot_refused"));
    assert!(p.speeds.job_hours().expect("hours") > 168.0);
}

#[test]
fn a_one_off_job_that_keeps_a_gpu_busy_for_months_is_not_offered_a_term() {
    // 10 M requests: months of one GPU's time, billed once. A year's term
    // would bill twelve months however short the job; the month's price on
    // the term is no measure of this job's bill.
    let a = eval("task=serve&model=llama-3.1-8b&in=2000&out=200&use=once&per_job=10000000");
    assert!(a.offers.iter().any(|o| o.busy_hours_per_month > 730.0), "the job no longer fills a month");
    assert!(a.offers.iter().all(|o| o.committed_1yr_usd_per_month.is_none()));
    let rec = a.recommendation.as_ref().expect("a pick");
    assert!(
        rec.alternatives.iter().all(|p| p.why.as_str() != "committed"),
        "{:?}",
        rec.alternatives.iter().map(|p| (&p.offer, p.why)).collect::<Vec<_>>()
    );
}

/// A one-off job pays storage for its own billed hours, not for a month:
/// a 42-minute serving job's 16 GB of weights do not outweigh its compute.
#[test]
fn a_one_off_job_pays_storage_for_its_hours() {
    let a = eval("model=llama-3.1-8b&use=once&per_job=2000");
    let p = a.pick().expect("a pick");
    let months = p.billed_hours_per_month / 730.0;
    assert!(months < 0.01, "{}", p.billed_hours_per_month);
    assert!(
        p.storage_usd_per_month < 0.05 * p.usd_per_month,
        "storage {} of {}",
        p.storage_usd_per_month,
        p.usd_per_month
    );
    assert!(!a.guidance.iter().any(|g| g.id == "storage"), "the storage note for a 42-minute job");
    // The same work as monthly jobs keeps its disk all month.
    let a = eval("model=llama-3.1-8b&use=jobs&jobs=1&per_job=2000&store=16");
    let p = a.pick().expect("a pick");
    assert!(p.storage_usd_per_month > 0.5, "{}", p.storage_usd_per_month);
}
