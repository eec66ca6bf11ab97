//! torchtune: `tune run [torchrun options] <recipe> --config … key=value…`
//! with the recipe chosen by method and device count and the plan's
//! batch, sequence, checkpointing, offload, precision and LoRA shape as
//! config overrides. Keys: `tests/data/export/torchtune.flags`
//! (pytorch/torchtune@v0.6.1-rc3 torchtune/_cli/run.py, recipes/*.py,
//! recipes/configs/llama3_1/*.yaml).

use super::super::super::config::{Checkpointing, Method, Targets, Task};
use super::super::Launch;
use super::{processes, torchrun_flags, Command};

/// `key=value`, a torchtune config override.
fn set(c: &mut Command, key: &str, value: impl std::fmt::Display) {
    c.argv.push(format!("{key}={value}"));
}

fn yes(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let single = processes(l) == 1;
    let recipe = match (cfg.method == Method::Full || cfg.task == Task::Pretrain, single) {
        (true, true) => "full_finetune_single_device",
        (true, false) => "full_finetune_distributed",
        (false, true) => "lora_finetune_single_device",
        (false, false) => "lora_finetune_distributed",
    };
    let kind = match cfg.method {
        _ if cfg.task == Task::Pretrain => "full",
        Method::Full => "full",
        Method::Lora => "lora",
        Method::Qlora => "qlora",
    };
    c.note(format!(
        "CONFIG: torchtune's {kind} config for {} with this recipe (`tune ls` lists them, e.g. llama3_1/8B_{kind}{}); the values below override it",
        l.answer.model_name,
        if single { "_single_device" } else { "" }
    ));
    if cfg.task == Task::Pretrain {
        c.note("torchtune fine-tunes: pre-training runs its full fine-tuning recipe from the config's initial weights");
    }
    if cfg.method == Method::Qlora && cfg.task == Task::Finetune {
        c.note("QLoRA: a config whose model is a qlora_ builder (NF4 base weights)");
    }
    c.words(&["tune", "run"]);
    if !single {
        torchrun_flags(l, c, true);
    }
    c.words(&[recipe]);
    c.flag("--config", "$CONFIG");
    set(c, "batch_size", cfg.mb.max(1));
    set(c, "gradient_accumulation_steps", 1);
    set(c, "tokenizer.max_seq_len", cfg.seq);
    let gc = cfg.gc != Checkpointing::None;
    if cfg.gc == Checkpointing::Selective {
        c.note("torchtune's recipes have no op-level selective checkpointing (ac_mode is per layer): full checkpointing, slower than the plan");
    }
    set(c, "enable_activation_checkpointing", yes(gc));
    let offload = cfg.act_offload.unwrap_or(false);
    if offload && !gc {
        c.note("torchtune offloads activations only with checkpointing on: no offload here");
    }
    set(c, "enable_activation_offloading", yes(offload && gc));
    match l.answer.weight_format.as_str() {
        "fp32" => set(c, "dtype", "fp32"),
        "bf16" | "nf4" => set(c, "dtype", "bf16"),
        other => {
            c.note(format!("torchtune trains in bf16 or fp32 (no mixed precision, no {other} training): bf16 here"));
            set(c, "dtype", "bf16");
        }
    }
    if cfg.method != Method::Full && cfg.task == Task::Finetune {
        set(c, "model.lora_rank", cfg.rank);
        c.argv.push("'model.lora_attn_modules=[q_proj,k_proj,v_proj,output_proj]'".to_string());
        set(c, "model.apply_lora_to_mlp", yes(cfg.targets != Targets::Attn));
    }
    if single && cfg.method == Method::Full {
        // The single-GPU full recipe steps inside the backward pass, as
        // the estimator assumes (estimate/stack.rs).
        set(c, "optimizer_in_bwd", "True");
    }
    if !single {
        if cfg.param_offload {
            set(c, "fsdp_cpu_offload", "True");
        }
        if cfg.zero < 3 {
            c.note(format!("torchtune's distributed recipes shard every state with FSDP: the plan's ZeRO-{} keeps more per GPU than this run", cfg.zero));
        }
    }
}
