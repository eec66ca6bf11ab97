//! What goes wrong reading the catalog's tables.

use super::super::table::TableError;

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
