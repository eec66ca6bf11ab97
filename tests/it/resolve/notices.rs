//! Every key gets the same validation and the same notice on every task:
//! a bad value for each key of the link format, asked of the four tasks.

use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::link::KEYS;

use crate::common;

/// A value each key rejects (or, for ids, one no catalog table knows).
fn bad_value(key: &str) -> &'static str {
    match key {
        "region" => "%01",
        "cat" => "2020-01-01",
        "price" => "no-such-offer:1",
        "res" => "1x1",
        "v" => "9",
        _ => "-1x",
    }
}

#[test]
fn every_bad_value_gets_the_same_notice_on_every_task() {
    let catalog = common::catalog();
    let today = common::date("2026-12-01");
    let mut missing = Vec::new();
    let mut differing = Vec::new();
    for key in KEYS {
        let value = bad_value(key);
        let mut messages = Vec::new();
        for task in ["serve", "generate", "finetune", "pretrain"] {
            let query = format!("task={task}&{key}={value}");
            let a = evaluate_query(&query, catalog, today);
            match a.notices.iter().find(|n| n.key == *key) {
                Some(n) => messages.push((task, n.message.clone())),
                None => missing.push(format!("{query}: no notice for `{key}` (notices: {:?})", a.notices)),
            }
        }
        if messages.windows(2).any(|w| w[0].1 != w[1].1) {
            differing.push(format!("{key}: {messages:?}"));
        }
    }
    assert!(missing.is_empty(), "bad values without a notice:\n{}", missing.join("\n"));
    assert!(differing.is_empty(), "notices that differ by task:\n{}", differing.join("\n"));
}

#[test]
fn a_model_of_another_task_is_named_never_swapped_silently() {
    let catalog = common::catalog();
    let today = common::date("2026-12-01");
    for (query, tasks) in [
        ("task=generate&model=llama-3.1-8b", "serve, finetune, pretrain"),
        ("task=pretrain&model=sdxl", "generate, finetune"),
        ("task=serve&model=flux.1-dev", "generate, finetune"),
        ("task=finetune&model=wan-2.1-14b", "generate"),
    ] {
        let a = evaluate_query(query, catalog, today);
        let n =
            a.notices.iter().find(|n| n.key == "model").unwrap_or_else(|| panic!("{query}: no model notice"));
        assert!(n.message.contains(tasks), "{query}: {}", n.message);
        assert!(!a.unusable, "{query}: the task is usable");
        assert!(
            !a.query.contains("model="),
            "{query}: the answer's link drops the model it did not use: {}",
            a.query
        );
    }
}

#[test]
fn task_defaults_fill_only_what_the_link_leaves_out() {
    let catalog = common::catalog();
    let today = common::date("2026-12-01");
    // Generation: SDXL, one image per batch, billed as jobs.
    let a = evaluate_query("task=generate", catalog, today);
    assert_eq!(a.model, "sdxl");
    assert_eq!(a.results.first().map(|r| r.batch), Some(1.0));
    // An explicit batch and usage are kept.
    let a = evaluate_query("task=generate&batch=16&use=always", catalog, today);
    assert_eq!(a.results.first().map(|r| r.batch), Some(16.0));
    let pick = a.pick().expect("a pick");
    let whole_month = pick.usd_per_hour * 730.0 + pick.storage_usd_per_month + pick.egress_usd_per_month;
    assert!(
        (pick.usd_per_month - whole_month).abs() < 1e-6 * whole_month,
        "always-on bills the whole month: {} vs {whole_month}",
        pick.usd_per_month
    );
}

