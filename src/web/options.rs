//! The selects' option lists. Enums list their `NAMES` (labels from the
//! messages `ui.<key>.<name>`, or the name itself where it is a product
//! name); which models and formats a task offers is the core's decision
//! ([`crate::core::form`]).

use std::rc::Rc;

use super::fields::Options;
use crate::core::catalog::Catalog;
use crate::core::config::{
    Checkpointing, Commit, Currency, Engine, GenMode, Lang, Method, Optim, Rl, Sort, Task, Theme, Trainer,
    Usage,
};
use crate::core::form::{self, FormKind};
use crate::core::messages::ui;
use crate::core::precision;

/// Every select's options that do not depend on the task, built once per language.
#[derive(Clone, PartialEq)]
pub struct OptionLists {
    pub gpus: Options,
    pub kvs: Options,
    pub engines: Options,
    pub trainers: Options,
    pub tasks: Options,
    pub usages: Options,
    pub sorts: Options,
    pub commits: Options,
    pub methods: Options,
    /// A language model's methods: the adapters and the RL methods.
    pub methods_llm: Options,
    pub gens: Options,
    pub optims: Options,
    pub gcs: Options,
    pub zeros: Options,
    pub themes: Options,
    /// Display currency: by language (empty), or one named.
    pub curs: Options,
}

/// An enum's names, each labelled by the message `ui.<key>.<name>`.
fn labelled<T>(key: &str, names: &[(&'static str, T)], lang: Lang) -> Options {
    Rc::new(
        names.iter().map(|(n, _)| (n.to_string(), ui(&format!("ui.{key}.{n}"), lang).to_string())).collect(),
    )
}

/// Values shown as they are (engine and theme names, format ids).
fn plain<'a>(values: impl IntoIterator<Item = &'a str>) -> Options {
    Rc::new(values.into_iter().map(|v| (v.to_string(), v.to_string())).collect())
}

fn names<T>(names: &'static [(&'static str, T)]) -> impl Iterator<Item = &'static str> {
    names.iter().map(|(n, _)| *n)
}

impl OptionLists {
    pub fn new(catalog: &Catalog, lang: Lang) -> OptionLists {
        let zeros: Vec<String> = form::ZERO_STAGES.iter().map(|z| z.to_string()).collect();
        OptionLists {
            gpus: Rc::new(
                std::iter::once((String::new(), ui("ui.gpu.any", lang).to_string()))
                    .chain(catalog.gpus.iter().map(|g| (g.id.clone(), g.name.clone())))
                    .collect(),
            ),
            kvs: plain(precision::KV_FORMATS.iter().copied()),
            engines: plain(names(Engine::NAMES)),
            trainers: plain(names(Trainer::NAMES)),
            tasks: labelled("task", Task::NAMES, lang),
            usages: labelled("use", Usage::NAMES, lang),
            sorts: labelled("sort", Sort::NAMES, lang),
            commits: labelled("commit", Commit::NAMES, lang),
            methods: labelled("method", Method::NAMES, lang),
            methods_llm: Rc::new(
                labelled("method", Method::NAMES, lang)
                    .iter()
                    .chain(labelled("method", Rl::NAMES, lang).iter())
                    .cloned()
                    .collect(),
            ),
            gens: labelled("gen", GenMode::NAMES, lang),
            optims: labelled("optim", Optim::NAMES, lang),
            gcs: labelled("gc", Checkpointing::NAMES, lang),
            // Blank: the planner's choice per layout (`Config::zero_stages`).
            zeros: Rc::new(
                std::iter::once((String::new(), ui("ui.zero.auto", lang).to_string()))
                    .chain(zeros.iter().map(|z| (z.clone(), ui(&format!("ui.zero.{z}"), lang).to_string())))
                    .collect(),
            ),
            themes: plain(names(Theme::NAMES)),
            curs: Rc::new(
                std::iter::once((String::new(), ui("ui.cur.auto", lang).to_string()))
                    .chain(labelled("cur", Currency::NAMES, lang).iter().cloned())
                    .collect(),
            ),
        }
    }
}

/// The model select's options for a task: the catalog's names; the custom
/// architecture labelled by a message.
pub fn models(catalog: &Catalog, task: Task, lang: Lang) -> Options {
    Rc::new(
        form::model_ids(task, catalog)
            .into_iter()
            .map(|id| {
                (
                    id.to_string(),
                    form::model_name(catalog, id).unwrap_or_else(|| ui("ui.custom", lang)).to_string(),
                )
            })
            .collect(),
    )
}

/// The format select's options for a kind of job.
pub fn formats(kind: FormKind) -> Options {
    plain(form::format_ids(kind))
}
