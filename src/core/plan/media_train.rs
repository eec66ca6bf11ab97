//! Plans for fine-tuning an image generator (LoRA, QLoRA, DreamBooth):
//! memory per GPU at the link's resolution and micro-batch, and the run's
//! hours on each offer's own GPUs: `train_steps` optimizer steps at that
//! GPU's time per step ([`super::super::estimate::media_train_time`]). A
//! link with `jobmin` and no `train_steps` keeps its own run length (no
//! hours here: the bill takes `jobmin`). Never prices anything.

use super::super::answer::{
    Answers, GpuResult, MemoryJson, OfferResult, Range, Speeds, TaskSpeeds, TrainSpeeds,
};
use super::super::catalog::{Gpu, Offer};
use super::super::config::Method;
use super::super::estimate::media_train::MediaTrainJob;
use super::super::estimate::media_train_time::default_train_steps;
use super::super::estimate::ranges::Confidence;
use super::super::estimate::{engine, ranges};
use super::super::messages::Msg;
use super::super::settings::Settings;
// The usable share of GPU memory (allocator slack) is generation's.
use super::media::USABLE;
use super::shared::{memory_json, one_gpu_result, OfferPlan};

/// Bytes of a saved checkpoint: the adapter (fp32) or the full denoiser
/// (16-bit weights, the form the scripts save for inference).
pub fn checkpoint_bytes(t: &MediaTrainJob<'_>) -> f64 {
    match t.method {
        Method::Full => t.trainable_params() * 2.0,
        _ => t.trainable_params() * 4.0,
    }
}

/// The optimizer steps the run is timed for: the link's `train_steps`, else
/// the script's documented default, unless the link gives its own length
/// (`jobmin` without `train_steps`): then `None`.
pub fn timed_steps(cfg: &Settings) -> Option<u32> {
    match (cfg.train_steps, cfg.jobmin) {
        (Some(s), _) => Some(s),
        (None, Some(_)) => None,
        (None, None) => Some(default_train_steps(cfg.method)),
    }
}

/// Hours of the run on `dp` GPUs of `gpu`, when it is timed.
fn run_hours(t: &MediaTrainJob<'_>, cfg: &Settings, gpu: &Gpu, dp: u32) -> Option<f64> {
    timed_steps(cfg).map(|steps| t.run_hours(gpu, steps, t.micro_batches(cfg.gbs, dp), dp))
}

fn layout(dp: u32, hours: Option<f64>) -> Speeds {
    let s = ranges::widen(ranges::TRAIN, Confidence::Low.widen());
    let mut sp = Speeds::of(TaskSpeeds::Train(TrainSpeeds { tokens_per_s: None, dp, tp: 1, pp: 1 }));
    sp.job_hours = hours.map(|h| Range::time(h, s));
    sp.job_gpu_hours = hours.map(|h| h * f64::from(dp));
    sp
}

pub struct ImageTrainPlanner<'r> {
    pub job: &'r MediaTrainJob<'r>,
    cfg: &'r Settings,
}

impl<'r> ImageTrainPlanner<'r> {
    pub fn new(job: &'r MediaTrainJob<'r>, cfg: &'r Settings) -> ImageTrainPlanner<'r> {
        ImageTrainPlanner { job, cfg }
    }

    pub fn results(&mut self, gpus: &[&Gpu]) -> Vec<GpuResult> {
        let t = self.job;
        let mem = t.memory();
        let cfg = self.cfg;
        gpus.iter()
            .map(|gpu| {
                one_gpu_result(
                    gpu,
                    mem.total(),
                    USABLE,
                    t.mb,
                    Confidence::Low,
                    super::super::estimate::Bound::Compute,
                    t.job.precision.id,
                    layout(1, run_hours(t, cfg, gpu, 1)),
                )
            })
            .collect()
    }

    pub fn offer(&mut self, gpu: &Gpu, o: &Offer) -> OfferPlan {
        let t = self.job;
        let cap = gpu.usable_bytes() * USABLE;
        let need = t.memory().total();
        let fits = need <= cap;
        let hours = run_hours(t, self.cfg, gpu, o.gpus);
        let words = if o.gpus > 1 {
            Msg::new("layout.data").num("gpus", f64::from(o.gpus), 0)
        } else {
            Msg::new("layout.single_train")
        };
        OfferPlan {
            gpus: o.gpus,
            dp: o.gpus,
            job_hours: hours,
            startup_s: engine::startup_s(t.job.memory().weights_bytes),
            load_bytes: t.job.memory().weights_bytes,
            store_gb: self
                .cfg
                .store_gb
                .unwrap_or(checkpoint_bytes(t) * f64::from(self.cfg.ckpts.max(1)) / 1e9),
            speed_score: match hours {
                Some(h) if fits && h > 0.0 => 1.0 / h,
                _ => 0.0,
            },
            ..OfferPlan::new(fits, need, cap, t.mb, Confidence::Low, words, layout(o.gpus, hours))
        }
    }

    pub fn focus(&mut self, gpu: Option<&Gpu>, _pick: Option<&OfferResult>) -> (MemoryJson, Answers) {
        let t = self.job;
        let mem = t.memory();
        let total = mem.total();
        let memory = MemoryJson {
            weights_bytes: mem.weights,
            activations_bytes: mem.activations,
            gradients_bytes: mem.gradients,
            optimizer_bytes: mem.optimizer,
            overhead_bytes: mem.overhead,
            ..memory_json(
                total,
                super::shared::reserved(total),
                t.mb,
                1,
                gpu.map_or_else(String::new, |g| g.id.clone()),
                gpu.map_or(0.0, |g| g.memory_bytes()),
            )
        };
        let ckpt = checkpoint_bytes(t);
        let answers = Answers {
            min_gpus: gpu.filter(|g| total <= g.usable_bytes() * USABLE).map(|_| 1),
            best_weight_format: Some(t.job.precision.id.to_string()),
            checkpoint_bytes: Some(ckpt),
            checkpoints_bytes_total: Some(ckpt * f64::from(self.cfg.ckpts.max(1))),
            ..Answers::default()
        };
        (memory, answers)
    }
}
