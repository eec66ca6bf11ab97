//! Unsloth: a Python script of yours, run by `python` on one GPU and by
//! `torchrun` over several (data parallel: each rank loads its own model
//! copy on its own device, unslothai/unsloth@c98312f2
//! unsloth/models/loader.py "In multi-GPU (torchrun), each rank must load
//! the model on its own device"). Unsloth has no launch flags of its own:
//! the plan's values are said for the script. Flags:
//! `tests/data/export/unsloth.flags` (torchrun's).

use super::super::super::config::{Checkpointing, Method, Task};
use super::super::Launch;
use super::{processes, torchrun_flags, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let offload = cfg.act_offload.unwrap_or(cfg.gc != Checkpointing::None);
    let gc = match cfg.gc {
        Checkpointing::None => "False",
        _ if offload => "\"unsloth\"",
        _ => "True",
    };
    c.note("train.py: your Unsloth script (FastLanguageModel + TRL's SFTTrainer); give it the plan's values:");
    c.note(format!(
        "from_pretrained(max_seq_length={}, load_in_4bit={}, full_finetuning={}), use_gradient_checkpointing={gc}",
        cfg.seq,
        if cfg.method == Method::Qlora { "True" } else { "False" },
        if cfg.method == Method::Full || cfg.task == Task::Pretrain { "True" } else { "False" }
    ));
    if cfg.method != Method::Full && cfg.task == Task::Finetune {
        c.note(format!("get_peft_model(r={}, target_modules={})", cfg.rank, cfg.targets));
    }
    let precision = match l.answer.weight_format.as_str() {
        "fp16" => ", fp16=True",
        "bf16" | "nf4" => ", bf16=True",
        _ => "",
    };
    c.note(format!("SFTConfig(per_device_train_batch_size={}, gradient_accumulation_steps=1{precision})", cfg.mb.max(1)));
    if cfg.gc == Checkpointing::Selective {
        c.note("Unsloth checkpoints whole layers: full checkpointing, slower than the plan's selective");
    }
    if cfg.zero > 0 {
        c.note(format!("Unsloth runs one whole model copy per GPU: the plan's ZeRO-{} sharding has no Unsloth setting", cfg.zero));
    }
    if processes(l) > 1 {
        c.words(&["torchrun"]);
        torchrun_flags(l, c, false);
    } else {
        c.words(&["python"]);
    }
    c.words(&["train.py"]);
}
