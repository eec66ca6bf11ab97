//! `accelerate launch` for the Hugging Face Trainer (`trainer=hf`), for
//! `trainer=deepspeed` (the same launcher with `--use_deepspeed`) and for
//! image-model fine-tuning with diffusers' training scripts. Flags:
//! `tests/data/export/accelerate.flags`.

use super::super::super::config::{Method, Task, Trainer};
use super::super::Launch;
use super::{accumulation, gc_word, Command};

/// How a training plan that splits layers runs outside Megatron-LM:
/// (FSDP2 × TP under full sharding, DeepSpeed AutoTP otherwise).
pub(super) fn splits(l: &Launch) -> (bool, bool) {
    let split = l.offer.tp > 1 && l.offer.pp <= 1 && l.cfg.trainer != Trainer::Megatron;
    let fsdp_tp = split && l.cfg.zero >= 3;
    (fsdp_tp, split && !fsdp_tp)
}

/// The launch runs under DeepSpeed: a ZeRO stage, or AutoTP's tensor parallelism.
pub fn uses_deepspeed(l: &Launch) -> bool {
    let (fsdp_tp, autotp) = splits(l);
    ((l.cfg.zero > 0 || autotp) && !fsdp_tp) || super::train_deepspeed::pipelined(l)
}

pub(super) fn train(l: &Launch, c: &mut Command) {
    let o = l.offer;
    let procs = o.gpus.max(1) * o.instances.max(1);
    let cfg = &l.cfg;
    c.note("train.py: your training script; accelerate has no flags for the values below, so give them to the script:");
    let gc = gc_word(cfg.gc);
    if l.media_training {
        let (w, h) = cfg.resolution();
        // Image-model fine-tuning runs a diffusers training script
        // (examples/dreambooth, examples/text_to_image) under the same launcher.
        c.note(format!(
            "(diffusers' training scripts, e.g. its examples/dreambooth): resolution {w}×{h}, micro-batch {} per GPU, gradient checkpointing {gc}",
            cfg.mb.max(1)
        ));
    } else {
        c.note(format!(
            "micro-batch {} per GPU, gradient accumulation {} steps, sequence length {}, gradient checkpointing {gc}",
            cfg.mb.max(1),
            accumulation(l),
            cfg.seq
        ));
    }
    if cfg.method != Method::Full && cfg.task == Task::Finetune {
        c.note(format!("{} with rank {}, targets={}", cfg.method, cfg.rank, cfg.targets));
    }
    // The layouts a stack can run (estimate::stack::parallelism): pipeline
    // stages only under Megatron-LM or DeepSpeed; tensor parallelism also
    // through DeepSpeed's AutoTP (ZeRO 0-2) or, fully sharded, accelerate's
    // FSDP2 × TP device mesh.
    let (fsdp_tp, autotp) = splits(l);
    if autotp {
        c.note(format!(
            "the plan splits each layer over {} GPUs: set \"tensor_parallel\": {{\"autotp_size\": {}}} in the DeepSpeed config (AutoTP training, DeepSpeed >= 0.16.4, ZeRO stage 0-2)",
            o.tp, o.tp
        ));
    } else if fsdp_tp {
        c.note(format!(
            "the plan shards every state over {} data-parallel ranks and splits each layer over {} GPUs: in train.py, Accelerator(parallelism_config=ParallelismConfig(dp_shard_size={}, tp_size={})) with FSDP2 (accelerate >= 1.10); DeepSpeed's AutoTP does not combine with ZeRO-3",
            o.dp, o.tp, o.dp, o.tp
        ));
    } else if o.tp > 1 || o.pp > 1 {
        c.note(format!(
            "the plan is tensor-parallel {} × pipeline {}: Megatron-LM's --tensor-model-parallel-size {} --pipeline-model-parallel-size {}; accelerate launch has no such flags",
            o.tp, o.pp, o.tp, o.pp
        ));
    }
    c.words(&["accelerate", "launch"]);
    c.flag("--num_processes", &procs);
    c.flag("--num_machines", &o.instances.max(1));
    if o.instances > 1 {
        c.note("SKYPILOT_NODE_RANK and HEAD_IP come from the SkyPilot task (or set them yourself)");
        c.flag("--machine_rank", &"$SKYPILOT_NODE_RANK");
        c.flag("--main_process_ip", &"$HEAD_IP");
        c.flag("--main_process_port", &29500);
    }
    match l.answer.weight_format.as_str() {
        "fp16" => c.flag("--mixed_precision", &"fp16"),
        "bf16" | "nf4" => c.flag("--mixed_precision", &"bf16"),
        _ => {}
    }
    if uses_deepspeed(l) {
        c.words(&["--use_deepspeed"]);
        c.flag("--zero_stage", &cfg.zero);
    } else if procs > 1 {
        c.words(&["--multi_gpu"]);
    }
    c.words(&["train.py"]);
}
