//! Reading fields of a `config.json`: the text model's section
//! (`text_config` when the file has one, else the top level) first, then
//! the top level; each problem names the field as the file spells it.

use serde_json::{Map, Value};

use super::super::messages::Msg;
use super::super::notice::Notice;

/// The link key notices about an imported file are filed under.
pub const KEY: &str = "config";

/// What is wrong with a field or the file.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    Json(String),
    NotObject,
    Missing,
    NotWhole { value: String },
    NotBool { value: String },
    NotSection { value: String },
    Divides { heads: u32 },
    AtMost { most: u32 },
}

/// A problem and the field it is about (`text_config.hidden_size`).
#[derive(Debug, Clone, PartialEq)]
pub struct HfError {
    pub field: String,
    pub problem: Problem,
}

impl HfError {
    pub fn new(field: &str, problem: Problem) -> HfError {
        HfError { field: field.to_string(), problem }
    }
}

impl std::fmt::Display for HfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.notice().message)
    }
}

/// `transformers`' `LlamaConfig` defaults, which LLaVA files leave out of
/// their `text_config` (huggingface/transformers@4bdeeced9ce971bed8cca7ab203c3b70cffab4ca
/// src/transformers/models/llama/configuration_llama.py, `__init__`; its
/// `num_key_value_heads` defaults to the heads, as here).
const LLAMA_DEFAULTS: &[(&str, u32)] = &[
    ("hidden_size", 4096),
    ("intermediate_size", 11008),
    ("num_hidden_layers", 32),
    ("num_attention_heads", 32),
    ("vocab_size", 32000),
];

pub struct Doc<'a> {
    root: &'a Map<String, Value>,
    text: Option<&'a Map<String, Value>>,
}

/// Text longer than this is cut in messages.
const SHOWN: usize = 40;

fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > SHOWN {
        format!("{}…", s.chars().take(SHOWN).collect::<String>())
    } else {
        s
    }
}

impl<'a> Doc<'a> {
    pub fn new(value: &'a Value) -> Result<Doc<'a>, HfError> {
        let root = value.as_object().ok_or_else(|| HfError::new("(file)", Problem::NotObject))?;
        let text = match root.get("text_config") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(v) => return Err(HfError::new("text_config", Problem::NotSection { value: shown(v) })),
        };
        Ok(Doc { root, text })
    }

    /// The section a text field is named in when it is missing.
    fn text_field(&self, key: &str) -> String {
        if self.text.is_some() {
            format!("text_config.{key}")
        } else {
            key.to_string()
        }
    }

    /// The value of a text field and the name it was found under; `null` counts as absent.
    fn find(&self, key: &str) -> Option<(&'a Value, String)> {
        let in_text =
            self.text.and_then(|t| t.get(key)).filter(|v| !v.is_null()).map(|v| (v, self.text_field(key)));
        in_text.or_else(|| self.root.get(key).filter(|v| !v.is_null()).map(|v| (v, key.to_string())))
    }

    pub fn missing(&self, key: &str) -> HfError {
        HfError::new(&self.text_field(key), Problem::Missing)
    }

    pub fn bad(&self, key: &str, problem: Problem) -> HfError {
        let field = self.find(key).map_or_else(|| self.text_field(key), |(_, f)| f);
        HfError::new(&field, problem)
    }

    /// A whole number, or `None` when absent or `null`.
    pub fn whole(&self, key: &str) -> Result<Option<u32>, HfError> {
        let Some((v, field)) = self.find(key) else { return Ok(None) };
        whole_of(v).map(Some).ok_or_else(|| HfError::new(&field, Problem::NotWhole { value: shown(v) }))
    }

    /// A whole number above zero, or `None` when absent or `null`.
    pub fn positive(&self, key: &str) -> Result<Option<u32>, HfError> {
        let Some((v, field)) = self.find(key) else { return Ok(None) };
        whole_of(v)
            .filter(|n| *n > 0)
            .map(Some)
            .ok_or_else(|| HfError::new(&field, Problem::NotWhole { value: shown(v) }))
    }

    /// A whole number above zero that must be there.
    pub fn must(&self, key: &str) -> Result<u32, HfError> {
        self.positive(key)?.ok_or_else(|| self.missing(key))
    }

    /// A field the text model needs; a Llama `text_config` without it
    /// (LLaVA's files leave the shape to the class) takes `LlamaConfig`'s
    /// default, with a notice. A top-level file must say it.
    pub fn required(&self, key: &str, notices: &mut Vec<Notice>) -> Result<u32, HfError> {
        if let Some(v) = self.positive(key)? {
            return Ok(v);
        }
        match LLAMA_DEFAULTS.iter().find(|(k, _)| *k == key) {
            Some((_, d)) if self.text.is_some() && self.text_str("model_type") == Some("llama") => {
                let msg = Msg::new("notice.hf.default")
                    .arg("field", self.text_field(key))
                    .arg("value", d.to_string())
                    .arg("class", "LlamaConfig");
                notices.push(Notice::said(KEY, msg));
                Ok(*d)
            }
            _ => Err(self.missing(key)),
        }
    }

