//! The share-link codec: defaults, notices, round trips, and that no input
//! can make it panic.

use crate::common;
use proptest::prelude::*;
use whichgpu::core::config::{Batch, Config, Task};
use whichgpu::core::link::{decode, encode, plain_text, set, KEYS};

fn check(query: &str, expect_notice_keys: &[&str]) -> Config {
    let (cfg, notices) = decode(query);
    let keys: Vec<&str> = notices.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(keys, expect_notice_keys, "notices for {query}: {notices:?}");
    cfg
}

#[test]
fn the_design_example_decodes() {
    let c = check("?v=1&task=serve&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16", &[]);
    assert_eq!(c.model_id(), "llama-3.1-70b");
    assert_eq!(c.w.as_deref(), Some("fp8"));
    assert_eq!((c.input_tokens, c.output_tokens, c.batch()), (2000, 500, Batch::N(16)));
}

#[test]
fn bad_values_fall_back_for_that_key_only() {
    let c = check(
        "model=qwen2.5-7b&in=-5&out=abc&batch=0&w=fp9&kv=fp8&frobnicate=1",
        &["in", "out", "batch", "w", "frobnicate"],
    );
    let d = Config::default();
    assert_eq!(c.model_id(), "qwen2.5-7b");
    assert_eq!(c.kv, "fp8");
    assert_eq!(
        (c.input_tokens, c.output_tokens, c.batch, c.w.clone()),
        (d.input_tokens, d.output_tokens, d.batch, None)
    );
    let (_, n) = decode("in=1000000000000");
    assert!(n[0].message.contains("1000000000000"), "{}", n[0].message);
    let (_, n) = decode("in=NaN&params=inf");
    assert_eq!(n.len(), 2);
}

#[test]
fn unknown_version_is_a_notice() {
    check("v=7&model=phi-4", &["v"]);
}

#[test]
fn encode_writes_version_and_only_changed_keys() {
    assert_eq!(encode(&Config::default()), "v=1");
    let (c, _) =
        decode("batch=max&task=finetune&method=qlora&price=runpod-h100:2.5,aws-p5.48xlarge:50&lang=zh");
    let e = encode(&c);
    assert_eq!(
        e,
        "v=1&task=finetune&batch=max&method=qlora&price=runpod-h100:2.5,aws-p5.48xlarge:50&lang=zh"
    );
}

#[test]
fn names_are_escaped_in_links() {
    let (c, n) = decode("region=%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    assert!(n.is_empty());
    assert_eq!(c.region.as_deref(), Some("<script>alert(1)</script>"));
    assert!(!encode(&c).contains('<'));
    assert_eq!(decode(&encode(&c)).0, c);
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9.,:x-]{0,12}",
        any::<i64>().prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| v.to_string()),
        Just("max".to_string()),
        Just("%".to_string()),
        Just("%zz%".to_string()),
        ".{0,20}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn decoding_never_panics_on_bytes(s in ".{0,200}") {
        let _ = decode(&s);
    }

    #[test]
    fn valid_keys_with_hostile_values_round_trip(pairs in proptest::collection::vec((0usize..KEYS.len(), value()), 0..12)) {
        let q: Vec<String> = pairs.iter().map(|(k, v)| format!("{}={}", KEYS[*k], v)).collect();
        let (cfg, notices) = decode(&q.join("&"));
        for n in &notices {
            prop_assert!(!n.key.is_empty() && !n.message.is_empty());
        }
        // Whatever was accepted survives a round trip through the link.
        let again = decode(&encode(&cfg));
        prop_assert_eq!(&again.0, &cfg);
        prop_assert!(again.1.is_empty(), "{:?}", again.1);
    }

    /// The page's configurations are made by `set` (an input's key and
    /// value, or an empty value clearing an optional field) on a decoded
    /// one: they too come back equal (the derived comparison) from their
    /// link, which is what lets the page's Wasm compare configurations by
    /// `encode` (`link`'s `impl PartialEq for Config`).
    #[test]
    fn configurations_the_page_sets_round_trip(start in proptest::collection::vec((0usize..KEYS.len(), value()), 0..6), edits in proptest::collection::vec((0usize..KEYS.len(), prop_oneof![value(), Just(String::new())]), 1..8)) {
        let q: Vec<String> = start.iter().map(|(k, v)| format!("{}={}", KEYS[*k], v)).collect();
        let mut cfg = decode(&q.join("&")).0;
        for (k, v) in &edits {
            if let Ok(next) = set(&cfg, KEYS[*k], v) {
                cfg = next;
            }
            prop_assert_eq!(&decode(&encode(&cfg)).0, &cfg, "after {}={:?}", KEYS[*k], v);
        }
    }
}

