//! The estimators: memory and speed of one plan on one GPU type, against public measurements split by source.

mod accumulation;
mod accuracy;
mod calibration;
mod dp4a_fit;
mod eager_hf;
mod engine_rules;
mod estimator;
mod expert_parallel;
mod hybrid;
mod image_train_time;
pub(crate) mod media;
mod media_amd;
mod media_holdout;
mod media_train;
mod mmvq;
mod multigpu;
mod prefill_hopper;
mod prefill_terms;
mod rl_holdout;
mod serving_targets;
mod spec_decoding;
mod train_sharding;
mod training;
mod training_clock;
mod training_data;
