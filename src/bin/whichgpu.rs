//! `whichgpu '<query string>'` — the estimator on the command line (see
//! `whichgpu/cli.rs`). Native only: a Wasm build has no `core::report` and
//! no `tools`, and `cargo test --target wasm32-unknown-unknown` still
//! builds every binary, so there this one is an empty `main`.

#[cfg(not(target_arch = "wasm32"))]
#[path = "whichgpu/cli.rs"]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
#[path = "whichgpu/clock.rs"]
mod clock;

#[cfg(not(target_arch = "wasm32"))]
#[path = "whichgpu/maintain.rs"]
mod maintain;

#[cfg(not(target_arch = "wasm32"))]
#[path = "whichgpu/usage.rs"]
mod usage;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
