//! Test-only package; see tests/browser.rs.
