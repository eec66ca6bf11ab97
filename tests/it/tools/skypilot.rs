//! `whichgpu skypilot`: SkyPilot catalog CSVs converted into offers.csv rows.
//!
//! The samples in tests/data/skypilot/ keep the header order each cloud's
//! SkyPilot catalog uses (github.com/skypilot-org/skypilot-catalog):
//! - aws.csv: catalogs/v7/aws/vms.csv @27f67dd4e1bc0d35fa0ec075180ad54b230882c4
//!   (…, GpuInfo, Price, SpotPrice, Region, AvailabilityZone)
//! - gcp.csv: catalogs/v7/gcp/vms.csv @6f65ab58724c0a5b17dbb81ee124e7d7dee0d4a5
//!   (InstanceType, vCPUs, MemoryGiB, AcceleratorName, …, Region, AvailabilityZone, Price, SpotPrice;
//!   GPUs are accelerator-only rows priced apart from their host machine type)
//! - azure.csv: catalogs/v6/azure/vms.csv @098741e70562f65d7af1cceb81e33b284f742604
//!   (…, GpuInfo, Price, SpotPrice, Region, Generation)
//! - lambda.csv: catalogs/v7/lambda/vms.csv @11580132cea293395776b033c8533714d42abb4e
//!   (…, MemoryGiB, Price, Region, GpuInfo, SpotPrice)
//!
//! Rows are copied from those files, except: aws g5.xlarge (prices from the
//! SkyPilot v6 snapshot already in static/offers.csv) and trn1.2xlarge
//! (written for the unknown-accelerator case); gcp: the A100 ×8 me-west1
//! SpotPrice blanked and the T4 row written; azure: the NC24s_v3 SpotPrice
//! blanked; lambda: rows 11–13 written (a repeated row, K80, a `N/A` price).

use std::process::Command;

use whichgpu::core::catalog::offers::{parse_offers, OFFER_COLUMNS};
use whichgpu::core::catalog::{Date, Interconnect, Offer};
use whichgpu::tools::skypilot::{convert, Conversion, NOTE, REQUIRED_COLUMNS};

use crate::common::catalog;

const SOURCE: &str = "github.com/skypilot-org/skypilot-catalog (test sample)";

fn as_of() -> Date {
    Date::parse("2026-03-21").expect("date")
}

fn sample(cloud: &str) -> String {
    let path = format!("{}/tests/data/skypilot/{cloud}.csv", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Converts a sample; the output must parse as offers.csv.
fn run(cloud: &str) -> (Conversion, Vec<Offer>) {
    let c = convert(cloud, &sample(cloud), as_of(), SOURCE, &catalog().gpus).expect("convert");
    let offers =
        parse_offers("converted", &c.offers_csv).unwrap_or_else(|e| panic!("{cloud}: {e}\n{}", c.offers_csv));
    assert_eq!(offers.len(), c.converted, "{cloud}");
    for o in &offers {
        assert_eq!(&*o.provider, cloud);
        assert_eq!(&*o.source, SOURCE);
        assert_eq!(o.as_of, as_of());
        assert!(o.notes.starts_with(NOTE), "{}", o.notes);
        // The provider's row supplies these.
        assert_eq!((o.billing_increment_s, o.min_charge_s), (None, None));
        assert_eq!((o.storage_usd_per_gb_month, o.egress_usd_per_gb, o.inter_node_gbps), (None, None, None));
    }
    (c, offers)
}

fn offer<'a>(offers: &'a [Offer], id: &str) -> &'a Offer {
    offers.iter().find(|o| &*o.id == id).unwrap_or_else(|| panic!("no offer {id}"))
}

fn ids(offers: &[Offer]) -> Vec<&str> {
    offers.iter().map(|o| &*o.id).collect()
}

fn skipped(c: &Conversion) -> Vec<(usize, &str)> {
    c.skipped.iter().map(|(row, why)| (*row, why.as_str())).collect()
}

#[test]
fn the_samples_keep_four_different_header_orders() {
    let headers: Vec<String> = ["aws", "gcp", "azure", "lambda"]
        .iter()
        .map(|c| sample(c).lines().next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        headers,
        [
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone",
            "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,AvailabilityZone,Price,SpotPrice",
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,Generation",
            "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice",
        ]
    );
    for (i, a) in headers.iter().enumerate() {
        for b in headers.iter().skip(i + 1) {
            assert_ne!(a, b);
        }
    }
}

#[test]
fn the_output_has_exactly_the_offer_columns() {
    for cloud in ["aws", "gcp", "azure", "lambda"] {
        let (c, _) = run(cloud);
        assert_eq!(c.offers_csv.lines().next(), Some(OFFER_COLUMNS.join(",").as_str()));
        assert_eq!(c.offers_csv.lines().count(), c.converted + 1);
    }
}

