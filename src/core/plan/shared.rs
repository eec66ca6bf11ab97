//! What every planner shares: an offer's plan ([`OfferPlan`]) and what it
//! produces, the engine's support on a GPU, memoization by architecture,
//! the allocator's reserve and the memory and per-GPU results.

use super::super::answer::{GpuResult, MemoryJson, Speeds};
use super::super::catalog::gpus::Arch;
use super::super::catalog::support::{table_format, Kind};
use super::super::catalog::{Catalog, Gpu, Support, SupportRow};
use super::super::config::Engine;
use super::super::estimate::ranges::Confidence;
use super::super::messages::Msg;

/// What an offer's instances produce per unit of time under its plan,
/// over every replica the offer bills: what the per-unit prices divide by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Output {
    /// Output tokens per second (prompts' prefill included).
    Tokens(f64),
    /// Training tokens per second of the whole job.
    Training(f64),
    /// Images per hour.
    Images(f64),
    /// Video clips per hour.
    Clips(f64),
    /// Seconds of audio per second of wall time.
    Audio(f64),
    /// Nothing measurable (image-model training: the run length is the user's).
    None,
}

/// The slowest published link between instances over which a model or a
/// training job is split (pipeline stages, sharded data parallelism):
/// 100 Gbit/s. Below it, each stage boundary's activations cost more than
/// the stage computes (see `estimate/train.rs`); practitioners keep such
/// splits inside one machine.
pub const MIN_SPLIT_GBPS: f64 = 100.0;

/// What the task produces, which decides the unit its cost is ranked on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Tokens,
    Images,
    Clips,
    Audio,
    Training,
    ImageTraining,
}

/// One offer's plan: the layout, replicas and batch the offer runs, whether
/// it fits, its speeds, the job's length when the estimator knows it, and
/// what the storage holds.
#[derive(Debug, Clone)]
pub struct OfferPlan {
    /// Memory only.
    pub fits: bool,
    /// The deadline holds (true without one).
    pub meets: bool,
    /// The layout in words.
    pub layout: Msg,
    /// GPUs one copy of the job uses (reasons quote it).
    pub gpus: u32,
    pub instances: u32,
    /// Copies per instance.
    pub replicas: u32,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    /// Serving: the routed experts dealt out whole over the group (expert parallel).
    pub ep: bool,
    /// The ZeRO / FSDP stage of a training plan (`Config::zero_stages`).
    pub zero: Option<u8>,
    pub batch: f64,
    pub need_bytes: f64,
    pub usable_bytes: f64,
    pub confidence: Confidence,
    pub speeds: Speeds,
    pub job_hours: Option<f64>,
    /// Seconds to read the weights and start the engine before a job works.
    pub startup_s: f64,
    /// Bytes of weights one copy reads from disk at start (they pass
    /// through the host's page cache, which a metered host bills).
    pub load_bytes: f64,
    pub store_gb: f64,
    pub output: Output,
    /// What "fastest" ranks on for the task.
    pub speed_score: f64,
    /// Task-specific reasons (a deadline no count of instances meets).
    pub extra_reasons: Vec<Msg>,
    /// The plan needs something of the instance its offer does not publish
    /// (`OfferResult::unverified`).
    pub unverified: bool,
    /// CPU memory each instance needs for offloaded training states, bytes.
    pub host_bytes: Option<f64>,
}

impl OfferPlan {
    /// A plan of one copy on one GPU that meets everything, with nothing
    /// stored, started or produced: each planner sets what differs
    /// (`OfferPlan { gpus, tp, .., ..OfferPlan::new(..) }`).
    pub fn new(
        fits: bool,
        need_bytes: f64,
        usable_bytes: f64,
        batch: f64,
        confidence: Confidence,
        layout: Msg,
        speeds: Speeds,
    ) -> OfferPlan {
        OfferPlan {
            fits,
            meets: true,
            layout,
            gpus: 1,
            instances: 1,
            replicas: 1,
            tp: 1,
            pp: 1,
            dp: 1,
            ep: false,
            zero: None,
            batch,
            need_bytes,
            usable_bytes,
            confidence,
            speeds,
            job_hours: None,
            startup_s: 0.0,
            load_bytes: 0.0,
            store_gb: 0.0,
            output: Output::None,
            speed_score: 0.0,
            extra_reasons: Vec::new(),
            unverified: false,
            host_bytes: None,
        }
    }
}

/// The support matrix's rows of one engine (`static/support.csv`), by
/// kind, picked once per plan: a lookup then reads that engine's few dozen
/// rows instead of the whole table, with the same most-specific-row rule
/// as [`Catalog::support`].
pub struct EngineSupport<'c> {
    pub engine: Engine,
    weights: Vec<&'c SupportRow>,
    kv: Vec<&'c SupportRow>,
}

