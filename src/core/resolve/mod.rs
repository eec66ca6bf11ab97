//! The first step of the pipeline: a [`Config`] and a [`Catalog`] become
//! the job the task describes, plus the notices for whatever in the link
//! could not be used. Every key is checked here, the same way for every
//! task, before anything is estimated. It never estimates and never ranks.

use super::catalog::media::{MediaKind, MediaModel};
use super::catalog::{Catalog, Model};
use super::config::{Batch, Config, Method, Task, Trainer};
use super::estimate::engine_rules::{self, tp_allowed};
use super::estimate::layers;
use super::estimate::media::MediaJob;
use super::estimate::media_train::MediaTrainJob;
use super::estimate::stack::Stack;
use super::messages::Msg;
use super::notice::Notice;
use super::precision::{self, WeightFormat};
use super::settings::Settings;
use super::table::clip;

mod custom;
mod rl;
mod spec;
use custom::custom_model;

/// What a configuration asks to estimate, once resolved.
#[derive(Debug, Clone)]
pub enum Subject<'c> {
    /// A language model served, fine-tuned or pre-trained.
    Llm { model: Model, format: WeightFormat },
    /// An image, video or audio generator generating.
    Generate(MediaJob<'c>),
    /// An image generator fine-tuned (LoRA, QLoRA, DreamBooth).
    ImageTrain(MediaTrainJob<'c>),
}

/// A configuration checked against the catalog: the configuration in
/// effect (unknown GPU pins cleared, formats a generator cannot take
/// dropped), its notices, and the subject.
#[derive(Debug, Clone)]
pub struct Resolved<'c> {
    /// The configuration in effect, the only maker of [`Settings`].
    pub cfg: Settings,
    pub notices: Vec<Notice>,
    /// Nothing in the query was usable (the CLI exits 2).
    pub unusable: bool,
    pub subject: Subject<'c>,
}

impl Resolved<'_> {
    /// Model id, display name and whether its architecture was inferred.
    pub fn model_label(&self) -> (&str, &str, bool) {
        match &self.subject {
            Subject::Llm { model, .. } => (&model.id, &model.name, model.inferred),
            Subject::Generate(j) => (&j.model.id, &j.model.name, false),
            Subject::ImageTrain(t) => (&t.model().id, &t.model().name, false),
        }
    }

    /// The weight format in effect.
    pub fn weight_format(&self) -> &str {
        match &self.subject {
            Subject::Llm { format, .. } => format.id,
            Subject::Generate(j) => j.precision.id,
            Subject::ImageTrain(t) => t.job.precision.id,
        }
    }
}

/// The tasks a model of the catalog serves, for the notice that names them.
fn tasks_of(catalog: &Catalog, id: &str) -> Option<&'static str> {
    if catalog.model(id).is_some() {
        return Some("serve, finetune, pretrain");
    }
    match catalog.media_model(id)?.kind {
        MediaKind::Image => Some("generate, finetune"),
        MediaKind::Video | MediaKind::Audio => Some("generate"),
    }
}

/// Which kind of model the task and id name: a language model, a
/// generator, or (with a notice) the task's default.
enum Named<'c> {
    Llm(Box<Model>),
    Media(&'c MediaModel),
}

fn model_for_task<'c>(cfg: &Config, catalog: &'c Catalog, notices: &mut Vec<Notice>) -> Option<Named<'c>> {
    let id = cfg.model_id();
    let media = catalog.media_model(id);
    let wants_media = match cfg.task {
        Task::Generate => true,
        Task::Finetune => media.is_some_and(|m| m.kind == MediaKind::Image),
        Task::Serve | Task::Pretrain => false,
    };
    if id == "custom" && cfg.task != Task::Generate {
        return Some(Named::Llm(Box::new(custom_model(&cfg.custom, notices))));
    }
    if wants_media {
        if let Some(m) = media {
            return Some(Named::Media(m));
        }
    } else if let Some(m) = catalog.model(id) {
        return Some(Named::Llm(Box::new(m.clone())));
    }
    let msg = match tasks_of(catalog, id) {
        Some(tasks) => Msg::new("notice.model_task")
            .arg("model", clip(id))
            .arg("task", cfg.task.to_string())
            .arg("tasks", tasks),
        None => match catalog.near_id(id) {
            Some(near) => Msg::new("notice.model_near").arg("model", clip(id)).arg("near", near),
            None => Msg::new("notice.model_unknown").arg("model", clip(id)),
        },
    };
    notices.push(Notice::said("model", msg));
    None
}

