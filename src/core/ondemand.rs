//! What the page's second Wasm module (the on-demand worker,
//! `src/bin/worker.rs`) computes: the texts the first answer does not
//! need — each offer's launch texts ([`super::export`]: the SkyPilot task
//! and the engine command) and the offers table as CSV. The page's own
//! module does not link them (it never calls [`handle`]); it sends the
//! worker a request string and reads the reply string.
//!
//! A request is lines: the kind (`export` or `csv`), today's date, the
//! link's query (`link::encode` of the page's configuration), the address
//! of the page's `offers.csv` (the CSV's `source` for bundled offers), and
//! then, to the end, the text of an imported offers file (empty when the
//! bundled catalog is in use). The worker decodes the same configuration,
//! rebuilds the same catalog and evaluates the same answer as the page
//! (`evaluate_offers`: the same inputs give the same answer), then writes
//! the texts. Never panics: a request it cannot read, or a catalog that
//! does not load, gets an empty list (the launch card then shows nothing,
//! as the page did before for a catalog that did not load).
//!
//! The reply to `export`: one record per offer ([`RS`] between records),
//! its fields offer id, role (`pick`/`alternative`), the SkyPilot YAML,
//! the command and the reason SkyPilot cannot launch it (empty when it
//! can), [`US`] between fields; [`split_exports`] reads it back. The reply
//! to `csv`: the CSV text.
//!
//! The reply to `export` ends with one more record where the answer's
//! model has a hosted API price: `evaluate::api::record` on the worker's
//! copy of the price table ([`api_file`]), read back by
//! `evaluate::api::read_reply` (it has seven fields, so [`split_exports`]
//! leaves it out).
//!
//! The third kind, `hfconfig` ([`hf_request`]: the kind, then the text of a
//! Hugging Face `config.json` to the end), runs [`super::hfconfig`] (and
//! serde_json's parser) here rather than in the page. The reply is records
//! ([`RS`] between them): first the link query of the imported
//! architecture (`v=1&model=custom&…`, the keys `hfconfig::import` sets;
//! empty when the file is refused), then one record per notice: the
//! notice's key, its message key and each placeholder's name and text
//! ([`US`] between fields). [`apply_hf`] reads it back into exactly what
//! `hfconfig::import` gives, notices in both languages included.
//!
//! Two more kinds take a file's text to the end and move the offers
//! parser (`catalog::offers`, its CSV reader and serde_json's) out of the
//! page: `offers` ([`offers_request`], an imported file, CSV or JSON) and
//! `sources` ([`sources_request`], the page's own copy of `offers.csv`,
//! for the sources view). The reply's first record is the parser's error
//! (empty when the file parsed), then one record per offer: for
//! `offers`, every field of the parsed [`Offer`] (before the catalog's
//! checks and currency conversion, which the page runs itself with
//! `Catalog::with_offers` as before), numbers in Rust's shortest
//! round-trip form, so [`read_offers`] gives back the same offers bit for
//! bit; for `sources`, the offer's id, source and notes ([`read_sources`]).

use super::answer::Answer;
use super::catalog::api_prices::{parse_file, ApiFile};
use super::catalog::offers::{parse_offers, parse_offers_any, Interconnect, Offer};
use super::catalog::Catalog;
use super::config::{Config, Currency, Task};
use super::date::Date;
use super::evaluate::evaluate_offers;
use super::export::{for_answer, Export};
use super::hfconfig;
use super::link;
use super::messages::{known_arg, known_key, Arg, Msg};
use super::notice::Notice;

/// Between the records of a reply (ASCII record separator).
pub const RS: char = '\u{1e}';
/// Between the fields of a record (ASCII unit separator).
pub const US: char = '\u{1f}';

/// One offer's launch texts as the page reads them from a reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportText {
    pub offer: String,
    /// `pick` or `alternative`.
    pub role: String,
    pub skypilot_yaml: String,
    pub command: String,
    /// Why SkyPilot cannot launch this offer; empty when it can.
    pub unsupported: String,
}

/// The request for `kind` (`export` or `csv`), as the page writes it.
pub fn request(kind: &str, today: Date, query: &str, sources_url: &str, import: &str) -> String {
    format!("{kind}\n{today}\n{query}\n{sources_url}\n{import}")
}

