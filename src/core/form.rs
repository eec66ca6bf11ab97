//! What the page's form shows for a configuration: which kind of job it
//! is (and so which inputs apply). Domain decisions the shell must not
//! make itself; no rendering here.

use super::answer::{Answer, OfferResult};
use super::catalog::media::MediaKind;
use super::catalog::Catalog;
use super::columns;
use super::config::{Config, Rl, Task, Usage};
use super::link;
use super::offers::{self, Objective};
use super::plan::Unit;
use super::precision;

/// The kind of job a configuration describes, as the form sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormKind {
    Serve,
    Generate,
    /// Fine-tuning or pre-training a language model.
    Train,
    /// Fine-tuning an image generator: resolution and run length instead of tokens.
    ImageTrain,
}

pub fn kind(cfg: &Config, catalog: &Catalog) -> FormKind {
    match cfg.task {
        Task::Serve => FormKind::Serve,
        Task::Generate => FormKind::Generate,
        Task::Finetune if catalog.media_model(cfg.model_id()).is_some_and(|m| m.kind == MediaKind::Image) => {
            FormKind::ImageTrain
        }
        Task::Finetune | Task::Pretrain => FormKind::Train,
    }
}

/// The model id that stands for an architecture typed in by hand.
pub const CUSTOM_MODEL: &str = "custom";

/// The ZeRO stages a link accepts (`zero=0..3`), in the order the form lists them.
pub const ZERO_STAGES: &[u8] = &[0, 1, 2, 3];

/// The form's inputs for a configuration, by link key, in page order: the
/// main column, then the "advanced" details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    pub main: Vec<&'static str>,
    pub advanced: Vec<&'static str>,
}

/// Which inputs apply to this configuration (its kind, the model, the usage
/// in effect, whether requests carry images).
pub fn inputs(cfg: &Config, kind: FormKind) -> Inputs {
    let mut main = vec!["task", "model"];
    if cfg.model_id() == CUSTOM_MODEL {
        main.push("params");
    }
    main.push("w");
    match kind {
        FormKind::Train | FormKind::ImageTrain => {
            if cfg.task == Task::Finetune {
                main.push("method");
            }
            // Fine-tuning an image generator: resolution instead of tokens,
            // and the run's optimizer steps (timed per offer); a known run
            // length (`jobmin`) is an advanced input.
            if kind == FormKind::ImageTrain {
                main.extend(["res", "mb", "train_steps"]);
            } else if let Some(rl) = cfg.rl {
                // RL fine-tuning: the adapter, the prompts and their completions.
                main.extend(["adapter", "prompts"]);
                if rl == Rl::Grpo {
                    main.push("gens");
                }
                main.extend(["prompt_len", "completion_len", "days"]);
            } else {
                main.extend(["tokens", "epochs", "mb", "seq", "days"]);
            }
        }
        FormKind::Generate => main.extend(["res", "steps", "batch", "frames", "fps", "seconds"]),
        FormKind::Serve => main.extend(["in", "out", "batch"]),
    }
    main.push("use");
    match cfg.usage() {
        Usage::Hours => main.push("hpd"),
        Usage::Jobs if kind != FormKind::ImageTrain => main.push("jobs"),
        _ => {}
    }
    // A job's minutes are asked only where the plan does not time the job
    // (billing: `job_hours` when known, else `jobmin`): serving and
    // generation without `per_job`. One job has no count a month to ask for.
    match cfg.usage() {
        Usage::Jobs | Usage::Once
            if matches!(kind, FormKind::Serve | FormKind::Generate) && cfg.per_job.is_none() =>
        {
            main.push("jobmin")
        }
        _ => {}
    }
    // The work of one job, where a job is requests or generated items.
    if cfg.batch_usage() && matches!(kind, FormKind::Serve | FormKind::Generate) {
        main.push("per_job");
        // A job of a stated size can be given a deadline (`offers::deadline`).
        if cfg.per_job.is_some() {
            main.push("days");
        }
    }
    main.extend(["sort", "spot", "commit"]);
    let mut advanced = match kind {
        FormKind::Train if cfg.rl == Some(Rl::Grpo) => {
            vec![
                "gen",
                "vllm_mem",
                "beta",
                "mb",
                "optim",
                "gc",
                "zero",
                "act_offload",
                "param_offload",
                "rank",
                "ckpts",
            ]
        }
        FormKind::Train if cfg.rl.is_some() => {
            vec!["mb", "optim", "gc", "zero", "act_offload", "param_offload", "rank", "ckpts"]
        }
        FormKind::Train => {
            vec!["trainer", "optim", "gc", "zero", "gbs", "act_offload", "param_offload", "rank", "ckpts"]
        }
        FormKind::ImageTrain => vec!["optim", "gc", "zero", "gbs", "rank", "jobmin", "ckpts"],
        _ => vec!["engine", "kv"],
    };
    advanced.extend(["gpu", "gpus", "images"]);
    if cfg.images > 0 && cfg.task == Task::Serve {
        advanced.push("res");
    }
    if cfg.task == Task::Serve {
        // Load as a rate, the first-token SLA, and your own measurement on the pinned GPU.
        advanced.extend([
            "rps",
            "maxttft",
            "measured",
            "measured_ttft",
            "spec",
            "spec_tokens",
            "draft",
            "spec_accept",
        ]);
    }
    advanced.extend(["provider", "region", "mintps", "maxusd", "store", "egress", "restart", "cur", "theme"]);
    Inputs { main, advanced }
}

