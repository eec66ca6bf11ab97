//! The share-link codec: a URL query string ⇄ [`Config`], following
//! `LINK-FORMAT.md`. Decoding never fails and never panics: an unknown key or
//! a bad value becomes a [`Notice`] and that key keeps its default.

use super::config::*;
use super::date::Date;
use super::messages::Msg;
pub use super::notice::{Notice, NoticeKind};
use super::precision;
use super::table::clip;

mod arch;
mod values;
pub use arch::KEYS as ARCH_KEYS;
use values::*;

pub const FORMAT_VERSION: u32 = 1;

/// Every key of the link format, in the order links are written.
#[rustfmt::skip]
pub const KEYS: &[&str] = &[
    "v", "task", "model", "params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "experts",
    "experts_active", "shared_experts", "expert_ffn", "dense_layers", "kv_lora", "q_lora", "rope_dim", "window",
    "global_every", "tied", "context", "vision_params", "image_tokens", "image_px", "image_tiles", "patch_px",
    "cross_layers", "w", "kv",
    "engine", "gpu", "gpus", "nodes", "in", "out", "batch", "images", "res", "steps", "frames", "fps", "seconds",
    "enc_offload", "method", "rank", "targets", "optim", "optim_offload", "trainer", "act_offload",
    "param_offload", "mb", "gbs", "seq", "gc", "flash", "zero",
    "tokens", "epochs", "days", "use", "hpd", "jobs", "jobmin", "per_job", "spot", "commit", "restart", "store",
    "ckpts", "egress", "sort", "provider", "region", "mintps", "maxttft", "rps", "maxusd", "price", "cat", "cur",
    "lang", "embed", "theme",
];

/// Applies one key. Errors leave `cfg` untouched for that key.
fn apply(cfg: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    let c = cfg;
    match key {
        "v" => {
            if value != "1" {
                return Err(Notice::unknown_version(value));
            }
        }
        "task" => c.task = pick(value, key, Task::NAMES)?,
        "model" => c.model = Some(model_id(value, key)?),
        k if arch::KEYS.contains(&k) => arch::apply(&mut c.custom, key, value)?,
        "w" => {
            let Some(id) = values::weight_format_id(value) else {
                let ids: Vec<&str> = precision::weight_formats().iter().map(|f| f.id).collect();
                return Err(Notice::bad(key, value, &ids.join(" | ")));
            };
            c.w = Some(id.to_string());
        }
        "kv" => {
            if precision::kv_bytes(value).is_none() || value == "fp32" {
                return Err(Notice::bad(key, value, &precision::KV_FORMATS.join(" | ")));
            }
            c.kv = value.to_string();
        }
        "engine" => c.engine = pick(value, key, Engine::NAMES)?,
        "gpu" => c.gpu = Some(id(value, key)?),
        "batch" => c.batch = Some(if value == "max" { Batch::Max } else { Batch::N(int(value, key, 1, 100_000)?) }),
        "res" => {
            let parsed = value.split_once('x').and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)));
            match parsed {
                Some((w, h)) if (64..=8192).contains(&w) && (64..=8192).contains(&h) => c.res = Some((w, h)),
                _ => return Err(Notice::bad_msg(key, value, Msg::new("expect.res"))),
            }
        }
        "method" => c.method = pick(value, key, Method::NAMES)?,
        "targets" => c.targets = pick(value, key, Targets::NAMES)?,
        "optim" => c.optim = pick(value, key, Optim::NAMES)?,
        "trainer" => c.trainer = pick(value, key, Trainer::NAMES)?,
        "gc" => c.gc = pick(value, key, Checkpointing::NAMES)?,
        "use" => c.usage = Some(pick(value, key, Usage::NAMES)?),
        "commit" => c.commit = pick(value, key, Commit::NAMES)?,
        "sort" => c.sort = pick(value, key, Sort::NAMES)?,
        "provider" => {
            let list: Result<Vec<String>, Notice> = value.split(',').filter(|s| !s.is_empty()).map(|p| id(p, key)).collect();
            c.providers = list?;
        }
        "region" => {
            if value.is_empty() || value.len() > 64 || value.chars().any(char::is_control) {
                return Err(Notice::bad_msg(key, value, Msg::new("expect.region")));
            }
            c.region = Some(value.to_string());
        }
        "price" => {
            let mut prices = Vec::new();
            for part in value.split(',').filter(|s| !s.is_empty()) {
                let (offer, usd) = part.rsplit_once(':').ok_or_else(|| Notice::bad(key, part, "offerid:amount"))?;
                let offer = id(offer, key)?;
                let usd = num(usd, key, 0.0001, 1e6)?;
                prices.push((offer, usd));
            }
            c.prices = prices;
        }
        "cat" => c.cat = Some(Date::parse(value).ok_or_else(|| Notice::bad(key, value, "YYYY-MM-DD"))?),
        "cur" => c.cur = Some(pick(value, key, Currency::NAMES)?),
        "lang" => c.lang = Some(pick(value, key, Lang::NAMES)?),
        "theme" => c.theme = pick(value, key, Theme::NAMES)?,
        _ => {
            let (_, slot) = SLOTS.iter().find(|(k, _)| *k == key).ok_or_else(|| Notice::unknown_key(key))?;
            match *slot {
                Slot::Num(min, max, set, _) => set(c, num(value, key, min, max)?),
                Slot::Int(min, max, set, _) => set(c, int(value, key, min, max)?),
                Slot::Flag(set, _) => set(c, flag(value, key)?),
            }
        }
    }
    Ok(())
}

