//! Single changes worth making: for the job as configured, each change of
//! one setting (weight format, KV precision, the batch of offline serving,
//! spot, committed term; method, checkpointing, ZeRO stage, micro-batch;
//! encoder offload) that differs from the current one and that the plan
//! rates better on the user's objective, with the value it would give.
//! Guidance quotes them and the
//! page's what-if strip links them. Each change is evaluated on the pick's
//! own GPU type and provider, so the cost stays a few offers per change.

use super::super::answer::{Answer, Change, OfferResult};
use super::super::config::{Batch, Checkpointing, Commit, Config, Method, Task, Trainer, Usage};
use super::super::estimate::serve::Rescale;
use super::super::link;
use super::super::messages::Msg;
use super::super::offers::Objective;
use super::super::settings::Settings;

/// The pipeline run again on a changed link, under a given rescale: its
/// answer and the objective it was ranked on.
pub type Rerun<'a> = &'a dyn Fn(&Config, Option<&Rescale>) -> (Answer, Objective);

/// The changes of one setting worth trying for this task (key, value).
fn candidates(cfg: &Settings, a: &Answer) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    let w = a.weight_format.as_str();
    match cfg.task {
        Task::Serve => {
            let formats: &[&str] = if cfg.engine.splits_layers() {
                &["gguf-q8_0", "gguf-q4_k_m"]
            } else {
                &["bf16", "fp8", "int4-awq"]
            };
            out.extend(formats.iter().filter(|f| **f != w).map(|f| ("w", f.to_string())));
            if matches!(cfg.kv.as_str(), "bf16" | "fp16") {
                out.push(("kv", if cfg.engine.splits_layers() { "q8_0" } else { "fp8" }.to_string()));
            }
            // Offline work (a batch of requests, not live users) can run as
            // many sequences at once as fit: each pass over the weights
            // then serves more of them.
            if cfg.batch_usage() && cfg.batch() != Batch::Max && cfg.rps.is_none() {
                out.push(("batch", "max".to_string()));
            }
        }
        Task::Finetune | Task::Pretrain => {
            if cfg.task == Task::Finetune {
                // An RL fine-tune keeps its method and changes the adapter.
                let key = if cfg.rl.is_some() { "adapter" } else { "method" };
                out.extend(
                    [Method::Lora, Method::Qlora]
                        .into_iter()
                        .filter(|m| *m != cfg.method)
                        .map(|m| (key, m.as_str().to_string())),
                );
            }
            if cfg.gc != Checkpointing::Full {
                out.push(("gc", "full".to_string()));
            } else {
                // Full recomputation runs every layer's forward twice; where
                // the memory allows, less of it is faster. Megatron-LM and
                // torchtitan have a selective mode; the others recompute all
                // or nothing.
                out.push((
                    "gc",
                    if matches!(cfg.trainer, Trainer::Megatron | Trainer::Torchtitan) {
                        "selective"
                    } else {
                        "none"
                    }
                    .to_string(),
                ));
            }
            // Unset, the planner already tried every stage.
            if cfg.zero.is_some_and(|z| z < 3) {
                out.push(("zero", "3".to_string()));
            }
            out.push(("mb", (cfg.mb().saturating_mul(2)).to_string()));
        }
        Task::Generate => {
            out.extend(["bf16", "fp8"].iter().filter(|f| **f != w).map(|f| ("w", f.to_string())));
            if !cfg.enc_offload {
                out.push(("enc_offload", "1".to_string()));
            }
        }
    }
    if super::super::billing::tolerates_interruption(cfg) && !cfg.spot {
        out.push(("spot", "1".to_string()));
    }
    if cfg.commit == Commit::None && cfg.usage() == Usage::Always {
        out.push(("commit", Commit::Year.as_str().to_string()));
    }
    out
}

/// A published quality cost of moving to a lower-precision format. The
/// figures are language models' benchmark scores; for image, video and
/// audio models the sentence says no such figure is given here.
fn quality(task: Task, key: &str, value: &str) -> Option<Msg> {
    if key != "w" {
        return None;
    }
    if task == Task::Generate {
        return (value != "bf16" && value != "fp16" && value != "fp32").then(|| Msg::new("q.media"));
    }
    match value {
        "fp8" => Some(Msg::new("q.fp8")),
        "int4-awq" => Some(Msg::new("q.int4")),
        v if v.starts_with("gguf-q4") => Some(Msg::new("q.gguf4")),
        _ => None,
    }
}

/// The single changes the plan rates better than the current setting on
/// `objective`, best first.
/// `rerun` answers a changed link without suggestions of its own (the
/// pipeline's `run`, handed down so this module need not reach back up to it).
pub fn single_changes(
    cfg: &Settings,
    a: &Answer,
    objective: Objective,
    rescale: Option<&Rescale>,
    rerun: Rerun<'_>,
) -> Vec<Change> {
    let Some(pick) = a.pick() else { return Vec::new() };
    let before = objective.key(pick);
    if before >= f64::MAX {
        return Vec::new();
    }
    // A job's bill on an unpublished increment rests on the whole-hour
    // assumption; a change that only moves the rounding is no advice, so
    // such a change must also be better on the busy hours alone.
    let unrounded = |o: &OfferResult| {
        let rounded = objective == Objective::UsdPerJob
            && o.unknown_costs.contains(&super::super::kinds::UnknownCost::BillingIncrement)
            && o.billed_hours_per_month > 0.0;
        if rounded {
            objective.key(o) * o.busy_hours_per_month / o.billed_hours_per_month
        } else {
            objective.key(o)
        }
    };
    let before_busy = unrounded(pick);
    // The pick's shape: its GPU type and provider (a format may let a
    // smaller GPU of the same kind hold it; that is not this strip's job).
    let base = Config {
        gpu: Some(pick.gpu.to_string()),
        providers: vec![pick.provider.to_string()],
        ..cfg.config().clone()
    };
    let mut out: Vec<(Change, f64)> = candidates(cfg, a)
        .into_iter()
        .filter_map(|(key, value)| {
            let changed = link::set(&base, key, &value).ok()?;
            // Keep the user's batch explicit so a format change compares the same
            // load (a rate is the load when it is given: no batch is set beside it).
            let batch = if cfg.rps.is_some() {
                changed.batch
            } else {
                changed.batch.or(Some(cfg.batch())).filter(|b| *b != Batch::Max).or(changed.batch)
            };
            let changed = Config { batch, ..changed };
            let (answer, obj) = rerun(&changed, rescale);
            if obj != objective || !answer.notices.is_empty() {
                return None;
            }
            let after_pick = answer.pick()?;
            let after = objective.key(after_pick);
            // Worth a person's attention: 3 % or more.
            let better = after < before - 0.03 * before.abs()
                && unrounded(after_pick) < before_busy - 0.03 * before_busy.abs();
            // Values as shown (speeds were negated to rank smaller-first).
            better.then(|| {
                let shown = link::set(cfg, key, &value).ok().map_or_else(String::new, |c| link::encode(&c));
                (
                    Change {
                        key,
                        value: value.clone(),
                        query: shown,
                        objective,
                        before: before.abs(),
                        after: after.abs(),
                        better,
                        quality: quality(cfg.task, key, &value),
                    },
                    (before - after) / before.abs(),
                )
            })
        })
        .collect();
    super::super::order::sort_by(&mut out, &|x, y| y.1.total_cmp(&x.1));
    out.into_iter().map(|(c, _)| c).collect()
}
