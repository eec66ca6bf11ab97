//! Guidance for an RL fine-tune (`method=grpo|ppo|dpo`), quoting the
//! answer's own step (`Answers::rl`): where the time goes, which layout,
//! and whether an adapter will do.

use super::super::answer::{Answer, GuidanceItem, RlAnswer, RlStepAnswer};
use super::super::messages::Msg;
use super::shared::gib1;

pub fn guidance(a: &Answer) -> Vec<GuidanceItem> {
    let Some(rl) = &a.answers.rl else { return Vec::new() };
    let mut out = Vec::new();
    let billed = if rl.gen == "split" { rl.split.as_ref() } else { rl.colocate.as_ref() };
    if let Some(s) = billed.filter(|s| s.generation_s > 0.0) {
        let share = 100.0 * s.generation_s / s.step_s.max(1e-9);
        out.push(GuidanceItem::new(
            "rl-generation",
            Some("g.rl.gen.title"),
            Msg::new(if generation_paces(s) { "g.rl.gen" } else { "g.rl.gen.minor" })
                .num("seqs", s.sequences_per_step, 0)
                .num("gen", s.generation_s, 1)
                .num("step", s.step_s, 1)
                .num("share", share, 0)
                .num("update", s.update_s + s.scoring_s, 1),
        ));
    }
    if let Some(item) = layouts(rl) {
        out.push(item);
    }
    if rl.method == "grpo" {
        out.push(GuidanceItem::new("rl-lora", Some("g.rl.lora.title"), Msg::new("g.rl.lora")));
    }
    out
}

/// Generation takes longer than the training side's passes (the update and
/// the scoring forwards), the larger half of the step.
pub fn generation_paces(s: &RlStepAnswer) -> bool {
    s.generation_s >= s.update_s + s.scoring_s
}

/// Colocated against split, both as computed on the plan's GPUs.
fn layouts(rl: &RlAnswer) -> Option<GuidanceItem> {
    let c = rl.colocate.as_ref();
    let s = rl.split.as_ref();
    let said = |s: &RlStepAnswer| {
        if s.fits {
            Msg::new("g.rl.layout.time").num("step", s.step_s, 1).num("hours", s.run_hours, 1)
        } else {
            Msg::new("g.rl.layout.nofit")
        }
    };
    let msg = match (c, s) {
        (Some(c), Some(s)) => Msg::new("g.rl.layout")
            .num("gpus", f64::from(rl.plan_gpus), 0)
            .arg("engine", gib1(rl.engine_bytes.max(0.0)))
            .sub("colocate", said(c))
            .num("serve", f64::from(s.generation_gpus), 0)
            .num("train", f64::from(s.training_gpus), 0)
            .sub("split", said(s))
            .arg("faster", rl.faster_gen.unwrap_or("–")),
        (Some(c), None) if rl.method == "grpo" => {
            Msg::new("g.rl.layout.one").num("gpus", f64::from(rl.plan_gpus), 0).sub("colocate", said(c))
        }
        _ => return None,
    };
    Some(GuidanceItem::new("rl-layout", Some("g.rl.layout.title"), msg))
}
