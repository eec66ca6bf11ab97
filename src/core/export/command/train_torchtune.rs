//! torchtune: `tune run [torchrun options] <recipe> --config … key=value…`
//! with the recipe chosen by method and device count and the plan's
//! batch, sequence, checkpointing, offload, precision and LoRA shape as
//! config overrides. Keys: `tests/data/export/torchtune.flags`
//! (pytorch/torchtune@v0.6.1-rc3 torchtune/_cli/run.py, recipes/*.py,
//! recipes/configs/llama3_1/*.yaml).

use super::super::super::config::{Checkpointing, Method, Targets, Task};
use super::super::launch::Launch;
use super::parts::{accumulation, processes, torchrun_flags, Command};

/// `key=value`, a torchtune config override.
fn set(c: &mut Command, key: &str, value: &dyn std::fmt::Display) {
    c.argv.push(format!("{key}={value}"));
}

/// Python's booleans, as the configs spell them.
fn py(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let single = processes(l) == 1;
    let adapter = cfg.method != Method::Full && cfg.task == Task::Finetune;
    let recipe = match (adapter, single) {
        (false, true) => "full_finetune_single_device",
        (false, false) => "full_finetune_distributed",
        (true, true) => "lora_finetune_single_device",
        (true, false) => "lora_finetune_distributed",
    };
    // Pre-training runs the full recipe.
    c.note("CONFIG: torchtune's config for the model and recipe (`tune ls`; QLoRA: a qlora_ model builder)");
    c.words(&["tune", "run"]);
    if !single {
        torchrun_flags(l, c, true);
    }
    c.words(&[recipe, "--config", "$CONFIG"]);
    set(c, "batch_size", &cfg.mb().max(1));
    set(c, "gradient_accumulation_steps", &accumulation(l));
    set(c, "tokenizer.max_seq_len", &cfg.seq);
    if cfg.gc == Checkpointing::Selective {
        c.no_flag(&"op-level selective checkpointing (full instead)");
    }
    let gc = cfg.gc != Checkpointing::None;
    set(c, "enable_activation_checkpointing", &py(gc));
    // Offloading needs checkpointing (the recipes raise otherwise).
    set(c, "enable_activation_offloading", &py(gc && cfg.act_offload.unwrap_or(false)));
    let w = l.answer.weight_format.as_str();
    if !matches!(w, "fp32" | "bf16" | "nf4") {
        c.no_flag(&w);
    }
    set(c, "dtype", &if w == "fp32" { "fp32" } else { "bf16" });
    if adapter {
        set(c, "model.lora_rank", &cfg.rank);
        c.argv.push("'model.lora_attn_modules=[q_proj,k_proj,v_proj,output_proj]'".to_string());
        set(c, "model.apply_lora_to_mlp", &py(cfg.targets != Targets::Attn));
    }
    if single && !adapter {
        // The single-GPU full recipe steps inside the backward pass, as
        // the estimator assumes (estimate/stack.rs).
        set(c, "optimizer_in_bwd", &"True");
    }
    // FSDP2 shards fully by default; zero=2 keeps the parameters gathered
    // after the forward (SHARD_GRAD_OP, recipes/*_distributed.py).
    if !single && cfg.zero_stage() == 2 {
        set(c, "fsdp_reshard_after_forward", &"False");
    }
    if !single && cfg.param_offload {
        set(c, "fsdp_cpu_offload", &"True");
    }
}
