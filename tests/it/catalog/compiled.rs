//! The page's compiled catalog (`build.rs` → `core::catalog::compiled`)
//! equals the tables the native build parses, row for row and value for
//! value, sources and notes emptied.
use whichgpu::core::catalog::{compiled, parse_bundled, Catalog};

/// Each row's `Debug` text: every field, every `f64` to the bit
/// (`Debug` prints the shortest text that reads back to the same value).
fn rows<T: std::fmt::Debug>(v: &[T]) -> Vec<String> {
    v.iter().map(|r| format!("{r:?}")).collect()
}

#[test]
fn compiled_catalog_equals_the_parsed_tables_row_for_row() {
    let parsed = parse_bundled().expect("bundled tables").without_sources();
    let compiled = Catalog::compiled().expect("compiled catalog decodes");
    assert_eq!(rows(&compiled.gpus), rows(&parsed.gpus));
    assert_eq!(rows(&compiled.models), rows(&parsed.models));
    assert_eq!(rows(&compiled.offers), rows(&parsed.offers));
    assert_eq!(rows(&compiled.providers), rows(&parsed.providers));
    assert_eq!(rows(&compiled.media), rows(&parsed.media));
    assert_eq!(rows(&compiled.support), rows(&parsed.support));
    assert_eq!(rows(&compiled.rates), rows(&parsed.rates));
    assert_eq!(compiled.as_of, parsed.as_of);
    // Non-trivial: the catalog is there, and the parsed one has sources.
    assert!(compiled.offers.len() > 100 && compiled.gpus.len() > 20);
    let full = parse_bundled().expect("bundled tables");
    assert!(
        full.gpus.iter().all(|g| !g.source.is_empty()) && compiled.gpus.iter().all(|g| g.source.is_empty())
    );
}

#[test]
fn a_cut_padded_or_damaged_compiled_form_is_an_error_not_a_panic() {
    use whichgpu::core::bundled::{COMPILED, COMPILED_STRINGS};
    for cut in [0, 1, 2, 3, COMPILED.len() / 3, COMPILED.len() / 2, COMPILED.len() - 1] {
        assert!(compiled::decode(&COMPILED[..cut], COMPILED_STRINGS).is_err(), "cut at {cut}");
    }
    let mut padded = COMPILED.to_vec();
    padded.push(0);
    assert!(compiled::decode(&padded, COMPILED_STRINGS).is_err());
    // Texts missing: an index past the end is an error.
    let half = COMPILED_STRINGS
        .char_indices()
        .filter(|(_, c)| *c == compiled::SEP)
        .nth(100)
        .map(|(i, _)| i + 1)
        .unwrap();
    assert!(compiled::decode(COMPILED, &COMPILED_STRINGS[..half]).is_err());
    assert!(compiled::decode(COMPILED, "").is_err());
    // Any byte set to all ones or to zero decodes to something or fails, never panics.
    for at in (0..COMPILED.len()).step_by(7) {
        for b in [0u8, 0xff] {
            let mut bytes = COMPILED.to_vec();
            bytes[at] = b;
            let _ = compiled::decode(&bytes, COMPILED_STRINGS);
        }
    }
    assert!(compiled::decode(COMPILED, COMPILED_STRINGS).is_ok());
}
