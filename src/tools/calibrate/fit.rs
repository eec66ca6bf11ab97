//! Fitting the engine factors of one engine × GPU-class group by grid
//! search on the fit split's rows.

use super::{group, percentile, predict, source_balanced_loss, Case, Kind, Split};
use crate::core::catalog::Catalog;
use crate::core::config::Engine;
use crate::core::estimate::dp4a;
use crate::core::estimate::engine::{Factors, Launch};
use crate::core::precision;

/// Fits the bandwidth factor (on decode rows) and the compute factor (on
/// prefill and throughput rows) of one group by grid search minimising the
/// median absolute log error; returns the fitted factors.
pub fn fit_group(cases: &[&Case], catalog: &Catalog, start: Factors) -> Factors {
    let g = Group::new(cases, catalog, start);
    let mut best = start;
    for _ in 0..if g.hf { 4 } else { 2 } {
        best = g.fit_decode(best);
        best = g.fit_launches(best);
        best = g.fit_dequant(best);
        best = g.fit_compute(best);
        best = g.fit_moe(best);
        best = g.fit_dp4a(best);
    }
    best
}

/// One engine × GPU-class group's rows and what kind of engine they run.
struct Group<'a> {
    cases: &'a [&'a Case],
    catalog: &'a Catalog,
    start: Factors,
    llama: bool,
    /// vLLM and SGLang take TensorRT-LLM's bandwidth share
    /// (`engine::factors`); their rows fit only the per-layer cost of an
    /// eager model's CUDA graph.
    pytorch: bool,
    hf: bool,
    /// llama.cpp's per-layer costs, 0–300 µs in 5 µs steps (other engines
    /// capture graphs or fuse kernels and keep 0).
    grid: Vec<f64>,
}

