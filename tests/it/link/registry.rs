//! The link-key registry (`core::link::keys`) against everything that reads
//! it: each entry decodes a valid value without a notice and writes it back
//! to the same configuration, refuses a bad one with a notice naming the
//! key, returns to its default when its input is cleared, and the form
//! shows exactly the keys whose control is an input, each with its label.

use std::collections::BTreeSet;

use whichgpu::core::config::Config;
use whichgpu::core::form;
use whichgpu::core::link::{decode, encode, set, Codec, Control, Values, KEYS, REGISTRY};

use crate::common;

/// Valid values of every key: the enum's names, the range's ends, or (for
/// the free-form keys) examples.
fn valid(key: &whichgpu::core::link::Key) -> Vec<String> {
    match (&key.codec, &key.doc.values) {
        (_, Values::Names(names)) => names().into_iter().map(str::to_string).collect(),
        (Codec::Num(min, max, ..), _) => {
            vec![whichgpu::core::link::fmt_num(*min), whichgpu::core::link::fmt_num(*max)]
        }
        (Codec::Int(min, max, ..), _) => vec![min.to_string(), max.to_string()],
        (Codec::Flag(..), _) => vec!["0".into(), "1".into()],
        (Codec::Text(..), _) => match key.name {
            "v" => vec!["1".into()],
            "model" => vec!["qwen2.5-7b".into(), "custom".into(), "sdxl".into()],
            "gpu" => vec!["h100-sxm-80gb".into()],
            "batch" => vec!["1".into(), "max".into(), "100000".into()],
            "res" => vec!["1280x720".into(), "64x8192".into()],
            "provider" => vec!["aws".into(), "aws,runpod".into()],
            "region" => vec!["us-east".into()],
            "price" => vec!["lambda-h100x1:2.49".into(), "a:1,b:2.5".into()],
            "cat" => vec!["2026-11-09".into()],
            "draft" => vec!["llama-3.2-1b".into(), "Qwen/Qwen3-0.6B".into()],
            other => panic!("no example value for {other}: add one here"),
        },
    }
}

/// A value the key must refuse, where one exists.
fn invalid(key: &whichgpu::core::link::Key) -> Option<String> {
    match &key.codec {
        Codec::Num(_, max, ..) => Some(format!("{}", max * 10.0 + 1.0)),
        Codec::Int(_, max, ..) => Some((u64::from(*max) + 1).to_string()),
        Codec::Flag(..) => Some("2".into()),
        Codec::Text(..) => match key.name {
            "model" | "gpu" | "provider" | "region" | "draft" => Some("\u{7}".into()),
            "price" => Some("nocolon".into()),
            _ => Some("no-such-value".into()),
        },
    }
}

#[test]
fn every_key_decodes_its_values_and_writes_them_back() {
    assert_eq!(KEYS.len(), REGISTRY.len());
    assert_eq!(KEYS.iter().collect::<BTreeSet<_>>().len(), KEYS.len(), "a key is registered twice");
    for key in REGISTRY {
        for value in valid(key) {
            let query = format!("{}={}", key.name, value);
            let (cfg, notices) = decode(&query);
            assert!(notices.is_empty(), "{query}: {notices:?}");
            let link = encode(&cfg);
            assert_eq!(decode(&link).0, cfg, "{query} -> {link}");
            // The link writes the key unless the value is its default.
            let written = link.split('&').any(|p| p.split_once('=').is_some_and(|(k, _)| k == key.name));
            // `adapter` without an RL method is the supervised method, written as `method`.
            assert!(
                written || cfg == Config::default() || key.name == "model" || key.name == "adapter",
                "{query} -> {link}"
            );
        }
        if let Some(bad) = invalid(key) {
            let (cfg, notices) = decode(&format!("{}={}", key.name, bad));
            assert_eq!(
                notices.iter().map(|n| n.key.as_str()).collect::<Vec<_>>(),
                vec![key.name],
                "{}={bad}",
                key.name
            );
            assert_eq!(cfg, Config::default(), "{}={bad} changed the configuration", key.name);
        }
    }
}

#[test]
fn a_cleared_input_returns_its_key_to_the_default() {
    for key in REGISTRY {
        let value = valid(key).into_iter().last().expect("a value");
        let with = set(&Config::default(), key.name, &value).expect("valid");
        let cleared = set(&with, key.name, "");
        match key.clear {
            Some(_) => assert_eq!(cleared.expect("clearable"), Config::default(), "{}", key.name),
            // Not clearable: an empty value is refused, or (a list) means the default.
            None => {
                if let Ok(c) = cleared {
                    assert_eq!(c, Config::default(), "{}: an empty value kept {value}", key.name);
                }
            }
        }
    }
}

#[test]
fn the_form_shows_exactly_the_keys_whose_control_is_an_input() {
    let queries = [
        "v=1",
        "model=custom&params=13&images=2",
        "use=hours",
        "use=jobs",
        "use=once&per_job=1000",
        "task=generate",
        "task=generate&use=hours",
        "task=finetune",
        "task=pretrain",
        "task=finetune&model=sdxl",
        "task=finetune&method=grpo",
    ];
    let mut shown = BTreeSet::new();
    for q in queries {
        let cfg = decode(q).0;
        let kind = form::kind(&cfg, common::catalog());
        let inputs = form::inputs(&cfg, kind);
        for key in inputs.main.iter().chain(&inputs.advanced) {
            let entry = whichgpu::core::link::find(key)
                .unwrap_or_else(|| panic!("the form shows {key}, not a registered key"));
            assert!(
                matches!(entry.control, Control::Select | Control::Check | Control::Text),
                "{key} is shown but its control is {:?}",
                entry.control
            );
            assert!(!form::label(kind, key).is_empty(), "{key} has no label");
            shown.insert(*key);
        }
    }
    let inputs: BTreeSet<&str> = REGISTRY
        .iter()
        .filter(|k| matches!(k.control, Control::Select | Control::Check | Control::Text))
        .map(|k| k.name)
        .collect();
    assert_eq!(inputs, shown, "keys with an input the form never shows, or shown without one");
    for key in REGISTRY.iter().filter(|k| !k.label.is_empty()) {
        let lang = whichgpu::core::config::Lang::Zh;
        assert!(
            !whichgpu::core::messages::ui(key.label, lang).is_empty(),
            "{}: no text for {}",
            key.name,
            key.label
        );
    }
}
