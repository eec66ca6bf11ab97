//! What one offer's plan asks of a launch ([`Launch`], read from the
//! answer alone), and the export the page and the CLI write for it.

use std::sync::Arc;

use serde::Serialize;

use super::super::answer::{Answer, OfferResult};
use super::super::catalog::gpus::Vendor;
use super::super::catalog::{support, Catalog, Kind, Support};
use super::super::config::{Engine, Task};
use super::super::settings::Settings;
use super::checkpoint;

/// Port each engine's server listens on in the export (the `--port` it is given; the engine table's `port`).
pub fn base_port(engine: Engine) -> u32 {
    super::super::engines::launch(engine).port.value
}

/// One offer's export.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Export {
    pub offer: Arc<str>,
    /// `pick` or `alternative`.
    pub role: &'static str,
    pub skypilot_yaml: String,
    /// The engine command (comment lines start with `#`).
    pub command: String,
    /// Why SkyPilot cannot launch this offer as it stands (the provider
    /// has no SkyPilot cloud); `None` when it can.
    pub unsupported: Option<String>,
}

/// What one offer's plan asks of a launch, derived from the answer alone.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    pub cfg: Settings,
    pub answer: &'a Answer,
    pub offer: &'a OfferResult,
    /// The engine version the catalog's support matrix names for this GPU.
    pub engine_version: String,
    /// Fine-tuning an image, video or audio model (diffusers' training
    /// scripts, not a language model's trainer).
    pub media_training: bool,
    /// The GPU's vendor and architecture (the install route).
    pub vendor: Vendor,
    pub arch: String,
    /// The catalog model's served checkpoint (`None`: not a catalog
    /// language model).
    pub checkpoint: Option<checkpoint::Checkpoint>,
    /// The card computes in bf16 (support.csv's `hf` bf16 row for its
    /// architecture: not below compute capability 8.0, Volta and Turing).
    pub bf16: bool,
}

