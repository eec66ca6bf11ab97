//! The bundled catalog: GPUs, models and offers, compiled into the binary
//! from `static/` and checked on load. Serialization types stay here; the
//! rest of the core sees only validated domain values.
//!
//! Native builds (CLI, tests) compile the full tables in and parse them on
//! first use ([`parse_bundled`]). A Wasm build compiles in no table: it
//! decodes the catalog `build.rs` parsed, cross-checked and wrote in a
//! compact form with every `source` and `notes` emptied ([`compiled`]; the
//! page shows neither, and they are most of the bytes).

/// A bundled table's text: `static/<file>` (native builds only).
#[cfg(not(target_arch = "wasm32"))]
macro_rules! bundled_table {
    ($file:literal) => {
        include_str!(concat!("../../../static/", $file))
    };
}

pub mod api_prices;
pub mod checkpoints;
pub mod compiled;
pub mod error;
pub mod gpus;
pub mod media;
pub mod models;
pub mod offers;
pub mod params;
pub mod rates;
pub mod store;
pub mod support;

use std::collections::HashSet;

pub use super::date::Date;
pub use error::CatalogError;
pub use gpus::{Gpu, GpuClass};
pub use models::Model;
pub use offers::{Interconnect, Offer, Provider};
pub use rates::{Rate, RateRow};
pub use store::Catalog;
pub use support::{Kind, Support, SupportRow};

#[cfg(not(target_arch = "wasm32"))]
const GPUS_CSV: &str = bundled_table!("gpus.csv");
#[cfg(not(target_arch = "wasm32"))]
pub(crate) const MODELS_CSV: &str = bundled_table!("models.csv");
#[cfg(not(target_arch = "wasm32"))]
const OFFERS_CSV: &str = bundled_table!("offers.csv");
#[cfg(not(target_arch = "wasm32"))]
const PROVIDERS_CSV: &str = bundled_table!("providers.csv");
#[cfg(not(target_arch = "wasm32"))]
const RATES_CSV: &str = bundled_table!("rates.csv");

/// Offers priced longer ago than this (six months) are marked possibly
/// stale, on the page, in the answer and by `whichgpu catalog check`.
pub const STALE_AFTER_DAYS: i64 = 183;

/// The bundled tables as compiled in, by file name (`whichgpu catalog check`
/// reads them raw, to report every row rather than the first error).
#[cfg(not(target_arch = "wasm32"))]
pub fn bundled_tables() -> [(&'static str, &'static str); 7] {
    [
        ("gpus.csv", GPUS_CSV),
        ("models.csv", MODELS_CSV),
        ("media_models.csv", media::MEDIA_CSV),
        ("support.csv", support::SUPPORT_CSV),
        ("providers.csv", PROVIDERS_CSV),
        ("offers.csv", OFFERS_CSV),
        ("rates.csv", RATES_CSV),
    ]
}

impl Offer {
    /// Billing increment and minimum charge, from the offer or its provider;
    /// unpublished ones are taken as per-hour (the costliest common case).
    pub fn billing(&self, provider: Option<&Provider>) -> (f64, f64, bool) {
        let inc = self.billing_increment_s.or(provider.and_then(|p| p.billing_increment_s));
        let min = self.min_charge_s.or(provider.and_then(|p| p.min_charge_s));
        (inc.unwrap_or(3600.0), min.unwrap_or(0.0), inc.is_none())
    }
}

/// The full tables compiled into a native build, parsed and cross-checked
/// (what `Catalog::bundled` returns natively; `build.rs` runs the same
/// code on the same files to write the Wasm's compiled form).
#[cfg(not(target_arch = "wasm32"))]
pub fn parse_bundled() -> Result<Catalog, CatalogError> {
    Catalog::from_parts(
        gpus::parse_gpus(GPUS_CSV)?,
        models::parse_models(MODELS_CSV)?,
        offers::parse_offers("offers.csv", OFFERS_CSV)?,
        offers::parse_providers(PROVIDERS_CSV)?,
        media::parse_media(media::MEDIA_CSV)?,
        support::parse_support(support::SUPPORT_CSV)?,
        rates::parse_rates(RATES_CSV)?,
    )
}

