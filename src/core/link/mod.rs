//! The share-link codec: a URL query string ⇄ [`Config`], following
//! `docs/link-format.md`. Decoding never fails and never panics: an unknown key or
//! a bad value becomes a [`Notice`] and that key keeps its default.

use super::config::*;
pub use super::notice::{Notice, NoticeKind};
use super::table::clip;

mod keys;
mod values;
pub use keys::{find, Codec, Control, Key, REGISTRY};
#[cfg(not(target_arch = "wasm32"))]
pub use keys::{Doc, Values};
use values::*;
pub use values::{fmt_num, FORMAT_VERSION};

/// Every key of the link format, in the order links are written (the registry's order).
pub const KEYS: &[&str] = &NAMES;
const NAMES: [&str; REGISTRY.len()] = keys::names_in_order();

/// Whether `key` describes a custom architecture (`model=custom`): `params`
/// and the keys a Hugging Face `config.json` import fills.
pub fn is_arch_key(key: &str) -> bool {
    key == "params" || find(key).is_some_and(|k| k.control == Control::Imported)
}

/// Applies one key. Errors leave `cfg` untouched for that key.
fn apply(cfg: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    let k = find(key).ok_or_else(|| Notice::unknown_key(key))?;
    match k.codec {
        Codec::Num(min, max, set, _) => set(cfg, num(value, key, min, max)?),
        Codec::Int(min, max, set, _) => set(cfg, int(value, key, min, max)?),
        Codec::Flag(set, _) => set(cfg, flag(value, key)?),
        Codec::Text(set, _) => set(cfg, key, value)?,
    }
    Ok(())
}

impl Codec {
    /// The key's text in a link: `None` where the field is unset or, given
    /// the defaults `d`, has its default value (the link leaves the key out).
    #[inline(never)]
    fn text(&self, cfg: &Config, d: Option<&Config>) -> Option<String> {
        match self {
            Codec::Num(.., get) => changed(get(cfg), d.map(get)).map(fmt_num),
            Codec::Int(.., get) => changed(get(cfg), d.map(get)).map(|v| v.to_string()),
            Codec::Flag(_, get) => {
                changed(get(cfg), d.map(get)).map(|v| if v { "1" } else { "0" }.to_string())
            }
            Codec::Text(_, get) => get(cfg, d.unwrap_or(cfg)),
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
/// unset, or not a plain key — a number, whole number or flag): what the
/// page's text inputs show.
pub fn plain_text(cfg: &Config, key: &str) -> Option<String> {
    find(key).filter(|k| !matches!(k.codec, Codec::Text(..))).and_then(|k| k.codec.text(cfg, None))
}

/// Sets one key from text, as an input on the page does: the new
/// configuration, or the unchanged one and the notice saying why.
pub fn set(cfg: &Config, key: &str, value: &str) -> Result<Config, Notice> {
    let mut next = cfg.clone();
    // Clearing an optional field on the page returns it to "the default".
    if let (true, Some(clear)) = (value.trim().is_empty(), find(key).and_then(|k| k.clear)) {
        clear(&mut next);
        return Ok(next);
    }
    apply(&mut next, key, value.trim())?;
    Ok(next)
}

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
    // A micro-batch equal to the default in effect is the default itself
    // (1, or TRL's 8 for an RL fine-tune: `Config::mb`).
    if cfg.mb == Some(cfg.default_mb()) {
        cfg.mb = None;
    }
    (cfg, notices)
}

/// Encodes a configuration as a canonical query string (no leading `?`):
/// `v=1` first, then every key whose value differs from the default, in
/// [`REGISTRY`] order, so equal configurations give equal links.
pub fn encode(cfg: &Config) -> String {
    let d = Config::default();
    let parts: Vec<String> = REGISTRY
        .iter()
        .filter_map(|k| k.codec.text(cfg, Some(&d)).map(|v| format!("{}={}", k.name, percent_encode(&v))))
        .collect();
    parts.join("&")
}

/// The page's Wasm compares two configurations by their links
/// ([`encode`], canonical: one text per configuration): the derived
/// comparison of every field was about 1.8 KB gzip of the page's download
/// (issue 47). The two agree for every configuration a link can hold —
/// `tests/it/link/codec.rs` checks natively, with the derived comparison, that
/// whatever [`decode`] accepts comes back equal from [`encode`] — and the
/// page's configurations are all decoded from link text (the address, an
/// input's key and value, an imported config.json's query). The same
/// configuration object is equal without encoding.
#[cfg(target_arch = "wasm32")]
impl PartialEq for Config {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other) || encode(self) == encode(other)
    }
}
