//! The engine table: one row per serving engine and per training launcher,
//! at the version the launch texts install, the one home of each engine's
//! facts (memory reservation, KV block size, prefill chunk, scheduler cap,
//! how it spreads a model, which parallel modes it runs and their flags,
//! context flag, how it launches kernels). Every fact carries its source
//! ([`Fact`]): the engine's docs page, a source file at a pinned commit, or
//! the issue that shows it. The planner, the memory model, the layout rules
//! (`estimate::engine_rules`, whose format rules this table points at), the
//! launch texts and the guidance read these rows; `docs/engines.md` is
//! generated from them (`whichgpu docs engines`).
//!
//! Which weight and KV formats run on which GPU architecture is the
//! support matrix's (`static/support.csv`, one dated source per row); a
//! row here names the version labels that matrix uses for its engine, and
//! `tests/it/engines.rs` checks that the two agree. The fitted efficiency
//! factors stay where the fit writes them (`estimate::engine`).
//!
//! Pattern: ripgrep's `ignore/src/default_types.rs`, one row per variant
//! and a test of the table's invariants.

mod serving;
mod training;

use super::config::{Engine, Spec, Trainer};

pub use serving::{LAUNCH_ROWS, ROWS};
pub use training::TRAINERS;

/// Where a fact comes from. The page (Wasm) never prints a source, so there
/// it holds nothing and the texts stay out of the download.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source(&'static str);
#[cfg(target_arch = "wasm32")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source;

impl Source {
    /// The citation text (empty on the page).
    pub fn text(self) -> &'static str {
        #[cfg(not(target_arch = "wasm32"))]
        return self.0;
        #[cfg(target_arch = "wasm32")]
        return "";
    }
}

/// A value with its source.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fact<T> {
    pub value: T,
    pub source: Source,
}

/// A fact and where it is shown.
pub const fn cite<T: Copy>(value: T, source: &'static str) -> Fact<T> {
    #[cfg(not(target_arch = "wasm32"))]
    return Fact { value, source: Source(source) };
    #[cfg(target_arch = "wasm32")]
    {
        let _ = source;
        Fact { value, source: Source }
    }
}

/// How an engine reserves GPU memory, as the plan assumes it and the
/// launch's flag ([`LaunchRow::memory_flag`]) sets it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reservation {
    /// Takes `share` of the memory the driver reports at start-up, whatever the job needs.
    Card { share: f64 },
    /// A static pool of `share` of the memory (weights and KV cache), activations beside it.
    Static { share: f64 },
    /// Gives the KV cache `share` of what is free after the weights.
    FreeForKv { share: f64 },
    /// Allocates exactly what it is given (no flag).
    Exact,
    /// PyTorch's caching allocator: `thresholds::ALLOCATOR_RESERVE` over the peak (no flag).
    Allocator,
}

impl Reservation {
    /// The engine gives its KV pool what is left after the weights (paged
    /// KV): a short margin serves fewer sequences instead of failing. The
    /// others size their cache up front for the batch asked.
    pub fn pages_kv(self) -> bool {
        self.fraction().is_some()
    }

    /// The share the engine's flag sets.
    pub fn fraction(self) -> Option<f64> {
        match self {
            Reservation::Card { share } | Reservation::Static { share } | Reservation::FreeForKv { share } => Some(share),
            Reservation::Exact | Reservation::Allocator => None,
        }
    }
}

/// How an engine spreads a model over a node's GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Tensor parallel (each layer cut over the group), pipeline stages across nodes.
    Tensor,
    /// Each GPU a run of layers, working one after another.
    Layers,
}

/// How an engine launches a decode step's kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernels {
    /// Replays each decode step as a captured CUDA graph.
    Graphs,
    /// Runs an engine compiled ahead of serving.
    Compiled,
    /// Eager PyTorch: one host launch per op.
    Eager,
}

/// The scheduler's cap on sequences in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeqCap {
    pub seqs: u32,
    /// The cap applies per data-parallel attention rank.
    pub per_dp_rank: bool,
}

/// Expert parallelism as an engine runs it (its flag: [`LaunchRow::expert_parallel_flag`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExpertParallel {
    /// The routed experts must divide over the group (else the remainder goes to the first ranks).
    pub experts_divide_group: bool,
}

/// Data-parallel attention as an engine runs it (its flag: [`LaunchRow::dp_attention_flag`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DpAttention {
    /// The dense FFN, shared experts and head are cut over the whole group
    /// (else within each rank's `tp` GPUs).
    pub dense_over_group: bool,
}

