//! Converting SkyPilot catalog CSVs (`catalogs/v*/<cloud>/vms.csv` in
//! github.com/skypilot-org/skypilot-catalog) into `static/offers.csv` rows,
//! the documented way to refresh the bundled prices (docs/catalog.md, "Refreshing
//! prices from SkyPilot catalogs"; CLI: `whichgpu skypilot`).
//!
//! SkyPilot writes one row per instance type × region (× availability zone
//! where the cloud has zones), with the columns in a different order per
//! cloud, so columns are found by header name. What it does not carry
//! (billing increments, storage and egress prices, inter-node bandwidth) is
//! left empty: the provider's row in `providers.csv` supplies the policy
//! fields, and `Catalog::with_offers` says which others still need a value.
//!
//! Pure: text in, text out; no file, clock or network. Rows that cannot be
//! mapped are reported with their data-row number (the header is row 0) and
//! a reason naming the field, never guessed.

use std::collections::{HashMap, HashSet};

use crate::core::catalog::{Date, Gpu};
use crate::core::table::{clip, is_id, TableError};

use super::convert::{number, number_field, require_source, slug, OfferWriter, Sheet, Skipped};

/// The `table` named in errors.
mod names;

use names::{gcp_hosts, interconnect, is_gcp_gpu_host, lookup, map_gpu, normalize, unknown};

const TABLE: &str = "SkyPilot catalog";

/// The note every converted row starts with.
pub const NOTE: &str = "converted from SkyPilot catalog";

/// Columns a SkyPilot `vms.csv` must have for a conversion.
pub const REQUIRED_COLUMNS: &[&str] =
    &["InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region"];

/// The result of [`convert`].
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// `offers.csv` text: the header (exactly [`crate::core::catalog::offers::OFFER_COLUMNS`]) and one row
    /// per converted offer.
    pub offers_csv: String,
    /// Number of offer rows in `offers_csv`.
    pub converted: usize,
    /// Rows not converted: (data-row number, header = row 0; reason naming
    /// the field), in row order.
    pub skipped: Vec<(usize, String)>,
}

/// One SkyPilot row's fields, trimmed.
struct Raw {
    row: usize,
    instance: String,
    accel: String,
    count: String,
    vcpus: String,
    mem: String,
    price: String,
    spot: String,
    region: String,
    zone: String,
}

/// A row that converts, before zones are merged.
struct Candidate {
    row: usize,
    instance: String,
    gpu: &'static str,
    gpus: u32,
    vcpus: Option<f64>,
    ram: Option<f64>,
    price: f64,
    spot: Option<f64>,
    region: String,
    notes: Vec<String>,
}

