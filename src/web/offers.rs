//! The offers card: the ranked table with its sort buttons, the user's own
//! prices, each price's source and date (`sources`), and the CSV export.

use std::rc::Rc;

use yew::prelude::*;

use super::cells::col_heads;
use super::dom;
use super::format::{in_currency, num, price, RenderUi};
use super::ondemand::{ask, Job};
use super::sources::OfferSource;
use crate::core::answer::{Answer, OfferResult};
use crate::core::columns::{self, Cell, Column, Ctx};
use crate::core::config::{Commit, Lang, Sort};
use crate::core::form::PriceColumn;
use crate::core::messages::{ui, Msg};

/// Offers shown in the table, best first; the CSV export has them all.
const TABLE_ROWS: usize = 25;

/// Replicas × GPUs per copy (the title says it in words).
fn layout_cell(o: &OfferResult, lang: Lang) -> Html {
    let per = o.tp.max(1) * o.pp.max(1) * o.dp.max(1);
    let text = Msg::new("ui.layout.cell")
        .num("replicas", f64::from(o.replicas), 0)
        .num("per", f64::from(per), 0)
        .render_ui(lang);
    html! {
        <td class="num" data-replicas={o.replicas.to_string()} title={o.layout_msg.render(lang)}>{ text }</td>
    }
}

/// What the price leaves out, named (never a silent $0), and the price term.
fn extras_cell(o: &OfferResult, lang: Lang) -> Html {
    html! {
        <td
            class="extras"
            data-unknown={o.unknown_costs.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(",")}
        >
            { for o.unknown_costs.iter().map(|part| {
                html! { <span class="mark" data-part={part.as_str()}>{ ui(part.ui_key(), lang) }</span> }
            }) }
            if let Some(s) = o.cold_start_s {
                <span class="mark serverless" data-cold-start={format!("{s:.0}")}>
                    { format!("{} · \
                    {}", ui("ui.serverless", lang), Msg::new("ui.cold").num("s", s, 0).render_ui(lang)) }
                </span>
            }
            if o.commitment != Commit::None {
                <span
                    class="mark \
                    term"
                    data-commit={o.commitment.as_str()}
                >
                    { ui(&format!("ui.commit.{}", o.commitment.as_str()), lang) }
                </span>
            }
            if o.unknown_costs.is_empty() && o.commitment == Commit::None && o.cold_start_s.is_none() {
                { ui("ui.unknown.none", lang) }
            }
        </td>
    }
}

/// A cell written by its type: text as is, numbers and money right-aligned
/// (money in the display currency), an unknown value as `–`.
#[inline(never)]
fn plain(cell: Cell<'_>, o: &OfferResult, a: &Answer, lang: Lang) -> Html {
    let text = match cell {
        Cell::Text(s) => return html! { <td>{ s.into_owned() }</td> },
        Cell::Name(s) => return html! { <td>{ s }</td> },
        Cell::Names(n) => return html! { <td>{ n.join(", ") }</td> },
        Cell::Date(d) => return html! { <td>{ d.to_string() }</td> },
        Cell::Flag(b) => return html! { <td>{ ui(if b { "ui.yes" } else { "ui.no" }, lang) }</td> },
        Cell::Count(n) => n.to_string(),
        Cell::Number { value, digits } => num(value, digits),
        Cell::Usd { usd, .. } => price(usd, o.currency, &a.display, lang),
        Cell::Unknown(_) => "–".to_string(),
    };
    html! { <td class="num">{ text }</td> }
}