#[test]
fn task_names() {
    assert_eq!(check("task=pretrain", &[]).task, Task::Pretrain);
    check("task=train", &["task"]);
}

#[test]
fn clearing_an_optional_field_returns_it_to_the_default_and_a_required_one_is_refused() {
    use whichgpu::core::link::set;
    let (cfg, _) = decode("task=generate&model=musicgen-large&seconds=30&steps=20");
    assert_eq!(cfg.seconds, Some(30.0));
    let cleared = set(&cfg, "seconds", " ").expect("blank clears");
    assert_eq!(cleared.seconds, None);
    assert_eq!(set(&cfg, "steps", "").expect("blank clears").steps, None);
    let n = set(&cfg, "in", "").expect_err("input tokens are required");
    assert_eq!(n.key, "in");
}

#[test]
fn an_explicit_resolution_equal_to_the_old_default_is_kept() {
    let (cfg, notices) = decode("task=generate&model=wan-2.1-14b&res=1024x1024");
    assert!(notices.is_empty());
    assert_eq!(cfg.res, Some((1024, 1024)));
    assert!(encode(&cfg).contains("res=1024x1024"));
    assert_eq!(decode("task=generate&model=wan-2.1-14b").0.res, None);
}

/// Every name of every enum table parses back to its value, is what serde
/// writes, and round-trips through a link under its key.
#[test]
fn name_tables_round_trip() {
    use whichgpu::core::config::{Checkpointing, Engine, Lang, Method, Optim, Sort, Targets, Theme, Usage};
    fn walk<T: Copy + PartialEq + std::fmt::Debug + serde::Serialize>(
        key: &str,
        names: &[(&str, T)],
        parse: fn(&str) -> Option<T>,
        as_str: fn(T) -> &'static str,
        get: fn(&Config) -> T,
    ) {
        assert!(!names.is_empty());
        for &(name, value) in names {
            assert_eq!(parse(name), Some(value), "{key}={name}");
            assert_eq!(as_str(value), name);
            assert_eq!(serde_json::to_string(&value).expect("json"), format!("\"{name}\""));
            let (cfg, notices) = decode(&format!("{key}={name}"));
            assert!(notices.is_empty(), "{key}={name}: {notices:?}");
            assert_eq!(get(&cfg), value, "{key}={name}");
            let (again, _) = decode(&encode(&cfg));
            assert_eq!(get(&again), value, "{key}={name} after a round trip");
        }
    }
    walk("task", Task::NAMES, Task::parse, Task::as_str, |c| c.task);
    walk("engine", Engine::NAMES, Engine::parse, Engine::as_str, |c| c.engine);
    walk("method", Method::NAMES, Method::parse, Method::as_str, |c| c.method);
    walk("targets", Targets::NAMES, Targets::parse, Targets::as_str, |c| c.targets);
    walk("optim", Optim::NAMES, Optim::parse, Optim::as_str, |c| c.optim);
    walk("gc", Checkpointing::NAMES, Checkpointing::parse, Checkpointing::as_str, |c| c.gc);
    walk("use", Usage::NAMES, Usage::parse, Usage::as_str, |c| c.usage());
    walk("sort", Sort::NAMES, Sort::parse, Sort::as_str, |c| c.sort);
    walk("lang", Lang::NAMES, Lang::parse, Lang::as_str, |c| c.lang.unwrap_or(Lang::En));
    walk("theme", Theme::NAMES, Theme::parse, Theme::as_str, |c| c.theme);
    walk(
        "cur",
        whichgpu::core::config::Currency::NAMES,
        whichgpu::core::config::Currency::parse,
        whichgpu::core::config::Currency::as_str,
        |c| c.display_currency(),
    );
    walk(
        "commit",
        whichgpu::core::config::Commit::NAMES,
        whichgpu::core::config::Commit::parse,
        whichgpu::core::config::Commit::as_str,
        |c| c.commit,
    );
}

