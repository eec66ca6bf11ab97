//! The fourth step of the pipeline: FAQ-style guidance, per task, read
//! from the finished answer and the same job the plans used — the pick's
//! own plan, never one recomputed on another GPU or layout. Text comes from
//! [`super::messages`] by key, so the page can show either language.

mod media;
mod media_train;
mod serve;
mod train;

use super::answer::{Answer, GuidanceItem};
use super::catalog::Catalog;
use super::config::Config;
use super::messages::Msg;
use super::plan::Planner;
use super::units::GIB;

/// The guidance for an answer, by the task's planner.
pub fn for_answer(cfg: &Config, planner: &Planner<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    match planner {
        Planner::Serve(p) => serve::guidance(cfg, &p.job, catalog, a),
        Planner::Train(p) => train::guidance(cfg, &p.job, catalog, a),
        Planner::Generate(p) => media::guidance(cfg, p.job, catalog, a),
        Planner::ImageTrain(p) => media_train::guidance(cfg, p.job, a),
    }
}

/// "80 GB datacenter GPU or a 24–48 GB card?", answered from what the job
/// needs on one GPU (24 GB and 48 GB cards expose ~22 and ~44 GiB usable).
pub fn gpu_size(one_gpu_bytes: f64) -> GuidanceItem {
    let key = if one_gpu_bytes <= 22.0 * GIB {
        "g.size.small"
    } else if one_gpu_bytes <= 44.0 * GIB {
        "g.size.medium"
    } else {
        "g.size.large"
    };
    GuidanceItem::new("gpu-size", Some("g.size.title"), Msg::new(key).arg("need", gib1(one_gpu_bytes)))
}

fn gib1(bytes: f64) -> String {
    format!("{:.1}", bytes / GIB)
}

