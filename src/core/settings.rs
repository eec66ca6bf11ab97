//! [`Settings`]: a configuration after [`resolve`](super::resolve::resolve)
//! checked it against the catalog. Everything after that step (the plan,
//! the offers, the bill, the guidance, the what-ifs, the launch texts)
//! takes `&Settings`, so no later step can be handed a configuration that
//! was never checked (a GPU pin the catalog lacks, a model that is not the
//! task's, a GPU count no engine accepts): the types say which side of
//! `resolve` a function is on. The estimators in `estimate/` take the
//! inputs they read as a plain [`Config`] (the calibration tools and the
//! tests build them without a catalog); `&Settings` passes there as
//! `&Config` through `Deref`.
//!
//! Only `resolve` makes one ([`Settings::resolved`]; `tests/it/resolve/settings.rs`
//! checks the sources for any other maker outside a test module).

use std::ops::Deref;

use super::config::Config;

/// A resolved configuration: read it like a [`Config`], build it only in
/// `resolve`.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings(Config);

impl Settings {
    /// The configuration `resolve` settled on. Called by `resolve` alone
    /// (and by unit tests of the steps after it).
    pub(crate) fn resolved(cfg: Config) -> Settings {
        Settings(cfg)
    }

    /// The configuration itself, for code that changes one key and
    /// evaluates again (the what-ifs, the guidance's suggestions): the
    /// changed copy goes back through `resolve`.
    pub fn config(&self) -> &Config {
        &self.0
    }

    /// The same settings with the ZeRO stage the planner chose for an
    /// offer (`OfferResult::zero`, which starts from the link's stage);
    /// the link's where the plan names none.
    pub fn with_planned_zero(&self, planned: Option<u8>) -> Settings {
        Settings(Config { zero: planned.or(self.0.zero), ..self.0.clone() })
    }

    /// The same settings with the GPU count left to the planner (the
    /// fewest that fit): clearing a pin is what `resolve` itself does
    /// with a count it refuses, so nothing needs checking again.
    pub fn without_gpu_count(&self) -> Settings {
        Settings(Config { gpus: None, ..self.0.clone() })
    }
}

impl Deref for Settings {
    type Target = Config;

    fn deref(&self) -> &Config {
        &self.0
    }
}