#[test]
fn aws() {
    let (c, offers) = run("aws");
    assert_eq!(c.converted, 6);
    assert_eq!(
        skipped(&c),
        [
            (1, "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)"),
            (9, "`Price` is empty"),
            (12, "`AcceleratorName` `Trainium` is not a GPU whichgpu knows"),
        ]
    );
    assert_eq!(
        ids(&offers),
        [
            "aws-p4d.24xlarge-us-east-1",
            "aws-p4d.24xlarge-ap-south-1",
            "aws-p4de.24xlarge-us-east-1",
            "aws-p5.48xlarge-us-east-1",
            "aws-p3dn.24xlarge-us-east-1",
            "aws-g5.xlarge-us-west-2",
        ]
    );
    // Three zones of one instance and region: the lowest spot is kept.
    let p4d = offer(&offers, "aws-p4d.24xlarge-us-east-1");
    assert_eq!((&*p4d.gpu, p4d.gpus, p4d.interconnect), ("a100-sxm-40gb", 8, Interconnect::Nvswitch));
    assert_eq!((p4d.usd_per_hour, p4d.spot_usd_per_hour), (32.7726, Some(6.8179)));
    assert_eq!((p4d.vcpus, p4d.ram_gb, &*p4d.region), (Some(96.0), Some(1152.0), "us-east-1"));
    assert_eq!(
        p4d.notes,
        "converted from SkyPilot catalog; `A100` resolved to a100-sxm-40gb: AWS P4d/P4de/P5 instances carry SXM boards; \
         lowest-spot of 3 rows for this instance and region"
    );
    // An empty SpotPrice stays empty.
    assert_eq!(offer(&offers, "aws-p4d.24xlarge-ap-south-1").spot_usd_per_hour, None);
    // Two rows of one zone, one without spot: the one with a spot price wins.
    let p4de = offer(&offers, "aws-p4de.24xlarge-us-east-1");
    assert_eq!((&*p4de.gpu, p4de.spot_usd_per_hour), ("a100-sxm-80gb", Some(5.8171)));
    assert_eq!(&*offer(&offers, "aws-p5.48xlarge-us-east-1").gpu, "h100-sxm-80gb");
    let p3dn = offer(&offers, "aws-p3dn.24xlarge-us-east-1");
    assert_eq!((&*p3dn.gpu, p3dn.interconnect), ("v100-32gb", Interconnect::Nvlink));
    assert_eq!(p3dn.notes, NOTE);
    let g5 = offer(&offers, "aws-g5.xlarge-us-west-2");
    assert_eq!((&*g5.gpu, g5.gpus, g5.interconnect), ("a10g-24gb", 1, Interconnect::Single));

    // SkyPilot has no inter-node bandwidth, and AWS publishes it, so the
    // 8-GPU rows need it filled before they load (the CLI says so too).
    let err = catalog().with_offers(offers.clone()).expect_err("inter_node_gbps missing");
    assert_eq!(err.to_string(), "import: row 1, field `inter_node_gbps`: is empty, and provider `aws` does not list it as unpublished");
    let mut filled = offers;
    for o in filled.iter_mut().filter(|o| o.gpus >= 8) {
        o.inter_node_gbps =
            catalog().offers.iter().find(|b| b.instance == o.instance).and_then(|b| b.inter_node_gbps);
        assert!(o.inter_node_gbps.is_some(), "{}", o.instance);
    }
    let merged = catalog().with_offers(filled).expect("loads once inter_node_gbps is filled");
    assert_eq!(merged.offers.len(), 6);
    let aws = merged.provider("aws");
    assert_eq!(merged.offers.first().map(|o| o.billing(aws)), Some((1.0, 60.0, false)));
}

