//! `whichgpu refresh ocp`: OpenComputePrices CSVs converted into offers.csv
//! rows. The samples in tests/data/ocp/ are rows copied from that
//! repository's data files (tests/data/ocp/README.md names files and commits).

use std::process::Command;

use whichgpu::core::catalog::offers::parse_offers;
use whichgpu::core::catalog::{Date, Interconnect, Offer};
use whichgpu::tools::ocp::{convert, Conversion, NOTE};

use crate::common::catalog;

const SOURCE: &str = "github.com/thatkavish/OpenComputePrices (test sample)";

fn sample(name: &str) -> String {
    let path = format!("{}/tests/data/ocp/{name}.csv", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Converts a sample for one provider; the output must parse as offers.csv
/// and load into the bundled catalog in place of its offers.
fn run(provider: &str, name: &str, as_of: Option<Date>) -> (Conversion, Vec<Offer>) {
    let c = convert(provider, &sample(name), as_of, SOURCE, &catalog().gpus).expect("convert");
    let offers = parse_offers("converted", &c.offers_csv)
        .unwrap_or_else(|e| panic!("{provider}: {e}\n{}", c.offers_csv));
    assert_eq!(offers.len(), c.converted);
    for o in &offers {
        assert_eq!(&*o.provider, provider);
        assert_eq!(&*o.source, SOURCE);
        assert!(o.notes.starts_with(NOTE), "{}", o.notes);
        assert_eq!(
            (o.billing_increment_s, o.storage_usd_per_gb_month, o.egress_usd_per_gb),
            (None, None, None)
        );
    }
    catalog().with_offers(offers.clone()).unwrap_or_else(|e| panic!("{provider}: {e}"));
    (c, offers)
}

fn offer<'a>(offers: &'a [Offer], id: &str) -> &'a Offer {
    offers
        .iter()
        .find(|o| &*o.id == id)
        .unwrap_or_else(|| panic!("no offer {id} in {:?}", offers.iter().map(|o| &*o.id).collect::<Vec<_>>()))
}

#[test]
fn a_collector_file_keeps_the_cheapest_row_of_each_gpu_and_count() {
    let (c, offers) = run("thundercompute", "thundercompute", None);
    // A100 80GB without a board is not guessed; the two H100 PCIe rows
    // (1.38 prototyping, 2.49 "1-8 x H100 PCIe NVLink") become one offer.
    assert_eq!(c.converted, 2, "{:?}", c.skipped);
    let h100 = offer(&offers, "thundercompute-h100-pcie-80gb-x1");
    assert_eq!(h100.usd_per_hour, 1.38);
    assert!(h100.notes.contains("cheapest of 2 on-demand rows"), "{}", h100.notes);
    assert_eq!(h100.as_of, Date::parse("2026-03-22").expect("date"));
    assert_eq!(offer(&offers, "thundercompute-rtx-a6000-48gb-x1").usd_per_hour, 0.27);
    assert_eq!(c.skipped.len(), 1);
    assert!(c.skipped[0].1.contains("SXM or PCIe is not said"), "{:?}", c.skipped);
}

#[test]
fn an_aggregator_file_converts_only_the_asked_provider_and_reads_index_rows_by_instance_name() {
    let as_of = Date::parse("2026-03-23").expect("date");
    let (c, offers) = run("salad", "getdeploying", Some(as_of));
    let ids: Vec<&str> = offers.iter().map(|o| &*o.id).collect();
    // Index rows (`cheapest_<model>`) come first in the file; their model is
    // the instance name's ("RTX 3090 Ti", where `gpu_name` says "RTX 3090").
    assert_eq!(
        ids,
        [
            "salad-rtx-4090-24gb-x1",
            "salad-rtx-a5000-24gb-x1",
            "salad-rtx-5090-32gb-x1",
            "salad-rtx-3090-ti-24gb-x1",
            "salad-rtx-4070-ti-super-16gb-x1",
            "salad-rtx-3080-10gb-x1",
            "salad-rtx-3090-24gb-x1",
            "salad-rtx-4080-16gb-x1",
            "salad-rtx-3070-8gb-x1"
        ]
    );
    assert!(offers.iter().all(|o| o.as_of == as_of && o.interconnect == Interconnect::Single));
    assert_eq!(offer(&offers, "salad-rtx-3090-24gb-x1").usd_per_hour, 0.11);
    let ti = offer(&offers, "salad-rtx-3090-ti-24gb-x1");
    assert_eq!(ti.usd_per_hour, 0.12);
    assert!(ti.notes.contains("aggregator index row"), "{}", ti.notes);
    // An index row and a shape row of the same GPU are one offer.
    assert!(offer(&offers, "salad-rtx-4090-24gb-x1").notes.contains("cheapest of 2"));
    assert_eq!(c.unknown_gpus.len(), 10, "{:?}", c.unknown_gpus);
    assert!(c.unknown_gpus.contains(&"GTX 1060".to_string()));
    assert_eq!(c.skipped.iter().filter(|(_, r)| r.contains("is not `salad`")).count(), 5);
    // Multi-GPU shapes get a PCIe interconnect (no bridge assumed).
    let (_, scaleway) = run("scaleway", "getdeploying", None);
    let l4 = offer(&scaleway, "scaleway-l4-24gb-x2");
    assert_eq!((l4.gpus, l4.interconnect, l4.usd_per_hour), (2, Interconnect::Pcie, 1.72));
}

