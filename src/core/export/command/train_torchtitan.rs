//! torchtitan: `torchrun … -m torchtitan.train --job.config_file …` with
//! the plan's FSDP2 / tensor / pipeline degrees, batch, sequence,
//! activation checkpointing and precision as its `--section.option`
//! overrides. Flags: `tests/data/export/torchtitan.flags`
//! (pytorch/torchtitan@v0.2.2 torchtitan/config/job_config.py, run_train.sh).

use super::super::super::config::{Checkpointing, Method, Task};
use super::super::launch::Launch;
use super::parts::{accumulation, layout, torchrun_flags, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let (lay, m) = layout(l);
    let mb = cfg.mb().max(1);
    c.note(
        "CONFIG: a TOML for the model (torchtitan/models/*/train_configs/; its [checkpoint] loads weights \
        to fine-tune)",
    );
    if cfg.task == Task::Finetune && cfg.method != Method::Full {
        c.no_flag(&cfg.method);
    }
    c.words(&["torchrun"]);
    torchrun_flags(l, c, false);
    c.words(&["-m", "torchtitan.train", "--job.config_file", "$CONFIG"]);
    // FSDP2 shards every state (ZeRO-3); without ZeRO the data-parallel
    // ranks replicate (DDP).
    let (shard, replicate) = if cfg.zero_stage() >= 1 { (lay.dp, 1) } else { (1, lay.dp) };
    c.flag("--parallelism.data_parallel_shard_degree", &shard);
    c.flag("--parallelism.data_parallel_replicate_degree", &replicate);
    if (cfg.zero_stage() == 1 || cfg.zero_stage() == 2) && shard > 1 {
        // No ZeRO-1/2: FSDP2 keeping parameters gathered from forward to
        // backward is the closest.
        c.words(&["--parallelism.fsdp_reshard_after_forward", "never"]);
    }
    c.flag("--parallelism.tensor_parallel_degree", &lay.tp);
    c.flag("--parallelism.pipeline_parallel_degree", &lay.pp);
    if lay.pp > 1 {
        // A data-parallel rank's batch runs as m micro-batches through the stages.
        c.flag("--parallelism.pipeline_parallel_microbatch_size", &mb);
    }
    // A rank's batch runs as the pipeline's micro-batches; more of them
    // per optimizer step are gradient accumulation to the global batch.
    let rounds = accumulation(l);
    c.flag("--training.local_batch_size", &(u64::from(mb) * u64::from(m / rounds)));
    if rounds > 1 {
        c.flag("--training.global_batch_size", &(u64::from(mb) * u64::from(m) * u64::from(lay.dp)));
    }
    c.flag("--training.seq_len", &cfg.seq);
    c.flag("--activation_checkpoint.mode", &cfg.gc);
    if cfg.gc == Checkpointing::Selective {
        // The op-level policy the estimator models (estimate/stack.rs).
        c.words(&["--activation_checkpoint.selective_ac_option", "op"]);
    }
    let w = l.answer.weight_format.as_str();
    if !matches!(w, "fp32" | "bf16" | "nf4") {
        c.no_flag(&w);
    }
    c.words(&["--training.mixed_precision_param", if w == "fp32" { "float32" } else { "bfloat16" }]);
    if cfg.param_offload {
        c.words(&["--training.enable_cpu_offload"]);
    }
    // The estimator counts torchtitan's compiled loss (estimate/stack.rs).
    c.words(&["--compile.enable"]);
    if cfg.act_offload == Some(true) {
        c.no_flag(&"activation offload");
    }
}
