//! Reinforcement-learning fine-tuning on TRL (`method=grpo|ppo|dpo`):
//! what sits on each GPU beside the policy, and one optimizer step's parts.
//! Sources are TRL at huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8
//! (2026-07-24), "TRL" below; `docs/rl-finetuning.md` says it in words.
//!
//! Memory beside the policy (the policy itself is [`TrainJob`]'s, at the
//! sequence of prompt + completion):
//! - **reference model**: GRPO loads none at its default `beta=0.0`
//!   (trl/trainer/grpo_config.py:671, grpo_trainer.py:955 "If beta is 0.0,
//!   the reference model is not needed"); DPO and PPO keep a frozen copy
//!   under a full fine-tune and none under an adapter, whose reference
//!   logits come from the base with the adapter disabled
//!   (dpo_trainer.py:894, grpo_trainer.py:958; PPO: experimental/ppo/ppo_trainer.py:439-444);
//! - **reward and value models** (PPO only, ppo_trainer.py:354-357): taken
//!   as the policy's size, the reward frozen, the value model trained whole;
//! - **the generation engine**: colocated vLLM takes `vllm_gpu_memory_utilization`
//!   of every GPU (default 0.3, grpo_config.py:646, vLLM's share of the
//!   GPU's total memory); a `trl vllm-serve` server (`gen=split`) runs on
//!   GPUs of its own at its default 0.9 (trl/scripts/vllm_serve.py:248);
//! - **logits**: TRL computes the policy's per-token log-probabilities over
//!   the completion only (`logits_to_keep`, grpo_trainer.py:2433, 1516), so
//!   the logits are vocabulary × completion × micro-batch, in 16 bits
//!   ([`LOGITS_BYTES`]); DPO keeps the whole sequence's.
//!
//! Time per step: generation of the step's completions at the serving
//! estimator's speed ([`ServeJob`]; the batch for the mean length
//! `completion_mean`, the longest alone on to `completion_len`: the step
//! waits for it), scoring forwards (GRPO: the policy's log-probabilities of
//! vLLM's samples, TRL's importance-sampling correction; reference, reward,
//! value) at the training class's utilisation, the update at the training
//! clock, both over the prompt and the mean completion, the weight sync to
//! vLLM. `tests/it/estimate/rl_holdout.rs` scores it on held-out public runs. TRL's `GRPOTrainer` generates,
//! then trains, in both
//! vLLM modes (grpo_trainer.py:1792 syncs, then generates, before the loss):
//! the layouts differ in who generates and what memory is left, not in
//! overlap, so a split step is serial too.

use super::super::config::{Config, GenMode, Method, Rl};

/// Bytes per vocabulary entry per scored token of TRL's log-probabilities:
/// the model's 16-bit logits (kept, divided by the temperature in place,
/// grpo_trainer.py:1516), the 16-bit log-softmax each row saves for the
/// backward (`selective_log_softmax`'s bf16 branch, trl/trainer/utils.py:479,
/// which DPO and PPO call too: dpo_trainer.py:1347, ppo_trainer.py:703)
/// and the 16-bit gradient of the logits.
pub const LOGITS_BYTES: f64 = 2.0 + 2.0 + 2.0;

/// vLLM's own workspace per GPU beside weights and KV cache (CUDA context,
/// activations of a step, CUDA graphs), taken as the training estimate's
/// per-GPU overhead (`train::OVERHEAD_BYTES`, ~1 GiB).
pub(super) const ENGINE_OVERHEAD_BYTES: f64 = 1_073_741_824.0;
/// `trl vllm-serve`'s default `gpu_memory_utilization` (trl/scripts/vllm_serve.py:248).
pub(super) const SERVER_SHARE: f64 = 0.9;
/// PPO's passes over each batch (`num_ppo_epochs`, experimental/ppo/ppo_config.py:232).
pub(super) const PPO_EPOCHS: f64 = 4.0;
/// PPO generates with transformers' `generate` in chunks of
/// `local_rollout_forward_batch_size` (default 64, ppo_config.py:142).
pub(super) const PPO_ROLLOUT_BATCH: f64 = 64.0;

