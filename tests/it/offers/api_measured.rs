//! Issue 46: the hosted API prices (`static/api_prices.csv`) and the
//! `api` comparison of every serving answer whose model has one; your own
//! measurement (`measured`, `measured_ttft`) through the link, the form,
//! the rescaled speeds and bills, and the notices for a bad value.

use std::collections::BTreeSet;

use crate::common::{answer, catalog};
use whichgpu::core::catalog::api_prices::{bundled, parse_api_prices};
use whichgpu::core::config::Config;
use whichgpu::core::form::{self, FormKind};
use whichgpu::core::link;

const TABLE: &str = include_str!("../../../static/api_prices.csv");

#[test]
fn the_table_parses_and_covers_twenty_catalog_models_from_three_hosts() {
    let rows = parse_api_prices(TABLE, &catalog().models).expect("api_prices.csv parses against models.csv");
    assert_eq!(rows.len(), bundled(&catalog().models).len(), "the bundled table is the file");
    for r in &rows {
        assert!(r.source.len() > 20, "{} on {}: a source", r.model, r.host);
        assert!(r.usd_per_million_input > 0.0 && r.usd_per_million_output > 0.0);
    }
    let live: Vec<_> = rows.iter().filter(|r| !r.stale).collect();
    let models: BTreeSet<&str> = live.iter().map(|r| r.model.as_str()).collect();
    // A host is its name without the tier in parentheses.
    let hosts: BTreeSet<&str> = live.iter().map(|r| r.host.split(" (").next().unwrap_or(&r.host)).collect();
    assert!(models.len() >= 20, "{} catalog models priced: {models:?}", models.len());
    assert!(hosts.len() >= 3, "hosts: {hosts:?}");
}

#[test]
fn every_serving_answer_whose_model_has_a_price_compares_the_cheapest_host() {
    let rows = bundled(&catalog().models);
    let priced: BTreeSet<&str> = rows.iter().filter(|r| !r.stale).map(|r| r.model.as_str()).collect();
    let mut compared = 0;
    for m in &catalog().models {
        for q in [
            format!("model={}", m.id),
            format!("model={}&rps=3&in=1500&out=300", m.id),
            format!("model={}&use=hours&hpd=6", m.id),
        ] {
            let a = answer(&q);
            let fits = a.pick().is_some_and(|o| o.fits);
            let Some(api) = &a.api else {
                assert!(
                    !fits || !priced.contains(m.id.as_str()),
                    "{q}: a priced model whose pick fits has no `api`"
                );
                continue;
            };
            compared += 1;
            assert!(priced.contains(m.id.as_str()), "{q}: `api` for a model without a price");
            let pick = a.pick().expect("a pick");
            let (input, output) = (
                a.request_tokens.expect("serving") as f64 - f64::from(a.settings.output_tokens),
                f64::from(a.settings.output_tokens),
            );
            let per = |i: f64, o: f64| (input * i + output * o) / 1e6;
            // The cheapest host for this request, of the rows not stale.
            let cheapest = rows
                .iter()
                .filter(|r| r.model == m.id && !r.stale)
                .map(|r| per(r.usd_per_million_input, r.usd_per_million_output))
                .fold(f64::MAX, f64::min);
            let mine = per(api.usd_per_million_input, api.usd_per_million_output);
            assert!((mine - cheapest).abs() <= 1e-12, "{q}: {} is not the cheapest", api.host);
            assert!(!api.source.is_empty() && api.as_of.to_string().len() == 10, "{q}: source and date");
            assert!(
                (api.usd_per_month - api.requests_per_month * mine).abs()
                    <= 1e-6 * api.usd_per_month.max(1.0),
                "{q}: the API's month"
            );
            assert!((api.pick_usd_per_month - pick.usd_per_month).abs() < 1e-9);
            let b = api.breakeven_requests_per_s.expect("an endpoint has a breakeven");
            // At the breakeven rate the API's month is the pick's.
            let busy_s = pick.busy_hours_per_month * 3600.0;
            assert!(
                (b * busy_s * mine - pick.usd_per_month).abs() <= 1e-6 * pick.usd_per_month,
                "{q}: breakeven"
            );
            // Which side of it the stated load is on says which is cheaper.
            assert_eq!(api.requests_per_s > b, api.usd_per_month > pick.usd_per_month, "{q}");
            if q.contains("rps=3") {
                assert!((api.requests_per_s - 3.0).abs() < 1e-6, "{q}: the link's rate is the load compared");
            }
            let g = a.guidance.iter().find(|g| g.id == "api").expect("the guidance answers it");
            assert!(g.text().contains(&api.host), "{q}: {}", g.text());
        }
    }
    assert!(compared >= 40, "only {compared} answers compared");
    // A model with no price, and another task: no comparison.
    assert!(answer("model=gpt-2-124m").api.is_none());
    assert!(answer("task=finetune&model=llama-3.1-8b").api.is_none());
    // A batch job of a stated size compares the job, with no breakeven rate.
    let a = answer("model=llama-3.1-8b&use=jobs&per_job=100000&jobs=4");
    let api = a.api.expect("a priced model");
    assert_eq!(api.breakeven_requests_per_s, None);
    assert!((api.requests_per_month - 400_000.0).abs() < 1e-6);
}