/// Converts a SkyPilot catalog CSV into whichgpu offers for `provider`.
///
/// Errors only when the file as a whole is unusable (not CSV, or a required
/// column missing); bad rows are skipped and listed in
/// [`Conversion::skipped`].
pub fn convert(
    provider: &str,
    text: &str,
    as_of: Date,
    source: &str,
    gpus: &[Gpu],
) -> Result<Conversion, TableError> {
    let source = require_source(TABLE, source)?;
    let provider = slug(provider);
    let (raws, mut skipped) = read(text)?;

    // Host rows of GCP-style files, where a GPU machine type is priced
    // without its GPUs and the GPUs come as accelerator-only rows.
    let mut hosts: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (i, r) in raws.iter().enumerate() {
        if !r.instance.is_empty() && r.accel.is_empty() {
            hosts.entry((r.instance.as_str(), r.region.as_str(), r.zone.as_str())).or_insert(i);
        }
    }
    let mut used_hosts: HashSet<usize> = HashSet::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    for r in &raws {
        if r.instance.is_empty() {
            if r.accel.is_empty() {
                skipped.push((r.row, "`InstanceType` is empty".into()));
                continue;
            }
            match accelerator_only(r, &raws, &hosts, gpus) {
                Ok(found) => {
                    for (host, c) in found {
                        used_hosts.insert(host);
                        candidates.push(c);
                    }
                }
                Err(reason) => skipped.push((r.row, reason)),
            }
        } else if !r.accel.is_empty() {
            match candidate(r, gpus) {
                Ok(c) => candidates.push(c),
                Err(reason) => skipped.push((r.row, reason)),
            }
        }
    }
    for (i, r) in raws.iter().enumerate() {
        if !r.instance.is_empty() && r.accel.is_empty() && !used_hosts.contains(&i) {
            let reason = if is_gcp_gpu_host(&r.instance) {
                format!(
                    "`AcceleratorName` is empty: `{}` is a GCP GPU machine type priced without its GPUs, and \
                        no accelerator row in the file pairs with it",
                    clip(&r.instance)
                )
            } else {
                "`AcceleratorName` is empty (no GPU listed: a CPU-only instance)".to_string()
            };
            skipped.push((r.row, reason));
        }
    }

    // One offer per instance and region: the zone (or repeated row) with the
    // lowest spot price, then the lowest on-demand price, then the first.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut best: HashMap<(String, String), (Candidate, usize)> = HashMap::new();
    for c in candidates {
        let key = (c.instance.clone(), c.region.clone());
        match best.get_mut(&key) {
            Some((kept, n)) => {
                *n += 1;
                if cheaper(&c, kept) {
                    *kept = c;
                }
            }
            None => {
                order.push(key.clone());
                best.insert(key, (c, 1));
            }
        }
    }

    let mut out = OfferWriter::new(TABLE)?;
    let mut ids: HashMap<String, usize> = HashMap::new();
    for key in &order {
        let Some((c, n)) = best.remove(key) else { continue };
        let id = format!("{provider}-{}-{}", slug(&c.instance), slug(&c.region));
        if !is_id(&id) {
            skipped.push((
                c.row,
                format!(
                    "offer id `{}` is not a valid id (a-z, 0-9, '.', '-', '_'; at most 80 characters)",
                    clip(&id)
                ),
            ));
            continue;
        }
        if let Some(first) = ids.get(&id) {
            skipped.push((c.row, format!("offer id `{}` is already taken by row {first}", clip(&id))));
            continue;
        }
        ids.insert(id.clone(), c.row);
        let mut notes = vec![NOTE.to_string()];
        notes.extend(c.notes.iter().cloned());
        if n > 1 {
            notes.push(format!("lowest-spot of {n} rows for this instance and region"));
        }
        let interconnect = interconnect(c.gpu, c.gpus, gpus);
        out.offer(&[
            ("id", id),
            ("provider", provider.clone()),
            ("instance", c.instance.clone()),
            ("gpu", c.gpu.to_string()),
            ("gpus", c.gpus.to_string()),
            ("vcpus", c.vcpus.map(number).unwrap_or_default()),
            ("ram_gb", c.ram.map(number).unwrap_or_default()),
            ("interconnect", interconnect.to_string()),
            // SkyPilot's catalogs price in US dollars.
            ("currency", "usd".to_string()),
            ("usd_per_hour", number(c.price)),
            ("spot_usd_per_hour", c.spot.map(number).unwrap_or_default()),
            // SkyPilot catalogs carry no committed-term prices: the commit
            // columns stay blank (and so need no source or date).
            ("commit_1mo_usd_per_hour", String::new()),
            ("commit_1yr_usd_per_hour", String::new()),
            ("commit_3yr_usd_per_hour", String::new()),
            ("commit_source", String::new()),
            ("commit_as_of", String::new()),
            ("region", c.region.clone()),
            ("source", source.to_string()),
            ("as_of", as_of.to_string()),
            ("notes", notes.join("; ")),
        ])?;
    }
    let (offers_csv, converted) = out.finish(&mut skipped)?;
    Ok(Conversion { offers_csv, converted, skipped })
}

/// Reads the rows, finding columns by header name. Returns the rows and the
/// rows skipped for their shape.
fn read(text: &str) -> Result<(Vec<Raw>, Skipped), TableError> {
    let mut skipped = Vec::new();
    let sheet = Sheet::read(TABLE, text, REQUIRED_COLUMNS, &mut skipped)?;
    let col = |name: &str| sheet.column(name);
    let cols = [
        col("InstanceType"),
        col("AcceleratorName"),
        col("AcceleratorCount"),
        col("vCPUs"),
        col("MemoryGiB"),
        col("Price"),
        col("SpotPrice"),
        col("Region"),
        col("AvailabilityZone"),
    ];
    let mut rows = Vec::new();
    for (row, rec) in &sheet.rows {
        let row = *row;
        let [instance, accel, count, vcpus, mem, price, spot, region, zone] =
            cols.map(|c| c.and_then(|i| rec.get(i)).map(str::trim).unwrap_or("").to_string());
        rows.push(Raw { row, instance, accel, count, vcpus, mem, price, spot, region, zone });
    }
    Ok((rows, skipped))
}

/// A row with both an instance and an accelerator.
fn candidate(r: &Raw, gpus: &[Gpu]) -> Result<Candidate, String> {
    let (gpu, note) = map_gpu(&r.accel, &r.instance, gpus)?;
    let count = gpu_count(&r.count)?;
    let price = positive("Price", &r.price)?.ok_or("`Price` is empty")?;
    let spot = positive("SpotPrice", &r.spot)?;
    let vcpus = non_negative("vCPUs", &r.vcpus)?;
    let ram = non_negative("MemoryGiB", &r.mem)?;
    if r.region.is_empty() {
        return Err("`Region` is empty".into());
    }
    Ok(Candidate {
        row: r.row,
        instance: r.instance.clone(),
        gpu,
        gpus: count,
        vcpus,
        ram,
        price,
        spot,
        region: r.region.clone(),
        notes: note.into_iter().collect(),
    })
}