#[test]
fn unknown_gpu_names_are_listed_not_guessed() {
    let (c, offers) = run("tensordock", "tensordock", None);
    assert_eq!(c.unknown_gpus, ["RTX 5000 Ada"]);
    let ids: Vec<&str> = offers.iter().map(|o| &*o.id).collect();
    assert!(
        ids.contains(&"tensordock-rtx-3090-24gb-x1") && ids.contains(&"tensordock-rtx-a5000-24gb-x1"),
        "{ids:?}"
    );
    // The cheapest RTX 3090 location wins; its vCPU/RAM come with it.
    let cheapest = offer(&offers, "tensordock-rtx-3090-24gb-x1");
    let text = sample("tensordock");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let prices: Vec<f64> = reader
        .records()
        .map(|r| r.expect("row"))
        .filter(|r| r.get(6) == Some("RTX 3090"))
        .map(|r| r.get(21).and_then(|p| p.parse().ok()).expect("price"))
        .collect();
    assert!(!prices.is_empty());
    assert_eq!(cheapest.usd_per_hour, prices.iter().copied().fold(f64::INFINITY, f64::min));
}

#[test]
fn names_need_a_board_and_a_size_that_match_the_catalog() {
    let header = "snapshot_date,provider,instance_type,gpu_name,gpu_variant,gpu_memory_gb,gpu_count,pricing_type,price_per_hour,currency";
    let text = format!(
        "{header}\n2026-03-22,x,h100a,H100,SXM5,80,1,on_demand,2,USD\n2026-03-22,x,h100b,H100,,80,1,on_demand,2,USD\n\
         2026-03-22,x,a100,A100,PCIe,160,2,on_demand,3,USD\n2026-03-22,x,v100,V100,,0,1,on_demand,1,USD\n\
         2026-03-22,x,l4,L4,,80,1,on_demand,1,USD\n2026-03-22,x,l4e,L4,,24,1,on_demand,1,EUR\n2026-03-22,x,l4r,L4,,24,1,reserved,1,USD\n\
         2026-03-22,x,l4s,L4,,24,1,spot,0.5,USD\n2026-03-22,x,l4o,L4,,24,1,on_demand,0.9,USD\n2026-03-22,x,g,Voodoo 5,,,1,on_demand,1,USD\n"
    );
    let c = convert("tensordock", &text.replace(",x,", ",tensordock,"), None, SOURCE, &catalog().gpus)
        .expect("convert");
    let offers = parse_offers("converted", &c.offers_csv).expect("parse");
    let got: Vec<(&str, f64, Option<f64>)> =
        offers.iter().map(|o| (&*o.id, o.usd_per_hour, o.spot_usd_per_hour)).collect();
    assert_eq!(
        got,
        [
            ("tensordock-h100-sxm-80gb-x1", 2.0, None),
            ("tensordock-a100-pcie-80gb-x2", 3.0, None),
            ("tensordock-l4-24gb-x1", 0.9, Some(0.5))
        ]
    );
    let reasons: Vec<&str> = c.skipped.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(c.skipped.iter().map(|(row, _)| *row).collect::<Vec<_>>(), [2, 4, 5, 6, 7, 10]);
    assert!(reasons[0].contains("SXM, PCIe or NVL"), "{reasons:?}");
    assert!(reasons[1].contains("`gpu_memory_gb` is empty"), "{reasons:?}");
    assert!(reasons[2].contains("does not match `l4-24gb`"), "{reasons:?}");
    assert!(reasons[3].contains("`currency`"), "{reasons:?}");
    assert!(reasons[4].contains("`pricing_type`"), "{reasons:?}");
    assert_eq!(c.unknown_gpus, ["Voodoo 5"]);
}

#[test]
fn bad_files_are_errors_and_bad_rows_never_panic() {
    let gpus = &catalog().gpus;
    assert!(convert("salad", "a,b\n1,2\n", None, SOURCE, gpus).is_err());
    assert!(convert("salad", &sample("getdeploying"), None, " ", gpus).is_err());
    let header = "provider,gpu_name,gpu_count,pricing_type,price_per_hour,currency";
    for row in [
        "salad,RTX 3090,0,on_demand,1,USD",
        "salad,RTX 3090,1.5,on_demand,1,USD",
        "salad,RTX 3090,1,on_demand,-1,USD",
        "salad,RTX 3090,1,on_demand,x,USD",
        "salad,RTX 3090,1",
    ] {
        let c = convert("salad", &format!("{header}\n{row}\n"), None, SOURCE, gpus).expect("convert");
        assert_eq!((c.converted, c.skipped.len()), (0, 1), "{row}: {:?}", c.skipped);
    }
    // A row without a snapshot date needs --as-of.
    let c = convert("salad", &format!("{header}\nsalad,RTX 3090,1,on_demand,0.1,USD\n"), None, SOURCE, gpus)
        .expect("convert");
    assert!(c.skipped[0].1.contains("--as-of"), "{:?}", c.skipped);
}

#[test]
fn the_cli_writes_rows_and_lists_skips() {
    let path = format!("{}/tests/data/ocp/thundercompute.csv", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["refresh", "ocp", &path, "--provider", "thundercompute", "--source", SOURCE])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(parse_offers("cli", &stdout).expect("parse").len(), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("skipped row 2:") && stderr.contains("converted 2 offers"), "{stderr}");
    let bad = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["refresh", "ocp", &path, "--provider", "nope", "--source", SOURCE])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
    let family = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["refresh", "vast", &path, "--provider", "vastai", "--source", SOURCE])
        .output()
        .expect("run");
    assert_eq!(family.status.code(), Some(2));
}
