//! The offer row's column table (`core::columns`) is what every view reads:
//! the CSV export's header and fields, the text report's offers lines, the
//! page's headers and cells (ripgrep's `default_types.rs` idea: one row per
//! entry, and a test of the table's invariants). Adding a column is a row
//! there and the code computing its value; these tests fail if a view
//! keeps a list of its own.

use serde_json::Value;
use whichgpu::core::columns::{self, Cell, Ctx, COLUMNS, CSV, PAGE, REPORT, UNIT};
use whichgpu::core::config::Lang;
use whichgpu::core::messages::ui;
use whichgpu::core::ondemand::offers_csv;
use whichgpu::core::report;

use crate::common;

#[test]
fn ids_are_unique_and_headers_are_known_texts() {
    for (i, c) in COLUMNS.iter().enumerate() {
        assert!(COLUMNS.iter().skip(i + 1).all(|d| d.id != c.id), "`{}` twice", c.id);
        assert!(c.views != 0, "`{}` is in no view", c.id);
        if c.views & (PAGE | UNIT) != 0 {
            assert!(
                !ui(c.header, Lang::En).is_empty() && !ui(c.header, Lang::Zh).is_empty(),
                "`{}`: its page header `{}` has no text",
                c.id,
                c.header
            );
        }
        if c.views & REPORT != 0 {
            assert!(c.report.width != 0, "`{}`: the report lays it out nowhere", c.id);
        }
    }
}

#[test]
fn the_csv_is_the_tables_csv_columns_and_agrees_with_the_json() {
    let a = common::answer("model=llama-3.1-8b&w=fp8");
    let csv = offers_csv(&a, "https://example.org/offers.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let want: Vec<&str> = columns::of_view(CSV, None).map(|c| c.id).collect();
    assert_eq!(header, want);
    assert_eq!(lines.count(), a.offers.len());
    // Each CSV column is the JSON field of that name, and the two say the same.
    let ctx = Ctx { lang: Lang::En, sources: "" };
    for o in a.offers.iter().filter(|o| o.fits).take(20) {
        let json = serde_json::to_value(o).expect("offer serializes");
        for c in columns::of_view(CSV, None) {
            let field = json.get(c.id).unwrap_or_else(|| panic!("CSV column `{}` is no JSON field", c.id));
            let same = match ((c.cell)(o, &ctx), field) {
                (Cell::Text(t), Value::String(s)) => *t == *s || (s.is_empty() && t.is_empty()),
                (Cell::Name(n), Value::String(s)) => n == s,
                (Cell::Names(n), Value::Array(v)) => {
                    n.iter().zip(v).all(|(a, b)| b.as_str() == Some(a)) && n.len() == v.len()
                }
                (Cell::Count(n), v) => v.as_u64() == Some(u64::from(n)),
                (Cell::Flag(b), Value::Bool(v)) => b == *v,
                (Cell::Number { value: x, .. } | Cell::Usd { usd: x, .. }, v) => {
                    v.as_f64().is_some_and(|v| v.to_bits() == x.to_bits())
                }
                (Cell::Date(d), Value::String(s)) => d.to_string() == *s,
                (Cell::Unknown(_), v) => v.is_null(),
                _ => false,
            };
            assert!(same, "`{}` of {}: the table's cell and the JSON differ ({field})", c.id, o.id);
        }
    }
}

#[test]
fn the_reports_offers_lines_are_the_report_columns() {
    for (query, unit) in [
        ("model=llama-3.1-8b", "usd_per_million_output_tokens"),
        ("task=generate&model=flux.1-dev", "usd_per_1000_images"),
    ] {
        let a = common::answer(query);
        let text = report::text(&a);
        let cols: Vec<_> = columns::of_view(REPORT, Some(unit)).collect();
        assert!(cols.iter().any(|c| c.id == unit), "{query}: the unit column is shown");
        assert!(cols.iter().all(|c| c.shows(REPORT) || c.id == unit), "{query}: other unit columns are not");
        let o = a.offers.first().expect("an offer");
        let line = text.lines().find(|l| l.trim_start().starts_with(&*o.id)).expect("the first offer's line");
        // Each report column's unit or value stands in the line, in the table's order.
        let mut rest = line;
        for c in &cols {
            let mark = if c.report.unit.is_empty() {
                match (c.cell)(o, &Ctx { lang: Lang::En, sources: "" }) {
                    Cell::Text(t) => t.into_owned(),
                    Cell::Count(n) => n.to_string(),
                    other => panic!("{other:?}"),
                }
            } else {
                c.report.unit.to_string()
            };
            let at = rest
                .find(&mark)
                .unwrap_or_else(|| panic!("{query}: `{}` ({mark}) not in order in {line}", c.id));
            rest = &rest[at + mark.len()..];
        }
    }
}

#[test]
fn the_pages_columns_and_unit_header_come_from_the_table() {
    // The page reads its columns, their order and headers from the table
    // and keeps no list of its own: no header key in its source but the
    // training variant of the speed column's.
    let src = std::fs::read_to_string("src/web/offers.rs").expect("src/web/offers.rs");
    assert!(src.contains("columns::of_view(columns::PAGE,"), "the page's table reads core::columns");
    let keys: Vec<&str> = src.split("\"ui.col.").skip(1).filter_map(|s| s.split('"').next()).collect();
    assert_eq!(keys, ["train"], "header keys spelled in src/web/offers.rs");
    let heads: Vec<&str> = columns::of_view(PAGE, None).map(|c| c.header).collect();
    assert!(
        heads.iter().enumerate().all(|(i, h)| !heads[i + 1..].contains(h)),
        "two page columns share a header: {heads:?}"
    );
    // The page gives a widget of its own only to columns of the table: every
    // `"id" =>` arm of its cell and header matches names a column.
    for arm in src.split("        \"").skip(1).filter_map(|s| s.split_once("\" =>").map(|(id, _)| id)) {
        assert!(columns::by_id(arm).is_some(), "src/web/offers.rs renders `{arm}`, which is no column");
    }
    // The per-unit column's header is the table's.
    let a = common::answer("task=generate&model=flux.1-dev");
    let col = whichgpu::core::form::price_column(common::catalog(), &a);
    assert_eq!(Some(col.header), columns::by_id(col.objective.as_str()).map(|c| c.header));
}