/// How a plain key reads its value (a number in a range, a whole number in
/// a range, a flag), the field it sets, and the field's value for a link
/// (`None`: unset).
#[allow(clippy::type_complexity)]
enum Slot {
    Num(f64, f64, fn(&mut Config, f64), fn(&Config) -> Option<f64>),
    Int(u32, u32, fn(&mut Config, u32), fn(&Config) -> Option<u32>),
    Flag(fn(&mut Config, bool), fn(&Config) -> Option<bool>),
}

impl Slot {
    /// The key's text in a link: `None` where the field is unset or, given
    /// the defaults `d`, has its default value (the link leaves the key out).
    #[inline(never)]
    fn text(&self, cfg: &Config, d: Option<&Config>) -> Option<String> {
        match self {
            Slot::Num(.., get) => changed(get(cfg), d.map(get)).map(fmt_num),
            Slot::Int(.., get) => changed(get(cfg), d.map(get)).map(|v| v.to_string()),
            Slot::Flag(_, get) => changed(get(cfg), d.map(get)).map(|v| if v { "1" } else { "0" }.to_string()),
        }
    }
}

/// The value when it is set and differs from the default (if one is given).
fn changed<T: PartialEq>(v: Option<T>, default: Option<Option<T>>) -> Option<T> {
    match default {
        Some(d) if d == v => None,
        _ => v,
    }
}

/// A plain key's current value as a link writes it, default or not (`None`:
/// unset, or not a plain key): what the page's text inputs show.
pub fn plain_text(cfg: &Config, key: &str) -> Option<String> {
    SLOTS.iter().find(|(k, _)| *k == key).and_then(|(_, slot)| slot.text(cfg, None))
}

