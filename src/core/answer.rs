//! The whole answer to a configuration — memory, per-GPU results, ranked
//! offers, recommendation, guidance — as one serializable value. This is
//! the CLI's JSON (`LINK-FORMAT.md`) and what the page renders.

use serde::Serialize;

use super::catalog::{Catalog, Date, Gpu, Model};
use super::config::{Batch, Config, Task};
use super::estimate::ranges::{self, Spread};
use super::estimate::serve::{tp_options, Plan, ServeJob};
use super::estimate::{engine, resolve_model};
use super::guidance::{self, GuidanceItem};
use super::link::{self, Notice};
use super::precision::{self, WeightFormat};
use super::recommend::{self, OfferResult, Recommendation};

#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct MemoryJson {
    pub weights_bytes: f64,
    pub kv_cache_bytes: f64,
    pub activations_bytes: f64,
    pub gradients_bytes: f64,
    pub optimizer_bytes: f64,
    pub overhead_bytes: f64,
    pub total_bytes: f64,
    pub total_bytes_low: f64,
    pub total_bytes_high: f64,
    pub reserved_bytes: f64,
    /// GPUs this breakdown is for (the configuration's `gpus` × `nodes`).
    pub gpus: u32,
    /// The GPU type whose capacity `reserved_bytes` assumes.
    pub gpu: String,
    pub capacity_bytes: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct GpuResult {
    pub gpu: String,
    pub gpu_name: String,
    pub gpus: u32,
    pub nodes: u32,
    pub batch: f64,
    pub fits: bool,
    pub per_gpu_bytes: f64,
    pub capacity_bytes: f64,
    pub confidence: &'static str,
    pub bound: &'static str,
    pub executed_precision: String,
    #[serde(flatten)]
    pub speeds: Speeds,
}

/// Each speed with `_low` / `_high` siblings; absent where it does not apply.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Speeds {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s_per_seq: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s_per_seq_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s_per_seq_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s_total_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_tokens_per_s_total_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefill_tokens_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefill_tokens_per_s_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefill_tokens_per_s_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_first_token_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_first_token_s_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_to_first_token_s_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_latency_s: Option<f64>,
    /// Output tokens/s of one model copy at the user's load with the
    /// prompts' prefill included (steady state: B·out / (prefill of B
    /// prompts + out decode steps)); what $ per million tokens is priced on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_latency_s_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_latency_s_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_tokens_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_tokens_per_s_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_tokens_per_s_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_hours: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_hours_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_hours_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_gpu_hours: Option<f64>,
    /// Training layout: data-parallel replicas, tensor-parallel and
    /// pipeline degrees (dp × tp × pp = GPUs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_dp: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_tp: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_pp: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_per_image: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_per_image_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_per_image_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images_per_hour: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_per_clip: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_per_clip_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_per_clip_high: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio_realtime_factor: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio_realtime_factor_low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio_realtime_factor_high: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct Answers {
    pub max_context_tokens: Option<u64>,
    pub max_batch: Option<u32>,
    pub min_gpus: Option<u32>,
    pub best_weight_format: Option<String>,
    /// Training: GPUs of the focus type needed to finish within `days`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus_for_deadline: Option<u32>,
    /// Training: bytes of one checkpoint (full, or the adapter) and of all kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoints_bytes_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_tokens: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub query: String,
    pub notices: Vec<Notice>,
    pub catalog_as_of: String,
    pub task: Task,
    pub model: String,
    pub model_name: String,
    pub architecture_inferred: bool,
    pub weight_format: String,
    pub memory: MemoryJson,
    pub results: Vec<GpuResult>,
    pub answers: Answers,
    pub offers: Vec<OfferResult>,
    pub recommendation: Option<Recommendation>,
    pub guidance: Vec<GuidanceItem>,
    /// True when nothing in the query was usable (the CLI exits 2).
    #[serde(skip)]
    pub unusable: bool,
}

/// An answer is a function of its normalized query, its notices and the
/// catalog, so those decide equality (the page re-renders only on change).
impl Answer {
    /// An answer with its heading (link, notices, catalog date, task, model,
    /// format) and nothing estimated yet; each task fills the rest with
    /// `Answer { memory, results, .., ..Answer::empty(..) }`.
    pub fn empty(cfg: &Config, notices: Vec<Notice>, catalog: &Catalog, model: (&str, &str, bool), weight_format: &str) -> Answer {
        let (id, name, inferred) = model;
        Answer {
            query: link::encode(cfg),
            notices,
            catalog_as_of: catalog.as_of.to_string(),
            task: cfg.task,
            model: id.to_string(),
            model_name: name.to_string(),
            architecture_inferred: inferred,
            weight_format: weight_format.to_string(),
            memory: MemoryJson::default(),
            results: Vec::new(),
            answers: Answers::default(),
            offers: Vec::new(),
            recommendation: None,
            guidance: Vec::new(),
            unusable: false,
        }
    }
}

