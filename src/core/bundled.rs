//! The catalog this build carries. Natively: the full tables under
//! `static/`, parsed and cross-checked on first use
//! ([`catalog::parse_bundled`](super::catalog::parse_bundled)). In the
//! page's Wasm: the compiled form `build.rs` wrote after running that same
//! parse on the same files, decoded on first use
//! ([`catalog::compiled`](super::catalog::compiled)) — no CSV is parsed at
//! start-up and the Wasm carries no table text, sources or notes.
//! `tests/it/catalog/compiled.rs` proves the compiled form equals the parsed tables
//! row for row (sources and notes emptied).
//!
//! It also holds the method card's accuracy rows, which `build.rs` compiles
//! from `static/accuracy.csv` with `core::accuracy` (the cells already
//! formatted), so that the page parses no CSV for them.

use std::sync::OnceLock;

use super::accuracy::{ExampleRow, KindRow};
use super::catalog::{compiled, Catalog, CatalogError};

/// The compiled form of the bundled catalog (`build.rs`): the tables
/// (`OUT_DIR/catalog.bin`) and their texts (`OUT_DIR/catalog-strings.txt`).
pub const COMPILED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/catalog.bin"));
pub const COMPILED_STRINGS: &str = include_str!(concat!(env!("OUT_DIR"), "/catalog-strings.txt"));

// `ACCURACY_KINDS: &[KindRow]` and `ACCURACY_EXAMPLES: &[ExampleRow]`:
// `Accuracy::kind_rows` and `example_rows` of the committed file.
include!(concat!(env!("OUT_DIR"), "/accuracy.rs"));

impl Catalog {
    /// The catalog compiled into this build, loaded once.
    pub fn bundled() -> Result<&'static Catalog, CatalogError> {
        static CELL: OnceLock<Result<Catalog, CatalogError>> = OnceLock::new();
        CELL.get_or_init(load).as_ref().map_err(Clone::clone)
    }

    /// The compiled form decoded (what the page starts from).
    pub fn compiled() -> Result<Catalog, CatalogError> {
        compiled::decode(COMPILED, COMPILED_STRINGS)
    }
}

#[cfg(target_arch = "wasm32")]
fn load() -> Result<Catalog, CatalogError> {
    Catalog::compiled()
}

#[cfg(not(target_arch = "wasm32"))]
fn load() -> Result<Catalog, CatalogError> {
    super::catalog::parse_bundled()
}
