//! Converting OpenComputePrices CSVs (github.com/thatkavish/OpenComputePrices,
//! `data/<source>.csv`: one file per collector, one schema for all) into
//! `static/offers.csv` rows for one provider (docs/catalog.md, "Refreshing prices";
//! CLI: `whichgpu refresh ocp`).
//!
//! The schema (`schema.py` of that repository) has one row per instance
//! shape × region × pricing type: `provider`, `instance_type`, `gpu_name`,
//! `gpu_variant`, `gpu_memory_gb` (of the whole instance), `gpu_count`,
//! `vcpus`, `ram_gb`, `region`, `country`, `pricing_type` (`on_demand`,
//! `spot`, …), `price_per_hour` (whole instance), `currency` and
//! `snapshot_date`. Aggregator files (`getdeploying.csv`) hold many
//! providers; only the rows of the asked provider convert. GetDeploying's
//! index rows (`instance_type` `cheapest_<model>`: this provider was the
//! cheapest seller of that model) shorten `gpu_name` ("RTX 3090 Ti" comes
//! as "RTX 3090"), so their model is read from the instance name.
//!
//! Marketplace files list one row per host or location. The converter keeps
//! one offer per GPU model and count: the cheapest on-demand row, with the
//! lowest spot row of the same shape as its spot price, and says how many
//! rows it chose from. What the schema does not carry (billing, storage,
//! egress, network) stays empty for the provider's row to supply.
//!
//! Pure: text in, text out; no file, clock or network. Rows that cannot be
//! mapped are listed with their data-row number (the header is row 0) and a
//! reason naming the field, never guessed.

pub(crate) mod names;

use crate::core::catalog::{Date, Gpu};
use crate::core::table::{clip, is_id, TableError};

use super::convert::{
    group_in_order, number, number_field, require_source, slug, Fields, OfferWriter, Sheet,
};

const TABLE: &str = "OpenComputePrices CSV";

/// The note every converted row starts with.
pub const NOTE: &str = "converted from an OpenComputePrices CSV";

/// Columns a file must have for a conversion.
pub const REQUIRED_COLUMNS: &[&str] =
    &["provider", "gpu_name", "gpu_count", "pricing_type", "price_per_hour", "currency"];

/// The result of [`convert`].
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// `offers.csv` text: the header (exactly [`crate::core::catalog::offers::OFFER_COLUMNS`]) and one row
    /// per offer.
    pub offers_csv: String,
    /// Number of offer rows in `offers_csv`.
    pub converted: usize,
    /// Rows not converted: (data-row number, header = row 0; reason), in row order.
    pub skipped: Vec<(usize, String)>,
    /// GPU names the name table does not know, each once, in file order.
    pub unknown_gpus: Vec<String>,
}

/// One priced row that maps to a catalog GPU.
struct Priced {
    row: usize,
    gpu: &'static str,
    gpus: u32,
    instance: String,
    vcpus: Option<f64>,
    ram: Option<f64>,
    region: String,
    spot: bool,
    price: f64,
    currency: &'static str,
    date: Option<Date>,
}

/// Converts an OpenComputePrices CSV into offers of `provider` (a
/// `providers.csv` id). Rows of other providers are skipped; their
/// `provider` is compared without case, '-', '_' and spaces. `as_of`
/// overrides each row's `snapshot_date` (required when a row has none).
pub fn convert(
    provider: &str,
    text: &str,
    as_of: Option<Date>,
    source: &str,
    gpus: &[Gpu],
) -> Result<Conversion, TableError> {
    let source = require_source(TABLE, source)?;
    let want = squash(provider);
    let mut skipped = Vec::new();
    let sheet = Sheet::read(TABLE, text, REQUIRED_COLUMNS, &mut skipped)?;
    let mut unknown_gpus: Vec<String> = Vec::new();
    let mut priced = Vec::new();
    for (row, rec) in &sheet.rows {
        let row = *row;
        let fields = sheet.fields(rec);
        let field = |name: &str| fields.get(name);
        if squash(field("provider")) != want {
            skipped
                .push((row, format!("`provider` `{}` is not `{}`", clip(field("provider")), clip(provider))));
            continue;
        }
        match priced_row(row, &fields, gpus) {
            Ok(p) => priced.push(p),
            Err((reason, unknown)) => {
                if let Some(name) = unknown.filter(|n| !unknown_gpus.contains(n)) {
                    unknown_gpus.push(name);
                }
                skipped.push((row, reason));
            }
        }
    }

    // One offer per GPU and count: the cheapest on-demand row; the lowest
    // spot row of that shape becomes its spot price.
    let provider_id = slug(provider);
    let mut out = OfferWriter::new(TABLE)?;
    for (key, rows) in group_in_order(priced, |p| (p.gpu, p.gpus)) {
        let cheapest =
            |spot: bool| rows.iter().filter(|p| p.spot == spot).min_by(|a, b| a.price.total_cmp(&b.price));
        let Some(best) = cheapest(false) else {
            for p in &rows {
                skipped
                    .push((p.row, "a spot price without an on-demand row of the same GPU and count".into()));
            }
            continue;
        };
        let spot = cheapest(true).filter(|s| s.currency == best.currency && s.price < best.price);
        let Some(date) = as_of.or(best.date) else {
            skipped.push((best.row, "`snapshot_date` is empty and no --as-of was given".into()));
            continue;
        };
        let id = format!("{provider_id}-{}-x{}", key.0, key.1);
        if !is_id(&id) {
            skipped.push((best.row, format!("offer id `{}` is not a valid id", clip(&id))));
            continue;
        }
        let on_demand = rows.iter().filter(|p| !p.spot).count();
        let mut notes = vec![NOTE.to_string(), format!("row {} (`{}`)", best.row, clip(&best.instance))];
        if best.instance.starts_with("cheapest_") {
            notes.push(
                "an aggregator index row: this provider was the cheapest seller of the model; the \
                model is read from the instance name"
                    .into(),
            );
        }
        if on_demand > 1 {
            notes.push(format!(
                "cheapest of {on_demand} on-demand rows for this GPU and count (hosts, regions or shapes)"
            ));
        }
        if let Some(s) = spot {
            notes.push(format!("spot: row {}", s.row));
        }
        out.offer(&[
            ("id", id),
            ("provider", provider_id.clone()),
            ("instance", best.instance.clone()),
            ("gpu", key.0.to_string()),
            ("gpus", key.1.to_string()),
            ("vcpus", best.vcpus.map(number).unwrap_or_default()),
            ("ram_gb", best.ram.map(number).unwrap_or_default()),
            ("interconnect", interconnect(key.0, key.1, gpus).to_string()),
            ("currency", best.currency.to_string()),
            ("usd_per_hour", number(best.price)),
            ("spot_usd_per_hour", spot.map(|s| number(s.price)).unwrap_or_default()),
            ("region", if best.region.is_empty() { "unspecified".to_string() } else { best.region.clone() }),
            ("source", source.to_string()),
            ("as_of", date.to_string()),
            ("notes", notes.join("; ")),
        ])?;
    }
    let (offers_csv, converted) = out.finish(&mut skipped)?;
    Ok(Conversion { offers_csv, converted, skipped, unknown_gpus })
}