// The card's data (answer, job, column, sort, task) and its two callbacks.
#[allow(clippy::too_many_arguments)]
pub fn offers(
    a: &Rc<Answer>,
    job: &Rc<Job>,
    col: Option<PriceColumn>,
    sort: Sort,
    training: bool,
    lang: Lang,
    on_set: &Callback<(&'static str, String)>,
    on_price: &Callback<(String, String)>,
) -> Html {
    let t = |k: &'static str| ui(k, lang);
    let speed_of = |o: &crate::core::answer::OfferResult| o.speed_score;
    let sort_by = |key: &'static str| {
        let cb = on_set.clone();
        Callback::from(move |_| cb.emit(("sort", key.to_string())))
    };
    let sources = AttrValue::from(sources_url());
    // The columns and their order are the core's table; a column without
    // a widget of its own here is written by its cell's type (`plain`).
    let cols: Vec<&'static Column> =
        columns::of_view(columns::PAGE, col.map(|c| c.objective.as_str())).collect();
    let ctx = Ctx { lang, sources: "" };
    let head = |c: &Column| match c.id {
        "speed" => html! {
            <th scope="col" aria-sort={if sort == Sort::Speed { "descending" } else { "none" }}>
                <button type="button" class="th" onclick={sort_by("speed")} data-testid="sort-speed">
                    { if training { t("ui.col.train") } else { t(c.header) } }
                </button>
            </th>
        },
        "usd_per_hour" => html! { <th scope="col">{ in_currency(t(c.header), &a.display) }</th> },
        "usd_per_month" => html! {
            <th scope="col" aria-sort={if sort == Sort::Cost { "ascending" } else { "none" }}>
                <button type="button" class="th" onclick={sort_by("cost")} data-testid="sort-cost">
                    { in_currency(t(c.header), &a.display) }
                </button>
            </th>
        },
        // The price per unit (on the page as the answer's unit only).
        _ if !c.shows(columns::PAGE) => html! {
            <th
                scope="col"
                data-testid="unit-col"
                aria-sort={if sort == Sort::Token { "ascending" } else { "none" }}
            >
                <button type="button" class="th" onclick={sort_by("token")}>
                    { in_currency(t(c.header), &a.display) }
                </button>
            </th>
        },
        _ => col_heads(&[c.header], lang),
    };
    let cell = |c: &Column, o: &OfferResult| match c.id {
        "gpu" => {
            html! {
                <td>
                    { format!("{}× {}", o.gpus, o.gpu) }
                    { if o.instances > 1 { format!(" × \
            {}", o.instances) } else { String::new() } }
                </td>
            }
        }
        "layout" => layout_cell(o, lang),
        "speed" => html! {
            <td class="num" data-speed={format!("{:.3}", speed_of(o))}>
                { if speed_of(o) > 0.0 {
                      num(speed_of(o), if training { 0 } else { 1 })
                  } else {
                      "–".to_string()
                  } }
            </td>
        },
        "usd_per_hour" => html! {
            <td class="num">
                <input
                    class="price"
                    type="text"
                    inputmode="decimal"
                    aria-label={format!("{} \
                {}", t("ui.yourprice"), o.id)}
                    value={format!(
                        "{:.2}",
                        o.usd_per_hour / f64::from(o.instances.max(1)) / a.display.usd_per_unit_of(o.currency)
                    )}
                    title={o.currency.as_str().to_ascii_uppercase()}
                    onchange={let cb = on_price.clone();
                    let id = o.id.clone();
                    Callback::from(move |e: Event| {
                        let el: web_sys::HtmlInputElement = e.target_unchecked_into();
                        cb.emit((id.to_string(), el.value()));
                    })}
                />
            </td>
        },
        "usd_per_month" => {
            html! {
                <td class="num" data-usd-month={format!("{:.2}", o.usd_per_month)}>
                    { price(o.usd_per_month, o.currency, &a.display, lang) }
                </td>
            }
        }
        "extras" => extras_cell(o, lang),
        "price_as_of" => html! {
            <td class="date">
                { o.price_as_of.to_string() }
                { if o.stale { format!(" \
                ({})", t("ui.stale")) } else { String::new() } }
                { " " }
                <OfferSource
                    id={o.id.to_string()}
                    title={format!("{} · \
                    {}", o.provider, o.instance)}
                    as_of={o.price_as_of.to_string()}
                    stale={o.stale}
                    source={o.source.to_string()}
                    url={sources.clone()}
                    {lang}
                />
            </td>
        },
        _ => plain((c.cell)(o, &ctx), o, a, lang),
    };
    html! {
        <section class="card" aria-labelledby="h-offers">
            <h2 id="h-offers">{ t("ui.offers") }</h2>
            <p>
                <small data-testid="offers-shown">
                    { Msg::new("ui.offers.shown")
                          .num("shown", a.offers.len().min(TABLE_ROWS) as f64, 0)
                          .num("total", a.offers.len() as f64, 0)
                          .render_ui(lang) }
                </small>
            </p>
            <div class="tools">
                <CsvExport job={job.clone()} {lang} />
                <button type="button" onclick={Callback::from(|_| dom::print())}>{ t("ui.print") }</button>
            </div>
            <div class="scroll">
                <table data-testid="offers">
                    <thead><tr>{ for cols.iter().map(|c| head(c)) }</tr></thead>
                    <tbody>
                        { for a.offers.iter().take(TABLE_ROWS).map(|o| html! {
                    <tr
                        class={ classes!(if o.fits { "fit" } else { "nofit" }) }
                        data-offer={o.id.to_string()}
                    >
                        { for cols.iter().map(|c| cell(c, o)) }
                    </tr>
                }) }
                    </tbody>
                </table>
            </div>
            { converted_note(a, lang) }
        </section>
    }
}

