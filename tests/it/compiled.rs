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
    assert!(full.gpus.iter().all(|g| !g.source.is_empty()) && compiled.gpus.iter().all(|g| g.source.is_empty()));
}

#[test]
fn a_cut_or_padded_compiled_form_is_an_error_not_a_panic() {
    let text = whichgpu::core::bundled::COMPILED;
    for cut in [0, 1, text.len() / 3, text.len() / 2, text.len() - 1] {
        let head = text.get(..cut).or_else(|| text.get(..cut + 1)).unwrap_or("");
        assert!(compiled::decode(head).is_err(), "cut at {cut}");
    }
    assert!(compiled::decode(&format!("{text}x{}", compiled::SEP)).is_err());
    assert!(compiled::decode(&text.replacen("h100-sxm-80gb\u{1f}NVIDIA H100 SXM 80GB\u{1f}nvidia", "h100-sxm-80gb\u{1f}NVIDIA H100 SXM 80GB\u{1f}nvidiax", 1))
        .is_err());
    assert!(compiled::decode(text).is_ok());
}
