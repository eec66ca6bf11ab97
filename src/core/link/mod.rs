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
            if precision::weight_format(value).is_none() {
                let ids: Vec<&str> = precision::weight_formats().iter().map(|f| f.id).collect();
                return Err(Notice::bad(key, value, &ids.join(" | ")));
            }
            c.w = Some(value.to_string());
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
                Slot::Num(min, max, set) => set(c, num(value, key, min, max)?),
                Slot::Int(min, max, set) => set(c, int(value, key, min, max)?),
                Slot::Flag(set) => set(c, flag(value, key)?),
            }
        }
    }
    Ok(())
}

/// How a plain key reads its value (a number in a range, a whole number in
/// a range, a flag) and the field it sets.
enum Slot {
    Num(f64, f64, fn(&mut Config, f64)),
    Int(u32, u32, fn(&mut Config, u32)),
    Flag(fn(&mut Config, bool)),
}

/// The plain keys (a table, not one `match` arm per key: the page's Wasm
/// carries one copy of the read-and-check code).
#[rustfmt::skip]
const SLOTS: &[(&str, Slot)] = &[
    ("gpus", Slot::Int(1, 72, |c, v| c.gpus = Some(v))),
    ("nodes", Slot::Int(1, 4096, |c, v| c.nodes = v)),
    ("in", Slot::Int(1, 10_000_000, |c, v| c.input_tokens = v)),
    ("out", Slot::Int(1, 1_000_000, |c, v| c.output_tokens = v)),
    ("images", Slot::Int(0, 64, |c, v| c.images = v)),
    ("steps", Slot::Int(1, 1000, |c, v| c.steps = Some(v))),
    ("frames", Slot::Int(1, 2000, |c, v| c.frames = Some(v))),
    ("fps", Slot::Int(1, 120, |c, v| c.fps = Some(v))),
    ("seconds", Slot::Num(0.1, 36_000.0, |c, v| c.seconds = Some(v))),
    ("enc_offload", Slot::Flag(|c, v| c.enc_offload = v)),
    ("rank", Slot::Int(1, 4096, |c, v| c.rank = v)),
    ("optim_offload", Slot::Flag(|c, v| c.optim_offload = v)),
    ("act_offload", Slot::Flag(|c, v| c.act_offload = Some(v))),
    ("param_offload", Slot::Flag(|c, v| c.param_offload = v)),
    ("mb", Slot::Int(1, 4096, |c, v| c.mb = v)),
    ("gbs", Slot::Int(1, 10_000_000, |c, v| c.gbs = Some(v))),
    ("seq", Slot::Int(16, 1_048_576, |c, v| c.seq = v)),
    ("flash", Slot::Flag(|c, v| c.flash = v)),
    ("zero", Slot::Int(0, 3, |c, v| c.zero = u8::try_from(v).unwrap_or(0))),
    ("tokens", Slot::Num(1.0, 1e15, |c, v| c.tokens = Some(v))),
    ("epochs", Slot::Num(0.01, 1000.0, |c, v| c.epochs = v)),
    ("days", Slot::Num(0.01, 3650.0, |c, v| c.days = Some(v))),
    ("hpd", Slot::Num(0.0, 24.0, |c, v| c.hpd = v)),
    ("jobs", Slot::Num(0.0, 1e6, |c, v| c.jobs = v)),
    ("jobmin", Slot::Num(0.0, 1e6, |c, v| c.jobmin = v)),
    ("spot", Slot::Flag(|c, v| c.spot = v)),
    ("per_job", Slot::Num(0.001, 1e9, |c, v| c.per_job = Some(v))),
    ("restart", Slot::Num(0.0, 500.0, |c, v| c.restart_pct = v)),
    ("store", Slot::Num(0.0, 1e7, |c, v| c.store_gb = Some(v))),
    ("ckpts", Slot::Int(0, 10_000, |c, v| c.ckpts = v)),
    ("egress", Slot::Num(0.0, 1e9, |c, v| c.egress_gb = v)),
    ("mintps", Slot::Num(0.0, 1e9, |c, v| c.mintps = Some(v))),
    ("maxttft", Slot::Num(0.001, 3600.0, |c, v| c.maxttft = Some(v))),
    ("rps", Slot::Num(0.0001, 1e6, |c, v| c.rps = Some(v))),
    ("maxusd", Slot::Num(0.0, 1e12, |c, v| c.maxusd = Some(v))),
    ("embed", Slot::Flag(|c, v| c.embed = v)),
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
            _ => {}
        }
        return Ok(next);
    }
    apply(&mut next, key, value.trim())?;
    Ok(next)
}

