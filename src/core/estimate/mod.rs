//! The estimator: memory, speed and the inverse questions for a
//! configuration on one GPU type. Pure functions of the catalog and the
//! configuration.

pub mod arch;
pub mod attn_scores;
pub mod dp4a;
pub mod engine;
pub mod media;
pub mod media_train;
pub mod prefill_fixed;
pub mod ranges;
pub mod serve;
pub mod stack;
pub mod train;
pub mod train_class;
pub mod train_flops;
pub mod train_step;
