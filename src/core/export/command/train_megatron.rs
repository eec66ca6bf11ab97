//! Megatron-LM: `torchrun … pretrain_gpt.py` with the plan's tensor and
//! pipeline sizes, batch, sequence, precision, recomputation and
//! optimizer sharding. Flags: `tests/data/export/megatron.flags`
//! (NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py and the
//! dataclasses it turns into flags; examples/llama/train_llama3_8b_h100_fp8.sh).

use super::super::super::config::{Checkpointing, Method, Task};
use super::super::launch::Launch;
use super::parts::{layout, torchrun_flags, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let (lay, m) = layout(l);
    let mb = cfg.mb().max(1);
    c.note(
        "add the model's shape (--num-layers, --hidden-size, …), --data-path, --tokenizer-type (and \
        --load to fine-tune)",
    );
    if cfg.method != Method::Full && cfg.task == Task::Finetune {
        // pretrain_gpt.py trains every weight (PEFT lives in NVIDIA's Megatron Bridge).
        c.no_flag(&cfg.method);
    }
    c.words(&["torchrun"]);
    torchrun_flags(l, c, false);
    c.words(&["pretrain_gpt.py"]);
    if cfg.task == Task::Finetune {
        c.words(&["--finetune"]);
    }
    c.flag("--tensor-model-parallel-size", &lay.tp);
    c.flag("--pipeline-model-parallel-size", &lay.pp);
    // The estimator divides activations by tp: sequence parallelism
    // (estimate/train.rs, Korthikanti et al. 2022 Table 2).
    if lay.tp > 1 {
        c.words(&["--sequence-parallel"]);
    }
    c.flag("--micro-batch-size", &mb);
    // m micro-batches per step and data-parallel rank (the estimator's 1F1B schedule).
    c.flag("--global-batch-size", &(u64::from(mb) * u64::from(lay.dp) * u64::from(m)));
    c.flag("--seq-length", &cfg.seq);
    c.flag("--max-position-embeddings", &cfg.seq);
    match l.answer.weight_format.as_str() {
        "fp16" => c.words(&["--fp16"]),
        "bf16" | "nf4" if !l.bf16 => c.words(&["--fp16"]),
        "bf16" | "nf4" => c.words(&["--bf16"]),
        "fp8" => c.words(&["--bf16", "--fp8-format", "hybrid"]),
        other => c.no_flag(&other),
    }
    match cfg.gc {
        Checkpointing::Full => c.words(&[
            "--recompute-granularity",
            "full",
            "--recompute-method",
            "uniform",
            "--recompute-num-layers",
            "1",
        ]),
        // Megatron's selective recomputation: the attention core
        // (`--recompute-activations` sets granularity `selective`).
        Checkpointing::Selective => c.words(&["--recompute-activations"]),
        Checkpointing::None => {}
    }
    match cfg.zero_stage() {
        0 => {}
        // ZeRO-1: the distributed optimizer shards optimizer states and
        // fp32 main weights, not gradients ("6 + 12/d" bytes per parameter
        // for bf16 with fp32 gradients, NVIDIA/Megatron-LM@d98e8a64
        // docs/user-guide/features/dist_optimizer.md).
        1 => c.words(&["--use-distributed-optimizer"]),
        // ZeRO-2/3: Megatron-FSDP's gradient (and parameter) sharding,
        // which asks for its own checkpoint format (arguments.py).
        z => c.words(&[
            "--use-megatron-fsdp",
            "--data-parallel-sharding-strategy",
            if z >= 3 { "optim_grads_params" } else { "optim_grads" },
            "--ckpt-format",
            "fsdp_dtensor",
        ]),
    }
    if cfg.optim_offload {
        // arguments.py asserts the precision-aware optimizer with CPU offload.
        c.words(&["--optimizer-cpu-offload", "--use-precision-aware-optimizer"]);
    }
    if cfg.param_offload || cfg.act_offload == Some(true) {
        c.no_flag(&"offload");
    }
}
