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

mod serve;
mod spec;
mod train_accelerate;
mod train_axolotl;
mod train_deepspeed;
mod train_megatron;

mod train_torchtitan;
mod train_torchtune;
mod train_unsloth;

pub use train_accelerate::uses_deepspeed;

use super::super::config::{Checkpointing, Task, Trainer};
use super::super::engines::{self, Launcher};
use super::super::estimate::train::Layout;
use super::super::estimate::train_step;
use super::{base_port, engine_name, Launch};

/// One copy's command: comment lines, then the program and its arguments
/// (`argv` empty when there is no command to run).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Command {
    pub notes: Vec<String>,
    pub argv: Vec<String>,
}

impl Command {
    /// Comment lines, then the command on one line.
    pub fn render(&self) -> String {
        let mut out: String = self.notes.iter().map(|n| format!("# {n}\n")).collect();
        if !self.argv.is_empty() {
            out.push_str(&self.argv.join(" "));
            out.push('\n');
        }
        out
    }

    /// A flag and its value (not generic: one copy of the code in the Wasm).
    pub(super) fn flag(&mut self, name: &str, value: &dyn std::fmt::Display) {
        self.argv.push(name.to_string());
        self.argv.push(value.to_string());
    }

    /// A value the tool has no flag for, said in a comment line.
    pub(super) fn no_flag(&mut self, what: &dyn std::fmt::Display) {
        self.notes.push(format!("no flag for {what}: not set by this command"));
    }

    pub(super) fn words(&mut self, words: &[&str]) {
        self.argv.extend(words.iter().map(|w| (*w).to_string()));
    }

    pub(super) fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }
}

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
    c.note(format!("{name}{sep}{version}{with} — {} on {} × {}{each}", l.answer.model_name, l.offer.gpus, l.offer.gpu));
    match l.cfg.task {
        Task::Serve => serve::serve(l, port, &mut c),
        Task::Finetune | Task::Pretrain => train(l, &mut c),
        Task::Generate => {
            c.note("no standard server command exists for image, video or audio generation: run the model's own pipeline");
            let n = l.seqs_per_replica();
            c.note(format!("(e.g. a diffusers script) with {n} item{} per batch, as the plan assumed", plural(n)));
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

/// Gradient checkpointing in words.
fn gc_word(gc: Checkpointing) -> &'static str {
    match gc {
        Checkpointing::None => "off",
        Checkpointing::Selective => "selective",
        Checkpointing::Full => "full",
    }
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

/// The plan's training layout and its micro-batches per optimizer step
/// (`train_step::micro_batches`: 4·pp under pipelining, else 1, or as many
/// as fill the global batch, `gbs`).
fn layout(l: &Launch) -> (Layout, u32) {
    let o = l.offer;
    let lay = Layout { dp: o.dp.max(1), tp: o.tp.max(1), pp: o.pp.max(1) };
    let m = train_step::micro_batches(lay, f64::from(l.cfg.mb().max(1)), l.cfg.global_batch().map(f64::from));
    (lay, whole(m))
}

/// Gradient accumulation steps of a launch without pipeline stages: the
/// micro-batches per optimizer step.
fn accumulation(l: &Launch) -> u32 {
    let (lay, m) = layout(l);
    let pipeline = whole(lay.micro_batches());
    (m / pipeline.max(1)).max(1)
}

fn whole(m: f64) -> u32 {
    if m.is_finite() && m >= 1.0 {
        m.min(1e6) as u32
    } else {
        1
    }
}

/// Processes of the whole job: one per GPU.
fn processes(l: &Launch) -> u32 {
    l.offer.gpus.max(1).saturating_mul(l.offer.instances.max(1))
}

/// torchrun's own flags: processes per node, and across instances either
/// a fixed rank and master (`--node_rank`, `--master_addr`) or c10d
/// rendezvous at the head (torchtune and Axolotl's multi-node guides).
/// Source: docs.pytorch.org/docs/stable/elastic/run.html (read 2026-12-01).
fn torchrun_flags(l: &Launch, c: &mut Command, rendezvous: bool) {
    let o = l.offer;
    c.flag("--nproc_per_node", &o.gpus.max(1));
    if o.instances > 1 {
        c.note("SKYPILOT_NODE_RANK and HEAD_IP come from the SkyPilot task (or set them yourself)");
        c.flag("--nnodes", &o.instances);
        if rendezvous {
            c.flag("--rdzv_id", &"whichgpu");
            c.flag("--rdzv_backend", &"c10d");
            c.flag("--rdzv_endpoint", &"$HEAD_IP:29500");
        } else {
            c.flag("--node_rank", &"$SKYPILOT_NODE_RANK");
            c.flag("--master_addr", &"$HEAD_IP");
            c.flag("--master_port", &29500);
        }
    }
}

/// The English plural ending for a count: "1 item", "2 items".
pub fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
