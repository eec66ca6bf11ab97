//! Invariants of the bundled catalog, and imports that must be rejected
//! with a message naming the row and field.

use whichgpu::core::catalog::offers::{
    parse_offers, parse_providers, HostBilling, OFFER_COLUMNS, OFFER_OPTIONAL, PROVIDER_COLUMNS,
};
use whichgpu::core::catalog::Date;
use whichgpu::core::config::Commit;
use whichgpu::core::config::Currency;

use crate::common::catalog;

#[test]
fn sizes_meet_the_issue() {
    let c = catalog();
    assert!(c.models.len() >= 40, "{} models", c.models.len());
    assert!(c.gpus.len() >= 30, "{} GPUs", c.gpus.len());
    assert!(c.offers.len() >= 150, "{} offers", c.offers.len());
    let providers: std::collections::BTreeSet<&str> = c.offers.iter().map(|o| &*o.provider).collect();
    assert!(providers.len() >= 15, "{} providers", providers.len());
}

#[test]
fn required_models_are_present() {
    let c = catalog();
    for id in [
        "llama-2-7b",
        "llama-2-13b",
        "llama-2-70b",
        "llama-3-8b",
        "llama-3.1-8b",
        "llama-3-70b",
        "llama-3.1-70b",
        "llama-3.1-405b",
        "llama-3.2-1b",
        "llama-3.2-3b",
        "llama-3.3-70b",
        "mistral-7b",
        "mixtral-8x7b",
        "mixtral-8x22b",
        "qwen2.5-7b",
        "qwen2.5-14b",
        "qwen2.5-32b",
        "qwen2.5-72b",
        "qwen3-8b",
        "qwen3-32b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "deepseek-v3",
        "deepseek-r1",
        "gemma-2-9b",
        "gemma-2-27b",
        "gemma-3-12b",
        "gemma-3-27b",
        "phi-3-mini",
        "phi-3-medium",
        "phi-4",
        "gpt-oss-20b",
        "gpt-oss-120b",
        "gpt-j-6b",
        "octocoder-15.5b",
        "falcon-40b",
        "t0-3b",
        "mt0-xxl-13b",
        "bloomz-7b1",
    ] {
        assert!(c.model(id).is_some(), "missing model {id}");
    }
}

#[test]
fn every_offer_is_consistent() {
    let c = catalog();
    for o in &c.offers {
        let gpu = c.gpu(&o.gpu).expect("offer GPU exists (checked on load)");
        assert!(o.usd_per_hour > 0.0 && o.gpus > 0, "{}", o.id);
        if let Some(s) = o.spot_usd_per_hour {
            assert!(s > 0.0, "{}", o.id);
        }
        assert!(!o.source.is_empty(), "{} has no source", o.id);
        assert!(o.as_of >= Date::parse("2024-01-01").expect("date"), "{} dated {}", o.id, o.as_of);
        // GPU memory × count is at most what a board can carry.
        assert!(gpu.memory_gb * f64::from(o.gpus) <= 72.0 * 288.0, "{}", o.id);
        assert!(
            o.gpus <= gpu.gpus_per_node.max(8),
            "{}: {} GPUs in one instance of {}",
            o.id,
            o.gpus,
            gpu.id
        );
    }
    for g in &c.gpus {
        assert!(!g.source.is_empty() && g.mem_bw_gbps > 0.0 && g.bf16_tflops > 0.0, "{}", g.id);
        // Dense rates only: FP8 is at most 2× BF16 (sparse figures would be 4×).
        if let Some(fp8) = g.fp8_tflops {
            assert!(fp8 <= 2.05 * g.bf16_tflops, "{} fp8 {fp8} vs bf16 {}", g.id, g.bf16_tflops);
        }
    }
    for m in &c.models {
        assert!(!m.source.is_empty(), "{}", m.id);
        assert!(m.params_active <= m.params_total, "{}", m.id);
    }
}

/// The offers header as files written before the optional columns were
/// added (no `currency`): such imports must keep parsing.
fn header() -> String {
    OFFER_COLUMNS.iter().filter(|c| !OFFER_OPTIONAL.contains(c)).copied().collect::<Vec<_>>().join(",")
}

