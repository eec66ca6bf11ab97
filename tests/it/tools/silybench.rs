//! `whichgpu refresh silybench`: silybench's dated GPU price list converted
//! into offers.csv rows. The sample is the whole file at one commit
//! (tests/data/silybench/README.md).

use std::process::Command;

use whichgpu::core::catalog::offers::parse_offers;
use whichgpu::core::catalog::{Date, Interconnect, Offer};
use whichgpu::tools::silybench::{convert, NOTE};

use crate::common::catalog;

const SOURCE: &str = "github.com/tgarg01/silybench-data derived/csv/gpu_prices.csv (test sample)";

fn sample() -> String {
    let path = format!("{}/tests/data/silybench/gpu_prices.csv", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn providers() -> Vec<&'static str> {
    catalog().providers.iter().map(|p| p.id.as_str()).collect()
}

fn offer<'a>(offers: &'a [Offer], id: &str) -> &'a Offer {
    offers.iter().find(|o| &*o.id == id).unwrap_or_else(|| panic!("no offer {id}"))
}

#[test]
fn the_sample_converts_with_each_rows_date_and_page() {
    let c = convert(&sample(), SOURCE, &providers(), &catalog().gpus).expect("convert");
    let offers = parse_offers("converted", &c.offers_csv).expect("parse");
    assert_eq!(offers.len(), c.converted);
    assert_eq!(c.converted, 21, "{:?}", c.skipped);
    for o in &offers {
        assert!(o.notes.starts_with(NOTE), "{}", o.notes);
        assert!(o.source.starts_with(SOURCE) && o.source.contains("(row "), "{}", o.source);
        assert!(o.as_of >= Date::parse("2026-09-25").expect("date"));
    }
    // RunPod: the community tier is the cheaper one; the secure tier is named.
    let h100 = offer(&offers, "runpod-h100-sxm-80gb-x1");
    assert_eq!(h100.usd_per_hour, 2.69);
    assert!(h100.notes.contains("Secure Cloud at 3.49"), "{}", h100.notes);
    assert!(h100.source.contains("runpod.io/pricing"));
    // `vast` is Vast.ai; its row keeps its own date.
    assert_eq!(offer(&offers, "vastai-h100-sxm-80gb-x1").as_of, Date::parse("2026-09-28").expect("date"));
    // Per-GPU prices times the smallest shape sold; HGX means SXM.
    let lambda8 = offer(&offers, "lambda-h100-sxm-80gb-x8");
    assert_eq!((lambda8.usd_per_hour, lambda8.interconnect), (31.92, Interconnect::Nvswitch));
    assert_eq!(offer(&offers, "nebius-h200-sxm-141gb-x1").usd_per_hour, 4.5);
    // Boards said nowhere are not guessed: GCP's a3 rows and RunPod's "H200".
    let why: Vec<(usize, &str)> = c.skipped.iter().map(|(r, w)| (*r, w.as_str())).collect();
    assert_eq!(why.iter().map(|(r, _)| *r).collect::<Vec<_>>(), [7, 8, 14, 15]);
    assert!(why.iter().all(|(_, w)| w.contains("not guessed")), "{why:?}");
}

#[test]
fn unknown_providers_and_bad_rows_are_listed() {
    let header = "provider,gpu_type,provisioning,usd_per_gpu_hour,min_gpus,product,source,checked_at,notes";
    let rows = [
        "acme,H100-80GB,on-demand,2,1,H100 SXM,https://x,2026-09-25,",
        "runpod,H100-80GB,reserved,2,1,H100 SXM,https://x,2026-09-25,",
        "runpod,H100-80GB,on-demand,-2,1,H100 SXM,https://x,2026-09-25,",
        "runpod,H100-80GB,on-demand,2,0,H100 SXM,https://x,2026-09-25,",
        "runpod,H100-80GB,on-demand,2,1,H100 SXM,https://x,someday,",
        "runpod,Voodoo5-64GB,on-demand,2,1,Voodoo,https://x,2026-09-25,",
        "runpod,L4-24GB,spot,0.2,1,L4 spot,https://x,2026-09-25,",
        "runpod,L40S-48GB,spot,0.5,2,L40S spot,https://x,2026-09-25,",
        "runpod,L40S-48GB,on-demand,0.8,2,L40S,https://x,2026-09-25,",
        "runpod,L40S",
    ];
    let c = convert(&format!("{header}\n{}\n", rows.join("\n")), SOURCE, &providers(), &catalog().gpus)
        .expect("convert");
    let offers = parse_offers("converted", &c.offers_csv).expect("parse");
    let got: Vec<(&str, f64, Option<f64>, Interconnect)> =
        offers.iter().map(|o| (&*o.id, o.usd_per_hour, o.spot_usd_per_hour, o.interconnect)).collect();
    assert_eq!(got, [("runpod-l40s-48gb-x2", 1.6, Some(1.0), Interconnect::Pcie)]);
    assert_eq!(c.skipped.iter().map(|(r, _)| *r).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6, 7, 10]);
    assert!(c.skipped[0].1.contains("not in providers.csv"));
    assert!(c.skipped[5].1.contains("not in the name table"));
    assert!(c.skipped[6].1.contains("spot tier without an on-demand tier"));
    assert!(convert("a,b\n", SOURCE, &providers(), &catalog().gpus).is_err());
    assert!(convert(&sample(), "", &providers(), &catalog().gpus).is_err());
}

#[test]
fn the_cli_converts_the_sample() {
    let path = format!("{}/tests/data/silybench/gpu_prices.csv", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["refresh", "silybench", &path, "--source", SOURCE])
        .output()
        .expect("run");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(parse_offers("cli", &String::from_utf8_lossy(&out.stdout)).expect("parse").len(), 21);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("skipped row 7:") && stderr.contains("converted 21 offers"), "{stderr}");
    let bad = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(["refresh", "silybench", &path, "--source", SOURCE, "--provider", "runpod"])
        .output()
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
}
