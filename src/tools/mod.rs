//! Tools only the CLI (`whichgpu calibrate`, `whichgpu skypilot`,
//! `whichgpu refresh`) and the
//! tests use; the page never links them. They build on [`crate::core`]
//! (and may import from it); the core never imports from here.
//!
//! - [`accuracy`] — the page's accuracy summary (`static/accuracy.csv`)
//!   from the scoring of the calibration and held-out files.
//! - [`calibrate`] — predicted vs measured on calibration files; fitting
//!   the engine efficiency factors.
//! - [`train_fit`] — predicted vs measured on the training measurements;
//!   fitting the linear layers' utilisation per GPU class.
//! - [`convert`] — the price converters' shared core: the record loop and
//!   the offers.csv row writer.
//! - [`skypilot`] — converts SkyPilot catalog CSVs into offer rows.
//! - [`ocp`] — converts OpenComputePrices CSVs into offer rows.
//! - [`silybench`] — converts silybench's dated GPU price list into offer rows.
//! - [`engine_doc`] — `docs/engines.md` from the engine table (`whichgpu docs engines`).
//! - [`catalog_check`] — every catalog row has its source, date, currency
//!   and unit; lists what is older than six months.

pub mod accuracy;
pub mod calibrate;
pub mod catalog_check;
pub mod convert;
pub mod engine_doc;
pub mod link_doc;
pub mod media_fit;
pub mod ocp;
pub mod silybench;
pub mod skypilot;
pub mod train_fit;
