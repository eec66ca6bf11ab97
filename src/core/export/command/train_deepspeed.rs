//! DeepSpeed's pipeline engine: a plan with pipeline stages under
//! `trainer=deepspeed` runs `deepspeed.pipe.PipelineModule` through
//! `deepspeed.initialize` and `engine.train_batch()`
//! (deepspeedai/DeepSpeed@edaa7221 docs/_tutorials/pipeline.md), which
//! accelerate's DeepSpeed integration does not drive; the launch is
//! DeepSpeed's own launcher (`deepspeed/launcher/runner.py`: --num_gpus,
//! --num_nodes, --node_rank, --master_addr, --master_port, --no_ssh) and
//! the script's `--deepspeed --deepspeed_config` (`deepspeed/__init__.py`
//! `_add_core_arguments`). Flags: `tests/data/export/deepspeed.flags`.

use super::super::launch::Launch;
use super::parts::{gc_word, layout, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let o = l.offer;
    let cfg = &l.cfg;
    // The estimator's schedule: 4 micro-batches per stage, or as many as
    // fill the global batch (`gbs`).
    let accumulation = layout(l).1;
    c.note(format!(
        "train.py: PipelineModule(layers=…, num_stages={}) from deepspeed.pipe, deepspeed.initialize(…), \
            engine.train_batch(); sequence length {}, gradient checkpointing {}",
        o.pp,
        cfg.seq,
        gc_word(cfg.gc)
    ));
    let precision = if l.answer.weight_format == "fp16" || !l.bf16 { "fp16" } else { "bf16" };
    c.note(format!(
        "ds_config.json: {{\"train_micro_batch_size_per_gpu\": {}, \"gradient_accumulation_steps\": \
            {accumulation}, \"{precision}\": {{\"enabled\": true}}, \"zero_optimization\": {{\"stage\": \
                {}}}}} (the pipeline engine takes ZeRO 0-1)",
        cfg.mb().max(1),
        cfg.zero_stage().min(1)
    ));
    c.words(&["deepspeed"]);
    c.flag("--num_gpus", &o.gpus.max(1));
    if o.instances > 1 {
        c.note(
            "SKYPILOT_NODE_RANK and HEAD_IP come from the SkyPilot task (or set them yourself); --no_ssh \
            starts each node's share on that node",
        );
        c.flag("--num_nodes", &o.instances);
        c.flag("--node_rank", &"$SKYPILOT_NODE_RANK");
        c.flag("--master_addr", &"$HEAD_IP");
        c.flag("--master_port", &29500);
        c.words(&["--no_ssh"]);
    }
    c.words(&["train.py", "--deepspeed"]);
    c.flag("--deepspeed_config", &"ds_config.json");
}

/// The plan runs DeepSpeed's pipeline engine.
pub fn pipelined(l: &Launch) -> bool {
    l.cfg.trainer == super::super::super::config::Trainer::Deepspeed && l.offer.pp > 1 && !l.media_training
}