/// Whether the form shows the input for link key `key`.
pub fn shows(cfg: &Config, kind: FormKind, key: &str) -> bool {
    let i = inputs(cfg, kind);
    i.main.contains(&key) || i.advanced.contains(&key)
}

/// The message key labelling an input: `ui.<key>`, except where the link
/// key is short or the kind names the same number differently.
pub fn label(kind: FormKind, key: &str) -> &'static str {
    match key {
        "batch" if kind == FormKind::Generate => "ui.images_per_batch",
        "per_job" if kind == FormKind::Generate => "ui.per_job.images",
        _ => link::find(key).map_or("", |k| k.label),
    }
}

/// The unit the task produces for a model (the answer's model, after
/// resolve): what the offers are priced in.
pub fn unit(task: Task, model: &str, catalog: &Catalog) -> Unit {
    let media = catalog.media_model(model).map(|m| m.kind);
    match (task, media) {
        (Task::Serve, _) => Unit::Tokens,
        (Task::Generate, Some(MediaKind::Video)) => Unit::Clips,
        (Task::Generate, Some(MediaKind::Audio)) => Unit::Audio,
        (Task::Generate, _) => Unit::Images,
        (Task::Finetune, Some(MediaKind::Image)) => Unit::ImageTraining,
        (Task::Finetune | Task::Pretrain, _) => Unit::Training,
    }
}

/// An input's label for this configuration: `per_job` counts the unit the
/// generator makes (images, clips, audio seconds) or requests.
pub fn label_for(cfg: &Config, catalog: &Catalog, kind: FormKind, key: &str) -> &'static str {
    match (key, unit(cfg.task, cfg.model_id(), catalog)) {
        ("per_job", Unit::Clips) => "ui.per_job.clips",
        ("per_job", Unit::Audio) => "ui.per_job.audio",
        _ => label(kind, key),
    }
}

/// The cost objectives that have an offers-table column (its header is
/// the column table's, `columns::COLUMNS`).
const PRICE_COLUMNS: &[Objective] = &[
    Objective::UsdPerMillionOutputTokens,
    Objective::UsdPer1000Images,
    Objective::UsdPerClip,
    Objective::UsdPerAudioHour,
    Objective::UsdPerJob,
    Objective::UsdPerMonth,
];

