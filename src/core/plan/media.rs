//! Plans for generation (image, video, audio): each GPU of an instance runs
//! its own pipeline (a replica); memory and speed of one pipeline on one
//! GPU. Never prices anything.

use super::super::answer::{Answers, GpuResult, MemoryJson, OfferResult, Range, Speeds, TaskSpeeds};
use super::super::catalog::media::MediaKind;
use super::super::catalog::{Gpu, Offer};
use super::super::config::Usage;
use super::super::estimate::media::{Confidence, MediaJob};
use super::super::estimate::{engine, ranges, Bound};
use super::super::messages::Msg;
use super::super::settings::Settings;
use super::shared::{memory_json, one_gpu_result, OfferPlan, Output};

/// Usable share of GPU memory for a diffusion pipeline (allocator slack).
pub const USABLE: f64 = super::super::thresholds::USABLE_SHARE;

pub fn widen(c: Confidence) -> (Confidence, f64) {
    (c, c.widen())
}

/// Speeds of one GPU running the job (per GPU; offers multiply by GPUs),
/// and items per hour.
fn speeds(j: &MediaJob<'_>, gpu: &Gpu, w: f64) -> (Speeds, f64) {
    let s = j.speed(gpu);
    let sp = ranges::widen(ranges::PREFILL, w);
    let task = match j.model.kind {
        MediaKind::Image => TaskSpeeds::Image {
            seconds_per_image: Range::time(s.seconds_per_item, sp),
            images_per_hour: s.items_per_hour,
        },
        MediaKind::Video => TaskSpeeds::Clip { seconds_per_clip: Range::time(s.seconds_per_item, sp) },
        MediaKind::Audio => {
            let rtf = s.realtime_factor.unwrap_or(j.seconds / s.seconds_per_item.max(1e-9));
            TaskSpeeds::Audio { realtime_factor: Range::rate(rtf, sp) }
        }
    };
    (Speeds::of(task), s.items_per_hour)
}

pub struct MediaPlanner<'r> {
    pub job: &'r MediaJob<'r>,
    cfg: &'r Settings,
}

impl<'r> MediaPlanner<'r> {
    pub fn new(job: &'r MediaJob<'r>, cfg: &'r Settings) -> MediaPlanner<'r> {
        MediaPlanner { job, cfg }
    }

    pub fn results(&mut self, gpus: &[&Gpu]) -> Vec<GpuResult> {
        let j = self.job;
        let (conf, w) = widen(j.confidence());
        let mem = j.memory();
        gpus.iter()
            .map(|gpu| {
                let bound = if j.model.kind == MediaKind::Audio { Bound::Memory } else { Bound::Compute };
                one_gpu_result(
                    gpu,
                    mem.total,
                    USABLE,
                    f64::from(j.batch),
                    conf,
                    bound,
                    j.precision.id,
                    speeds(j, gpu, w).0,
                )
            })
            .collect()
    }

    pub fn offer(&mut self, gpu: &Gpu, o: &Offer) -> OfferPlan {
        let j = self.job;
        let mem = j.memory();
        let cap = gpu.usable_bytes() * USABLE;
        let fits = mem.total <= cap;
        let (conf, w) = widen(j.confidence());
        let (sp, items_per_hour_gpu) = speeds(j, gpu, w);
        // An endpoint (`use=always`/`hours`) serves the load the link states,
        // one stream of requests at `batch`: one pipeline is busy and the
        // instance's other GPUs produce nothing the bill can be spread over
        // (as idle LLM replicas serve no tokens). Batch work keeps every GPU
        // busy with its own pipeline.
        let endpoint = matches!(self.cfg.usage(), Usage::Always | Usage::Hours);
        let busy = if endpoint { 1 } else { o.gpus };
        let items_per_hour = items_per_hour_gpu * f64::from(busy);
        let output = match j.model.kind {
            MediaKind::Image => Output::Images(items_per_hour),
            MediaKind::Video => Output::Clips(items_per_hour),
            MediaKind::Audio => {
                Output::Audio(sp.audio_realtime_factor().map_or(0.0, |r| r * f64::from(busy)))
            }
        };
        let layout = if busy < o.gpus {
            Msg::new("layout.pipelines_idle").num("gpus", f64::from(o.gpus), 0)
        } else {
            Msg::new("layout.pipelines").num("replicas", f64::from(o.gpus), 0)
        };
        OfferPlan {
            replicas: busy,
            // An endpoint: one request's speed (more pipelines add
            // throughput, not speed). Batch work: the offer's items per
            // hour, which sets how soon the batch is done (the objective
            // table's speed for `jobs`/`once`), so a "fastest" batch
            // alternative finishes the batch sooner.
            speed_score: match (fits, endpoint) {
                (false, _) => 0.0,
                (true, true) => items_per_hour_gpu,
                (true, false) => items_per_hour,
            },
            startup_s: engine::startup_s(mem.weights_bytes),
            load_bytes: mem.weights_bytes,
            store_gb: self.cfg.store_gb.unwrap_or(mem.weights_bytes / 1e9),
            output,
            ..OfferPlan::new(fits, mem.total, cap, f64::from(j.batch), conf, layout, sp)
        }
    }

    pub fn focus(&mut self, gpu: Option<&Gpu>, _pick: Option<&OfferResult>) -> (MemoryJson, Answers) {
        let j = self.job;
        let mem = j.memory();
        let memory = MemoryJson {
            weights_bytes: mem.weights_bytes,
            activations_bytes: mem.activations_bytes,
            overhead_bytes: mem.overhead_bytes,
            ..memory_json(
                mem.total,
                super::shared::reserved(mem.total),
                f64::from(j.batch),
                1,
                gpu.map_or_else(String::new, |g| g.id.clone()),
                gpu.map_or(0.0, |g| g.memory_bytes()),
            )
        };
        (
            memory,
            Answers {
                min_gpus: Some(1),
                best_weight_format: Some(j.precision.id.to_string()),
                ..Answers::default()
            },
        )
    }
}
