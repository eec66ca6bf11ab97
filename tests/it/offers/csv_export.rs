//! The offers' CSV export (`ondemand::offers_csv`, written from the
//! column table `core::columns`) stays the same byte for byte unless a
//! commit says otherwise.

use whichgpu::core::ondemand::offers_csv;

use crate::answer_hashes::{link, Rng};
use crate::common;

const PATH: &str = "tests/data/offers_csv_hashes.txt";

/// The CSV export of 300 generated links is the same, byte for byte, as
/// before the table (`tests/data/offers_csv_hashes.txt`; regenerate
/// deliberately with `UPDATE_OFFERS_CSV=1`, saying why, like the answer hashes).
#[test]
fn the_csv_export_is_unchanged() {
    let mut r = Rng(0x5EED_2026_1204);
    let now: Vec<String> = (0..300)
        .map(|_| {
            let query = link(&mut r);
            let csv = offers_csv(&common::answer(&query), "https://example.org/offers.csv");
            let sha: String =
                sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(csv.as_bytes()))
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
            format!("{} {query}", &sha[..16])
        })
        .collect();
    let now = now.join("\n") + "\n";
    if std::env::var_os("UPDATE_OFFERS_CSV").is_some() {
        std::fs::write(PATH, &now).expect("write");
        return;
    }
    let stored = std::fs::read_to_string(PATH).expect("tests/data/offers_csv_hashes.txt");
    let moved: Vec<_> =
        stored.lines().zip(now.lines()).filter(|(a, b)| a != b).map(|(_, b)| b.to_string()).collect();
    assert!(
        moved.is_empty() && stored.lines().count() == 300,
        "{} CSV exports moved: {moved:?}",
        moved.len()
    );
}
