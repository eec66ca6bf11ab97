//! Fitting the media constants (`core::estimate::media`: the efficiency
//! per class, the three host-time constants, the UNet CUDA-core work per
//! latent token, the DiT SM issue cost and the bitsandbytes int8 matmul
//! share) on the rows whose
//! `split` is `fit`. Held-out rows never enter.
//!
//! A speed row is host-bound when its host time (units × the class's host
//! constant) exceeds its GPU time at the class's efficiency; host-bound rows
//! fit the host constant (median of measured seconds / units over the
//! classes that share it), the others the efficiency (median of
//! ideal / (measured − fixed − CUDA-core seconds)). Which rows are
//! host-bound depends on the constants, so the fit starts from the code's
//! values and repeats until nothing moves (a fixed point).
//!
//! The UNet CUDA-core work is searched on a grid of 0.5 M FP32 operations
//! per token (0 to 60 M), the UNet efficiency refitted at each point over
//! the GPU-bound UNet rows; the value with the smallest median error wins.
//! The diffusion transformers' SM issue cost (weight-matmul FLOPs per SM
//! cycle) is searched on a grid of 250 (500 to 40,000), the image-DiT and
//! video efficiencies refitted at each point over their GPU-bound rows and
//! both kept at or below 1 (achieved / ideal); the value with the smallest
//! mean log error over those rows wins (their median error is flat over
//! wide stretches of the grid).
//! The bitsandbytes share is, over the int8-bnb rows, 16-bit matmul seconds
//! / ((measured − fixed − issue) · efficiency − the rest of the ideal time).

use super::{median, Case};
use crate::core::estimate::media::{
    efficiency, EffClass, BNB_INT8_MATMUL_FRACTION, DIT_LINEAR_FLOPS_PER_SM_CYCLE, HOST_S_AR_KERNEL,
    HOST_S_DIFFUSION, HOST_S_UNET_FORWARD, UNET_VECTOR_FLOPS_PER_TOKEN,
};

const CLASSES: [EffClass; 5] =
    [EffClass::ImageUnet, EffClass::ImageDit, EffClass::Video, EffClass::ArAudio, EffClass::FlowAudio];

/// The fitted constants, as `core::estimate::media` names them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Efficiency per class, in [`CLASSES`] order.
    pub eff: [f64; 5],
    pub host_unet: f64,
    pub host_ar: f64,
    pub host_diffusion: f64,
    pub unet_vector: f64,
    /// Diffusion transformers' weight-matmul FLOPs per SM cycle of issue work.
    pub dit_issue: f64,
    pub bnb: f64,
}

impl Params {
    /// The values in the code.
    pub fn in_code() -> Params {
        Params {
            eff: CLASSES.map(efficiency),
            host_unet: HOST_S_UNET_FORWARD,
            host_ar: HOST_S_AR_KERNEL,
            host_diffusion: HOST_S_DIFFUSION,
            unet_vector: UNET_VECTOR_FLOPS_PER_TOKEN,
            dit_issue: DIT_LINEAR_FLOPS_PER_SM_CYCLE,
            bnb: BNB_INT8_MATMUL_FRACTION,
        }
    }

    fn slot(class: EffClass) -> usize {
        CLASSES.iter().position(|c| *c == class).unwrap_or(0)
    }

    pub fn eff(&self, class: EffClass) -> f64 {
        self.eff.get(Self::slot(class)).copied().unwrap_or(1.0)
    }

    fn host(&self, class: EffClass) -> f64 {
        match class {
            EffClass::ArAudio => self.host_ar,
            EffClass::ImageUnet => self.host_unet,
            _ => self.host_diffusion,
        }
    }
}

/// One constant: what the fit finds and what the code holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Constant {
    pub name: &'static str,
    /// Fit rows it was fitted on (0: nothing to fit; the code's value stays).
    pub rows: usize,
    pub fitted: f64,
    pub current: f64,
    /// Relative tolerance: the code's value is rounded (factors to 0.005,
    /// host times to 2 %, the CUDA-core work to one grid step).
    pub tolerance: f64,
    /// How the report prints it: the value × `scale`, then `unit`.
    pub scale: f64,
    pub unit: &'static str,
}

