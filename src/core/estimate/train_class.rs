//! Training utilisation per GPU class: the share of the 16-bit peak the
//! linear layers sustain in training, fitted by `whichgpu calibrate --fit`
//! on the training file's fit rows (`tools::train_fit`).

use super::super::catalog::Gpu;
use super::super::config::Method;

/// GPU classes that share a training utilisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TrainClass {
    /// A100 and other Ampere HBM cards.
    AmpereHbm,
    /// H100, H200 and Blackwell.
    HopperBlackwell,
    /// GeForce and workstation cards (GDDR).
    Consumer,
    /// Other HBM cards (V100, MI-series, Gaudi).
    OtherHbm,
}

impl TrainClass {
    pub const ALL: [TrainClass; 4] =
        [TrainClass::AmpereHbm, TrainClass::HopperBlackwell, TrainClass::Consumer, TrainClass::OtherHbm];

    pub fn of(gpu: &Gpu) -> TrainClass {
        match gpu.arch.as_str() {
            "ampere" if gpu.is_hbm() => TrainClass::AmpereHbm,
            "hopper" | "blackwell" => TrainClass::HopperBlackwell,
            _ if !gpu.is_hbm() => TrainClass::Consumer,
            _ => TrainClass::OtherHbm,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TrainClass::AmpereHbm => "ampere-hbm",
            TrainClass::HopperBlackwell => "hopper-blackwell",
            TrainClass::Consumer => "consumer",
            TrainClass::OtherHbm => "other-hbm",
        }
    }

    /// The linear layers' utilisation of the 16-bit peak: executed FLOPs
    /// (recomputation included, attention apart) over peak time.
    ///
    /// Fitted by `whichgpu calibrate --fit tests/data/training_measurements.csv`
    /// (src/tools/train_fit.rs: grid search over 0.20–0.80 minimising the
    /// median |log error| of the fit rows' tokens/s; fit rows only, held-out
    /// sources never) on 2026-12-01:
    /// - A100 (Ampere HBM): FITTED_AMPERE on 7 fit rows (llm-foundry, torchtitan docs/performance.md).
    /// - H100 (Hopper): FITTED_HOPPER on 10 fit rows (llm-foundry BF16 and FP8, 2k–64k tokens).
    ///
    /// Classes without a fit row keep a published figure: GeForce and
    /// workstation cards 0.55 of their own FP32-accumulate peak (nanoGPT
    /// on an RTX 4090: 29 % of the A100's 312 TFLOPS = 90 TFLOPS of the
    /// 4090's 165, karpathy/nanoGPT#182), other HBM cards 0.35 (no
    /// measurement; V100-era MFUs). The same figure serves LoRA/QLoRA.
    pub fn efficiency(self) -> f64 {
        match self {
            TrainClass::AmpereHbm => FITTED_AMPERE,
            TrainClass::HopperBlackwell => FITTED_HOPPER,
            TrainClass::Consumer => 0.55,
            TrainClass::OtherHbm => 0.35,
        }
    }

    /// Whether [`TrainClass::efficiency`] comes from `calibrate --fit`.
    pub fn fitted(self) -> bool {
        matches!(self, TrainClass::AmpereHbm | TrainClass::HopperBlackwell)
    }
}

/// See [`TrainClass::efficiency`].
const FITTED_AMPERE: f64 = 0.65;
const FITTED_HOPPER: f64 = 0.56;

/// The linear layers' utilisation for a GPU ([`TrainClass::efficiency`]).
pub fn mfu(gpu: &Gpu, _method: Method) -> f64 {
    TrainClass::of(gpu).efficiency()
}
