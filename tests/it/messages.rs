//! Both languages carry every message key, with the same placeholders.

use whichgpu::core::messages::{MESSAGES, UI};

fn placeholders(s: &str) -> Vec<String> {
    let mut out: Vec<String> = s.split('{').skip(1).filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string())).collect();
    out.sort();
    out
}

#[test]
fn every_key_has_both_languages_with_the_same_placeholders() {
    let mut keys = std::collections::HashSet::new();
    for (key, en, zh) in MESSAGES.iter().chain(UI.iter()) {
        assert!(keys.insert(*key), "duplicate key {key}");
        assert!(!en.trim().is_empty(), "{key}: English missing");
        assert!(!zh.trim().is_empty(), "{key}: Chinese missing");
        assert_eq!(placeholders(en), placeholders(zh), "{key}: placeholders differ");
    }
}

#[test]
fn chinese_text_is_chinese() {
    for (key, en, zh) in MESSAGES.iter().chain(UI.iter()) {
        if key.starts_with("g.") || key.starts_with("reason.") {
            assert_ne!(en, zh, "{key} is not translated");
            assert!(zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{key}: no Chinese characters");
        }
    }
}