impl PartialEq for Answer {
    fn eq(&self, other: &Self) -> bool {
        self.query == other.query && self.notices == other.notices && self.catalog_as_of == other.catalog_as_of
    }
}

/// Evaluates a query string against a catalog on a given day.
pub fn evaluate_query(query: &str, catalog: &Catalog, today: Date) -> Answer {
    let (cfg, notices) = link::decode(query);
    evaluate(&cfg, notices, catalog, today)
}

fn with_spread(v: f64, s: Spread) -> (Option<f64>, Option<f64>, Option<f64>) {
    (Some(v), Some(v * s.low), Some(v * s.high))
}

/// Speeds of a serving plan with their ranges. Times scale inversely.
pub fn serve_speeds(job: &ServeJob<'_>, gpu: &Gpu, plan: Plan, batch: f64, widen: f64) -> (Speeds, &'static str) {
    let s = job.speed(gpu, plan, batch);
    let dec = ranges::widen(ranges::DECODE, widen);
    let pre = ranges::widen(ranges::PREFILL, widen);
    let inv = |sp: Spread| Spread { low: 1.0 / sp.high, high: 1.0 / sp.low };
    let (a, al, ah) = with_spread(s.decode_tokens_per_s_per_seq, dec);
    let (b, bl, bh) = with_spread(s.decode_tokens_per_s_total, dec);
    let (c, cl, ch) = with_spread(s.prefill_tokens_per_s, pre);
    let (d, dl, dh) = with_spread(s.time_to_first_token_s, inv(pre));
    let (e, el, eh) = with_spread(s.request_latency_s, inv(dec));
    let output = job.offline_throughput(gpu, plan, batch);
    let bound = match s.decode_bound {
        super::estimate::serve::Bound::Memory => "memory",
        super::estimate::serve::Bound::Compute => "compute",
    };
    (
        Speeds {
            decode_tokens_per_s_per_seq: a,
            decode_tokens_per_s_per_seq_low: al,
            decode_tokens_per_s_per_seq_high: ah,
            decode_tokens_per_s_total: b,
            decode_tokens_per_s_total_low: bl,
            decode_tokens_per_s_total_high: bh,
            prefill_tokens_per_s: c,
            prefill_tokens_per_s_low: cl,
            prefill_tokens_per_s_high: ch,
            time_to_first_token_s: d,
            time_to_first_token_s_low: dl,
            time_to_first_token_s_high: dh,
            request_latency_s: e,
            request_latency_s_low: el,
            request_latency_s_high: eh,
            output_tokens_per_s: (output.is_finite() && output > 0.0).then_some(output),
            ..Speeds::default()
        },
        bound,
    )
}

/// How sure we are of a GPU's figures: high where the engine and the GPU
/// class have calibration rows, lower for engines tuned from comparisons,
/// inferred architectures, GPUs of vendors without data, and multi-node plans.
pub fn confidence(cfg: &Config, model: &Model, gpu: &Gpu, plan: Plan) -> (&'static str, f64) {
    let mut score = 0;
    if !engine::has_direct_data(cfg.engine) {
        score += 1;
    }
    if model.inferred {
        score += 2;
    }
    if gpu.vendor != "nvidia" {
        score += 1;
    }
    if plan.pp > 1 {
        score += 1;
    }
    match score {
        0 => ("high", 1.0),
        1 => ("medium", 1.6),
        _ => ("low", 2.5),
    }
}