/// The request for importing a `config.json` (its whole text).
pub fn hf_request(text: &str) -> String {
    format!("{HF}\n{text}")
}

const HF: &str = "hfconfig";

/// The request for parsing an imported offers file (CSV or JSON).
pub fn offers_request(text: &str) -> String {
    format!("offers\n{text}")
}

/// The request for the sources view: the text of the page's `offers.csv`.
pub fn sources_request(text: &str) -> String {
    format!("sources\n{text}")
}

/// The worker's reply to one request.
pub fn handle(request: &str) -> String {
    match request.split_once('\n') {
        Some((HF, text)) => return hf_reply(text),
        Some(("offers", text)) => return offers_reply(parse_offers_any("import", text), offer_record),
        // Under its own name, so that the rule "a bundled table of a Wasm
        // build may lack sources" does not apply: this copy must have them.
        Some(("sources", text)) => {
            return offers_reply(parse_offers("offers.csv (page copy)", text), |o| {
                [clean(&o.id), clean(&o.source), clean(&o.notes)].join(&US.to_string())
            })
        }
        _ => {}
    }
    let mut parts = request.splitn(5, '\n');
    let (kind, today, query, sources, import) =
        (parts.next(), parts.next().and_then(Date::parse), parts.next(), parts.next(), parts.next());
    let (Some(kind), Some(today), Some(query), Some(sources)) = (kind, today, query, sources) else {
        return String::new();
    };
    let Ok(bundled) = Catalog::bundled() else { return String::new() };
    let import = import.unwrap_or_default();
    let imported = if import.is_empty() {
        None
    } else {
        parse_offers_any("import", import).ok().and_then(|o| bundled.with_offers(o).ok())
    };
    if !import.is_empty() && imported.is_none() {
        return String::new();
    }
    let catalog = imported.as_ref().unwrap_or(bundled);
    // The page's answer: the same configuration, catalog and day.
    let (cfg, _) = link::decode(query);
    let answer = evaluate_offers(&cfg, Vec::new(), catalog, today);
    match kind {
        "export" => {
            let mut reply = join_exports(&for_answer(&answer, catalog));
            // The hosted API's price for the same answer, a record of its own.
            if let Some(api) = api_file().and_then(|f| super::evaluate::api::record(&answer, f)) {
                reply.push(RS);
                reply.push_str(&api);
            }
            reply
        }
        "csv" => offers_csv(&answer, sources),
        _ => String::new(),
    }
}

/// The worker's copy of the hosted API prices and their texts (the file
/// `build.rs` writes, `api_prices::ApiFile`), parsed once; `None` if it does
/// not parse (`tests/it/offers/api_page.rs` fails on it). The page's
/// module never calls it, so neither the table nor the texts are in it.
pub fn api_file() -> Option<&'static ApiFile> {
    static FILE: std::sync::OnceLock<Option<ApiFile>> = std::sync::OnceLock::new();
    FILE.get_or_init(|| parse_file(include_str!(concat!(env!("OUT_DIR"), "/api-prices.txt")))).as_ref()
}

/// A field with the separators taken out (an imported offer id could hold one).
fn clean(s: &str) -> String {
    s.replace([RS, US], " ")
}

fn join_exports(exports: &[Export]) -> String {
    let records: Vec<String> = exports
        .iter()
        .map(|e| {
            let fields = [
                clean(&e.offer),
                e.role.to_string(),
                clean(&e.skypilot_yaml),
                clean(&e.command),
                clean(e.unsupported.as_deref().unwrap_or_default()),
            ];
            fields.join(&US.to_string())
        })
        .collect();
    records.join(&RS.to_string())
}

/// The launch texts of an `export` reply; records that do not have five
/// fields are left out.
pub fn split_exports(reply: &str) -> Vec<ExportText> {
    reply
        .split(RS)
        .filter_map(|r| {
            let mut f = r.split(US).map(str::to_string);
            let e = ExportText {
                offer: f.next()?,
                role: f.next()?,
                skypilot_yaml: f.next()?,
                command: f.next()?,
                unsupported: f.next()?,
            };
            f.next().is_none().then_some(e)
        })
        .collect()
}

