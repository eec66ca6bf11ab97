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
//! estimator's speed ([`ServeJob`]; all taken at `completion_len`, the step
//! waiting for the longest), scoring forwards (reference, reward, value) at
//! the training class's utilisation, the update at the training clock, the
//! weight sync to vLLM. TRL's `GRPOTrainer` generates, then trains, in both
//! vLLM modes (grpo_trainer.py:1792 syncs, then generates, before the loss):
//! the layouts differ in who generates and what memory is left, not in
//! overlap, so a split step is serial too.

use super::super::catalog::{Gpu, Model};
use super::super::config::{Config, Engine, GenMode, Method, Rl};
use super::super::precision;
use super::arch;
use super::serve::ServeJob;
use super::serve_plan::Plan;
use super::train::{mfu, Layout, TrainJob};
use super::train_step::micro_batches;

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
const ENGINE_OVERHEAD_BYTES: f64 = 1_073_741_824.0;
/// `trl vllm-serve`'s default `gpu_memory_utilization` (trl/scripts/vllm_serve.py:248).
const SERVER_SHARE: f64 = 0.9;
/// PPO's passes over each batch (`num_ppo_epochs`, experimental/ppo/ppo_config.py:232).
const PPO_EPOCHS: f64 = 4.0;
/// PPO generates with transformers' `generate` in chunks of
/// `local_rollout_forward_batch_size` (default 64, ppo_config.py:142).
const PPO_ROLLOUT_BATCH: f64 = 64.0;

/// The RL side of a fine-tune (`TrainJob::rl`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RlJob {
    pub kind: Rl,
    pub prompts: f64,
    pub gens: f64,
    pub prompt_len: f64,
    pub completion_len: f64,
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
    fn scores_reference(&self) -> bool {
        self.kind != Rl::Grpo || self.beta > 0.0
    }

    /// A separate frozen reference model is loaded (see module docs).
    fn loads_reference(&self, method: Method) -> bool {
        self.scores_reference() && method == Method::Full
    }
}

/// vLLM's weights (16-bit: TRL syncs merged 16-bit weights, vllm_generation.py:464).
fn engine_weights(m: &Model) -> f64 {
    m.params_total * 2.0
}

/// The smallest power-of-two tensor-parallel size, up to `most`, at which
/// vLLM holds its weights and one sequence's cache in `share` of `gpu_bytes`.
fn engine_tp(job: &TrainJob<'_>, rl: &RlJob, share: f64, most: u32) -> Option<u32> {
    let serve = serve_job(job.model, rl, Engine::Vllm);
    [1u32, 2, 4, 8].into_iter().filter(|t| *t <= most.max(1) && job.model.heads % t == 0).find(|t| {
        let kv = serve.kv_per_seq_per_gpu(Plan::tp_pp(*t, 1), rl.seq());
        share * rl.gpu_bytes - ENGINE_OVERHEAD_BYTES - engine_weights(job.model) / f64::from(*t) >= kv
    })
}

fn serve_job<'m>(model: &'m Model, rl: &RlJob, engine: Engine) -> ServeJob<'m> {
    let cfg = Config { input_tokens: rl.prompt_len as u32, output_tokens: rl.completion_len as u32, engine, ..Config::default() };
    let bf16 = precision::weight_format("bf16").unwrap_or(precision::WeightFormat {
        id: "bf16",
        body_bits: 16.0,
        embed_bits: 16.0,
        weight_only: false,
        compute: precision::Compute::Bf16,
        gguf: false,
    });
    ServeJob::new(model, &cfg, bf16)
}

/// Sequences one optimizer step trains on a training layout: TRL's
/// generation batch is per_device_train_batch_size × processes ×
/// steps_per_generation (grpo_config.py:1079), one generation per
/// optimizer step; GRPO's holds whole groups of `gens` completions (TRL
/// asks the effective batch to divide by `num_generations`,
/// grpo_config.py:474), gradient accumulation filling the rest.
fn sequences_per_step(job: &TrainJob<'_>, rl: &RlJob, train: Layout) -> f64 {
    let per_round = f64::from(train.dp.max(1)) * job.mb * micro_batches(train, job.mb, job.gbs);
    let group = if rl.kind == Rl::Grpo { rl.gens } else { 1.0 };
    (per_round / group).ceil() * group
}

