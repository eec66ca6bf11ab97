//! Hugging Face `config.json` import: real files (tests/data/hf-configs,
//! sources in SOURCES.md) parse into the catalog's own rows, the link keys
//! they fill reproduce the architecture without the file, and a truncated
//! or mutated file never panics and names the field.

use proptest::prelude::*;
use whichgpu::core::catalog::Model;
use whichgpu::core::config::Config;
use whichgpu::core::hfconfig::{self, Problem};
use whichgpu::core::link::{decode, encode};
use whichgpu::core::resolve::{resolve, Subject};

use crate::common::catalog;

const DIR: &str = "tests/data/hf-configs";

fn read(name: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{name}.json")).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn files() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(DIR)
        .expect("config dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            (
                p.file_stem().expect("stem").to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).expect("read"),
            )
        })
        .collect();
    out.sort();
    out
}

fn parse(name: &str) -> Model {
    hfconfig::parse(&read(name)).unwrap_or_else(|e| panic!("{name}: {e}")).model
}

/// Files of models the catalog also has, and the catalog row.
const IN_CATALOG: &[(&str, &str)] = &[
    ("meta-llama--Llama-2-7b-hf", "llama-2-7b"),
    ("meta-llama--Llama-2-13b-hf", "llama-2-13b"),
    ("meta-llama--Llama-2-70b-hf", "llama-2-70b"),
    ("meta-llama--Meta-Llama-3.1-8B", "llama-3.1-8b"),
    ("meta-llama--Meta-Llama-3.1-70B", "llama-3.1-70b"),
    ("meta-llama--Meta-Llama-3.1-405B", "llama-3.1-405b"),
    ("meta-llama--Llama-3.2-1B", "llama-3.2-1b"),
    ("meta-llama--Llama-3.2-3B", "llama-3.2-3b"),
    ("mistralai--Mixtral-8x7B-v0.1", "mixtral-8x7b"),
    ("mistralai--Mixtral-8x22B-v0.1", "mixtral-8x22b"),
    ("Qwen--Qwen2.5-7B", "qwen2.5-7b"),
    ("Qwen--Qwen2.5-32B", "qwen2.5-32b"),
    ("Qwen--Qwen2.5-72B", "qwen2.5-72b"),
    ("Qwen--Qwen3-8B", "qwen3-8b"),
    ("Qwen--Qwen3-32B", "qwen3-32b"),
    ("Qwen--Qwen3-30B-A3B", "qwen3-30b-a3b"),
    ("Qwen--Qwen3-235B-A22B", "qwen3-235b-a22b"),
    ("Qwen--Qwen3-VL-235B-A22B-Instruct", "qwen3-vl-235b-a22b"),
    ("deepseek-ai--DeepSeek-V3", "deepseek-v3"),
    ("deepseek-ai--DeepSeek-R1", "deepseek-r1"),
    ("google--gemma-2-9b", "gemma-2-9b"),
    ("google--gemma-2-27b", "gemma-2-27b"),
    ("openai--gpt-oss-20b", "gpt-oss-20b"),
    ("openai--gpt-oss-120b", "gpt-oss-120b"),
    ("llava-hf--llava-1.5-7b-hf", "llava-1.5-7b"),
];

/// The computed total is within 1.5% of the published count; an MoE's
/// active count within 10% (model cards differ on whether the input
/// embedding is counted: Qwen3-30B-A3B's 3.3B counts it, gpt-oss's does not).
const TOTAL_TOLERANCE: f64 = 0.015;
const ACTIVE_TOLERANCE: f64 = 0.10;

