//! `whichgpu catalog check`: the bundled catalog passes (every row has its
//! source, date, currency and unit) and lists what is older than six
//! months; a row without one of them fails, naming the row; a stale row
//! alone does not fail.

use std::process::Command;

use whichgpu::core::catalog::bundled_tables;
use whichgpu::tools::catalog_check::check;

use crate::common::date;

#[test]
fn the_bundled_catalog_passes_and_lists_its_stale_rows() {
    let r = check(&bundled_tables(), date("2026-11-09")).expect("tables read");
    assert!(r.passed(), "{:?}", r.missing);
    assert!(r.rows > 300, "{} rows", r.rows);
    // Offers priced more than 183 days before the date are listed, and only those.
    let c = crate::common::catalog();
    let old = c.offers.iter().filter(|o| o.as_of.days_until(date("2026-11-09")) > 183).count();
    let listed = r.stale.iter().filter(|f| f.table == "offers.csv" && f.what.starts_with("as_of")).count();
    assert_eq!(listed, old);
    assert!(old > 0);
}

fn table(rows: &[&str]) -> String {
    let mut s = String::from("id,provider,currency,usd_per_hour,billing_increment_s,commit_1yr_usd_per_hour,commit_as_of,source,as_of\n");
    for r in rows {
        s.push_str(r);
        s.push('\n');
    }
    s
}

const PROVIDERS: &str = "id,currency,billing_increment_s,unpublished_fields,source\np,usd,,,src\nq,usd,,billing_increment_s,src\n";

#[test]
fn a_row_missing_a_fact_fails_and_is_named() {
    let today = date("2026-12-01");
    let run = |rows: &[&str]| {
        let offers = table(rows);
        check(&[("providers.csv", PROVIDERS), ("offers.csv", &offers)], today).expect("read")
    };
    let ok = run(&["a,p,usd,1,1,,,src,2026-11-01", "b,q,cny,1,,,,src,2026-11-01"]);
    assert!(ok.passed(), "{:?}", ok.missing);
    for (row, what) in [
        ("c,p,usd,1,1,,,,2026-11-01", "no source"),
        ("c,p,usd,1,1,,,src,", "no date (as_of)"),
        ("c,p,usd,1,1,,,src,2026-13-01", "not a YYYY-MM-DD date"),
        ("c,p,,1,1,,,src,2026-11-01", "no currency"),
        ("c,p,eur,1,1,,,src,2026-11-01", "unknown currency `eur`"),
        ("c,p,usd,1,,,,src,2026-11-01", "no unit"),
        ("c,p,usd,1,1,0.5,,src,2026-11-01", "no date (commit_as_of)"),
    ] {
        let r = run(&[row]);
        assert!(!r.passed(), "{row}");
        assert!(
            r.missing.iter().any(|f| f.row == 1 && f.id == "c" && f.what.contains(what)),
            "{row}: {:?}",
            r.missing
        );
    }
    // Old is listed, not failed.
    let r = run(&["d,p,usd,1,1,,,src,2026-01-01"]);
    assert!(r.passed());
    assert_eq!(r.stale.len(), 1);
    assert!(r.stale[0].what.contains("334 days"), "{:?}", r.stale);
}

#[test]
fn the_cli_exits_0_on_the_bundled_catalog_and_2_on_a_bad_call() {
    let bin = env!("CARGO_BIN_EXE_whichgpu");
    let out = Command::new(bin).args(["catalog", "check", "--today", "2026-11-09"]).output().expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("catalog check on 2026-11-09:") && text.contains("stale: offers.csv"), "{text}");
    let out = Command::new(bin).args(["catalog", "check", "--today", "tomorrow"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(bin).args(["catalog", "list"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
}
