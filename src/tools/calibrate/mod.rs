//! Checking the serving estimator against published measurements
//! (`calibration.csv` format): map each row to a configuration, predict
//! through the same code path as the CLI, report errors per kind, and fit
//! the engine efficiency factors on the rows whose `split` is `fit`.
//! Rows are split by source before any fitting (`split.rs` checks that no
//! held-out source appears among the fit rows); held-out rows are scored,
//! never fitted.

pub mod engine_build;
mod fit;
pub mod prefill_fit;
mod rows;
pub mod split;
mod stats;

pub use engine_build::engine_of;
pub use fit::fit_group;
pub use split::{join, HeldOutStats, Split};
use stats::spread;
pub use stats::{ape, percentile, source_balanced_loss};

use crate::core::catalog::{Catalog, Gpu, Model};
use crate::core::config::{Batch, Config, Engine};
use crate::core::estimate::engine::{is_hbm_class, Factors, Launch};
use crate::core::estimate::prefill_fixed::PrefillFixed;
use crate::core::estimate::serve::{Plan, ServeJob};
use crate::core::precision;
use crate::core::table::{Table, TableError};
use crate::core::units::GIB;

pub const CALIBRATION_COLUMNS: &[&str] = &[
    "id",
    "split",
    "kind",
    "model_id",
    "quant",
    "gpu_id",
    "gpus",
    "batch",
    "input_tokens",
    "output_tokens",
    "task",
    "method_notes",
    "value",
    "unit",
    "value_normalized",
    "metric_definition",
    "source",
    "quality",
    "notes",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Decode,
    Prefill,
    Throughput,
    Memory,
    /// Time to first token of one request, seconds.
    Ttft,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Decode => "decode",
            Kind::Prefill => "prefill",
            Kind::Throughput => "throughput",
            Kind::Memory => "memory",
            Kind::Ttft => "ttft",
        }
    }
}

/// A measurement mapped to something the estimator can predict.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub split: Split,
    /// The source with its version or date left out (see [`split::source_key`]).
    pub source: String,
    pub kind: Kind,
    pub model: String,
    pub format: String,
    pub gpu: String,
    pub engine: Engine,
    pub tp: u32,
    pub batch: Option<u32>,
    pub input: u32,
    pub output: u32,
    /// Measured value: tokens/s, or bytes for memory.
    pub measured: f64,
    pub kv: &'static str,
    /// The run used transformers' tuple KV cache (an engine version before
    /// 4.36, or remote code): the row's notes say "tuple KV cache".
    pub tuple_kv_cache: bool,
    /// A throughput row that measures decode steps alone (an engine's
    /// latency benchmark: the batch over the median step time, no prefill).
    pub decode_only: bool,
    /// How the engine build launched decode kernels (llama.cpp before or after CUDA graphs; current for other
    /// engines).
    pub launch: Launch,
    /// llama.cpp's micro-batch when the notes give one ("n_ubatch 64"; [`engine_build::ubatch_of`]).
    pub ubatch: Option<u32>,
    /// A llama.cpp build without FlashAttention (scores through memory).
    pub scores_in_memory: bool,
    /// The notes name DeepGEMM: no Triton fused-MoE launches are charged.
    pub deepgemm_moe: bool,
    pub assumptions: Vec<&'static str>,
}

#[derive(Debug, Clone)]
pub struct Unmapped {
    pub id: String,
    pub reason: String,
}

/// GPU ids the sources left partly open, resolved the same way every time:
/// an A100 whose form factor is unstated is taken as SXM (the common cloud part).
fn gpu_of(id: &str) -> Option<(&str, Option<&'static str>)> {
    Some(match id {
        "a100-unknown" | "a100-80gb-unknown" => {
            ("a100-sxm-80gb", Some("A100 form factor/size unstated: SXM 80GB assumed"))
        }
        "a100-40gb-unknown" => ("a100-sxm-40gb", Some("A100 form factor unstated: SXM assumed")),
        "unstated" | "" => return None,
        other => (other, None),
    })
}

pub fn parse_cases(text: &str, catalog: &Catalog) -> Result<(Vec<Case>, Vec<Unmapped>), TableError> {
    let table = Table::parse("calibration.csv", text, CALIBRATION_COLUMNS)?;
    let mut cases = Vec::new();
    let mut unmapped = Vec::new();
    for row in table.rows() {
        if row.text("task") != "serve" {
            continue;
        }
        let id = row.text("id").to_string();
        match rows::parse_case(&row, id, catalog) {
            Ok(case) => cases.push(case),
            Err(u) => unmapped.push(u),
        }
    }
    Ok((cases, unmapped))
}

