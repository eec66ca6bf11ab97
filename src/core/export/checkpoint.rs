//! The checkpoint a launch serves: the catalog model's repository, its
//! own context and the rope scaling its model card documents past it
//! (`static/models.csv`, compiled by `build.rs` into
//! `OUT_DIR/checkpoints.txt`; see `catalog::checkpoints`). Compiled only
//! into the builds that write launch texts.

use crate::core::catalog::checkpoints::decode_line;
pub use crate::core::catalog::checkpoints::Checkpoint;

const TABLE: &str = include_str!(concat!(env!("OUT_DIR"), "/checkpoints.txt"));

/// The checkpoint of a catalog language model (`None`: not in the catalog,
/// e.g. a custom or imported architecture).
pub fn of(model: &str) -> Option<Checkpoint> {
    TABLE.lines().filter_map(decode_line).find(|c| c.model == model)
}

/// Weight formats that are a checkpoint of their own (the engine loads the
/// conversion; it cannot make one from the bf16 repository at load time).
/// vLLM and SGLang quantize bf16 weights to fp8 and bitsandbytes at load
/// (docs.vllm.ai/en/v0.11.2/features/quantization/fp8.html "dynamic
/// quantization", .../bnb.html "in-flight quantization").
pub fn separate_checkpoint(format: &str) -> bool {
    !matches!(format, "bf16" | "fp16" | "fp32" | "fp8" | "int8-bnb" | "nf4")
}

/// The rope scaling a context of `len` tokens needs on this checkpoint:
/// `Some((factor, original))` past its own context where its card
/// documents YaRN.
pub fn yarn_for(c: &Checkpoint, len: u32) -> Option<(f64, u32)> {
    c.yarn.filter(|_| c.context.is_some_and(|ctx| len > ctx))
}
