//! The inputs column. Which inputs show, in which order, with which model
//! and format lists, is the core's decision ([`crate::core::form`]); this
//! module only turns each link key into its widget and current value.

use yew::prelude::*;

use super::disclosure::Disclosure;
use super::fields::{Choice, Field, Options};
use super::hfimport::HfImport;
use super::options::{self, OptionLists};
use crate::core::catalog::Catalog;
use crate::core::config::{Batch, Config, GenMode, Lang};
use crate::core::estimate::stack::Stack;
use crate::core::form;
use crate::core::link::{self, Control};
use crate::core::messages::ui;

#[derive(Properties, PartialEq)]
pub struct FormProps {
    pub cfg: Config,
    /// An imported offers catalog is in use.
    pub imported: bool,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
    pub on_import: Callback<String>,
    /// A Hugging Face `config.json`'s text, pasted or read from a file.
    pub on_config: Callback<String>,
}

#[function_component(Form)]
pub fn form_view(p: &FormProps) -> Html {
    // The app shows an error instead of the page when the catalog is broken.
    let Ok(catalog) = Catalog::bundled() else { return html! {} };
    let lang = p.lang;
    let cfg = &p.cfg;
    let t = |k: &'static str| ui(k, lang);
    let kind = form::kind(cfg, catalog);
    let lists = use_memo(lang, |&lang| OptionLists::new(catalog, lang));
    let choices = use_memo((lang, cfg.task, kind), |&(lang, task, kind)| {
        (options::models(catalog, task, lang), options::formats(kind))
    });
    let inputs = form::inputs(cfg, kind);
    // Each widget's html is written once: the keys pick the value and list
    // of a `<select>` or the state of a checkbox, and the one `Choice`,
    // checkbox or `Field` below renders it (one compiled copy each).
    let input = |key: &'static str| -> Html {
        let choice: Option<(String, &Options)> = match key {
            "task" => Some((cfg.task.as_str().into(), &lists.tasks)),
            "model" => Some((cfg.model_id().into(), &choices.0)),
            "w" => Some((cfg.weight_format_id().into(), &choices.1)),
            "method" if kind == form::FormKind::Train => {
                Some((cfg.rl.map_or(cfg.method.as_str(), |r| r.as_str()).into(), &lists.methods_llm))
            }
            "method" | "adapter" => Some((cfg.method.as_str().into(), &lists.methods)),
            "gen" => Some((cfg.gen.unwrap_or(GenMode::Colocate).as_str().into(), &lists.gens)),
            "use" => Some((cfg.usage().as_str().into(), &lists.usages)),
            "sort" => Some((cfg.sort.as_str().into(), &lists.sorts)),
            "commit" => Some((cfg.commit.as_str().into(), &lists.commits)),
            "optim" => Some((cfg.optim.as_str().into(), &lists.optims)),
            "gc" => Some((cfg.gc.as_str().into(), &lists.gcs)),
            "zero" => Some((cfg.zero.map(|z| z.to_string()).unwrap_or_default(), &lists.zeros)),
            "engine" => Some((cfg.engine.as_str().into(), &lists.engines)),
            "kv" => Some((cfg.kv.clone(), &lists.kvs)),
            "gpu" => Some((cfg.gpu.clone().unwrap_or_default(), &lists.gpus)),
            "theme" => Some((cfg.theme.as_str().into(), &lists.themes)),
            "trainer" => Some((cfg.trainer.as_str().into(), &lists.trainers)),
            "cur" => Some((cfg.cur.map_or("", |c| c.as_str()).into(), &lists.curs)),
            _ => None,
        };
        let checked = match key {
            "spot" => Some(cfg.spot),
            // Unset: the trainer's default (Unsloth offloads), shown as such.
            "act_offload" => {
                Some(cfg.act_offload.unwrap_or(Stack::of(cfg.trainer).offloads_by_default(cfg.gc)))
            }
            "param_offload" => Some(cfg.param_offload),
            _ => None,
        };
        let label = form::label_for(cfg, catalog, kind, key);
        // The widget is the registry's decision (`link::Control`); the
        // matches above give its value.
        let control = link::find(key).map_or(Control::Text, |k| k.control);
        if let (Control::Select, Some((current, options))) = (control, choice) {
            let select = html! {
                <Choice
                    key={key}
                    {label}
                    id={format!("in-{key}")}
                    key_name={key}
                    {current}
                    options={options.clone()}
                    {lang}
                    on_set={p.on_set.clone()}
                />
            };
            // A language model's architecture can come from its config.json.
            if key == "model" && matches!(kind, form::FormKind::Serve | form::FormKind::Train) {
                html! { <>{ select }<HfImport key="hfconfig" {lang} on_config={p.on_config.clone()} /></> }
            } else {
                select
            }
        } else if let (Control::Check, Some(checked)) = (control, checked) {
            // A checkbox for a `0`/`1` key.
            let cb = p.on_set.clone();
            let onchange = Callback::from(move |e: Event| {
                let el: web_sys::HtmlInputElement = e.target_unchecked_into();
                cb.emit((key, if el.checked() { "1" } else { "0" }.into()));
            });
            html! {
                <label key={key} class="check" for={format!("in-{key}")}>
                    <input id={format!("in-{key}")} type="checkbox" {checked} {onchange} />
                    { ui(label, lang) }
                </label>
            }
        } else {
            html! {
                <Field
                    key={key}
                    {label}
                    id={format!("in-{key}")}
                    key_name={key}
                    current={text(cfg, key)}
                    {lang}
                    on_set={p.on_set.clone()}
                />
            }
        }
    };
    html! {
        <form
            class="inputs"
            aria-label={t("ui.inputs")}
            onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}
        >
            <h2>{ t("ui.inputs") }</h2>
            { for inputs.main.iter().map(|k| input(k)) }
            <Disclosure summary={t("ui.advanced")} testid="advanced">
                { for inputs.advanced.iter().map(|k| input(k)) }
                <label for="in-import">
                    { t("ui.import") }
                    <textarea
                        id="in-import"
                        rows="3"
                        data-testid="import"
                        placeholder="id,provider,instance,gpu,… or [{…}]"
                        onchange={let cb = p.on_import.clone();
                        Callback::from(move |e: Event| {
                            let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
                            cb.emit(el.value());
                        })}
                    />
                </label>
                if p.imported { <small data-testid="imported">{ t("ui.imported") }</small> }
            </Disclosure>
        </form>
    }
}

/// A text input's current value as the link writes it (empty: the default).
/// The plain keys (numbers, whole numbers) read the link codec's table.
fn text(cfg: &Config, key: &str) -> String {
    match key {
        "params" => cfg.custom.params_b.map(link::fmt_num).unwrap_or_default(),
        "res" => cfg.res.map(|(w, h)| format!("{w}x{h}")).unwrap_or_default(),
        // The global batch in effect (pre-training's default shows; blank = none).
        "gbs" => cfg.global_batch().map(|n| n.to_string()).unwrap_or_default(),
        // The steps in effect: the training script's default for the method where the link names none.
        "train_steps" => cfg
            .train_steps
            .unwrap_or_else(|| crate::core::estimate::media_train_time::default_train_steps(cfg.method))
            .to_string(),
        "batch" => match cfg.batch() {
            Batch::Max => "max".to_string(),
            Batch::N(n) => n.to_string(),
        },
        "provider" => cfg.providers.join(","),
        "region" => cfg.region.clone().unwrap_or_default(),
        "spec" => cfg.spec.as_str().into(),
        "draft" => cfg.draft.clone().unwrap_or_default(),
        _ => link::plain_text(cfg, key).unwrap_or_default(),
    }
}