/// An accelerator-only row (GCP: the GPUs' price, added to a host machine
/// type's): one candidate per host machine type found in the same region and
/// zone, with the host's index.
fn accelerator_only(
    r: &Raw,
    raws: &[Raw],
    hosts: &HashMap<(&str, &str, &str), usize>,
    gpus: &[Gpu],
) -> Result<Vec<(usize, Candidate)>, String> {
    let key = normalize(&r.accel);
    if lookup(&key).is_none() {
        return Err(unknown(&r.accel));
    }
    let count = gpu_count(&r.count)?;
    let names = gcp_hosts(&key, count);
    if names.is_empty() {
        return Err(format!(
            "`InstanceType` is empty: an accelerator-only price row, and no fixed host machine type is known \
                for {count} × `{}`",
            clip(&r.accel)
        ));
    }
    if r.region.is_empty() {
        return Err("`Region` is empty".into());
    }
    let accel_price = positive("Price", &r.price)?.ok_or("`Price` is empty")?;
    let accel_spot = positive("SpotPrice", &r.spot)?;
    let mut found = Vec::new();
    for host in names {
        let Some(&h) = hosts.get(&(*host, r.region.as_str(), r.zone.as_str())) else { continue };
        let Some(hr) = raws.get(h) else { continue };
        let in_host = |e: String| format!("host `{host}` (row {}): {e}", hr.row);
        let (gpu, note) = map_gpu(&r.accel, host, gpus)?;
        let host_price = positive("Price", &hr.price)
            .map_err(in_host)?
            .ok_or_else(|| in_host("`Price` is empty".into()))?;
        let host_spot = positive("SpotPrice", &hr.spot).map_err(in_host)?;
        let vcpus = non_negative("vCPUs", &hr.vcpus).map_err(in_host)?;
        let ram = non_negative("MemoryGiB", &hr.mem).map_err(in_host)?;
        let mut notes: Vec<String> = note.into_iter().collect();
        notes.push(format!(
            "GCP prices the GPUs apart: host `{host}` (row {}) + {count} × `{}` (row {})",
            hr.row,
            clip(&r.accel),
            r.row
        ));
        found.push((
            h,
            Candidate {
                row: r.row,
                instance: (*host).to_string(),
                gpu,
                gpus: count,
                vcpus,
                ram,
                price: host_price + accel_price,
                spot: host_spot.zip(accel_spot).map(|(a, b)| a + b),
                region: r.region.clone(),
                notes,
            },
        ));
    }
    if found.is_empty() {
        let zone = if r.zone.is_empty() { String::new() } else { format!(", zone `{}`", clip(&r.zone)) };
        let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        return Err(format!(
            "`InstanceType` is empty: an accelerator-only price row for {count} × `{}`, and the file has no \
                row for its host machine type ({}) in region `{}`{zone}",
            clip(&r.accel),
            names.join(", "),
            clip(&r.region),
        ));
    }
    Ok(found)
}

/// A whole, positive GPU count (SkyPilot writes `8.0`).
fn gpu_count(text: &str) -> Result<u32, String> {
    if text.is_empty() {
        return Err("`AcceleratorCount` is empty".into());
    }
    let v: f64 = text.parse().map_err(|_| format!("`AcceleratorCount` `{}` is not a number", clip(text)))?;
    if !v.is_finite() || v < 1.0 || v.fract() != 0.0 || v > 1024.0 {
        return Err(format!("`AcceleratorCount` `{}` is not a whole number of GPUs", clip(text)));
    }
    // In 1..=1024 and whole, so the cast is exact.
    Ok(v as u32)
}

/// An optional number that must be > 0 when present.
fn positive(field: &str, text: &str) -> Result<Option<f64>, String> {
    match number_field(field, text)? {
        Some(v) if v <= 0.0 => Err(format!("`{field}` `{}` is not positive", clip(text))),
        v => Ok(v),
    }
}

/// An optional number that must be >= 0 when present.
fn non_negative(field: &str, text: &str) -> Result<Option<f64>, String> {
    match number_field(field, text)? {
        Some(v) if v < 0.0 => Err(format!("`{field}` `{}` is negative", clip(text))),
        v => Ok(v),
    }
}

/// Lower spot first (a missing spot ranks last), then lower on-demand.
fn cheaper(a: &Candidate, b: &Candidate) -> bool {
    match (a.spot, b.spot) {
        (Some(x), Some(y)) if x != y => x < y,
        (Some(_), None) => true,
        (None, Some(_)) => false,
        _ => a.price < b.price,
    }
}
