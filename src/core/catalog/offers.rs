//! Cloud offers (`static/offers.csv`) and provider policies
//! (`static/providers.csv`): what an instance costs, how it is billed, what
//! storage and egress cost. Prices are a dated snapshot, never "live".

use super::super::date::Date;
use super::super::table::{is_id, Record, Row, Table, TableError};
use crate::core::config::{Commit, Currency};
use std::sync::Arc;

pub const OFFER_COLUMNS: &[&str] = &[
    "id",
    "provider",
    "instance",
    "gpu",
    "gpus",
    "vcpus",
    "ram_gb",
    "interconnect",
    "inter_node_gbps",
    "currency",
    "usd_per_hour",
    "spot_usd_per_hour",
    "commit_1mo_usd_per_hour",
    "commit_1yr_usd_per_hour",
    "commit_3yr_usd_per_hour",
    "commit_source",
    "commit_as_of",
    "region",
    "billing_increment_s",
    "min_charge_s",
    "storage_usd_per_gb_month",
    "egress_usd_per_gb",
    "source",
    "as_of",
    "notes",
];

pub const PROVIDER_COLUMNS: &[&str] = &[
    "id",
    "name",
    "kind",
    "currency",
    "billing_increment_s",
    "min_charge_s",
    "storage_usd_per_gb_month",
    "egress_usd_per_gb",
    "free_egress_gb_month",
    "spot_offered",
    "host_billing",
    "cold_start_s",
    "scale_to_zero",
    "host_usd_per_vcpu_hour",
    "host_usd_per_gib_hour",
    "provision_s",
    "unpublished_fields",
    "unpublished_source",
    "source",
    "notes",
];

/// Columns an imported table may leave out (added after the format was
/// published): a missing `currency` reads as US dollars.
pub const OFFER_OPTIONAL: &[&str] = &["currency"];
pub const PROVIDER_OPTIONAL: &[&str] = &[
    "currency",
    "cold_start_s",
    "scale_to_zero",
    "host_usd_per_vcpu_hour",
    "host_usd_per_gib_hour",
    "provision_s",
];

/// The currency of a row: `usd` when the cell is empty or the column absent.
fn currency(row: &Row<'_>) -> Result<Currency, TableError> {
    match row.text("currency") {
        "" => Ok(Currency::Usd),
        t => Currency::parse(t).ok_or_else(|| {
            row.error("currency", format!("`{}` is not one of usd|cny", super::super::table::clip(t)))
        }),
    }
}

/// The GPU-to-GPU link inside one instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Interconnect {
    Single,
    Pcie,
    Nvlink,
    Nvswitch,
    Xgmi,
    Nvl72,
}

impl Interconnect {
    pub fn parse(s: &str) -> Option<Interconnect> {
        Some(match s {
            "single" => Interconnect::Single,
            "pcie" => Interconnect::Pcie,
            "nvlink" => Interconnect::Nvlink,
            "nvswitch" => Interconnect::Nvswitch,
            "xgmi" => Interconnect::Xgmi,
            "nvl72" => Interconnect::Nvl72,
            _ => return None,
        })
    }

    /// Whether tensor-parallel traffic uses the GPU's scale-up link.
    pub fn is_scale_up(self) -> bool {
        matches!(
            self,
            Interconnect::Nvlink | Interconnect::Nvswitch | Interconnect::Xgmi | Interconnect::Nvl72
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Interconnect::Single => "single",
            Interconnect::Pcie => "pcie",
            Interconnect::Nvlink => "nvlink",
            Interconnect::Nvswitch => "nvswitch",
            Interconnect::Xgmi => "xgmi",
            Interconnect::Nvl72 => "nvl72",
        }
    }
}

/// Whether an offer's hourly price covers the host (vCPU, RAM) or the
/// provider bills CPU and RAM beside the listed GPU price.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HostBilling {
    /// The offer's hourly price covers CPU, RAM and the host.
    Included,
    /// CPU/RAM are billed beside the listed GPU price.
    Separate,
    /// The provider does not publish it.
    Unknown,
}

