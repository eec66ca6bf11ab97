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

/// How sure an estimate is: one scale for every task. Ordered from least
/// to most sure, so the weakest part of an estimate decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The default until an estimate says otherwise.
    #[default]
    Low,
    Medium,
    High,
}

impl Confidence {
    /// From a count of reasons for doubt: none is high, one medium, more low.
    pub fn from_doubts(doubts: u32) -> Confidence {
        match doubts {
            0 => Confidence::High,
            1 => Confidence::Medium,
            _ => Confidence::Low,
        }
    }

    /// How much the low/high spread widens at this confidence.
    pub fn widen(self) -> f64 {
        match self {
            Confidence::High => 1.0,
            Confidence::Medium => 1.6,
            Confidence::Low => 2.5,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

impl std::fmt::Display for Confidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