/// Resolves a configuration against a catalog. Every key gets the same
/// checks on every task: the model against the task, the GPU pin, the
/// catalog date, the price overrides, the weight format against the model.
pub fn resolve<'c>(cfg: &Config, mut notices: Vec<Notice>, catalog: &'c Catalog) -> Resolved<'c> {
    let mut cfg = cfg.clone();
    let named = model_for_task(&cfg, catalog, &mut notices);
    // Nothing usable: a model no table knows, and nothing else that counts.
    let unknown = named.is_none() && tasks_of(catalog, cfg.model_id()).is_none();
    let unusable = unknown && notices.iter().all(|n| n.key == "model" || n.key == "v");
    catalog_notices(&mut cfg, catalog, &mut notices);
    // A model that is not the task's: the task's default, after the notice.
    if named.is_none() {
        cfg.model = None;
    }
    let named = named.unwrap_or_else(|| {
        let id = cfg.task.default_model();
        match catalog.media_model(id) {
            Some(m) if cfg.task == Task::Generate => Named::Media(m),
            _ => Named::Llm(Box::new(
                catalog.model(id).cloned().unwrap_or_else(|| Model::inferred_from_params(8.0)),
            )),
        }
    });
    // A GPU count the plan cannot honour: said, then chosen automatically.
    gpus_notice(&mut cfg, &named, catalog, &mut notices);
    if cfg.is_training() {
        stack_notices(&mut cfg, &mut notices);
    } else if !cfg.offline_job() && cfg.days.take().is_some() {
        // A deadline sizes a training run, or spreads a batch job of a
        // stated size over instances (`offers::deadline`); an endpoint, or a
        // job without `per_job`, has no work to time: said, left out.
        notices.push(Notice::said("days", Msg::new("notice.days.task").arg("task", cfg.task.as_str())));
    }
    let subject = match named {
        Named::Llm(model) => {
            rl::notices(&mut cfg, &model, catalog, &mut notices);
            if cfg.task == Task::Serve {
                context_notice(&mut cfg, &model, &mut notices);
                prefix_notice(&mut cfg, &model, &mut notices);
            }
            let format = precision::weight_format(cfg.weight_format_id())
                .or_else(|| precision::weight_format("bf16"))
                .unwrap_or(precision::BF16);
            Subject::Llm { model: *model, format }
        }
        Named::Media(m) if cfg.task == Task::Generate => {
            rl::task_notice(&mut cfg, &mut notices);
            let mut j = own_precision(&mut cfg, &mut notices, |c| media_job(m, c));
            if let Some(window) = m.audio_window_s.filter(|w| j.seconds > *w) {
                notices.push(Notice::said(
                    "seconds",
                    Msg::new("notice.seconds").arg("model", m.name.clone()).arg("window", window.to_string()),
                ));
                j.seconds = window;
            }
            Subject::Generate(j)
        }
        Named::Media(m) => {
            rl::task_notice(&mut cfg, &mut notices);
            // Both lengths given: the steps win (timed per offer's GPUs).
            if cfg.train_steps.is_some() && cfg.jobmin.take().is_some() {
                notices.push(Notice::said("jobmin", Msg::new("notice.train_steps.jobmin")));
            }
            Subject::ImageTrain(own_precision(&mut cfg, &mut notices, |c| image_train_job(m, c)))
        }
    };
    let served = match &subject {
        Subject::Llm { model, .. } => Some(model),
        _ => None,
    };
    spec::spec_notices(&mut cfg, served, catalog, &mut notices);
    if cfg.train_steps.is_some() && !matches!(subject, Subject::ImageTrain(_)) {
        cfg.train_steps = None;
        notices.push(Notice::said("train_steps", Msg::new("notice.train_steps.task")));
    }
    Resolved { cfg: Settings::resolved(cfg), notices, unusable, subject }
}