/// One serving engine's facts the planner reads, at the version the
/// launch texts install. Its launch facts (version, flags, packages,
/// images) are its [`LaunchRow`], written beside it: the two are one row
/// split so that the page's first answer, which reads this half, carries
/// none of the launch texts (the launch card's worker reads the other).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EngineRow {
    pub engine: Engine,
    pub reservation: Fact<Reservation>,
    /// The share of the driver-reported memory the plan may fill.
    pub usable_share: Fact<f64>,
    /// Per-GPU runtime memory outside the model (CUDA context, workspaces, graph pools), GiB.
    pub overhead_gib: Fact<f64>,
    /// KV-cache allocation granularity, tokens.
    pub kv_block_tokens: Fact<u32>,
    /// Tokens per prefill chunk (`None`: the whole prompt at once).
    pub prefill_chunk: Fact<Option<u32>>,
    pub max_seqs: Fact<SeqCap>,
    /// Shares a common prompt prefix's KV blocks between sequences by default.
    pub prefix_cache: Fact<bool>,
    pub split: Fact<Split>,
    /// Checks each sharded dimension against a format's block or group at
    /// load: the rules of `estimate::engine_rules` apply.
    pub shape_rules: Fact<bool>,
    pub expert_parallel: Option<Fact<ExpertParallel>>,
    pub dp_attention: Option<Fact<DpAttention>>,
    pub kernels: Fact<Kernels>,
    /// The speculative-decoding methods its pinned version runs (`spec=`).
    pub speculative: Fact<&'static [Spec]>,
    /// Loads GGUF files only (any other weight format needs a GGUF conversion).
    pub gguf_only: Fact<bool>,
}

/// One serving engine's launch facts (the other half of its row, [`EngineRow`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaunchRow {
    pub engine: Engine,
    /// The program, as messages name it.
    pub name: &'static str,
    /// The version the launch texts install, as the support matrix names it.
    pub version: Fact<&'static str>,
    /// Other version labels the support matrix uses for this engine (other platforms, newer formats).
    pub other_versions: &'static [&'static str],
    /// The pip package the SkyPilot task installs (`None`: built from source).
    pub package: Option<&'static str>,
    /// The release of the engine's container image where it differs from `version`.
    pub image_version: Option<Fact<&'static str>>,
    /// The vendor's ROCm image of this version (AMD Instinct).
    pub rocm_image: Option<Fact<&'static str>>,
    /// Tensor- and pipeline-parallel flags (`None`: the engine has none).
    pub parallel_flags: Option<(&'static str, &'static str)>,
    /// The flag that sets the context (tokens per request) the plan assumed.
    pub context_flag: Option<Fact<&'static str>>,
    /// The flag that caps sequences in flight.
    pub seqs_flag: Option<&'static str>,
    /// The port its server listens on by default.
    pub port: Fact<u32>,
    /// The flag that sets the reservation's share (sources in the reservation's fact).
    pub memory_flag: Option<&'static str>,
    /// The flag of expert parallelism (sources in `EngineRow::expert_parallel`).
    pub expert_parallel_flag: Option<&'static str>,
    /// The flag of data-parallel attention (sources in `EngineRow::dp_attention`).
    pub dp_attention_flag: Option<&'static str>,
}

/// The launch facts of `engine`.
pub fn launch(engine: Engine) -> &'static LaunchRow {
    match engine {
        Engine::Vllm => &serving::VLLM_LAUNCH,
        Engine::Sglang => &serving::SGLANG_LAUNCH,
        Engine::TrtLlm => &serving::TRT_LLM_LAUNCH,
        Engine::LlamaCpp => &serving::LLAMA_CPP_LAUNCH,
        Engine::Hf => &serving::HF_LAUNCH,
    }
}

/// The row of `engine`.
pub fn row(engine: Engine) -> &'static EngineRow {
    match engine {
        Engine::Vllm => &serving::VLLM,
        Engine::Sglang => &serving::SGLANG,
        Engine::TrtLlm => &serving::TRT_LLM,
        Engine::LlamaCpp => &serving::LLAMA_CPP,
        Engine::Hf => &serving::HF,
    }
}

/// How a training stack is launched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launcher {
    /// `accelerate launch` of the transformers Trainer (its version is the support matrix's `hf` row).
    Accelerate,
    /// The stack's own command.
    Own,
}

/// One training stack at the version its flags were checked against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainerRow {
    pub trainer: Trainer,
    pub name: &'static str,
    pub launcher: Launcher,
    /// The version the launch installs (`None`: transformers' from the
    /// support matrix; in parentheses: unpinned).
    pub version: Option<Fact<&'static str>>,
    /// Setup lines, `{v}` standing for the version.
    pub setup: &'static [&'static str],
    /// A directory the launch runs in (the stack's own checkout).
    pub workdir: Option<&'static str>,
    /// Where the memory techniques it applies by default are modelled.
    pub memory_terms: &'static str,
}

impl TrainerRow {
    /// The setup lines with the version written in.
    pub fn setup_lines(&self) -> Vec<String> {
        let v = self.version.map_or("", |f| f.value);
        // (A version with a date after it installs its first word.)
        let v = v.split_whitespace().next().unwrap_or(v);
        self.setup.iter().map(|l| l.replace("{v}", v)).collect()
    }
}