#[test]
fn real_configs_match_the_catalog_rows() {
    for (file, id) in IN_CATALOG {
        let got = parse(file);
        let want = catalog().model(id).unwrap_or_else(|| panic!("catalog has {id}"));
        let shape = |m: &Model| {
            (
                m.layers,
                m.hidden,
                m.heads,
                m.kv_heads,
                m.head_dim,
                m.ffn,
                m.vocab,
                m.tied_embeddings,
                m.max_context,
            )
        };
        assert_eq!(
            shape(&got),
            shape(want),
            "{file} vs {id}: layers, hidden, heads, kv_heads, head_dim, ffn, vocab, tied, context"
        );
        assert_eq!(got.moe, want.moe, "{file} vs {id}: experts");
        assert_eq!(got.mla, want.mla, "{file} vs {id}: latent attention");
        assert_eq!(got.swa, want.swa, "{file} vs {id}: sliding window");
        match (&got.vision, &want.vision) {
            (None, None) => {}
            (Some(g), Some(w)) => {
                assert_eq!(
                    (g.image_tokens, g.tile_px, g.max_tiles, g.cross_attention_layers, g.patch_px),
                    (w.image_tokens, w.tile_px, w.max_tiles, w.cross_attention_layers, w.patch_px),
                    "{file}: image tokens"
                );
                assert!(
                    (g.params / w.params - 1.0).abs() < 0.05,
                    "{file}: vision {} vs {}",
                    g.params,
                    w.params
                );
            }
            (g, w) => panic!("{file} vs {id}: vision {g:?} vs {w:?}"),
        }
        let total = got.params_total / want.params_total - 1.0;
        assert!(
            total.abs() < TOTAL_TOLERANCE,
            "{file}: {:.3}B vs the catalog's {:.3}B",
            got.params_total / 1e9,
            want.params_total / 1e9
        );
        if want.moe.is_some() {
            let active = got.params_active / want.params_active - 1.0;
            assert!(
                active.abs() < ACTIVE_TOLERANCE,
                "{file}: active {:.3}B vs {:.3}B",
                got.params_active / 1e9,
                want.params_active / 1e9
            );
        } else {
            assert_eq!(got.params_active, got.params_total, "{file}: a dense model uses every parameter");
        }
    }
}

#[test]
fn every_stored_config_parses_and_has_a_source() {
    let sources = std::fs::read_to_string(format!("{DIR}/SOURCES.md")).expect("SOURCES.md");
    let all = files();
    assert!(all.len() >= 15, "at least 15 real configs, found {}", all.len());
    for (name, text) in &all {
        assert!(sources.contains(&format!("`{name}.json`")), "{name}.json has no row in SOURCES.md");
        let import = hfconfig::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let m = import.model;
        assert!(
            m.params_total > 1e8 && m.params_active <= m.params_total,
            "{name}: {} / {}",
            m.params_total,
            m.params_active
        );
    }
}

/// Families outside the catalog: what each file says, read the way the family's class reads it.
#[test]
fn families_outside_the_catalog_read_as_their_classes_do() {
    // Qwen1.5-MoE: a shared expert 4× an expert's width counts as 4 shared experts.
    let m = parse("Qwen--Qwen1.5-MoE-A2.7B");
    let moe = m.moe.as_ref().expect("moe");
    assert_eq!(
        (moe.experts, moe.active, moe.shared, moe.expert_ffn, moe.first_dense_layers),
        (60, 4, 4, 1408, 0)
    );
    // DeepSeek-V2-Lite: latent attention without a query latent, one leading dense layer.
    let m = parse("deepseek-ai--DeepSeek-V2-Lite");
    let mla = m.mla.as_ref().expect("mla");
    assert_eq!((mla.kv_lora_rank, mla.q_lora_rank, mla.rope_dim, m.head_dim), (512, 0, 64, 192));
    assert_eq!(m.moe.as_ref().map(|x| (x.experts, x.shared, x.first_dense_layers)), Some((64, 2, 1)));
    // Kimi K2 is DeepSeek-V3's architecture with 384 experts and 64 heads.
    let m = parse("moonshotai--Kimi-K2-Instruct");
    assert_eq!((m.heads, m.moe.as_ref().map(|x| x.experts)), (64, Some(384)));
    assert!(m.params_total > 1.0e12 && m.params_total < 1.05e12, "{}", m.params_total);
    // Gemma 3: one global layer in every `sliding_window_pattern` = 6.
    let m = parse("google--gemma-3-1b-it");
    assert_eq!(m.swa.as_ref().map(|s| (s.window, s.local_per_global)), Some((512, Some(5))));
    assert!(m.tied_embeddings);
    // Mistral 7B v0.3 has no window (`sliding_window: null`); Qwen3-0.6B ties its head.
    assert_eq!(parse("mistralai--Mistral-7B-v0.3").swa, None);
    assert!(parse("Qwen--Qwen3-0.6B").tied_embeddings);
    // Qwen3-VL 8B: a dynamic-resolution tower, one token per 32 px square.
    let v = parse("Qwen--Qwen3-VL-8B-Instruct").vision.expect("vision");
    assert_eq!((v.image_tokens, v.tile_px, v.patch_px), (None, Some(32), Some(16)));
}