#[test]
fn commit_round_trips_and_rejects_unknown_terms() {
    use whichgpu::core::config::Commit;
    for (q, want) in [
        ("commit=1mo", Commit::Month),
        ("commit=1yr", Commit::Year),
        ("commit=3yr", Commit::ThreeYears),
        ("commit=none", Commit::None),
    ] {
        let (cfg, notices) = decode(q);
        assert!(notices.is_empty(), "{q}: {notices:?}");
        assert_eq!(cfg.commit, want);
        let link = encode(&cfg);
        assert_eq!(link.contains("commit="), want != Commit::None, "{link}");
        assert_eq!(decode(&link).0.commit, want, "{link}");
    }
    let (cfg, notices) = decode("commit=2yr");
    assert_eq!(cfg.commit, Commit::None);
    assert!(notices.iter().any(|n| n.key == "commit" && n.message.contains("1yr")), "{notices:?}");
}

#[test]
fn per_job_round_trips_and_clears() {
    use whichgpu::core::link::set;
    let (cfg, notices) = decode("task=generate&model=flux.1-dev&use=jobs&per_job=250");
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(cfg.per_job, Some(250.0));
    let link = encode(&cfg);
    assert!(link.contains("per_job=250"), "{link}");
    assert_eq!(decode(&link).0.per_job, Some(250.0));
    assert_eq!(decode(&encode(&decode("use=once&per_job=0.5").0)).0.per_job, Some(0.5));
    assert_eq!(set(&cfg, "per_job", "").expect("blank clears").per_job, None);
    let (bad, notices) = decode("per_job=-3");
    assert_eq!(bad.per_job, None);
    assert!(notices.iter().any(|n| n.key == "per_job"), "{notices:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// What the page's text inputs show for a plain key is what a link
    /// writes for it (the link leaves out a default), and nothing for a key
    /// that is not a plain number, whole number or flag.
    #[test]
    fn plain_text_is_the_links_value(pairs in proptest::collection::vec((0usize..KEYS.len(), value()), 0..12)) {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{}={}", KEYS[*k], v)).collect();
        let (cfg, _) = decode(&query.join("&"));
        let link = encode(&cfg);
        let written: Vec<(&str, &str)> = link.split('&').filter_map(|p| p.split_once('=')).collect();
        for key in KEYS {
            if let Some(text) = plain_text(&cfg, key) {
                // The link's value is the same text, percent-encoded; plain values need no escapes.
                let in_link = written.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
                prop_assert!(in_link.is_none_or(|v| v == text), "{key}: {in_link:?} vs {text}");
                prop_assert!(in_link.is_some() || plain_text(&Config::default(), key) == Some(text.clone()), "{key}={text} not in {link}");
            }
        }
        for key in ["mb", "in", "out", "epochs", "hpd", "seq"] {
            prop_assert!(plain_text(&cfg, key).is_some(), "{key}");
        }
        for key in ["model", "task", "w", "res", "provider"] {
            prop_assert!(plain_text(&cfg, key).is_none(), "{key}");
        }
    }
}

/// Common short names and capitals of weight formats read as the one id
/// they name, and the link is written back with the id; a name that fits
/// several formats (`q4`, `int4`) is refused with the list.
#[test]
fn weight_format_short_names_read_as_their_id() {
    for (typed, id) in [
        ("awq", "int4-awq"),
        ("AWQ", "int4-awq"),
        ("gptq", "int4-gptq"),
        ("Q4_K_M", "gguf-q4_k_m"),
        ("q8_0", "gguf-q8_0"),
        ("FP8", "fp8"),
        ("bnb", "int8-bnb"),
    ] {
        let a = common::answer(&format!("model=llama-3.1-8b&w={typed}"));
        assert_eq!(a.weight_format, id, "{typed}");
        assert!(a.notices.is_empty(), "{typed}: {:?}", a.notices);
        assert!(a.query.contains(&format!("w={id}")), "{typed}: {}", a.query);
    }
    for typed in ["q4", "int4", "awq4"] {
        let a = common::answer(&format!("model=llama-3.1-8b&w={typed}"));
        assert_eq!(a.weight_format, "bf16", "{typed}");
        assert!(a.notices.iter().any(|n| n.key == "w"), "{typed}: {:?}", a.notices);
    }
}