/// Keys that name catalog rows the catalog lacks (`gpu`, `provider`,
/// `price`), a measurement without a pinned GPU, and an old catalog date:
/// said, and the unknown ones left out.
fn catalog_notices(cfg: &mut Config, catalog: &Catalog, notices: &mut Vec<Notice>) {
    if let Some(g) = &cfg.gpu {
        if catalog.gpu(g).is_none() {
            notices.push(Notice::said("gpu", Msg::new("notice.gpu_unknown").arg("gpu", clip(g))));
            cfg.gpu = None;
        }
    }
    // Your measurement is of one configuration on one GPU type: a serving
    // link that pins it (`gpu`); otherwise said, and left out.
    let pinned = cfg.gpu.is_some() && cfg.task == Task::Serve;
    for (key, value) in [("measured", &mut cfg.measured), ("measured_ttft", &mut cfg.measured_ttft)] {
        if !pinned && value.take().is_some() {
            notices.push(Notice::said(key, Msg::new("notice.measured.gpu").arg("key", key)));
        }
    }
    if let Some(d) = cfg.cat {
        if d < catalog.as_of {
            notices.push(Notice::said(
                "cat",
                Msg::new("notice.cat_old").arg("date", d.to_string()).arg("now", catalog.as_of.to_string()),
            ));
        }
    }
    let unknown_providers: Vec<String> =
        cfg.providers.iter().filter(|p| catalog.provider(p).is_none()).map(|p| clip(p)).collect();
    if !unknown_providers.is_empty() {
        notices.push(Notice::said(
            "provider",
            Msg::new("notice.provider_unknown").arg("providers", unknown_providers.join("`, `")),
        ));
        cfg.providers.retain(|p| catalog.provider(p).is_some());
    }
    for (offer, _) in &cfg.prices {
        if catalog.offer(offer).is_none() {
            notices.push(Notice::said("price", Msg::new("notice.price_unknown").arg("offer", clip(offer))));
        }
    }
}

/// A GPU count the plan cannot honour (more than a node holds, or a group
/// no layout of the engine loads): said, then chosen automatically.
fn gpus_notice(cfg: &mut Config, named: &Named, catalog: &Catalog, notices: &mut Vec<Notice>) {
    if let Some(g) = cfg.gpus {
        let per_node = cfg
            .gpu
            .as_deref()
            .and_then(|id| catalog.gpu(id))
            .map(|gpu| (gpu.gpus_per_node, gpu.name.clone()));
        // A group no layout of the engine loads (`engine_rules::layouts_at`): the
        // heads' rule, else the weight format's blocks or groups, else the experts'.
        let refused = |m: &Model| {
            cfg.task == Task::Serve
                && engine_rules::layouts_at(m, cfg.weight_format_id(), cfg.engine, g).is_empty()
        };
        let heads = match &named {
            Named::Llm(m) if refused(m) && !tp_allowed(m, cfg.engine, g) => Some((m.heads, m.kv_heads)),
            _ => None,
        };
        let rule = match &named {
            Named::Llm(m) if refused(m) => {
                engine_rules::refusals_at(m, cfg.weight_format_id(), cfg.engine, g).into_iter().next()
            }
            _ => None,
        };
        let why = match (per_node, heads, rule) {
            (Some((most, name)), _, _) if g > most => {
                Some(Msg::new("notice.gpus.per_node").arg("gpu", name).arg("most", most.to_string()))
            }
            (_, Some((h, kv)), _) => Some(
                Msg::new("notice.gpus.heads")
                    .arg("engine", cfg.engine.to_string())
                    .arg("heads", h.to_string())
                    .arg("kv", kv.to_string()),
            ),
            (_, None, Some(r)) => Some(r.msg(cfg.engine)),
            _ => None,
        };
        if let Some(why) = why {
            notices.push(Notice::said(
                "gpus",
                Msg::new("notice.gpus").arg("gpus", g.to_string()).sub("why", why),
            ));
            cfg.gpus = None;
        }
    }
}