/// GPUs a `trl vllm-serve` server takes out of layout `l` (split), which
/// is also its tensor-parallel size: the smallest power of two whose cache
/// holds a whole step's completions at once (no waves), else the largest
/// that holds the weights and leaves a replica to train. Whole replicas
/// of the training layout go to it.
pub fn split_gpus(job: &TrainJob<'_>, rl: &RlJob, l: Layout) -> Option<u32> {
    let serve = serve_job(job.model, rl, Engine::Vllm);
    let mp = l.tp.max(1) * l.pp.max(1);
    let fitting: Vec<(u32, f64, f64)> = [1u32, 2, 4, 8]
        .into_iter()
        .filter(|t| *t < l.gpus() && job.model.heads % t == 0 && l.dp > t.div_ceil(mp))
        .filter_map(|t| {
            let kv = serve.kv_per_seq_per_gpu(Plan::tp_pp(t, 1), rl.seq()).max(1.0);
            let room = SERVER_SHARE * rl.gpu_bytes - ENGINE_OVERHEAD_BYTES - engine_weights(job.model) / f64::from(t);
            let seqs = sequences_per_step(job, rl, Layout { dp: l.dp - t.div_ceil(mp), ..l });
            (room >= kv).then_some((t, room / kv, seqs))
        })
        .collect();
    fitting.iter().find(|(_, holds, seqs)| holds >= seqs).or(fitting.last()).map(|(t, ..)| *t)
}

/// Memory beside the policy per GPU under layout `l` (module docs). The
/// generation engine's share is known once the GPU is (`gpu_bytes`);
/// a colocated engine that cannot hold the weights takes the whole GPU.
pub fn extra_memory(job: &TrainJob<'_>, rl: &RlJob, l: Layout, dp_train: f64) -> RlMemory {
    let mp = f64::from(l.tp.max(1)) * f64::from(l.pp.max(1));
    let frozen = job.model.params_total * job.train_bytes / mp / if job.zero >= 3 { dp_train.max(1.0) } else { 1.0 };
    let reference = if rl.loads_reference(job.method) { frozen } else { 0.0 };
    // TRL's PPO trains the value model whole beside the policy (its
    // optimizer covers `PolicyAndValueWrapper(policy, value_model)`,
    // ppo_trainer.py:492; PEFT wraps the policy only).
    let (reward, critic) = if rl.kind == Rl::Ppo {
        let full = TrainJob { method: Method::Full, rl: None, ..job.clone() }.policy_memory(dp_train, f64::from(l.tp), f64::from(l.pp));
        (frozen, full.weights + full.gradients + full.optimizer)
    } else {
        (0.0, 0.0)
    };
    let engine = match (rl.kind, rl.gen) {
        // An engine that cannot hold the weights in its share is counted as
        // the whole GPU: the job does not fit so (vLLM refuses to start).
        (Rl::Grpo, GenMode::Colocate) if rl.gpu_bytes > 0.0 => match engine_tp(job, rl, rl.vllm_share, l.gpus()) {
            Some(_) => rl.vllm_share * rl.gpu_bytes,
            None => rl.gpu_bytes,
        },
        _ => 0.0,
    };
    RlMemory { reference, reward, critic, engine }
}