/// A model id that differs from a catalog id only in punctuation is named
/// with that id; one that matches nothing is only called unknown.
#[test]
fn a_mistyped_model_id_names_the_id_it_resembles() {
    let catalog = common::catalog();
    for m in catalog.models.iter().map(|m| m.id.as_str()).chain(catalog.media.iter().map(|m| m.id.as_str())) {
        // Drop the punctuation: `wan-2.1-14b` → `wan2114b`.
        let typo: String = m.chars().filter(char::is_ascii_alphanumeric).collect();
        if typo == m || catalog.model(&typo).is_some() || catalog.media.iter().any(|x| x.id == typo) {
            continue;
        }
        let a = evaluate_query(&format!("model={typo}"), catalog, common::today());
        let note =
            a.notices.iter().find(|n| n.key == "model").unwrap_or_else(|| panic!("{typo}: no model notice"));
        // The id named is one whose letters and digits are the typo's (`m` or a twin of it).
        let named = note
            .message
            .rsplit_once("did you mean `")
            .and_then(|(_, r)| r.split_once('`'))
            .map(|(id, _)| id.to_string());
        let named = named.unwrap_or_else(|| panic!("{typo}: {}", note.message));
        assert_eq!(
            named.chars().filter(char::is_ascii_alphanumeric).collect::<String>(),
            typo,
            "{typo}: {}",
            note.message
        );
    }
    let a = evaluate_query("model=no-such-model-anywhere", catalog, common::today());
    let note = a.notices.iter().find(|n| n.key == "model").expect("a model notice");
    assert!(!note.message.contains("did you mean"), "{}", note.message);
}

/// A hub name (organisation, capitals, a suffix such as `-Instruct`) names
/// the catalog id it extends: the most specific one, never one of another
/// size or version (`Llama-3.1-70B-Instruct` is not `llama-3.3-70b`).
#[test]
fn a_hub_name_names_the_catalog_id_it_extends() {
    let catalog = common::catalog();
    let ids: Vec<&str> = catalog
        .models
        .iter()
        .map(|m| m.id.as_str())
        .chain(catalog.media.iter().map(|m| m.id.as_str()))
        .collect();
    for m in &ids {
        let hub = format!("Org/{}-Instruct", m.to_ascii_uppercase());
        let a = evaluate_query(&format!("model={hub}"), catalog, common::today());
        let note =
            a.notices.iter().find(|n| n.key == "model").unwrap_or_else(|| panic!("{hub}: no model notice"));
        let named = note
            .message
            .rsplit_once("did you mean `")
            .map(|(_, r)| r.trim_end_matches("`?"))
            .unwrap_or_else(|| panic!("{hub}: {}", note.message));
        let named: Vec<&str> = named.split("`, `").collect();
        assert!(named.contains(m), "{hub}: {}", note.message);
        // No id of another size is named.
        let size = |id: &str| {
            id.split(['-', '.'])
                .filter(|w| {
                    w.ends_with('b')
                        && w.len() > 1
                        && w[..w.len() - 1].bytes().all(|b| b.is_ascii_digit() || b == b'x')
                })
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert!(named.iter().all(|n| size(n) == size(m)), "{hub}: {}", note.message);
    }
    // The exact id under a hub name is taken as it is.
    let a = evaluate_query("model=Qwen/Qwen2.5-7B", catalog, common::today());
    assert!(a.notices.is_empty(), "{:?}", a.notices);
    assert_eq!(a.model, "qwen2.5-7b");
}

#[test]
fn a_commit_term_published_only_by_offers_that_do_not_meet_the_job_is_said() {
    // 1-month terms are published on single-GPU offers only (Vast, RunPod,
    // Compshare): Llama 3.1 405B in bf16 (~810 GB) meets none of them.
    let a = common::answer("model=llama-3.1-405b&w=bf16&commit=1mo");
    let n = a.notices.iter().find(|n| n.key == "commit").expect("a notice on commit");
    assert!(n.message.contains("none of them meets this job"), "{}", n.message);
    // The 24/7 Qwen2.5-72B endpoint on a 1-year term: the pick is on the
    // term, or a notice on `commit` says why not.
    let a = common::answer("model=qwen2.5-72b&w=fp8&in=3000&out=600&batch=24&commit=1yr");
    let on_term = a
        .recommendation
        .as_ref()
        .and_then(|r| a.offers.iter().find(|o| o.id == r.pick.offer))
        .is_some_and(|o| o.commitment == whichgpu::core::config::Commit::Year);
    assert!(on_term || a.notices.iter().any(|n| n.key == "commit"), "{:?}", a.notices);
}
