//! The engine command of one offer's plan: serving engines' own server
//! commands ([`serve`]) with the layout and limits the plan assumed; for
//! training, the launch of the stack `trainer` names, with the plan's
//! layout and job: `accelerate launch` for the Hugging Face Trainer and
//! DeepSpeed ([`train_accelerate`], also image-model fine-tuning),
//! Megatron-LM's `torchrun … pretrain_gpt.py` ([`train_megatron`]),
//! torchtitan's `torchrun -m torchtitan.train` ([`train_torchtitan`]),
//! torchtune's `tune run` ([`train_torchtune`]), Axolotl's `axolotl
//! train` ([`train_axolotl`]) and an Unsloth script ([`train_unsloth`]);
//! for image, video and audio generation a plain statement that no
//! standard server command exists. Every flag written here is in the flag
//! list stored for that engine or stack under `tests/data/export/` with
//! its source, and a test checks each command against it. A value the plan
//! assumes but the tool has no flag for becomes a comment line, never an
//! invented flag.

mod parts;
mod serve;
mod spec;
mod train_accelerate;
mod train_axolotl;
mod train_deepspeed;
mod train_megatron;

mod train_torchtitan;
mod train_torchtune;
mod train_unsloth;

pub use parts::{plural, Command};
pub use train_accelerate::uses_deepspeed;

use super::super::config::{Task, Trainer};
use super::super::engines::{self, Launcher};
use super::launch::{base_port, engine_name, Launch};

/// The command of one copy of the plan, listening on the engine's base port.
pub fn engine(l: &Launch) -> Command {
    engine_on(l, base_port(l.cfg.engine))
}

/// The command of one copy of the plan, listening on `port` (serving).
pub fn engine_on(l: &Launch, port: u32) -> Command {
    let mut c = Command::default();
    // The support matrix's version is transformers'; diffusers has no row.
    let (name, version) = match l.cfg.is_training().then(|| stack(l.cfg.trainer)).flatten() {
        _ if l.media_training => ("diffusers + accelerate", ""),
        _ if train_deepspeed::pipelined(l) => ("transformers", l.engine_version.as_str()),
        Some(s) => (s.name, s.version),
        None => (engine_name(l.cfg.task, l.cfg.engine), l.engine_version.as_str()),
    };
    let sep = if version.is_empty() { "" } else { " " };
    let with = if train_deepspeed::pipelined(l) { " + DeepSpeed's pipeline engine" } else { "" };
    // A training run over several instances: the header names them all.
    // So does a batch job spread over instances to meet its deadline.
    let spread = l.offer.instances > 1 && (l.cfg.is_training() || l.cfg.task == Task::Generate);
    let each = if spread { format!(" per instance, {} instances", l.offer.instances) } else { String::new() };
    c.note(format!(
        "{name}{sep}{version}{with} — {} on {} × {}{each}",
        l.answer.model_name, l.offer.gpus, l.offer.gpu
    ));
    match l.cfg.task {
        Task::Serve => serve::serve(l, port, &mut c),
        Task::Finetune | Task::Pretrain => train(l, &mut c),
        Task::Generate => {
            c.note(
                "no standard server command exists for image, video or audio generation: run the model's \
                own pipeline",
            );
            let n = l.seqs_per_replica();
            c.note(format!(
                "(e.g. a diffusers script) with {n} item{} per batch, as the plan assumed",
                plural(n)
            ));
        }
    }
    c
}

/// A training stack with a launch of its own: what it is called, the
/// version its flags were checked against (`tests/data/export/<stack>.flags`
/// names the source) and how the SkyPilot task installs it, from the
/// engine table's trainer row. `static/support.csv` has rows for serving
/// engines and transformers only, so these versions are the checked ones,
/// said as such.
pub struct Stack {
    pub name: &'static str,
    pub version: &'static str,
    /// Setup lines, run in the task's working directory.
    pub setup: Vec<String>,
    /// A directory the launch runs in (the stack's own checkout).
    pub workdir: Option<&'static str>,
}

/// The stack `trainer` launches with its own command (`None`: the
/// Hugging Face Trainer, TRL and DeepSpeed, launched by accelerate).
pub fn stack(trainer: Trainer) -> Option<Stack> {
    let row = engines::trainer(trainer);
    let version = row.version.filter(|_| row.launcher == Launcher::Own)?;
    Some(Stack { name: row.name, version: version.value, setup: row.setup_lines(), workdir: row.workdir })
}

fn train(l: &Launch, c: &mut Command) {
    if l.media_training {
        return train_accelerate::train(l, c);
    }
    match l.cfg.trainer {
        Trainer::Deepspeed if train_deepspeed::pipelined(l) => train_deepspeed::train(l, c),
        Trainer::Hf | Trainer::Trl | Trainer::Deepspeed => train_accelerate::train(l, c),
        Trainer::Megatron => train_megatron::train(l, c),
        Trainer::Torchtitan => train_torchtitan::train(l, c),
        Trainer::Torchtune => train_torchtune::train(l, c),
        Trainer::Axolotl => train_axolotl::train(l, c),
        Trainer::Unsloth => train_unsloth::train(l, c),
    }
}