/// The plan for a GPU type: the configuration's own GPU count if given,
/// else the smallest tensor-parallel group that fits, else whole nodes.
pub fn plan_for(job: &ServeJob<'_>, cfg: &Config, gpu: &Gpu) -> (Plan, bool) {
    let fits = |plan: Plan| {
        let batch = match cfg.batch {
            Batch::N(n) => f64::from(n),
            Batch::Max => 1.0,
        };
        job.memory(plan, batch).total() <= job.usable_bytes(gpu)
    };
    let e = cfg.engine;
    if let Some(g) = cfg.gpus {
        let plan = Plan::in_node(e, g, cfg.nodes);
        return (plan, fits(plan) && (e.splits_layers() || job.model.heads % g == 0));
    }
    let opts = tp_options(job.model, e, gpu.gpus_per_node);
    for &n in &opts {
        let plan = Plan::in_node(e, n, cfg.nodes);
        if fits(plan) {
            return (plan, true);
        }
    }
    let n = opts.last().copied().unwrap_or(1);
    if !e.splits_layers() {
        for pp in cfg.nodes.max(2)..=64 {
            let plan = Plan::in_node(e, n, pp);
            if fits(plan) {
                return (plan, true);
            }
        }
    }
    (Plan::in_node(e, n, cfg.nodes), false)
}

pub fn evaluate(cfg: &Config, mut notices: Vec<Notice>, catalog: &Catalog, today: Date) -> Answer {
    if cfg.task == Task::Generate {
        return super::media_answer::evaluate_media(cfg, notices, catalog, today);
    }
    if cfg.is_training() && catalog.model(&cfg.model).is_none() {
        // Fine-tuning an image generator (SDXL, FLUX…).
        if let Some(m) = super::catalog::media::bundled_media().ok().and_then(|ms| super::catalog::media::MediaModel::find(ms, &cfg.model)) {
            return super::media_train_answer::evaluate_media_training(cfg, notices, catalog, today, m);
        }
    }
    let mut cfg = cfg.clone();
    let mut unusable = false;
    let model = match resolve_model(&cfg, catalog, &mut notices) {
        Some(m) => m,
        None => {
            unusable = notices.iter().all(|n| n.key == "model" || n.key == "v");
            cfg.model = crate::core::config::Config::default().model;
            catalog.model(&cfg.model).cloned().unwrap_or_else(|| Model::inferred_from_params(8.0))
        }
    };
    if let Some(g) = &cfg.gpu {
        if catalog.gpu(g).is_none() {
            notices.push(Notice::other("gpu", format!("unknown GPU `{}`; showing every GPU", super::table::clip(g))));
            cfg.gpu = None;
        }
    }
    if let Some(d) = cfg.cat {
        if d < catalog.as_of {
            notices.push(Notice::other("cat", format!("this link was made with the catalog of {d}; prices have changed since (now {})", catalog.as_of)));
        }
    }
    for (offer, _) in &cfg.prices {
        if catalog.offer(offer).is_none() {
            notices.push(Notice::other("price", format!("unknown offer `{}` in price overrides", super::table::clip(offer))));
        }
    }
    let format = precision::weight_format(cfg.weight_format_id()).or_else(|| precision::weight_format("bf16"));
    let format: WeightFormat = match format {
        Some(f) => f,
        None => return empty_answer(&cfg, notices, catalog, &model, true),
    };
    if cfg.is_training() {
        return super::train_answer::evaluate_training(&cfg, notices, catalog, today, &model, unusable);
    }
    let job = ServeJob::new(&model, &cfg, format);
    let gpus = catalog.gpus_for(cfg.gpu.as_deref());

    let mut results = Vec::new();
    for gpu in &gpus {
        let (plan, fits) = plan_for(&job, &cfg, gpu);
        let batch = job.resolve_batch(cfg.batch, gpu, plan);
        let mem = job.memory(plan, batch);
        let (conf, widen) = confidence(&cfg, &model, gpu, plan);
        let (speeds, bound) = serve_speeds(&job, gpu, plan, batch, widen);
        results.push(GpuResult {
            gpu: gpu.id.clone(),
            gpu_name: gpu.name.clone(),
            gpus: plan.per_node(cfg.engine),
            nodes: plan.gpus() / plan.per_node(cfg.engine).max(1),
            batch,
            fits,
            per_gpu_bytes: mem.total(),
            capacity_bytes: gpu.memory_bytes(),
            confidence: conf,
            bound,
            executed_precision: format!("{:?}", job.executed(gpu)).to_lowercase(),
            speeds,
        });
    }

    // The memory breakdown for the configuration's own GPU count, on the
    // pinned GPU or (unpinned) the recommended offer's GPU.
    let offers = recommend::rank_offers(&cfg, &job, catalog, today);
    let recommendation = recommend::recommend(&cfg, &offers);
    let focus_gpu_id = cfg
        .gpu
        .clone()
        .or_else(|| recommendation.as_ref().and_then(|r| offers.iter().find(|o| o.id == r.pick.offer)).map(|o| o.gpu.to_string()));
    let focus = focus_gpu_id.as_deref().and_then(|g| catalog.gpu(g)).or_else(|| catalog.gpu("h100-sxm-80gb")).or(catalog.gpus.first());
    // Without a GPU count in the configuration, use the plan found for that GPU.
    let focus_plan = |gpu: &Gpu| match cfg.gpus {
        Some(g) => Plan::in_node(cfg.engine, g, cfg.nodes),
        None => plan_for(&job, &cfg, gpu).0,
    };
    let memory = match focus {
        Some(gpu) => memory_json(&job, &cfg, gpu, focus_plan(gpu)),
        None => MemoryJson::default(),
    };
    let answers = focus.map(|gpu| inverse_answers(&job, &cfg, gpu, focus_plan(gpu))).unwrap_or_default();
    let mut answer = Answer {
        memory,
        results,
        answers,
        offers,
        recommendation,
        unusable,
        ..Answer::empty(&cfg, notices, catalog, (&model.id, &model.name, model.inferred), format.id)
    };
    answer.guidance = guidance::guidance(&cfg, &model, &job, catalog, &answer);
    answer
}

