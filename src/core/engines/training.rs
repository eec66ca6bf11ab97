//! The training launchers' rows (module docs in `engines`). The versions
//! are the ones whichgpu checked the launch's flags against
//! (`tests/data/export/<stack>.flags` names the source read); the memory
//! techniques each applies by default are modelled in `estimate::stack`.

use super::super::config::Trainer;
use super::fields::{cite, Launcher, TrainerRow};

/// The rows, in `Trainer::ALL`'s order.
pub static TRAINERS: [&TrainerRow; 8] =
    [&HF, &TORCHTUNE, &UNSLOTH, &AXOLOTL, &DEEPSPEED, &MEGATRON, &TORCHTITAN, &TRL];

/// The first line of an own launch's setup: `static/support.csv` has rows for serving engines and
/// transformers only.
const CHECKED: &str = "# the version whichgpu checked its flags against (static/support.csv has no row)";
const STACK: &str = "estimate/stack.rs";

pub static HF: TrainerRow = TrainerRow {
    trainer: Trainer::Hf,
    name: "Hugging Face Trainer (transformers + accelerate)",
    launcher: Launcher::Accelerate,
    version: None,
    setup: &[],
    workdir: None,
    memory_terms: STACK,
};

pub static TRL: TrainerRow = TrainerRow {
    trainer: Trainer::Trl,
    name: "TRL (transformers + accelerate)",
    launcher: Launcher::Accelerate,
    version: None,
    setup: &[],
    workdir: None,
    memory_terms: "estimate/stack.rs, estimate/rl.rs",
};

pub static DEEPSPEED: TrainerRow = TrainerRow {
    trainer: Trainer::Deepspeed,
    name: "DeepSpeed (transformers + accelerate; its pipeline engine with pipeline stages)",
    launcher: Launcher::Accelerate,
    version: None,
    setup: &[],
    workdir: None,
    memory_terms: STACK,
};

pub static MEGATRON: TrainerRow = TrainerRow {
    trainer: Trainer::Megatron,
    name: "Megatron-LM",
    launcher: Launcher::Own,
    version: Some(cite(
        "d98e8a64 (main, 2026-08-22)",
        "tests/data/export/megatron.flags: \
        NVIDIA/Megatron-LM@d98e8a64ddf34856e74b24714e3bedb2f5a39553",
    )),
    setup: &[
        CHECKED,
        "# in NVIDIA's PyTorch container (Transformer Engine, Apex)",
        "git clone https://github.com/NVIDIA/Megatron-LM && git -C Megatron-LM checkout \
            d98e8a64ddf34856e74b24714e3bedb2f5a39553",
        "pip install -e ./Megatron-LM",
    ],
    workdir: Some("Megatron-LM"),
    memory_terms: STACK,
};

pub static TORCHTITAN: TrainerRow = TrainerRow {
    trainer: Trainer::Torchtitan,
    name: "torchtitan",
    launcher: Launcher::Own,
    version: Some(cite(
        "v0.2.2",
        "tests/data/export/torchtitan.flags: pytorch/torchtitan@v0.2.2 = \
        73a0e6979dd10b6b1904098eb3c8f62c18ab87ce",
    )),
    setup: &[
        CHECKED,
        "git clone --branch {v} https://github.com/pytorch/torchtitan",
        "pip install -e \
        ./torchtitan",
    ],
    workdir: Some("torchtitan"),
    memory_terms: STACK,
};

pub static TORCHTUNE: TrainerRow = TrainerRow {
    trainer: Trainer::Torchtune,
    name: "torchtune",
    launcher: Launcher::Own,
    version: Some(cite(
        "0.6.1",
        "tests/data/export/torchtune.flags: pytorch/torchtune@v0.6.1-rc3 = \
            a6290a5b40758f13bca61c386bc8756a49ef417e (version.txt 0.6.1)",
    )),
    setup: &[CHECKED, "pip install torchao \"torchtune=={v}\""],
    workdir: None,
    memory_terms: STACK,
};

pub static AXOLOTL: TrainerRow = TrainerRow {
    trainer: Trainer::Axolotl,
    name: "Axolotl",
    launcher: Launcher::Own,
    version: Some(cite("0.18.0", "tests/data/export/axolotl.flags: axolotl-ai-cloud/axolotl@v0.18.0")),
    setup: &[CHECKED, "pip install \"axolotl[deepspeed]=={v}\"", "axolotl fetch deepspeed_configs"],
    workdir: None,
    memory_terms: STACK,
};

pub static UNSLOTH: TrainerRow = TrainerRow {
    trainer: Trainer::Unsloth,
    name: "Unsloth",
    launcher: Launcher::Own,
    version: Some(cite(
        "(unpinned)",
        "tests/data/export/unsloth.flags: flags read at unslothai/unsloth@c98312f229; no release pinned",
    )),
    setup: &["pip install unsloth  # unpinned: static/support.csv has no row"],
    workdir: None,
    memory_terms: STACK,
};
