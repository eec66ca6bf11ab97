//! The pieces every command shares: the command line itself ([`Command`]),
//! the plan's training layout and accumulation, process counts and
//! torchrun's flags.

use super::super::super::config::Checkpointing;
use super::super::super::estimate::train::Layout;
use super::super::super::estimate::train_step;
use super::super::launch::Launch;

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
    pub fn flag(&mut self, name: &str, value: &dyn std::fmt::Display) {
        self.argv.push(name.to_string());
        self.argv.push(value.to_string());
    }

    /// A value the tool has no flag for, said in a comment line.
    pub fn no_flag(&mut self, what: &dyn std::fmt::Display) {
        self.notes.push(format!("no flag for {what}: not set by this command"));
    }

    pub fn words(&mut self, words: &[&str]) {
        self.argv.extend(words.iter().map(|w| (*w).to_string()));
    }

    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }
}

/// Gradient checkpointing in words.
pub(super) fn gc_word(gc: Checkpointing) -> &'static str {
    match gc {
        Checkpointing::None => "off",
        Checkpointing::Selective => "selective",
        Checkpointing::Full => "full",
    }
}

/// The plan's training layout and its micro-batches per optimizer step
/// (`train_step::micro_batches`: 4·pp under pipelining, else 1, or as many
/// as fill the global batch, `gbs`).
pub(super) fn layout(l: &Launch) -> (Layout, u32) {
    let o = l.offer;
    let lay = Layout { dp: o.dp.max(1), tp: o.tp.max(1), pp: o.pp.max(1) };
    let m = train_step::micro_batches(lay, f64::from(l.cfg.mb().max(1)), l.cfg.global_batch().map(f64::from));
    (lay, whole(m))
}

/// Gradient accumulation steps of a launch without pipeline stages: the
/// micro-batches per optimizer step.
pub(super) fn accumulation(l: &Launch) -> u32 {
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
pub(super) fn processes(l: &Launch) -> u32 {
    l.offer.gpus.max(1).saturating_mul(l.offer.instances.max(1))
}

/// torchrun's own flags: processes per node, and across instances either
/// a fixed rank and master (`--node_rank`, `--master_addr`) or c10d
/// rendezvous at the head (torchtune and Axolotl's multi-node guides).
/// Source: docs.pytorch.org/docs/stable/elastic/run.html (read 2026-12-01).
pub(super) fn torchrun_flags(l: &Launch, c: &mut Command, rendezvous: bool) {
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
