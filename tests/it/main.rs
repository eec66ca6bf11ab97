//! The native integration tests of the core, as one binary: one link step
//! instead of one per file. One folder per part of the core it tests
//! (`link`, `resolve`, `estimate`, `plan`, `offers`, `guidance`, `export`,
//! `catalog`, `tools`, `page`), the whole-pipeline checks here; `common`
//! holds what they share (the bundled catalog, the fixed "today").
//! `tests/components.rs` (Wasm) and `tests/e2e/` (WebDriver) stay apart.
//! Proptest keeps its failure seeds in `tests/proptest-regressions/<folder>/<module>.txt`
//! (its default for a source file under a `main.rs`); the scenario snapshots
//! stay in `tests/snapshots/scenarios__*.snap`.

mod common;

mod catalog;
mod estimate;
mod export;
mod guidance;
mod link;
mod offers;
mod page;
mod plan;
mod resolve;
mod tools;

mod answer_hashes;
mod architecture;
mod engines;
mod fuzz;
mod scenarios;
