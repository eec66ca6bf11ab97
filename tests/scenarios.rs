//! Snapshot of every example scenario's report, so a formula change shows
//! its whole effect in review (`cargo insta review` to accept).

use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::report;

#[test]
fn scenario_reports() {
    let catalog = Catalog::bundled().expect("catalog");
    let today = Date::parse("2026-11-29").expect("date");
    let text = include_str!("scenarios/cases.txt");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let mut parts = line.split_whitespace();
        let (Some(name), Some(query)) = (parts.next(), parts.next()) else { continue };
        let answer = evaluate_query(query, catalog, today);
        insta::assert_snapshot!(name, report::text(&answer));
        n += 1;
    }
    assert_eq!(n, 18);
}
