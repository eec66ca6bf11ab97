//! The recommendation card: the pick with its figures, layout and reasons,
//! then the alternatives; with no pick, the closest offer that fits and
//! why it misses what was asked.

use yew::prelude::*;

use super::format::{num, price, RenderUi};
use crate::core::answer::{Answer, OfferResult};
use crate::core::config::Lang;
use crate::core::guidance::in_display;
use crate::core::messages::{ui, Msg};

/// The layout in words and the number of replicas, in the page's language.
fn layout(o: &OfferResult, lang: Lang) -> String {
    let replicas = Msg::new("ui.replicas").num("replicas", f64::from(o.replicas), 0).render_ui(lang);
    format!("{} · {replicas}", o.layout_msg.render(lang))
}

/// Said of an offer that fits but misses the deadline, speed or budget.
fn misses(o: &OfferResult, lang: Lang) -> Html {
    if o.fits && !o.meets {
        html! { <p class="misses" data-testid="misses">{ ui("ui.misses", lang) }</p> }
    } else {
        html! {}
    }
}

/// `api`: the hosted API's price, the first line under the pick's cost once the page has it.
pub fn recommendation(a: &Answer, training: bool, lang: Lang, api: Option<&Msg>) -> Html {
    let t = |k: &'static str| ui(k, lang);
    let offer_by_id = |id: &str| a.offers.iter().find(|o| &*o.id == id);
    match &a.recommendation {
        Some(r) => {
            let pick = offer_by_id(&r.pick.offer);
            // A timed job (training, or a batch job of a stated size) is
            // shown by its hours and cost, not by a month.
            let timed =
                pick.is_some_and(|o| training || (o.usd_per_job.is_some() && o.speeds.job_hours().is_some()));
            html! {
                <section class="card reco" data-testid="recommendation" aria-labelledby="h-reco">
                    <h2 id="h-reco">{ t("ui.recommendation") }</h2>
                    if let Some(o) = pick {
                        <p class="pick">
                            <strong data-testid="pick-offer">
                                { format!("{} · \
                            {}", o.provider, o.instance) }
                            </strong>
                            { format!(" — {}× {} · {} ", o.gpus, o.gpu, o.region) }
                        </p>
                        <p class="layout" data-testid="pick-layout" data-replicas={o.replicas.to_string()}>
                            { layout(o, lang) }
                        </p>
                        { misses(o, lang) }
                        <p class="big">
                            if let Some(tps) = o.speeds.decode_tokens_per_s_per_seq() {
                                <span data-testid="pick-speed">
                                    { format!("{} \
                                    tok/s", num(tps, 1)) }
                                </span>
                                { " · " }
                            } else if let Some(s) =
                                o.speeds.seconds_per_image().or(o.speeds.seconds_per_clip()) {
                                <span data-testid="pick-speed">
                                    { format!(
                                          "{} s/{}",
                                          num(s, 1),
                                          t(if o.speeds.seconds_per_image().is_some() {
                                              "ui.image"
                                          } else {
                                              "ui.clip"
                                          })
                                      ) }
                                </span>
                                { " · " }
                            }
                            if let (true, None, Some(j)) = (timed, o.speeds.job_hours(), o.usd_per_job) {
                                <span data-testid="pick-job">
                                    { format!(
                                          "{}{}",
                                          price(j, o.currency, &a.display, lang),
                                          t("ui.per_job")
                                      ) }
                                </span>
                            } else if let (true, Some(h), Some(j)) =
                                (timed, o.speeds.job_hours(), o.usd_per_job) {
                                <span data-testid="pick-job">
                                    { format!(
                                          "{} h, {}{}",
                                          num(h, 1),
                                          price(j, o.currency, &a.display, lang),
                                          t("ui.per_job")
                                      ) }
                                </span>
                            } else {
                                <span data-testid="pick-month">
                                    { format!(
                                          "{}{}",
                                          price(o.usd_per_month, o.currency, &a.display, lang),
                                          t("ui.per_month")
                                      ) }
                                </span>
                            }
                            { " · " }
                            { format!(
                                  "{}{}",
                                  price(o.usd_per_hour, o.currency, &a.display, lang),
                                  t("ui.per_hour")
                              ) }
                        </p>
                    }
                    <ul>
                        if let Some(m) = api { <li data-testid="api-line">{ m.render(lang) }</li> }
                        { for r.pick.reason_msgs.iter().map(|m| html! { <li>{ m.render(lang) }</li> }) }
                    </ul>
                    <ul class="alts">
                        { for r.alternatives.iter().map(|alt| {
                            let label = ui(alt.why_key(), lang);
                            let offer = offer_by_id(&alt.offer);
                            let name = offer.map(|o| format!("{} · \
                                {}", o.provider, o.instance)).unwrap_or_else(|| alt.offer.to_string());
                            html! { <li data-testid="alternative"><strong>{ label }{ ": " }</strong>{ name }
                                if let Some(o) = offer { { " \
                                    (" }<span class="layout">{ layout(o, lang) }</span>{ ")" } }
                                { " — " }
                                { alt.reason_msgs.iter().map(|m| m.render(lang)).collect::<Vec<_>>().join("; \
                                    ") }
                                if let Some(o) = offer { { misses(o, lang) } }
                            </li> }
                        }) }
                    </ul>
                    if !a.whatif.is_empty() {
                        <div class="whatif" data-testid="whatif">
                            <h3>{ t("ui.whatif") }</h3>
                            <ul>
                                { for a.whatif.iter().take(4).map(|c| {
                                    let (before, after, key) = in_display(c, &a.display);
                                    let objective = ui(key, lang);
                                    let digits = if before.abs() < 10.0 { 2 } else { 0 };
                                    html! { <li>
                                        <a href={format!("?{}", c.query)}>
                                            { format!("{}={}", c.key, c.value) }
                                        </a>
                                        { format!(": {} → {} \
                                            ({objective})", num(before, digits), num(after, digits)) }</li> }
                                }) }
                            </ul>
                        </div>
                    }
                </section>
            }
        }
        None => {
            // Offers are ranked with those that meet everything first; with
            // none meeting, the first that fits is the closest.
            let closest = a.offers.iter().find(|o| o.fits);
            html! {
                <section class="card reco" data-testid="recommendation">
                    <h2>{ t("ui.recommendation") }</h2>
                    if let Some(o) = closest {
                        <p data-testid="misses">{ t("ui.none.misses") }</p>
                        <p class="pick">
                            <strong>
                                { format!("{} · \
                            {}", o.provider, o.instance) }
                            </strong>
                            { format!(" — {}× {}", o.gpus, o.gpu) }
                        </p>
                        <p class="layout" data-testid="pick-layout">{ layout(o, lang) }</p>
                        <ul>{ for o.reason_msgs.iter().map(|m| html! { <li>{ m.render(lang) }</li> }) }</ul>
                    } else {
                        <p>{ t("ui.none") }</p>
                    }
                </section>
            }
        }
    }
}
