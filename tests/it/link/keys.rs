//! The keys added for load, SLAs, terms and jobs: each round-trips through
//! a link and changes the answer as documented.

use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::config::Commit;
use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::link::{decode, encode};

#[test]
fn new_keys_round_trip() {
    let (c, n) = decode("rps=2.5&maxttft=0.8&commit=1yr&per_job=500");
    assert!(n.is_empty(), "{n:?}");
    assert_eq!((c.rps, c.maxttft, c.commit, c.per_job), (Some(2.5), Some(0.8), Commit::Year, Some(500.0)));
    let q = encode(&c);
    for part in ["rps=2.5", "maxttft=0.8", "commit=1yr", "per_job=500"] {
        assert!(q.contains(part), "{q}");
    }
    assert_eq!(decode(&q).0, c);
    for bad in ["rps=-1", "maxttft=0", "commit=2yr", "per_job=x"] {
        assert_eq!(decode(bad).1.len(), 1, "{bad}");
    }
}

#[test]
fn a_request_rate_sets_the_concurrency_and_a_ttft_limit_enters_meets() {
    let catalog = Catalog::bundled().expect("catalog");
    let today = Date::parse("2026-12-01").expect("date");
    // Little's law: 5 requests/s of ~10 s each keep about 50 in flight.
    let a = evaluate_query("model=llama-3.1-8b&rps=5&gpu=h100-sxm-80gb&gpus=1", catalog, today);
    let r = a.results.first().expect("result");
    let latency = r.speeds.request_latency_s().expect("latency");
    assert!((r.batch - (5.0 * latency).ceil()).abs() <= 1.0, "batch {} vs 5 × {latency}", r.batch);
    // An explicit batch wins over the rate.
    let a = evaluate_query("model=llama-3.1-8b&rps=5&batch=3&gpu=h100-sxm-80gb&gpus=1", catalog, today);
    assert_eq!(a.results.first().map(|r| r.batch), Some(3.0));
    // A first-token limit no long prompt can meet leaves no offer meeting it.
    let a = evaluate_query("model=llama-3.1-70b&in=100000&maxttft=0.05", catalog, today);
    assert!(a.offers.iter().all(|o| !o.meets), "every offer misses a 50 ms first token on a 100k prompt");
    assert!(a.offers.iter().any(|o| o.reason_msgs.iter().any(|m| m.key == "reason.ttft")));
}

/// "Is this batch work?" and "is this a job of stated work?" are decided in
/// one place each (`Config::batch_usage`, `Config::offline_job`), for every
/// usage, task and `per_job`.
#[test]
fn batch_work_is_decided_once() {
    for task in ["serve", "generate", "finetune", "pretrain"] {
        for usage in ["", "always", "hours", "jobs", "once"] {
            for per_job in ["", "1000"] {
                let q = format!(
                    "task={task}{}{}",
                    if usage.is_empty() { String::new() } else { format!("&use={usage}") },
                    if per_job.is_empty() { String::new() } else { format!("&per_job={per_job}") }
                );
                let c = decode(&q).0;
                let batch = matches!(
                    c.usage(),
                    whichgpu::core::config::Usage::Jobs | whichgpu::core::config::Usage::Once
                );
                assert_eq!(c.batch_usage(), batch, "{q}");
                assert_eq!(c.offline_job(), batch && c.per_job.is_some(), "{q}");
                // Training is one run unless the link says otherwise.
                if usage.is_empty() && matches!(task, "finetune" | "pretrain") {
                    assert!(c.batch_usage(), "{q}");
                }
            }
        }
    }
}
