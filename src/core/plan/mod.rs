//! The second step of the pipeline: plans. For a resolved job, per GPU type
//! (`results`), per offer shape (the layout the offer's instances run, its
//! replicas, batch, speeds and what it produces) and for the focus of the
//! memory breakdown. One interface for every task: [`Planner`], an enum
//! with one `match` per step, so the offers, the bill and the guidance need
//! no knowledge of tasks beyond [`OfferPlan`] and [`Output`]. Never prices.

pub mod load;
pub mod media;
pub mod media_train;
pub mod serve;
mod serve_focus;
mod serve_layout;
pub mod serve_speeds;
mod shared;
pub mod train;
mod train_count;
pub mod train_layouts;
pub mod train_rl;
pub mod train_speed;
pub mod train_zero;

use super::answer::{Answers, GpuResult, MemoryJson, OfferResult};
use super::catalog::{Catalog, Gpu, Offer};
use super::config::Task;
use super::estimate::serve::ServeJob;
use super::estimate::train::TrainJob;
use super::resolve::{Resolved, Subject};

pub use media::MediaPlanner;
pub use media_train::ImageTrainPlanner;
pub use serve::ServePlanner;
pub use shared::{
    memory_json, one_gpu_result, reserved, unsupported, EngineSupport, Fnv, FnvMap, OfferPlan, Output,
    PerArch, Unit, MIN_SPLIT_GBPS,
};
pub use train::TrainPlanner;

/// The planner of one resolved job.
pub enum Planner<'r> {
    Serve(ServePlanner<'r>),
    Train(TrainPlanner<'r>),
    Generate(MediaPlanner<'r>),
    ImageTrain(ImageTrainPlanner<'r>),
}

impl<'r> Planner<'r> {
    pub fn new(r: &'r Resolved<'_>, catalog: &'r Catalog) -> Planner<'r> {
        let cfg = &r.cfg;
        match &r.subject {
            Subject::Llm { model, format } if cfg.task == Task::Serve => {
                let mut job = ServeJob::new(model, cfg, *format);
                // Speculative decoding's drafter: a draft model comes from the catalog (`resolve` checked
                // it).
                job.spec = super::estimate::spec::Drafter::new(
                    cfg,
                    model,
                    *format,
                    cfg.draft.as_deref().and_then(|d| catalog.model(d)),
                );
                Planner::Serve(ServePlanner::new(job, cfg, catalog))
            }
            Subject::Llm { model, .. } => {
                Planner::Train(TrainPlanner::new(TrainJob::new(model, cfg), cfg, catalog))
            }
            Subject::Generate(j) => Planner::Generate(MediaPlanner::new(j, cfg)),
            Subject::ImageTrain(t) => Planner::ImageTrain(ImageTrainPlanner::new(t, cfg)),
        }
    }

    /// What the task produces.
    pub fn unit(&self) -> Unit {
        match self {
            Planner::Serve(_) => Unit::Tokens,
            Planner::Train(_) => Unit::Training,
            Planner::Generate(p) => match p.job.model.kind {
                super::catalog::media::MediaKind::Image => Unit::Images,
                super::catalog::media::MediaKind::Video => Unit::Clips,
                super::catalog::media::MediaKind::Audio => Unit::Audio,
            },
            Planner::ImageTrain(_) => Unit::ImageTraining,
        }
    }

    /// One result per GPU type.
    pub fn results(&mut self, gpus: &[&Gpu]) -> Vec<GpuResult> {
        match self {
            Planner::Serve(p) => p.results(gpus),
            Planner::Train(p) => p.results(gpus),
            Planner::Generate(p) => p.results(gpus),
            Planner::ImageTrain(p) => p.results(gpus),
        }
    }

    /// The plan of one offer.
    pub fn offer(&mut self, gpu: &Gpu, o: &Offer) -> OfferPlan {
        match self {
            Planner::Serve(p) => p.offer(gpu, o),
            Planner::Train(p) => p.offer(gpu, o),
            Planner::Generate(p) => p.offer(gpu, o),
            Planner::ImageTrain(p) => p.offer(gpu, o),
        }
    }

    /// The memory breakdown and the inverse answers on the focus GPU type
    /// (pinned, else the pick's), for the pick's plan where the task has one.
    pub fn focus(&mut self, gpu: Option<&Gpu>, pick: Option<&OfferResult>) -> (MemoryJson, Answers) {
        match self {
            Planner::Serve(p) => gpu.map(|g| p.focus(g, pick)).unwrap_or_default(),
            Planner::Train(p) => gpu.map(|g| p.focus(g, pick)).unwrap_or_default(),
            Planner::Generate(p) => p.focus(gpu, pick),
            Planner::ImageTrain(p) => p.focus(gpu, pick),
        }
    }
}