/// Keys whose field may be left blank: the model's or the tool's default.
const OPTIONAL_KEYS: &[&str] =
    &["batch", "per_job", "res", "steps", "frames", "fps", "seconds", "gpus", "gbs", "tokens", "days", "mintps", "maxttft", "rps", "maxusd", "store", "cur"];

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
    let mut parts: Vec<(&str, String)> = vec![("v", FORMAT_VERSION.to_string())];
    let mut put = |k: &'static str, v: String| parts.push((k, v));
    if cfg.task != d.task {
        put("task", cfg.task.as_str().into());
    }
    if let Some(m) = &cfg.model {
        put("model", m.clone());
    }
    arch::encode(&cfg.custom, &mut put);
    if let Some(w) = &cfg.w {
        put("w", w.clone());
    }
    if cfg.kv != d.kv {
        put("kv", cfg.kv.clone());
    }
    if cfg.engine != d.engine {
        put("engine", cfg.engine.as_str().into());
    }
    if let Some(g) = &cfg.gpu {
        put("gpu", g.clone());
    }
    if let Some(g) = cfg.gpus {
        put("gpus", g.to_string());
    }
    if cfg.nodes != d.nodes {
        put("nodes", cfg.nodes.to_string());
    }
    if cfg.input_tokens != d.input_tokens {
        put("in", cfg.input_tokens.to_string());
    }
    if cfg.output_tokens != d.output_tokens {
        put("out", cfg.output_tokens.to_string());
    }
    if let Some(b) = cfg.batch {
        put(
            "batch",
            match b {
                Batch::Max => "max".into(),
                Batch::N(n) => n.to_string(),
            },
        );
    }
    if cfg.images != d.images {
        put("images", cfg.images.to_string());
    }
    if let Some((w, h)) = cfg.res {
        put("res", format!("{w}x{h}"));
    }
    for (k, v) in [("steps", cfg.steps), ("frames", cfg.frames), ("fps", cfg.fps)] {
        if let Some(v) = v {
            put(k, v.to_string());
        }
    }
    if let Some(s) = cfg.seconds {
        put("seconds", fmt_num(s));
    }
    if cfg.enc_offload {
        put("enc_offload", "1".into());
    }
    if cfg.method != d.method {
        put("method", cfg.method.as_str().into());
    }
    if cfg.rank != d.rank {
        put("rank", cfg.rank.to_string());
    }
    if cfg.targets != d.targets {
        put("targets", cfg.targets.as_str().into());
    }
    if cfg.optim != d.optim {
        put("optim", cfg.optim.as_str().into());
    }
    if cfg.optim_offload {
        put("optim_offload", "1".into());
    }
    if cfg.trainer != d.trainer {
        put("trainer", cfg.trainer.as_str().into());
    }
    if let Some(a) = cfg.act_offload {
        put("act_offload", if a { "1" } else { "0" }.into());
    }
    if cfg.param_offload {
        put("param_offload", "1".into());
    }
    if cfg.mb != d.mb {
        put("mb", cfg.mb.to_string());
    }
    if let Some(g) = cfg.gbs {
        put("gbs", g.to_string());
    }
    if cfg.seq != d.seq {
        put("seq", cfg.seq.to_string());
    }
    if cfg.gc != d.gc {
        put("gc", cfg.gc.as_str().into());
    }
    if cfg.flash != d.flash {
        put("flash", if cfg.flash { "1" } else { "0" }.into());
    }
    if cfg.zero != d.zero {
        put("zero", cfg.zero.to_string());
    }
    if let Some(t) = cfg.tokens {
        put("tokens", fmt_num(t));
    }
    if cfg.epochs != d.epochs {
        put("epochs", fmt_num(cfg.epochs));
    }
    if let Some(v) = cfg.days {
        put("days", fmt_num(v));
    }
    if let Some(u) = cfg.usage {
        put("use", u.as_str().into());
    }
    if cfg.hpd != d.hpd {
        put("hpd", fmt_num(cfg.hpd));
    }
    if cfg.jobs != d.jobs {
        put("jobs", fmt_num(cfg.jobs));
    }
    if cfg.jobmin != d.jobmin {
        put("jobmin", fmt_num(cfg.jobmin));
    }
    if let Some(v) = cfg.per_job {
        put("per_job", fmt_num(v));
    }
    if cfg.spot {
        put("spot", "1".into());
    }
    if cfg.commit != d.commit {
        put("commit", cfg.commit.as_str().into());
    }
    if cfg.restart_pct != d.restart_pct {
        put("restart", fmt_num(cfg.restart_pct));
    }
    if let Some(v) = cfg.store_gb {
        put("store", fmt_num(v));
    }
    if cfg.ckpts != d.ckpts {
        put("ckpts", cfg.ckpts.to_string());
    }
    if cfg.egress_gb != d.egress_gb {
        put("egress", fmt_num(cfg.egress_gb));
    }
    if cfg.sort != d.sort {
        put("sort", cfg.sort.as_str().into());
    }
    if !cfg.providers.is_empty() {
        put("provider", cfg.providers.join(","));
    }
    if let Some(r) = &cfg.region {
        put("region", r.clone());
    }
    if let Some(v) = cfg.mintps {
        put("mintps", fmt_num(v));
    }
    if let Some(v) = cfg.maxttft {
        put("maxttft", fmt_num(v));
    }
    if let Some(v) = cfg.rps {
        put("rps", fmt_num(v));
    }
    if let Some(v) = cfg.maxusd {
        put("maxusd", fmt_num(v));
    }
    if !cfg.prices.is_empty() {
        put("price", cfg.prices.iter().map(|(o, p)| format!("{o}:{}", fmt_num(*p))).collect::<Vec<_>>().join(","));
    }
    if let Some(c) = cfg.cat {
        put("cat", c.to_string());
    }
    if let Some(c) = cfg.cur {
        put("cur", c.as_str().into());
    }
    if let Some(l) = cfg.lang {
        put("lang", l.as_str().into());
    }
    if cfg.embed {
        put("embed", "1".into());
    }
    if cfg.theme != d.theme {
        put("theme", cfg.theme.as_str().into());
    }
    parts.iter().map(|(k, v)| format!("{k}={}", percent_encode(v))).collect::<Vec<_>>().join("&")
}

/// Shortest decimal that round-trips.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