#[test]
fn gcp_adds_the_gpu_rows_to_their_host_machine_type() {
    let (c, offers) = run("gcp");
    assert_eq!(c.converted, 3);
    assert_eq!(
        skipped(&c),
        [
            (1, "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)"),
            (
                10,
                "`AcceleratorName` is empty: `a3-edgegpu-8g` is a GCP GPU machine type priced without its GPUs, \
                 and no accelerator row in the file pairs with it"
            ),
            (
                11,
                "`InstanceType` is empty: an accelerator-only price row for 1 × `L4`, and the file has no row for its host \
                 machine type (`g2-standard-4`, `g2-standard-8`, `g2-standard-12`, `g2-standard-16`, `g2-standard-32`) \
                 in region `us-central1`, zone `us-central1-a`"
            ),
            (12, "`InstanceType` is empty: an accelerator-only price row, and no fixed host machine type is known for 1 × `T4`"),
            (13, "`AcceleratorName` `tpu-v6e-1` is not a GPU whichgpu knows"),
        ]
    );
    assert_eq!(
        ids(&offers),
        ["gcp-a2-highgpu-1g-us-central1", "gcp-a2-highgpu-8g-me-west1", "gcp-a3-highgpu-8g-asia-east1"]
    );
    // Host 0.73948 (spot 0.29576) + A100 ×1 2.93391 (spot 1.1472), two zones.
    let a2 = offer(&offers, "gcp-a2-highgpu-1g-us-central1");
    assert_eq!((&*a2.gpu, a2.gpus, a2.interconnect), ("a100-sxm-40gb", 1, Interconnect::Single));
    assert_eq!((a2.usd_per_hour, a2.spot_usd_per_hour), (3.67339, Some(1.44296)));
    assert_eq!((a2.vcpus, a2.ram_gb), (Some(12.0), Some(85.0)));
    assert_eq!(
        a2.notes,
        "converted from SkyPilot catalog; `A100` resolved to a100-sxm-40gb: GCP A2/A3 machine types carry SXM boards; \
         GCP prices the GPUs apart: host `a2-highgpu-1g` (row 2) + 1 × `A100` (row 4); lowest-spot of 2 rows for this instance and region"
    );
    // No spot price for the GPUs: no spot price for the machine.
    let a2x8 = offer(&offers, "gcp-a2-highgpu-8g-me-west1");
    assert_eq!(
        (a2x8.usd_per_hour, a2x8.spot_usd_per_hour, a2x8.interconnect),
        (32.32579, None, Interconnect::Nvswitch)
    );
    let a3 = offer(&offers, "gcp-a3-highgpu-8g-asia-east1");
    assert_eq!(
        (&*a3.gpu, a3.usd_per_hour, a3.spot_usd_per_hour),
        ("h100-sxm-80gb", 101.70125, Some(71.72976))
    );
    // GCP does not publish inter_node_gbps per machine in providers.csv's sources.
    catalog().with_offers(offers).expect("gcp rows load");
}

#[test]
fn azure() {
    let (c, offers) = run("azure");
    assert_eq!(c.converted, 8);
    assert_eq!(
        skipped(&c),
        [
            (1, "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)"),
            (10, "`AcceleratorName` `Radeon MI25` is not a GPU whichgpu knows"),
            (11, "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)"),
            (13, "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)"),
        ]
    );
    let gpu = |id: &str| {
        let o = offer(&offers, id);
        (&*o.gpu, o.gpus, o.interconnect)
    };
    // NC-series: PCIe A100 / H100 NVL; ND-series: SXM.
    assert_eq!(gpu("azure-standard-nc24ads-a100-v4-eastus"), ("a100-pcie-80gb", 1, Interconnect::Single));
    assert_eq!(gpu("azure-standard-nc96ads-a100-v4-eastus"), ("a100-pcie-80gb", 4, Interconnect::Pcie));
    assert_eq!(gpu("azure-standard-nd96asr-v4-eastus"), ("a100-sxm-40gb", 8, Interconnect::Nvswitch));
    assert_eq!(gpu("azure-standard-nd96amsr-a100-v4-eastus"), ("a100-sxm-80gb", 8, Interconnect::Nvswitch));
    assert_eq!(gpu("azure-standard-nc40ads-h100-v5-eastus"), ("h100-nvl-94gb", 1, Interconnect::Single));
    assert_eq!(gpu("azure-standard-nc80adis-h100-v5-eastus"), ("h100-nvl-94gb", 2, Interconnect::Nvlink));
    assert_eq!(gpu("azure-standard-nv36ads-a10-v5-eastus"), ("a10-24gb", 1, Interconnect::Single));
    assert_eq!(gpu("azure-standard-nc24s-v3-eastus"), ("v100-16gb", 4, Interconnect::Nvlink));
    assert_eq!(offer(&offers, "azure-standard-nc24s-v3-eastus").spot_usd_per_hour, None);
    assert!(offer(&offers, "azure-standard-nv36ads-a10-v5-eastus")
        .notes
        .ends_with("lowest-spot of 2 rows for this instance and region"));
    assert!(offer(&offers, "azure-standard-nc24ads-a100-v4-eastus")
        .notes
        .ends_with("`A100-80GB` resolved to a100-pcie-80gb: Azure NC A100 v4 VMs carry PCIe cards"));
    catalog().with_offers(offers).expect("azure rows load");
}

