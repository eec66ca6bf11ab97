//! The calculator core: no I/O, no clock, no browser. See ARCHITECTURE.md
//! for the layers, bottom to top; no module imports one above it.

pub mod units;
pub mod table;
pub mod date;
pub(crate) mod named;
pub mod catalog;
pub mod config;
pub mod precision;
pub mod messages;
pub mod notice;
pub mod link;
pub mod estimate;
pub mod answer;
pub mod billing;
pub mod resolve;
pub mod plan;
pub mod offers;
pub mod guidance;
pub mod evaluate;
pub mod form;
pub mod report;
