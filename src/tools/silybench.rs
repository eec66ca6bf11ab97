//! Converting silybench's GPU price list (github.com/tgarg01/silybench-data,
//! `derived/csv/gpu_prices.csv`) into `static/offers.csv` rows (docs/catalog.md,
//! "Refreshing prices"; CLI: `whichgpu refresh silybench`).
//!
//! The file has one row per provider × GPU type × tier: `provider`,
//! `gpu_type` (`H100-80GB`, `H100-PCIe-80GB`, `RTX4090-24GB`: model, an
//! optional board, the memory), `provisioning` (`on-demand` or `spot`),
//! `usd_per_gpu_hour`, `min_gpus` (the smallest shape sold), `product` (the
//! seller's name for it, e.g. "H100 SXM, Community Cloud"), `source` (the
//! page or API read), `checked_at` and `notes`. Unlike an OpenComputePrices
//! file it holds many providers with their dates, so one run converts every
//! row whose provider is in `providers.csv`.
//!
//! The board comes from the type or the product ("SXM", "HGX", "PCIe",
//! "NVL"); a type whose board is said nowhere is skipped, never guessed
//! (the GPU names go through the OpenComputePrices name table). One offer
//! per provider, GPU and count, `<provider>-<gpu>-x<N>`: the cheapest
//! on-demand tier, with the others named in the notes and the lowest spot
//! tier as its spot price. Pure: text in, text out.

use crate::core::catalog::{Date, Gpu};
use crate::core::table::{clip, is_id, TableError};

use super::convert::{group_in_order, number, require_source, Fields, OfferWriter, Sheet};

use super::ocp::names::map_gpu;

const TABLE: &str = "silybench gpu_prices.csv";

/// The note every converted row starts with.
pub const NOTE: &str = "converted from silybench gpu_prices.csv";

/// Columns the file must have.
pub const REQUIRED_COLUMNS: &[&str] = &[
    "provider",
    "gpu_type",
    "provisioning",
    "usd_per_gpu_hour",
    "min_gpus",
    "product",
    "source",
    "checked_at",
];

/// silybench provider names that differ from `providers.csv` ids.
const PROVIDERS: &[(&str, &str)] = &[("vast", "vastai")];

/// The result of [`convert`].
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// `offers.csv` text: the header (exactly [`crate::core::catalog::offers::OFFER_COLUMNS`]) and one row
    /// per offer.
    pub offers_csv: String,
    pub converted: usize,
    /// (data-row number, header = row 0; reason), in row order.
    pub skipped: Vec<(usize, String)>,
}

struct Tier {
    row: usize,
    provider: String,
    gpu: &'static str,
    gpus: u32,
    spot: bool,
    usd_per_gpu_hour: f64,
    product: String,
    page: String,
    date: Date,
    notes: String,
}

