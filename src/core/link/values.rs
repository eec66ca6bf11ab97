//! The link's value parsers (numbers, whole numbers, flags, choices, ids)
//! and its percent codec: each bad value becomes a [`Notice`] naming what
//! the key expects.

use super::super::messages::Msg;
use super::super::notice::Notice;
use super::super::precision;
use super::super::table::is_id;

/// Decodes `%XX` and `+`; invalid escapes are kept literally.
pub(super) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'+') => out.push(b' '),
            Some(b'%') => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            Some(&b) => out.push(b),
            None => break,
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(super) fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b',' | b':') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[inline(never)]
pub(super) fn num(value: &str, key: &str, min: f64, max: f64) -> Result<f64, Notice> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= min && v <= max => Ok(v),
        _ => Err(Notice::bad_msg(
            key,
            value,
            Msg::new("expect.number").arg("min", min.to_string()).arg("max", max.to_string()),
        )),
    }
}

#[inline(never)]
pub(super) fn int(value: &str, key: &str, min: u32, max: u32) -> Result<u32, Notice> {
    match value.trim().parse::<u64>() {
        Ok(v) if v >= u64::from(min) && v <= u64::from(max) => {
            u32::try_from(v).map_err(|_| Notice::bad(key, value, "a whole number"))
        }
        _ => Err(Notice::bad_msg(
            key,
            value,
            Msg::new("expect.whole").arg("min", min.to_string()).arg("max", max.to_string()),
        )),
    }
}

#[inline(never)]
pub(super) fn flag(value: &str, key: &str) -> Result<bool, Notice> {
    match value {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => Err(Notice::bad_msg(key, value, Msg::new("expect.flag"))),
    }
}

#[inline(never)]
pub(super) fn pick<T: Copy>(value: &str, key: &str, options: &[(&str, T)]) -> Result<T, Notice> {
    options.iter().find(|(name, _)| *name == value).map(|(_, v)| *v).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        Notice::bad(key, value, &names.join(" | "))
    })
}

#[inline(never)]
pub(super) fn id(value: &str, key: &str) -> Result<String, Notice> {
    if is_id(value) {
        Ok(value.to_string())
    } else {
        Err(Notice::bad_msg(key, value, Msg::new("expect.id")))
    }
}

/// A model id; a hub name (`Qwen/Qwen2.5-7B-Instruct`) is read as its
/// last part in lower case, which the catalog's did-you-mean then matches.
pub(super) fn model_id(value: &str, key: &str) -> Result<String, Notice> {
    let last = value.rsplit('/').next().unwrap_or(value).to_ascii_lowercase();
    id(if is_id(value) { value } else { &last }, key)
        .map_err(|_| Notice::bad_msg(key, value, Msg::new("expect.id")))
}

/// A weight format id as written, or as commonly named where that names
/// one format only: any case (`FP8`, `Q4_K_M`), a GGUF type without the
/// `gguf-` prefix (`q4_k_m`), a method without its bit width (`awq`,
/// `gptq`, `bnb`). The link is written back with the id.
#[inline(never)]
pub(super) fn weight_format_id(value: &str) -> Option<&'static str> {
    let v = value.to_ascii_lowercase();
    let ids: Vec<&'static str> = precision::weight_formats().iter().map(|f| f.id).collect();
    if let Some(id) = ids.iter().find(|id| **id == v) {
        return Some(id);
    }
    let mut near = ids.iter().filter(|id| {
        id.strip_prefix("gguf-") == Some(v.as_str()) || id.rsplit_once('-').is_some_and(|(_, tail)| tail == v)
    });
    match (near.next(), near.next()) {
        (Some(id), None) => Some(id),
        _ => None,
    }
}

/// The link format's version (`v=`).
pub const FORMAT_VERSION: u32 = 1;

/// Shortest decimal that round-trips.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
