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
//! The third kind, `hfconfig` ([`hf_request`]: the kind, then the text of a
//! Hugging Face `config.json` to the end), runs [`super::hfconfig`] (and
//! serde_json's parser) here rather than in the page. The reply is records
//! ([`RS`] between them): first the link query of the imported
//! architecture (`v=1&model=custom&…`, the keys `hfconfig::import` sets;
//! empty when the file is refused), then one record per notice: the
//! notice's key, its message key and each placeholder's name and text
//! ([`US`] between fields). [`apply_hf`] reads it back into exactly what
//! `hfconfig::import` gives, notices in both languages included.

use super::answer::Answer;
use super::catalog::{offers::parse_offers_any, Catalog};
use super::config::{Config, Task};
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

/// The worker's reply to one request.
pub fn handle(request: &str) -> String {
    if let Some(text) = request.strip_prefix(HF).and_then(|r| r.strip_prefix('\n')) {
        return hf_reply(text);
    }
    let mut parts = request.splitn(5, '\n');
    let (kind, today, query, sources, import) = (parts.next(), parts.next().and_then(Date::parse), parts.next(), parts.next(), parts.next());
    let (Some(kind), Some(today), Some(query), Some(sources)) = (kind, today, query, sources) else { return String::new() };
    let Ok(bundled) = Catalog::bundled() else { return String::new() };
    let import = import.unwrap_or_default();
    let imported = if import.is_empty() { None } else { parse_offers_any("import", import).ok().and_then(|o| bundled.with_offers(o).ok()) };
    if !import.is_empty() && imported.is_none() {
        return String::new();
    }
    let catalog = imported.as_ref().unwrap_or(bundled);
    // The page's answer: the same configuration, catalog and day.
    let (cfg, _) = link::decode(query);
    let answer = evaluate_offers(&cfg, Vec::new(), catalog, today);
    match kind {
        "export" => join_exports(&for_answer(&answer, catalog)),
        "csv" => offers_csv(&answer, sources),
        _ => String::new(),
    }
}

/// A field with the separators taken out (an imported offer id could hold one).
fn clean(s: &str) -> String {
    s.replace([RS, US], " ")
}

fn join_exports(exports: &[Export]) -> String {
    let records: Vec<String> = exports
        .iter()
        .map(|e| {
            let fields = [clean(&e.offer), e.role.to_string(), clean(&e.skypilot_yaml), clean(&e.command), clean(e.unsupported.as_deref().unwrap_or_default())];
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
            let e = ExportText { offer: f.next()?, role: f.next()?, skypilot_yaml: f.next()?, command: f.next()?, unsupported: f.next()? };
            f.next().is_none().then_some(e)
        })
        .collect()
}

/// The offers table as CSV (the same figures as the page's table). An
/// offer without its source text (the Wasm build's bundled catalog drops
/// it) gets `sources` instead: the address of the full offers table, whose
/// row of the same id names the source; `price_as_of` is the price's date.
pub fn offers_csv(a: &Answer, sources: &str) -> String {
    let mut out = String::from("id,provider,instance,gpu,gpus,instances,fits,decode_tokens_per_s_per_seq,usd_per_hour,usd_per_month,usd_per_million_output_tokens,price_as_of,stale,source,replicas,commitment,unknown_costs\n");
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for o in &a.offers {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{:.2},{:.4},{:.2},{},{},{},{},{},{},{}\n",
            q(&o.id),
            q(&o.provider),
            q(&o.instance),
            q(&o.gpu),
            o.gpus,
            o.instances,
            o.fits,
            o.speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0),
            o.usd_per_hour,
            o.usd_per_month,
            o.usd_per_million_output_tokens.map(|v| format!("{v:.4}")).unwrap_or_default(),
            o.price_as_of,
            o.stale,
            q(if o.source.is_empty() { sources } else { &o.source }),
            o.replicas,
            o.commitment.as_str(),
            q(&o.unknown_costs.join(";"))
        ));
    }
    out
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
    let Some(msg_key) = known_key(msg_key) else { return Notice::other(key, f.collect::<Vec<_>>().join(" ")) };
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