#[test]
fn llava_fills_its_text_model_from_llama_defaults_and_says_so() {
    let import = hfconfig::parse(&read("llava-hf--llava-1.5-7b-hf")).expect("parse");
    let fields: Vec<String> = import.notices.iter().map(|n| n.message.clone()).collect();
    for f in [
        "text_config.hidden_size",
        "text_config.num_hidden_layers",
        "text_config.num_attention_heads",
        "text_config.intermediate_size",
    ] {
        assert!(fields.iter().any(|m| m.contains(f)), "no notice for {f}: {fields:?}");
    }
    // The vocabulary is the file's own (32064, at the top level), not the default.
    assert_eq!(import.model.vocab, 32064);
}

/// The architecture as resolved from a link with only `model=custom` and the keys.
fn through_link(cfg: &Config) -> Model {
    let (back, notices) = decode(&encode(cfg));
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(&back, cfg, "the link round-trips");
    let r = resolve(&back, Vec::new(), catalog());
    assert!(r.notices.is_empty(), "{:?}", r.notices);
    match r.subject {
        Subject::Llm { model, .. } => model,
        other => panic!("not an LLM: {other:?}"),
    }
}

#[test]
fn an_imported_link_reproduces_the_architecture_without_the_file() {
    for (name, text) in files() {
        let (cfg, _) =
            hfconfig::import(&Config::default(), &text).unwrap_or_else(|n| panic!("{name}: {}", n.message));
        assert_eq!(cfg.model_id(), "custom");
        let want = hfconfig::parse(&text).expect("parse").model;
        let got = through_link(&cfg);
        let shape = |m: &Model| {
            (
                m.layers,
                m.hidden,
                m.heads,
                m.kv_heads,
                m.head_dim,
                m.ffn,
                m.vocab,
                m.tied_embeddings,
                m.max_context,
            )
        };
        assert_eq!(shape(&got), shape(&want), "{name}");
        assert_eq!((&got.moe, &got.mla, &got.swa), (&want.moe, &want.mla, &want.swa), "{name}");
        let state = |m: &Model| m.state.as_ref().map(|s| (s.layers, s.size));
        assert_eq!(state(&got), state(&want), "{name}: fixed-state layers");
        let tokens = |m: &Model| {
            m.vision
                .as_ref()
                .map(|v| (v.image_tokens, v.tile_px, v.max_tiles, v.cross_attention_layers, v.patch_px))
        };
        assert_eq!(tokens(&got), tokens(&want), "{name}");
        assert!(!got.inferred, "{name}: an imported architecture is not inferred");
        // Parameters travel rounded to a million.
        assert!(
            (got.params_total - want.params_total).abs() <= 1e6,
            "{name}: {} vs {}",
            got.params_total,
            want.params_total
        );
        assert!(
            (got.params_active - want.params_active).abs() <= 2e6,
            "{name}: active {} vs {}",
            got.params_active,
            want.params_active
        );
    }
}

