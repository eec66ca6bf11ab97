//! Unsloth: a Python script of yours, run by `python` on one GPU and by
//! `torchrun` over several (data parallel: each rank loads its own model
//! copy on its own device, unslothai/unsloth@c98312f2
//! unsloth/models/loader.py "In multi-GPU (torchrun), each rank must load
//! the model on its own device"). Unsloth has no launch flags of its own:
//! the plan's values are said for the script. Flags:
//! `tests/data/export/unsloth.flags` (torchrun's).

use super::super::super::config::{Checkpointing, Method, Task};
use super::super::launch::Launch;
use super::parts::{accumulation, processes, torchrun_flags, Command};

pub(super) fn train(l: &Launch, c: &mut Command) {
    let cfg = &l.cfg;
    let offload = cfg.act_offload.unwrap_or(cfg.gc != Checkpointing::None);
    let gc = match cfg.gc {
        Checkpointing::None => "False",
        _ if offload => "\"unsloth\"",
        _ => "True",
    };
    let full = cfg.method == Method::Full || cfg.task == Task::Pretrain;
    let lora = if full { String::new() } else { format!(", r={} on {}", cfg.rank, cfg.targets) };
    c.note(format!(
        "train.py (Unsloth): max_seq_length={}, load_in_4bit={}, full_finetuning={full}, \
            use_gradient_checkpointing={gc}{lora}, per_device_train_batch_size={}, \
                gradient_accumulation_steps={}, {}",
        cfg.seq,
        cfg.method == Method::Qlora,
        cfg.mb().max(1),
        accumulation(l),
        l.answer.weight_format
    ));
    if cfg.gc == Checkpointing::Selective {
        c.no_flag(&"op-level selective checkpointing (full instead)");
    }
    if cfg.zero_stage() > 0 {
        c.no_flag(&"ZeRO (one model copy per GPU)");
    }
    if processes(l) > 1 {
        c.words(&["torchrun"]);
        torchrun_flags(l, c, false);
    } else {
        c.words(&["python"]);
    }
    c.words(&["train.py"]);
}