impl<'c> EngineSupport<'c> {
    pub fn new(catalog: &'c Catalog, engine: Engine) -> EngineSupport<'c> {
        let mut s = EngineSupport { engine, weights: Vec::new(), kv: Vec::new() };
        for r in catalog.support.iter().filter(|r| r.engine == engine) {
            match r.kind {
                Kind::Weights => s.weights.push(r),
                Kind::Kv => s.kv.push(r),
            }
        }
        s
    }

    /// [`Catalog::support`] for this engine.
    pub fn get(&self, arch: &str, kind: Kind, format: &str) -> Support {
        let rows = match kind {
            Kind::Weights => &self.weights,
            Kind::Kv => &self.kv,
        };
        let format = table_format(kind, format);
        rows.iter()
            .filter(|r| r.matches(self.engine, arch, kind, format))
            .max_by_key(|r| r.specificity())
            .map_or(Support::Unsupported, |r| r.support)
    }
}

/// What the engine does with a format on a GPU, by the support matrix
/// (`static/support.csv`): the reason when it cannot run it at all.
/// A 16-bit model the engine cannot run in bf16 (Volta, Turing) runs in
/// fp16, as `--dtype half` does: same bytes, so it is not refused.
pub fn unsupported(support: &EngineSupport<'_>, gpu: &Gpu, kind: Kind, format: &str) -> Option<Msg> {
    let runs = |f: &str| support.get(gpu.arch.as_str(), kind, f) != Support::Unsupported;
    let engine = support.engine;
    (!(runs(format) || format == "bf16" && runs("fp16"))).then(|| {
        Msg::new("reason.unsupported")
            .arg("engine", engine.as_str())
            .arg("format", format.to_string())
            .arg("arch", gpu.arch.as_str())
    })
}

/// FNV-1a (Fowler–Noll–Vo), the 64-bit parameters as published at
/// http://www.isthe.com/chongo/tech/comp/fnv/#FNV-param (offset basis
/// 14695981039346656037, prime 1099511628211; as NVIDIA's Carbonite API
/// docs `carb::kFnvBasis`/`kFnvPrime` cite them, read 2026-12-01): the
/// hasher of the per-evaluation maps (GPU by id, offer shapes). Their keys
/// are short ids from the catalog, and SipHash, the standard map's
/// default, costs more in WebAssembly than the lookup it serves.
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// A map hashed with [`Fnv`].
pub type FnvMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Fnv>>;

/// Verdicts that depend only on a GPU's architecture (the support
/// matrix's, for one job): the same for every GPU type of an architecture,
/// and a scan of the matrix each, so worked out once per architecture.
pub struct PerArch<T>(std::cell::RefCell<Vec<(Arch, T)>>);

impl<T> Default for PerArch<T> {
    fn default() -> Self {
        PerArch(std::cell::RefCell::new(Vec::new()))
    }
}

impl<T: Clone> PerArch<T> {
    pub fn on(&self, arch: Arch, work: impl FnOnce() -> T) -> T {
        if let Some((_, v)) = self.0.borrow().iter().find(|(a, _)| *a == arch) {
            return v.clone();
        }
        let v = work();
        self.0.borrow_mut().push((arch, v.clone()));
        v
    }
}

/// What nvidia-smi shows for a job whose peak is `peak` bytes under
/// PyTorch: the peak and the caching allocator's reserve above it
/// (`thresholds::ALLOCATOR_RESERVE`), never below the peak.
pub fn reserved(peak: f64) -> f64 {
    (peak * super::super::thresholds::ALLOCATOR_RESERVE).max(peak)
}

/// The memory of a plan with its parts left at 0 for the planner to fill
/// (`MemoryJson { weights_bytes, .., ..memory_json(..) }`): the total with
/// its range (`ranges::MEMORY`), what nvidia-smi will show (`reserved`),
/// the batch, and the GPUs with their `capacity` together.
pub fn memory_json(
    total: f64,
    reserved: f64,
    batch: f64,
    gpus: u32,
    gpu: String,
    capacity: f64,
) -> MemoryJson {
    MemoryJson {
        total_bytes: total,
        total_bytes_low: total * super::super::estimate::ranges::MEMORY.low,
        total_bytes_high: total * super::super::estimate::ranges::MEMORY.high,
        reserved_bytes: reserved,
        batch,
        gpus,
        gpu,
        capacity_bytes: capacity,
        ..MemoryJson::default()
    }
}

/// A job that runs whole on one GPU (generation, image-model training):
/// its result on a GPU type, fitting when its need is within the usable
/// memory less the allocator's slack (`usable_share`).
#[allow(clippy::too_many_arguments)]
pub fn one_gpu_result(
    gpu: &Gpu,
    need: f64,
    usable_share: f64,
    batch: f64,
    confidence: Confidence,
    bound: super::super::estimate::Bound,
    precision: &str,
    speeds: Speeds,
) -> GpuResult {
    GpuResult {
        gpu: gpu.id.clone(),
        gpu_name: gpu.name.clone(),
        gpus: 1,
        nodes: 1,
        batch,
        fits: need <= gpu.usable_bytes() * usable_share,
        meets: true,
        reason_msgs: Vec::new(),
        per_gpu_bytes: need,
        capacity_bytes: gpu.memory_bytes(),
        confidence,
        bound,
        executed_precision: precision.to_string(),
        speeds,
    }
}
