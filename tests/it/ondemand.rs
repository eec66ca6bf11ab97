//! The on-demand module (`core::ondemand`, run by the page's Web Worker):
//! from the request the page writes (today, `link::encode` of its
//! configuration, an imported offers file) it rebuilds the page's answer
//! and writes the same launch texts and the same CSV as the core does for
//! that answer; a request it cannot read gets an empty reply, never a panic.

use std::fs;

use proptest::prelude::*;
use whichgpu::core::catalog::offers::parse_offers_any;
use whichgpu::core::evaluate::evaluate_offers;
use whichgpu::core::export::for_answer;
use whichgpu::core::link;
use whichgpu::core::ondemand::{handle, offers_csv, request, split_exports, ExportText, RS, US};

use crate::common::{catalog, today};

const QUERIES: [&str; 6] = [
    "",
    "v=1&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16",
    "v=1&task=finetune&model=llama-3.1-8b&method=qlora",
    "v=1&task=pretrain&model=llama-3.1-8b",
    "v=1&task=image&model=flux.1-dev",
    "v=1&model=llama-3.1-8b&engine=sglang&cur=cny",
];

/// The page's configuration for a query, as its state holds it.
fn page_cfg(query: &str) -> whichgpu::core::config::Config {
    link::decode(query).0
}

fn texts(e: &whichgpu::core::export::Export) -> ExportText {
    ExportText {
        offer: e.offer.to_string(),
        role: e.role.to_string(),
        skypilot_yaml: e.skypilot_yaml.clone(),
        command: e.command.clone(),
        unsupported: e.unsupported.clone().unwrap_or_default(),
    }
}

#[test]
fn export_reply_is_the_core_export_of_the_page_answer() {
    for q in QUERIES {
        let cfg = page_cfg(q);
        let want: Vec<ExportText> = for_answer(&evaluate_offers(&cfg, Vec::new(), catalog(), today()), catalog()).iter().map(texts).collect();
        let got = split_exports(&handle(&request("export", today(), &link::encode(&cfg), "", "")));
        assert!(!want.is_empty(), "{q}: the answer has a pick");
        assert_eq!(got, want, "{q}");
    }
}

#[test]
fn csv_reply_is_the_offers_table_with_the_sources_address() {
    let url = "http://127.0.0.1:8080/offers.csv";
    for q in QUERIES {
        let cfg = page_cfg(q);
        let a = evaluate_offers(&cfg, Vec::new(), catalog(), today());
        let got = handle(&request("csv", today(), &link::encode(&cfg), url, ""));
        assert_eq!(got, offers_csv(&a, url), "{q}");
        assert_eq!(got.lines().count(), a.offers.len() + 1, "{q}: a header and one line per offer");
    }
}

#[test]
fn an_imported_file_is_the_catalog_the_reply_is_written_from() {
    // Ten offers of the bundled table, as a user would import them.
    let full = fs::read_to_string("static/offers.csv").expect("offers.csv");
    let text: String = full.lines().take(11).map(|l| format!("{l}\n")).collect();
    let imported = catalog().with_offers(parse_offers_any("import", &text).expect("parses")).expect("checks");
    let cfg = page_cfg("v=1&model=llama-3.1-8b");
    let a = evaluate_offers(&cfg, Vec::new(), &imported, today());
    let q = link::encode(&cfg);
    assert_eq!(handle(&request("csv", today(), &q, "x", &text)), offers_csv(&a, "x"));
    assert_eq!(handle(&request("csv", today(), &q, "x", &text)).lines().count(), 11);
    let want: Vec<ExportText> = for_answer(&a, &imported).iter().map(texts).collect();
    assert_eq!(split_exports(&handle(&request("export", today(), &q, "", &text))), want);
    // A file that does not import gets nothing (the page shows its notice already).
    assert_eq!(handle(&request("csv", today(), &q, "x", "id,nothing\n1,2\n")), "");
}

#[test]
fn requests_it_cannot_read_get_an_empty_reply() {
    for r in ["", "export", "export\nnot-a-date\nv=1\n\n", "nonsense\n2026-11-29\nv=1\n\n"] {
        assert_eq!(handle(r), "", "{r:?}");
    }
    assert!(split_exports("").is_empty());
    // A record that lacks a field, or has one too many, is left out.
    assert!(split_exports(&["a", "pick", "y", "c"].join(&US.to_string())).is_empty());
    assert!(split_exports(&["a", "pick", "y", "c", "", "extra"].join(&US.to_string())).is_empty());
    let two = format!("{}{RS}{}", ["a", "pick", "y", "c", ""].join(&US.to_string()), ["b", "alternative", "y2", "c2", "why"].join(&US.to_string()));
    assert_eq!(split_exports(&two).len(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any request text, and any query inside a well-formed request, gets
    /// a reply without a panic; every export record read back has its five fields.
    #[test]
    fn any_request_gets_a_reply(kind in prop::sample::select(vec!["export", "csv", "x"]), query in "[a-z0-9=&.,:_%-]{0,60}", junk in "\\PC{0,80}") {
        let _ = handle(&junk);
        let reply = handle(&request(kind, today(), &query, "u", ""));
        if kind == "export" {
            let n = if reply.is_empty() { 0 } else { reply.split(RS).count() };
            prop_assert_eq!(split_exports(&reply).len(), n);
        }
    }
}
