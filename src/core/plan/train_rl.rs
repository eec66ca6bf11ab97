//! An RL fine-tune's answer on a plan: memory beside the policy and the
//! step in both generation layouts, TRL's colocated vLLM and a server on
//! GPUs of its own (`estimate::rl`).

use super::super::answer::{RlAnswer, RlStepAnswer};
use super::super::catalog::Gpu;
use super::super::config::GenMode;
use super::super::estimate::train::{mfu, Layout, TrainJob};
use super::train_speed::link_bytes_per_s;

/// The RL answer of `job` (its GPU set: `TrainJob::on_gpu`) on `gpu` under `l`; `None` for supervised jobs.
pub fn answer(job: &TrainJob<'_>, gpu: &Gpu, l: Layout) -> Option<RlAnswer> {
    let rl = job.rl?;
    let step = |mode: GenMode| {
        let s = job.rl_step(
            gpu,
            mfu(gpu, job.method),
            l,
            mode,
            link_bytes_per_s(gpu, l.gpus()),
            gpu.link_bytes_per_s(true),
        )?;
        Some(RlStepAnswer {
            generation_s: s.generation_s,
            scoring_s: s.scoring_s,
            update_s: s.update_s,
            sync_s: s.sync_s,
            step_s: s.total(),
            steps: s.steps,
            run_hours: s.total() * s.steps / 3600.0,
            sequences_per_step: s.sequences,
            generation_gpus: s.gen_gpus,
            training_gpus: s.train_gpus,
            vllm_tp: s.gen_tp,
            fits: true,
        })
    };
    let generates = rl.generates() && rl.kind == super::super::config::Rl::Grpo;
    // The faster layout is of those whose memory fits too (a colocated
    // engine that leaves the policy no room is no layout).
    let cap = gpu.usable_bytes() * super::super::thresholds::USABLE_SHARE;
    let fits = |mode: GenMode| {
        let j = TrainJob { rl: Some(super::super::estimate::rl::RlJob { gen: mode, ..rl }), ..job.clone() };
        j.memory_layout(l).total() <= cap
    };
    let with_fit = |mode: GenMode| step(mode).map(|s| RlStepAnswer { fits: fits(mode), ..s });
    let colocate = with_fit(GenMode::Colocate);
    let split = if generates { with_fit(GenMode::Split) } else { None };
    let runs = |s: &Option<RlStepAnswer>| s.clone().filter(|s| s.fits);
    let faster = match (&runs(&colocate), &runs(&split)) {
        (Some(c), Some(s)) => Some(if s.step_s < c.step_s { GenMode::Split } else { GenMode::Colocate }),
        (Some(_), None) => Some(GenMode::Colocate),
        (None, Some(_)) => Some(GenMode::Split),
        (None, None) => None,
    };
    let (policy, extra) = job.rl_memory(&rl, l);
    Some(RlAnswer {
        method: rl.kind.as_str(),
        adapter: job.method.as_str(),
        plan_gpus: l.gpus(),
        gen: rl.gen.as_str(),
        faster_gen: faster.map(GenMode::as_str),
        policy_bytes: policy.total(),
        reference_bytes: extra.reference,
        reward_bytes: extra.reward,
        critic_bytes: extra.critic,
        engine_bytes: extra.engine,
        colocate,
        split,
    })
}
