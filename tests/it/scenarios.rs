//! Snapshot of every example scenario's report, so a formula change shows
//! its whole effect in review (`cargo insta review` to accept).

use whichgpu::core::report;

use crate::common;

#[test]
fn scenario_reports() {
    let text = include_str!("../scenarios/cases.txt");
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let mut parts = line.split_whitespace();
        let (Some(name), Some(query)) = (parts.next(), parts.next()) else { continue };
        let answer = common::answer(query);
        // The snapshots keep their one-binary-per-file names and folder:
        // tests/snapshots/scenarios__<name>.snap.
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(format!("scenarios__{name}"), report::text(&answer));
        });
        n += 1;
    }
    assert_eq!(n, 22);
}