/// Converts the file. `providers` are the `providers.csv` ids rows may
/// name; `source` says where the file came from (repository, path,
/// commit) and is written with each row's page.
pub fn convert(text: &str, source: &str, providers: &[&str], gpus: &[Gpu]) -> Result<Conversion, TableError> {
    let source = require_source(TABLE, source)?;
    let mut skipped = Vec::new();
    let sheet = Sheet::read(TABLE, text, REQUIRED_COLUMNS, &mut skipped)?;
    let mut tiers = Vec::new();
    for (row, rec) in &sheet.rows {
        match tier(*row, &sheet.fields(rec), providers, gpus) {
            Ok(t) => tiers.push(t),
            Err(reason) => skipped.push((*row, reason)),
        }
    }

    let mut out = OfferWriter::new(TABLE)?;
    for (key, group) in group_in_order(tiers, |t| (t.provider.clone(), t.gpu, t.gpus)) {
        let cheapest = |spot: bool| {
            group
                .iter()
                .filter(|t| t.spot == spot)
                .min_by(|a, b| a.usd_per_gpu_hour.total_cmp(&b.usd_per_gpu_hour))
        };
        let Some(best) = cheapest(false) else {
            for t in &group {
                skipped.push((
                    t.row,
                    "a spot tier without an on-demand tier of the same provider, GPU and count".into(),
                ));
            }
            continue;
        };
        let spot = cheapest(true).filter(|s| s.usd_per_gpu_hour < best.usd_per_gpu_hour);
        let id = format!("{}-{}-x{}", key.0, key.1, key.2);
        if !is_id(&id) {
            skipped.push((best.row, format!("offer id `{}` is not a valid id", clip(&id))));
            continue;
        }
        let n = f64::from(key.2);
        let mut notes = vec![NOTE.to_string(), format!("row {}: {}", best.row, best.product)];
        if key.2 > 1 {
            notes.push(format!("{} per GPU x {}", number(best.usd_per_gpu_hour), key.2));
        }
        for other in group.iter().filter(|t| !t.spot && t.row != best.row) {
            notes.push(format!(
                "also {} at {} per GPU-hour (row {})",
                other.product,
                number(other.usd_per_gpu_hour),
                other.row
            ));
        }
        if let Some(s) = spot {
            notes.push(format!("spot: row {} ({})", s.row, s.product));
        }
        if !best.notes.is_empty() {
            notes.push(best.notes.clone());
        }
        out.offer(&[
            ("id", id),
            ("provider", key.0.clone()),
            ("instance", best.product.clone()),
            ("gpu", key.1.to_string()),
            ("gpus", key.2.to_string()),
            ("interconnect", super::ocp::interconnect(key.1, key.2, gpus).to_string()),
            ("currency", "usd".to_string()),
            ("usd_per_hour", number(best.usd_per_gpu_hour * n)),
            ("spot_usd_per_hour", spot.map(|s| number(s.usd_per_gpu_hour * n)).unwrap_or_default()),
            ("region", "unspecified".to_string()),
            ("source", format!("{source} (row {}: {})", best.row, best.page)),
            ("as_of", best.date.to_string()),
            ("notes", notes.join("; ")),
        ])?;
    }
    let (offers_csv, converted) = out.finish(&mut skipped)?;
    Ok(Conversion { offers_csv, converted, skipped })
}

fn tier(row: usize, fields: &Fields<'_>, providers: &[&str], gpus: &[Gpu]) -> Result<Tier, String> {
    let field = |name: &str| fields.get(name);
    let named = field("provider").to_ascii_lowercase();
    let provider = PROVIDERS.iter().find(|(s, _)| *s == named).map_or(named.as_str(), |(_, id)| id);
    if !providers.contains(&provider) {
        return Err(format!("`provider` `{}` is not in providers.csv", clip(field("provider"))));
    }
    let spot = match field("provisioning") {
        "on-demand" | "on_demand" => false,
        "spot" => true,
        other => return Err(format!("`provisioning` `{}` is not on-demand or spot", clip(other))),
    };
    // `H100-PCIe-80GB`: model, optional board, memory.
    let gpu_type = field("gpu_type");
    let parts: Vec<&str> = gpu_type.split('-').collect();
    let (model, rest) = parts.split_first().ok_or_else(|| "`gpu_type` is empty".to_string())?;
    let (mem, board) = match rest.split_last() {
        Some((last, board)) if last.to_ascii_uppercase().ends_with("GB") => {
            (last.get(..last.len() - 2).and_then(|m| m.parse::<f64>().ok()).unwrap_or(0.0), board.join(" "))
        }
        _ => (0.0, rest.join(" ")),
    };
    if model.is_empty() {
        return Err("`gpu_type` is empty".into());
    }
    let product = field("product");
    let gpu = map_gpu(model, &board, product, mem, gpus)?;
    let count =
        field("min_gpus").parse::<u32>().ok().filter(|n| (1..=1024).contains(n)).ok_or_else(|| {
            format!("`min_gpus` `{}` is not a whole number of GPUs", clip(field("min_gpus")))
        })?;
    let price =
        field("usd_per_gpu_hour").parse::<f64>().ok().filter(|p| p.is_finite() && *p > 0.0).ok_or_else(
            || format!("`usd_per_gpu_hour` `{}` is not a positive number", clip(field("usd_per_gpu_hour"))),
        )?;
    let date = Date::parse(field("checked_at"))
        .ok_or_else(|| format!("`checked_at` `{}` is not a date", clip(field("checked_at"))))?;
    let page = field("source");
    if page.is_empty() {
        return Err("`source` is empty".into());
    }
    Ok(Tier {
        row,
        provider: provider.to_string(),
        gpu,
        gpus: count,
        spot,
        usd_per_gpu_hour: price,
        product: product.to_string(),
        page: page.to_string(),
        date,
        notes: field("notes").to_string(),
    })
}
