//! What the test modules share: the bundled catalog, the fixed date the
//! tests run on, and a share-link query evaluated against both.

use whichgpu::core::answer::Answer;
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::evaluate::evaluate_query;

/// The bundled catalog (static/*.csv), parsed and cross-checked once.
pub fn catalog() -> &'static Catalog {
    Catalog::bundled().expect("bundled catalog parses and cross-checks")
}

/// A date from its `YYYY-MM-DD` text.
pub fn date(text: &str) -> Date {
    Date::parse(text).expect("date")
}

/// "Today" for every test that does not name its own date, so that dated
/// offers and notices do not drift with the clock.
pub fn today() -> Date {
    date("2026-11-29")
}

/// A share-link query evaluated against the bundled catalog on [`today`].
pub fn answer(query: &str) -> Answer {
    evaluate_query(query, catalog(), today())
}