impl<'a> Launch<'a> {
    /// The launch of `offer` under `answer`: the settings the answer was
    /// made from, with the ZeRO stage the planner chose for this offer
    /// where the link names none.
    pub fn new(answer: &'a Answer, offer: &'a OfferResult, catalog: &Catalog) -> Launch<'a> {
        let cfg = answer.settings.with_planned_zero(offer.zero);
        let gpu = catalog.gpu(&offer.gpu);
        let arch = gpu.map(|g| g.arch.as_str().to_string()).unwrap_or_default();
        let vendor = gpu.map_or(Vendor::Nvidia, |g| g.vendor);
        // Training runs on transformers (the matrix's `hf` rows); generation
        // pipelines have no row in the matrix.
        let engine = match cfg.task {
            Task::Serve => Some(cfg.engine),
            Task::Finetune | Task::Pretrain => Some(Engine::Hf),
            Task::Generate => None,
        };
        let engine_version = engine
            .and_then(|e| {
                support::lookup(&catalog.support, e, &arch, Kind::Weights, &answer.weight_format)
                    .or_else(|| catalog.support.iter().find(|r| r.engine == e))
            })
            .map(|r| r.engine_version.clone())
            .unwrap_or_else(|| "(no version in the support matrix)".to_string());
        let media_training = cfg.is_training() && catalog.media_model(&answer.model).is_some();
        let checkpoint = if cfg.task == Task::Generate { None } else { checkpoint::of(&answer.model) };
        let bf16 = catalog.support("hf", &arch, Kind::Weights, "bf16") != Support::Unsupported;
        Launch { cfg, answer, offer, engine_version, media_training, vendor, arch, checkpoint, bf16 }
    }

    pub fn serving(&self) -> bool {
        self.cfg.task == Task::Serve
    }

    /// GPUs one copy of the model uses (serving: its tensor-parallel group,
    /// times its data-parallel attention ranks and its pipeline stages) or
    /// the job's GPUs per node.
    pub fn gpus_per_replica(&self) -> u32 {
        let dp = if self.serving() { self.offer.dp.max(1) } else { 1 };
        (self.offer.tp * dp * self.offer.pp).max(1)
    }

    /// Instances one serving copy spans (pipeline stages across instances).
    pub fn nodes_per_replica(&self) -> u32 {
        if self.serving() {
            self.gpus_per_replica().div_ceil(self.offer.gpus.max(1)).max(1)
        } else {
            1
        }
    }

    /// Serving copies on each instance (several small copies share one box).
    pub fn replicas_per_node(&self) -> u32 {
        if self.serving() && self.nodes_per_replica() == 1 {
            (self.offer.gpus / self.gpus_per_replica()).max(1)
        } else {
            1
        }
    }

    /// SkyPilot nodes of one task and independent copies of that task
    /// (SkyServe replicas): their product is the offer's `instances`.
    pub fn nodes_and_services(&self) -> (u32, u32) {
        let instances = self.offer.instances.max(1);
        if self.serving() && self.nodes_per_replica() == 1 {
            (1, instances)
        } else {
            (instances, 1)
        }
    }

    /// Concurrent sequences per copy: the plan's batch, whole.
    pub fn seqs_per_replica(&self) -> u32 {
        let b = self.offer.batch.ceil();
        if b.is_finite() && b >= 1.0 {
            b.min(f64::from(u32::MAX)) as u32
        } else {
            1
        }
    }

    /// Longest sequence a request needs, as the plan sized it: prompt,
    /// image tokens and output (`Answer::request_tokens`); prompt plus
    /// output only where the answer carries no serving plan.
    pub fn max_model_len(&self) -> u32 {
        match self.answer.request_tokens {
            Some(t) => u32::try_from(t).unwrap_or(u32::MAX),
            None => self.cfg.input_tokens.saturating_add(self.cfg.output_tokens),
        }
    }

    /// The model argument of a serving command: the catalog's repository
    /// as the default of `$MODEL` where the plan's weights are that
    /// checkpoint; `$MODEL` alone where they are a conversion of it (AWQ,
    /// GPTQ, GGUF…) or the catalog has no repository.
    pub fn model_arg(&self) -> String {
        match self.served_repo() {
            Some(repo) => format!("${{MODEL:-{repo}}}"),
            None => "$MODEL".to_string(),
        }
    }

    /// The repository the launch serves as it stands (see [`Launch::model_arg`]).
    pub fn served_repo(&self) -> Option<&str> {
        let c = self.checkpoint.as_ref().filter(|c| !c.repo.is_empty())?;
        let own = !checkpoint::separate_checkpoint(&self.answer.weight_format)
            && !super::super::engines::row(self.cfg.engine).gguf_only.value;
        own.then_some(c.repo.as_str())
    }

    /// GB of disk the task asks for: what the plan stores (the user's
    /// `store`, else the weights, plus the kept checkpoints when training)
    /// on top of SkyPilot's default boot disk of 256 GB
    /// (skypilot-org/skypilot sky/resources.py `_DEFAULT_DISK_SIZE_GB = 256`),
    /// which holds the image, the engine and its caches.
    pub fn disk_size_gb(&self) -> u64 {
        let stored = self.cfg.store_gb.unwrap_or_else(|| {
            let weights = self.answer.memory.weights_bytes / 1e9;
            weights + self.answer.answers.checkpoints_bytes_total.unwrap_or(0.0) / 1e9
        });
        let extra = if stored.is_finite() && stored > 0.0 { stored.ceil().min(1e9) as u64 } else { 0 };
        256 + extra
    }
}

/// The program an engine id stands for, for messages.
pub fn engine_name(task: Task, engine: Engine) -> &'static str {
    match task {
        Task::Finetune | Task::Pretrain => "transformers + accelerate",
        Task::Generate => "diffusers",
        Task::Serve => super::super::engines::launch(engine).name,
    }
}
