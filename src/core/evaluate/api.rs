//! Rent a GPU or call an API: the pick's load priced on the cheapest hosted
//! API listed for the model (`static/api_prices.csv`), and the request rate
//! at which the two bills are equal. Native builds only (the CLI and its
//! JSON): the page's Wasm carries no API prices.
//!
//! The load compared is the pick's own: its output tokens per second (the
//! link's `rps` × `out` where it gives a rate, else what its concurrent
//! sequences generate) over its busy hours, or a batch job's stated work
//! (`per_job` requests, `jobs` a month). Each request bills its prompt
//! (with image tokens) as input and `out` as output tokens at the host's
//! listed price (cache-miss input; no batch or cache discount). The host
//! compared is the cheapest for that request among the rows not marked
//! stale. An endpoint's GPU bill does not grow with its load while the pick
//! carries it, the API's does (in proportion): the rates are equal at the
//! pick's monthly bill ÷ (busy seconds × the API's price per request).

use super::super::answer::{Answer, Api, GuidanceItem};
use super::super::catalog::api_prices;
use super::super::catalog::Catalog;
use super::super::config::{Task, Usage};
use super::super::messages::Msg;

/// The comparison for a serving answer whose model has a price and whose
/// pick fits; `None` otherwise.
pub fn compare(a: &Answer, catalog: &Catalog) -> Option<Api> {
    let cfg = &a.settings;
    let pick = a.pick().filter(|o| o.fits && a.task == Task::Serve)?;
    let output = f64::from(cfg.output_tokens);
    let input = a.request_tokens.map_or(f64::from(cfg.input_tokens), |t| t as f64 - output).max(0.0);
    let prices: Vec<&api_prices::ApiPrice> = api_prices::bundled(&catalog.models).iter().filter(|p| p.model == a.model && !p.stale).collect();
    let cheapest = prices.iter().copied().min_by(|x, y| x.usd_per_request(input, output).total_cmp(&y.usd_per_request(input, output)))?;
    let per_request = cheapest.usd_per_request(input, output);
    let busy_s = pick.busy_hours_per_month * 3600.0;
    let job = match (cfg.batch_usage(), cfg.per_job) {
        (true, Some(n)) => Some(n * if cfg.usage() == Usage::Jobs { cfg.jobs } else { 1.0 }),
        _ => None,
    };
    let requests_per_month = job.unwrap_or_else(|| pick.speeds.output_tokens_per_s_total().unwrap_or(0.0) / output.max(1.0) * busy_s);
    let breakeven = (job.is_none() && busy_s > 0.0 && per_request > 0.0).then(|| pick.usd_per_month / (busy_s * per_request));
    Some(Api {
        host: cheapest.host.clone(),
        usd_per_million_input: cheapest.usd_per_million_input,
        usd_per_million_output: cheapest.usd_per_million_output,
        requests_per_s: if busy_s > 0.0 { requests_per_month / busy_s } else { 0.0 },
        requests_per_month,
        usd_per_month: requests_per_month * per_request,
        pick_usd_per_month: pick.usd_per_month,
        breakeven_requests_per_s: breakeven,
        source: cheapest.source.clone(),
        as_of: cheapest.as_of,
        hosts_listed: prices.len(),
    })
}

/// The guidance answer "rent a GPU or call an API?", quoting the comparison.
pub fn guidance(a: &Answer, api: &Api) -> GuidanceItem {
    let d = &a.display;
    let per_m = |usd: f64| format!("{}{}", d.symbol(), super::super::link::fmt_num((d.amount(usd) * 1000.0).round() / 1000.0));
    let rate = |r: f64| {
        let dp = if r < 1.0 {
            3
        } else if r < 10.0 {
            2
        } else {
            1
        };
        super::super::link::fmt_num((r * 10f64.powi(dp)).round() / 10f64.powi(dp))
    };
    let base = |key: &'static str| {
        Msg::new(key)
            .arg("host", api.host.clone())
            .arg("model", a.model_name.clone())
            .arg("input", per_m(api.usd_per_million_input))
            .arg("output", per_m(api.usd_per_million_output))
            .arg("date", api.as_of.to_string())
            .arg("rps", rate(api.requests_per_s))
            .arg("api", d.format(api.usd_per_month))
            .arg("pick", d.format(api.pick_usd_per_month))
    };
    let msg = match api.breakeven_requests_per_s {
        Some(b) if api.usd_per_month >= api.pick_usd_per_month => base("g.api.rent").arg("breakeven", rate(b)),
        Some(b) => base("g.api.call").arg("breakeven", rate(b)),
        None => base("g.api.job"),
    };
    GuidanceItem::new("api", Some("g.api.title"), msg)
}
