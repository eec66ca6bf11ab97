//! The catalog's tables together, and what goes wrong reading them.

use super::super::date::Date;
use super::super::table::TableError;
use super::gpus::Gpu;
use super::media;
use super::models::Model;
use super::offers::{Offer, Provider};
use super::rates::RateRow;
use super::support::SupportRow;

/// Serialized and deserialized only in the compiled form ([`super::compiled`]).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Catalog {
    pub gpus: Vec<Gpu>,
    pub models: Vec<Model>,
    pub offers: Vec<Offer>,
    pub providers: Vec<Provider>,
    /// Image, video and audio generators (`static/media_models.csv`).
    pub media: Vec<media::MediaModel>,
    /// Engine × architecture × format support (`static/support.csv`).
    pub support: Vec<SupportRow>,
    /// Dated exchange rates to US dollars (`static/rates.csv`).
    pub rates: Vec<RateRow>,
    /// The newest price date in the offers: the snapshot's date.
    pub as_of: Date,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Table(#[from] TableError),
    #[error("{table}: duplicate id `{id}`")]
    DuplicateId { table: &'static str, id: String },
    #[error("{table}: row {row}, field `{field}`: {reason}")]
    Reference { table: String, row: usize, field: &'static str, reason: String },
    #[error("{0}: no rows")]
    Empty(&'static str),
    /// The compiled form does not decode (`build.rs` and [`compiled`] disagree).
    #[error("the catalog compiled into this build does not decode")]
    Compiled,
}
