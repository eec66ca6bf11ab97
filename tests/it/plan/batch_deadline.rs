//! A deadline (`days`) for batch work of a stated size (`use=jobs`/`once`
//! with `per_job`, serving and generation): an offer meets it by renting
//! more of the same instances, each doing a share of the job.

use proptest::prelude::*;

use crate::common::answer;

#[test]
fn two_hundred_clips_in_two_days_rent_several_instances() {
    // Wan 2.1 14B at 720p takes about half an hour a clip on one GPU: 200
    // clips are four days on one instance.
    let slow = answer("task=generate&model=wan-2.1-14b&use=once&per_job=200");
    let pick = slow.pick().expect("a pick");
    assert!(pick.speeds.job_hours().expect("hours") > 48.0, "{} finishes in two days alone", pick.id);
    let a = answer("task=generate&model=wan-2.1-14b&use=once&per_job=200&days=2");
    let pick = a.pick().expect("a pick meets the deadline");
    let h = pick.speeds.job_hours().expect("hours");
    assert!(pick.meets && h <= 48.0, "{}: {h} h", pick.id);
    assert!(pick.instances > 1, "{} on {} instance(s)", pick.id, pick.instances);
    assert!(pick.layout_msg.key == "layout.instances", "{:?}", pick.layout_msg);
    assert!(a.notices.iter().all(|n| n.key != "days"), "{:?}", a.notices);
    // The launch asks for that many nodes, each doing its share.
    let ex = whichgpu::core::export::for_answer(&a, crate::common::catalog());
    let yaml = &ex.first().expect("the pick's export").skypilot_yaml;
    assert!(yaml.contains(&format!("num_nodes: {}", pick.instances)), "{yaml}");
    assert!(yaml.contains("$SKYPILOT_NODE_RANK takes the items") && !yaml.contains("HEAD_IP"), "{yaml}");
}

#[test]
fn a_job_that_64_instances_cannot_end_in_time_is_late_on_every_offer() {
    // 100 million requests in 15 minutes.
    let a = answer("model=llama-3.1-8b&use=once&per_job=100000000&days=0.01");
    assert!(a.offers.iter().all(|o| !o.meets), "an offer meets 14 minutes");
    assert!(a.notices.iter().any(|n| n.key == "days"), "{:?}", a.notices);
    let late = a.offers.iter().find(|o| o.fits).expect("an offer fits");
    assert!(late.reason_msgs.iter().any(|m| m.key == "reason.late"), "{}: {:?}", late.id, late.reason_msgs);
    // Each is planned on its most instances, the closest it gets.
    assert!(
        a.offers.iter().filter(|o| o.fits).all(|o| o.instances >= 64),
        "an offer was not spread to its most"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Every offer that meets the deadline ends within it (on spot with
    /// its restarts); spreading a job never makes it cheaper than one set
    /// of instances doing it all; and an offer is spread only where one
    /// set of instances would be late.
    #[test]
    fn spread_jobs_end_in_time_and_never_cost_less(
        job in prop::sample::select(vec![
            "task=generate&model=sdxl&per_job=20000",
            "task=generate&model=flux.1-dev&per_job=5000",
            "task=generate&model=wan-2.1-1.3b&per_job=300",
            "task=generate&model=musicgen-medium&per_job=36000",
            "model=llama-3.1-8b&per_job=500000",
            "model=qwen2.5-32b&w=int4-awq&per_job=200000",
        ]),
        usage in prop::sample::select(vec!["use=once", "use=jobs&jobs=5"]),
        days in prop::sample::select(vec![0.05, 0.25, 1.0, 3.0]),
        spot in any::<bool>(),
    ) {
        let base = format!("{job}&{usage}&spot={}&restart=20", u8::from(spot));
        let free = answer(&base);
        let q = format!("{base}&days={days}");
        let a = answer(&q);
        for o in a.offers.iter().filter(|o| o.fits) {
            let h = o.speeds.job_hours().unwrap_or(f64::MAX);
            let stretch = if o.spot { 1.2 } else { 1.0 };
            if o.meets {
                prop_assert!(h * stretch <= days * 24.0 * (1.0 + 1e-9), "{q}: {} meets in {h} h × {stretch}", o.id);
            }
            let alone = free.offers.iter().find(|f| f.id == o.id).expect("the same offer without a deadline");
            if o.instances > alone.instances {
                let h1 = alone.speeds.job_hours().unwrap_or(0.0);
                prop_assert!(h1 * stretch > days * 24.0, "{q}: {} spread though {h1} h alone is in time", o.id);
                if let (Some(spread), Some(one)) = (o.usd_per_job, alone.usd_per_job) {
                    prop_assert!(spread >= one * (1.0 - 1e-9), "{q}: {} costs {spread} spread, {one} alone", o.id);
                }
            } else {
                prop_assert_eq!(o.usd_per_job, alone.usd_per_job, "{}: {}", q, o.id);
            }
        }
    }
}

/// The page asks for the deadline where it applies: beside the size of a
/// job; and a single job is not asked how many jobs a month it runs.
#[test]
fn the_form_shows_days_beside_a_jobs_size() {
    use whichgpu::core::form::{self, FormKind};
    use whichgpu::core::link;
    for (q, kind) in
        [("task=generate&model=sdxl", FormKind::Generate), ("model=llama-3.1-8b", FormKind::Serve)]
    {
        let shows = |extra: &str, key: &str| form::shows(&link::decode(&format!("{q}&{extra}")).0, kind, key);
        assert!(shows("use=once&per_job=100", "days"), "{q}: no deadline beside per_job");
        assert!(!shows("use=once", "days"), "{q}: a deadline for a job of no size");
        assert!(!shows("use=always", "days"), "{q}: a deadline for an endpoint");
        assert!(!shows("use=once&per_job=100", "jobs"), "{q}: jobs a month for one job");
        assert!(shows("use=jobs&per_job=100", "jobs"), "{q}: no jobs a month");
        // Minutes per job only where nothing else times the job.
        assert!(
            shows("use=jobs", "jobmin") && !shows("use=jobs&per_job=100", "jobmin"),
            "{q}: jobmin beside per_job"
        );
    }
    // A language model's training run is timed by its plan.
    let train = link::decode("task=finetune&model=llama-3.1-8b&use=jobs").0;
    assert!(!form::shows(&train, FormKind::Train, "jobmin") && form::shows(&train, FormKind::Train, "jobs"));
}