#[test]
fn currency_column_is_optional_and_checked() {
    let legacy = parse_offers("import", &format!("{}\n{GOOD}\n", header())).expect("legacy header parses");
    assert_eq!(legacy.first().map(|o| o.currency), Some(Currency::Usd));
    let with = |cur: &str| format!("currency,{}\n{cur},{GOOD}\n", header());
    let cny = parse_offers("import", &with("cny")).expect("cny parses");
    assert_eq!(cny.first().map(|o| o.currency), Some(Currency::Cny));
    let empty = parse_offers("import", &with("")).expect("empty currency is usd");
    assert_eq!(empty.first().map(|o| o.currency), Some(Currency::Usd));
    let err = parse_offers("import", &with("eur")).expect_err("eur is not a catalog currency");
    assert!(err.to_string().contains("currency") && err.to_string().contains("eur"), "{err}");
}

const GOOD: &str = "x-1,aws,p5.48xlarge,h100-sxm-80gb,8,192,2048,nvswitch,3200,55.04,,,,,,,us-east-1,1,60,0.08,0.09,page,2026-09-01,";

fn import(body: &str) -> String {
    match parse_offers("import", body)
        .map_err(|e| e.to_string())
        .and_then(|o| catalog().with_offers(o).map_err(|e| e.to_string()))
    {
        Ok(_) => "ok".into(),
        Err(e) => e,
    }
}

#[test]
fn imports_are_validated_with_exact_messages() {
    assert_eq!(import(&format!("{}\n{GOOD}\n", header())), "ok");
    assert_eq!(import("id,provider\nx,aws\n"), "import: missing column `instance`");
    assert_eq!(import(&format!("{},color\n{GOOD},red\n", header())), "import: unknown column `color`");
    assert_eq!(
        import(&format!("{}\n{}\n", header(), GOOD.replace("55.04", "-3"))),
        "import: row 1, field `usd_per_hour`: must be positive, got -3"
    );
    assert_eq!(
        import(&format!("{}\n{}\n", header(), GOOD.replace(",8,192", ",eight,192"))),
        "import: row 1, field `gpus`: `eight` is not a whole number"
    );
    assert_eq!(
        import(&format!("{}\n{}\n", header(), GOOD.replace("h100-sxm-80gb", "h900"))),
        "import: row 1, field `gpu`: unknown GPU id `h900`"
    );
    assert_eq!(
        import(&format!("{}\n{}\n", header(), GOOD.replace("2026-09-01", "2026-13-01"))),
        "import: row 1, field `as_of`: `2026-13-01` is not a YYYY-MM-DD date"
    );
    assert_eq!(
        import(&format!("{}\n{GOOD}\n{GOOD}\n", header())),
        "import: row 2, field `id`: duplicate id `x-1`"
    );
    assert_eq!(
        import(&format!("{}\n{}\n", header(), GOOD.replace(",8,192", ",2147483648,192"))),
        "import: row 1, field `gpus`: 2147483648 GPUs in one instance; at most 72"
    );
}

#[test]
fn garbage_imports_fail_cleanly() {
    let mut junk = String::new();
    let mut x: u32 = 12345;
    while junk.len() < 10 * 1024 * 1024 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        junk.push(char::from_u32(32 + (x >> 16) % 95).unwrap_or('a'));
        if x % 97 == 0 {
            junk.push('\n');
        }
    }
    let msg = import(&junk);
    assert!(msg.starts_with("import: "), "{}", &msg[..msg.len().min(100)]);
}

#[test]
fn every_gpu_has_a_sourced_usable_memory_within_its_nominal_size() {
    for g in &catalog().gpus {
        assert!(g.usable_mib > 0.0, "{} usable_mib {}", g.id, g.usable_mib);
        assert!(g.source.contains("usable_mib:"), "{}: no source for usable_mib", g.id);
        assert!(
            g.usable_mib <= 1.05 * g.memory_gb * 1024.0,
            "{}: {} MiB vs nominal {} GiB",
            g.id,
            g.usable_mib,
            g.memory_gb
        );
        assert_eq!(g.usable_bytes(), g.usable_mib * 1_048_576.0, "{}", g.id);
        assert_eq!(g.memory_bytes(), g.memory_gb * 1_073_741_824.0, "{}: memory_bytes stays nominal", g.id);
        // A figure derived without a capture says so where it is shown.
        if g.source.contains("usable_mib: DERIVED") {
            assert!(g.notes.contains("no capture found"), "{}", g.id);
        }
    }
}

