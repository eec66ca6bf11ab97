//! `docs/link-format.md` is the contract, generated from the code
//! (`whichgpu docs link-format`): it cannot drift from the link registry or
//! from the JSON the answers write.

use std::collections::BTreeSet;

use whichgpu::tools::link_doc::{self, FIELDS};

use crate::common;

#[test]
fn the_committed_contract_is_what_the_code_generates() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/link-format.md");
    let committed = std::fs::read_to_string(&path).expect("docs/link-format.md");
    let generated = link_doc::markdown(common::catalog(), link_doc::date());
    assert!(committed == generated, "docs/link-format.md differs from the code: run `cargo run --bin whichgpu -- docs link-format > docs/link-format.md`");
}

#[test]
fn every_json_field_is_described_and_every_description_is_a_field() {
    let fields = link_doc::json_fields(common::catalog(), link_doc::date());
    let undescribed: Vec<&String> = fields.keys().filter(|p| link_doc::describe(p).is_none()).collect();
    assert!(undescribed.is_empty(), "fields without a description in link_doc::FIELDS: {undescribed:?}");
    let names: BTreeSet<&str> = fields
        .keys()
        .map(|p| p.rsplit('.').next().unwrap_or(p).trim_end_matches("[]"))
        .map(|n| n.strip_suffix("_low").or_else(|| n.strip_suffix("_high")).unwrap_or(n))
        .collect();
    let unused: Vec<&str> = FIELDS.iter().map(|(n, _)| *n).filter(|n| !names.contains(n)).collect();
    assert!(unused.is_empty(), "descriptions of fields no answer writes: {unused:?}");
    // The top level of the answer is there whatever the question.
    for top in
        ["query", "notices", "memory", "results", "answers", "offers", "recommendation", "guidance", "export"]
    {
        assert!(fields.contains_key(top), "{top}");
    }
}

#[test]
fn every_registered_key_has_a_row_in_the_contract() {
    let doc = link_doc::markdown(common::catalog(), link_doc::date());
    let text = link_doc::keys_text();
    for key in whichgpu::core::link::KEYS {
        assert!(doc.contains(&format!("`{key}`")), "{key}");
        assert!(text.lines().any(|l| l == *key), "`whichgpu keys` lists {key}");
    }
}
