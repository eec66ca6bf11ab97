//! Compiles the method card's accuracy tables: parses `static/accuracy.csv`
//! with the library's own `core::accuracy` (a bad row stops the build) and
//! writes its rows as the page shows them (`KindRow`, `ExampleRow`: numbers
//! already formatted) as Rust statics, so the Wasm neither carries the CSV
//! nor parses it.

use super::core::accuracy::{parse_accuracy, ACCURACY_CSV};

/// The Rust source of `OUT_DIR/accuracy.rs` (included by `core::bundled`).
pub fn compile() -> Result<String, String> {
    let acc = parse_accuracy(ACCURACY_CSV).map_err(|e| format!("static/{e}"))?;
    // `{:?}` of the rows is a Rust expression: a struct's name and fields,
    // arrays in brackets, texts as escaped string literals.
    Ok(format!("pub static ACCURACY_KINDS: &[KindRow] = &{:?};\npub static ACCURACY_EXAMPLES: &[ExampleRow] = &{:?};\n", acc.kind_rows(), acc.example_rows()))
}
