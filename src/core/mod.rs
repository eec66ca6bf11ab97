//! The calculator core: no I/O, no clock, no browser. See ARCHITECTURE.md.

pub mod answer;
pub mod billing;
pub mod catalog;
pub mod config;
pub mod estimate;
pub mod guidance;
pub mod link;
pub mod media_answer;
pub mod media_train_answer;
pub mod messages;
pub mod precision;
pub mod recommend;
pub mod report;
pub mod table;
pub mod train_answer;
pub mod units;
