//! Writes copies of the bundled catalog tables into `OUT_DIR` with every
//! `source` and `notes` cell emptied (same header, same rows, same other
//! cells). The Wasm build compiles those copies in (`src/core/catalog/`):
//! the page never shows a row's sources or notes, and they are most of the
//! tables' bytes. Native builds (CLI, tests) compile the full files, and the
//! same parser and validators read both; only the bundled tables of a Wasm
//! build may have an empty `source` (`core::table::Row::req_source`).
use std::{env, fs, path::Path};

/// The tables under `static/` that the catalog compiles in.
const TABLES: &[&str] = &["gpus.csv", "models.csv", "offers.csv", "providers.csv", "media_models.csv", "support.csv", "rates.csv"];
/// The columns the Wasm copies leave empty.
const DROPPED: &[&str] = &["source", "notes"];

/// A failure is returned, and cargo prints it and stops the build.
fn main() -> Result<(), String> {
    println!("cargo::rerun-if-changed=build.rs");
    let out = env::var_os("OUT_DIR").ok_or("cargo did not set OUT_DIR")?;
    for name in TABLES {
        let path = Path::new("static").join(name);
        println!("cargo::rerun-if-changed={}", path.display());
        let text = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let stripped = strip(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        fs::write(Path::new(&out).join(name), stripped).map_err(|e| format!("{name} in OUT_DIR: {e}"))?;
    }
    Ok(())
}

/// The CSV with the `DROPPED` columns' cells emptied. Rows of the wrong
/// length pass through as they are, for the catalog's parser to report.
fn strip(text: &[u8]) -> Result<Vec<u8>, csv::Error> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text);
    let mut writer = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    let mut dropped: Vec<bool> = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record?;
        if i == 0 {
            dropped = record.iter().map(|h| DROPPED.contains(&h.trim().trim_start_matches('\u{feff}'))).collect();
            writer.write_record(&record)?;
        } else {
            writer.write_record(record.iter().enumerate().map(|(j, cell)| if dropped.get(j).copied().unwrap_or(false) { "" } else { cell }))?;
        }
    }
    writer.into_inner().map_err(|e| csv::Error::from(e.into_error()))
}