/// The rate and date of the converted prices (marked `*`) among those shown.
fn converted_note(a: &Answer, lang: Lang) -> Html {
    let d = &a.display;
    let Some(r) = a.offers.iter().take(TABLE_ROWS).find_map(|o| d.rate_for(o.currency)) else {
        return html! {};
    };
    let text = Msg::new("ui.converted")
        .arg("mark", crate::core::money::CONVERTED_MARK)
        .num("per", 1.0 / r.usd_per_unit, 4)
        .arg("cur", r.currency.as_str().to_ascii_uppercase())
        .arg("date", r.as_of.to_string())
        .render_ui(lang);
    html! { <p><small data-testid="converted">{ text }</small></p> }
}

/// Where the page's own copy of `static/offers.csv` is (Trunk copies it
/// next to index.html): the bundled catalog of the Wasm build has no
/// sources, so the export points each bundled offer there.
fn sources_url() -> String {
    let base = dom::location_base();
    let dir = base.rfind('/').map_or(base.as_str(), |i| &base[..=i]);
    format!("{dir}offers.csv")
}

#[derive(Properties, PartialEq)]
struct CsvProps {
    job: Rc<Job>,
    lang: Lang,
}

/// The CSV export's button: the on-demand module writes the CSV
/// (`core::ondemand::offers_csv`), then the page downloads it; if the
/// module cannot be loaded, an alert next to the button says why.
#[function_component(CsvExport)]
fn csv_export(p: &CsvProps) -> Html {
    let failed = use_state(|| None::<String>);
    let onclick = {
        let (job, failed) = (p.job.clone(), failed.clone());
        Callback::from(move |_: MouseEvent| {
            let (request, failed) = (job.request("csv", &sources_url()), failed.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match ask(request).await {
                    Ok(csv) => {
                        failed.set(None);
                        dom::download("whichgpu-offers.csv", "text/csv", &csv);
                    }
                    Err(why) => failed.set(Some(why)),
                }
            });
        })
    };
    html! {
        <>
            <button type="button" {onclick} data-testid="export-csv">{ ui("ui.export", p.lang) }</button>
            if let Some(why) = failed.as_ref() {
                <span role="alert" data-testid="export-csv-error">
                    { Msg::new("ui.ondemand.failed").arg("why", why.clone()).render_ui(p.lang) }
                </span>
            }
        </>
    }
}