#[test]
fn importing_changes_the_answer_and_a_bad_file_keeps_the_last_good_one() {
    let base = Config::default();
    let (small, _) = hfconfig::import(&base, &read("meta-llama--Llama-3.2-1B")).expect("import");
    let (big, _) = hfconfig::import(&small, &read("meta-llama--Meta-Llama-3.1-70B")).expect("import");
    assert_ne!(encode(&small), encode(&big));
    let q = encode(&big);
    for part in [
        "model=custom",
        "params=70.554",
        "layers=80",
        "hidden=8192",
        "kv_heads=8",
        "vocab=128256",
        "context=131072",
    ] {
        assert!(q.contains(part), "{q} has {part}");
    }
    // A later bad file changes nothing: the notice names the field.
    let broken = read("meta-llama--Llama-3.2-1B").replace("\"num_hidden_layers\"", "\"num_layers_renamed\"");
    let n = hfconfig::import(&big, &broken).expect_err("a missing field");
    assert_eq!(n.key, "config");
    assert!(n.message.contains("num_hidden_layers"), "{}", n.message);
    assert!(n.text(whichgpu::core::config::Lang::Zh).contains("num_hidden_layers"));
}

fn problem(text: &str) -> (String, Problem) {
    let e = hfconfig::parse(text).expect_err("an error");
    (e.field, e.problem)
}

