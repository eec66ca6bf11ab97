//! Low / likely / high ranges. The spread of each kind of figure is the
//! 10th–90th percentile of measured/predicted over the calibration rows
//! (printed by `whichgpu calibrate`), so a range holds ~80 % of measurements.

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Spread {
    pub low: f64,
    pub high: f64,
}

pub const DECODE: Spread = Spread { low: 0.85, high: 1.15 };
pub const PREFILL: Spread = Spread { low: 0.75, high: 1.3 };
pub const THROUGHPUT: Spread = Spread { low: 0.85, high: 1.15 };
/// Training throughput: the MFU spread of the published runs (A100 0.51–0.64
/// around 0.52; H100 0.37–0.47 around 0.42).
pub const TRAIN: Spread = Spread { low: 0.8, high: 1.2 };
pub const MEMORY: Spread = Spread { low: 0.93, high: 1.08 };

/// Widens a spread for less-known cases (engines without direct data,
/// inferred architectures, multi-node plans).
pub fn widen(s: Spread, factor: f64) -> Spread {
    Spread { low: s.low.powf(factor), high: s.high.powf(factor) }
}
