//! The native integration tests of the core, as one binary: one link step
//! instead of one per file. Each module was once its own `tests/*.rs`;
//! `common` holds what they share (the bundled catalog, the fixed "today").
//! `tests/components.rs` (Wasm) and `tests/e2e/` (WebDriver) stay apart.
//! Proptest keeps its failure seeds in `tests/proptest-regressions/<module>.txt`
//! (its default for a source file under a `main.rs`); the scenario snapshots
//! stay in `tests/snapshots/scenarios__*.snap`.

mod batch_deadline;
mod common;

mod accumulation;
mod accuracy;
mod answer_hashes;
mod api_measured;
mod architecture;
mod bill;
mod bill_practice;
mod calibration;
mod catalog;
mod catalog_check;
mod catalog_targets;
mod china;
mod cli;
mod compiled;
mod contrast;
mod currency;
mod done_list;
mod dp4a_fit;
mod eager_hf;
mod engine_rules;
mod estimator;
mod expert_parallel;
mod export;
mod export_train;
mod fuzz;
mod guidance;
mod guidance_truth;
mod hfconfig;
mod host_bill;
mod host_ram;
mod hybrid;
mod image_train_time;
mod keys;
mod launch;
mod link;
mod link_doc;
mod media;
mod media_amd;
mod media_holdout;
mod media_train;
mod messages;
mod mmvq;
mod multigpu;
mod notices;
mod ocp;
mod ondemand;
mod order;
mod page_answer;
mod plans;
mod practitioner_check;
mod practitioner_train;
mod prefill_hopper;
mod prefill_terms;
mod ranking;
mod registry;
mod rl;
mod scenarios;
mod serve_load;
mod serve_practice;
mod serverless;
mod settings;
mod silybench;
mod skypilot;
mod spec_decoding;
mod spot_deadline;
mod stale_pick;
mod startup;
mod sturdy;
mod support;
mod table;
mod train_advice;
mod train_sharding;
mod training;
mod training_clock;
mod training_data;
