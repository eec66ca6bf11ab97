//! Axolotl: `axolotl train config.yml` with the plan's adapter, batch,
//! sequence, precision, checkpointing and sharding as its CLI overrides
//! of config keys, launched by torchrun over several GPUs. Flags:
//! `tests/data/export/axolotl.flags` (axolotl-ai-cloud/axolotl@v0.18.0
//! src/axolotl/cli/config_options.py, docs/cli.qmd, docs/multi-node.qmd,
//! docs/nd_parallelism.qmd, deepspeed_configs/).

use super::super::super::config::{Checkpointing, Method, Targets, Task};
use super::super::launch::Launch;
use super::parts::{accumulation, processes, torchrun_flags, Command};
use super::train_accelerate::splits;

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let o = l.offer;
    c.note("config.yml: your Axolotl config for the model (base_model, datasets)");
    c.words(&["axolotl", "train", "config.yml"]);
    if cfg.task == Task::Finetune && cfg.method != Method::Full {
        c.flag("--adapter", &cfg.method);
        if cfg.method == Method::Qlora {
            c.words(&["--load-in-4bit"]);
        }
        c.flag("--lora-r", &cfg.rank);
        if cfg.targets == Targets::Attn {
            c.note("config.yml: lora_target_modules: [q_proj, k_proj, v_proj, o_proj]");
        } else {
            c.words(&["--lora-target-linear"]);
        }
    }
    c.flag("--micro-batch-size", &cfg.mb().max(1));
    c.flag("--gradient-accumulation-steps", &accumulation(l));
    c.flag("--sequence-len", &cfg.seq);
    match l.answer.weight_format.as_str() {
        "fp16" => c.words(&["--fp16"]),
        "bf16" | "nf4" if !l.bf16 => c.words(&["--fp16"]),
        "bf16" | "nf4" => c.words(&["--bf16", "true"]),
        _ => {}
    }
    if cfg.gc == Checkpointing::Selective {
        c.no_flag(&"op-level selective checkpointing (full instead)");
    }
    c.words(&["--gradient-checkpointing", if cfg.gc == Checkpointing::None { "false" } else { "true" }]);
    if cfg.act_offload == Some(true) {
        c.words(&["--activation-offloading", "true"]);
    }
    // The same splits accelerate runs (estimate::stack::parallelism):
    // FSDP2 × TP under full sharding, DeepSpeed AutoTP below it.
    let (fsdp_tp, autotp) = splits(l);
    if fsdp_tp {
        c.note(format!(
            "config.yml: fsdp_config: {{offload_params: {}, reshard_after_forward: true}}",
            cfg.param_offload
        ));
        c.words(&["--fsdp-version", "2"]);
        c.flag("--dp-shard-size", &o.dp);
    }
    if fsdp_tp || autotp {
        c.flag("--tensor-parallel-size", &o.tp);
    }
    if !fsdp_tp {
        match cfg.zero_stage() {
            0 if autotp => c.note(
                "--deepspeed: a config with zero_optimization stage 0 (tensor parallelism \
                runs through DeepSpeed)",
            ),
            0 => {}
            3 if cfg.param_offload => {
                c.flag("--deepspeed", &"deepspeed_configs/zero3_bf16_cpuoffload_params.json")
            }
            z => c.flag("--deepspeed", &format!("deepspeed_configs/zero{}.json", z.min(3))),
        }
    }
    if processes(l) > 1 {
        c.words(&["--launcher", "torchrun", "--"]);
        torchrun_flags(l, c, true);
    }
}