#[test]
fn published_driver_totals_are_pinned() {
    // nvidia-smi `memory.total` with ECC on (the datacenter default): GDDR
    // cards lose 1/16 of their nominal size.
    for (id, mib) in [
        ("l4-24gb", 23_034.0),
        ("a10g-24gb", 23_028.0),
        ("a10-24gb", 23_028.0),
        ("l40s-48gb", 46_068.0),
        ("l40-48gb", 46_068.0),
        ("a40-48gb", 46_068.0),
        ("t4-16gb", 15_360.0),
        ("h100-sxm-80gb", 81_559.0),
        ("a100-sxm-80gb", 81_920.0),
        ("a100-sxm-40gb", 40_960.0),
        ("h200-sxm-141gb", 143_771.0),
        ("rtx-a6000-48gb", 49_140.0),
        ("rtx-4090-24gb", 24_564.0),
    ] {
        let g = catalog().gpu(id).expect("GPU in the catalog");
        assert_eq!(g.usable_mib, mib, "{id}");
    }
}

#[test]
fn gpu_rows_reject_missing_or_oversized_usable_memory() {
    use whichgpu::core::catalog::gpus::{parse_gpus, GPU_COLUMNS};
    let row = |usable: &str| {
        let mut fields: Vec<String> = GPU_COLUMNS.iter().map(|_| String::new()).collect();
        for (col, v) in [
            ("id", "g"),
            ("name", "G"),
            ("vendor", "nvidia"),
            ("arch", "ada"),
            ("class", "datacenter"),
            ("form_factor", "pcie"),
            ("memory_gb", "24"),
            ("usable_mib", usable),
            ("memory_type", "GDDR6"),
            ("mem_bw_gbps", "300"),
            ("bf16_tflops", "121"),
            ("source", "s"),
        ] {
            if let Some(i) = GPU_COLUMNS.iter().position(|c| *c == col) {
                fields[i] = v.to_string();
            }
        }
        parse_gpus(&format!("{}\n{}\n", GPU_COLUMNS.join(","), fields.join(",")))
            .map(|g| g.len())
            .map_err(|e| e.to_string())
    };
    assert_eq!(row("23034"), Ok(1));
    assert!(row("").is_err());
    assert!(row("-1").is_err());
    let too_big = row("26000").expect_err("26000 MiB > 1.05 × 24 GiB");
    assert!(too_big.contains("usable_mib"), "{too_big}");
}

#[test]
fn every_commit_price_is_sourced_dated_and_at_most_on_demand() {
    for o in &catalog().offers {
        let terms = [Commit::Month, Commit::Year, Commit::ThreeYears];
        assert_eq!(o.committed_usd_per_hour(Commit::None), None, "{}", o.id);
        let prices: Vec<f64> = terms.iter().filter_map(|t| o.committed_usd_per_hour(*t)).collect();
        if prices.is_empty() {
            continue;
        }
        assert!(!o.commit_source.trim().is_empty(), "{}: commit price without commit_source", o.id);
        let date = o.commit_as_of.unwrap_or_else(|| panic!("{}: commit price without commit_as_of", o.id));
        assert!(date >= Date::parse("2024-01-01").expect("date"), "{} commit dated {date}", o.id);
        for p in prices {
            assert!(p > 0.0 && p <= o.usd_per_hour, "{}: commit {p} vs on-demand {}", o.id, o.usd_per_hour);
        }
        // A longer term never costs more per hour than a shorter one.
        let [m, y, t] = terms.map(|t| o.committed_usd_per_hour(t));
        if let (Some(y), Some(t)) = (y, t) {
            assert!(t <= y, "{}: 3yr {t} above 1yr {y}", o.id);
        }
        if let (Some(m), Some(y)) = (m, y) {
            assert!(y <= m, "{}: 1yr {y} above 1mo {m}", o.id);
        }
    }
}