/// The plain keys (a table, not one `match` arm per key: the page's Wasm
/// carries one copy of the read-and-check code).
#[rustfmt::skip]
const SLOTS: &[(&str, Slot)] = &[
    ("gpus", Slot::Int(1, 72, |c, v| c.gpus = Some(v), |c| c.gpus)),
    ("nodes", Slot::Int(1, 4096, |c, v| c.nodes = v, |c| Some(c.nodes))),
    ("in", Slot::Int(1, 10_000_000, |c, v| c.input_tokens = v, |c| Some(c.input_tokens))),
    ("out", Slot::Int(1, 1_000_000, |c, v| c.output_tokens = v, |c| Some(c.output_tokens))),
    ("images", Slot::Int(0, 64, |c, v| c.images = v, |c| Some(c.images))),
    ("steps", Slot::Int(1, 1000, |c, v| c.steps = Some(v), |c| c.steps)),
    ("frames", Slot::Int(1, 2000, |c, v| c.frames = Some(v), |c| c.frames)),
    ("fps", Slot::Int(1, 120, |c, v| c.fps = Some(v), |c| c.fps)),
    ("seconds", Slot::Num(0.1, 36_000.0, |c, v| c.seconds = Some(v), |c| c.seconds)),
    ("enc_offload", Slot::Flag(|c, v| c.enc_offload = v, |c| Some(c.enc_offload))),
    ("rank", Slot::Int(1, 4096, |c, v| c.rank = v, |c| Some(c.rank))),
    ("optim_offload", Slot::Flag(|c, v| c.optim_offload = v, |c| Some(c.optim_offload))),
    ("act_offload", Slot::Flag(|c, v| c.act_offload = Some(v), |c| c.act_offload)),
    ("param_offload", Slot::Flag(|c, v| c.param_offload = v, |c| Some(c.param_offload))),
    ("mb", Slot::Int(1, 4096, |c, v| c.mb = v, |c| Some(c.mb))),
    ("gbs", Slot::Int(1, 10_000_000, |c, v| c.gbs = Some(v), |c| c.gbs)),
    ("seq", Slot::Int(16, 1_048_576, |c, v| c.seq = v, |c| Some(c.seq))),
    ("flash", Slot::Flag(|c, v| c.flash = v, |c| Some(c.flash))),
    ("zero", Slot::Int(0, 3, |c, v| c.zero = u8::try_from(v).ok(), |c| c.zero.map(u32::from))),
    ("tokens", Slot::Num(1.0, 1e15, |c, v| c.tokens = Some(v), |c| c.tokens)),
    ("epochs", Slot::Num(0.01, 1000.0, |c, v| c.epochs = v, |c| Some(c.epochs))),
    ("days", Slot::Num(0.01, 3650.0, |c, v| c.days = Some(v), |c| c.days)),
    ("hpd", Slot::Num(0.0, 24.0, |c, v| c.hpd = v, |c| Some(c.hpd))),
    ("jobs", Slot::Num(0.0, 1e6, |c, v| c.jobs = v, |c| Some(c.jobs))),
    ("jobmin", Slot::Num(0.0, 1e6, |c, v| c.jobmin = v, |c| Some(c.jobmin))),
    ("spot", Slot::Flag(|c, v| c.spot = v, |c| Some(c.spot))),
    ("per_job", Slot::Num(0.001, 1e9, |c, v| c.per_job = Some(v), |c| c.per_job)),
    ("restart", Slot::Num(0.0, 500.0, |c, v| c.restart_pct = v, |c| Some(c.restart_pct))),
    ("store", Slot::Num(0.0, 1e7, |c, v| c.store_gb = Some(v), |c| c.store_gb)),
    ("ckpts", Slot::Int(0, 10_000, |c, v| c.ckpts = v, |c| Some(c.ckpts))),
    ("egress", Slot::Num(0.0, 1e9, |c, v| c.egress_gb = v, |c| Some(c.egress_gb))),
    ("mintps", Slot::Num(0.0, 1e9, |c, v| c.mintps = Some(v), |c| c.mintps)),
    ("maxttft", Slot::Num(0.001, 3600.0, |c, v| c.maxttft = Some(v), |c| c.maxttft)),
    ("rps", Slot::Num(0.0001, 1e6, |c, v| c.rps = Some(v), |c| c.rps)),
    ("maxusd", Slot::Num(0.0, 1e12, |c, v| c.maxusd = Some(v), |c| c.maxusd)),
    ("embed", Slot::Flag(|c, v| c.embed = v, |c| Some(c.embed))),
];

/// Sets one key from text, as an input on the page does: the new
/// configuration, or the unchanged one and the notice saying why.
pub fn set(cfg: &Config, key: &str, value: &str) -> Result<Config, Notice> {
    let mut next = cfg.clone();
    // Clearing an optional field on the page returns it to "the default".
    if value.trim().is_empty() && OPTIONAL_KEYS.contains(&key) {
        let d = Config::default();
        match key {
            "steps" => next.steps = d.steps,
            "frames" => next.frames = d.frames,
            "fps" => next.fps = d.fps,
            "seconds" => next.seconds = d.seconds,
            "gpus" => next.gpus = d.gpus,
            "tokens" => next.tokens = d.tokens,
            "gbs" => next.gbs = d.gbs,
            "days" => next.days = d.days,
            "mintps" => next.mintps = d.mintps,
            "maxttft" => next.maxttft = d.maxttft,
            "rps" => next.rps = d.rps,
            "maxusd" => next.maxusd = d.maxusd,
            "store" => next.store_gb = d.store_gb,
            "res" => next.res = d.res,
            "batch" => next.batch = d.batch,
            "per_job" => next.per_job = d.per_job,
            "cur" => next.cur = d.cur,
            "zero" => next.zero = d.zero,
            _ => {}
        }
        return Ok(next);
    }
    apply(&mut next, key, value.trim())?;
    Ok(next)
}

