//! One serving row of a calibration file read as a case: its engine,
//! build, GPU, model, format, lengths and measured value in the
//! estimator's units, or why it cannot be scored.

use super::{engine_build, engine_of, gpu_of, split, Case, Kind, Split, Unmapped};
use crate::core::catalog::Catalog;
use crate::core::config::Engine;
use crate::core::estimate::engine::Launch;
use crate::core::precision;
use crate::core::table::Row;
use crate::core::units::GIB;

/// One serving row as a case, or why it cannot be scored.
pub(super) fn parse_case(row: &Row<'_>, id: String, catalog: &Catalog) -> Result<Case, Unmapped> {
    let skip = |reason: &str| Unmapped { id: id.clone(), reason: reason.to_string() };
    let Some(split) = Split::parse(row.text("split")) else {
        return Err(skip(&format!("split `{}` is neither fit nor held_out", row.text("split"))));
    };
    let kind = match row.text("kind") {
        "decode" => Kind::Decode,
        "prefill" => Kind::Prefill,
        "throughput" => Kind::Throughput,
        "memory" => Kind::Memory,
        "ttft" => Kind::Ttft,
        other => {
            return Err(skip(&format!("kind `{other}` is not estimated")));
        }
    };
    let notes = row.text("method_notes");
    let Some(engine) = engine_of(notes) else {
        return Err(skip("engine not recognised"));
    };
    let launch = match engine {
        Engine::LlamaCpp => engine_build::launch_of(notes, row.text("source")),
        Engine::Vllm | Engine::Sglang => {
            Some(engine_build::pytorch_launch_of(engine, notes, row.text("source")))
        }
        _ => Some(Launch::Fused),
    };
    let Some(launch) = launch else {
        return Err(skip("llama.cpp build not placed before or after CUDA graphs"));
    };
    let mut assumptions = Vec::new();
    let Some((gpu, gpu_note)) = gpu_of(row.text("gpu_id")) else {
        return Err(skip("GPU not stated by the source"));
    };
    if catalog.gpu(gpu).is_none() {
        return Err(skip(&format!("GPU `{gpu}` not in the GPU table")));
    }
    assumptions.extend(gpu_note);
    if catalog.model(row.text("model_id")).is_none() {
        return Err(skip(&format!("model `{}` not in the model table", row.text("model_id"))));
    }
    let mut format = match row.text("quant") {
        "bf16-or-fp16" => "bf16".to_string(),
        "unstated" => {
            return Err(skip("weight format not stated"));
        }
        q => q.to_string(),
    };
    // gpt-fast's int8 is weight-only (torchao-style), not W8A8.
    if notes.starts_with("gpt-fast") && format == "int8" {
        format = "int8-wo".into();
    }
    if precision::weight_format(&format).is_none() {
        return Err(skip(&format!("weight format `{format}` not modelled")));
    }
    // Memory rows carry their unit in `unit` (GB or GiB); speeds are in tok/s either way.
    let value = match row.opt_f64("value").ok().flatten() {
        Some(v) if v > 0.0 => v,
        _ => {
            return Err(skip("no value"));
        }
    };
    let lower = notes.to_ascii_lowercase();
    let (input, output) = lengths(row, kind, notes, &mut assumptions).map_err(skip)?;
    if row.text("gpus").is_empty()
        && kind != Kind::Memory
        && !notes.starts_with("llama.cpp")
        && !notes.starts_with("gpt-fast")
    {
        return Err(skip("GPU count not stated"));
    }
    let measured = measured_of(row, kind, value).map_err(skip)?;
    let kv = kv_of(&lower, &format, &mut assumptions);
    let tuple_kv_cache = engine == Engine::Hf && lower.contains("tuple kv cache");
    if tuple_kv_cache {
        assumptions.push("tuple KV cache (transformers before 4.36 or remote code)");
    }
    let decode_only = kind == Kind::Throughput
        && row.text("metric_definition").trim().to_ascii_lowercase().starts_with("decode throughput");
    if decode_only {
        assumptions.push("decode steps only (the batch over the step time), no prefill");
    }
    let scores_in_memory =
        engine == Engine::LlamaCpp && !engine_build::flash_attn_of(notes, row.text("source"));
    let deepgemm_moe = lower.contains("deepgemm");
    Ok(Case {
        ubatch: engine_build::ubatch_of(notes),
        deepgemm_moe,
        scores_in_memory,
        kv,
        tuple_kv_cache,
        decode_only,
        launch,
        id,
        split,
        source: split::source_key(row.text("source")).to_string(),
        kind,
        model: row.text("model_id").to_string(),
        format,
        gpu: gpu.to_string(),
        engine,
        tp: row.opt_u32("gpus").ok().flatten().unwrap_or(1).max(1),
        batch: row.opt_u32("batch").ok().flatten(),
        input: input.unwrap_or(1).max(1),
        output: output.unwrap_or(1).max(1),
        measured,
        assumptions,
    })
}

