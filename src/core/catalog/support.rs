//! Which serving engine runs which weight or KV-cache format on which GPU
//! architecture (`static/support.csv`, notes in `static/SUPPORT-NOTES.md`).
//!
//! Rows may put `*` in `arch` or `format`. A lookup takes the most specific
//! matching row: exact arch and format, then exact arch with `*` format,
//! then `*` arch with exact format, then `*` for both. Keys are unique, so
//! at most one row wins at each level.

use super::super::config::Engine;
use super::super::table::{clip, Table, TableError};
use super::error::CatalogError;
use super::gpus::Gpu;

#[cfg(not(target_arch = "wasm32"))]
pub const SUPPORT_CSV: &str = bundled_table!("support.csv");

pub const SUPPORT_COLUMNS: &[&str] =
    &["engine", "engine_version", "arch", "kind", "format", "support", "source", "notes"];

/// Weight formats the table knows: the ids of `precision::weight_formats`,
/// with every `gguf-*` id folded into one `gguf` row (`tests/support.rs`
/// checks that the two lists agree).
pub const WEIGHT_FORMATS: &[&str] = &[
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "int8",
    "int8-wo",
    "int8-bnb",
    "int4-awq",
    "int4-gptq",
    "int4-g32",
    "nf4",
    "mxfp4",
    "gguf",
];

/// KV-cache formats the table knows (`precision::KV_FORMATS`).
pub const KV_FORMATS: &[&str] = &["bf16", "fp16", "fp8", "int8", "q8_0", "q4_0"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Weights,
    Kv,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Weights => "weights",
            Kind::Kv => "kv",
        }
    }

    pub fn formats(self) -> &'static [&'static str] {
        match self {
            Kind::Weights => WEIGHT_FORMATS,
            Kind::Kv => KV_FORMATS,
        }
    }
}

/// How an engine runs a format on an architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Support {
    /// Kernels for that format on that architecture.
    Native,
    /// Stored in the format, dequantized, math at 16 bits.
    WeightOnly,
    Unsupported,
}

impl Support {
    pub fn parse(s: &str) -> Option<Support> {
        match s {
            "native" => Some(Support::Native),
            "weight-only" => Some(Support::WeightOnly),
            "unsupported" => Some(Support::Unsupported),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SupportRow {
    pub engine: Engine,
    pub engine_version: String,
    /// An `arch` of gpus.csv, or `*`.
    pub arch: String,
    pub kind: Kind,
    /// A format of [`Kind::formats`], or `*`.
    pub format: String,
    pub support: Support,
    pub source: String,
    pub notes: String,
}

impl SupportRow {
    /// 3 = exact arch and format, 2 = exact arch, 1 = exact format, 0 = both `*`.
    pub fn specificity(&self) -> u8 {
        u8::from(self.arch != "*") * 2 + u8::from(self.format != "*")
    }

    pub fn matches(&self, engine: Engine, arch: &str, kind: Kind, format: &str) -> bool {
        self.engine == engine
            && self.kind == kind
            && (self.arch == "*" || self.arch == arch)
            && (self.format == "*" || self.format == format)
    }
}

/// The table's format id for a precision id: every `gguf-*` is `gguf`.
pub fn table_format(kind: Kind, format: &str) -> &str {
    if kind == Kind::Weights && format.starts_with("gguf-") {
        "gguf"
    } else {
        format
    }
}

pub fn parse_support(text: &str) -> Result<Vec<SupportRow>, TableError> {
    let table = Table::parse("support.csv", text, SUPPORT_COLUMNS)?;
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        let engine_text = row.req_str("engine")?;
        let engine = Engine::parse(&engine_text)
            .ok_or_else(|| row.error("engine", format!("unknown engine `{}`", clip(&engine_text))))?;
        let kind = match row.req_str("kind")?.as_str() {
            "weights" => Kind::Weights,
            "kv" => Kind::Kv,
            k => return Err(row.error("kind", format!("`{}` is not weights or kv", clip(k)))),
        };
        let format = row.req_str("format")?;
        if format != "*" && !kind.formats().contains(&format.as_str()) {
            return Err(row.error("format", format!("unknown {} format `{}`", kind.as_str(), clip(&format))));
        }
        let support_text = row.req_str("support")?;
        let support = Support::parse(&support_text).ok_or_else(|| {
            row.error(
                "support",
                format!("`{}` is not native, weight-only or unsupported", clip(&support_text)),
            )
        })?;
        out.push(SupportRow {
            engine,
            engine_version: row.req_str("engine_version")?,
            arch: row.req_str("arch")?,
            kind,
            format,
            support,
            source: row.req_source()?,
            notes: row.text("notes").to_string(),
        });
    }
    Ok(out)
}

/// Cross-checks against the GPUs: every arch is one of gpus.csv's (or `*`),
/// and no two rows share engine, arch, kind and format.
pub fn check_support(rows: &[SupportRow], gpus: &[Gpu]) -> Result<(), CatalogError> {
    let err = |i: usize, field: &'static str, reason: String| CatalogError::Reference {
        table: "support.csv".into(),
        row: i + 1,
        field,
        reason,
    };
    for (i, r) in rows.iter().enumerate() {
        if r.arch != "*" && !gpus.iter().any(|g| g.arch.as_str() == r.arch) {
            return Err(err(i, "arch", format!("no GPU in gpus.csv has arch `{}`", clip(&r.arch))));
        }
        if let Some(j) = rows.iter().take(i).position(|p| {
            p.engine == r.engine && p.kind == r.kind && p.arch == r.arch && p.format == r.format
        }) {
            return Err(err(i, "format", format!("same engine, arch, kind and format as row {}", j + 1)));
        }
    }
    Ok(())
}

/// The row that decides a cell: the most specific match (see the module doc).
pub fn lookup<'a>(
    rows: &'a [SupportRow],
    engine: Engine,
    arch: &str,
    kind: Kind,
    format: &str,
) -> Option<&'a SupportRow> {
    let format = table_format(kind, format);
    rows.iter().filter(|r| r.matches(engine, arch, kind, format)).max_by_key(|r| r.specificity())
}