/// Keys whose field may be left blank: the model's or the tool's default.
const OPTIONAL_KEYS: &[&str] = &[
    "batch", "per_job", "res", "steps", "frames", "fps", "seconds", "gpus", "gbs", "tokens", "days", "mintps", "maxttft", "rps", "maxusd", "store", "cur",
    "zero",
];

/// Decodes a query string (with or without a leading `?`) into a
/// configuration and the notices for whatever was ignored.
pub fn decode(query: &str) -> (Config, Vec<Notice>) {
    let mut cfg = Config::default();
    let mut notices = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let query = query.trim().trim_start_matches('?');
    for pair in query.split('&').filter(|p| !p.is_empty()).take(200) {
        let (raw_key, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode(raw_key);
        let value = percent_decode(raw_value);
        let value = value.trim();
        if seen.contains(&key) {
            let label = if key.is_empty() { "(empty)".to_string() } else { clip(&key) };
            notices.push(Notice::duplicate(&label));
        } else if seen.len() < 100 {
            seen.push(key.clone());
        }
        if let Err(n) = apply(&mut cfg, &key, value) {
            notices.push(n);
        }
    }
    (cfg, notices)
}

/// Encodes a configuration as a canonical query string (no leading `?`):
/// `v=1` first, then every key whose value differs from the default, in
/// [`KEYS`] order, so equal configurations give equal links.
pub fn encode(cfg: &Config) -> String {
    let d = Config::default();
    let parts: Vec<String> = KEYS.iter().filter_map(|key| value(cfg, &d, key).map(|v| format!("{key}={}", percent_encode(&v)))).collect();
    parts.join("&")
}

/// The text a link writes for `key`: `None` where the link leaves it out
/// (unset, or the default). The plain keys read their [`SLOTS`] getter.
fn value(cfg: &Config, d: &Config, key: &str) -> Option<String> {
    let name = |v: &'static str, default: &'static str| (v != default).then(|| v.to_string());
    match key {
        "v" => Some(FORMAT_VERSION.to_string()),
        "task" => name(cfg.task.as_str(), d.task.as_str()),
        "model" => cfg.model.clone(),
        k if arch::KEYS.contains(&k) => arch::value(&cfg.custom, k),
        "w" => cfg.w.clone(),
        "kv" => (cfg.kv != d.kv).then(|| cfg.kv.clone()),
        "engine" => name(cfg.engine.as_str(), d.engine.as_str()),
        "gpu" => cfg.gpu.clone(),
        "batch" => cfg.batch.map(|b| match b {
            Batch::Max => "max".into(),
            Batch::N(n) => n.to_string(),
        }),
        "res" => cfg.res.map(|(w, h)| format!("{w}x{h}")),
        "method" => name(cfg.method.as_str(), d.method.as_str()),
        "targets" => name(cfg.targets.as_str(), d.targets.as_str()),
        "optim" => name(cfg.optim.as_str(), d.optim.as_str()),
        "trainer" => name(cfg.trainer.as_str(), d.trainer.as_str()),
        "gc" => name(cfg.gc.as_str(), d.gc.as_str()),
        "use" => cfg.usage.map(|u| u.as_str().into()),
        "commit" => name(cfg.commit.as_str(), d.commit.as_str()),
        "sort" => name(cfg.sort.as_str(), d.sort.as_str()),
        "provider" => (!cfg.providers.is_empty()).then(|| cfg.providers.join(",")),
        "region" => cfg.region.clone(),
        "price" => (!cfg.prices.is_empty()).then(|| cfg.prices.iter().map(|(o, p)| format!("{o}:{}", fmt_num(*p))).collect::<Vec<_>>().join(",")),
        "cat" => cfg.cat.map(|c| c.to_string()),
        "cur" => cfg.cur.map(|c| c.as_str().into()),
        "lang" => cfg.lang.map(|l| l.as_str().into()),
        "theme" => name(cfg.theme.as_str(), d.theme.as_str()),
        _ => SLOTS.iter().find(|(k, _)| *k == key).and_then(|(_, slot)| slot.text(cfg, Some(d))),
    }
}

/// Shortest decimal that round-trips.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
