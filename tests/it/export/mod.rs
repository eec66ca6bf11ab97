//! The launch texts, the CSV export and the on-demand worker that writes them.

mod launch;
mod ondemand;
pub(crate) mod texts;
pub(crate) mod training;