/// A row's price and shape, or why not (with the GPU name when the name
/// table does not know it).
fn priced_row(row: usize, fields: &Fields<'_>, gpus: &[Gpu]) -> Result<Priced, (String, Option<String>)> {
    let field = |name: &str| fields.get(name);
    let plain = |s: String| (s, None);
    let spot = match field("pricing_type") {
        "on_demand" | "ondemand" | "on-demand" => false,
        "spot" | "interruptible" | "preemptible" => true,
        other => {
            return Err(plain(format!(
                "`pricing_type` `{}` is not on_demand or spot (committed terms do not convert)",
                clip(other)
            )))
        }
    };
    let currency = match field("currency").to_ascii_lowercase().as_str() {
        "usd" => "usd",
        "cny" => "cny",
        other => return Err(plain(format!("`currency` `{}` is not USD or CNY", clip(other)))),
    };
    if !matches!(field("price_unit"), "" | "hour") {
        return Err(plain(format!("`price_unit` `{}` is not hour", clip(field("price_unit")))));
    }
    let count = number_field("gpu_count", field("gpu_count"))
        .map_err(plain)?
        .ok_or_else(|| plain("`gpu_count` is empty".into()))?;
    if !(1.0..=1024.0).contains(&count) || count.fract() != 0.0 {
        return Err(plain(format!(
            "`gpu_count` `{}` is not a whole number of GPUs",
            clip(field("gpu_count"))
        )));
    }
    // In 1..=1024 and whole, so the cast is exact.
    let count = count as u32;
    let mem_total =
        number_field("gpu_memory_gb", field("gpu_memory_gb")).map_err(plain)?.unwrap_or(0.0).max(0.0);
    let index_model = field("instance_type").strip_prefix("cheapest_");
    let name = index_model.unwrap_or(field("gpu_name"));
    if name.is_empty() {
        return Err(plain("`gpu_name` is empty".into()));
    }
    let gpu = names::map_gpu(
        name,
        field("gpu_variant"),
        field("instance_type"),
        mem_total / f64::from(count),
        gpus,
    )
    .map_err(|reason| {
        if reason.contains("name table") {
            (reason, Some(name.to_string()))
        } else {
            (reason, None)
        }
    })?;
    let price = number_field("price_per_hour", field("price_per_hour"))
        .map_err(plain)?
        .ok_or_else(|| plain("`price_per_hour` is empty".into()))?;
    if price <= 0.0 {
        return Err(plain(format!("`price_per_hour` `{}` is not positive", clip(field("price_per_hour")))));
    }
    let positive = |name: &str| number_field(name, field(name)).map(|v| v.filter(|x| *x > 0.0));
    let region = [field("region"), field("country")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Priced {
        row,
        gpu,
        gpus: count,
        instance: field("instance_type").to_string(),
        vcpus: positive("vcpus").map_err(plain)?,
        ram: positive("ram_gb").map_err(plain)?,
        region,
        spot,
        price,
        currency,
        date: Date::parse(field("snapshot_date")),
    })
}

/// The interconnect a shape implies: one GPU `single`; SXM/OAM boards their
/// switch or fabric; PCIe cards `pcie` (a bridge is not assumed).
pub(crate) fn interconnect(gpu: &str, count: u32, gpus: &[Gpu]) -> &'static str {
    if count == 1 {
        return "single";
    }
    match gpus.iter().find(|g| g.id == gpu).map(|g| g.form_factor.as_str()) {
        Some("sxm") => "nvswitch",
        Some("oam") => "xgmi",
        Some("nvl") => "nvlink",
        _ => "pcie",
    }
}

/// Lowercase without '-', '_' and spaces: "thunder_compute" = "thundercompute".
fn squash(s: &str) -> String {
    s.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).flat_map(char::to_lowercase).collect()
}