/// The prompt and output lengths a row states, or the documented default
/// where the source leaves one out (said in `assumptions`).
fn lengths(
    row: &Row<'_>,
    kind: Kind,
    notes: &str,
    assumptions: &mut Vec<&'static str>,
) -> Result<(Option<u32>, Option<u32>), &'static str> {
    let lower = notes.to_ascii_lowercase();
    let mut input = row.opt_u32("input_tokens").ok().flatten();
    if matches!(kind, Kind::Prefill | Kind::Ttft) && input.is_none() {
        return Err("prompt length not stated");
    }
    let mut output = row.opt_u32("output_tokens").ok().flatten();
    if kind == Kind::Memory {
        if lower.contains("long prompt") {
            return Err("prompt length of the long-prompt run is not stated");
        }
        if input.is_none() {
            input = Some(32);
            assumptions.push("short prompt: 32 tokens assumed (KV of a short MQA prompt is < 0.01 GiB)");
        }
    }
    if notes.starts_with("gpt-fast") && output.is_none() {
        // gpt-fast generate.py default max_new_tokens = 200.
        output = Some(200);
        assumptions.push("gpt-fast default max_new_tokens 200");
    }
    if kind == Kind::Throughput && (input.is_none() || output.is_none()) {
        return Err("prompt and output lengths not stated (a dataset's distribution)");
    }
    Ok((input, output))
}

/// The measured value in the estimator's units (bytes, seconds, tokens/s).
fn measured_of(row: &Row<'_>, kind: Kind, value: f64) -> Result<f64, &'static str> {
    Ok(match (row.text("unit"), kind) {
        ("GiB", _) => value * GIB,
        ("GB", _) => value * 1e9,
        ("MiB", _) => value * 1_048_576.0,
        ("MB", _) => value * 1e6,
        ("ms", Kind::Ttft) => value / 1e3,
        // A latency in ms given for a speed: the row derives tokens/s
        // in `value_normalized` (its `metric_definition` says how).
        ("ms", _) => match row.opt_f64("value_normalized").ok().flatten() {
            Some(v) if v > 0.0 => v,
            _ => {
                return Err("a latency without a derived speed");
            }
        },
        _ => value,
    })
}

/// The KV cache's format where the run's notes name one.
fn kv_of(lower: &str, format: &str, assumptions: &mut Vec<&'static str>) -> &'static str {
    let mut kv = "bf16";
    if lower.contains("modelopt") && format == "fp8" {
        // NVIDIA's ModelOpt FP8 checkpoints quantize the KV cache to FP8 as well.
        kv = "fp8";
        assumptions.push("ModelOpt FP8 checkpoint: FP8 KV cache");
    }
    if lower.contains("int8 kv cache") {
        kv = "int8";
        assumptions.push("int8 KV cache (its scales not counted)");
    }
    kv
}
