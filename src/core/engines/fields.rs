//! The engine table's row types: a fact with its source, and the rows of
//! a serving engine (planner and launch halves) and of a training stack.

use super::super::config::{Engine, Spec, Trainer};

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
            Reservation::Card { share }
            | Reservation::Static { share }
            | Reservation::FreeForKv { share } => Some(share),
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