/// Predicts a case through the same estimator the CLI uses. With `factors`, the engine's fitted factors are
/// replaced (for fitting).
pub fn predict(case: &Case, catalog: &Catalog, factors: Option<Factors>) -> Option<f64> {
    predict_with(case, catalog, factors, None)
}

/// [`predict`], with the context phase's fixed costs also replaced (for
/// fitting them, `prefill_fit.rs`).
pub fn predict_with(
    case: &Case,
    catalog: &Catalog,
    factors: Option<Factors>,
    prefill: Option<PrefillFixed>,
) -> Option<f64> {
    let model: &Model = catalog.model(&case.model)?;
    let gpu: &Gpu = catalog.gpu(&case.gpu)?;
    let cfg = Config {
        model: Some(case.model.clone()),
        engine: case.engine,
        input_tokens: case.input,
        output_tokens: case.output,
        batch: Some(case.batch.map_or(Batch::Max, Batch::N)),
        kv: case.kv.to_string(),
        ..Config::default()
    };
    let mut job = ServeJob::new(model, &cfg, precision::weight_format(&case.format)?);
    job.factors_override = factors;
    job.tuple_kv_cache = case.tuple_kv_cache;
    job.prefill_fixed_override = prefill;
    job.launch = case.launch;
    job.attn_scores_in_memory = case.scores_in_memory;
    job.deepgemm_moe = case.deepgemm_moe;
    job.ubatch = case.ubatch;
    let plan = Plan::in_node(case.engine, case.tp, 1);
    Some(match case.kind {
        Kind::Decode => {
            // Single-stream decode benchmarks average over the generated tokens.
            let b = f64::from(case.batch.unwrap_or(1));
            let (step, _) =
                job.decode_step_s(gpu, plan, b, f64::from(case.input) + f64::from(case.output) / 2.0);
            1.0 / step
        }
        Kind::Prefill => {
            let n = f64::from(case.input);
            n / job.prefill_s(gpu, plan, n, 1.0)
        }
        Kind::Throughput => {
            let b = case.batch.map_or_else(|| f64::from(job.max_batch(gpu, plan).max(1)), f64::from);
            match case.decode_only {
                true => {
                    b / job
                        .decode_step_s(gpu, plan, b, f64::from(case.input) + f64::from(case.output) / 2.0)
                        .0
                }
                false => job.offline_throughput(gpu, plan, b),
            }
        }
        Kind::Memory => {
            // PyTorch max_memory_allocated: what the allocator handed out,
            // without the CUDA context.
            let m = job.memory(plan, f64::from(case.batch.unwrap_or(1)));
            (m.weights + m.kv_cache + m.activations) * f64::from(plan.gpus())
        }
        Kind::Ttft => job.speed(gpu, plan, 1.0).time_to_first_token_s,
    })
}

/// Factor group of a case: engine × GPU memory class.
pub fn group(case: &Case, catalog: &Catalog) -> Option<(Engine, bool)> {
    catalog.gpu(&case.gpu).map(|g| (case.engine, is_hbm_class(g)))
}

/// Errors of one kind over the mapped rows.
#[derive(Debug, Clone, PartialEq)]
pub struct KindStats {
    pub kind: Kind,
    pub rows: usize,
    pub median_ape: f64,
    pub p90_ape: f64,
    pub logo_median_ape: f64,
    /// Share of rows whose measurement lies inside the low–high range.
    pub in_range: f64,
}

#[derive(Debug, Clone)]
pub struct Report {
    pub stats: Vec<KindStats>,
    pub rows_total: usize,
    pub rows_mapped: usize,
    pub unmapped: Vec<Unmapped>,
    /// Errors of the held-out rows alone, per kind and per regime.
    pub held_out: Vec<HeldOutStats>,
    pub text: String,
}

