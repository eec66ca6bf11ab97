//! An RL fine-tune's parts that need the policy's training job: the
//! generation engine's layout and memory beside the policy, the split
//! server's GPUs and the step (generation, scoring, update, sync), as
//! methods of [`TrainJob`] (the model, its constants and sources:
//! `estimate::rl`).

use super::super::catalog::{Gpu, Model};
use super::super::config::{Config, Engine, GenMode, Method, Rl};
use super::super::precision;
use super::arch;
use super::rl::{
    RlJob, RlMemory, RlStep, ENGINE_OVERHEAD_BYTES, PPO_EPOCHS, PPO_ROLLOUT_BATCH, SERVER_SHARE,
};
use super::serve::ServeJob;
use super::serve_plan::Plan;
use super::train::{mfu, Layout, TrainJob, TrainMemory};
use super::train_step::micro_batches;

impl TrainJob<'_> {
    /// An RL job's policy and what sits beside it per GPU under `l`: a
    /// split's generation GPUs hold no training state, so the policy is
    /// sharded over the others (`estimate::rl`).
    pub fn rl_memory(&self, rl: &RlJob, l: Layout) -> (TrainMemory, RlMemory) {
        let mp = l.tp.max(1) * l.pp.max(1);
        let gen = match rl.gen {
            GenMode::Split if rl.generates() && rl.gpu_bytes > 0.0 => self.rl_split_gpus(rl, l),
            _ => Some(0),
        };
        let dp_train = gen.map_or(0, |g| l.dp.saturating_sub(g.div_ceil(mp)));
        if dp_train == 0 {
            // No GPU left to train on beside the server: the policy on one
            // replica and the server's GPU in full, which does not fit.
            let policy = self.policy_memory(1.0, f64::from(l.tp), f64::from(l.pp));
            return (policy, RlMemory { engine: rl.gpu_bytes, ..RlMemory::default() });
        }
        let policy = self.policy_memory(f64::from(dp_train), f64::from(l.tp), f64::from(l.pp));
        let extra = self.rl_extra_memory(rl, l, f64::from(dp_train));
        (policy, extra)
    }

    /// GPUs a split layout gives `trl vllm-serve` ([`split_gpus`]).
    pub fn rl_split_gpus(&self, rl: &RlJob, l: Layout) -> Option<u32> {
        split_gpus(self, rl, l)
    }

    /// Memory per GPU beside the policy ([`extra_memory`]).
    pub fn rl_extra_memory(&self, rl: &RlJob, l: Layout, dp_train: f64) -> RlMemory {
        extra_memory(self, rl, l, dp_train)
    }

    /// One RL step under `l` in generation layout `mode` ([`step`]).
    pub fn rl_step_of(
        &self,
        rl: &RlJob,
        gpu: &Gpu,
        l: Layout,
        mode: GenMode,
        train_tps: &dyn Fn(Layout) -> f64,
        link: f64,
    ) -> Option<RlStep> {
        step(self, rl, gpu, l, mode, train_tps, link)
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
    let cfg = Config {
        input_tokens: rl.prompt_len as u32,
        output_tokens: rl.completion_len as u32,
        engine,
        ..Config::default()
    };
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
fn split_gpus(job: &TrainJob<'_>, rl: &RlJob, l: Layout) -> Option<u32> {
    let serve = serve_job(job.model, rl, Engine::Vllm);
    let mp = l.tp.max(1) * l.pp.max(1);
    let fitting: Vec<(u32, f64, f64)> = [1u32, 2, 4, 8]
        .into_iter()
        .filter(|t| *t < l.gpus() && job.model.heads % t == 0 && l.dp > t.div_ceil(mp))
        .filter_map(|t| {
            let kv = serve.kv_per_seq_per_gpu(Plan::tp_pp(t, 1), rl.seq()).max(1.0);
            let room = SERVER_SHARE * rl.gpu_bytes
                - ENGINE_OVERHEAD_BYTES
                - engine_weights(job.model) / f64::from(t);
            let seqs = sequences_per_step(job, rl, Layout { dp: l.dp - t.div_ceil(mp), ..l });
            (room >= kv).then_some((t, room / kv, seqs))
        })
        .collect();
    fitting.iter().find(|(_, holds, seqs)| holds >= seqs).or(fitting.last()).map(|(t, ..)| *t)
}

/// Memory beside the policy per GPU under layout `l` (module docs). The
/// generation engine's share is known once the GPU is (`gpu_bytes`);
/// a colocated engine that cannot hold the weights takes the whole GPU.
fn extra_memory(job: &TrainJob<'_>, rl: &RlJob, l: Layout, dp_train: f64) -> RlMemory {
    let mp = f64::from(l.tp.max(1)) * f64::from(l.pp.max(1));
    let frozen =
        job.model.params_total * job.train_bytes / mp / if job.zero >= 3 { dp_train.max(1.0) } else { 1.0 };
    let reference = if rl.loads_reference(job.method) { frozen } else { 0.0 };
    // TRL's PPO trains the value model whole beside the policy (its
    // optimizer covers `PolicyAndValueWrapper(policy, value_model)`,
    // ppo_trainer.py:492; PEFT wraps the policy only).
    let (reward, critic) = if rl.kind == Rl::Ppo {
        let full = TrainJob { method: Method::Full, rl: None, ..job.clone() }.policy_memory(
            dp_train,
            f64::from(l.tp),
            f64::from(l.pp),
        );
        (frozen, full.weights + full.gradients + full.optimizer)
    } else {
        (0.0, 0.0)
    };
    let engine = match (rl.kind, rl.gen) {
        // An engine that cannot hold the weights in its share is counted as
        // the whole GPU: the job does not fit so (vLLM refuses to start).
        (Rl::Grpo, GenMode::Colocate) if rl.gpu_bytes > 0.0 => {
            match engine_tp(job, rl, rl.vllm_share, l.gpus()) {
                Some(_) => rl.vllm_share * rl.gpu_bytes,
                None => rl.gpu_bytes,
            }
        }
        _ => 0.0,
    };
    RlMemory { reference, reward, critic, engine }
}

/// One step under layout `l` in `mode` (`None`: it cannot run so, as a
/// split on one GPU, or an engine that cannot hold the weights).
/// `train_tps` gives the training clock's tokens/s on a layout.
fn step(
    job: &TrainJob<'_>,
    rl: &RlJob,
    gpu: &Gpu,
    l: Layout,
    mode: GenMode,
    train_tps: &dyn Fn(Layout) -> f64,
    link: f64,
) -> Option<RlStep> {
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
    // The update and the scoring run over what was generated: the prompt
    // and the mean completion (module docs of `estimate::rl`).
    let tokens = sequences * rl.mean_seq();
    let steps = (rl.sequences() / sequences.max(1.0)).ceil().max(1.0);
    let tps = train_tps(train);
    if tps <= 0.0 {
        return None;
    }
    let ppo = if rl.kind == Rl::Ppo { PPO_EPOCHS * 2.0 } else { 1.0 };
    let update_s = tokens / tps * ppo;
    // Forward passes over the step's tokens without a backward: PPO
    // reference, reward and value; DPO the reference (with the adapter
    // disabled under LoRA: a forward all the same); GRPO the policy's
    // log-probabilities of what vLLM sampled (TRL computes them in a
    // forward of its own whenever vLLM generates: `vllm_importance_sampling_correction`,
    // default True, grpo_config.py:915, grpo_trainer.py:2562-2574) and
    // the reference's where beta > 0.
    let passes = match rl.kind {
        Rl::Grpo if rl.scores_reference() => 2.0,
        Rl::Grpo => 1.0,
        Rl::Ppo => 3.0,
        Rl::Dpo => 1.0,
    };
    let flops = precision::tensor_flops(gpu, precision::Compute::Bf16).max(1.0) * mfu(gpu, Method::Full);
    let scoring_s =
        passes * tokens * arch::linear_flops_per_token(job.model) / flops / f64::from(train.gpus().max(1));
    let generation_s =
        if rl.generates() { generation(job, &rl, gpu, sequences, gen_gpus, gen_tp, l.gpus()) } else { 0.0 };
    // The weights go to vLLM after every step (grpo_trainer.py:1792):
    // in-process copies when colocated (read and write at the memory's
    // bandwidth), a broadcast from the trainer to the server over the
    // link when split; under ZeRO-3 the shards are gathered first
    // (vllm_generation.py:460).
    let bytes = engine_weights(job.model);
    let sync_s = match (rl.kind, mode) {
        (Rl::Grpo, GenMode::Colocate) => {
            2.0 * bytes / f64::from(gen_tp) / gpu.bandwidth_bytes_per_s().max(1.0)
        }
        (Rl::Grpo, GenMode::Split) => bytes / link.max(1.0),
        _ => 0.0,
    } + if rl.kind == Rl::Grpo && job.zero >= 3 && dp > 1 {
        bytes * f64::from(dp - 1) / f64::from(dp) / link.max(1.0)
    } else {
        0.0
    };
    Some(RlStep {
        generation_s,
        scoring_s,
        update_s,
        sync_s,
        sequences,
        steps,
        gen_gpus,
        gen_tp,
        train_gpus: train.gpus(),
    })
}

/// Seconds to generate `sequences` completions: vLLM engines of `tp` GPUs
/// (colocated: every group of the job's `gpus` generates its share;
/// split: the server's `gen_gpus`), in waves of what their paged cache
/// holds at the mean length, each a prefill and `mean_len` decode steps
/// of the whole wave; then the longest completion decodes alone from the
/// mean to `completion_len` (the step waits for it: a decode step reads
/// every weight whatever the batch, so the tail costs its length in
/// single-sequence steps). Where the mean is not given it is the cap and
/// there is no tail. PPO generates with transformers in chunks of 64 on
/// every GPU; `generate` keeps a finished sequence in its batch until the
/// chunk's longest ends (static batching), so every chunk runs to
/// `completion_len`.
fn generation(
    job: &TrainJob<'_>,
    rl: &RlJob,
    gpu: &Gpu,
    sequences: f64,
    gen_gpus: u32,
    tp: u32,
    gpus: u32,
) -> f64 {
    let ppo = rl.kind == Rl::Ppo;
    let serve = serve_job(job.model, rl, if ppo { Engine::Hf } else { Engine::Vllm });
    let plan = Plan::tp_pp(tp.max(1), 1);
    let (engines, share) = if gen_gpus > 0 {
        (1.0, SERVER_SHARE)
    } else {
        (f64::from((gpus / tp.max(1)).max(1)), rl.vllm_share)
    };
    let batch = (sequences / engines).ceil().max(1.0);
    let kv = serve.kv_per_seq_per_gpu(plan, rl.mean_seq()).max(1.0);
    let room =
        share * rl.gpu_bytes - ENGINE_OVERHEAD_BYTES - engine_weights(job.model) / f64::from(tp.max(1));
    let fits = if ppo { PPO_ROLLOUT_BATCH } else { (room / kv).floor().max(1.0) };
    let wave = batch.min(fits);
    let waves = (batch / wave).ceil();
    let prefill = serve.prefill_s(gpu, plan, rl.prompt_len, wave);
    let (mean, tail) =
        if ppo { (rl.completion_len, 0.0) } else { (rl.mean_len, rl.completion_len - rl.mean_len) };
    let decode = mean * serve.decode_step_s(gpu, plan, wave, rl.prompt_len + mean / 2.0).0;
    let straggler =
        tail * serve.decode_step_s(gpu, plan, 1.0, rl.prompt_len + (rl.mean_len + rl.completion_len) / 2.0).0;
    waves * (prefill + decode) + straggler
}
