//! Issue 44: memory as today's models use it. Hybrid models hold a KV
//! cache only in their attention layers and a fixed state in their
//! linear-attention or state-space layers (catalog row and config.json
//! import); a prompt prefix every request shares is stored and prefilled
//! once per copy of the model.

use whichgpu::core::catalog::Model;
use whichgpu::core::config::Config;
use whichgpu::core::estimate::layers;
use whichgpu::core::estimate::serve::{Plan, ServeJob};
use whichgpu::core::hfconfig;
use whichgpu::core::link::decode;
use whichgpu::core::precision;

use crate::common::{answer, catalog};

fn config(query: &str) -> Config {
    let (cfg, notices) = decode(query);
    assert!(notices.is_empty(), "{query}: {notices:?}");
    cfg
}

fn job<'a>(m: &'a Model, cfg: &Config) -> ServeJob<'a> {
    ServeJob::new(m, cfg, precision::weight_format("bf16").expect("bf16"))
}

fn file(name: &str) -> String {
    std::fs::read_to_string(format!("tests/data/hf-configs/{name}.json")).expect("fixture")
}

const PLAN: Plan = Plan { tp: 1, pp: 1, dp: 1, ep: false };
const CTX: f64 = 131_072.0;

/// KV of one sequence at 128k tokens, and the same shape read as all full attention.
fn kv_against_full_attention(m: &Model) -> (f64, f64) {
    let cfg = config("task=serve&kv=bf16");
    let hybrid = job(m, &cfg).kv_per_seq_per_gpu(PLAN, CTX);
    let dense = Model { state: None, ..m.clone() };
    (hybrid, job(&dense, &cfg).kv_per_seq_per_gpu(PLAN, CTX))
}

#[test]
fn qwen3_next_holds_kv_for_its_twelve_attention_layers_and_a_state_for_the_rest() {
    let m = catalog().model("qwen3-next-80b-a3b").expect("catalog row");
    let state = m.state.as_ref().expect("state layers");
    assert_eq!((m.layers, m.attention_layers(), state.layers), (48, 12, 36));
    // 32 value heads × 128 × 128 recurrent + (2·16·128 + 32·128) × 3 convolution.
    assert_eq!(state.size, 32 * 128 * 128 + (2 * 16 * 128 + 32 * 128) * 3);
    let (hybrid, full) = kv_against_full_attention(m);
    let ratio = hybrid / full;
    // 12 of 48 layers' KV plus 36 layers × 1.1 MB of state: a quarter of the full-attention cache.
    assert!(ratio <= 0.40, "Qwen3-Next at 128k holds {:.1} % of the all-full-attention KV", ratio * 100.0);
    let kv_only = 12.0 * CTX * 2.0 * 2.0 * 256.0 * 2.0;
    let state_bytes = 36.0 * f64::from(state.size) * layers::STATE_ELEM_BYTES;
    assert!((hybrid - kv_only - state_bytes).abs() / hybrid < 0.01, "{hybrid} vs {kv_only} + {state_bytes}");
}

#[test]
fn a_qwen3_next_config_imports_as_the_catalog_row() {
    let import = hfconfig::parse(&file("Qwen--Qwen3-Next-80B-A3B-Instruct")).expect("parse");
    let got = import.model;
    let want = catalog().model("qwen3-next-80b-a3b").expect("row");
    let state = |m: &Model| m.state.as_ref().map(|s| (s.layers, s.size));
    assert_eq!(state(&got), state(want));
    assert_eq!(
        (got.layers, got.heads, got.kv_heads, got.head_dim, &got.moe),
        (want.layers, want.heads, want.kv_heads, want.head_dim, &want.moe)
    );
    assert!(
        (got.params_total / want.params_total - 1.0).abs() < 0.015,
        "{} vs {}",
        got.params_total,
        want.params_total
    );
    assert!(
        (got.params_active / want.params_active - 1.0).abs() < 0.10,
        "{} vs {}",
        got.params_active,
        want.params_active
    );
    let (hybrid, full) = kv_against_full_attention(&got);
    assert!(hybrid / full <= 0.40, "imported: {:.1} %", hybrid / full * 100.0);
}

#[test]
fn a_jamba_config_imports_with_its_mamba_layers_and_experts() {
    let import = hfconfig::parse(&file("ai21labs--AI21-Jamba-1.5-Mini")).expect("a Jamba config imports");
    let m = import.model;
    // Layer i attends when i % 8 == 4: layers 4, 12, 20, 28; the other 28 are Mamba.
    let state = m.state.as_ref().expect("mamba layers");
    assert_eq!((m.attention_layers(), state.layers), (4, 28));
    // d_inner = 2 × 4096; state 8192 × 16 plus the convolution's 8192 × 3.
    assert_eq!(state.size, 8192 * 16 + 8192 * 3);
    let moe = m.moe.as_ref().expect("experts");
    assert_eq!((moe.experts, moe.active, moe.expert_ffn, moe.first_dense_layers), (16, 2, 14336, 16));
    // AI21's card: 52B total, 12B active.
    assert!((m.params_total / 52e9 - 1.0).abs() < 0.02, "total {:.2}B", m.params_total / 1e9);
    assert!((m.params_active / 12e9 - 1.0).abs() < 0.05, "active {:.2}B", m.params_active / 1e9);
    assert!(import.notices.is_empty(), "{:?}", import.notices);
    // Through the link (no file): the same layers and state.
    let (cfg, _) =
        hfconfig::import(&Config::default(), &file("ai21labs--AI21-Jamba-1.5-Mini")).expect("import");
    let q = whichgpu::core::link::encode(&cfg);
    assert!(q.contains("state_layers=28") && q.contains("state_size=155648"), "{q}");
    let a = answer(&format!("{q}&in=100000&out=1000&batch=1"));
    assert!(a.notices.is_empty(), "{:?}", a.notices);
    // 4 attention layers × 101k tokens × 8 KV heads × 128 × 2 × 2 B + 28 × 155,648 × 2 B.
    let want = 4.0 * 101_008.0 * 8.0 * 128.0 * 4.0 + 28.0 * 155_648.0 * 2.0;
    let kv = a.memory.kv_cache_bytes;
    assert!((kv / want - 1.0).abs() < 0.02, "Jamba KV {kv} vs {want}");
}

