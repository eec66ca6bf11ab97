//! The three price converters write the same bytes for their test samples
//! as when their shared core (`tools::convert`) was factored out: each
//! conversion (the offers.csv text, the skipped rows with their reasons,
//! the unknown GPU names) is hashed and compared with
//! `tests/data/converter_outputs.txt`. A change that means to move a
//! converter's output regenerates the file
//! (`UPDATE_CONVERTER_OUTPUTS=1 cargo test --test it tools::golden`) and
//! says so in its commit.

use sha2::{Digest, Sha256};
use whichgpu::core::catalog::Date;
use whichgpu::tools::{ocp, silybench, skypilot};

use crate::common::catalog;

const PATH: &str = "tests/data/converter_outputs.txt";

fn sample(path: &str) -> String {
    let path = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn digest(csv: &str, skipped: &[(usize, String)], unknown: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(csv.as_bytes());
    for (row, why) in skipped {
        h.update(format!("\n{row}\t{why}").as_bytes());
    }
    for name in unknown {
        h.update(format!("\n?{name}").as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `name hash` lines, one per sample conversion.
fn outputs() -> String {
    let gpus = &catalog().gpus;
    let as_of = Date::parse("2026-03-21").expect("date");
    let mut lines = Vec::new();
    for cloud in ["aws", "gcp", "azure", "lambda"] {
        let c = skypilot::convert(
            cloud,
            &sample(&format!("skypilot/{cloud}.csv")),
            as_of,
            "skypilot (test sample)",
            gpus,
        )
        .expect("convert");
        assert!(c.converted > 0, "{cloud}");
        lines.push(format!("skypilot/{cloud} {}", digest(&c.offers_csv, &c.skipped, &[])));
    }
    for (provider, file, date) in [
        ("thundercompute", "thundercompute", None),
        ("salad", "getdeploying", Some(as_of)),
        ("scaleway", "getdeploying", None),
        ("tensordock", "tensordock", None),
    ] {
        let c = ocp::convert(provider, &sample(&format!("ocp/{file}.csv")), date, "ocp (test sample)", gpus)
            .expect("convert");
        assert!(c.converted > 0, "{provider}");
        lines.push(format!("ocp/{file}/{provider} {}", digest(&c.offers_csv, &c.skipped, &c.unknown_gpus)));
    }
    let providers: Vec<&str> = catalog().providers.iter().map(|p| p.id.as_str()).collect();
    let c =
        silybench::convert(&sample("silybench/gpu_prices.csv"), "silybench (test sample)", &providers, gpus)
            .expect("convert");
    assert!(c.converted > 0);
    lines.push(format!("silybench/gpu_prices {}", digest(&c.offers_csv, &c.skipped, &[])));
    lines.join("\n") + "\n"
}

#[test]
fn converters_write_the_same_bytes_for_their_samples() {
    let got = outputs();
    if std::env::var_os("UPDATE_CONVERTER_OUTPUTS").is_some() {
        std::fs::write(PATH, &got).expect("write");
        return;
    }
    let want = std::fs::read_to_string(PATH).expect("tests/data/converter_outputs.txt");
    assert_eq!(got, want, "a converter's output moved; regenerate deliberately (see the module's notes)");
}
