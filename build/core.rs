//! The core's catalog modules, compiled into the build script from the same
//! files the library compiles: `build.rs` parses and cross-checks the
//! bundled tables with exactly the library's rules before it writes their
//! compiled form. Much of them is unused here. `messages` gives `build.rs`
//! the texts it splits for the Wasm (`build/texts.rs`); `accuracy` parses
//! the accuracy figures `build/accuracy.rs` compiles; `engines` (with the
//! `thresholds` it reads) answers `Engine::splits_layers` for `defaults`.
#![allow(dead_code, unused_imports)]

#[path = "../src/core/accuracy.rs"]
pub mod accuracy;
#[path = "../src/core/catalog/mod.rs"]
pub mod catalog;
#[path = "../src/core/choices.rs"]
pub mod choices;
#[path = "../src/core/config.rs"]
pub mod config;
#[path = "../src/core/date.rs"]
pub mod date;
#[path = "../src/core/defaults.rs"]
pub mod defaults;
#[path = "../src/core/engines/mod.rs"]
pub mod engines;
#[path = "../src/core/messages.rs"]
pub mod messages;
#[path = "../src/core/named.rs"]
pub(crate) mod named;
#[path = "../src/core/table.rs"]
pub mod table;
#[path = "../src/core/thresholds.rs"]
pub mod thresholds;
#[path = "../src/core/ui_texts.rs"]
pub mod ui_texts;
#[path = "../src/core/units.rs"]
pub mod units;