#[test]
fn lambda() {
    let (c, offers) = run("lambda");
    assert_eq!(c.converted, 8);
    assert_eq!(
        skipped(&c),
        [
            (1, "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)"),
            (5, "`AcceleratorName` `A100` does not say SXM or PCIe, and nothing in instance `gpu_8x_a100` does either"),
            (12, "`AcceleratorName` `K80` is not a GPU whichgpu knows"),
            (13, "`Price` `N/A` is not a number"),
        ]
    );
    assert_eq!(
        ids(&offers),
        [
            "lambda-gpu-1x-h100-pcie-us-east-1",
            "lambda-gpu-1x-h100-sxm5-us-east-1",
            "lambda-gpu-8x-a100-80gb-sxm4-us-east-1",
            "lambda-gpu-8x-v100-us-east-1",
            "lambda-gpu-1x-a6000-us-east-1",
            "lambda-gpu-1x-a6000-us-west-1",
            "lambda-gpu-1x-rtx6000-us-east-1",
            "lambda-gpu-1x-a10-us-east-1",
        ]
    );
    let gpu = |id: &str| &*offer(&offers, id).gpu;
    assert_eq!(gpu("lambda-gpu-1x-h100-pcie-us-east-1"), "h100-pcie-80gb");
    assert_eq!(gpu("lambda-gpu-1x-h100-sxm5-us-east-1"), "h100-sxm-80gb");
    assert_eq!(gpu("lambda-gpu-8x-a100-80gb-sxm4-us-east-1"), "a100-sxm-80gb");
    assert_eq!(gpu("lambda-gpu-1x-a6000-us-east-1"), "rtx-a6000-48gb");
    assert_eq!(gpu("lambda-gpu-1x-rtx6000-us-east-1"), "quadro-rtx-6000-24gb");
    assert!(offers.iter().all(|o| o.spot_usd_per_hour.is_none()));
    assert_eq!(offer(&offers, "lambda-gpu-8x-v100-us-east-1").interconnect, Interconnect::Nvlink);
    catalog().with_offers(offers).expect("lambda rows load");
}

#[test]
fn a_missing_required_column_is_an_error_naming_it() {
    let all = [
        "InstanceType",
        "AcceleratorName",
        "AcceleratorCount",
        "vCPUs",
        "Price",
        "SpotPrice",
        "Region",
        "GpuInfo",
    ];
    assert_eq!(REQUIRED_COLUMNS, ["InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"]);
    for missing in REQUIRED_COLUMNS {
        let header: Vec<&str> = all.iter().copied().filter(|c| c != missing).collect();
        let row = vec!["x"; header.len()];
        let text = format!("{}\n{}\n", header.join(","), row.join(","));
        let err = convert("aws", &text, as_of(), SOURCE, &catalog().gpus).expect_err("missing column");
        assert_eq!(err.to_string(), format!("SkyPilot catalog: missing column `{missing}`"));
    }
    // Names are case-sensitive, as SkyPilot writes them.
    let err = convert(
        "aws",
        "instancetype,AcceleratorName,AcceleratorCount,Price,Region\n",
        as_of(),
        SOURCE,
        &catalog().gpus,
    )
    .expect_err("lowercase header");
    assert_eq!(err.to_string(), "SkyPilot catalog: missing column `InstanceType`");
    let err = convert("aws", &sample("aws"), as_of(), " ", &catalog().gpus).expect_err("empty source");
    assert_eq!(
        err.to_string(),
        "SkyPilot catalog: row 0, field `source`: is empty (every offer needs its source)"
    );
}

#[test]
fn only_the_required_columns_are_enough() {
    let text =
        "Region,Price,AcceleratorCount,AcceleratorName,InstanceType\nus-east-1,98.32,8,H100,p5.48xlarge\n";
    let c = convert("aws", text, as_of(), SOURCE, &catalog().gpus).expect("convert");
    let offers = parse_offers("converted", &c.offers_csv).expect("parse");
    let o = offers.first().expect("one offer");
    assert_eq!((&*o.gpu, o.vcpus, o.spot_usd_per_hour), ("h100-sxm-80gb", None, None));
    assert!(c.skipped.is_empty());
}