#[test]
fn bad_files_name_the_field() {
    assert!(matches!(problem("{\"hidden_size\": 4096,"), (f, Problem::Json(_)) if f == "(file)"));
    assert!(matches!(problem("[1, 2]"), (_, Problem::NotObject)));
    let llama = read("meta-llama--Meta-Llama-3.1-8B");
    let without = |key: &str| llama.replace(&format!("\"{key}\""), "\"x_removed\"");
    for key in ["num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size", "intermediate_size"]
    {
        assert_eq!(problem(&without(key)), (key.to_string(), Problem::Missing), "{key}");
    }
    let bad = llama.replace("\"hidden_size\": 4096", "\"hidden_size\": \"big\"");
    assert!(matches!(problem(&bad), (f, Problem::NotWhole { .. }) if f == "hidden_size"));
    let bad = llama.replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 7");
    assert_eq!(problem(&bad), ("num_key_value_heads".into(), Problem::Divides { heads: 32 }));
    let vl = read("Qwen--Qwen3-VL-8B-Instruct");
    assert_eq!(
        problem(&vl.replace("\"patch_size\"", "\"x\"")),
        ("vision_config.patch_size".into(), Problem::Missing)
    );
    assert_eq!(
        problem(&vl.replace("\"hidden_size\": 4096", "\"x\": 4096")),
        ("text_config.hidden_size".into(), Problem::Missing)
    );
    let moe = read("Qwen--Qwen3-30B-A3B");
    assert_eq!(
        problem(&moe.replace("\"moe_intermediate_size\"", "\"x\"")),
        ("moe_intermediate_size".into(), Problem::Missing)
    );
    assert_eq!(
        problem(&moe.replace("\"num_experts_per_tok\": 8", "\"num_experts_per_tok\": 500")),
        ("num_experts_per_tok".into(), Problem::AtMost { most: 128 })
    );
    let bad = llama.replace("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": 0");
    assert!(matches!(problem(&bad), (f, Problem::NotBool { .. }) if f == "tie_word_embeddings"));
    assert!(
        matches!(problem(&vl.replace("\"vision_config\": {", "\"vision_config\": 3, \"x\": {")), (f, Problem::NotSection { .. }) if f == "vision_config")
    );
    let ds = read("deepseek-ai--DeepSeek-V3");
    assert_eq!(
        problem(&ds.replace("\"qk_rope_head_dim\"", "\"x\"")),
        ("qk_rope_head_dim".into(), Problem::Missing)
    );
}

/// Replacement values for a mutated field.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("1.5".to_string()),
        Just("1e300".to_string()),
        Just("99999999999".to_string()),
        Just("\"text\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("true".to_string()),
        (0u32..5_000_000).prop_map(|v| v.to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any prefix of a real file: never a panic; an error names a field
    /// (the file itself when the JSON is cut).
    #[test]
    fn truncated_configs_never_panic(file in 0usize..32, cut in 0.0f64..1.0) {
        let all = files();
        let (_, text) = &all[file % all.len()];
        let mut at = ((text.len() as f64) * cut) as usize;
        while !text.is_char_boundary(at) { at -= 1; }
        if let Err(e) = hfconfig::parse(&text[..at]) {
            prop_assert!(!e.field.is_empty());
            prop_assert!(e.notice().message.len() > 10);
        }
    }

    /// One numeric field replaced by a hostile value: never a panic; when the
    /// file is refused, the notice names that field.
    #[test]
    fn mutated_fields_never_panic_and_are_named(file in 0usize..32, which in 0usize..64, value in hostile()) {
        let all = files();
        let (_, text) = &all[file % all.len()];
        let mut json: serde_json::Value = serde_json::from_str(text).expect("json");
        let mut keys: Vec<(Option<String>, String)> = Vec::new();
        if let Some(obj) = json.as_object() {
            for (k, v) in obj {
                if v.is_number() { keys.push((None, k.clone())); }
                if let Some(inner) = v.as_object() {
                    keys.extend(inner.iter().filter(|(_, x)| x.is_number()).map(|(ik, _)| (Some(k.clone()), ik.clone())));
                }
            }
        }
        let (section, key) = keys[which % keys.len()].clone();
        let new: serde_json::Value = serde_json::from_str(&value).expect("value");
        match &section {
            Some(s) => { json[s.as_str()][key.as_str()] = new; }
            None => { json[key.as_str()] = new; }
        }
        if let Err(e) = hfconfig::parse(&json.to_string()) {
            let named = match &section { Some(s) => format!("{s}.{key}"), None => key.clone() };
            // Either the mutated field itself, or a field that now fails because of it.
            prop_assert!(e.field == named || e.field.ends_with(&key) || matches!(e.problem, Problem::Divides { .. } | Problem::AtMost { .. } | Problem::Missing), "{e:?} for {named}");
        }
    }

    #[test]
    fn arbitrary_text_never_panics(s in ".{0,300}") {
        let _ = hfconfig::parse(&s);
        let _ = hfconfig::import(&Config::default(), &s);
    }
}

/// Each architecture key added for imports: a value round-trips through a
/// link, a bad value is a notice for that key alone, and the contract's key
/// table has a row naming it.
#[test]
fn architecture_keys_round_trip_and_are_documented() {
    let readme = std::fs::read_to_string("docs/link-format.md").expect("docs/link-format.md");
    let keys = [
        ("experts", "128", "0"),
        ("experts_active", "8", "x"),
        ("shared_experts", "2", "65"),
        ("expert_ffn", "1536", "8"),
        ("dense_layers", "3", "-1"),
        ("kv_lora", "512", "4"),
        ("q_lora", "1536", "1e9"),
        ("rope_dim", "64", "2000"),
        ("window", "4096", "0"),
        ("global_every", "6", "0"),
        ("tied", "1", "yes"),
        ("context", "131072", "0"),
        ("vision_params", "0.576", "200"),
        ("image_tokens", "576", "0"),
        ("image_px", "336", "9000"),
        ("image_tiles", "4", "0"),
        ("patch_px", "14", "0"),
        ("cross_layers", "8", "2000"),
    ];
    for (key, good, bad) in keys {
        let q = format!("model=custom&{key}={good}");
        let (cfg, notices) = decode(&q);
        assert!(notices.is_empty(), "{q}: {notices:?}");
        let link = encode(&cfg);
        assert!(link.contains(&format!("&{key}={good}")), "{link} writes {key}={good}");
        assert_eq!(decode(&link).0, cfg, "{key} round-trips");
        let (bad_cfg, notices) = decode(&format!("model=custom&{key}={bad}"));
        assert_eq!(notices.iter().map(|n| n.key.as_str()).collect::<Vec<_>>(), vec![key], "{key}={bad}");
        assert_eq!(bad_cfg.custom, Config::default().custom, "{key}={bad} keeps the default");
        assert!(
            readme.lines().any(|l| l.starts_with('|') && l.contains(&format!("`{key}`"))),
            "docs/link-format.md has a row for `{key}`"
        );
    }
}

/// Keys typed by hand describe the same model as an import: DeepSeek-V3's
/// shape without `params` adds up to its 671B, 37B active.
#[test]
fn hand_written_keys_count_their_parameters() {
    let q = "model=custom&layers=61&hidden=7168&heads=128&kv_heads=128&head_dim=192&ffn=18432&vocab=129280&experts=256&experts_active=8\
             &shared_experts=1&expert_ffn=2048&dense_layers=3&kv_lora=512&q_lora=1536&rope_dim=64";
    let (cfg, _) = decode(q);
    let m = through_link(&cfg);
    let ds = catalog().model("deepseek-v3").expect("deepseek-v3");
    assert!((m.params_total / ds.params_total - 1.0).abs() < TOTAL_TOLERANCE, "{}", m.params_total);
    assert!((m.params_active / ds.params_active - 1.0).abs() < ACTIVE_TOLERANCE, "{}", m.params_active);
    // Experts without their width are said, and the model stays dense.
    let (cfg, _) = decode("model=custom&params=40&experts=8");
    let r = resolve(&cfg, Vec::new(), catalog());
    assert!(r.notices.iter().any(|n| n.key == "experts"), "{:?}", r.notices);
}

/// Llama 4, which the catalog does not hold, against Meta's model cards
/// (huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct and
/// …/Llama-4-Maverick-17B-128E-Instruct, read 2026-12-02: "17B activated,
/// 109B total" and "17B activated, 400B total", the vision encoder
/// included). The import once missed the shared expert every Llama 4 MoE
/// layer has and took Maverick's dense layers at the expert's width:
/// Scout came to 102.6B with 11B active, so every token's bytes were short
/// by a third.
#[test]
fn llama4_counts_its_shared_expert_and_wide_dense_layers() {
    for (file, total, active, dense) in [
        ("meta-llama--Llama-4-Scout-17B-16E-Instruct", 109e9, 17e9, 0),
        ("meta-llama--Llama-4-Maverick-17B-128E-Instruct", 400e9, 17e9, 24),
    ] {
        let m = parse(file);
        let moe = m.moe.clone().expect("a mixture of experts");
        assert_eq!(
            (moe.shared, moe.first_dense_layers, moe.expert_ffn),
            (1, dense, 8192),
            "{file}: shared expert, dense layers, expert width"
        );
        if dense > 0 {
            assert_eq!(m.ffn, Some(16384), "{file}: dense layers are intermediate_size_mlp wide");
        }
        // The counts hold the vision tower, as the model cards' do.
        let (got, act) = (m.params_total, m.params_active);
        assert!(
            (got / total - 1.0).abs() < TOTAL_TOLERANCE,
            "{file}: {:.1}B vs {:.0}B published",
            got / 1e9,
            total / 1e9
        );
        assert!(
            (act / active - 1.0).abs() < ACTIVE_TOLERANCE,
            "{file}: active {:.1}B vs {:.0}B published",
            act / 1e9,
            active / 1e9
        );
        // Pixel shuffle at ratio 0.5 keeps a quarter of a tile's 24 × 24 patches.
        assert_eq!(
            m.vision.as_ref().and_then(|v| v.image_tokens),
            Some(144),
            "{file}: image tokens per tile"
        );
    }
}