impl Catalog {
    /// A catalog id that differs from `id` only in case and punctuation
    /// (`wan2.1-14b` for `wan-2.1-14b`, `Llama-3.1-8B`, `qwen2_5_7b`); else the
    /// most specific ids whose words are all in `id` and whose size agrees
    /// (`Qwen/Qwen2.5-7B-Instruct` → `qwen2.5-7b`: a hub name with its
    /// organisation and a suffix), at most three, joined as the notice lists.
    pub fn near_id(&self, id: &str) -> Option<String> {
        let bare = |s: &str| {
            s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect::<String>()
        };
        let want = bare(id);
        if want.is_empty() {
            return None;
        }
        let ids =
            || self.models.iter().map(|m| m.id.as_str()).chain(self.media.iter().map(|m| m.id.as_str()));
        if let Some(same) = ids().find(|c| bare(c) == want) {
            return Some(same.to_string());
        }
        let words = |s: &str| {
            s.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        };
        // A size word: digits (or `8x7`) then `b`, as in `70b`, `8x7b`, `5b` of `1.5b`.
        let size = |w: &str| {
            w.len() > 1
                && w.ends_with('b')
                && w.bytes().rev().skip(1).all(|b| b.is_ascii_digit() || b == b'x')
        };
        let asked = words(id);
        let asked_size: Vec<&String> = asked.iter().filter(|w| size(w)).collect();
        let mut best: Vec<(usize, &str)> = ids()
            .filter_map(|c| {
                let have = words(c);
                // Every word of the id, each as often as it occurs (`llama-3.3-70b` is not in
                // `llama-3.1-70b-instruct`).
                let mut left = asked.clone();
                let inside = have
                    .iter()
                    .all(|w| left.iter().position(|a| a == w).map(|i| left.swap_remove(i)).is_some());
                let sizes: Vec<&String> = have.iter().filter(|w| size(w)).collect();
                (inside && sizes == asked_size).then_some((have.len(), c))
            })
            .collect();
        let most = best.iter().map(|b| b.0).max()?;
        best.retain(|b| b.0 == most);
        Some(best.iter().take(3).map(|b| b.1).collect::<Vec<_>>().join("`, `"))
    }

    /// The catalog with every `source` and `notes` text emptied (with the
    /// offers' `commit_source` and the providers' `unpublished_source`):
    /// what the compiled form holds (the page fetches an offer's source on
    /// demand; no answer reads them).
    pub fn without_sources(self) -> Catalog {
        let blank = String::new;
        Catalog {
            gpus: self.gpus.into_iter().map(|g| gpus::Gpu { source: blank(), notes: blank(), ..g }).collect(),
            models: self.models.into_iter().map(|m| models::Model { source: blank(), ..m }).collect(),
            offers: self
                .offers
                .into_iter()
                .map(|o| offers::Offer { source: "".into(), notes: blank(), commit_source: blank(), ..o })
                .collect(),
            providers: self
                .providers
                .into_iter()
                .map(|p| offers::Provider { source: blank(), unpublished_source: blank(), ..p })
                .collect(),
            media: self
                .media
                .into_iter()
                .map(|m| media::MediaModel { source: blank(), notes: blank(), ..m })
                .collect(),
            support: self
                .support
                .into_iter()
                .map(|r| SupportRow { source: blank(), notes: blank(), ..r })
                .collect(),
            rates: self.rates.into_iter().map(|r| RateRow { source: blank(), ..r }).collect(),
            as_of: self.as_of,
        }
    }

    /// Joins and cross-checks the tables: unique ids, every offer's GPU and
    /// provider known, blanks only where the provider does not publish them,
    /// a rate for every currency a price is in. Prices come out in US
    /// dollars (each row keeps its own `currency` for display and overrides).
    pub fn from_parts(
        gpus: Vec<Gpu>,
        models: Vec<Model>,
        offers: Vec<Offer>,
        providers: Vec<Provider>,
        media: Vec<media::MediaModel>,
        support: Vec<SupportRow>,
        rates: Vec<RateRow>,
    ) -> Result<Catalog, CatalogError> {
        unique("gpus.csv", gpus.iter().map(|g| g.id.as_str()))?;
        unique("models.csv", models.iter().map(|m| m.id.as_str()))?;
        unique("providers.csv", providers.iter().map(|p| p.id.as_str()))?;
        unique("media_models.csv", media.iter().map(|m| m.id.as_str()))?;
        let providers = providers
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                let k = rates::usd_per_unit(&rates, p.currency)
                    .ok_or_else(|| no_rate("providers.csv", i, p.currency))?;
                Ok(p.in_usd(k))
            })
            .collect::<Result<Vec<_>, CatalogError>>()?;
        let offers = to_usd("offers.csv", offers, &rates)?;
        check_offers("offers.csv", &offers, &gpus, &providers)?;
        support::check_support(&support, &gpus)?;
        let as_of = offers.iter().map(|o| o.as_of).max().ok_or(CatalogError::Empty("offers.csv"))?;
        Ok(Catalog { gpus, models, offers, providers, media, support, rates, as_of })
    }

    /// US dollars per unit of `currency` at the catalog's rate (1 for the dollar).
    pub fn usd_per_unit(&self, currency: super::config::Currency) -> Option<f64> {
        rates::usd_per_unit(&self.rates, currency)
    }

    /// The catalog's rate for `currency` (`None` for the dollar and for a
    /// currency without a rate).
    pub fn rate(&self, currency: super::config::Currency) -> Option<Rate> {
        self.rates.iter().find(|r| r.rate.currency == currency).map(|r| r.rate)
    }

    /// The GPU types a configuration looks at: the one it pins, else all.
    pub fn gpus_for(&self, pinned: Option<&str>) -> Vec<&Gpu> {
        match pinned {
            Some(g) => self.gpu(g).into_iter().collect(),
            None => self.gpus.iter().collect(),
        }
    }

    pub fn gpu(&self, id: &str) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.id == id)
    }

    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|m| m.id == id)
    }

    /// A generator (image, video, audio) by id.
    pub fn media_model(&self, id: &str) -> Option<&media::MediaModel> {
        media::MediaModel::find(&self.media, id)
    }

    /// How `engine` runs `format` (a precision id; `gguf-*` folds into
    /// `gguf`) on GPUs of `arch`. A cell with no row is `Unsupported`; the
    /// bundled table has a row for every cell (`tests/support.rs`).
    pub fn support(&self, engine: &str, arch: &str, kind: Kind, format: &str) -> Support {
        super::config::Engine::parse(engine)
            .and_then(|e| support::lookup(&self.support, e, arch, kind, format))
            .map_or(Support::Unsupported, |r| r.support)
    }

    pub fn provider(&self, id: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.id == id)
    }

    pub fn offer(&self, id: &str) -> Option<&Offer> {
        self.offers.iter().find(|o| &*o.id == id)
    }

    /// Replaces the offers with an imported set, validated as a whole first:
    /// on any error the catalog is unchanged.
    pub fn with_offers(&self, offers: Vec<Offer>) -> Result<Catalog, CatalogError> {
        let offers = to_usd("import", offers, &self.rates)?;
        check_offers("import", &offers, &self.gpus, &self.providers)?;
        let as_of = offers.iter().map(|o| o.as_of).max().ok_or(CatalogError::Empty("import"))?;
        Ok(Catalog { offers, as_of, ..self.clone() })
    }
}

