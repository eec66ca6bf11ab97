//! whichgpu: which cloud GPU to rent for a generative-AI job, and what it costs.
//!
//! [`core`] is the whole calculator as plain Rust: catalog, estimator,
//! recommender, share-link codec and guidance. It reads no clock, no network
//! and no browser API; callers pass those in. [`web`] (feature `ui`) is the
//! Yew shell compiled to WebAssembly, which only renders what the core returns.
//! [`tools`] holds what only the CLI and the tests use (the calibration
//! runner, the SkyPilot converter); it builds on the core, and the page
//! never links it, and a Wasm build does not compile it (nor
//! `core::report`, the CLI's text form).

#![forbid(unsafe_code)]

pub mod core;

#[cfg(not(target_arch = "wasm32"))]
pub mod tools;

#[cfg(feature = "ui")]
pub mod web;
