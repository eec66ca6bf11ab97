//! Error statistics of the calibration: absolute percentage error,
//! percentiles, and the range each kind of estimate is given.

use super::Kind;

/// Absolute percentage error of a prediction.
pub fn ape(predicted: f64, measured: f64) -> f64 {
    (predicted - measured).abs() / measured * 100.0
}

pub fn percentile(values: &[f64], p: f64) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let idx = ((v.len() - 1) as f64 * p).round() as usize;
    v.get(idx.min(v.len() - 1)).copied().unwrap_or(f64::NAN)
}

/// The `p` quantile of values that carry weights: the smallest value whose
/// cumulative weight reaches `p` of the total (NaN when there is none).
pub fn weighted_percentile(values: &[(f64, f64)], p: f64) -> f64 {
    let mut v: Vec<(f64, f64)> = values.iter().copied().filter(|(x, w)| x.is_finite() && *w > 0.0).collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|(_, w)| w).sum();
    let mut acc = 0.0;
    for (x, w) in &v {
        acc += w;
        if acc >= p * total - 1e-12 {
            return *x;
        }
    }
    f64::NAN
}

/// The fitting loss of absolute log errors, median plus a quarter of the
/// 90th percentile, with each source weighing the same whatever its number
/// of rows (a source's rows share one machine and build: llama-bench's
/// tg128, tg256 and tg512 of one run are one measurement, not three).
pub fn source_balanced_loss(errs: &[(&str, f64)]) -> f64 {
    let mut n: std::collections::BTreeMap<&str, f64> = std::collections::BTreeMap::new();
    for (s, _) in errs {
        *n.entry(s).or_insert(0.0) += 1.0;
    }
    let w: Vec<(f64, f64)> = errs.iter().map(|(s, e)| (*e, 1.0 / n.get(s).copied().unwrap_or(1.0))).collect();
    if w.is_empty() {
        return 0.0;
    }
    weighted_percentile(&w, 0.5) + 0.25 * weighted_percentile(&w, 0.9)
}

pub fn spread(kind: Kind) -> crate::core::estimate::ranges::Spread {
    use crate::core::estimate::ranges;
    match kind {
        Kind::Decode => ranges::DECODE,
        Kind::Prefill => ranges::PREFILL,
        Kind::Throughput => ranges::THROUGHPUT,
        Kind::Memory => ranges::MEMORY,
        Kind::Ttft => ranges::PREFILL,
    }
}