#[test]
fn measured_round_trips_through_the_link_and_the_form() {
    let q = "model=llama-3.1-8b&gpu=a100-pcie-40gb&measured=42.5&measured_ttft=0.35";
    let (cfg, notices) = link::decode(q);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!((cfg.measured, cfg.measured_ttft), (Some(42.5), Some(0.35)));
    let again = link::decode(&link::encode(&cfg)).0;
    assert_eq!((again.measured, again.measured_ttft), (Some(42.5), Some(0.35)));
    // The answer's own link keeps them.
    assert!(answer(q).query.contains("measured=42.5") && answer(q).query.contains("measured_ttft=0.35"));
    // The page's form: an input on a serving form, set and cleared as the page does.
    let serve = Config::default();
    assert!(
        form::shows(&serve, FormKind::Serve, "measured")
            && form::shows(&serve, FormKind::Serve, "measured_ttft")
    );
    let set = link::set(&serve, "measured", "12").expect("the form sets it");
    assert_eq!(set.measured, Some(12.0));
    assert_eq!(link::plain_text(&set, "measured").as_deref(), Some("12"));
    let key = link::find("measured").expect("a registry entry");
    let mut cleared = set.clone();
    (key.clear.expect("clearable"))(&mut cleared);
    assert_eq!(cleared.measured, None);
}

#[test]
fn the_measurement_rescales_that_gpu_types_speeds_and_bills() {
    let base = "model=llama-3.1-8b&gpu=a100-pcie-40gb";
    let before = answer(base);
    let pick = before.pick().expect("a pick on the A100").clone();
    let est = pick.speeds.decode_tokens_per_s_per_seq().expect("a decode speed");
    let est_ttft = pick.speeds.time_to_first_token_s().expect("a first-token time");
    // Half the estimated decode speed, twice its first-token time.
    let after = answer(&format!("{base}&measured={}&measured_ttft={}", est / 2.0, est_ttft * 2.0));
    let m = after.measured.as_ref().expect("the comparison");
    assert!((m.decode_factor - 0.5).abs() < 1e-9 && (m.ttft_factor - 2.0).abs() < 1e-9, "{m:?}");
    assert_eq!(m.estimate_decode_tokens_per_s_per_seq, Some(est));
    let p = after.pick().expect("a pick");
    assert_eq!(p.id, pick.id);
    let now = p.speeds.decode_tokens_per_s_per_seq().expect("speed");
    assert!(
        (now / (est / 2.0) - 1.0).abs() < 0.02,
        "the pick runs at the measurement: {now} vs {}",
        est / 2.0
    );
    let ttft = p.speeds.time_to_first_token_s().expect("ttft");
    assert!((ttft / (est_ttft * 2.0) - 1.0).abs() < 0.02, "{ttft} vs {}", est_ttft * 2.0);
    // The endpoint's month is the same hours; each token costs about twice as much.
    let per = |o: &whichgpu::core::answer::OfferResult| o.usd_per_million_output_tokens.expect("priced");
    let ratio = per(p) / per(&pick);
    assert!((1.8..=2.2).contains(&ratio), "$ per million tokens ×{ratio}");
    // A batch job of a stated size takes longer, and bills it (its prompts'
    // prefill, which `measured` leaves as estimated, is much of its time).
    let job = "model=llama-3.1-8b&gpu=a100-pcie-40gb&use=jobs&per_job=20000&jobs=10";
    let (j0, j1) = (answer(job), answer(&format!("{job}&measured={}", est / 2.0)));
    let cost =
        |a: &whichgpu::core::answer::Answer| a.pick().and_then(|o| o.usd_per_job).expect("a job's bill");
    assert!(cost(&j1) > 1.05 * cost(&j0), "{} vs {}", cost(&j1), cost(&j0));
    // A request rate needs more copies when each is slower.
    let rate = "model=llama-3.1-8b&gpu=a100-pcie-40gb&rps=3";
    let r0 = answer(rate);
    let est_r = r0.pick().and_then(|o| o.speeds.decode_tokens_per_s_per_seq()).expect("speed");
    let r1 = answer(&format!("{rate}&measured={}", est_r / 4.0));
    let month = |a: &whichgpu::core::answer::Answer| a.pick().map(|o| o.usd_per_month).expect("a month");
    assert!(month(&r1) > month(&r0), "{} vs {}", month(&r1), month(&r0));
    // Other GPU types are left as estimated.
    let other = answer("model=llama-3.1-8b&gpu=h100-sxm-80gb");
    let same = answer(&format!(
        "model=llama-3.1-8b&gpu=h100-sxm-80gb&measured={}",
        other.pick().and_then(|o| o.speeds.decode_tokens_per_s_per_seq()).expect("speed")
    ));
    assert_eq!(
        other.pick().map(|o| o.usd_per_million_output_tokens),
        same.pick().map(|o| o.usd_per_million_output_tokens)
    );
    // And the answer says it, naming the key.
    assert!(
        after
            .notices
            .iter()
            .any(|n| n.key == "measured" && n.text(whichgpu::core::config::Lang::En).contains("×0.50")),
        "{:?}",
        after.notices
    );
}

#[test]
fn a_bad_measurement_gets_a_notice_naming_its_key() {
    for (q, key) in [
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured=0", "measured"),
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured=-5", "measured"),
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured=fast", "measured"),
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured=1e9", "measured"),
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured_ttft=0", "measured_ttft"),
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured_ttft=x", "measured_ttft"),
        // Absurd against the estimate: a total over every user given per user.
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured=5000", "measured"),
        ("model=llama-3.1-8b&gpu=a100-pcie-40gb&measured_ttft=3000", "measured_ttft"),
        // No GPU pinned, or another task.
        ("model=llama-3.1-8b&measured=40", "measured"),
        ("model=llama-3.1-8b&measured_ttft=0.2", "measured_ttft"),
        ("task=finetune&gpu=a100-pcie-40gb&measured=40", "measured"),
    ] {
        let a = answer(q);
        assert!(a.notices.iter().any(|n| n.key == key), "{q}: {:?}", a.notices);
        // Nothing is rescaled by a value ignored.
        assert!(a.measured.as_ref().is_none_or(|m| m.decode_factor == 1.0 && m.ttft_factor == 1.0), "{q}");
    }
}
