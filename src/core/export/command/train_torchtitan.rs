//! torchtitan: `torchrun … -m torchtitan.train --job.config_file …` with
//! the plan's FSDP2 / tensor / pipeline degrees, batch, sequence,
//! activation checkpointing and precision as its `--section.option`
//! overrides. Flags: `tests/data/export/torchtitan.flags`
//! (pytorch/torchtitan@v0.2.2 torchtitan/config/job_config.py, run_train.sh).

use super::super::super::config::{Checkpointing, Method, Task};
use super::super::Launch;
use super::{layout, torchrun_flags, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let (lay, m) = layout(l);
    let mb = cfg.mb.max(1);
    c.note(format!(
        "CONFIG: a torchtitan TOML for {} (its checkout's torchtitan/models/*/train_configs/, e.g. llama3/train_configs/llama3_8b.toml); the flags below override it",
        l.answer.model_name
    ));
    if cfg.task == Task::Finetune {
        c.note("fine-tuning: point its [checkpoint] section at the pretrained weights");
        if cfg.method != Method::Full {
            c.note(format!("torchtitan v0.2.2 has no {}: this command trains every weight, unlike the plan's rank-{} adapters", cfg.method, cfg.rank));
        }
    }
    c.words(&["torchrun"]);
    torchrun_flags(l, c, false);
    c.flag("-m", "torchtitan.train");
    c.flag("--job.config_file", "$CONFIG");
    // FSDP2 shards every state (ZeRO-3); without ZeRO the data-parallel
    // ranks replicate (DDP).
    let (shard, replicate) = if cfg.zero >= 1 { (lay.dp, 1) } else { (1, lay.dp) };
    c.flag("--parallelism.data_parallel_shard_degree", shard);
    c.flag("--parallelism.data_parallel_replicate_degree", replicate);
    if (cfg.zero == 1 || cfg.zero == 2) && shard > 1 {
        c.note(format!(
            "torchtitan has no ZeRO-{}: FSDP2 without resharding after forward keeps the gathered parameters from forward to backward, its closest",
            cfg.zero
        ));
        c.flag("--parallelism.fsdp_reshard_after_forward", "never");
    }
    c.flag("--parallelism.tensor_parallel_degree", lay.tp);
    c.flag("--parallelism.pipeline_parallel_degree", lay.pp);
    if lay.pp > 1 {
        // A data-parallel rank's batch runs as m micro-batches through the stages.
        c.flag("--parallelism.pipeline_parallel_microbatch_size", mb);
    }
    c.flag("--training.local_batch_size", u64::from(mb) * u64::from(m));
    c.flag("--training.seq_len", cfg.seq);
    match cfg.gc {
        Checkpointing::Full => c.flag("--activation_checkpoint.mode", "full"),
        Checkpointing::None => c.flag("--activation_checkpoint.mode", "none"),
        // The op-level policy the estimator models (estimate/stack.rs).
        Checkpointing::Selective => {
            c.flag("--activation_checkpoint.mode", "selective");
            c.flag("--activation_checkpoint.selective_ac_option", "op");
        }
    }
    match l.answer.weight_format.as_str() {
        "fp32" => c.flag("--training.mixed_precision_param", "float32"),
        "bf16" | "nf4" => c.flag("--training.mixed_precision_param", "bfloat16"),
        other => {
            c.note(format!("torchtitan computes in bf16 or fp32, not {other}: bf16 here (FP8 linears: its float8 model converter)"));
            c.flag("--training.mixed_precision_param", "bfloat16");
        }
    }
    if cfg.param_offload {
        c.words(&["--training.enable_cpu_offload"]);
    }
    // The estimator counts torchtitan's compiled loss (estimate/stack.rs).
    c.words(&["--compile.enable"]);
    if cfg.act_offload == Some(true) {
        c.note("the plan offloads activations: torchtitan v0.2.2 has no activation offload option");
    }
}
