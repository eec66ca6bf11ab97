//! The bill and the pick read as a paying user reads them: questions the
//! practitioner's check asked that the scenarios do not (a batch of
//! images, a committed endpoint in yuan, a budget nothing fits, an
//! endpoint busy around the clock), each rule checked over generated
//! configurations where it must always hold.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use whichgpu::core::answer::{Answer, OfferResult};
use whichgpu::core::config::Lang;

use crate::common::answer;

/// Items an offer produces per hour from its own speeds and the pipelines
/// it keeps busy (`replicas`): how soon a batch is done. Independent of the
/// code's `speed_score`.
fn items_per_hour(o: &OfferResult) -> Option<f64> {
    let s = &o.speeds;
    let busy = f64::from(o.replicas.max(1));
    if let Some(rtf) = s.audio_realtime_factor() {
        return Some(rtf * busy);
    }
    s.seconds_per_image().or(s.seconds_per_clip()).filter(|t| *t > 0.0).map(|t| busy * 3600.0 / t)
}

fn alternative<'a>(a: &'a Answer, why: &str) -> Option<&'a OfferResult> {
    let alt = a.recommendation.as_ref()?.alternatives.iter().find(|x| x.why.as_str() == why)?;
    a.offers.iter().find(|o| o.id == alt.offer)
}

