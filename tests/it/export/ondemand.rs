//! The on-demand module (`core::ondemand`, run by the page's Web Worker):
//! from the request the page writes (today, `link::encode` of its
//! configuration, an imported offers file) it rebuilds the page's answer
//! and writes the same launch texts and the same CSV as the core does for
//! that answer; a request it cannot read gets an empty reply, never a panic.
//! A `config.json` sent to it comes back, through `apply_hf`, as exactly
//! what the core's own import gives (configuration and notices, in English
//! and Chinese). An offers file (CSV or JSON) and the page's own copy of
//! `offers.csv` (the sources view) come back as the same offers the
//! core's parser gives, bit for bit, or the same error text.

use std::fs;

use proptest::prelude::*;
use whichgpu::core::catalog::offers::parse_offers;
use whichgpu::core::catalog::offers::parse_offers_any;
use whichgpu::core::config::{Config, Lang};
use whichgpu::core::evaluate::evaluate_offers;
use whichgpu::core::export::for_answer;
use whichgpu::core::hfconfig;
use whichgpu::core::link;
use whichgpu::core::ondemand::{
    apply_hf, handle, hf_request, offers_csv, offers_request, read_offers, read_sources, request,
    sources_request, split_exports, ExportText, RS, US,
};

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
        let want: Vec<ExportText> =
            for_answer(&evaluate_offers(&cfg, Vec::new(), catalog(), today()), catalog())
                .iter()
                .map(texts)
                .collect();
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
    let two = format!(
        "{}{RS}{}",
        ["a", "pick", "y", "c", ""].join(&US.to_string()),
        ["b", "alternative", "y2", "c2", "why"].join(&US.to_string())
    );
    assert_eq!(split_exports(&two).len(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Any request text, and any query inside a well-formed request, gets
    /// a reply without a panic; every export record read back has its five
    /// fields (the hosted API's record, `evaluate::api::record`, is not one).
    #[test]
    fn any_request_gets_a_reply(kind in prop::sample::select(vec!["export", "csv", "x"]), query in "[a-z0-9=&.,:_%-]{0,60}", junk in "\\PC{0,80}") {
        let _ = handle(&junk);
        let reply = handle(&request(kind, today(), &query, "u", ""));
        let _ = apply_hf(&Config::default(), &junk);
        let _ = same_as_core(&Config::default(), &junk);
        let _ = same_offers(&junk);
        let _ = read_offers(&junk);
        let _ = read_sources(&junk);
        if kind == "export" {
            let n = if reply.is_empty() { 0 } else { reply.split(RS).filter(|r| !r.starts_with("api\u{1f}")).count() };
            prop_assert_eq!(split_exports(&reply).len(), n);
        }
    }
}

/// The page's configurations a file is imported into: the defaults, a
/// generation task (becomes serving), a fine-tune of a catalog model, and
/// one that already holds an imported architecture with a notice-worthy link.
fn import_bases() -> Vec<Config> {
    let custom = hfconfig::import(
        &Config::default(),
        &fs::read_to_string("tests/data/hf-configs/Qwen--Qwen3-30B-A3B.json").expect("file"),
    )
    .expect("imports")
    .0;
    vec![
        Config::default(),
        page_cfg("v=1&task=image&model=flux.1-dev"),
        page_cfg("v=1&task=finetune&model=llama-3.1-8b&method=qlora&cur=cny&lang=zh"),
        custom,
    ]
}

/// The worker's answer to a file, applied to `cfg` as the page applies it,
/// equals the core's own import, and its notices read the same in Chinese.
fn same_as_core(
    cfg: &Config,
    text: &str,
) -> Result<(Config, Vec<whichgpu::core::link::Notice>), whichgpu::core::link::Notice> {
    let got = apply_hf(cfg, &handle(&hf_request(text)));
    let want = hfconfig::import(cfg, text);
    assert_eq!(got, want);
    let zh = |r: &Result<(Config, Vec<whichgpu::core::link::Notice>), whichgpu::core::link::Notice>| match r {
        Ok((_, ns)) => ns.iter().map(|n| n.text(Lang::Zh)).collect::<Vec<_>>(),
        Err(n) => vec![n.text(Lang::Zh)],
    };
    assert_eq!(zh(&got), zh(&want));
    got
}

#[test]
fn a_config_json_through_the_worker_is_the_core_import() {
    let mut files: Vec<_> = fs::read_dir("tests/data/hf-configs")
        .expect("dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the stored configs");
    let mut with_notices = 0;
    for base in import_bases() {
        for path in &files {
            let text = fs::read_to_string(path).expect("read");
            let (cfg, notices) =
                same_as_core(&base, &text).unwrap_or_else(|n| panic!("{}: {}", path.display(), n.message));
            assert_eq!(cfg.model.as_deref(), Some("custom"));
            with_notices += usize::from(!notices.is_empty());
        }
    }
    // LLaVA's file takes its text model's defaults and says so.
    assert!(with_notices >= 4, "notices of defaults travel too");
}

#[test]
fn a_refused_config_json_through_the_worker_names_the_same_field() {
    let llama = fs::read_to_string("tests/data/hf-configs/meta-llama--Meta-Llama-3.1-8B.json").expect("file");
    let bad = [
        String::new(),
        "{\"hidden_size\": 4096,".to_string(),
        "[1, 2]".to_string(),
        llama.replace("\"num_hidden_layers\"", "\"renamed\""),
        llama.replace("\"hidden_size\": 4096", "\"hidden_size\": \"big\""),
        llama.replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 7"),
        llama.replace("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": 0"),
        // Out of the range a link carries: refused after parsing.
        llama.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 5000"),
    ];
    let mut keys = Vec::new();
    for base in import_bases() {
        for text in &bad {
            let n = same_as_core(&base, text).expect_err("refused");
            assert_eq!(n.key, "config");
            keys.push(n.msg.as_ref().map(|m| m.key).unwrap_or_default());
        }
    }
    for key in [
        "notice.hf.json",
        "notice.hf.object",
        "notice.hf.missing",
        "notice.hf.whole",
        "notice.hf.divides",
        "notice.hf.bool",
        "notice.hf.range",
    ] {
        assert!(keys.contains(&key), "{key} among {keys:?}");
    }
    // No reply at all (the page asked, nothing came): a notice, not a panic.
    let n = apply_hf(&Config::default(), "").expect_err("nothing to apply");
    assert_eq!(n.msg.as_ref().map(|m| m.key), Some("notice.hf.worker"));
}

/// The worker's parse of an imported file equals the core's (the offers
/// bit for bit: `Offer`'s `PartialEq` compares every float), and so does
/// the catalog the page then builds from them; an error is the same text.
fn same_offers(text: &str) -> Result<usize, String> {
    let got = read_offers(&handle(&offers_request(text)));
    let want = parse_offers_any("import", text).map_err(|e| e.to_string());
    assert_eq!(got, want);
    if let (Ok(g), Ok(w)) = (&got, &want) {
        let g = catalog().with_offers(g.clone()).map_err(|e| e.to_string());
        let w = catalog().with_offers(w.clone()).map_err(|e| e.to_string());
        assert_eq!(g.as_ref().map(|c| &c.offers), w.as_ref().map(|c| &c.offers));
        assert_eq!(g.err(), w.err());
    }
    got.map(|o| o.len())
}

#[test]
fn an_offers_file_through_the_worker_is_the_core_parse() {
    let full = fs::read_to_string("static/offers.csv").expect("offers.csv");
    // The whole table (yuan prices, commit terms, every optional column) and a few rows.
    let rows = full.lines().count() - 1;
    assert_eq!(same_offers(&full), Ok(rows));
    let ten: String = full.lines().take(11).map(|l| format!("{l}\n")).collect();
    assert_eq!(same_offers(&ten), Ok(10));
    let json = r#"[{"id":"x","provider":"aws","instance":"i","gpu":"l4-24gb","gpus":1,"vcpus":4,"ram_gb":16,"interconnect":"single",
        "usd_per_hour":0.1234567890123,"region":"r","billing_increment_s":1,"min_charge_s":60,"storage_usd_per_gb_month":0.08,"egress_usd_per_gb":0.09,"source":"s","as_of":"2026-11-01"}]"#;
    assert_eq!(same_offers(json), Ok(1));
    // Refused files: the same error, by row and field.
    for bad in [
        "id,nothing\n1,2\n".to_string(),
        json.replace("\"region\":\"r\"", "\"region\":\"r\",\"colour\":\"red\""),
        json.replace("0.1234567890123", "-1"),
        "[1, 2".to_string(),
        ten.replacen(",2026-", ",2026-13-", 1),
    ] {
        assert!(same_offers(&bad).is_err(), "{bad}");
    }
    // An empty file parses to no offers; the catalog then refuses it, as before.
    assert_eq!(same_offers(""), parse_offers_any("import", "").map(|o| o.len()).map_err(|e| e.to_string()));
    // A reply that is cut or damaged is an error, never a panic.
    let reply = handle(&offers_request(&ten));
    assert!(read_offers(&reply.replacen(US, "", 3)).is_err());
    assert!(read_offers(&reply.replace("single", "bus")).is_err());
}

#[test]
fn the_sources_view_reads_the_page_copy_through_the_worker() {
    let full = fs::read_to_string("static/offers.csv").expect("offers.csv");
    let want: Vec<(String, String, String)> = parse_offers("offers.csv (page copy)", &full)
        .expect("parses")
        .into_iter()
        .map(|o| (o.id.to_string(), o.source.to_string(), o.notes))
        .collect();
    let got = read_sources(&handle(&sources_request(&full))).expect("reads");
    assert_eq!(got, want);
    assert!(got.iter().all(|(_, source, _)| !source.is_empty()), "the page copy has every source");
    let bad = "id,nothing\n1,2\n";
    assert_eq!(
        read_sources(&handle(&sources_request(bad))),
        parse_offers("offers.csv (page copy)", bad).map(|_| Vec::new()).map_err(|e| e.to_string())
    );
}