/// A prompt and output longer than the model's context (its
/// `max_position_embeddings`): no engine serves it (vLLM refuses a
/// `--max-model-len` above the model's), so it is said and the prompt cut
/// to what fits beside the output (where the output alone does not fit,
/// the prompt kept up to half the context and the output given the rest).
fn context_notice(cfg: &mut Config, model: &Model, notices: &mut Vec<Notice>) {
    let Some(most) = model.max_context.filter(|m| *m >= 2) else { return };
    let (prompt, out) = (cfg.input_tokens, cfg.output_tokens);
    if u64::from(prompt) + u64::from(out) <= u64::from(most) {
        return;
    }
    // An output that alone is too long keeps the prompt (up to half the
    // context) and gets the rest; otherwise the prompt is cut.
    let (prompt_fit, out_fit) = if out >= most {
        let p = prompt.min(most / 2);
        (p, most - p)
    } else {
        (most - out, out)
    };
    let key = if out >= most { "out" } else { "in" };
    let msg = Msg::new("notice.context")
        .arg("model", model.name.clone())
        .arg("most", most.to_string())
        .arg("in", prompt.to_string())
        .arg("out", out.to_string())
        .arg("in_fit", prompt_fit.to_string())
        .arg("out_fit", out_fit.to_string());
    notices.push(Notice::said(key, msg));
    cfg.input_tokens = prompt_fit;
    cfg.output_tokens = out_fit;
}

/// A training configuration with one key changed by the guidance (a
/// suggestion's "with LoRA", "with ZeRO-3"), settled by the same stack
/// rules as a link's ([`stack_notices`]), their notices dropped: the
/// suggestion is worded by the guidance, not the notices.
pub fn restack(mut cfg: Config) -> Settings {
    if cfg.is_training() {
        stack_notices(&mut cfg, &mut Vec::new());
    }
    Settings::resolved(cfg)
}

/// A shared prefix (`prefix`) longer than the prompt is the whole prompt,
/// said; one the engine keeps per request for this model is said too
/// (`estimate::layers::shares_prefix`).
fn prefix_notice(cfg: &mut Config, model: &Model, notices: &mut Vec<Notice>) {
    if cfg.prefix == 0 {
        return;
    }
    if cfg.prefix > cfg.input_tokens {
        notices.push(Notice::said(
            "prefix",
            Msg::new("notice.prefix.in")
                .arg("prefix", cfg.prefix.to_string())
                .arg("in", cfg.input_tokens.to_string()),
        ));
        cfg.prefix = cfg.input_tokens;
    }
    if !layers::shares_prefix(cfg.engine, model) {
        notices.push(Notice::said(
            "prefix",
            Msg::new("notice.prefix.none")
                .arg("engine", cfg.engine.to_string())
                .arg("model", model.name.clone()),
        ));
    }
}

/// Offload keys the chosen stack cannot honour: said, then what is assumed.
/// Parameter offload exists for fully sharded jobs only (FSDP's
/// `CPUOffload`, ZeRO-3's `offload_param`), and neither Unsloth nor
/// Megatron-LM offers it (`estimate::stack`).
///
/// What a stack does not have is said and planned as what it does instead:
/// Megatron-LM's `pretrain_gpt.py` and torchtitan train every weight (no
/// LoRA or QLoRA adapters in either, `export::command::train_megatron`,
/// `train_torchtitan`); Unsloth runs data parallel over `torchrun` with a
/// whole model per GPU (no ZeRO sharding: unslothai/unsloth@c98312f2
/// unsloth/models/loader.py loads each rank's model on its own device;
/// README.md@015bdef0 "Multi-GPU: Available now").
fn stack_notices(cfg: &mut Config, notices: &mut Vec<Notice>) {
    let trainer = cfg.trainer.as_str();
    if cfg.task == Task::Finetune
        && cfg.method != Method::Full
        && matches!(cfg.trainer, Trainer::Megatron | Trainer::Torchtitan)
    {
        notices.push(Notice::said(
            "method",
            Msg::new("notice.method.trainer").arg("trainer", trainer).arg("method", cfg.method.as_str()),
        ));
        cfg.method = Method::Full;
    }
    if let (Trainer::Unsloth, Some(z @ 1..)) = (cfg.trainer, cfg.zero) {
        notices.push(Notice::said("zero", Msg::new("notice.zero.unsloth").arg("zero", z.to_string())));
        cfg.zero = Some(0);
    }
    // torchtune's distributed recipes shard with FSDP2 only
    // (`Config::zero_stages`): fully (zero=3), or gradients and states
    // with `fsdp_reshard_after_forward=False` (zero=2).
    if let (Trainer::Torchtune, Some(z @ 0..=1)) = (cfg.trainer, cfg.zero) {
        notices.push(Notice::said("zero", Msg::new("notice.zero.torchtune").arg("zero", z.to_string())));
        cfg.zero = Some(3);
    }
    if !cfg.param_offload {
        return;
    }
    if !Stack::of(cfg.trainer).can_offload_params {
        notices.push(Notice::said(
            "param_offload",
            Msg::new("notice.param_offload.trainer").arg("trainer", cfg.trainer.as_str()),
        ));
        cfg.param_offload = false;
    } else if let Some(z @ 0..=2) = cfg.zero {
        notices.push(Notice::said(
            "param_offload",
            Msg::new("notice.param_offload.zero").arg("zero", z.to_string()),
        ));
        cfg.zero = Some(3);
    } else {
        // Unset: parameter offload is ZeRO-3's, nothing to say.
        cfg.zero = Some(3);
    }
}

