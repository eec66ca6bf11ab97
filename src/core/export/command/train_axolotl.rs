//! Axolotl: `axolotl train config.yml` with the plan's adapter, batch,
//! sequence, precision, checkpointing and sharding as its CLI overrides
//! of config keys, launched by torchrun over several GPUs. Flags:
//! `tests/data/export/axolotl.flags` (axolotl-ai-cloud/axolotl@v0.18.0
//! src/axolotl/cli/config_options.py, docs/cli.qmd, docs/multi-node.qmd,
//! docs/nd_parallelism.qmd, deepspeed_configs/).

use super::super::super::config::{Checkpointing, Method, Targets, Task};
use super::super::Launch;
use super::train_accelerate::splits;
use super::{processes, torchrun_flags, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let o = l.offer;
    c.note(format!("config.yml: your Axolotl config (base_model: the repository of {}, datasets); the flags below set the plan's keys", l.answer.model_name));
    c.words(&["axolotl", "train", "config.yml"]);
    let adapter = cfg.task == Task::Finetune && cfg.method != Method::Full;
    if adapter {
        c.flag("--adapter", cfg.method);
        if cfg.method == Method::Qlora {
            c.words(&["--load-in-4bit"]);
        }
        c.flag("--lora-r", cfg.rank);
        if cfg.targets == Targets::Attn {
            c.note("lora_target_modules: [q_proj, k_proj, v_proj, o_proj] in config.yml (the plan adapts attention only)");
        } else {
            c.words(&["--lora-target-linear"]);
        }
    }
    c.flag("--micro-batch-size", cfg.mb.max(1));
    c.flag("--gradient-accumulation-steps", 1);
    c.flag("--sequence-len", cfg.seq);
    match l.answer.weight_format.as_str() {
        "fp16" => c.words(&["--fp16"]),
        "bf16" | "nf4" => c.flag("--bf16", "true"),
        _ => {}
    }
    if cfg.gc == Checkpointing::Selective {
        c.note("Axolotl checkpoints whole layers (transformers' gradient checkpointing): full checkpointing, slower than the plan's selective");
    }
    c.flag("--gradient-checkpointing", if cfg.gc == Checkpointing::None { "false" } else { "true" });
    if cfg.act_offload == Some(true) {
        c.flag("--activation-offloading", "true");
    }
    // The same splits accelerate runs (estimate::stack::parallelism):
    // FSDP2 × TP under full sharding, DeepSpeed AutoTP below it.
    let (fsdp_tp, autotp) = splits(l);
    if fsdp_tp {
        c.note(format!(
            "fsdp_config: {{offload_params: {}, reshard_after_forward: true, auto_wrap_policy: TRANSFORMER_BASED_WRAP}} in config.yml",
            cfg.param_offload
        ));
        c.flag("--fsdp-version", 2);
        c.flag("--dp-shard-size", o.dp);
        c.flag("--tensor-parallel-size", o.tp);
    } else {
        if autotp {
            c.flag("--tensor-parallel-size", o.tp);
        }
        match cfg.zero {
            0 if autotp => c.note("tensor parallelism runs through DeepSpeed: give --deepspeed a config with zero_optimization stage 0"),
            0 => {}
            3 if cfg.param_offload => c.flag("--deepspeed", "deepspeed_configs/zero3_bf16_cpuoffload_params.json"),
            z => c.flag("--deepspeed", format!("deepspeed_configs/zero{}.json", z.min(3))),
        }
    }
    if processes(l) > 1 {
        c.flag("--launcher", "torchrun");
        c.words(&["--"]);
        torchrun_flags(l, c, true);
    }
}
