//! RL fine-tuning keys checked against the job (`method=grpo|ppo|dpo`):
//! each bad value is said, naming its key, and replaced by what runs.

use super::super::catalog::{Catalog, Model};
use super::super::config::{Config, GenMode, Rl, Task, Trainer};
use super::super::estimate::train::{Layout, TrainJob};
use super::super::messages::Msg;
use super::super::notice::Notice;
use super::super::thresholds::USABLE_SHARE;

/// An RL method outside fine-tuning a language model: said, and dropped.
pub fn task_notice(cfg: &mut Config, notices: &mut Vec<Notice>) {
    if let Some(rl) = cfg.rl.take() {
        notices.push(Notice::said(
            "method",
            Msg::new("notice.rl.task").arg("method", rl.as_str()).arg("task", cfg.task.as_str()),
        ));
    }
}

/// Completions, lengths, the stack and the colocated engine of an RL fine-tune.
pub fn notices(cfg: &mut Config, model: &Model, catalog: &Catalog, notices: &mut Vec<Notice>) {
    let Some(rl) = cfg.rl else { return };
    if cfg.task != Task::Finetune {
        return task_notice(cfg, notices);
    }
    // TRL's GRPO refuses fewer than 2 completions per prompt (its group
    // advantage needs a spread: trl/trainer/grpo_config.py:1116 at
    // huggingface/trl@f2cd5771); zero is no run for any method.
    let least = if rl == Rl::Grpo { 2 } else { 1 };
    if cfg.gens < least && rl == Rl::Grpo {
        let to = if cfg.gens == 0 { 8 } else { least };
        notices.push(Notice::said(
            "gens",
            Msg::new("notice.rl.gens")
                .arg("gens", cfg.gens.to_string())
                .arg("least", least.to_string())
                .arg("to", to.to_string()),
        ));
        cfg.gens = to;
    }
    if cfg.completion_len == 0 {
        notices.push(Notice::said("completion_len", Msg::new("notice.rl.completion_zero")));
        cfg.completion_len = 1024;
    }
    if let Some(most) = model.max_context.filter(|m| cfg.prompt_len.saturating_add(cfg.completion_len) > *m) {
        // The prompt kept up to half the context, the completion the rest.
        let prompt = cfg.prompt_len.min(most / 2);
        let completion = cfg.completion_len.min(most - prompt);
        notices.push(Notice::said(
            "completion_len",
            Msg::new("notice.rl.context")
                .arg("model", model.name.clone())
                .arg("most", most.to_string())
                .arg("prompt", cfg.prompt_len.to_string())
                .arg("completion", cfg.completion_len.to_string())
                .arg("prompt_fit", prompt.to_string())
                .arg("completion_fit", completion.to_string()),
        ));
        cfg.prompt_len = prompt;
        cfg.completion_len = completion;
    }
    if let Some(mean) = cfg.completion_mean.filter(|m| *m > cfg.completion_len) {
        notices.push(Notice::said(
            "completion_mean",
            Msg::new("notice.rl.completion_mean")
                .arg("mean", mean.to_string())
                .arg("most", cfg.completion_len.to_string()),
        ));
        cfg.completion_mean = Some(cfg.completion_len);
    }
    if !matches!(cfg.trainer, Trainer::Hf | Trainer::Trl) {
        notices.push(Notice::said(
            "trainer",
            Msg::new("notice.rl.trainer").arg("trainer", cfg.trainer.as_str()).arg("method", rl.as_str()),
        ));
        cfg.trainer = Trainer::Trl;
    }
    if rl != Rl::Grpo && cfg.beta > 0.0 {
        notices.push(Notice::said("beta", Msg::new("notice.rl.beta").arg("method", rl.as_str())));
        cfg.beta = 0.0;
    }
    if rl != Rl::Grpo && cfg.gen.take().is_some() {
        notices.push(Notice::said("gen", Msg::new("notice.rl.gen").arg("method", rl.as_str())));
    }
    colocate_notice(cfg, model, catalog, notices);
}

/// A pinned GPU whose memory cannot hold both the colocated vLLM share
/// and the policy on the GPUs asked for (or one node of them): said, naming
/// `gen`, with whether a split would; the plan still runs (more GPUs or
/// other offers).
fn colocate_notice(cfg: &Config, model: &Model, catalog: &Catalog, notices: &mut Vec<Notice>) {
    let (Some(Rl::Grpo), GenMode::Colocate) = (cfg.rl, cfg.gen.unwrap_or(GenMode::Colocate)) else { return };
    let Some(gpu) = cfg.gpu.as_deref().and_then(|g| catalog.gpu(g)) else { return };
    let n = cfg.gpus.unwrap_or(gpu.gpus_per_node).saturating_mul(cfg.nodes).max(1);
    let job = TrainJob::new(model, cfg).on_gpu(gpu);
    let cap = gpu.usable_bytes() * USABLE_SHARE;
    // Some layout the planner may take holds it: a ZeRO stage the stack
    // runs, tensor parallelism inside the GPUs asked for.
    let fits = |mode: GenMode| {
        let j = TrainJob {
            rl: job.rl.map(|r| super::super::estimate::rl::RlJob { gen: mode, ..r }),
            ..job.clone()
        };
        cfg.zero_stages().iter().any(|z| {
            let j = TrainJob { zero: *z, ..j.clone() };
            [1u32, 2, 4, 8]
                .into_iter()
                .filter(|tp| n % tp == 0)
                .map(|tp| Layout { dp: n / tp, tp, pp: 1 })
                .any(|l| j.splits(l) && j.memory_layout(l).total() <= cap)
        })
    };
    if fits(GenMode::Colocate) {
        return;
    }
    let key = if fits(GenMode::Split) { "notice.rl.colocate_split" } else { "notice.rl.colocate" };
    notices.push(Notice::said(
        "gen",
        Msg::new(key)
            .arg("gpu", gpu.name.clone())
            .arg("gpus", n.to_string())
            .arg("share", format!("{:.0}", cfg.vllm_mem * 100.0)),
    ));
}