impl<'a> Group<'a> {
    fn new(cases: &'a [&'a Case], catalog: &'a Catalog, start: Factors) -> Self {
        Group {
            cases,
            catalog,
            start,
            llama: cases.iter().all(|c| c.engine == Engine::LlamaCpp),
            pytorch: cases.iter().all(|c| matches!(c.engine, Engine::Vllm | Engine::Sglang)),
            hf: cases.iter().all(|c| c.engine == Engine::Hf),
            grid: (0..=60).map(|i| f64::from(i) * 5e-6).collect(),
        }
    }

    fn err_of(&self, f: Factors, keep: &dyn Fn(&Case) -> bool) -> f64 {
        let errs: Vec<f64> = self
            .cases
            .iter()
            .filter(|c| keep(c))
            .filter_map(|c| predict(c, self.catalog, Some(f)).map(|p| (p / c.measured).ln().abs()))
            .collect();
        if errs.is_empty() {
            0.0
        } else {
            percentile(&errs, 0.5) + 0.25 * percentile(&errs, 0.9)
        }
    }

    /// Prompt rows whose weight matmuls run llama.cpp's DP4A kernels (a
    /// Pascal card, `dp4a::mmq_rate`) fit `dp4a_share` alone, not the 16-bit shares.
    fn dp4a(&self, c: &Case) -> bool {
        let fmt = precision::weight_format(&c.format);
        let on = |g| fmt.as_ref().is_some_and(|w| dp4a::mmq_rate(c.engine, w, g, &self.start).is_some());
        matches!(c.kind, Kind::Prefill | Kind::Throughput) && self.catalog.gpu(&c.gpu).is_some_and(on)
    }

    /// llama.cpp's decode rows of MoE models fit only its per-MoE-layer cost
    /// (`engine::LLAMA_CPP_MOE_LAYER_S`), after the dense rows fit the rest.
    fn moe_decode(&self, c: &Case) -> bool {
        self.llama
            && c.kind == Kind::Decode
            && self.catalog.model(&c.model).is_some_and(|m| m.moe_layers() > 0)
    }

    fn err(&self, f: Factors, kinds: &[Kind]) -> f64 {
        self.err_of(f, &|c: &Case| kinds.contains(&c.kind) && !self.dp4a(c) && !self.moe_decode(c))
    }

    /// The decode rows' factors: an eager engine's host cost and bandwidth
    /// share, a graph-replayed PyTorch engine's per-layer cost, or the
    /// bandwidth share and per-layer cost of a current build.
    fn fit_decode(&self, mut best: Factors) -> Factors {
        let cases = self.cases;
        let graph_decode = |c: &Case| {
            c.kind == Kind::Decode
                && !self.moe_decode(c)
                && (c.engine != Engine::LlamaCpp || c.launch == Launch::Graph)
        };
        let unfused_decode = |c: &Case| c.kind == Kind::Decode && c.launch == Launch::Graph;
        if self.hf && cases.iter().any(|c| c.kind == Kind::Decode) {
            // An eager engine: the host's per-layer cost (0–2 ms in 10 µs
            // steps) and the bandwidth share jointly on its decode rows; the
            // small batches pin the first, the large ones the second
            // (`core::estimate::eager`).
            let mut b = (f64::MAX, best.bw, best.host_layer_s);
            for h in (0..=200).map(|i| f64::from(i) * 10e-6) {
                for i in 20..=100 {
                    let f = Factors { bw: f64::from(i) / 100.0, host_layer_s: h, ..best };
                    let e = self.err(f, &[Kind::Decode]);
                    if e < b.0 {
                        b = (e, f.bw, h);
                    }
                }
            }
            (best.bw, best.host_layer_s) = (b.1, b.2);
            // Then the cache traffic's own share, 0.10–1.00.
            best.cache_bw = argmin((10..=100).map(|i| f64::from(i) / 100.0), best.cache_bw, |v| {
                self.err(Factors { cache_bw: v, ..best }, &[Kind::Decode])
            });
        } else if self.pytorch && cases.iter().any(|c| unfused_decode(c)) {
            // The per-layer cost of a graph that replays the eager model's
            // kernels, 0–300 µs in 1 µs steps, at the profile's bandwidth share.
            best.layer_overhead_s =
                argmin((0..=300).map(|i| f64::from(i) * 1e-6), best.layer_overhead_s, |l| {
                    self.err_of(Factors { layer_overhead_s: l, ..best }, &unfused_decode)
                });
        } else if !self.pytorch && cases.iter().any(|c| graph_decode(c)) {
            // The bandwidth share and the per-layer cost of a graph-replayed
            // step, jointly, on the decode rows of current builds.
            let layers: Vec<f64> = if self.llama { self.grid.clone() } else { vec![best.layer_overhead_s] };
            let mut b = (f64::MAX, best.bw, best.layer_overhead_s);
            for &l in &layers {
                for i in 20..=100 {
                    let f = Factors { bw: f64::from(i) / 100.0, layer_overhead_s: l, ..best };
                    let e = self.err_of(f, &graph_decode);
                    if e < b.0 {
                        b = (e, f.bw, l);
                    }
                }
            }
            best.bw = b.1;
            best.layer_overhead_s = b.2;
        }
        best
    }

    /// llama.cpp's per-layer costs of builds that launch each kernel, and
    /// of builds with fused kernels, at the same bandwidth share.
    fn fit_launches(&self, mut best: Factors) -> Factors {
        let per_kernel_decode =
            |c: &Case| c.kind == Kind::Decode && !self.moe_decode(c) && c.launch == Launch::PerKernel;
        if self.llama && self.cases.iter().any(|c| per_kernel_decode(c)) {
            // One launch per kernel: the per-layer cost of builds before
            // CUDA graphs, at the same bandwidth share (graphs change how the
            // kernels start, not the kernels).
            best.launch_layer_s = argmin(self.grid.iter().copied(), best.launch_layer_s, |l| {
                self.err_of(Factors { launch_layer_s: l, ..best }, &per_kernel_decode)
            });
        }
        let fused_decode =
            |c: &Case| c.kind == Kind::Decode && !self.moe_decode(c) && c.launch == Launch::Fused;
        if self.llama && self.cases.iter().any(|c| fused_decode(c)) {
            // Builds with fused kernels: fewer kernels a layer, the same
            // bandwidth share.
            best.fused_layer_s = argmin(self.grid.iter().copied(), best.fused_layer_s, |l| {
                self.err_of(Factors { fused_layer_s: l, ..best }, &fused_decode)
            });
        }
        best
    }

    /// The dequantizing FLOPs per weight of weight-only formats, on their decode rows.
    fn fit_dequant(&self, mut best: Factors) -> Factors {
        if !self.pytorch && self.cases.iter().filter(|c| wo(c)).any(|c| c.kind == Kind::Decode) {
            best.dequant_flops_per_weight =
                argmin((0..=24).map(|i| f64::from(i) / 2.0), best.dequant_flops_per_weight, |d| {
                    self.err(Factors { dequant_flops_per_weight: d, ..best }, &[Kind::Decode])
                });
        }
        best
    }

    /// The compute share on prompt and throughput rows, jointly with the
    /// quantized kernels' share when both kinds of rows exist.
    fn fit_compute(&self, mut best: Factors) -> Factors {
        let cases = self.cases;
        let compute_rows =
            cases.iter().any(|c| matches!(c.kind, Kind::Prefill | Kind::Throughput) && !self.dp4a(c));
        let quant_rows = cases.iter().filter(|c| wo(c)).any(|c| c.kind == Kind::Prefill && !self.dp4a(c));
        let plain_rows = cases.iter().any(|c| c.kind == Kind::Prefill && !wo(c));
        let quants: Vec<f64> = if quant_rows && plain_rows {
            (6..=30).map(|i| f64::from(i) / 20.0).collect()
        } else {
            vec![best.quant_compute]
        };
        if compute_rows {
            let mut b = (f64::MAX, best.compute, best.quant_compute);
            for &q in &quants {
                for i in 5..=100 {
                    let f = Factors { compute: f64::from(i) / 100.0, quant_compute: q, ..best };
                    let e = self.err(f, &[Kind::Prefill, Kind::Throughput]);
                    if e < b.0 {
                        b = (e, f.compute, q);
                    }
                }
            }
            best.compute = b.1;
            best.quant_compute = b.2;
        }
        best
    }

    /// The per-MoE-layer cost (0–100 µs in 5 µs steps) and the
    /// per-expert-matrix cost (0–5 µs in 0.05 µs steps) jointly, at the
    /// dense rows' other factors, each source weighing the same
    /// (`source_balanced_loss`); the first of equals keeps the smaller.
    fn fit_moe(&self, mut best: Factors) -> Factors {
        if !self.cases.iter().any(|c| self.moe_decode(c)) {
            return best;
        }
        let moe_err = |f: Factors| {
            let errs: Vec<(&str, f64)> = self
                .cases
                .iter()
                .filter(|c| self.moe_decode(c))
                .filter_map(|c| {
                    predict(c, self.catalog, Some(f))
                        .map(|p| (c.source.as_str(), (p / c.measured).ln().abs()))
                })
                .collect();
            source_balanced_loss(&errs)
        };
        let mut b = (f64::MAX, best.moe_layer_s, best.moe_expert_s);
        for &l in self.grid.iter().take(21) {
            for i in 0..=100 {
                let x = f64::from(i) * 5e-8;
                let e = moe_err(Factors { moe_layer_s: l, moe_expert_s: x, ..best });
                if e < b.0 {
                    b = (e, l, x);
                }
            }
        }
        (best.moe_layer_s, best.moe_expert_s) = (b.1, b.2);
        best
    }

    /// The DP4A share, 0.05–1.00 in 0.01 steps, after the shares that set
    /// these rows' attention rate.
    fn fit_dp4a(&self, mut best: Factors) -> Factors {
        if self.cases.iter().any(|c| self.dp4a(c)) {
            best.dp4a_share = argmin((5..=100).map(|i| f64::from(i) / 100.0), best.dp4a_share, |v| {
                self.err_of(Factors { dp4a_share: v, ..best }, &|c| self.dp4a(c))
            });
        }
        best
    }
}