fn batch_generation() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec!["sdxl", "flux.1-dev", "wan-2.1-14b", "musicgen-large"]),
        prop::sample::select(vec!["jobs&jobs=4", "once"]),
        prop::sample::select(vec![None, Some(2000u32)]),
        prop::sample::select(vec!["cost", "speed"]),
        prop::sample::select(vec![
            "",
            "&provider=runpod,lambda,aws",
            "&provider=vastai,tensordock,hyperstack,jarvislabs",
        ]),
    )
        .prop_map(|(model, usage, per_job, sort, providers)| {
            let mut q = format!("task=generate&model={model}&use={usage}&sort={sort}{providers}");
            if let Some(n) = per_job {
                q.push_str(&format!("&per_job={n}"));
            }
            q
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// A batch of images, clips or audio is done sooner on more busy
    /// pipelines: the "fastest" alternative produces more per hour than the
    /// pick, and every "× the speed" figure is the ratio of items per hour.
    #[test]
    fn batch_generation_speed_is_what_finishes_the_batch(q in batch_generation()) {
        let a = answer(&q);
        let Some(pick) = a.pick() else { return Ok(()) };
        let Some(p) = items_per_hour(pick) else { return Ok(()) };
        if let Some(f) = alternative(&a, "fastest") {
            let r = items_per_hour(f).expect("speed of the fastest");
            prop_assert!(r >= 1.19 * p, "{q}: fastest {} makes {r:.0} items an hour, the pick {} {p:.0}", f.id, pick.id);
        }
        for alt in &a.recommendation.as_ref().expect("recommendation").alternatives {
            let o = a.offers.iter().find(|o| o.id == alt.offer).expect("offer");
            let Some(m) = alt.reason_msgs.iter().find(|m| m.key == "reason.versus") else { continue };
            let said: f64 = m.render(Lang::En).split('×').next().and_then(|s| s.trim().parse().ok()).expect("a speed ratio");
            let ratio = items_per_hour(o).expect("speed") / p;
            prop_assert!((said - ratio).abs() <= 0.006 + 0.01 * ratio, "{q}: {} said {said}× the speed, makes {ratio:.3}×", o.id);
        }
    }
}

#[test]
fn ten_thousand_sdxl_images_name_a_faster_batch_only_if_it_is_faster() {
    // Eight RTX 4090 pipelines (about 4,500 images an hour) against one H100
    // (about 1,600): the single H100 is not the faster way to 10,000 images.
    let a = answer("task=generate&model=sdxl&use=jobs&jobs=1&per_job=10000");
    let pick = a.pick().expect("pick");
    let p = items_per_hour(pick).expect("pick speed");
    if let Some(f) = alternative(&a, "fastest") {
        assert!(
            items_per_hour(f).expect("speed") > p,
            "fastest {} is slower at the batch than {}",
            f.id,
            pick.id
        );
    }
    // The single-GPU option takes longer over the same batch, and says so.
    if let Some(s) = alternative(&a, "single-gpu") {
        let ratio = items_per_hour(s).expect("speed") / p;
        assert!(pick.replicas > 1 && ratio < 0.9, "single GPU {} at {ratio}× of {}", s.id, pick.id);
    }
}

#[test]
fn an_image_endpoint_still_compares_one_requests_speed() {
    // An endpoint serves one stream of requests: extra pipelines on an
    // instance add nothing to a request, so "× the speed" is per pipeline.
    let a = answer("task=generate&model=flux.1-dev&use=always");
    let pick = a.pick().expect("pick");
    let per = |o: &OfferResult| 1.0 / o.speeds.seconds_per_image().expect("s/image");
    if let Some(f) = alternative(&a, "fastest") {
        assert!(per(f) >= 1.19 * per(pick), "fastest {} is not faster per request", f.id);
    }
}

/// Every amount a reason or a note quotes is in the reader's currency.
#[test]
fn a_committed_term_and_a_budget_are_quoted_in_the_readers_currency() {
    for (q, yuan) in [
        ("model=llama-3.1-8b&use=always&provider=runpod,tensordock,lambda&cur=cny", true),
        ("model=llama-3.1-8b&use=always&provider=runpod,tensordock,lambda&lang=zh", true),
        ("model=llama-3.1-8b&use=always&provider=runpod,tensordock,lambda", false),
    ] {
        let a = answer(q);
        let rec = a.recommendation.as_ref().expect("recommendation");
        let alt =
            rec.alternatives.iter().find(|x| x.why.as_str() == "committed").expect("a committed alternative");
        let term = alt.reason_msgs.iter().find(|m| m.key == "reason.committed").expect("the term's reason");
        let o = a.offers.iter().find(|o| o.id == alt.offer).expect("offer");
        let month = o.committed_1yr_usd_per_month.expect("term price");
        for lang in [Lang::En, Lang::Zh] {
            let text = term.render(lang);
            if yuan {
                assert!(text.contains(&a.display.format(month)) && !text.contains('$'), "{q}: {text}");
                assert!(text.contains('¥'), "{q}: {text}");
            } else {
                assert!(text.contains(&format!("${month:.0}")), "{q}: {text}");
            }
        }
    }
    // A budget nothing fits: the budget (`maxusd`, dollars) and the
    // cheapest month, in yuan beside dollars for a reader of yuan.
    let a = answer("model=llama-3.1-70b&maxusd=50&cur=cny");
    let g = a.guidance.iter().find(|g| g.id == "nomeet").expect("the budget note");
    let cheapest = a.offers.iter().filter(|o| o.fits).map(|o| o.usd_per_month).fold(f64::MAX, f64::min);
    for lang in [Lang::En, Lang::Zh] {
        let text = g.msg.render(lang);
        assert!(text.contains("$50.00") && text.contains(&a.display.format(50.0)), "{text}");
        assert!(text.contains(&a.display.format(cheapest)), "{text}");
    }
}

#[test]
fn an_endpoint_busy_around_the_clock_has_no_cold_starts_to_count() {
    // use=hours&hpd=24 is billed as always on (730 h, no start from zero):
    // the serverless note says so rather than "0 × a cold start".
    let a = answer("model=llama-3.1-8b&use=hours&hpd=24");
    let g = a.guidance.iter().find(|g| g.id == "serverless").expect("serverless note");
    assert_eq!(g.msg.key, "g.serverless.always", "{}", g.msg.render(Lang::En));
    for o in a.offers.iter().filter(|o| o.serverless) {
        assert_eq!(o.cold_starts_per_month, 0.0, "{}", o.id);
    }
}

/// The report's offers table shows the cost per unit the offers are ranked
/// on (per 1,000 images for an image model, not a "-" per million tokens)
/// and names on each row what its month leaves out.
#[test]
fn the_report_table_shows_the_ranked_unit_and_what_each_month_leaves_out() {
    use whichgpu::core::report;
    let a = answer("task=generate&model=flux.1-dev&use=always");
    let text = report::text(&a);
    let pick = a.pick().expect("pick");
    let row =
        text.lines().find(|l| l.trim_start().starts_with(&format!("{} ", pick.id))).expect("the pick's row");
    let per_1000 = pick.usd_per_1000_images.expect("cost per 1000 images");
    assert!(row.contains(&format!("{per_1000:.3} $/1k img")), "{row}");
    // Every listed offer with an unpublished part says so on its row, in
    // either language.
    for q in ["model=llama-3.1-8b&store=500&egress=2000", "model=llama-3.1-8b&store=500&egress=2000&lang=zh"]
    {
        let a = answer(q);
        let zh = q.contains("lang=zh");
        let text = report::text_in(&a, if zh { Lang::Zh } else { Lang::En });
        let table = text.split("Top offers").nth(1).expect("offers table");
        let mut named = 0;
        for o in a.offers.iter().take(10) {
            let row = table.lines().find(|l| l.trim_start().starts_with(&format!("{} ", o.id))).expect("row");
            for part in &o.unknown_costs {
                let words = match (part.as_str(), zh) {
                    ("storage", false) => "storage: not published",
                    ("egress", false) => "egress: not published",
                    ("billing_increment", false) => "billing increment: not published",
                    ("host", false) => "host CPU/RAM: billed separately",
                    ("storage", true) => "存储：未公布",
                    ("egress", true) => "出网流量：未公布",
                    ("billing_increment", true) => "计费粒度：未公布",
                    ("host", true) => "主机 CPU/内存：另行计费",
                    (p, _) => panic!("unexpected part {p}"),
                };
                assert!(row.contains(words), "{q}: {row} lacks {words}");
                named += 1;
            }
        }
        assert!(named > 0, "{q}: no offer in the table leaves anything out");
    }
}

/// The parts a cheapest alternative leaves out are named in the reader's
/// language, not as the JSON's ids.
#[test]
fn left_out_parts_are_named_in_the_page_language() {
    use whichgpu::core::config::Lang;
    let a = crate::common::answer("model=llama-3.1-8b&lang=zh");
    let rec = a.recommendation.as_ref().expect("a recommendation");
    let reasons: Vec<String> = rec
        .alternatives
        .iter()
        .flat_map(|p| p.reason_msgs.iter().filter(|m| m.key == "reason.leaves_out"))
        .map(|m| m.render(Lang::Zh))
        .collect();
    assert!(!reasons.is_empty(), "no leaves-out reason to check");
    for r in &reasons {
        assert!(!r.contains("storage") && !r.contains("billing_increment") && !r.contains("host"), "{r}");
    }
    let en: Vec<String> = rec
        .alternatives
        .iter()
        .flat_map(|p| p.reason_msgs.iter().filter(|m| m.key == "reason.leaves_out"))
        .map(|m| m.render(Lang::En))
        .collect();
    assert!(en.iter().all(|r| !r.contains("billing_increment")), "{en:?}");
}
