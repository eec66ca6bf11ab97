//! The core's catalog modules, compiled into the build script from the same
//! files the library compiles: `build.rs` parses and cross-checks the
//! bundled tables with exactly the library's rules before it writes their
//! compiled form. Much of them is unused here.
#![allow(dead_code, unused_imports)]

#[path = "../src/core/catalog/mod.rs"]
pub mod catalog;
#[path = "../src/core/config.rs"]
pub mod config;
#[path = "../src/core/date.rs"]
pub mod date;
#[path = "../src/core/named.rs"]
pub(crate) mod named;
#[path = "../src/core/table.rs"]
pub mod table;
#[path = "../src/core/units.rs"]
pub mod units;