impl HostBilling {
    pub fn parse(s: &str) -> Option<HostBilling> {
        Some(match s {
            "included" => HostBilling::Included,
            "separate" => HostBilling::Separate,
            "unknown" => HostBilling::Unknown,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            HostBilling::Included => "included",
            HostBilling::Separate => "separate",
            HostBilling::Unknown => "unknown",
        }
    }
}

/// The committed-term columns, in the order of [`Commit`]'s terms.
const COMMIT_COLUMNS: [&str; 3] =
    ["commit_1mo_usd_per_hour", "commit_1yr_usd_per_hour", "commit_3yr_usd_per_hour"];

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Offer {
    pub id: Arc<str>,
    pub provider: Arc<str>,
    pub instance: Arc<str>,
    pub gpu: Arc<str>,
    pub gpus: u32,
    pub vcpus: Option<f64>,
    pub ram_gb: Option<f64>,
    pub interconnect: Interconnect,
    pub inter_node_gbps: Option<f64>,
    /// The currency of every price column of the row (`usd_per_hour`,
    /// spot, commit, storage, egress); the columns keep their historical
    /// `usd_` names, and prices in `cny` are converted at the catalog's rate.
    pub currency: Currency,
    pub usd_per_hour: f64,
    pub spot_usd_per_hour: Option<f64>,
    /// Effective hourly price per instance under a 1-month commitment;
    /// `None` where the provider publishes no such term.
    pub commit_1mo_usd_per_hour: Option<f64>,
    pub commit_1yr_usd_per_hour: Option<f64>,
    pub commit_3yr_usd_per_hour: Option<f64>,
    /// Where the commit prices come from; empty when there are none.
    pub commit_source: String,
    /// The date of the commit prices; `None` when there are none.
    pub commit_as_of: Option<Date>,
    pub region: Arc<str>,
    /// `None` where the provider does not publish it; billing then assumes
    /// per-hour increments, the costliest common case.
    pub billing_increment_s: Option<f64>,
    pub min_charge_s: Option<f64>,
    pub storage_usd_per_gb_month: Option<f64>,
    pub egress_usd_per_gb: Option<f64>,
    pub source: Arc<str>,
    pub as_of: Date,
    pub notes: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Provider {
    pub id: String,
    pub name: String,
    pub kind: String,
    /// The currency the provider bills in (its offers' default).
    pub currency: Currency,
    pub billing_increment_s: Option<f64>,
    pub min_charge_s: Option<f64>,
    pub storage_usd_per_gb_month: Option<f64>,
    pub egress_usd_per_gb: Option<f64>,
    pub free_egress_gb_month: f64,
    pub spot_offered: bool,
    pub host_billing: HostBilling,
    /// Serverless platforms: the documented cold start (a worker started
    /// and the model loaded before the first request); `None` elsewhere.
    pub cold_start_s: Option<f64>,
    /// Serverless platforms: idle workers scale to zero and bill nothing.
    pub scale_to_zero: bool,
    /// Where the host is billed beside the GPU (`host_billing=separate`):
    /// the published rate per vCPU-hour (a physical core is two vCPUs) and
    /// per GiB-hour of memory, in the provider's currency in the CSV.
    pub host_usd_per_vcpu_hour: Option<f64>,
    pub host_usd_per_gib_hour: Option<f64>,
    /// Seconds from asking for an instance to a machine that runs the job,
    /// where the provider's own figure differs from its class's
    /// (`offers::startup`).
    pub provision_s: Option<f64>,
    pub unpublished_fields: Vec<String>,
    pub unpublished_source: String,
    pub source: String,
}

impl Offer {
    /// The offer with every price column multiplied by `usd_per_unit` (its
    /// currency's rate): the catalog keeps prices in US dollars.
    pub fn in_usd(self, usd_per_unit: f64) -> Offer {
        let k = usd_per_unit;
        let m = |v: Option<f64>| v.map(|v| v * k);
        Offer {
            usd_per_hour: self.usd_per_hour * k,
            spot_usd_per_hour: m(self.spot_usd_per_hour),
            commit_1mo_usd_per_hour: m(self.commit_1mo_usd_per_hour),
            commit_1yr_usd_per_hour: m(self.commit_1yr_usd_per_hour),
            commit_3yr_usd_per_hour: m(self.commit_3yr_usd_per_hour),
            storage_usd_per_gb_month: m(self.storage_usd_per_gb_month),
            egress_usd_per_gb: m(self.egress_usd_per_gb),
            ..self
        }
    }

    /// The effective hourly price per instance under a committed term, or
    /// `None` for no commitment or a term the provider does not publish.
    pub fn committed_usd_per_hour(&self, term: Commit) -> Option<f64> {
        match term {
            Commit::None => None,
            Commit::Month => self.commit_1mo_usd_per_hour,
            Commit::Year => self.commit_1yr_usd_per_hour,
            Commit::ThreeYears => self.commit_3yr_usd_per_hour,
        }
    }
}

impl Provider {
    /// The provider with its storage and egress prices in US dollars.
    pub fn in_usd(self, usd_per_unit: f64) -> Provider {
        Provider {
            storage_usd_per_gb_month: self.storage_usd_per_gb_month.map(|v| v * usd_per_unit),
            egress_usd_per_gb: self.egress_usd_per_gb.map(|v| v * usd_per_unit),
            host_usd_per_vcpu_hour: self.host_usd_per_vcpu_hour.map(|v| v * usd_per_unit),
            host_usd_per_gib_hour: self.host_usd_per_gib_hour.map(|v| v * usd_per_unit),
            ..self
        }
    }

    /// The hourly price of a host of `vcpus` and `gib` billed beside the
    /// GPUs, where the provider bills it separately and publishes both rates.
    pub fn host_usd_per_hour(&self, vcpus: f64, gib: f64) -> Option<f64> {
        let (cpu, mem) = self.host_usd_per_vcpu_hour.zip(self.host_usd_per_gib_hour)?;
        (self.host_billing == HostBilling::Separate).then_some(vcpus * cpu + gib * mem)
    }

    /// A serverless platform: per-second workers that scale to zero.
    pub fn is_serverless(&self) -> bool {
        self.kind == "serverless" && self.scale_to_zero
    }
}

fn date(row: &Row<'_>, field: &str) -> Result<Date, TableError> {
    let t = row.text(field);
    Date::parse(t).ok_or_else(|| {
        row.error(field, format!("`{}` is not a YYYY-MM-DD date", super::super::table::clip(t)))
    })
}

fn positive_opt(row: &Row<'_>, field: &str) -> Result<Option<f64>, TableError> {
    match row.opt_f64(field)? {
        Some(v) if v <= 0.0 => Err(row.error(field, format!("must be positive, got {v}"))),
        v => Ok(v),
    }
}

pub fn parse_offers(name: &str, text: &str) -> Result<Vec<Offer>, TableError> {
    offers_from(&Table::parse_with_optional(name, text, OFFER_COLUMNS, OFFER_OPTIONAL)?)
}

fn offers_from(table: &Table) -> Result<Vec<Offer>, TableError> {
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        out.push(parse_offer_row(&row)?);
    }
    Ok(out)
}

fn parse_offer_row(row: &Row<'_>) -> Result<Offer, TableError> {
    let id = row.req_str("id")?;
    if !is_id(&id) {
        return Err(row.error("id", "must be a lowercase id of a-z, 0-9, '.', '-', '_'"));
    }
    let interconnect = Interconnect::parse(row.text("interconnect"))
        .ok_or_else(|| row.error("interconnect", "must be single|pcie|nvlink|nvswitch|xgmi|nvl72"))?;
    let spot = row.opt_f64("spot_usd_per_hour")?;
    if let Some(s) = spot {
        if s <= 0.0 {
            return Err(row.error("spot_usd_per_hour", format!("must be positive, got {s}")));
        }
    }
    let usd_per_hour = row.positive("usd_per_hour")?;
    let mut commits = [None; 3];
    for (slot, field) in commits.iter_mut().zip(COMMIT_COLUMNS) {
        if let Some(c) = row.opt_f64(field)? {
            if c <= 0.0 {
                return Err(row.error(field, format!("must be positive, got {c}")));
            }
            if c > usd_per_hour {
                return Err(row.error(field, format!("{c} is above the on-demand price {usd_per_hour}")));
            }
            *slot = Some(c);
        }
    }
    let [commit_1mo, commit_1yr, commit_3yr] = commits;
    let any_commit = commits.iter().any(Option::is_some);
    let commit_source = row.text("commit_source").to_string();
    let commit_as_of =
        if row.text("commit_as_of").is_empty() { None } else { Some(date(row, "commit_as_of")?) };
    if any_commit {
        if commit_source.is_empty() {
            return Err(row.error("commit_source", "is empty but a commit price is given"));
        }
        if commit_as_of.is_none() {
            return Err(row.error("commit_as_of", "is empty but a commit price is given"));
        }
    }
    Ok(Offer {
        provider: row.req_str("provider")?.into(),
        instance: row.req_str("instance")?.into(),
        gpu: row.req_str("gpu")?.into(),
        gpus: match row.positive_u32("gpus")? {
            // The largest scale-up domain sold as one instance is an NVL72 rack.
            n if n > 72 => return Err(row.error("gpus", format!("{n} GPUs in one instance; at most 72"))),
            n => n,
        },
        vcpus: row.opt_non_negative("vcpus")?,
        ram_gb: row.opt_non_negative("ram_gb")?,
        interconnect,
        inter_node_gbps: row.opt_non_negative("inter_node_gbps")?,
        currency: currency(row)?,
        usd_per_hour,
        spot_usd_per_hour: spot,
        commit_1mo_usd_per_hour: commit_1mo,
        commit_1yr_usd_per_hour: commit_1yr,
        commit_3yr_usd_per_hour: commit_3yr,
        commit_source,
        commit_as_of,
        region: row.req_str("region")?.into(),
        billing_increment_s: positive_opt(row, "billing_increment_s")?,
        min_charge_s: row.opt_non_negative("min_charge_s")?,
        storage_usd_per_gb_month: row.opt_non_negative("storage_usd_per_gb_month")?,
        egress_usd_per_gb: row.opt_non_negative("egress_usd_per_gb")?,
        source: row.req_source()?.into(),
        as_of: date(row, "as_of")?,
        notes: row.text("notes").to_string(),
        id: id.into(),
    })
}

pub fn parse_providers(text: &str) -> Result<Vec<Provider>, TableError> {
    let table = Table::parse_with_optional("providers.csv", text, PROVIDER_COLUMNS, PROVIDER_OPTIONAL)?;
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        let unpublished_fields: Vec<String> = row
            .text("unpublished_fields")
            .split(';')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        for f in &unpublished_fields {
            if !OFFER_COLUMNS.contains(&f.as_str()) {
                return Err(row.error("unpublished_fields", format!("`{f}` is not an offers.csv column")));
            }
        }
        let unpublished_source = row.text("unpublished_source").to_string();
        if !unpublished_fields.is_empty() && unpublished_source.is_empty() {
            return Err(row.error("unpublished_source", "is empty but unpublished_fields names fields"));
        }
        out.push(Provider {
            id: row.req_str("id")?,
            name: row.req_str("name")?,
            kind: row.req_str("kind")?,
            currency: currency(&row)?,
            billing_increment_s: positive_opt(&row, "billing_increment_s")?,
            min_charge_s: row.opt_non_negative("min_charge_s")?,
            storage_usd_per_gb_month: row.opt_non_negative("storage_usd_per_gb_month")?,
            egress_usd_per_gb: row.opt_non_negative("egress_usd_per_gb")?,
            free_egress_gb_month: row.opt_non_negative("free_egress_gb_month")?.unwrap_or(0.0),
            spot_offered: row.opt_bool("spot_offered")?.unwrap_or(false),
            host_billing: HostBilling::parse(row.text("host_billing"))
                .ok_or_else(|| row.error("host_billing", "must be included|separate|unknown"))?,
            cold_start_s: row.opt_non_negative("cold_start_s")?,
            scale_to_zero: row.opt_bool("scale_to_zero")?.unwrap_or(false),
            host_usd_per_vcpu_hour: row.opt_non_negative("host_usd_per_vcpu_hour")?,
            host_usd_per_gib_hour: row.opt_non_negative("host_usd_per_gib_hour")?,
            provision_s: row.opt_non_negative("provision_s")?,
            unpublished_fields,
            unpublished_source,
            source: row.req_source()?,
        });
    }
    Ok(out)
}