/// Builds a generation or image-training job; a language-model format (AWQ,
/// GPTQ, MXFP4…) gets a notice and the model's own precision instead (NF4
/// for QLoRA): `build` returns that job as `Err`.
fn own_precision<T>(
    cfg: &mut Config,
    notices: &mut Vec<Notice>,
    build: impl Fn(&Config) -> Result<T, T>,
) -> T {
    if let Ok(t) = build(cfg) {
        return t;
    }
    notices.push(Notice::said("w", Msg::new("notice.w_media").arg("w", cfg.weight_format_id())));
    cfg.w = None;
    match build(cfg) {
        Ok(t) | Err(t) => t,
    }
}

/// The media job a configuration describes; the model's defaults fill what
/// the link leaves out. `Err` carries the job in the model's own precision
/// when the link names a format generators do not use.
pub fn media_job<'a>(model: &'a MediaModel, cfg: &Config) -> Result<MediaJob<'a>, MediaJob<'a>> {
    let native = || precision::weight_format(MediaJob::native_precision(model)).unwrap_or(precision::BF16);
    match cfg.w.as_deref() {
        Some(w) if precision::is_media_format(w) => {
            Ok(fill(MediaJob::in_format(model, precision::weight_format(w).unwrap_or_else(native)), cfg))
        }
        Some(_) => Err(fill(MediaJob::in_format(model, native()), cfg)),
        None => Ok(fill(MediaJob::in_format(model, native()), cfg)),
    }
}

fn fill<'a>(mut j: MediaJob<'a>, cfg: &Config) -> MediaJob<'a> {
    // The link's resolution, else the model's own.
    if let Some((w, h)) = cfg.res {
        j.width = w;
        j.height = h;
    }
    if let Some(s) = cfg.steps {
        j.steps = s;
    }
    if let Some(f) = cfg.frames {
        j.frames = f;
    }
    if let Some(f) = cfg.fps {
        j.fps = f64::from(f);
    }
    // The link's length, else the model's default, else 30 s.
    j.seconds = cfg.seconds.or(j.model.default_seconds).unwrap_or(30.0);
    j.batch = match cfg.batch() {
        Batch::N(n) => n.min(64),
        Batch::Max => 1,
    };
    j.enc_offload = cfg.enc_offload;
    j.flash = cfg.flash;
    j
}

/// The image-model training job a configuration describes.
pub fn image_train_job<'a>(
    model: &'a MediaModel,
    cfg: &Config,
) -> Result<MediaTrainJob<'a>, MediaTrainJob<'a>> {
    let mut c = cfg.clone();
    // QLoRA means an NF4 base (Dettmers et al. 2023); LoRA without a
    // format trains on the model's own 16-bit weights.
    if c.method == Method::Qlora && c.w.is_none() {
        c.w = Some("nf4".into());
    }
    let wrap = |mut job: MediaJob<'a>| {
        job.batch = 1;
        job.steps = 1;
        MediaTrainJob {
            job,
            method: cfg.method,
            optim: cfg.optim,
            gc: cfg.gc,
            rank: f64::from(cfg.rank),
            mb: f64::from(cfg.mb().max(1)),
        }
    };
    media_job(model, &c).map(wrap).map_err(wrap)
}