#[test]
fn a_shared_prefix_is_stored_once_and_not_prefilled_again() {
    let m = catalog().model("llama-3.1-8b").expect("row");
    let gpu = catalog().gpu("h100-sxm-80gb").expect("gpu");
    let base = config("task=serve&model=llama-3.1-8b&in=5000&out=500&batch=32");
    let shared = config("task=serve&model=llama-3.1-8b&in=5000&out=500&batch=32&prefix=4000");
    let (a, b) = (job(m, &base), job(m, &shared));
    assert_eq!(b.shared_prefix, 4000.0);
    let prefix_kv = job(m, &base).kv_per_seq_per_gpu(PLAN, 4000.0);
    // 32 sequences: one copy of the prefix's KV instead of 32.
    let saved = a.memory(PLAN, 32.0).kv_cache - b.memory(PLAN, 32.0).kv_cache;
    assert!((saved / (31.0 * prefix_kv) - 1.0).abs() < 0.01, "saved {saved} vs 31 × {prefix_kv}");
    assert!(b.max_batch(gpu, PLAN) > a.max_batch(gpu, PLAN));
    // Only the 1,000 new tokens are prefilled: time to first token drops.
    let (ta, tb) =
        (a.speed(gpu, PLAN, 32.0).time_to_first_token_s, b.speed(gpu, PLAN, 32.0).time_to_first_token_s);
    assert!(tb < 0.5 * ta, "TTFT {tb} vs {ta}");
    // The bill: the most sequences that fit, and fewer prompt tokens to prefill, cost less per token.
    let cost = |q: &str| {
        let ans = answer(q);
        ans.offers
            .iter()
            .find(|o| o.fits)
            .and_then(|o| o.usd_per_million_output_tokens)
            .expect("a fitting offer with a cost")
    };
    let q = "task=serve&model=llama-3.1-8b&in=5000&out=500&batch=max&gpu=l4-24gb&use=always";
    let (plain, cached) = (cost(q), cost(&format!("{q}&prefix=4000")));
    assert!(cached < plain, "$ per Mtok {cached} vs {plain}");
}

#[test]
fn a_prefix_above_the_prompt_is_clamped_and_bad_values_name_the_key() {
    let a = answer("task=serve&model=llama-3.1-8b&in=3000&prefix=4000");
    assert!(a.notices.iter().any(|n| n.key == "prefix" && n.message.contains("3000")), "{:?}", a.notices);
    assert!(a.query.contains("prefix=3000"), "{}", a.query);
    for bad in ["abc", "-5", "1.5"] {
        let (_, notices) = decode(&format!("task=serve&prefix={bad}"));
        assert!(notices.iter().any(|n| n.key == "prefix"), "{bad}: {notices:?}");
    }
    // Engines that keep no cache between requests say so.
    let a = answer("task=serve&model=llama-3.1-8b&in=3000&prefix=2000&engine=llama.cpp");
    assert!(a.notices.iter().any(|n| n.key == "prefix"), "{:?}", a.notices);
    let a = answer("task=serve&model=qwen3-next-80b-a3b&in=3000&prefix=2000");
    assert!(a.notices.iter().any(|n| n.key == "prefix"), "{:?}", a.notices);
}

#[test]
fn the_guidance_says_what_prefix_caching_saved() {
    let a = answer("task=serve&model=llama-3.1-70b&in=5000&out=300&prefix=4000&batch=32");
    let item = a.guidance.iter().find(|g| g.id == "prefix").expect("a prefix-caching note");
    // 4,000 tokens × 80 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 1.2 GiB once; 31 copies saved.
    assert!(item.text().contains("1.2 GiB") && item.text().contains("37.8 GiB"), "{}", item.text());
    assert!(answer("task=serve&model=llama-3.1-70b&in=5000&out=300&batch=32")
        .guidance
        .iter()
        .all(|g| g.id != "prefix"));
}

#[test]
fn unread_hybrids_and_incomplete_state_keys_are_said() {
    // Nemotron-H's pattern (M = Mamba-2, * = attention) is not read yet: said, not silently dropped.
    let nemotron = r#"{"model_type": "nemotron_h", "hybrid_override_pattern": "M-M-M-M*-", "num_hidden_layers": 9, "hidden_size": 4096,
        "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 21504, "vocab_size": 131072}"#;
    let import = hfconfig::parse(nemotron).expect("parse");
    assert!(
        import.notices.iter().any(|n| n.message.contains("hybrid_override_pattern")),
        "{:?}",
        import.notices
    );
    let a = answer("task=serve&model=custom&params=7&state_layers=20");
    assert!(a.notices.iter().any(|n| n.key == "state_layers"), "{:?}", a.notices);
}