#[test]
fn bad_rows_are_skipped_with_the_field_named() {
    let text = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region\n\
                g5.xlarge,A10G,0.5,4,16,1.0,,us-east-1\n\
                g5.xlarge,A10G,,4,16,1.0,,us-east-1\n\
                g5.xlarge,A10G,1,four,16,1.0,,us-east-1\n\
                g5.xlarge,A10G,1,4,16,0,,us-east-1\n\
                g5.xlarge,A10G,1,4,16,1.0,cheap,us-east-1\n\
                g5.xlarge,A10G,1,4,16,1.0,,\n\
                g5.xlarge,A10G,1\n\
                ,,,,,,,\n\
                Weird Name!,A10G,1,4,16,1.0,,us-east-1\n";
    let c = convert("aws", text, as_of(), SOURCE, &catalog().gpus).expect("convert");
    assert_eq!(
        skipped(&c),
        [
            (1, "`AcceleratorCount` `0.5` is not a whole number of GPUs"),
            (2, "`AcceleratorCount` is empty"),
            (3, "`vCPUs` `four` is not a number"),
            (4, "`Price` `0` is not positive"),
            (5, "`SpotPrice` `cheap` is not a number"),
            (6, "`Region` is empty"),
            (7, "has 3 fields, the header has 8"),
            (8, "`InstanceType` is empty"),
        ]
    );
    // Characters outside [a-z0-9.-] become '-' in the id; the instance keeps its name.
    let offers = parse_offers("converted", &c.offers_csv).expect("parse");
    assert_eq!(ids(&offers), ["aws-weird-name--us-east-1"]);
    assert_eq!(offers.first().map(|o| &*o.instance), Some("Weird Name!"));
}

#[test]
fn hostile_input_never_panics() {
    for text in [
        "",
        "\u{feff}",
        "\"",
        "a,b\n\"unclosed",
        "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\n,,,,\n\"\"\"\n",
    ] {
        if let Ok(c) = convert("aws", text, as_of(), SOURCE, &catalog().gpus) {
            assert_eq!(c.converted, 0, "{text:?}");
            assert!(parse_offers("converted", &c.offers_csv).is_ok());
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        // Any rows under a SkyPilot header: no panic, and what converts parses.
        #[test]
        fn any_rows_convert_or_skip(rows in proptest::collection::vec(proptest::collection::vec("[A-Za-z0-9 .,\"_-]{0,12}", 0..10), 0..8)) {
            let mut text = String::from("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice,Region,AvailabilityZone\n");
            for r in &rows {
                text.push_str(&r.join(","));
                text.push('\n');
            }
            if let Ok(c) = convert("aws", &text, as_of(), SOURCE, &catalog().gpus) {
                let offers = parse_offers("converted", &c.offers_csv);
                prop_assert!(offers.is_ok(), "{:?}\n{}", offers.err(), c.offers_csv);
            }
        }
    }
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_whichgpu")).args(args).output().expect("run whichgpu");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn the_cli_prints_offers_and_skipped_rows() {
    let path = format!("{}/tests/data/skypilot/aws.csv", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = cli(&["skypilot", "aws", &path, "--as-of", "2026-03-21", "--source", SOURCE]);
    assert_eq!(code, 0, "{err}");
    let (c, _) = run("aws");
    assert_eq!(out, c.offers_csv);
    assert!(
        err.contains("skipped row 1: `AcceleratorName` is empty (no GPU listed: a CPU-only instance)\n"),
        "{err}"
    );
    assert!(err.contains("skipped row 9: `Price` is empty\n"), "{err}");
    assert!(err.contains("converted 6 offers, skipped 3 rows"), "{err}");
    assert!(err.contains("field `inter_node_gbps`: is empty"), "{err}");

    // Nothing converts: exit 2.
    let empty = format!("{}/skypilot-cpu-only.csv", env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(
        &empty,
        "InstanceType,AcceleratorName,AcceleratorCount,Price,Region\nm5.large,,,0.096,us-east-1\n",
    )
    .expect("write");
    let (code, out, err) = cli(&["skypilot", "aws", &empty, "--as-of", "2026-03-21", "--source", SOURCE]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(out.lines().count(), 1);
    assert!(err.contains("skipped row 1:"), "{err}");

    // Usage errors: exit 2, no panic.
    for args in [
        vec!["skypilot"],
        vec!["skypilot", "aws", path.as_str()],
        vec!["skypilot", "aws", path.as_str(), "--as-of", "2026-13-01", "--source", "x"],
        vec!["skypilot", "aws", path.as_str(), "--as-of", "2026-03-21"],
        vec!["skypilot", "nosuch", path.as_str(), "--as-of", "2026-03-21", "--source", "x"],
        vec!["skypilot", "aws", "/no/such/file.csv", "--as-of", "2026-03-21", "--source", "x"],
    ] {
        let (code, _, err) = cli(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let (_, _, err) = cli(&["skypilot", "nosuch", &path, "--as-of", "2026-03-21", "--source", "x"]);
    assert!(err.contains("unknown provider `nosuch`"), "{err}");
}
