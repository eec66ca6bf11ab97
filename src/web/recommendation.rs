//! The recommendation card: the pick with its figures and reasons, then
//! the alternatives.

use yew::prelude::*;

use super::format::{num, usd};
use crate::core::answer::Answer;
use crate::core::config::Lang;
use crate::core::messages::ui;

pub fn recommendation(a: &Answer, training: bool, lang: Lang) -> Html {
    let t = |k: &'static str| ui(k, lang);
    let offer_by_id = |id: &str| a.offers.iter().find(|o| &*o.id == id);
    match &a.recommendation {
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
    }
}