/// The RL side of a fine-tune (`TrainJob::rl`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RlJob {
    pub kind: Rl,
    pub prompts: f64,
    pub gens: f64,
    pub prompt_len: f64,
    pub completion_len: f64,
    /// The mean generated length (`completion_mean`; `completion_len` where not given).
    pub mean_len: f64,
    pub gen: GenMode,
    pub vllm_share: f64,
    /// GRPO's KL coefficient: above 0 the reference scores every step.
    pub beta: f64,
    /// The memory of the GPU the plan is on (bytes); 0 while not known.
    pub gpu_bytes: f64,
}

/// Memory per GPU beside the policy, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RlMemory {
    pub reference: f64,
    pub reward: f64,
    pub critic: f64,
    pub engine: f64,
}

impl RlMemory {
    pub fn total(&self) -> f64 {
        self.reference + self.reward + self.critic + self.engine
    }
}

/// One optimizer step, seconds, and where it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RlStep {
    pub generation_s: f64,
    pub scoring_s: f64,
    pub update_s: f64,
    pub sync_s: f64,
    /// Sequences trained per step (completions; DPO: chosen and rejected).
    pub sequences: f64,
    pub steps: f64,
    /// GPUs that generate only (split), and vLLM's tensor-parallel size.
    pub gen_gpus: u32,
    pub gen_tp: u32,
    /// GPUs that train (a split's server takes whole replicas out of the layout).
    pub train_gpus: u32,
}

impl RlStep {
    pub fn total(&self) -> f64 {
        self.generation_s + self.scoring_s + self.update_s + self.sync_s
    }
}

impl RlJob {
    pub fn new(cfg: &Config) -> Option<RlJob> {
        let kind = cfg.rl?;
        Some(RlJob {
            kind,
            prompts: f64::from(cfg.prompts.max(1)),
            // TRL's PPOTrainer samples one response per query
            // (experimental/ppo/ppo_trainer.py `batch_generation`); DPO samples none.
            gens: if kind == Rl::Grpo { f64::from(cfg.gens.max(2)) } else { 1.0 },
            prompt_len: f64::from(cfg.prompt_len.max(1)),
            completion_len: f64::from(cfg.completion_len.max(1)),
            // DPO trains on given pairs: nothing is generated, so no mean of its own.
            mean_len: f64::from(
                if kind == Rl::Dpo {
                    cfg.completion_len
                } else {
                    cfg.completion_mean.unwrap_or(cfg.completion_len)
                }
                .clamp(1, cfg.completion_len.max(1)),
            ),
            // TRL's `vllm_mode` default (grpo_config.py:584); PPO generates inside the trainer.
            gen: if kind == Rl::Grpo { cfg.gen.unwrap_or(GenMode::Colocate) } else { GenMode::Colocate },
            vllm_share: cfg.vllm_mem,
            beta: cfg.beta,
            gpu_bytes: 0.0,
        })
    }

    /// Tokens of one trained sequence.
    pub fn seq(&self) -> f64 {
        self.prompt_len + self.completion_len
    }

    /// Tokens of one sequence as generated: the prompt and the mean
    /// completion. The update, the scoring passes and vLLM's paged cache
    /// (blocks allocated as tokens are generated: Kwon et al. 2023,
    /// "Efficient Memory Management for LLM Serving with PagedAttention",
    /// §4) take this; memory peaks at [`RlJob::seq`], the longest.
    pub fn mean_seq(&self) -> f64 {
        self.prompt_len + self.mean_len
    }

    /// Sequences the run trains on: every completion of every prompt (PPO
    /// one per prompt), DPO's chosen and rejected.
    pub fn sequences(&self) -> f64 {
        match self.kind {
            Rl::Dpo => self.prompts * 2.0,
            _ => self.prompts * self.gens,
        }
    }

    /// Share of a sequence's tokens whose logits the loss holds.
    pub fn logit_share(&self) -> f64 {
        match self.kind {
            Rl::Dpo => 1.0,
            _ => self.completion_len / self.seq(),
        }
    }

    /// Whether this run samples completions (DPO trains on given pairs).
    pub fn generates(&self) -> bool {
        self.kind != Rl::Dpo
    }

    /// The reference model scores each step: always for DPO and PPO, for
    /// GRPO where `beta` > 0 (grpo_trainer.py:955).
    pub(super) fn scores_reference(&self) -> bool {
        self.kind != Rl::Grpo || self.beta > 0.0
    }

    /// A separate frozen reference model is loaded (see module docs).
    pub(super) fn loads_reference(&self, method: Method) -> bool {
        self.scores_reference() && method == Method::Full
    }
}
