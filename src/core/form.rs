//! What the page's form shows for a configuration: which kind of job it
//! is (and so which inputs apply). Domain decisions the shell must not
//! make itself; no rendering here.

use super::catalog::media::MediaKind;
use super::catalog::Catalog;
use super::config::{Config, Task};

/// The kind of job a configuration describes, as the form sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    Serve,
    Generate,
    /// Fine-tuning or pre-training a language model.
    Train,
    /// Fine-tuning an image generator: resolution and run length instead of tokens.
    ImageTrain,
}

pub fn kind(cfg: &Config, catalog: &Catalog) -> FormKind {
    match cfg.task {
        Task::Serve => FormKind::Serve,
        Task::Generate => FormKind::Generate,
        Task::Finetune if catalog.media_model(cfg.model_id()).is_some_and(|m| m.kind == MediaKind::Image) => FormKind::ImageTrain,
        Task::Finetune | Task::Pretrain => FormKind::Train,
    }
}
