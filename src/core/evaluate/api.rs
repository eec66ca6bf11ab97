//! Rent a GPU or call an API: the pick's load priced on the cheapest hosted
//! API listed for the model (`static/api_prices.csv`), and the request rate
//! at which the two bills are equal: the CLI and its JSON (native builds,
//! the bundled table), and the page through its on-demand worker (below);
//! the page's own Wasm carries no API prices and no API texts.
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
//!
//! The page's answer gets it from its on-demand worker (`core::ondemand`,
//! kind `api`), which carries the table and these texts
//! (`ondemand::api_file`, a copy `build.rs` writes): [`page_api`] is
//! [`compare_with`] on that copy's rows and the same messages, and
//! [`reply`] their texts in both languages, so the page shows what the
//! CLI says; the page's own module carries neither the table nor the texts.

use super::super::answer::{Answer, Api, GuidanceItem};
use super::super::catalog::api_prices::{ApiFile, ApiPrice, US};
use super::super::config::{Lang, Task, Usage};
use super::super::messages::Msg;

/// The comparison on the bundled table (native builds: the CLI and its JSON).
#[cfg(not(target_arch = "wasm32"))]
pub fn compare(a: &Answer, catalog: &super::super::catalog::Catalog) -> Option<Api> {
    compare_with(a, super::super::catalog::api_prices::bundled(&catalog.models))
}

/// The comparison for a serving answer whose model has a price in `table`
/// and whose pick fits; `None` otherwise.
pub fn compare_with(a: &Answer, table: &[ApiPrice]) -> Option<Api> {
    let cfg = &a.settings;
    let pick = a.pick().filter(|o| o.fits && a.task == Task::Serve)?;
    let output = f64::from(cfg.output_tokens);
    let input = a.request_tokens.map_or(f64::from(cfg.input_tokens), |t| t as f64 - output).max(0.0);
    let prices: Vec<&ApiPrice> = table.iter().filter(|p| p.model == a.model && !p.stale).collect();
    let cheapest = prices
        .iter()
        .copied()
        .min_by(|x, y| x.usd_per_request(input, output).total_cmp(&y.usd_per_request(input, output)))?;
    let per_request = cheapest.usd_per_request(input, output);
    let busy_s = pick.busy_hours_per_month * 3600.0;
    let job = match (cfg.batch_usage(), cfg.per_job) {
        (true, Some(n)) => Some(n * if cfg.usage() == Usage::Jobs { cfg.jobs } else { 1.0 }),
        _ => None,
    };
    let requests_per_month = job
        .unwrap_or_else(|| pick.speeds.output_tokens_per_s_total().unwrap_or(0.0) / output.max(1.0) * busy_s);
    let breakeven = (job.is_none() && busy_s > 0.0 && per_request > 0.0)
        .then(|| pick.usd_per_month / (busy_s * per_request));
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
    GuidanceItem::new("api", Some("g.api.title"), messages(a, api).1)
}

/// What the page shows for an answer: the comparison, the one line under
/// the pick's cost (`g.api.line`, or `g.api.line_job` for a batch job of a
/// stated size) and the guidance answer.
#[derive(Debug, Clone)]
pub struct PageApi {
    pub api: Api,
    pub line: Msg,
    pub answer: GuidanceItem,
}

/// A web address for a price's `source`: the first `https://` address in
/// it, else its first `github.com/owner/repo`, at the commit it names
/// (`… at commit <sha>`) where it names one.
pub fn source_href(source: &str) -> Option<String> {
    let word = |start: usize| {
        source.get(start..).and_then(|s| s.split([' ', ',', ';', ')']).next()).map(str::to_string)
    };
    if let Some(at) = source.find("https://") {
        return word(at);
    }
    let repo = word(source.find("github.com/")?)?;
    let sha = source
        .find(" at commit ")
        .and_then(|at| word(at + " at commit ".len()))
        .filter(|s| s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()));
    Some(match sha {
        Some(sha) => format!("https://{repo}/tree/{sha}"),
        None => format!("https://{repo}"),
    })
}

/// The page's comparison on the rows of the on-demand file
/// (`ApiFile::prices`): `None` where the CLI's answer has no `api` (no
/// price, no fitting serving pick).
pub fn page_api(a: &Answer, prices: &[ApiPrice]) -> Option<PageApi> {
    let api = compare_with(a, prices)?;
    let (line, answer) = messages(a, &api);
    Some(PageApi { line, answer: GuidanceItem::new("api", Some("g.api.title"), answer), api })
}

/// The record the on-demand worker adds to its reply to the launch
/// card's `export` request (`core::ondemand`): `api`, then the line, the
/// guidance answer's title and its text in English, then the same in
/// Chinese ([`US`] between the seven), filled with the texts of the file;
/// `None` where [`page_api`] gives nothing.
pub fn record(a: &Answer, file: &ApiFile) -> Option<String> {
    let p = page_api(a, &file.prices)?;
    let mut fields = vec!["api".to_string()];
    for lang in [Lang::En, Lang::Zh] {
        let fill = |m: &Msg| file.text(m.key, lang).map_or_else(String::new, |t| m.fill(t, lang));
        fields.extend([
            fill(&p.line),
            p.answer.title_msg.as_ref().map_or_else(String::new, fill),
            fill(&p.answer.msg),
        ]);
    }
    Some(fields.join(&US.to_string()))
}

/// The page's reading of a reply with a [`record`] among its records
/// (`RS` between them): the line, the title and the answer in `lang`;
/// `None` when it has none (nothing shown).
pub fn read_reply(reply: &str, lang: Lang) -> Option<[&str; 3]> {
    let f: Vec<&str> = reply.split('\u{1e}').find_map(|r| r.strip_prefix("api\u{1f}"))?.split(US).collect();
    let at = if lang == Lang::Zh { 3 } else { 0 };
    match f.get(at..at + 3)? {
        [line, title, answer] if f.len() == 6 && !line.is_empty() => Some([line, title, answer]),
        _ => None,
    }
}

/// The one line (`g.api.line`, or `g.api.line_job` for a batch job of a
/// stated size) and the guidance answer's message.
fn messages(a: &Answer, api: &Api) -> (Msg, Msg) {
    let d = &a.display;
    let per_m = |usd: f64| {
        format!("{}{}", d.symbol(), super::super::link::fmt_num((d.amount(usd) * 1000.0).round() / 1000.0))
    };
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
    // The line names where the price was read: a web address where the source gives one.
    let line = |key: &'static str| {
        base(key).arg("source", source_href(&api.source).unwrap_or_else(|| api.source.clone()))
    };
    match api.breakeven_requests_per_s {
        Some(b) if api.usd_per_month >= api.pick_usd_per_month => {
            (line("g.api.line").arg("breakeven", rate(b)), base("g.api.rent").arg("breakeven", rate(b)))
        }
        Some(b) => {
            (line("g.api.line").arg("breakeven", rate(b)), base("g.api.call").arg("breakeven", rate(b)))
        }
        None => (line("g.api.line_job"), base("g.api.job")),
    }
}
