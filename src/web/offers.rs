//! The offers card: the ranked table with its sort buttons, the user's own
//! prices, and the CSV export.

use std::rc::Rc;

use yew::prelude::*;

use super::dom;
use super::format::{num, usd, RenderUi};
use crate::core::answer::Answer;
use crate::core::config::{Lang, Sort};
use crate::core::messages::{ui, Msg};

/// Offers shown in the table, best first; the CSV export has them all.
const TABLE_ROWS: usize = 25;

pub fn offers(a: &Rc<Answer>, sort: Sort, training: bool, lang: Lang, on_set: &Callback<(&'static str, String)>, on_price: &Callback<(String, String)>) -> Html {
    let t = |k: &'static str| ui(k, lang);
    let speed_of = |o: &crate::core::answer::OfferResult| o.speed_score;
    let sort_by = |key: &'static str| {
        let cb = on_set.clone();
        Callback::from(move |_| cb.emit(("sort", key.to_string())))
    };
    let export = {
        let a = a.clone();
        Callback::from(move |_| dom::download("whichgpu-offers.csv", "text/csv", &offers_csv(&a)))
    };
    html! {
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
                    <th scope="col" aria-sort={ if sort == Sort::Speed { "descending" } else { "none" } }><button type="button" class="th" onclick={sort_by("speed")} data-testid="sort-speed">{ if training { t("ui.col.train") } else { t("ui.col.speed") } }</button></th>
                    <th scope="col">{ t("ui.col.hour") }</th>
                    <th scope="col" aria-sort={ if sort == Sort::Cost { "ascending" } else { "none" } }><button type="button" class="th" onclick={sort_by("cost")} data-testid="sort-cost">{ t("ui.col.month") }</button></th>
                    <th scope="col" aria-sort={ if sort == Sort::Token { "ascending" } else { "none" } }><button type="button" class="th" onclick={sort_by("token")}>{ if training { t("ui.col.job") } else { t("ui.col.mtok") } }</button></th>
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
                                let cb = on_price.clone();
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