impl Constant {
    /// The value as the report prints it (`{:.4}` of value × scale, then the unit).
    pub fn shown(&self, v: f64) -> String {
        format!("{:.4}{}", v * self.scale, self.unit)
    }

    pub fn drifted(&self) -> bool {
        self.rows > 0 && (self.fitted / self.current - 1.0).abs() > self.tolerance
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    pub params: Params,
    pub constants: Vec<Constant>,
    /// Passes until the host-bound split stopped moving.
    pub passes: usize,
    /// States the passes cycled between (1: a fixed point).
    pub cycle: usize,
    /// Fit rows per class fitted as GPU-bound and as host-bound (last pass).
    pub rows_gpu: [usize; 5],
    pub rows_host: [usize; 5],
}

/// A fit row's ideal seconds with the bitsandbytes share `bnb` in place of the code's.
fn ideal_at(c: &Case, ideal: f64, bnb: f64) -> f64 {
    match c.bnb_16bit_s {
        Some(b16) => ideal - b16 / BNB_INT8_MATMUL_FRACTION + b16 / bnb,
        None => ideal,
    }
}

fn vector_at(c: &Case, v: f64) -> f64 {
    c.vector_s * v / UNET_VECTOR_FLOPS_PER_TOKEN
}

/// A row's SM issue seconds at `per_cycle` weight-matmul FLOPs per SM cycle.
fn issue_at(c: &Case, per_cycle: f64) -> f64 {
    c.issue_s * DIT_LINEAR_FLOPS_PER_SM_CYCLE / per_cycle.max(1.0)
}

/// Seconds of a row that the efficiency does not scale.
fn unscaled(c: &Case, p: &Params, fixed: f64) -> f64 {
    fixed + vector_at(c, p.unet_vector) + issue_at(c, p.dit_issue)
}

fn is_host_bound(c: &Case, p: &Params) -> Option<bool> {
    let (class, (ideal, fixed, _), (units, _)) = (c.class?, c.fit?, c.host?);
    let gpu_s = ideal_at(c, ideal, p.bnb) / p.eff(class) + unscaled(c, p, fixed);
    Some(units * p.host(class) > gpu_s)
}

/// One pass: every constant refitted from `p`'s host-bound split.
fn step(fit_rows: &[&Case], p: &Params) -> (Params, [usize; 5], [usize; 5], [usize; 3]) {
    let mut next = *p;
    let (n_gpu, n_host, counts) = fit_classes(fit_rows, p, &mut next);
    fit_unet_vector(fit_rows, p, &mut next);
    fit_dit_issue(fit_rows, p, &mut next);
    fit_bnb(fit_rows, &mut next);
    (next, n_gpu, n_host, counts)
}

/// Each class's efficiency on its GPU-bound rows and the host cost per unit
/// on the host-bound ones (medians): the rows counted per class, and the
/// host rows per host slot.
fn fit_classes(fit_rows: &[&Case], p: &Params, next: &mut Params) -> ([usize; 5], [usize; 5], [usize; 3]) {
    let (mut n_gpu, mut n_host) = ([0usize; 5], [0usize; 5]);
    let mut host_rows: [Vec<f64>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for (i, class) in CLASSES.iter().enumerate() {
        let mut ratios = Vec::new();
        for c in fit_rows.iter().filter(|c| c.class == Some(*class) && c.bnb_16bit_s.is_none()) {
            let (Some((ideal, fixed, t)), Some((units, loop_s)), Some(host)) =
                (c.fit, c.host, is_host_bound(c, p))
            else {
                continue;
            };
            if host {
                let slot = match class {
                    EffClass::ArAudio => 1,
                    EffClass::ImageUnet => 0,
                    _ => 2,
                };
                if let Some(v) = host_rows.get_mut(slot) {
                    v.push(loop_s / units);
                }
                if let Some(n) = n_host.get_mut(i) {
                    *n += 1;
                }
            } else {
                ratios.push(ideal / (t - unscaled(c, p, fixed)));
                if let Some(n) = n_gpu.get_mut(i) {
                    *n += 1;
                }
            }
        }
        if !ratios.is_empty() {
            if let Some(e) = next.eff.get_mut(i) {
                *e = median(&mut ratios);
            }
        }
    }
    let counts: [usize; 3] = std::array::from_fn(|i| host_rows.get(i).map_or(0, Vec::len));
    for (slot, v) in host_rows.iter_mut().enumerate() {
        if v.is_empty() {
            continue;
        }
        let m = median(v);
        match slot {
            0 => next.host_unet = m,
            1 => next.host_ar = m,
            _ => next.host_diffusion = m,
        }
    }
    (n_gpu, n_host, counts)
}

/// The UNet's CUDA-core work per pixel: a grid search, the efficiency
/// refitted at each point.
fn fit_unet_vector(fit_rows: &[&Case], p: &Params, next: &mut Params) {
    // UNet CUDA-core work: grid search, the efficiency refitted at each point.
    let unet: Vec<&&Case> = fit_rows
        .iter()
        .filter(|c| {
            c.class == Some(EffClass::ImageUnet)
                && c.bnb_16bit_s.is_none()
                && is_host_bound(c, p) == Some(false)
        })
        .collect();
    let mut best = (f64::MAX, p.unet_vector, next.eff(EffClass::ImageUnet));
    for k in 0..=120u32 {
        let v = f64::from(k) * 0.5e6;
        let mut ratios: Vec<f64> = unet
            .iter()
            .filter_map(|c| c.fit.map(|(i, fx, t)| i / (t - fx - vector_at(c, v))))
            .filter(|r| *r > 0.0)
            .collect();
        if ratios.is_empty() {
            break;
        }
        let e = median(&mut ratios);
        let mut errs: Vec<f64> = unet
            .iter()
            .filter_map(|c| c.fit.map(|(i, fx, t)| ((i / e + fx + vector_at(c, v)) / t - 1.0).abs()))
            .collect();
        let err = median(&mut errs);
        if err < best.0 - 1e-9 {
            best = (err, v, e);
        }
    }
    if !unet.is_empty() {
        next.unet_vector = best.1;
        if let Some(e) = next.eff.get_mut(Params::slot(EffClass::ImageUnet)) {
            *e = best.2;
        }
    }
}

/// The diffusion transformers' SM issue work per cycle: a grid search, the
/// image-DiT and video efficiencies refitted at each point.
fn fit_dit_issue(fit_rows: &[&Case], p: &Params, next: &mut Params) {
    // Diffusion transformers' SM issue work: grid search (steps of 250), the
    // image-DiT and video efficiencies refitted at each point over their
    // GPU-bound rows, the value with the smallest mean log error kept.
    let dit_classes = [EffClass::ImageDit, EffClass::Video];
    let dit: Vec<&&Case> = fit_rows
        .iter()
        .filter(|c| {
            c.class.is_some_and(|k| dit_classes.contains(&k))
                && c.bnb_16bit_s.is_none()
                && is_host_bound(c, p) == Some(false)
        })
        .collect();
    let mut best_issue: Option<(f64, f64, [f64; 2])> = None;
    for per_cycle in (2..=160u32).map(|k| f64::from(k) * 250.0) {
        let mut effs = [f64::NAN; 2];
        let mut ok = true;
        for (slot, class) in dit_classes.iter().enumerate() {
            let mut ratios: Vec<f64> = dit
                .iter()
                .filter(|c| c.class == Some(*class))
                .filter_map(|c| c.fit.map(|(i, fx, t)| i / (t - fx - issue_at(c, per_cycle))))
                .collect();
            // An efficiency is achieved / ideal: above 1 the issue time
            // leaves less than the tensor cores' own time.
            let e = if ratios.is_empty() { next.eff(*class) } else { median(&mut ratios) };
            if ratios.iter().any(|r| *r <= 0.0) || e > 1.0 {
                ok = false;
            }
            if let Some(x) = effs.get_mut(slot) {
                *x = e;
            }
        }
        if !ok {
            continue;
        }
        let errs: Vec<f64> = dit
            .iter()
            .filter_map(|c| {
                let slot = dit_classes.iter().position(|k| Some(*k) == c.class)?;
                let e = effs.get(slot).copied()?;
                c.fit.map(|(i, fx, t)| ((i / e + fx + issue_at(c, per_cycle)) / t).ln().abs())
            })
            .collect();
        // The mean log error: a median over a dozen rows is flat over wide
        // stretches of the grid and would leave the pair undetermined.
        let err = errs.iter().sum::<f64>() / errs.len().max(1) as f64;
        if best_issue.is_none_or(|b| err < b.0 - 1e-9) {
            best_issue = Some((err, per_cycle, effs));
        }
    }
    if let Some((_, per_cycle, effs)) = best_issue {
        next.dit_issue = per_cycle;
        for (class, e) in dit_classes.iter().zip(effs) {
            if let Some(slot) = next.eff.get_mut(Params::slot(*class)) {
                *slot = e;
            }
        }
    }
}

/// bitsandbytes' int8 share, everything else at the class's efficiency.
fn fit_bnb(fit_rows: &[&Case], next: &mut Params) {
    // bitsandbytes int8 share, everything else at the class's efficiency.
    let mut bnb: Vec<f64> = fit_rows
        .iter()
        .filter_map(|c| {
            let (b16, (ideal, fixed, t), class) = (c.bnb_16bit_s?, c.fit?, c.class?);
            let rest = ideal - b16 / BNB_INT8_MATMUL_FRACTION;
            Some(b16 / ((t - fixed - issue_at(c, next.dit_issue)) * next.eff(class) - rest))
        })
        .filter(|f| f.is_finite() && *f > 0.0)
        .collect();
    if !bnb.is_empty() {
        next.bnb = median(&mut bnb);
    }
}

/// GPU-bound fit rows of the image-DiT and video classes.
fn dit_classes_rows(n_gpu: &[usize; 5]) -> usize {
    [EffClass::ImageDit, EffClass::Video]
        .iter()
        .map(|k| n_gpu.get(Params::slot(*k)).copied().unwrap_or(0))
        .sum()
}

fn same(a: &Params, b: &Params) -> bool {
    a.eff.iter().zip(b.eff.iter()).all(|(x, y)| (x - y).abs() < 1e-9)
        && (a.host_unet - b.host_unet).abs() < 1e-12
        && (a.host_ar - b.host_ar).abs() < 1e-15
        && (a.host_diffusion - b.host_diffusion).abs() < 1e-12
        && (a.unet_vector - b.unet_vector).abs() < 1.0
        && (a.dit_issue - b.dit_issue).abs() < 1e-6
        && (a.bnb - b.bnb).abs() < 1e-9
}

/// Median |predicted / measured − 1| of the fit speed rows under `p`: each
/// row takes the longer of its GPU time and its host time.
pub fn fit_error(fit_rows: &[&Case], p: &Params) -> f64 {
    let mut errs: Vec<f64> = fit_rows
        .iter()
        .filter_map(|c| {
            let (class, (ideal, fixed, t), (units, _)) = (c.class?, c.fit?, c.host?);
            let gpu_s = ideal_at(c, ideal, p.bnb) / p.eff(class) + unscaled(c, p, fixed);
            Some((gpu_s.max(units * p.host(class)) / t - 1.0).abs())
        })
        .collect();
    median(&mut errs)
}

/// Fits every constant on the fit rows of `cases` (held-out rows are
/// dropped here, before anything is computed).
pub fn fit(cases: &[Case]) -> Fit {
    let fit_rows: Vec<&Case> = cases.iter().filter(|c| c.split == "fit").collect();
    let start = Params::in_code();
    // Passes from the code's values until nothing moves. A row on the
    // host-bound boundary can make the passes cycle between states; then the
    // state of the cycle whose median error over the fit rows is smallest
    // is the fit.
    let mut seen: Vec<Params> = vec![start];
    let mut p = start;
    let mut last = step(&fit_rows, &p);
    let mut passes = 1;
    let mut cycle_len = 0;
    loop {
        let next = last.0;
        if let Some(at) = seen.iter().position(|q| same(q, &next)) {
            let cycle: Vec<Params> = seen.get(at..).map(<[Params]>::to_vec).unwrap_or_default();
            cycle_len = cycle.len();
            let best = cycle
                .into_iter()
                .min_by(|a, b| fit_error(&fit_rows, a).total_cmp(&fit_error(&fit_rows, b)))
                .unwrap_or(next);
            if !same(&best, &p) {
                p = best;
                last = step(&fit_rows, &p);
                // `last` describes the pass from `p`; its output is not taken.
            }
            break;
        }
        seen.push(next);
        p = next;
        last = step(&fit_rows, &p);
        passes += 1;
        if passes >= 50 {
            break;
        }
    }
    let (_, n_gpu, n_host, host_counts) = last;
    let constants = constants(&fit_rows, &start, &p, &n_gpu, host_counts);
    Fit { params: p, constants, passes, cycle: cycle_len, rows_gpu: n_gpu, rows_host: n_host }
}

/// The fitted constants beside the code's, with the rows behind each.
fn constants(
    fit_rows: &[&Case],
    start: &Params,
    p: &Params,
    n_gpu: &[usize; 5],
    host_counts: [usize; 3],
) -> Vec<Constant> {
    let bnb_rows = fit_rows.iter().filter(|c| c.bnb_16bit_s.is_some() && c.fit.is_some()).count();
    let unet_rows = n_gpu.get(Params::slot(EffClass::ImageUnet)).copied().unwrap_or(0);
    let mut constants: Vec<Constant> = CLASSES
        .iter()
        .map(|class| Constant {
            name: match class {
                EffClass::ImageUnet => "efficiency(image-unet)",
                EffClass::ImageDit => "efficiency(image-dit)",
                EffClass::Video => "efficiency(video)",
                EffClass::ArAudio => "efficiency(ar-audio)",
                EffClass::FlowAudio => "efficiency(flow-audio)",
            },
            rows: n_gpu.get(Params::slot(*class)).copied().unwrap_or(0),
            fitted: p.eff(*class),
            current: start.eff(*class),
            tolerance: 0.005 / start.eff(*class),
            scale: 1.0,
            unit: "",
        })
        .collect();
    let [h_unet, h_ar, h_diff] = host_counts;
    constants.push(Constant {
        name: "HOST_S_UNET_FORWARD",
        rows: h_unet,
        fitted: p.host_unet,
        current: start.host_unet,
        tolerance: 0.02,
        scale: 1e3,
        unit: " ms",
    });
    constants.push(Constant {
        name: "HOST_S_AR_KERNEL",
        rows: h_ar,
        fitted: p.host_ar,
        current: start.host_ar,
        tolerance: 0.02,
        scale: 1e6,
        unit: " µs",
    });
    constants.push(Constant {
        name: "HOST_S_DIFFUSION",
        rows: h_diff,
        fitted: p.host_diffusion,
        current: start.host_diffusion,
        tolerance: 0.02,
        scale: 1e3,
        unit: " ms",
    });
    constants.push(Constant {
        name: "UNET_VECTOR_FLOPS_PER_TOKEN",
        rows: unet_rows,
        fitted: p.unet_vector,
        current: start.unet_vector,
        // One grid step: the error is flat near its minimum.
        tolerance: 0.51e6 / start.unet_vector,
        scale: 1e-6,
        unit: " M",
    });
    let dit_rows = dit_classes_rows(n_gpu);
    constants.push(Constant {
        name: "DIT_LINEAR_FLOPS_PER_SM_CYCLE",
        rows: dit_rows,
        fitted: p.dit_issue,
        current: start.dit_issue,
        // One grid step.
        tolerance: 251.0 / start.dit_issue,
        scale: 1.0,
        unit: "",
    });
    constants.push(Constant {
        name: "BNB_INT8_MATMUL_FRACTION",
        rows: bnb_rows,
        fitted: p.bnb,
        current: start.bnb,
        tolerance: 0.01 / start.bnb,
        scale: 1.0,
        unit: "",
    });
    constants
}
