#!/usr/bin/env bash
# Installs what the tests need, then runs every layer:
#   1. native tests of the core (unit, property, snapshot, calibration, CLI),
#      the integration tests as one binary, tests/it/;
#   2. clippy's panic lints on the core;
#   3. component tests in headless Chromium (wasm-bindgen-test);
#   4. the release build of the page and end-to-end tests over WebDriver.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
source scripts/env.sh

step() { printf '\n[test] %s\n' "$*"; }

step "0/4 formatting (rustfmt.toml)"
cargo fmt --all --check
step "1/4 native tests of the core"
cargo test --locked --lib --test it
# Every catalog row has its source, date, currency and unit (exit 1 if
# not); rows older than six months are listed. `--today` is fixed to the
# catalog's date (its newest price) so the run does not depend on the clock.
cargo run --locked --quiet --bin whichgpu -- catalog check --today 2026-11-09

step "2/4 clippy: no unwrap/expect/indexing/panic in the core"
# These four stay here, not in Cargo.toml's [lints]: a [lints] table applies to
# every target, and the tests, the CLI and the bench use expect/indexing freely.
cargo clippy --locked --lib -- -D clippy::unwrap_used -D clippy::expect_used -D clippy::indexing_slicing -D clippy::panic

step "3/4 component tests in headless Chromium"
cargo test --locked --target wasm32-unknown-unknown --features ui --test components

step "4/4 release build of the page, then end-to-end tests"
trunk build --release
bash scripts/size.sh
cargo test --locked -p whichgpu-e2e --test browser --test csp --test api
# Timings last, alone: no other test browser shares the cores.
cargo test --locked -p whichgpu-e2e --test timing -- --nocapture
