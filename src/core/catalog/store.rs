//! The catalog's tables together.

use super::super::date::Date;
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