    pub fn flag(&self, key: &str) -> Result<Option<bool>, HfError> {
        match self.find(key) {
            None => Ok(None),
            Some((Value::Bool(b), _)) => Ok(Some(*b)),
            Some((v, field)) => Err(HfError::new(&field, Problem::NotBool { value: shown(v) })),
        }
    }

    pub fn text_str(&self, key: &str) -> Option<&'a str> {
        self.text.and_then(|t| t.get(key)).and_then(Value::as_str).or_else(|| {
            if self.text.is_none() {
                self.root_str(key)
            } else {
                None
            }
        })
    }

    pub fn root_str(&self, key: &str) -> Option<&'a str> {
        self.root.get(key).and_then(Value::as_str)
    }

    /// The first of `architectures`.
    pub fn architecture(&self) -> Option<&'a str> {
        self.root
            .get("architectures")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
    }

    /// Entries of a list field (0 when absent or not a list).
    pub fn count(&self, key: &str) -> u32 {
        self.find(key)
            .and_then(|(v, _)| v.as_array())
            .map_or(0, |a| u32::try_from(a.len()).unwrap_or(u32::MAX))
    }

    /// Entries of a 0/1 list (`no_rope_layers`) that are not 0, and that are, if the file lists it.
    pub fn ones(&self, key: &str) -> Option<(u32, u32)> {
        let list = self.find(key)?.0.as_array()?;
        let ones = list.iter().filter(|v| v.as_f64().is_some_and(|x| x != 0.0)).count();
        let n = |k: usize| u32::try_from(k).unwrap_or(u32::MAX);
        Some((n(ones), n(list.len() - ones)))
    }

    /// Whether the file names a field (not `null`).
    pub fn has(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    /// The text entries of a list field, if the file lists it.
    pub fn strings(&self, key: &str) -> Option<Vec<&'a str>> {
        Some(self.find(key)?.0.as_array()?.iter().filter_map(Value::as_str).collect())
    }

    /// Sliding and full-attention layers of `layer_types`, if it lists them.
    pub fn layer_types(&self) -> Option<(u32, u32)> {
        let list = self.find("layer_types")?.0.as_array()?;
        let (mut sliding, mut full) = (0u32, 0u32);
        for t in list.iter().filter_map(Value::as_str) {
            if t.contains("sliding") {
                sliding = sliding.saturating_add(1);
            } else {
                full = full.saturating_add(1);
            }
        }
        Some((sliding, full))
    }

    /// The vision section, if the file has one.
    pub fn vision(&self) -> Result<Option<Section<'a>>, HfError> {
        match self.root.get("vision_config") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(m)) => Ok(Some(Section { map: m, prefix: "vision_config" })),
            Some(v) => Err(HfError::new("vision_config", Problem::NotSection { value: shown(v) })),
        }
    }

    /// A whole number at the top level only (`mm_tokens_per_image`).
    pub fn root_whole(&self, key: &str) -> Result<Option<u32>, HfError> {
        Section { map: self.root, prefix: "" }.whole(key)
    }
}

/// A nested section read on its own (`vision_config`).
pub struct Section<'a> {
    map: &'a Map<String, Value>,
    prefix: &'static str,
}

impl<'a> Section<'a> {
    pub fn field(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.prefix)
        }
    }

    pub fn whole(&self, key: &str) -> Result<Option<u32>, HfError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => whole_of(v)
                .filter(|n| *n > 0)
                .map(Some)
                .ok_or_else(|| HfError::new(&self.field(key), Problem::NotWhole { value: shown(v) })),
        }
    }

    pub fn must(&self, key: &str) -> Result<u32, HfError> {
        self.whole(key)?.ok_or_else(|| HfError::new(&self.field(key), Problem::Missing))
    }

    pub fn number(&self, key: &str) -> Result<Option<f64>, HfError> {
        match self.map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite() && *x > 0.0)
                .map(Some)
                .ok_or_else(|| HfError::new(&self.field(key), Problem::NotWhole { value: shown(v) })),
        }
    }

    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.map.get(key).and_then(Value::as_str)
    }

    pub fn count(&self, key: &str) -> u32 {
        self.map.get(key).and_then(Value::as_array).map_or(0, |a| u32::try_from(a.len()).unwrap_or(u32::MAX))
    }
}

/// A JSON number that is a whole number fitting `u32` (`4096` or `4096.0`).
fn whole_of(v: &Value) -> Option<u32> {
    if let Some(n) = v.as_u64() {
        return u32::try_from(n).ok();
    }
    let x = v.as_f64()?;
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= f64::from(u32::MAX) {
        Some(x as u32)
    } else {
        None
    }
}