/// The offers table as CSV (the same figures as the page's table; its
/// columns are `columns::COLUMNS`' CSV columns). An
/// offer without its source text (the Wasm build's bundled catalog drops
/// it) gets `sources` instead: the address of the full offers table, whose
/// row of the same id names the source; `price_as_of` is the price's date.
pub fn offers_csv(a: &Answer, sources: &str) -> String {
    super::columns::csv(&a.offers, sources)
}

/// The reply to an `hfconfig` request: the imported architecture's query
/// (from a default configuration: only `model` and the architecture keys
/// differ) and the notices, or an empty query and the refusal.
fn hf_reply(text: &str) -> String {
    let (query, notices) = match hfconfig::import(&Config::default(), text) {
        Ok((cfg, notices)) => (link::encode(&cfg), notices),
        Err(n) => (String::new(), vec![n]),
    };
    let mut records = vec![query];
    records.extend(notices.iter().map(notice_record));
    records.join(&RS.to_string())
}

/// A notice as fields: its key, its message key (empty: no message, then
/// the text) and each placeholder's name and value (a number or a nested
/// message as its English text; the import's notices hold only texts).
fn notice_record(n: &Notice) -> String {
    let mut fields = vec![clean(&n.key)];
    match &n.msg {
        Some(m) => {
            fields.push(m.key.to_string());
            for (name, value) in &m.args {
                let text = match value {
                    Arg::Text(t) => t.clone(),
                    v => v.to_string(),
                };
                fields.extend([name.to_string(), clean(&text)]);
            }
        }
        None => fields.extend([String::new(), clean(&n.message)]),
    }
    fields.join(&US.to_string())
}

/// A notice record read back; a message key this build does not know
/// becomes its English text as given (never a panic).
fn read_notice(record: &str) -> Notice {
    let mut f = record.split(US);
    let key = f.next().unwrap_or_default();
    let msg_key = f.next().unwrap_or_default();
    let Some(msg_key) = known_key(msg_key) else {
        return Notice::other(key, f.collect::<Vec<_>>().join(" "));
    };
    let mut msg = Msg::new(msg_key);
    while let (Some(name), Some(value)) = (f.next(), f.next()) {
        if let Some(name) = known_arg(msg_key, name) {
            msg = msg.arg(name, value);
        }
    }
    Notice::said(key, msg)
}

/// What importing a `config.json` does to the page's configuration `cfg`,
/// from the worker's reply: the same as `hfconfig::import(cfg, text)` —
/// `model=custom` and the architecture keys (replacing earlier ones), a
/// generation task becomes serving, and the notices; or the notice that
/// refused the file (the caller keeps its configuration).
pub fn apply_hf(cfg: &Config, reply: &str) -> Result<(Config, Vec<Notice>), Notice> {
    let mut records = reply.split(RS);
    let query = records.next().unwrap_or_default();
    let mut notices: Vec<Notice> = records.map(read_notice).collect();
    if query.is_empty() {
        let why = || Notice::said(hfconfig::KEY, Msg::new("notice.hf.worker").arg("why", "no reply"));
        return Err(if notices.is_empty() { why() } else { notices.swap_remove(0) });
    }
    let (arch, _) = link::decode(query);
    let mut next = cfg.clone();
    next.model = arch.model;
    next.custom = arch.custom;
    if next.task == Task::Generate {
        next.task = Task::Serve;
    }
    Ok((next, notices))
}

/// A parse's reply: its error, or an empty record and one record per offer.
fn offers_reply<E: std::fmt::Display>(parsed: Result<Vec<Offer>, E>, record: fn(&Offer) -> String) -> String {
    match parsed {
        Ok(offers) => std::iter::once(String::new())
            .chain(offers.iter().map(record))
            .collect::<Vec<_>>()
            .join(&RS.to_string()),
        Err(e) => clean(&e.to_string()),
    }
}

