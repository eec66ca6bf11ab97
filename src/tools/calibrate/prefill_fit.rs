//! Fitting the context phase's fixed costs (`core::estimate::prefill_fixed`)
//! per engine, by grid search on the `split=fit` time-to-first-token rows
//! alone; held-out rows are never read here.

use super::{percentile, predict_with, Case, Kind, Split};
use crate::core::catalog::Catalog;
use crate::core::config::Engine;
use crate::core::estimate::prefill_fixed::{prefill_fixed, PrefillFixed};

/// Median plus a quarter of the 90th percentile of |ln(predicted/measured)|,
/// the loss the factor fit uses.
fn loss(cases: &[&Case], catalog: &Catalog, f: PrefillFixed) -> f64 {
    let errs: Vec<f64> = cases
        .iter()
        .filter_map(|c| predict_with(c, catalog, None, Some(f)).map(|p| (p / c.measured).ln().abs()))
        .collect();
    if errs.is_empty() {
        f64::MAX
    } else {
        percentile(&errs, 0.5) + 0.25 * percentile(&errs, 0.9)
    }
}

/// Fits one engine's fixed costs on its TTFT rows: the cost per request
/// always; the cost per layer when dense models are among the rows (they
/// separate it from the request cost by their layer counts); the cost per
/// routed-expert layer for the engines that run the Triton MoE runner
/// (SGLang, vLLM) when MoE models are among the rows.
pub fn fit_engine(cases: &[&Case], catalog: &Catalog, engine: Engine) -> PrefillFixed {
    let start = prefill_fixed(engine);
    let dense = cases.iter().any(|c| catalog.model(&c.model).is_some_and(|m| m.moe_layers() == 0));
    let moe = matches!(engine, Engine::Sglang | Engine::Vllm)
        && cases.iter().any(|c| catalog.model(&c.model).is_some_and(|m| m.moe_layers() > 0));
    // Per request 0–60 ms in 0.25 ms steps; per layer 0–300 µs in 2.5 µs
    // steps; per expert layer 0–2 ms in 10 µs steps.
    let requests: Vec<f64> = (0..=240).map(|i| f64::from(i) * 0.25e-3).collect();
    let second: Vec<(f64, f64)> = if dense {
        (0..=120).map(|i| (f64::from(i) * 2.5e-6, 0.0)).collect()
    } else if moe {
        (0..=200).map(|i| (0.0, f64::from(i) * 10e-6)).collect()
    } else {
        vec![(start.layer_s, start.moe_layer_s)]
    };
    let mut best = (f64::MAX, start);
    for &r in &requests {
        for &(l, m) in &second {
            let f = PrefillFixed { request_s: r, layer_s: l, moe_layer_s: m };
            let e = loss(cases, catalog, f);
            if e < best.0 {
                best = (e, f);
            }
        }
    }
    best.1
}

/// Fitted fixed costs of every engine with TTFT fit rows, with their row counts.
pub fn fit_all(cases: &[Case], catalog: &Catalog) -> Vec<(Engine, PrefillFixed, usize)> {
    let mut out = Vec::new();
    for engine in [Engine::TrtLlm, Engine::Sglang, Engine::Vllm, Engine::LlamaCpp, Engine::Hf] {
        let rows: Vec<&Case> = cases
            .iter()
            .filter(|c| c.split == Split::Fit && c.kind == Kind::Ttft && c.engine == engine)
            .collect();
        if !rows.is_empty() {
            out.push((engine, fit_engine(&rows, catalog, engine), rows.len()));
        }
    }
    out
}

/// Writes the fitted fixed costs per engine (what `whichgpu calibrate …
/// --fit` prints).
pub fn write_fitted(out: &mut String, cases: &[Case], catalog: &Catalog) {
    use std::fmt::Write;
    let _ = writeln!(out, "\nfitted context-phase fixed costs (time-to-first-token fit rows)");
    for (engine, f, rows) in fit_all(cases, catalog) {
        let _ = writeln!(
            out,
            "  {:<10} request {:.2} ms, layer {:.1} µs, MoE layer {:.0} µs ({} fit rows)",
            engine.as_str(),
            f.request_s * 1e3,
            f.layer_s * 1e6,
            f.moe_layer_s * 1e6,
            rows
        );
    }
}