fn no_rate(table: &str, i: usize, c: super::config::Currency) -> CatalogError {
    CatalogError::Reference {
        table: table.to_string(),
        row: i + 1,
        field: "currency",
        reason: format!("no exchange rate for `{}` in rates.csv", c.as_str()),
    }
}

/// Offers with every price in US dollars; an offer in a currency without a
/// rate is an error.
fn to_usd(table: &str, offers: Vec<Offer>, rates: &[RateRow]) -> Result<Vec<Offer>, CatalogError> {
    offers
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            let k = rates::usd_per_unit(rates, o.currency).ok_or_else(|| no_rate(table, i, o.currency))?;
            Ok(o.in_usd(k))
        })
        .collect()
}

fn unique<'a>(table: &'static str, ids: impl Iterator<Item = &'a str>) -> Result<(), CatalogError> {
    let mut seen = HashSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(CatalogError::DuplicateId { table, id: id.to_string() });
        }
    }
    Ok(())
}

fn check_offers(
    table: &str,
    offers: &[Offer],
    gpus: &[Gpu],
    providers: &[Provider],
) -> Result<(), CatalogError> {
    let mut seen = HashSet::new();
    for (i, o) in offers.iter().enumerate() {
        let err = |field: &'static str, reason: String| CatalogError::Reference {
            table: table.to_string(),
            row: i + 1,
            field,
            reason,
        };
        if !seen.insert(&*o.id) {
            return Err(err("id", format!("duplicate id `{}`", o.id)));
        }
        if !gpus.iter().any(|g| *g.id == *o.gpu) {
            return Err(err("gpu", format!("unknown GPU id `{}`", super::table::clip(&o.gpu))));
        }
        let Some(p) = providers.iter().find(|p| *p.id == *o.provider) else {
            return Err(err("provider", format!("unknown provider `{}`", super::table::clip(&o.provider))));
        };
        for (field, blank) in [
            ("vcpus", o.vcpus.is_none()),
            ("ram_gb", o.ram_gb.is_none()),
            (
                "storage_usd_per_gb_month",
                o.storage_usd_per_gb_month.is_none() && p.storage_usd_per_gb_month.is_none(),
            ),
            ("egress_usd_per_gb", o.egress_usd_per_gb.is_none() && p.egress_usd_per_gb.is_none()),
            ("billing_increment_s", o.billing_increment_s.is_none() && p.billing_increment_s.is_none()),
            ("inter_node_gbps", o.inter_node_gbps.is_none() && o.gpus >= 8),
        ] {
            if blank && !p.unpublished_fields.iter().any(|f| f == field) {
                return Err(err(
                    field,
                    format!("is empty, and provider `{}` does not list it as unpublished", p.id),
                ));
            }
        }
        if o.interconnect == Interconnect::Single && o.gpus > 1 {
            return Err(err("interconnect", format!("`single` with {} GPUs", o.gpus)));
        }
    }
    Ok(())
}