/// The offers table's per-unit price column: the objective the offers were
/// ranked on when it is a cost, else the task's cost objective (a speed
/// ranking still prices the unit the user buys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriceColumn {
    pub objective: Objective,
    /// Message key of the column header.
    pub header: &'static str,
}

impl PriceColumn {
    /// The offer's price per unit; `None` where it is unknown (no fit, no speed).
    pub fn value(self, o: &OfferResult) -> Option<f64> {
        Some(self.objective.key(o)).filter(|v| *v < f64::MAX)
    }
}

pub fn price_column(catalog: &Catalog, answer: &Answer) -> PriceColumn {
    let ranked = answer.recommendation.as_ref().map(|r| r.objective);
    let column = |o: Objective| {
        let header = PRICE_COLUMNS.contains(&o).then(|| columns::by_id(o.as_str()))??.header;
        Some(PriceColumn { objective: o, header })
    };
    ranked
        .and_then(column)
        .or_else(|| {
            column(offers::cost_objective(&answer.settings, unit(answer.task, &answer.model, catalog)))
        })
        .unwrap_or(PriceColumn { objective: Objective::UsdPerMonth, header: "ui.col.month" })
}

/// The models the model select offers for a task: generators for
/// generation; language models plus image generators for fine-tuning;
/// language models and a custom architecture otherwise.
pub fn model_ids(task: Task, catalog: &Catalog) -> Vec<&str> {
    let llms = catalog.models.iter().map(|m| m.id.as_str());
    match task {
        Task::Generate => catalog.media.iter().map(|m| m.id.as_str()).collect(),
        Task::Finetune => llms
            .chain(catalog.media.iter().filter(|m| m.kind == MediaKind::Image).map(|m| m.id.as_str()))
            .collect(),
        Task::Serve | Task::Pretrain => llms.chain([CUSTOM_MODEL]).collect(),
    }
}

/// A model's display name (language model or generator); `None` for the
/// custom architecture and unknown ids.
pub fn model_name<'a>(catalog: &'a Catalog, id: &str) -> Option<&'a str> {
    if id == CUSTOM_MODEL {
        return None;
    }
    catalog.model(id).map(|m| m.name.as_str()).or_else(|| catalog.media_model(id).map(|m| m.name.as_str()))
}

