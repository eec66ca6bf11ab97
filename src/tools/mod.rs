//! Tools only the CLI (`whichgpu calibrate`, `whichgpu skypilot`) and the
//! tests use; the page never links them. They build on [`crate::core`]
//! (and may import from it); the core never imports from here.
//!
//! - [`calibrate`] — predicted vs measured on calibration files; fitting
//!   the engine efficiency factors.
//! - [`skypilot`] — converts SkyPilot catalog CSVs into offer rows.
//! - [`catalog_check`] — every catalog row has its source, date, currency
//!   and unit; lists what is older than six months.

pub mod calibrate;
pub mod catalog_check;
pub mod skypilot;
