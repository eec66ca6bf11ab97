//! The engine × architecture × format support table: every cell resolves to
//! exactly one row, every row has a source, and cells the sources state.

use whichgpu::core::catalog::gpus::Arch;
use whichgpu::core::catalog::support::{
    lookup, parse_support, table_format, SupportRow, KV_FORMATS, WEIGHT_FORMATS,
};
use whichgpu::core::catalog::{Kind, Support};
use whichgpu::core::config::Engine;
use whichgpu::core::precision;

use crate::common::catalog;

fn archs() -> Vec<String> {
    let mut a: Vec<String> = catalog().gpus.iter().map(|g| g.arch.as_str().to_string()).collect();
    a.sort();
    a.dedup();
    a
}

#[test]
fn every_combination_resolves_to_exactly_one_row() {
    let c = catalog();
    let archs = archs();
    // Every architecture of the enum has a GPU row, so every one is walked.
    assert_eq!(archs.len(), Arch::ALL.len(), "{archs:?}");
    let mut cells = 0;
    for &engine in Engine::ALL {
        for arch in &archs {
            for kind in [Kind::Weights, Kind::Kv] {
                for format in kind.formats() {
                    let matching: Vec<&SupportRow> =
                        c.support.iter().filter(|r| r.matches(engine, arch, kind, format)).collect();
                    let best = matching.iter().map(|r| r.specificity()).max();
                    let winners = matching.iter().filter(|r| Some(r.specificity()) == best).count();
                    assert_eq!(
                        winners,
                        1,
                        "{engine} {arch} {} {format}: {winners} rows at the top level",
                        kind.as_str()
                    );
                    cells += 1;
                }
            }
        }
    }
    assert_eq!(cells, Engine::ALL.len() * archs.len() * (WEIGHT_FORMATS.len() + KV_FORMATS.len()));
    assert_eq!(cells, 5 * 14 * (13 + 6));
}

#[test]
fn every_row_has_a_source_and_a_version() {
    for r in &catalog().support {
        assert!(!r.source.trim().is_empty(), "{r:?}");
        assert!(!r.engine_version.trim().is_empty(), "{r:?}");
        // A `native` or `weight-only` claim says what the source shows.
        assert!(r.support == Support::Unsupported || !r.notes.contains("not documented"), "{r:?}");
    }
}

#[test]
fn format_lists_match_precision() {
    let mut ids: Vec<&str> =
        precision::weight_formats().iter().map(|f| table_format(Kind::Weights, f.id)).collect();
    ids.dedup();
    let mut want = WEIGHT_FORMATS.to_vec();
    ids.sort_unstable();
    want.sort_unstable();
    assert_eq!(ids, want);
    assert_eq!(KV_FORMATS, precision::KV_FORMATS);
}

fn cell(engine: &str, arch: &str, kind: Kind, format: &str) -> Support {
    catalog().support(engine, arch, kind, format)
}