/// The weight formats the format select offers: generators run in fewer
/// formats than language models (no AWQ/GPTQ/MXFP4).
pub fn format_ids(kind: FormKind) -> Vec<&'static str> {
    let all = precision::weight_formats();
    match kind {
        FormKind::Generate | FormKind::ImageTrain => {
            all.iter().filter(|f| precision::is_media_format(f.id)).map(|f| f.id).collect()
        }
        FormKind::Serve | FormKind::Train => all.iter().map(|f| f.id).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::Lang;
    use crate::core::messages::ui;

    fn cfg(task: Task) -> Config {
        Config { task, ..Config::default() }
    }

    fn catalog() -> &'static Catalog {
        match Catalog::bundled() {
            Ok(c) => c,
            Err(e) => unreachable!("bundled catalog: {e}"),
        }
    }

    fn all(i: &Inputs) -> Vec<&'static str> {
        i.main.iter().chain(&i.advanced).copied().collect()
    }

    #[test]
    fn kinds_follow_task_and_model() {
        let c = catalog();
        assert_eq!(kind(&cfg(Task::Serve), c), FormKind::Serve);
        assert_eq!(kind(&cfg(Task::Generate), c), FormKind::Generate);
        assert_eq!(kind(&cfg(Task::Pretrain), c), FormKind::Train);
        assert_eq!(kind(&cfg(Task::Finetune), c), FormKind::Train);
        let sdxl = Config { model: Some("sdxl".into()), ..cfg(Task::Finetune) };
        assert_eq!(kind(&sdxl, c), FormKind::ImageTrain);
    }

    #[test]
    fn each_kind_shows_its_own_inputs() {
        let serve = cfg(Task::Serve);
        let s = inputs(&serve, FormKind::Serve);
        assert_eq!(&s.main[..6], &["task", "model", "w", "in", "out", "batch"]);
        assert!(s.advanced.starts_with(&["engine", "kv"]));
        assert!(!shows(&serve, FormKind::Serve, "tokens"));
        assert!(!shows(&serve, FormKind::Serve, "res"));

        let gen = cfg(Task::Generate);
        assert!(["res", "steps", "batch", "frames", "fps", "seconds"].iter().all(|k| shows(
            &gen,
            FormKind::Generate,
            k
        )));
        assert!(!shows(&gen, FormKind::Generate, "in"));

        let pre = cfg(Task::Pretrain);
        assert!(shows(&pre, FormKind::Train, "tokens"));
        assert!(!shows(&pre, FormKind::Train, "method"), "pre-training has no fine-tuning method");
        assert!(shows(&pre, FormKind::Train, "optim") && !shows(&pre, FormKind::Train, "engine"));

        let ft = cfg(Task::Finetune);
        assert!(shows(&ft, FormKind::Train, "method"));
        let img = inputs(&ft, FormKind::ImageTrain);
        assert!(img.main.contains(&"res") && !img.main.contains(&"tokens"));
    }

    #[test]
    fn inputs_follow_model_usage_and_images() {
        let custom = Config { model: Some(CUSTOM_MODEL.into()), ..cfg(Task::Serve) };
        assert!(shows(&custom, FormKind::Serve, "params"));
        assert!(!shows(&cfg(Task::Serve), FormKind::Serve, "params"));

        let hours = Config { usage: Some(Usage::Hours), ..cfg(Task::Serve) };
        assert!(shows(&hours, FormKind::Serve, "hpd") && !shows(&hours, FormKind::Serve, "jobs"));
        // Serving's usage in effect is always-on: neither hours nor jobs.
        assert!(
            !shows(&cfg(Task::Serve), FormKind::Serve, "hpd")
                && !shows(&cfg(Task::Serve), FormKind::Serve, "jobs")
        );
        // Generation defaults to batch jobs.
        assert!(shows(&cfg(Task::Generate), FormKind::Generate, "jobs"));
        // An image fine-tune is one run: its steps, no job count; its
        // length in minutes only among the advanced inputs.
        let i = inputs(&cfg(Task::Finetune), FormKind::ImageTrain);
        assert!(!i.main.contains(&"jobs") && i.main.contains(&"train_steps"));
        assert_eq!(i.main.iter().chain(&i.advanced).filter(|k| **k == "jobmin").count(), 1);

        let images = Config { images: 2, ..cfg(Task::Serve) };
        assert!(inputs(&images, FormKind::Serve).advanced.contains(&"res"));
    }

    #[test]
    fn no_input_twice_and_every_input_labelled() {
        let c = catalog();
        for task in Task::ALL {
            for usage in Usage::ALL {
                for model in [None, Some(CUSTOM_MODEL), Some("sdxl")] {
                    let cfg = Config {
                        model: model.map(String::from),
                        usage: Some(*usage),
                        images: 1,
                        ..cfg(*task)
                    };
                    let k = kind(&cfg, c);
                    let keys = all(&inputs(&cfg, k));
                    for (i, key) in keys.iter().enumerate() {
                        assert!(!keys.iter().skip(i + 1).any(|x| x == key), "{key} twice for {task:?}");
                        let l = label(k, key);
                        assert!(
                            !ui(l, Lang::En).is_empty() && !ui(l, Lang::Zh).is_empty(),
                            "{key}: no label"
                        );
                        // Every input is a link key the codec accepts.
                        assert!(crate::core::link::KEYS.contains(key), "{key}");
                    }
                }
            }
        }
        assert_eq!(label(FormKind::Generate, "batch"), "ui.images_per_batch");
        assert_eq!(label(FormKind::Serve, "batch"), "ui.batch");
    }

    #[test]
    fn model_lists_follow_the_task() {
        let c = catalog();
        let serve = model_ids(Task::Serve, c);
        assert!(
            serve.contains(&"llama-3.1-8b")
                && serve.last() == Some(&CUSTOM_MODEL)
                && !serve.contains(&"sdxl")
        );
        assert_eq!(model_ids(Task::Pretrain, c), serve);
        let gen = model_ids(Task::Generate, c);
        assert!(gen.contains(&"sdxl") && !gen.contains(&"llama-3.1-8b"));
        assert_eq!(gen.len(), c.media.len());
        let ft = model_ids(Task::Finetune, c);
        assert!(ft.contains(&"llama-3.1-8b") && ft.contains(&"sdxl") && !ft.contains(&CUSTOM_MODEL));
        assert!(
            ft.iter()
                .all(|id| c.model(id).is_some()
                    || c.media_model(id).is_some_and(|m| m.kind == MediaKind::Image))
        );
        assert!(serve
            .iter()
            .chain(&gen)
            .chain(&ft)
            .all(|id| *id == CUSTOM_MODEL || model_name(c, id).is_some()));
        assert_eq!(model_name(c, CUSTOM_MODEL), None);
    }

    #[test]
    fn format_lists_follow_the_kind() {
        let llm = format_ids(FormKind::Serve);
        assert_eq!(llm.len(), precision::weight_formats().len());
        assert_eq!(format_ids(FormKind::Train), llm);
        let media = format_ids(FormKind::Generate);
        assert!(!media.is_empty() && media.len() < llm.len());
        assert!(media.iter().all(|f| precision::is_media_format(f) && llm.contains(f)));
        assert_eq!(format_ids(FormKind::ImageTrain), media);
    }

    #[test]
    fn per_job_and_commit_inputs() {
        let c = catalog();
        let jobs = Config { usage: Some(Usage::Jobs), ..cfg(Task::Serve) };
        assert!(shows(&jobs, FormKind::Serve, "per_job") && shows(&jobs, FormKind::Serve, "commit"));
        assert!(!shows(&cfg(Task::Serve), FormKind::Serve, "per_job"), "an endpoint has no jobs");
        let once = Config { usage: Some(Usage::Once), ..cfg(Task::Generate) };
        assert!(shows(&once, FormKind::Generate, "per_job"));
        assert!(!shows(
            &Config { usage: Some(Usage::Jobs), ..cfg(Task::Pretrain) },
            FormKind::Train,
            "per_job"
        ));
        assert_eq!(label_for(&jobs, c, FormKind::Serve, "per_job"), "ui.per_job.requests");
        assert_eq!(label_for(&once, c, FormKind::Generate, "per_job"), "ui.per_job.images");
        let clips = Config { model: Some("wan-2.1-1.3b".into()), ..once.clone() };
        assert_eq!(label_for(&clips, c, FormKind::Generate, "per_job"), "ui.per_job.clips");
        let audio = Config { model: Some("musicgen-small".into()), ..once };
        assert_eq!(label_for(&audio, c, FormKind::Generate, "per_job"), "ui.per_job.audio");
    }

    #[test]
    fn the_price_column_follows_the_objective() {
        use crate::core::date::Date;
        use crate::core::evaluate::evaluate_query;
        let c = catalog();
        let today = Date { year: 2026, month: 1, day: 1 };
        let col = |q: &str| price_column(c, &evaluate_query(q, c, today)).header;
        assert_eq!(col(""), "ui.col.mtok");
        assert_eq!(col("sort=speed"), "ui.col.mtok", "a speed ranking still prices tokens");
        assert_eq!(col("task=generate&model=flux.1-dev"), "ui.col.kimg");
        assert_eq!(col("task=generate&model=wan-2.1-1.3b"), "ui.col.clip");
        assert_eq!(col("task=generate&model=musicgen-small"), "ui.col.audioh");
        assert_eq!(col("task=generate&model=flux.1-dev&use=jobs&per_job=100"), "ui.col.job");
        assert_eq!(col("task=finetune&use=always"), "ui.col.month");
    }
}
