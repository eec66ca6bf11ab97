//! llama.cpp's single-token matrix-vector kernel on Pascal
//! (`estimate::dp4a::mmvq_weights_s`): its cycles per weight are what the
//! counted SASS (`tests/data/mmvq_sm61_sass.csv`) gives, and only a
//! single-token llama.cpp step on the Pascal DP4A card changes.

use std::collections::HashMap;

use proptest::prelude::*;
use whichgpu::core::catalog::gpus::Arch;
use whichgpu::core::config::Engine;
use whichgpu::core::estimate::dp4a::{mmvq_cycles_per_weight, mmvq_weights_s};
use whichgpu::core::precision;

use crate::common;

/// Issue cycles per weight per ggml type: every instruction one cycle, a
/// half-rate one two, a conversion or a load four.
fn cycles_per_type() -> HashMap<String, f64> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mmvq_sm61_sass.csv"))
        .unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut out = HashMap::new();
    for rec in reader.records() {
        let rec = rec.unwrap();
        let n = |i: usize| rec.get(i).unwrap().parse::<f64>().unwrap();
        out.insert(rec.get(0).unwrap().to_string(), (n(2) + n(3) + 3.0 * n(4) + 3.0 * n(5)) / n(1));
    }
    out
}

/// The ggml type `llama_tensor_get_type` gives tensor `t` of layer `i` of
/// `n` (ggml-org/llama.cpp@8784689fee07c6daabf3487d24e1535534ef6e6b
/// src/llama-quant.cpp; a LLaMA-7B has no grouped KV heads).
fn tensor_type(format: &str, t: &str, i: usize, n: usize) -> &'static str {
    let more_bits = i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
    match (format, t) {
        ("q2_k", "v" | "o" | "down") => "q3_K",
        ("q2_k", _) => "q2_K",
        ("q3_k_m", "v") if i < 2 => "q5_K",
        ("q3_k_m", "down") if i < n / 16 => "q5_K",
        ("q3_k_m", "v" | "o" | "down") => "q4_K",
        ("q3_k_m", _) => "q3_K",
        ("q4_k_s", "v") if i < 4 => "q5_K",
        ("q4_k_s", "down") if i < n / 8 => "q5_K",
        ("q4_k_s", _) => "q4_K",
        ("q4_k_m", "v" | "down") if more_bits => "q6_K",
        ("q4_k_m", _) => "q4_K",
        ("q5_k_m", "v" | "down") if more_bits => "q6_K",
        ("q5_k_m", _) => "q5_K",
        ("q6_k", _) => "q6_K",
        ("q4_0", _) => "q4_0",
        ("q4_1", _) => "q4_1",
        ("q5_0", _) => "q5_0",
        ("q8_0", _) => "q8_0",
        _ => panic!("{format}"),
    }
}

#[test]
fn cycles_per_weight_are_the_counted_sass_over_a_llama_7b_file() {
    let per_type = cycles_per_type();
    let (d, f, layers, vocab) = (4096.0, 11008.0, 32, 32000.0);
    let tensors = [
        ("q", d * d),
        ("k", d * d),
        ("v", d * d),
        ("o", d * d),
        ("gate", d * f),
        ("up", d * f),
        ("down", d * f),
    ];
    for format in ["q2_k", "q3_k_m", "q4_0", "q4_1", "q4_k_s", "q4_k_m", "q5_0", "q5_k_m", "q6_k", "q8_0"] {
        let (mut cycles, mut weights) = (0.0, 0.0);
        for i in 0..layers {
            for (t, n) in tensors {
                cycles += n * per_type[tensor_type(format, t, i, layers)];
                weights += n;
            }
        }
        // The output head: Q6_K in every file but Q8_0's.
        let head = if format == "q8_0" { "q8_0" } else { "q6_K" };
        cycles += vocab * d * per_type[head];
        weights += vocab * d;
        let code = mmvq_cycles_per_weight(&format!("gguf-{format}")).unwrap();
        println!("{format:<7} {:.2} cycles per weight (code {code})", cycles / weights);
        assert!((cycles / weights - code).abs() < 0.006, "{format}: {} vs {code}", cycles / weights);
    }
    assert!(mmvq_cycles_per_weight("gguf-f16").is_none(), "F16 runs no MMVQ");
    // Q2_K issues more per weight than Q4_0, the memory-bound rows' type.
    assert!(per_type["q2_K"] > 2.0 * per_type["q4_0"]);
}

#[test]
fn only_a_single_token_llama_cpp_step_on_the_pascal_card_changes() {
    let catalog = common::catalog();
    let m = catalog.model("llama-2-7b").unwrap();
    let mut changed = Vec::new();
    for g in catalog.gpus_for(None) {
        for f in precision::weight_formats() {
            for engine in [Engine::LlamaCpp, Engine::Vllm] {
                let t = mmvq_weights_s(engine, &f, g, m, 1.0, 1.0, 1e-3);
                assert!(t >= 1e-3, "{}: shorter than the weight stream", g.id);
                assert_eq!(
                    mmvq_weights_s(engine, &f, g, m, 1.0, 2.0, 1e-3),
                    1e-3,
                    "{}: batches keep the stream",
                    g.id
                );
                if t > 1e-3 {
                    assert!(
                        engine == Engine::LlamaCpp && f.gguf && g.arch == Arch::Pascal,
                        "{} {} {engine:?}",
                        g.id,
                        f.id
                    );
                    changed.push(f.id);
                }
            }
        }
    }
    // On the P40 at a 1 ms stream every quantized GGUF format is issue-bound;
    // none of another card is.
    assert_eq!(changed.len(), 10, "{changed:?}");
}

proptest! {
    #[test]
    fn the_step_is_never_shorter_than_its_weight_stream(t_mem in 0.0f64..1.0, batch in 0.0f64..64.0, tp in 1.0f64..8.0) {
        let catalog = common::catalog();
        let m = catalog.model("llama-2-7b").unwrap();
        let p40 = catalog.gpu("tesla-p40-24gb").unwrap();
        for f in precision::weight_formats() {
            let t = mmvq_weights_s(Engine::LlamaCpp, &f, p40, m, tp, batch, t_mem);
            prop_assert!(t >= t_mem && t.is_finite());
        }
    }
}
