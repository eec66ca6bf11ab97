//! The estimator: memory, speed and the inverse questions for a
//! configuration on one GPU type. Pure functions of the catalog and the
//! configuration.

pub mod allreduce;
pub mod arch;
pub mod attn_scores;
pub mod dp4a;
pub mod eager;
pub mod engine;
pub mod engine_rules;
pub mod layers;
pub mod media;
pub mod media_train;
pub mod media_train_time;
pub mod prefill_fixed;
pub mod ranges;
pub mod rl;
pub mod serve;
pub mod serve_draft;
pub mod serve_memory;
pub mod serve_plan;
pub mod spec;
pub mod stack;
pub mod train;
pub mod train_class;
pub mod train_clock;
pub mod train_flops;
pub mod train_rl;
pub mod train_step;

mod bound;
pub use bound::Bound;