#[test]
fn committed_prices_cover_fifteen_offers_from_five_providers() {
    let with: Vec<_> = catalog()
        .offers
        .iter()
        .filter(|o| {
            [Commit::Month, Commit::Year, Commit::ThreeYears]
                .iter()
                .any(|t| o.committed_usd_per_hour(*t).is_some())
        })
        .collect();
    let providers: std::collections::BTreeSet<&str> = with.iter().map(|o| &*o.provider).collect();
    assert!(with.len() >= 15, "{} offers with a committed price", with.len());
    assert!(providers.len() >= 5, "providers with a committed price: {providers:?}");
}

#[test]
fn every_provider_has_host_billing() {
    let text = include_str!("../../../static/providers.csv");
    let providers = parse_providers(text).expect("providers parse");
    assert!(providers.len() >= 15);
    for p in &providers {
        assert!(
            matches!(p.host_billing, HostBilling::Included | HostBilling::Separate | HostBilling::Unknown),
            "{}",
            p.id
        );
        assert!(p.source.contains("host_billing:"), "{}: no source for host_billing", p.id);
    }
    let get = |id: &str| providers.iter().find(|p| p.id == id).map(|p| p.host_billing);
    assert_eq!(get("tensordock"), Some(HostBilling::Separate));
    assert_eq!(get("aws"), Some(HostBilling::Included));
    // A missing or unknown value is rejected with the row and field.
    let header = PROVIDER_COLUMNS.join(",");
    let row = |hb: &str| {
        let fields: Vec<&str> = PROVIDER_COLUMNS
            .iter()
            .map(|c| match *c {
                "id" => "p",
                "name" => "P",
                "kind" => "gpu-cloud",
                "host_billing" => hb,
                "source" => "s",
                _ => "",
            })
            .collect();
        parse_providers(&format!("{header}\n{}\n", fields.join(",")))
            .map(|p| p.len())
            .map_err(|e| e.to_string())
    };
    assert_eq!(row("separate"), Ok(1));
    assert_eq!(
        row(""),
        Err("providers.csv: row 1, field `host_billing`: must be included|separate|unknown".to_string())
    );
    assert_eq!(
        row("bundled"),
        Err("providers.csv: row 1, field `host_billing`: must be included|separate|unknown".to_string())
    );
}

#[test]
fn malformed_commit_rows_are_rejected_naming_row_and_field() {
    let with = |mo: &str, yr: &str, y3: &str, src: &str, date: &str| {
        let good = GOOD.replace(",55.04,,,,,,,", &format!(",55.04,,{mo},{yr},{y3},{src},{date},"));
        import(&format!("{}\n{GOOD}\n{good}\n", header()).replacen("x-1", "x-0", 1))
    };
    assert_eq!(with("", "40", "30", "page", "2026-09-01"), "ok");
    assert_eq!(
        with("", "40", "", "", "2026-09-01"),
        "import: row 2, field `commit_source`: is empty but a commit price is given"
    );
    assert_eq!(
        with("", "40", "", "page", ""),
        "import: row 2, field `commit_as_of`: is empty but a commit price is given"
    );
    assert_eq!(
        with("60", "", "", "page", "2026-09-01"),
        "import: row 2, field `commit_1mo_usd_per_hour`: 60 is above the on-demand price 55.04"
    );
    assert_eq!(
        with("", "-1", "", "page", "2026-09-01"),
        "import: row 2, field `commit_1yr_usd_per_hour`: must be positive, got -1"
    );
    assert_eq!(
        with("", "", "0", "page", "2026-09-01"),
        "import: row 2, field `commit_3yr_usd_per_hour`: must be positive, got 0"
    );
    assert_eq!(
        with("", "", "abc", "page", "2026-09-01"),
        "import: row 2, field `commit_3yr_usd_per_hour`: `abc` is not a number"
    );
    assert_eq!(
        with("", "40", "", "page", "2026-99-01"),
        "import: row 2, field `commit_as_of`: `2026-99-01` is not a YYYY-MM-DD date"
    );
    // The accessor picks the term.
    let text =
        format!("{}\n{}\n", header(), GOOD.replace(",55.04,,,,,,,", ",55.04,,50,40,30,page,2026-09-01,"));
    let o = parse_offers("import", &text).expect("parses");
    let o = o.first().expect("one offer");
    assert_eq!(
        [Commit::None, Commit::Month, Commit::Year, Commit::ThreeYears].map(|t| o.committed_usd_per_hour(t)),
        [None, Some(50.0), Some(40.0), Some(30.0)]
    );
}
