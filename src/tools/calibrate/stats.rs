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
