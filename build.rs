//! Compiles the bundled catalog for the page's Wasm: parses and
//! cross-checks the tables under `static/` with the library's own code
//! (`build/core.rs` compiles the core's catalog modules in; a bad row stops
//! the build with its table, row and column), empties every `source` and
//! `notes` (the page fetches an offer's source on demand), and writes the
//! result in the compact form that `core::catalog::compiled` decodes
//! (`build/encode.rs`): `OUT_DIR/catalog.bin`, the tables column by column,
//! and `OUT_DIR/catalog-strings.txt`, their texts. Native builds parse the
//! full tables instead (`core::bundled`).
//!
//! It writes the served checkpoint of each language model
//! (`OUT_DIR/checkpoints.txt`, `core::catalog::checkpoints`), which only
//! the launch texts read (the CLI and the on-demand worker).
//!
//! It also splits the texts by language (`build/texts.rs`): `OUT_DIR/texts.rs`
//! (the English tables the Wasm compiles in) and `OUT_DIR/messages-zh.txt`
//! (the Chinese texts the page fetches when it is in Chinese), writes
//! `OUT_DIR/api-prices.txt` (the hosted API prices and their texts, which
//! the on-demand worker carries and the page's module does not), and compiles
//! the method card's accuracy rows from `static/accuracy.csv`
//! (`build/accuracy.rs`, `OUT_DIR/accuracy.rs`).
use std::{env, fs, path::Path};

#[path = "build/accuracy.rs"]
mod accuracy;
#[path = "build/core.rs"]
mod core;
#[path = "build/encode.rs"]
mod encode;
#[path = "build/texts.rs"]
mod texts;

/// What the compiled catalog is made from.
const INPUTS: &[&str] = &[
    "build.rs",
    "build",
    "src/core/accuracy.rs",
    "src/core/catalog",
    "src/core/config.rs",
    "src/core/date.rs",
    "src/core/messages.rs",
    "src/core/named.rs",
    "src/core/table.rs",
    "src/core/ui_texts.rs",
    "src/core/units.rs",
    "static/gpus.csv",
    "static/models.csv",
    "static/offers.csv",
    "static/providers.csv",
    "static/media_models.csv",
    "static/support.csv",
    "static/rates.csv",
    "static/accuracy.csv",
    "static/api_prices.csv",
];

/// A failure is returned, and cargo prints it and stops the build.
fn main() -> Result<(), String> {
    for input in INPUTS {
        println!("cargo::rerun-if-changed={input}");
    }
    let out = env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR")?;
    let catalog = core::catalog::parse_bundled().map_err(|e| format!("static/{e}"))?.without_sources();
    let compiled = encode::compile(&catalog)?;
    // The served checkpoints (repository, context, rope scaling): only the
    // launch texts read them, so they stay out of the page's catalog.
    let checkpoints = core::catalog::checkpoints::parse_checkpoints(core::catalog::MODELS_CSV)
        .map_err(|e| format!("static/{e}"))?;
    fs::write(Path::new(&out).join("checkpoints.txt"), core::catalog::checkpoints::encode(&checkpoints))
        .map_err(|e| format!("checkpoints.txt in OUT_DIR: {e}"))?;
    fs::write(Path::new(&out).join("catalog.bin"), compiled.bin)
        .map_err(|e| format!("catalog.bin in OUT_DIR: {e}"))?;
    fs::write(Path::new(&out).join("catalog-strings.txt"), compiled.strings)
        .map_err(|e| format!("catalog-strings.txt in OUT_DIR: {e}"))?;
    fs::write(Path::new(&out).join("accuracy.rs"), accuracy::compile()?)
        .map_err(|e| format!("accuracy.rs in OUT_DIR: {e}"))?;
    let (rust, zh) = texts::split()?;
    // The API prices and texts the on-demand worker carries (`core::ondemand::api_file`).
    let prices =
        core::catalog::api_prices::parse_api_prices(include_str!("static/api_prices.csv"), &catalog.models)
            .map_err(|e| format!("static/{e}"))?;
    fs::write(Path::new(&out).join("api-prices.txt"), texts::api_file(&prices)?)
        .map_err(|e| format!("api-prices.txt in OUT_DIR: {e}"))?;
    fs::write(Path::new(&out).join("texts.rs"), rust).map_err(|e| format!("texts.rs in OUT_DIR: {e}"))?;
    fs::write(Path::new(&out).join("messages-zh.txt"), zh)
        .map_err(|e| format!("messages-zh.txt in OUT_DIR: {e}"))
}