/// Reads an offers import in either format: a JSON array of objects with the
/// CSV's column names, or CSV. JSON rows are checked key by key (unknown or
/// missing keys name their row) and then go through the same CSV validation,
/// so both formats give the same messages for the same mistakes.
pub fn parse_offers_any(name: &str, text: &str) -> Result<Vec<Offer>, TableError> {
    let trimmed = text.trim_start();
    if !trimmed.starts_with('[') {
        return parse_offers(name, text);
    }
    // Parsed as a `Value` and taken apart by hand: deserializing straight
    // into `Vec<Map>` would link serde's type-mismatch messages, which quote
    // strings with `{:?}` and so pull the Unicode printable tables (~8 KB
    // gzip) into the page's Wasm.
    let not_array = |why: String| TableError::Csv {
        table: name.into(),
        reason: format!("not a JSON array of objects: {why}"),
    };
    let value: serde_json::Value = serde_json::from_str(trimmed).map_err(|e| not_array(e.to_string()))?;
    let serde_json::Value::Array(items) = value else {
        return Err(not_array("the top level is not an array".into()));
    };
    let mut records = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let serde_json::Value::Object(row) = item else {
            return Err(not_array(format!("item {} is not an object", i + 1)));
        };
        if let Some(k) = row.keys().find(|k| !OFFER_COLUMNS.contains(&k.as_str())) {
            return Err(TableError::Field {
                table: name.into(),
                row: i + 1,
                field: super::super::table::clip(k),
                reason: "unknown field".into(),
            });
        }
        let mut rec = Record::default();
        for col in OFFER_COLUMNS {
            let v = match row.get(*col) {
                None | Some(serde_json::Value::Null) => String::new(),
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(serde_json::Value::Number(n)) => n.to_string(),
                Some(serde_json::Value::Bool(b)) => b.to_string(),
                Some(_) => {
                    return Err(TableError::Field {
                        table: name.into(),
                        row: i + 1,
                        field: (*col).into(),
                        reason: "must be a string or a number".into(),
                    });
                }
            };
            rec.push(&v);
        }
        records.push(rec);
    }
    offers_from(&Table::from_records(name, OFFER_COLUMNS, records, OFFER_COLUMNS, OFFER_OPTIONAL)?)
}
