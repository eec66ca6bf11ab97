//! Components of the page. Props are data plus callbacks; nothing here
//! estimates anything: it renders the core's [`Answer`].

use std::rc::Rc;

use yew::prelude::*;

use super::app::State;
use super::charts::{MemoryBar, Scatter};
use super::dom;
use crate::core::answer::Answer;
use crate::core::catalog::Catalog;
use crate::core::config::{Batch, Lang, Sort, Task, Theme, Usage};
use crate::core::estimate::engine;
use crate::core::link::{self, Notice};
use crate::core::messages::{ui, Msg};
use crate::core::precision;
use crate::core::units::GIB;

#[derive(Properties, PartialEq)]
pub struct PageProps {
    pub state: State,
    pub answer: Rc<Answer>,
    pub notices: Vec<Notice>,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
    pub on_copied: Callback<()>,
    pub on_import: Callback<String>,
    pub on_price: Callback<(String, String)>,
}

/// Formats a number for the locale (thousands separators; Chinese uses the same digits).
pub fn num(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let s = format!("{:.*}", digits, v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(a, b)| (a, b));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

pub fn usd(v: f64, lang: Lang) -> String {
    let digits = if v.abs() < 10.0 { 2 } else { 0 };
    match lang {
        Lang::En => format!("${}", num(v, digits)),
        Lang::Zh => format!("{} 美元", num(v, digits)),
    }
}

fn gib(b: f64) -> String {
    format!("{} GiB", num(b / GIB, 1))
}

/// (value, label) pairs of a `<select>`, shared between renders so that an
/// unchanged select is skipped by the diff.
pub type Options = Rc<Vec<(String, String)>>;

#[derive(Properties, PartialEq)]
pub struct ChoiceProps {
    pub label: &'static str,
    pub id: &'static str,
    pub key_name: &'static str,
    pub current: String,
    pub options: Options,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
}

/// A labelled `<select>` bound to one link key. A component with equal
/// props is not re-rendered: the long model and GPU lists cost nothing when
/// another input changes.
#[function_component(Choice)]
fn choice(p: &ChoiceProps) -> Html {
    let key = p.key_name;
    let cb = p.on_set.clone();
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
        cb.emit((key, el.value()));
    });
    html! {
        <label for={p.id}>{ ui(p.label, p.lang) }
            <select id={p.id} name={key} {onchange}>
                { for p.options.iter().map(|(v, text)| html! { <option value={v.clone()} selected={*v == p.current}>{ text.clone() }</option> }) }
            </select>
        </label>
    }
}

fn select(label: &'static str, id: &'static str, key: &'static str, current: String, options: Options, lang: Lang, on_set: &Callback<(&'static str, String)>) -> Html {
    html! { <Choice {label} {id} key_name={key} {current} {options} {lang} on_set={on_set.clone()} /> }
}

#[derive(Properties, PartialEq)]
pub struct FieldProps {
    pub label: &'static str,
    pub id: &'static str,
    pub key_name: &'static str,
    pub current: String,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
}

/// A labelled text input bound to one link key (skipped when unchanged).
#[function_component(Field)]
fn field(p: &FieldProps) -> Html {
    let key = p.key_name;
    let cb = p.on_set.clone();
    let onchange = Callback::from(move |e: Event| {
        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
        cb.emit((key, el.value()));
    });
    html! {
        <label for={p.id}>{ ui(p.label, p.lang) }
            <input id={p.id} name={key} type="text" inputmode="decimal" value={p.current.clone()} {onchange} />
        </label>
    }
}

fn number(label: &'static str, id: &'static str, key: &'static str, current: String, lang: Lang, on_set: &Callback<(&'static str, String)>) -> Html {
    html! { <Field {label} {id} key_name={key} {current} {lang} on_set={on_set.clone()} /> }
}

