//! Plans for fine-tuning an image generator (LoRA, QLoRA, DreamBooth):
//! memory per GPU at the link's resolution and micro-batch; the training
//! time is not estimated (see [`super::super::estimate::media_train`]), so
//! the run lasts what the user gives (`jobmin`). Never prices anything.

use super::super::answer::{Answers, GpuResult, MemoryJson, OfferResult, Speeds, TaskSpeeds, TrainSpeeds};
use super::super::catalog::{Gpu, Offer};
use super::super::config::{Config, Method};
use super::super::estimate::media_train::MediaTrainJob;
use super::super::estimate::ranges::Confidence;
use super::super::estimate::{engine, ranges};
use super::super::messages::Msg;
// The usable share of GPU memory (allocator slack) is generation's.
use super::media::USABLE;
use super::{one_gpu_result, OfferPlan, Output};

/// Bytes of a saved checkpoint: the adapter (fp32) or the full denoiser
/// (16-bit weights, the form the scripts save for inference).
pub fn checkpoint_bytes(t: &MediaTrainJob<'_>) -> f64 {
    match t.method {
        Method::Full => t.trainable_params() * 2.0,
        _ => t.trainable_params() * 4.0,
    }
}

fn layout(dp: u32) -> Speeds {
    Speeds::of(TaskSpeeds::Train(TrainSpeeds { tokens_per_s: None, dp, tp: 1, pp: 1 }))
}

pub struct ImageTrainPlanner<'r> {
    pub job: &'r MediaTrainJob<'r>,
    cfg: &'r Config,
}

impl<'r> ImageTrainPlanner<'r> {
    pub fn new(job: &'r MediaTrainJob<'r>, cfg: &'r Config) -> ImageTrainPlanner<'r> {
        ImageTrainPlanner { job, cfg }
    }

    pub fn results(&mut self, gpus: &[&Gpu]) -> Vec<GpuResult> {
        let t = self.job;
        let mem = t.memory();
        gpus.iter().map(|gpu| one_gpu_result(gpu, mem.total(), USABLE, t.mb, Confidence::Low, "compute", t.job.precision.id, layout(1))).collect()
    }

    pub fn offer(&mut self, gpu: &Gpu, o: &Offer) -> OfferPlan {
        let t = self.job;
        let cap = gpu.usable_bytes() * USABLE;
        let need = t.memory().total();
        OfferPlan {
            fits: need <= cap,
            meets: true,
            layout: if o.gpus > 1 { Msg::new("layout.data").num("gpus", f64::from(o.gpus), 0) } else { Msg::new("layout.single_train") },
            gpus: o.gpus,
            instances: 1,
            replicas: 1,
            tp: 1,
            pp: 1,
            dp: o.gpus,
            ep: false,
            zero: None,
            batch: t.mb,
            need_bytes: need,
            usable_bytes: cap,
            confidence: Confidence::Low,
            speeds: layout(o.gpus),
            job_hours: None,
            startup_s: engine::startup_s(t.job.memory().weights_bytes),
            store_gb: self.cfg.store_gb.unwrap_or(checkpoint_bytes(t) * f64::from(self.cfg.ckpts.max(1)) / 1e9),
            output: Output::None,
            speed_score: 0.0,
            extra_reasons: Vec::new(),
            unverified: false,
            host_bytes: None,
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
            total_bytes: total,
            total_bytes_low: total * ranges::MEMORY.low,
            total_bytes_high: total * ranges::MEMORY.high,
            reserved_bytes: total * 1.1,
            batch: t.mb,
            gpus: 1,
            gpu: gpu.map_or_else(String::new, |g| g.id.clone()),
            capacity_bytes: gpu.map_or(0.0, |g| g.memory_bytes()),
            ..MemoryJson::default()
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