#[test]
fn pinned_cells_hold_by_the_sources() {
    use Support::*;
    // vLLM v0.11.2 Supported Hardware table: FP8 (W8A8) and Marlin rows.
    assert_eq!(cell("vllm", "volta", Kind::Weights, "fp8"), Unsupported);
    assert_eq!(cell("vllm", "turing", Kind::Weights, "fp8"), Unsupported);
    assert_eq!(cell("vllm", "ampere", Kind::Weights, "fp8"), WeightOnly);
    assert_eq!(cell("vllm", "ada", Kind::Weights, "fp8"), Native);
    assert_eq!(cell("vllm", "hopper", Kind::Weights, "fp8"), Native);
    // mxfp4.py: FlashInfer/Triton kernels on SM90/SM100, Marlin below, nothing under SM 8.0.
    assert_eq!(cell("vllm", "hopper", Kind::Weights, "mxfp4"), Native);
    assert_eq!(cell("vllm", "blackwell", Kind::Weights, "mxfp4"), Native);
    assert_eq!(cell("vllm", "ampere", Kind::Weights, "mxfp4"), WeightOnly);
    assert_eq!(cell("vllm", "turing", Kind::Weights, "mxfp4"), Unsupported);
    // AWQ row: Volta unsupported.
    assert_eq!(cell("vllm", "volta", Kind::Weights, "int4-awq"), Unsupported);
    // quantized_kvcache (v0.11.2): FP8 KV is stored at 1 byte with no fused
    // dequantization+attention, so on Ampere it saves memory, not math.
    assert_eq!(cell("vllm", "ampere", Kind::Kv, "fp8"), WeightOnly);
    assert_eq!(cell("vllm", "ampere", Kind::Kv, "q4_0"), Unsupported);
    // llama.cpp: CUDA backend for every NVIDIA GPU, HIP for AMD, no Gaudi.
    for arch in ["volta", "turing", "ampere", "ada", "hopper", "blackwell"] {
        for f in ["gguf-q4_k_m", "gguf-q8_0", "gguf-f16"] {
            assert_eq!(cell("llama.cpp", arch, Kind::Weights, f), Native, "{arch} {f}");
        }
        assert_eq!(cell("llama.cpp", arch, Kind::Weights, "int4-awq"), Unsupported);
    }
    assert_eq!(cell("llama.cpp", "gaudi2", Kind::Weights, "gguf-q4_k_m"), Unsupported);
    assert_eq!(cell("llama.cpp", "hopper", Kind::Kv, "q8_0"), Native);
    // TensorRT-LLM: NVIDIA only; FP8 from Ada.
    assert_eq!(cell("trt-llm", "cdna3", Kind::Weights, "bf16"), Unsupported);
    assert_eq!(cell("trt-llm", "ampere", Kind::Weights, "fp8"), Unsupported);
    assert_eq!(cell("trt-llm", "hopper", Kind::Weights, "fp8"), Native);
    // Gaudi: only INC FP8 beyond BF16 in vLLM; GGUF on Gaudi is not documented.
    assert_eq!(cell("vllm", "gaudi2", Kind::Weights, "fp8"), Native);
    assert_eq!(cell("vllm", "gaudi3", Kind::Weights, "int4-awq"), Unsupported);
    assert_eq!(cell("vllm", "gaudi3", Kind::Weights, "gguf-q4_k_m"), Unsupported);
    // BF16 needs SM 8.0.
    assert_eq!(cell("vllm", "turing", Kind::Weights, "bf16"), Unsupported);
    assert_eq!(cell("vllm", "turing", Kind::Weights, "fp16"), Native);
    // Ascend 910B (Atlas A2): vLLM Ascend and SGLang run 16-bit and msModelSlim
    // W8A8 natively, W8A16/GPTQ as weight-only; no FP8 units; TensorRT-LLM and
    // transformers do not run there; llama.cpp's CANN backend lacks k-quants.
    assert_eq!(cell("vllm", "ascend910b", Kind::Weights, "bf16"), Native);
    assert_eq!(cell("vllm", "ascend910b", Kind::Weights, "int8"), Native);
    assert_eq!(cell("vllm", "ascend910b", Kind::Weights, "int8-wo"), WeightOnly);
    assert_eq!(cell("vllm", "ascend910b", Kind::Weights, "fp8"), Unsupported);
    assert_eq!(cell("vllm", "ascend910b", Kind::Weights, "int4-awq"), Unsupported);
    assert_eq!(cell("vllm", "ascend910b", Kind::Kv, "fp8"), Unsupported);
    assert_eq!(cell("vllm", "ascend910b", Kind::Kv, "bf16"), Native);
    assert_eq!(cell("sglang", "ascend910b", Kind::Weights, "int4-gptq"), WeightOnly);
    assert_eq!(cell("sglang", "ascend910b", Kind::Weights, "fp8"), Unsupported);
    assert_eq!(cell("trt-llm", "ascend910b", Kind::Weights, "bf16"), Unsupported);
    assert_eq!(cell("hf", "ascend910b", Kind::Weights, "bf16"), Unsupported);
    assert_eq!(cell("llama.cpp", "ascend910b", Kind::Weights, "gguf-q4_k_m"), Unsupported);
    assert_eq!(cell("llama.cpp", "ascend910b", Kind::Kv, "fp16"), Native);
    // An unknown engine is unsupported, not a panic.
    assert_eq!(cell("nope", "hopper", Kind::Weights, "bf16"), Unsupported);
}

#[test]
fn lookup_prefers_the_most_specific_row() {
    let text = "engine,engine_version,arch,kind,format,support,source,notes\n\
                vllm,v1,*,weights,*,unsupported,s,\n\
                vllm,v1,*,weights,fp8,native,s,\n\
                vllm,v1,ampere,weights,*,weight-only,s,\n\
                vllm,v1,ampere,weights,bf16,native,s,\n";
    let rows = parse_support(text).expect("parses");
    let get = |arch: &str, f: &str| lookup(&rows, Engine::Vllm, arch, Kind::Weights, f).map(|r| r.support);
    assert_eq!(get("ampere", "bf16"), Some(Support::Native));
    assert_eq!(get("ampere", "fp8"), Some(Support::WeightOnly), "arch beats format");
    assert_eq!(get("hopper", "fp8"), Some(Support::Native));
    assert_eq!(get("hopper", "nf4"), Some(Support::Unsupported));
    assert_eq!(lookup(&rows, Engine::Sglang, "hopper", Kind::Weights, "fp8"), None);
}

#[test]
fn bad_rows_are_rejected_naming_row_and_field() {
    let head = "engine,engine_version,arch,kind,format,support,source,notes\n";
    for (row, field) in [
        ("tgi,v1,*,weights,*,native,s,", "engine"),
        ("vllm,v1,*,weights,int3,native,s,", "format"),
        ("vllm,v1,*,kv,nf4,native,s,", "format"),
        ("vllm,v1,*,both,*,native,s,", "kind"),
        ("vllm,v1,*,weights,*,maybe,s,", "support"),
        ("vllm,v1,*,weights,*,native,,", "source"),
        ("vllm,,*,weights,*,native,s,", "engine_version"),
    ] {
        let e = parse_support(&format!("{head}{row}\n")).expect_err(row).to_string();
        assert!(e.contains("row 1") && e.contains(&format!("`{field}`")), "{row}: {e}");
    }
    assert!(parse_support("engine,arch\nvllm,*\n").is_err());
}

#[test]
fn unknown_archs_and_duplicate_keys_are_rejected() {
    use whichgpu::core::catalog::support::check_support;
    let c = catalog();
    let head = "engine,engine_version,arch,kind,format,support,source,notes\n";
    let rows = parse_support(&format!("{head}vllm,v1,kepler,weights,*,native,s,\n")).expect("parses");
    let e = check_support(&rows, &c.gpus).expect_err("kepler").to_string();
    assert!(e.contains("row 1") && e.contains("`arch`"), "{e}");
    let rows = parse_support(&format!("{head}vllm,v1,*,kv,fp8,native,s,\nvllm,v2,*,kv,fp8,unsupported,s,\n"))
        .expect("parses");
    let e = check_support(&rows, &c.gpus).expect_err("duplicate").to_string();
    assert!(e.contains("row 2"), "{e}");
}