/// Runs every `task=serve` row: predicted vs measured, errors per kind,
/// leave-one-GPU-out errors (factors refitted without that GPU's rows),
/// and with `fit` the fitted factors per engine × GPU class.
pub fn run(text: &str, catalog: &Catalog, fit: bool) -> Result<Report, TableError> {
    use std::fmt::Write;
    let (cases, unmapped) = parse_cases(text, catalog)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<6} {:<4} {:<10} {:<16} {:<12} {:<16} {:<9} {:>3} {:>12} {:>12} {:>7}",
        "id", "split", "kind", "model", "format", "gpu", "engine", "tp", "measured", "predicted", "err%"
    );
    let mut by_kind: std::collections::BTreeMap<Kind, Vec<(f64, f64, f64)>> = Default::default();
    let mut scored: Vec<(&Case, f64)> = Vec::new();
    for c in &cases {
        let Some(p) = predict(c, catalog, None) else { continue };
        scored.push((c, p));
        let (m, pv) = if c.kind == Kind::Memory { (c.measured / GIB, p / GIB) } else { (c.measured, p) };
        let e = ape(p, c.measured);
        let _ = writeln!(
            out,
            "{:<6} {:<4} {:<10} {:<16} {:<12} {:<16} {:<9} {:>3} {:>12.3} {:>12.3} {:>+7.1}{}",
            c.id,
            if c.split == Split::Fit { "fit" } else { "held" },
            c.kind.as_str(),
            c.model,
            c.format,
            c.gpu,
            c.engine.as_str(),
            c.tp,
            m,
            pv,
            (p - c.measured) / c.measured * 100.0,
            if c.assumptions.is_empty() {
                String::new()
            } else {
                format!("  [{}]", c.assumptions.join("; "))
            }
        );
        let s = spread(c.kind);
        let inside = if c.measured >= p * s.low && c.measured <= p * s.high { 1.0 } else { 0.0 };
        by_kind.entry(c.kind).or_default().push((e, f64::NAN, inside));
    }
    // Leave one GPU out: refit each group without the GPU, predict the GPU.
    let gpus: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.gpu.as_str()).collect();
    let mut logo: std::collections::BTreeMap<Kind, Vec<f64>> = Default::default();
    for g in &gpus {
        for c in cases.iter().filter(|c| c.gpu == *g) {
            let Some(key) = group(c, catalog) else { continue };
            let train: Vec<&Case> = cases
                .iter()
                .filter(|x| x.split == Split::Fit && x.gpu != *g && group(x, catalog) == Some(key))
                .collect();
            let Some(gpu) = catalog.gpu(&c.gpu) else { continue };
            let start = crate::core::estimate::engine::factors(c.engine, gpu);
            let f = if train.is_empty() || matches!(c.kind, Kind::Memory | Kind::Ttft) {
                start
            } else {
                fit_group(&train, catalog, start)
            };
            if let Some(p) = predict(c, catalog, Some(f)) {
                logo.entry(c.kind).or_default().push(ape(p, c.measured));
            }
        }
    }
    let mut stats = Vec::new();
    let _ = writeln!(
        out,
        "\n{:<11} {:>5} {:>10} {:>8} {:>14} {:>9}",
        "kind", "rows", "median%", "p90%", "leave-1-GPU%", "in-range"
    );
    for (kind, v) in &by_kind {
        let errs: Vec<f64> = v.iter().map(|x| x.0).collect();
        let st = KindStats {
            kind: *kind,
            rows: v.len(),
            median_ape: percentile(&errs, 0.5),
            p90_ape: percentile(&errs, 0.9),
            logo_median_ape: logo.get(kind).map_or(f64::NAN, |l| percentile(l, 0.5)),
            in_range: v.iter().map(|x| x.2).sum::<f64>() / v.len().max(1) as f64,
        };
        let _ = writeln!(
            out,
            "{:<11} {:>5} {:>10.1} {:>8.1} {:>14.1} {:>8.0}%",
            kind.as_str(),
            st.rows,
            st.median_ape,
            st.p90_ape,
            st.logo_median_ape,
            st.in_range * 100.0
        );
        stats.push(st);
    }
    let held_out = split::held_out_stats(&scored, catalog);
    let _ = writeln!(
        out,
        "\nheld-out rows only:\n{:<34} {:>5} {:>10} {:>8} {:>8}",
        "group", "rows", "median%", "p90%", "worst×"
    );
    for h in &held_out {
        let _ = writeln!(
            out,
            "{:<34} {:>5} {:>10.1} {:>8.1} {:>8.2}",
            h.group, h.rows, h.median_ape, h.p90_ape, h.worst_ratio
        );
    }
    let rows_total = cases.len() + unmapped.len();
    let _ = writeln!(
        out,
        "\nmapped {} of {} task=serve rows ({:.0}%)",
        cases.len(),
        rows_total,
        100.0 * cases.len() as f64 / rows_total.max(1) as f64
    );
    for u in &unmapped {
        let _ = writeln!(out, "  not mapped {}: {}", u.id, u.reason);
    }
    if fit {
        fit::write_fitted(&mut out, &cases, catalog);
        prefill_fit::write_fitted(&mut out, &cases, catalog);
    }
    Ok(Report { stats, rows_total, rows_mapped: cases.len(), unmapped, held_out, text: out })
}
