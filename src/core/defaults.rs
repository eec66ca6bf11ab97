//! What each task assumes where the link is silent (the task defaults)
//! and what an engine does with a model it spreads over GPUs: decided here
//! and nowhere else, beside `config`'s types.

use super::config::{Batch, Engine, Task, Usage};

/// What each task assumes where the link is silent: decided here and
/// nowhere else (`docs/link-format.md`, "Task defaults").
impl Task {
    /// Serving, fine-tuning and pre-training: Llama 3.1 8B; generation: SDXL.
    pub fn default_model(self) -> &'static str {
        match self {
            Task::Generate => "sdxl",
            _ => "llama-3.1-8b",
        }
    }

    /// An endpoint is always on; generation is batch jobs; a training run is one job.
    pub fn default_usage(self) -> Usage {
        match self {
            Task::Serve => Usage::Always,
            Task::Generate => Usage::Jobs,
            Task::Finetune | Task::Pretrain => Usage::Once,
        }
    }

    /// 16 concurrent sequences for serving; one image (or clip) per batch for generation.
    pub fn default_batch(self) -> Batch {
        match self {
            Task::Generate => Batch::N(1),
            _ => Batch::N(16),
        }
    }
}

impl Engine {
    /// Engines that spread a model over a node's GPUs by giving each GPU a
    /// run of layers, which then work one after another: llama.cpp's
    /// default `--split-mode layer`, and transformers' `device_map="auto"`
    /// (Accelerate's big-model inference places consecutive layers on each
    /// GPU and runs them in turn). Offers of several instances are not
    /// spread over for them (`recommend.rs`).
    pub fn splits_layers(self) -> bool {
        super::engines::row(self).split.value == super::engines::Split::Layers
    }
}
