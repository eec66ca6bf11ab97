//! The core's small CSV reader (`core::table::read_csv`) reads what the
//! `csv` crate writes as that crate's reader does, for any grid of cells,
//! every line ending, and each bundled table.

use proptest::prelude::*;
use whichgpu::core::table::read_csv;

fn csv_crate_read(text: &str) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    r.records().map(|rec| rec.expect("readable").iter().map(String::from).collect()).collect()
}

fn ours(text: &str) -> Vec<Vec<String>> {
    read_csv(text).iter().map(|r| r.iter().map(String::from).collect()).collect()
}

fn write(grid: &[Vec<String>], terminator: csv::Terminator) -> String {
    let mut w = csv::WriterBuilder::new().flexible(true).terminator(terminator).from_writer(Vec::new());
    for row in grid {
        w.write_record(row).expect("write to memory");
    }
    String::from_utf8(w.into_inner().expect("flush")).expect("UTF-8")
}

/// Cells heavy in the characters that need quoting.
fn cell() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z0-9. ]{0,6}",
        2 => prop::collection::vec(prop_oneof![Just("\""), Just(","), Just("\n"), Just("\r"), Just("\r\n"), Just("x"), Just("中"), Just(" ")], 1..6)
            .prop_map(|v| v.concat()),
        1 => "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// A grid the `csv` crate wrote reads back the same through both readers
    /// (rows of one empty cell are written as an empty line, which both skip).
    #[test]
    fn reads_what_the_csv_crate_writes(
        grid in prop::collection::vec(prop::collection::vec(cell(), 1..5), 0..6),
        crlf in any::<bool>(),
    ) {
        let text = write(&grid, if crlf { csv::Terminator::CRLF } else { csv::Terminator::Any(b'\n') });
        prop_assert_eq!(ours(&text), csv_crate_read(&text));
    }

    /// Any text at all (unbalanced quotes, lone CRs, blank lines): both
    /// readers give the same records.
    #[test]
    fn same_records_as_the_csv_crate_on_any_text(text in "[a\",\r\n ]{0,24}") {
        prop_assert_eq!(ours(&text), csv_crate_read(&text));
    }
}

#[test]
fn bundled_tables_read_the_same() {
    for (name, text) in whichgpu::core::catalog::bundled_tables() {
        let ours = ours(text);
        assert!(ours.len() > 1, "{name} has rows");
        assert_eq!(ours, csv_crate_read(text), "{name}");
    }
}