/// Every field of a parsed offer, in [`read_offer`]'s order.
fn offer_record(o: &Offer) -> String {
    let n = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    let fields = [
        clean(&o.id),
        clean(&o.provider),
        clean(&o.instance),
        clean(&o.gpu),
        o.gpus.to_string(),
        n(o.vcpus),
        n(o.ram_gb),
        o.interconnect.as_str().to_string(),
        n(o.inter_node_gbps),
        o.currency.as_str().to_string(),
        o.usd_per_hour.to_string(),
        n(o.spot_usd_per_hour),
        n(o.commit_1mo_usd_per_hour),
        n(o.commit_1yr_usd_per_hour),
        n(o.commit_3yr_usd_per_hour),
        clean(&o.commit_source),
        o.commit_as_of.map(|d| d.to_string()).unwrap_or_default(),
        clean(&o.region),
        n(o.billing_increment_s),
        n(o.min_charge_s),
        n(o.storage_usd_per_gb_month),
        n(o.egress_usd_per_gb),
        clean(&o.source),
        o.as_of.to_string(),
        clean(&o.notes),
    ];
    fields.join(&US.to_string())
}

/// The reply's records after its first: the parser's error when the
/// first is not empty.
fn records(reply: &str) -> Result<std::str::Split<'_, char>, String> {
    let mut records = reply.split(RS);
    match records.next().unwrap_or_default() {
        "" => Ok(records),
        error => Err(error.to_string()),
    }
}

/// The offers of an `offers` reply, or the parser's error (a record that
/// cannot be read says so; never a panic).
pub fn read_offers(reply: &str) -> Result<Vec<Offer>, String> {
    records(reply)?
        .filter(|r| !r.is_empty())
        .map(|r| read_offer(r).ok_or_else(|| "the import module's reply could not be read".to_string()))
        .collect()
}

fn read_offer(record: &str) -> Option<Offer> {
    let f: Vec<&str> = record.split(US).collect();
    #[rustfmt::skip]
    let [
        id, provider, instance, gpu, gpus, vcpus, ram_gb, interconnect, inter_node_gbps, currency,
        usd_per_hour, spot, c1mo, c1yr, c3yr, commit_source, commit_as_of, region, increment,
        min_charge, storage, egress, source, as_of, notes,
    ] = f.as_slice()
    else {
        return None;
    };
    let n = |s: &str| if s.is_empty() { Some(None) } else { s.parse::<f64>().ok().map(Some) };
    Some(Offer {
        id: (*id).into(),
        provider: (*provider).into(),
        instance: (*instance).into(),
        gpu: (*gpu).into(),
        gpus: gpus.parse().ok()?,
        vcpus: n(vcpus)?,
        ram_gb: n(ram_gb)?,
        interconnect: Interconnect::parse(interconnect)?,
        inter_node_gbps: n(inter_node_gbps)?,
        currency: Currency::parse(currency)?,
        usd_per_hour: usd_per_hour.parse().ok()?,
        spot_usd_per_hour: n(spot)?,
        commit_1mo_usd_per_hour: n(c1mo)?,
        commit_1yr_usd_per_hour: n(c1yr)?,
        commit_3yr_usd_per_hour: n(c3yr)?,
        commit_source: (*commit_source).to_string(),
        commit_as_of: if commit_as_of.is_empty() { None } else { Some(Date::parse(commit_as_of)?) },
        region: (*region).into(),
        billing_increment_s: n(increment)?,
        min_charge_s: n(min_charge)?,
        storage_usd_per_gb_month: n(storage)?,
        egress_usd_per_gb: n(egress)?,
        source: (*source).into(),
        as_of: Date::parse(as_of)?,
        notes: (*notes).to_string(),
    })
}

/// The (id, source, notes) of each offer of a `sources` reply, or the
/// parser's error.
pub fn read_sources(reply: &str) -> Result<Vec<(String, String, String)>, String> {
    records(reply)?
        .filter(|r| !r.is_empty())
        .map(|r| {
            let mut f = r.split(US).map(str::to_string);
            match (f.next(), f.next(), f.next(), f.next()) {
                (Some(id), Some(source), Some(notes), None) => Ok((id, source, notes)),
                _ => Err("the import module's reply could not be read".to_string()),
            }
        })
        .collect()
}