fn empty_answer(cfg: &Config, notices: Vec<Notice>, catalog: &Catalog, model: &Model, unusable: bool) -> Answer {
    Answer { unusable, ..Answer::empty(cfg, notices, catalog, (&model.id, &model.name, model.inferred), cfg.weight_format_id()) }
}

/// Memory for a plan on one GPU type (the configuration's `gpus` × `nodes`).
pub fn memory_json(job: &ServeJob<'_>, cfg: &Config, gpu: &Gpu, plan: Plan) -> MemoryJson {
    let batch = job.resolve_batch(cfg.batch, gpu, plan);
    let per_gpu = job.memory(plan, batch);
    let n = f64::from(plan.gpus());
    let total = per_gpu.total() * n;
    let without_kv = per_gpu.total() - per_gpu.kv_cache;
    let reserved = engine::reserved_per_gpu(cfg.engine, per_gpu.total(), without_kv, gpu.memory_bytes()) * n;
    MemoryJson {
        weights_bytes: per_gpu.weights * n,
        kv_cache_bytes: per_gpu.kv_cache * n,
        activations_bytes: per_gpu.activations * n,
        gradients_bytes: 0.0,
        optimizer_bytes: 0.0,
        overhead_bytes: per_gpu.overhead * n,
        total_bytes: total,
        total_bytes_low: total * ranges::MEMORY.low,
        total_bytes_high: total * ranges::MEMORY.high,
        reserved_bytes: reserved,
        gpus: plan.gpus(),
        gpu: gpu.id.clone(),
        capacity_bytes: gpu.memory_bytes() * n,
    }
}

/// The inverse questions on one GPU type for a plan.
pub fn inverse_answers(job: &ServeJob<'_>, cfg: &Config, gpu: &Gpu, plan: Plan) -> Answers {
    let batch = match cfg.batch {
        Batch::N(n) => f64::from(n),
        Batch::Max => 1.0,
    };
    let usable = job.usable_bytes(gpu);
    // Largest context: bisection on the total (KV grows monotonically with context).
    let fits_ctx = |ctx: f64| {
        let mut j = job.clone();
        j.input_tokens = (ctx - j.output_tokens - j.image_tokens).max(1.0);
        j.memory(plan, batch).total() <= usable
    };
    let max_ctx = if fits_ctx(job.output_tokens + job.image_tokens + 1.0) {
        let (mut lo, mut hi) = (job.output_tokens + job.image_tokens + 1.0, 1.0e8);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if fits_ctx(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let cap = job.model.max_context.map_or(lo, |m| lo.min(f64::from(m)));
        Some(cap.floor() as u64)
    } else {
        None
    };
    let max_batch = Some(job.max_batch(gpu, plan));
    let min_gpus = {
        let mut c = cfg.clone();
        c.gpus = None;
        let (p, fits) = plan_for(job, &c, gpu);
        fits.then_some(p.gpus())
    };
    let best = ["bf16", "fp8", "int8", "int4-awq", "nf4", "gguf-q4_k_m", "gguf-q2_k"].into_iter().find(|id| {
        precision::weight_format(id).is_some_and(|f| {
            let mut j = job.clone();
            j.format = f;
            j.memory(plan, batch).total() <= usable
        })
    });
    Answers { max_context_tokens: max_ctx, max_batch, min_gpus, best_weight_format: best.map(String::from), ..Answers::default() }
}