/// A weight-only quantized format (its matmuls dequantize).
fn wo(c: &Case) -> bool {
    precision::weight_format(&c.format).is_some_and(|f| f.weight_only)
}

/// The value of `values` with the smallest error, the first of equals;
/// `start` when none is below `f64::MAX` (a one-factor grid search).
fn argmin(values: impl IntoIterator<Item = f64>, start: f64, err: impl Fn(f64) -> f64) -> f64 {
    let mut b = (f64::MAX, start);
    for v in values {
        let e = err(v);
        if e < b.0 {
            b = (e, v);
        }
    }
    b.1
}

/// Writes the fitted factors of every engine × GPU-class group (what
/// `whichgpu calibrate … --fit` prints).
pub fn write_fitted(out: &mut String, cases: &[Case], catalog: &Catalog) {
    use std::fmt::Write;
    let _ = writeln!(out, "\nfitted factors (engine, HBM class): bw, compute");
    let mut keys: Vec<(Engine, bool)> = cases.iter().filter_map(|c| group(c, catalog)).collect();
    keys.sort_by_key(|k| (k.0.as_str(), k.1));
    keys.dedup();
    for key in keys {
        let train: Vec<&Case> =
            cases.iter().filter(|c| c.split == Split::Fit && group(c, catalog) == Some(key)).collect();
        let Some(gpu) = train.first().and_then(|c| catalog.gpu(&c.gpu)) else { continue };
        let f = fit_group(&train, catalog, crate::core::estimate::engine::factors(key.0, gpu));
        let _ = writeln!(
            out,
            "  {:<10} hbm={:<5} bw {:.2} compute {:.2} quant_compute {:.2} dequant_flops {:.1} layer {:.0} \
                µs launch {:.0} µs fused {:.0} µs moe {:.0} µs moe_expert {:.2} µs dp4a_share {:.2} host \
                    {:.0} µs cache_bw {:.2} ({} fit rows)",
            key.0.as_str(),
            key.1,
            f.bw,
            f.compute,
            f.quant_compute,
            f.dequant_flops_per_weight,
            f.layer_overhead_s * 1e6,
            f.launch_layer_s * 1e6,
            f.fused_layer_s * 1e6,
            f.moe_layer_s * 1e6,
            f.moe_expert_s * 1e6,
            f.dp4a_share,
            f.host_layer_s * 1e6,
            f.cache_bw,
            train.len()
        );
    }
}
