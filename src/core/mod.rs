//! The calculator core: no I/O, no clock, no browser. See ARCHITECTURE.md
//! for the layers, bottom to top; no module imports one above it.

pub mod accuracy;
pub mod answer;
pub mod answers;
pub mod billing;
pub mod bundled;
pub mod catalog;
pub mod choices;
pub mod columns;
pub mod config;
pub mod date;
pub mod defaults;
pub mod engines;
pub mod estimate;
pub mod evaluate;
pub mod export;
pub mod form;
pub mod guidance;
pub mod hfconfig;
pub mod kinds;
pub mod link;
pub mod messages;
pub mod money;
pub(crate) mod named;
pub mod notice;
pub mod offers;
pub mod ondemand;
pub mod order;
pub mod plan;
pub mod precision;
/// The CLI's text form of an answer; the page renders its own, so a Wasm
/// build leaves it out.
#[cfg(not(target_arch = "wasm32"))]
pub mod report;
pub mod resolve;
pub mod settings;
pub mod speeds;
pub mod table;
pub mod texts;
pub mod thresholds;
#[cfg(not(target_arch = "wasm32"))]
pub mod ui_texts;
pub mod units;