/// The row of `trainer`.
pub fn trainer(t: Trainer) -> &'static TrainerRow {
    match t {
        Trainer::Hf => &training::HF,
        Trainer::Trl => &training::TRL,
        Trainer::Deepspeed => &training::DEEPSPEED,
        Trainer::Megatron => &training::MEGATRON,
        Trainer::Torchtitan => &training::TORCHTITAN,
        Trainer::Torchtune => &training::TORCHTUNE,
        Trainer::Axolotl => &training::AXOLOTL,
        Trainer::Unsloth => &training::UNSLOTH,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every engine has exactly one row and `row` finds it.
    #[test]
    fn one_row_per_engine() {
        for e in Engine::ALL {
            assert_eq!(ROWS.iter().filter(|r| r.engine == *e).count(), 1, "{e}");
            assert_eq!(LAUNCH_ROWS.iter().filter(|r| r.engine == *e).count(), 1, "{e}");
            assert_eq!((row(*e).engine, launch(*e).engine), (*e, *e));
        }
        assert_eq!((ROWS.len(), LAUNCH_ROWS.len()), (Engine::ALL.len(), Engine::ALL.len()));
    }

    /// Every trainer has exactly one row and `trainer` finds it.
    #[test]
    fn one_row_per_trainer() {
        for t in Trainer::ALL {
            assert_eq!(TRAINERS.iter().filter(|r| r.trainer == *t).count(), 1, "{t}");
            assert_eq!(trainer(*t).trainer, *t);
        }
        assert_eq!(TRAINERS.len(), Trainer::ALL.len());
    }

    /// Shares are shares, sizes are positive, every fact has a source, and
    /// an engine with a flag for a mode runs it through the layout rules.
    #[test]
    fn the_rows_hold_sane_facts() {
        for r in ROWS {
            let e = r.engine;
            let l = launch(e);
            assert!(!l.version.value.trim().is_empty() && !l.name.is_empty(), "{e}");
            assert!(r.usable_share.value > 0.0 && r.usable_share.value < 1.0, "{e}");
            if let Some(share) = r.reservation.value.fraction() {
                assert!(share > 0.0 && share < 1.0, "{e}");
            }
            // A mode the planner runs has the flag the launch writes, and only then.
            assert_eq!(r.reservation.value.fraction().is_some(), l.memory_flag.is_some_and(|f| f.starts_with('-')), "{e}");
            assert_eq!(r.expert_parallel.is_some(), l.expert_parallel_flag.is_some_and(|f| f.starts_with('-')), "{e}");
            assert_eq!(r.dp_attention.is_some(), l.dp_attention_flag.is_some_and(|f| f.starts_with('-')), "{e}");
            assert!(r.overhead_gib.value > 0.0 && r.kv_block_tokens.value >= 1 && r.max_seqs.value.seqs >= 1, "{e}");
            assert!(r.prefill_chunk.value.is_none_or(|c| c >= 1), "{e}");
            // Modes beyond tensor parallel only where the shapes are checked and layers are not split.
            let modes = r.expert_parallel.is_some() || r.dp_attention.is_some();
            assert!(!modes || (r.shape_rules.value && r.split.value == Split::Tensor), "{e}");
            assert_eq!(l.parallel_flags.is_some(), r.split.value == Split::Tensor, "{e}");
            let sources = [l.version.source, l.port.source, r.reservation.source, r.usable_share.source, r.overhead_gib.source, r.kv_block_tokens.source];
            let more = [
                r.prefill_chunk.source,
                r.max_seqs.source,
                r.prefix_cache.source,
                r.split.source,
                r.shape_rules.source,
                r.kernels.source,
                r.speculative.source,
                r.gguf_only.source,
            ];
            assert!(r.speculative.value.contains(&Spec::Off), "{e}: every engine runs without speculation");
            for s in sources.iter().chain(more.iter()).chain(r.expert_parallel.map(|f| f.source).iter()).chain(r.dp_attention.map(|f| f.source).iter()) {
                assert!(s.text().len() > 8, "{e}: a fact without its source");
            }
        }
        for t in TRAINERS {
            assert!(!t.name.is_empty() && !t.memory_terms.is_empty(), "{}", t.trainer);
            assert_eq!(t.launcher == Launcher::Own, t.version.is_some(), "{}: an own launch names its version", t.trainer);
            // A pinned version (not "(unpinned)") is the one the setup installs.
            if let Some(v) = t.version.and_then(|v| v.value.split_whitespace().next()).filter(|v| !v.starts_with('(')) {
                assert!(t.setup_lines().iter().any(|l| l.contains(v)), "{}: the setup installs {v}", t.trainer);
            }
            assert!(t.version.is_none_or(|v| v.source.text().len() > 8), "{}", t.trainer);
        }
    }
}