/// One step under layout `l` in `mode` (`None`: it cannot run so, as a
/// split on one GPU, or an engine that cannot hold the weights).
/// `train_tps` gives the training clock's tokens/s on a layout.
pub fn step(job: &TrainJob<'_>, rl: &RlJob, gpu: &Gpu, l: Layout, mode: GenMode, train_tps: &dyn Fn(Layout) -> f64, link: f64) -> Option<RlStep> {
    let rl = RlJob { gpu_bytes: gpu.memory_bytes(), gen: mode, ..*rl };
    let mp = l.tp.max(1) * l.pp.max(1);
    let (gen_gpus, gen_tp) = match (rl.generates() && rl.kind == Rl::Grpo, mode) {
        (true, GenMode::Split) => {
            let g = split_gpus(job, &rl, l)?;
            (g, g)
        }
        (true, GenMode::Colocate) => (0, engine_tp(job, &rl, rl.vllm_share, l.gpus())?),
        (false, _) => (0, 1),
    };
    let dp = l.dp.saturating_sub(gen_gpus.div_ceil(mp));
    if dp == 0 {
        return None;
    }
    let train = Layout { dp, ..l };
    let sequences = sequences_per_step(job, &rl, train);
    let tokens = sequences * rl.seq();
    let steps = (rl.sequences() / sequences.max(1.0)).ceil().max(1.0);
    let tps = train_tps(train);
    if tps <= 0.0 {
        return None;
    }
    let ppo = if rl.kind == Rl::Ppo { PPO_EPOCHS * 2.0 } else { 1.0 };
    let update_s = tokens / tps * ppo;
    // Forward passes of the frozen and value models over the step's tokens:
    // PPO reference, reward and value; DPO the reference (with the adapter
    // disabled under LoRA: a forward all the same); GRPO the reference
    // where beta > 0, none at TRL's default beta=0.
    let passes = match rl.kind {
        Rl::Grpo if rl.scores_reference() => 1.0,
        Rl::Grpo => 0.0,
        Rl::Ppo => 3.0,
        Rl::Dpo => 1.0,
    };
    let flops = precision::tensor_flops(gpu, precision::Compute::Bf16).max(1.0) * mfu(gpu, Method::Full);
    let scoring_s = passes * tokens * arch::linear_flops_per_token(job.model) / flops / f64::from(train.gpus().max(1));
    let generation_s = if rl.generates() { generation(job, &rl, gpu, sequences, gen_gpus, gen_tp, l.gpus()) } else { 0.0 };
    // The weights go to vLLM after every step (grpo_trainer.py:1792):
    // in-process copies when colocated (read and write at the memory's
    // bandwidth), a broadcast from the trainer to the server over the
    // link when split; under ZeRO-3 the shards are gathered first
    // (vllm_generation.py:460).
    let bytes = engine_weights(job.model);
    let sync_s = match (rl.kind, mode) {
        (Rl::Grpo, GenMode::Colocate) => 2.0 * bytes / f64::from(gen_tp) / gpu.bandwidth_bytes_per_s().max(1.0),
        (Rl::Grpo, GenMode::Split) => bytes / link.max(1.0),
        _ => 0.0,
    } + if rl.kind == Rl::Grpo && job.zero >= 3 && dp > 1 { bytes * f64::from(dp - 1) / f64::from(dp) / link.max(1.0) } else { 0.0 };
    Some(RlStep { generation_s, scoring_s, update_s, sync_s, sequences, steps, gen_gpus, gen_tp, train_gpus: train.gpus() })
}

/// Seconds to generate `sequences` completions: vLLM engines of `tp` GPUs
/// (colocated: every group of the job's `gpus` generates its share;
/// split: the server's `gen_gpus`), in waves of what their cache holds,
/// each a prefill and `completion_len` decode steps at the mean context.
/// PPO generates with transformers in chunks of 64 on every GPU.
fn generation(job: &TrainJob<'_>, rl: &RlJob, gpu: &Gpu, sequences: f64, gen_gpus: u32, tp: u32, gpus: u32) -> f64 {
    let ppo = rl.kind == Rl::Ppo;
    let serve = serve_job(job.model, rl, if ppo { Engine::Hf } else { Engine::Vllm });
    let plan = Plan::tp_pp(tp.max(1), 1);
    let (engines, share) = if gen_gpus > 0 { (1.0, SERVER_SHARE) } else { (f64::from((gpus / tp.max(1)).max(1)), rl.vllm_share) };
    let batch = (sequences / engines).ceil().max(1.0);
    let kv = serve.kv_per_seq_per_gpu(plan, rl.seq()).max(1.0);
    let room = share * rl.gpu_bytes - ENGINE_OVERHEAD_BYTES - engine_weights(job.model) / f64::from(tp.max(1));
    let fits = if ppo { PPO_ROLLOUT_BATCH } else { (room / kv).floor().max(1.0) };
    let wave = batch.min(fits);
    let waves = (batch / wave).ceil();
    let prefill = serve.prefill_s(gpu, plan, rl.prompt_len, wave);
    let decode = rl.completion_len * serve.decode_step_s(gpu, plan, wave, rl.prompt_len + rl.completion_len / 2.0).0;
    waves * (prefill + decode)
}