#[function_component(Page)]
pub fn page(p: &PageProps) -> Html {
    let lang = p.lang;
    let cfg = &p.state.cfg;
    let a = &p.answer;
    let t = |k: &'static str| ui(k, lang);
    let on_set = &p.on_set;
    let catalog = Catalog::bundled().ok();
    let lang_switch = {
        let cb = on_set.clone();
        let next = if lang == Lang::Zh { "en" } else { "zh" };
        Callback::from(move |_| cb.emit(("lang", next.to_string())))
    };
    let share = format!("{}?{}", dom::location_base(), a.query);
    let copy = {
        let share = share.clone();
        let done = p.on_copied.clone();
        Callback::from(move |_| {
            dom::copy_to_clipboard(&share);
            done.emit(());
        })
    };
    let mut embed_cfg = cfg.clone();
    embed_cfg.embed = true;
    let embed_src = format!("{}?{}", dom::location_base(), link::encode(&embed_cfg));
    let snippet = format!(
        "<iframe src=\"{embed_src}\" title=\"whichgpu\" style=\"width:100%;border:0\" loading=\"lazy\"></iframe>\n<script>addEventListener(\"message\",e=>{{if(e.data&&e.data.type===\"whichgpu:height\")for(const f of document.querySelectorAll('iframe[src^=\"{}\"]'))if(f.contentWindow===e.source)f.style.height=e.data.height+\"px\"}})</script>",
        dom::location_base()
    );
    let lists = use_memo(lang, |&lang| OptionLists::new(catalog, lang));
    let OptionLists { models, generators, trainable, gpus, formats, media_formats, kvs, engines, tasks, usages, sorts, methods, optims, gcs, zeros, themes } = (*lists).clone();
    // The model list follows the task: generators for generation, language
    // models plus image generators for fine-tuning.
    let models = match cfg.task {
        Task::Generate => generators,
        Task::Finetune => trainable,
        _ => models,
    };
    let task = cfg.task.as_str();
    let usage = cfg.usage().as_str();
    let sort = cfg.sort.as_str();
    let method_id = cfg.method.as_str();
    let optim = cfg.optim.as_str();
    let gc = cfg.gc.as_str();
    let training = cfg.is_training();
    // Fine-tuning an image generator: resolution instead of tokens, and a
    // run length instead of a time estimate.
    let image_training = catalog.is_some_and(|c| crate::core::form::kind(cfg, c) == crate::core::form::FormKind::ImageTrain);
    // Generators run in fewer formats than language models (no AWQ/GPTQ/MXFP4).
    let formats = if cfg.task == Task::Generate || image_training { media_formats } else { formats };
    let speed_of = |o: &crate::core::answer::OfferResult| o.speed_score;
    let batch = match cfg.batch() {
        Batch::Max => "max".to_string(),
        Batch::N(n) => n.to_string(),
    };
    let spot_cb = {
        let cb = on_set.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            cb.emit(("spot", if el.checked() { "1" } else { "0" }.into()));
        })
    };
    let theme = match cfg.theme {
        Theme::Auto => "auto",
        Theme::Light => "light",
        Theme::Dark => "dark",
    };

    let form = html! {
        <form class="inputs" aria-label={t("ui.inputs")} onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <h2>{ t("ui.inputs") }</h2>
            { select("ui.task", "in-task", "task", task.into(), tasks, lang, on_set) }
            { select("ui.model", "in-model", "model", cfg.model_id().to_string(), models, lang, on_set) }
            if cfg.model_id() == "custom" {
                { number("ui.params", "in-params", "params", cfg.custom.params_b.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
            }
            { select("ui.format", "in-w", "w", cfg.weight_format_id().to_string(), formats, lang, on_set) }
            if cfg.is_training() {
                if cfg.task == Task::Finetune {
                    { select("ui.ftmethod", "in-method", "method", method_id.into(), methods, lang, on_set) }
                }
                if image_training {
                    { number("ui.res", "in-res", "res", cfg.res.map(|(w, h)| format!("{w}x{h}")).unwrap_or_default(), lang, on_set) }
                    { number("ui.mb", "in-mb", "mb", cfg.mb.to_string(), lang, on_set) }
                    { number("ui.jobmin", "in-jobmin", "jobmin", link::fmt_num(cfg.jobmin), lang, on_set) }
                } else {
                    { number("ui.tokens", "in-tokens", "tokens", cfg.tokens.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
                    { number("ui.epochs", "in-epochs", "epochs", link::fmt_num(cfg.epochs), lang, on_set) }
                    { number("ui.mb", "in-mb", "mb", cfg.mb.to_string(), lang, on_set) }
                    { number("ui.seq", "in-seq", "seq", cfg.seq.to_string(), lang, on_set) }
                    { number("ui.days", "in-days", "days", cfg.days.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
                }
            } else if cfg.task == Task::Generate {
                { number("ui.res", "in-res", "res", cfg.res.map(|(w, h)| format!("{w}x{h}")).unwrap_or_default(), lang, on_set) }
                { number("ui.steps", "in-steps", "steps", cfg.steps.map(|s| s.to_string()).unwrap_or_default(), lang, on_set) }
                { number("ui.images_per_batch", "in-batch", "batch", batch, lang, on_set) }
                { number("ui.frames", "in-frames", "frames", cfg.frames.map(|s| s.to_string()).unwrap_or_default(), lang, on_set) }
                { number("ui.fps", "in-fps", "fps", cfg.fps.map(|s| s.to_string()).unwrap_or_default(), lang, on_set) }
                { number("ui.seconds", "in-seconds", "seconds", cfg.seconds.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
            } else {
                { number("ui.in", "in-in", "in", cfg.input_tokens.to_string(), lang, on_set) }
                { number("ui.out", "in-out", "out", cfg.output_tokens.to_string(), lang, on_set) }
                { number("ui.batch", "in-batch", "batch", batch, lang, on_set) }
            }
            { select("ui.usage", "in-use", "use", usage.into(), usages, lang, on_set) }
            if cfg.usage() == Usage::Hours {
                { number("ui.hpd", "in-hpd", "hpd", link::fmt_num(cfg.hpd), lang, on_set) }
            }
            if matches!(cfg.usage(), Usage::Jobs | Usage::Once) && !image_training {
                { number("ui.jobs", "in-jobs", "jobs", link::fmt_num(cfg.jobs), lang, on_set) }
                { number("ui.jobmin", "in-jobmin", "jobmin", link::fmt_num(cfg.jobmin), lang, on_set) }
            }
            { select("ui.sort", "in-sort", "sort", sort.into(), sorts, lang, on_set) }
            <label class="check" for="in-spot"><input id="in-spot" type="checkbox" checked={cfg.spot} onchange={spot_cb} />{ t("ui.spot") }</label>
            <details>
                <summary>{ t("ui.advanced") }</summary>
                if cfg.is_training() {
                    { select("ui.optim", "in-optim", "optim", optim.into(), optims, lang, on_set) }
                    { select("ui.gc", "in-gc", "gc", gc.into(), gcs, lang, on_set) }
                    { select("ui.zero", "in-zero", "zero", cfg.zero.to_string(), zeros, lang, on_set) }
                    { number("ui.rank", "in-rank", "rank", cfg.rank.to_string(), lang, on_set) }
                    { number("ui.ckpts", "in-ckpts", "ckpts", cfg.ckpts.to_string(), lang, on_set) }
                } else {
                    { select("ui.engine", "in-engine", "engine", cfg.engine.as_str().into(), engines, lang, on_set) }
                    { select("ui.kv", "in-kv", "kv", cfg.kv.clone(), kvs, lang, on_set) }
                }
                { select("ui.gpu", "in-gpu", "gpu", cfg.gpu.clone().unwrap_or_default(), gpus, lang, on_set) }
                { number("ui.gpus", "in-gpus", "gpus", cfg.gpus.map(|g| g.to_string()).unwrap_or_default(), lang, on_set) }
                { number("ui.images", "in-images", "images", cfg.images.to_string(), lang, on_set) }
                if cfg.images > 0 && cfg.task == Task::Serve {
                    { number("ui.res", "in-res", "res", cfg.res.map(|(w, h)| format!("{w}x{h}")).unwrap_or_default(), lang, on_set) }
                }
                { number("ui.provider", "in-provider", "provider", cfg.providers.join(","), lang, on_set) }
                { number("ui.region", "in-region", "region", cfg.region.clone().unwrap_or_default(), lang, on_set) }
                { number("ui.mintps", "in-mintps", "mintps", cfg.mintps.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
                { number("ui.maxusd", "in-maxusd", "maxusd", cfg.maxusd.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
                { number("ui.store", "in-store", "store", cfg.store_gb.map(link::fmt_num).unwrap_or_default(), lang, on_set) }
                { number("ui.egress", "in-egress", "egress", link::fmt_num(cfg.egress_gb), lang, on_set) }
                { number("ui.restart", "in-restart", "restart", link::fmt_num(cfg.restart_pct), lang, on_set) }
                { select("ui.theme", "in-theme", "theme", theme.into(), themes, lang, on_set) }
                <label for="in-import">{ t("ui.import") }
                    <textarea id="in-import" rows="3" data-testid="import" placeholder="id,provider,instance,gpu,… or [{…}]" onchange={
                        let cb = p.on_import.clone();
                        Callback::from(move |e: Event| {
                            let el: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
                            cb.emit(el.value());
                        })
                    } />
                </label>
                if p.state.imported.is_some() { <small data-testid="imported">{ t("ui.imported") }</small> }
            </details>
        </form>
    };

    let notices = if p.notices.is_empty() {
        html! {}
    } else {
        html! {
            <div class="notice" role="status" data-testid="notice">
                <strong>{ t("ui.notice") }</strong>
                <ul>{ for p.notices.iter().map(|n| html! { <li><code>{ n.key.clone() }</code>{ ": " }{ n.message.clone() }</li> }) }</ul>
            </div>
        }
    };

    let offer_by_id = |id: &str| a.offers.iter().find(|o| &*o.id == id);
    let recommendation = match &a.recommendation {
        Some(r) => {
            let pick = offer_by_id(&r.pick.offer);
            html! {
                <section class="card reco" data-testid="recommendation" aria-labelledby="h-reco">
                    <h2 id="h-reco">{ t("ui.recommendation") }</h2>
                    if let Some(o) = pick {
                        <p class="pick"><strong data-testid="pick-offer">{ format!("{} · {}", o.provider, o.instance) }</strong>
                            { format!(" — {}× {} · {} ", o.gpus, o.gpu, o.region) }</p>
                        <p class="big">
                            if o.speed_score > 0.0 {
                                <span data-testid="pick-speed">{ format!("{} tok/s", num(o.speed_score, 1)) }</span>{ " · " }
                            }
                            if let (true, None, Some(j)) = (training, o.speeds.job_hours, o.usd_per_job) {
                                <span data-testid="pick-job">{ format!("{}{}", usd(j, lang), t("ui.per_job")) }</span>
                            } else if let (true, Some(h), Some(j)) = (training, o.speeds.job_hours, o.usd_per_job) {
                                <span data-testid="pick-job">{ format!("{} h, {}{}", num(h, 1), usd(j, lang), t("ui.per_job")) }</span>
                            } else {
                                <span data-testid="pick-month">{ format!("{}{}", usd(o.usd_per_month, lang), t("ui.per_month")) }</span>
                            }
                            { " · " }{ format!("{}{}", usd(o.usd_per_hour, lang), t("ui.per_hour")) }
                        </p>
                    }
                    <ul>{ for r.pick.reason_msgs.iter().map(|m| html! { <li>{ m.render(lang) }</li> }) }</ul>
                    <ul class="alts">
                        { for r.alternatives.iter().map(|alt| {
                            let label = ui(match alt.why { "cheapest" => "why.cheapest", "fastest" => "why.fastest", "single-gpu" => "why.single-gpu", _ => "why.on-demand" }, lang);
                            let name = offer_by_id(&alt.offer).map(|o| format!("{} · {}", o.provider, o.instance)).unwrap_or_else(|| alt.offer.to_string());
                            html! { <li><strong>{ label }{ ": " }</strong>{ name }{ " — " }{ alt.reason_msgs.iter().map(|m| m.render(lang)).collect::<Vec<_>>().join("; ") }</li> }
                        }) }
                    </ul>
                </section>
            }
        }
        None => html! { <section class="card reco" data-testid="recommendation"><h2>{ t("ui.recommendation") }</h2><p>{ t("ui.none") }</p></section> },
    };

    let m = &a.memory;
    let memory = html! {
        <section class="card" aria-labelledby="h-mem">
            <h2 id="h-mem">{ t("ui.memory") }</h2>
            <p class="big"><span data-testid="memory-total" data-bytes={format!("{:.0}", m.total_bytes)}>{ gib(m.total_bytes) }</span>
                <small>{ format!(" ({} – {}) · {} {} {}× {}", gib(m.total_bytes_low), gib(m.total_bytes_high), t("ui.memory.on"), "", m.gpus, m.gpu) }</small></p>
            <MemoryBar memory={m.clone()} lang={lang} />
            <p><small>{ format!("{}: {}", t("ui.memory.reserved"), gib(m.reserved_bytes)) }</small></p>
        </section>
    };

    let sort_by = |key: &'static str| {
        let cb = on_set.clone();
        Callback::from(move |_| cb.emit(("sort", key.to_string())))
    };
    let export = {
        let a = a.clone();
        Callback::from(move |_| dom::download("whichgpu-offers.csv", "text/csv", &offers_csv(&a)))
    };
    let table = html! {
        <section class="card" aria-labelledby="h-offers">
            <h2 id="h-offers">{ t("ui.offers") }</h2>
            <p><small data-testid="offers-shown">{ Msg::new("ui.offers.shown").num("shown", a.offers.len().min(TABLE_ROWS) as f64, 0).num("total", a.offers.len() as f64, 0).render_ui(lang) }</small></p>
            <div class="tools">
                <button type="button" onclick={export} data-testid="export-csv">{ t("ui.export") }</button>
                <button type="button" onclick={Callback::from(|_| dom::print())}>{ t("ui.print") }</button>
            </div>
            <div class="scroll">
            <table data-testid="offers">
                <thead><tr>
                    <th scope="col">{ t("ui.col.offer") }</th>
                    <th scope="col">{ t("ui.col.gpu") }</th>
                    <th scope="col">{ t("ui.col.fits") }</th>
                    <th scope="col" aria-sort={ if cfg.sort == Sort::Speed { "descending" } else { "none" } }><button type="button" class="th" onclick={sort_by("speed")} data-testid="sort-speed">{ if training { t("ui.col.train") } else { t("ui.col.speed") } }</button></th>
                    <th scope="col">{ t("ui.col.hour") }</th>
                    <th scope="col" aria-sort={ if cfg.sort == Sort::Cost { "ascending" } else { "none" } }><button type="button" class="th" onclick={sort_by("cost")} data-testid="sort-cost">{ t("ui.col.month") }</button></th>
                    <th scope="col" aria-sort={ if cfg.sort == Sort::Token { "ascending" } else { "none" } }><button type="button" class="th" onclick={sort_by("token")}>{ if training { t("ui.col.job") } else { t("ui.col.mtok") } }</button></th>
                    <th scope="col">{ t("ui.col.date") }</th>
                </tr></thead>
                <tbody>
                { for a.offers.iter().take(TABLE_ROWS).map(|o| html! {
                    <tr class={ classes!(if o.fits { "fit" } else { "nofit" }) } data-offer={o.id.to_string()}>
                        <td>{ format!("{} · {}", o.provider, o.instance) }</td>
                        <td>{ format!("{}× {}", o.gpus, o.gpu) }</td>
                        <td>{ if o.fits { t("ui.yes") } else { t("ui.no") } }</td>
                        <td class="num" data-speed={format!("{:.3}", speed_of(o))}>{ if speed_of(o) > 0.0 { num(speed_of(o), if training { 0 } else { 1 }) } else { "–".to_string() } }</td>
                        <td class="num"><input class="price" type="text" inputmode="decimal" aria-label={format!("{} {}", t("ui.yourprice"), o.id)}
                            value={format!("{:.2}", o.usd_per_hour / f64::from(o.instances.max(1)))}
                            onchange={
                                let cb = p.on_price.clone();
                                let id = o.id.clone();
                                Callback::from(move |e: Event| {
                                    let el: web_sys::HtmlInputElement = e.target_unchecked_into();
                                    cb.emit((id.to_string(), el.value()));
                                })
                            } /></td>
                        <td class="num" data-usd-month={format!("{:.2}", o.usd_per_month)}>{ usd(o.usd_per_month, lang) }</td>
                        <td class="num">{ if training { o.usd_per_job } else { o.usd_per_million_output_tokens }.map(|v| usd(v, lang)).unwrap_or_else(|| "–".into()) }</td>
                        <td>{ o.price_as_of.to_string() }{ if o.stale { format!(" ({})", t("ui.stale")) } else { String::new() } }</td>
                    </tr>
                }) }
                </tbody>
            </table>
            </div>
        </section>
    };

    let guidance = html! {
        <section class="card" data-testid="guidance" aria-labelledby="h-guide">
            <h2 id="h-guide">{ t("ui.guidance") }</h2>
            { for a.guidance.iter().map(|g| html! {
                <div class="faq" data-rule={g.id}>
                    if let Some(title) = &g.title_msg { <h3>{ title.render(lang) }</h3> }
                    <p>{ g.msg.render(lang) }{ " " }<a href="#method">{ t("ui.method") }</a></p>
                </div>
            }) }
        </section>
    };

    let page_class = classes!("page", cfg.embed.then_some("embed"));
    let out = html! {
        <div class={page_class}>
            if !cfg.embed {
                <header>
                    <h1>{ t("ui.title") }</h1>
                    <p>{ t("ui.tagline") }</p>
                    <p class="tools">
                        <button type="button" data-testid="lang-switch" onclick={lang_switch} lang={ if lang == Lang::Zh { "en" } else { "zh-CN" } }>{ t("ui.lang") }</button>
                        <button type="button" data-testid="copy-link" onclick={copy}>{ if p.state.copied { t("ui.copied") } else { t("ui.copy") } }</button>
                        <small>{ Msg::new("ui.catalog").arg("date", a.catalog_as_of.clone()).render_ui(lang) }</small>
                    </p>
                </header>
            }
            { notices }
            <main class="cols">
                { form }
                <div class="results">
                    { recommendation }
                    { memory }
                    <section class="card" aria-labelledby="h-scatter">
                        <h2 id="h-scatter">{ t("ui.scatter") }</h2>
                        <Scatter answer={a.clone()} lang={lang} />
                    </section>
                    { table }
                    { guidance }
                    if !cfg.embed {
                        { method(a, lang) }
                        <section class="card" aria-labelledby="h-embed">
                            <h2 id="h-embed">{ t("ui.embed") }</h2>
                            <textarea readonly=true rows="5" aria-labelledby="h-embed" data-testid="embed-snippet" value={snippet} />
                        </section>
                    }
                </div>
            </main>
        </div>
    };
    dom::mark("__whichgpu_view_ms");
    out
}

/// Offers shown in the table, best first; the CSV export has them all.
const TABLE_ROWS: usize = 25;

/// Every select's options for one language, built once per language.
#[derive(Clone, PartialEq)]
struct OptionLists {
    models: Options,
    generators: Options,
    trainable: Options,
    gpus: Options,
    formats: Options,
    media_formats: Options,
    kvs: Options,
    engines: Options,
    tasks: Options,
    usages: Options,
    sorts: Options,
    methods: Options,
    optims: Options,
    gcs: Options,
    zeros: Options,
    themes: Options,
}

impl OptionLists {
    fn new(catalog: Option<&Catalog>, lang: Lang) -> OptionLists {
        let t = |k: &'static str| ui(k, lang).to_string();
        let opts = |pairs: &[(&str, &'static str)]| -> Options { Rc::new(pairs.iter().map(|(v, k)| (v.to_string(), t(k))).collect()) };
        let same = |ids: Vec<String>| -> Options { Rc::new(ids.into_iter().map(|v| (v.clone(), v)).collect()) };
        let media = crate::core::catalog::media::bundled_media().unwrap_or(&[]);
        let llms: Vec<(String, String)> = catalog.map(|c| c.models.iter().map(|m| (m.id.clone(), m.name.clone())).collect()).unwrap_or_default();
        let images = media.iter().filter(|m| m.kind == crate::core::catalog::media::MediaKind::Image).map(|m| (m.id.clone(), m.name.clone()));
        OptionLists {
            generators: Rc::new(media.iter().map(|m| (m.id.clone(), m.name.clone())).collect()),
            trainable: Rc::new(llms.into_iter().chain(images).collect()),
            models: Rc::new(
                catalog
                    .map(|c| c.models.iter().map(|m| (m.id.clone(), m.name.clone())).chain([("custom".to_string(), t("ui.custom"))]).collect())
                    .unwrap_or_default(),
            ),
            gpus: Rc::new(
                std::iter::once((String::new(), t("ui.gpu.any")))
                    .chain(catalog.into_iter().flat_map(|c| c.gpus.iter().map(|g| (g.id.clone(), g.name.clone()))))
                    .collect(),
            ),
            formats: same(precision::weight_formats().iter().map(|f| f.id.to_string()).collect()),
            media_formats: same(precision::weight_formats().iter().filter(|f| precision::is_media_format(f.id)).map(|f| f.id.to_string()).collect()),
            kvs: same(precision::KV_FORMATS.iter().map(|k| k.to_string()).collect()),
            engines: same(crate::core::config::Engine::ALL.iter().map(|e| e.as_str().to_string()).collect()),
            tasks: opts(&[("serve", "ui.task.serve"), ("generate", "ui.task.generate"), ("finetune", "ui.task.finetune"), ("pretrain", "ui.task.pretrain")]),
            usages: opts(&[("always", "ui.use.always"), ("hours", "ui.use.hours"), ("jobs", "ui.use.jobs"), ("once", "ui.use.once")]),
            sorts: opts(&[("cost", "ui.sort.cost"), ("token", "ui.sort.token"), ("speed", "ui.sort.speed"), ("latency", "ui.sort.latency")]),
            methods: opts(&[("full", "ui.method.full"), ("lora", "ui.method.lora"), ("qlora", "ui.method.qlora")]),
            optims: opts(&[("adamw", "ui.optim.adamw"), ("adamw8bit", "ui.optim.adamw8bit"), ("adafactor", "ui.optim.adafactor"), ("sgd", "ui.optim.sgd"), ("sgd-momentum", "ui.optim.sgd-momentum")]),
            gcs: opts(&[("none", "ui.gc.none"), ("selective", "ui.gc.selective"), ("full", "ui.gc.full")]),
            zeros: opts(&[("0", "ui.zero.0"), ("1", "ui.zero.1"), ("2", "ui.zero.2"), ("3", "ui.zero.3")]),
            themes: same(vec!["auto".into(), "light".into(), "dark".into()]),
        }
    }
}

/// The offers table as CSV (the same figures as the table).
pub fn offers_csv(a: &Answer) -> String {
    let mut out = String::from("id,provider,instance,gpu,gpus,instances,fits,decode_tokens_per_s_per_seq,usd_per_hour,usd_per_month,usd_per_million_output_tokens,price_as_of,stale,source\n");
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for o in &a.offers {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{:.2},{:.4},{:.2},{},{},{},{}\n",
            q(&o.id),
            q(&o.provider),
            q(&o.instance),
            q(&o.gpu),
            o.gpus,
            o.instances,
            o.fits,
            o.speeds.decode_tokens_per_s_per_seq.unwrap_or(0.0),
            o.usd_per_hour,
            o.usd_per_month,
            o.usd_per_million_output_tokens.map(|v| format!("{v:.4}")).unwrap_or_default(),
            o.price_as_of,
            o.stale,
            q(&o.source)
        ));
    }
    out
}

/// The method section: the formulas with this configuration's numbers.
fn method(a: &Answer, lang: Lang) -> Html {
    let t = |k: &'static str| ui(k, lang);
    let m = &a.memory;
    let pick = a.recommendation.as_ref().and_then(|r| a.offers.iter().find(|o| o.id == r.pick.offer));
    html! {
        <section class="card method" id="method" aria-labelledby="h-method">
            <h2 id="h-method">{ t("ui.method") }</h2>
            <p>{ "weights = body params × bits/8 + embedding params × embed bits/8 = " }{ gib(m.weights_bytes) }</p>
            <p>{ "KV cache = sequences × tokens × Σ layers 2 · kv_heads · head_dim · bytes (window-capped for sliding layers, latent for MLA) = " }{ gib(m.kv_cache_bytes) }</p>
            <p>{ format!("decode step = max(weights read / (bandwidth · η_bw), 2 · active params · batch / (dense rate · η_c)) + KV read / (bandwidth · η_bw) + all-reduce + routed-expert layers × {:.0} µs (vLLM, SGLang)", engine::MOE_LAYER_S * 1e6) }</p>
            <p>{ format!("first token = images × megapixels × {} s (preparation) + 2 · vision params · patches / (dense rate · η_c) + prefill FLOPs / (dense rate · η_c)", engine::IMAGE_PREP_S_PER_MP) }</p>
            if let Some(o) = pick {
                <p>{ format!("→ {} tok/s per sequence on {}× {} (confidence: {})", num(o.speeds.decode_tokens_per_s_per_seq.unwrap_or(0.0), 1), o.gpus, o.gpu, o.confidence) }</p>
            }
            <p>{ "η fitted per engine × GPU class on published measurements; median error: decode 6.5 %, prefill 14.3 %, offline throughput 4.7 %, memory 1.4 % (74 rows). Sources: Pope et al. 2022; Kaplan et al. 2020; GQA (Ainslie et al. 2023); DeepSeek-V2 (MLA); vendor datasheets (dense rates)." }</p>
            <h3>{ t("ui.accuracy") }</h3>
            <div class="scroll"><table>
                <thead><tr><th>{ "case" }</th><th>{ "measured" }</th><th>{ "estimate" }</th></tr></thead>
                <tbody>
                    { for ACCURACY.iter().map(|(case, measured, est)| html! { <tr><td>{ *case }</td><td class="num">{ *measured }</td><td class="num">{ *est }</td></tr> }) }
                </tbody>
            </table></div>
        </section>
    }
}

/// Representative rows of `whichgpu calibrate tests/data/calibration.csv`.
const ACCURACY: &[(&str, &str, &str)] = &[
    ("Llama-3-8B Q4_K_M decode, RTX 4090, llama.cpp", "130.6 tok/s", "156.7 tok/s"),
    ("Llama-3-70B Q4_K_M decode, 2× RTX 3090, llama.cpp", "16.6 tok/s", "17.3 tok/s"),
    ("Llama-2-70B BF16 decode, 8× A100 TP8, gpt-fast", "62.5 tok/s", "62.8 tok/s"),
    ("Llama-3.1-8B FP8 throughput 128/2048, H200, TensorRT-LLM", "26 221 tok/s", "25 506 tok/s"),
    ("OctoCoder 15.5B BF16 memory, A100, HF", "29.03 GiB", "28.88 GiB"),
];

trait RenderUi {
    fn render_ui(&self, lang: Lang) -> String;
}

impl RenderUi for Msg {
    fn render_ui(&self, lang: Lang) -> String {
        self.fill(ui(self.key, lang))
    }
}
