//! The page's layout: header, notices, the inputs column and the results
//! column, each part rendered by its own module. Props are data plus
//! callbacks; nothing here estimates anything: it renders the core's
//! [`Answer`].

use std::rc::Rc;

use yew::prelude::*;

use super::charts::Scatter;
use super::dom;
use super::export::Launch;
use super::form::Form;
use super::format::RenderUi;
use super::guidance::guidance;
use super::memory::memory;
use super::method::method;
use super::offers::offers;
use super::ondemand::Job;
use super::recommendation::recommendation;
use crate::core::answer::Answer;
use crate::core::catalog::Catalog;
use crate::core::config::{Config, Lang};
use crate::core::form::{self, PriceColumn};
use crate::core::link::{self, Notice};
use crate::core::messages::{ui, Msg};

/// The longest the cards below the first screen wait for a painted frame
/// (frames do not come to a hidden tab).
const FULL_FALLBACK_MS: u32 = 100;

#[derive(Properties, PartialEq)]
pub struct PageProps {
    pub cfg: Config,
    /// The share link was just copied.
    pub copied: bool,
    /// An imported offers catalog is in use.
    pub imported: bool,
    pub answer: Rc<Answer>,
    /// What the on-demand module needs to rebuild the answer (launch texts, CSV).
    pub job: Rc<Job>,
    pub notices: Vec<Notice>,
    pub lang: Lang,
    pub on_set: Callback<(&'static str, String)>,
    pub on_copied: Callback<()>,
    /// The on-demand worker's reply about the hosted API came in (`super::api`): render again.
    pub on_api: Callback<()>,
    pub on_import: Callback<String>,
    pub on_config: Callback<String>,
    pub on_price: Callback<(String, String)>,
}

#[function_component(Page)]
pub fn page(p: &PageProps) -> Html {
    let lang = p.lang;
    let cfg = &p.cfg;
    let a = &p.answer;
    let api = super::api::shown(&p.job, lang);
    let t = |k: &'static str| ui(k, lang);
    let lang_switch = {
        let cb = p.on_set.clone();
        let next = if lang == Lang::Zh { "en" } else { "zh" };
        Callback::from(move |_| cb.emit(("lang", next.to_string())))
    };
    let share = format!("{}?{}", dom::location_base(), a.query);
    let copy = {
        let done = p.on_copied.clone();
        Callback::from(move |_| {
            dom::copy_to_clipboard(&share);
            done.emit(());
        })
    };
    // The first render builds the answer: the inputs, the recommendation,
    // the guidance and the launch card. The memory bar, the chart, the
    // offers table and the method card, below the first screen, follow once
    // that is painted: the page's first render builds about a third of its
    // elements, and the rest arrive a frame later (`__whichgpu_full_render_ms`).
    let full = use_state_eq(|| false);
    {
        let full = full.clone();
        use_effect_with((), move |_| dom::after_paint(FULL_FALLBACK_MS, move || full.set(true)));
    }
    {
        let (full, embed) = (*full, cfg.embed);
        use_effect_with(full, move |full| {
            if *full {
                dom::mark("__whichgpu_full_render_ms");
                if embed {
                    dom::post_height();
                }
            }
        });
    }
    let training = cfg.is_training();
    let page_class = classes!("page", cfg.embed.then_some("embed"));
    let out = html! {
        <div class={page_class}>
            if !cfg.embed {
                <header>
                    <h1>{ t("ui.title") }</h1>
                    <p>{ t("ui.tagline") }</p>
                    <p class="tools">
                        <a class="skip" href="#answer">{ t("ui.skip") }</a>
                        <button
                            type="button"
                            data-testid="lang-switch"
                            onclick={lang_switch}
                            lang={if lang == Lang::Zh { "en" } else { "zh-CN" }}
                        >
                            { t("ui.lang") }
                        </button>
                        <button type="button" data-testid="copy-link" onclick={copy}>
                            { if p.copied { t("ui.copied") } else { t("ui.copy") } }
                        </button>
                        <small data-testid="catalog-date">
                            { Msg::new("ui.catalog").arg("date", a.catalog_as_of.clone()).render_ui(lang) }
                            { if a.catalog_stale { format!(" ({})", t("ui.stale")) } else { String::new() } }
                        </small>
                    </p>
                </header>
            }
            { notices(&p.notices, lang) }
            <main
                class="cols"
            >
                <Form
                    cfg={cfg.clone()}
                    imported={p.imported}
                    {lang}
                    on_set={p.on_set.clone()}
                    on_import={p.on_import.clone()}
                    on_config={p.on_config.clone()}
                />
                <div class="results" id="answer">
                    // The answer first: what to rent, what it costs and why,
                    // side by side on wide screens (style.css), then the
                    // pictures and the table behind them.
                    { recommendation(a, training, lang, api.as_ref().map(|x| &x.0)) }
                    { guidance(a, lang, api.as_ref().map(|x| &x.1)) }
                    <Launch
                        answer={a.clone()}
                        job={p.job.clone()}
                        {lang}
                        embed={cfg.embed}
                        on_api={p.on_api.clone()}
                    />
                    if *full {
                        { memory(&a.memory, usable_bytes(a), lang) }
                        <section class="card wide" aria-labelledby="h-scatter">
                            <h2 id="h-scatter">{ t("ui.scatter") }</h2>
                            <Scatter answer={a.clone()} lang={lang} />
                        </section>
                        { offers(
                              a,
                              &p.job,
                              price_column(a),
                              cfg.sort,
                              training,
                              lang,
                              &p.on_set,
                              &p.on_price,
                          ) }
                        if !cfg.embed {
                            { method(a, lang) }
                            <section class="card" aria-labelledby="h-embed">
                                <h2 id="h-embed">{ t("ui.embed") }</h2>
                                <textarea
                                    readonly=true
                                    rows="5"
                                    aria-labelledby="h-embed"
                                    data-testid="embed-snippet"
                                    value={embed_snippet(cfg)}
                                />
                            </section>
                        }
                    }
                </div>
            </main>
        </div>
    };
    dom::mark("__whichgpu_view_ms");
    out
}

fn notices(notices: &[Notice], lang: Lang) -> Html {
    if notices.is_empty() {
        return html! {};
    }
    html! {
        <div class="notice" role="status" data-testid="notice">
            <strong>{ ui("ui.notice", lang) }</strong>
            <ul>
                { for notices.iter().map(|n| html! { <li><code>{ n.key.clone() }</code>{ ": \
                " }{ n.text(lang) }</li> }) }
            </ul>
        </div>
    }
}

/// The pick's usable memory on all the GPUs of the breakdown: the mark on the memory bar.
fn usable_bytes(a: &Answer) -> Option<f64> {
    let pick = a.recommendation.as_ref()?;
    let o = a.offers.iter().find(|o| o.id == pick.pick.offer)?;
    Some(o.usable_bytes * f64::from(a.memory.gpus.max(1)))
}

/// The offers table's per-unit column: the core decides which.
fn price_column(a: &Answer) -> Option<PriceColumn> {
    Catalog::bundled().ok().map(|c| form::price_column(c, a))
}

/// The iframe and the script that sizes it, for another site's page.
fn embed_snippet(cfg: &Config) -> String {
    let mut embed_cfg = cfg.clone();
    embed_cfg.embed = true;
    let embed_src = format!("{}?{}", dom::location_base(), link::encode(&embed_cfg));
    format!(
        "<iframe src=\"{embed_src}\" title=\"whichgpu\" style=\"width:100%;border:0\" \
            loading=\"lazy\"></iframe>\n\
            <script>addEventListener(\"message\",e=>{{if(e.data&&e.data.type===\"whichgpu:height\")\
            for(const f of document.querySelectorAll('iframe[src^=\"{}\"]'))\
            if(f.contentWindow===e.source)f.style.height=e.data.height+\"px\"}})</script>",
        dom::location_base()
    )
}
