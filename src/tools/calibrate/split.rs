//! The fit / held-out split of the measurement files, made by source before
//! any fitting, and the held-out errors per kind and per regime.
//!
//! A row is `fit` (the fitting may use it) or `held_out` (scored only).
//! The older files say `calibration` for fit and `holdout` for held out;
//! both spellings are read. Because the split is by source, a source may
//! appear on one side only: [`leaks`] lists every source that appears on
//! both, and the calibration tests fail on any.

use super::{ape, percentile, Case, Kind};
use crate::core::catalog::gpus::Arch;
use crate::core::catalog::Catalog;
use crate::core::config::Engine;
use crate::core::estimate::engine::is_hbm_class;
use crate::core::table::{Table, TableError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    Fit,
    HeldOut,
}

impl Split {
    pub fn parse(s: &str) -> Option<Split> {
        match s.trim() {
            "fit" | "calibration" => Some(Split::Fit),
            "held_out" | "holdout" => Some(Split::HeldOut),
            _ => None,
        }
    }
}

/// The part of a `source` cell that names the source: the repository and
/// path, or the address, without the commit, date or section that follows
/// (" @…", " (…"). Two rows from one document at two commits are one source.
pub fn source_key(source: &str) -> &str {
    let s = source.trim();
    let cut = [" @", " (", "@"].iter().filter_map(|m| s.find(m)).min().unwrap_or(s.len());
    s.get(..cut).unwrap_or(s).trim_end_matches(['/', ',', ';']).trim()
}

/// Joins calibration-format files into one table: the first file whole,
/// the others without their header line (the headers must match).
pub fn join(texts: &[String]) -> Result<String, String> {
    let mut out = String::new();
    let mut header: Option<&str> = None;
    for t in texts {
        let mut lines = t.lines();
        let h = lines.next().unwrap_or("").trim_end();
        match header {
            None => {
                header = Some(h);
                out.push_str(h);
                out.push('\n');
            }
            Some(first) if first != h => return Err(format!("header `{h}` differs from `{first}`")),
            Some(_) => {}
        }
        for l in lines.filter(|l| !l.trim().is_empty()) {
            out.push_str(l);
            out.push('\n');
        }
    }
    Ok(out)
}

/// Every (id, split, source key) of a calibration-format file, for the
/// leak check across files.
pub fn rows(text: &str) -> Result<Vec<(String, Split, String)>, TableError> {
    let table = Table::parse("calibration.csv", text, super::CALIBRATION_COLUMNS)?;
    Ok(table
        .rows()
        .filter_map(|r| {
            Split::parse(r.text("split"))
                .map(|s| (r.text("id").to_string(), s, source_key(r.text("source")).to_string()))
        })
        .collect())
}

/// Sources that appear among both the fit and the held-out rows, with one
/// row id from each side.
pub fn leaks(rows: &[(String, Split, String)]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (id, _, source) in rows.iter().filter(|r| r.1 == Split::HeldOut) {
        if let Some((fit_id, _, _)) = rows.iter().find(|r| r.1 == Split::Fit && r.2 == *source) {
            out.push((source.clone(), id.clone(), fit_id.clone()));
        }
    }
    out
}

/// The regimes of issue 20 that the serving rows can fall into, besides
/// their kind.
pub fn regime(case: &Case, catalog: &Catalog) -> Option<&'static str> {
    let hbm = catalog.gpu(&case.gpu).is_some_and(is_hbm_class);
    match (case.engine, case.kind) {
        (Engine::LlamaCpp, Kind::Decode | Kind::Prefill) if hbm => Some("llama.cpp on HBM"),
        (_, Kind::Ttft | Kind::Prefill) if case.input <= 256 => Some("short prompt (≤256)"),
        (Engine::Hf, Kind::Memory) if case.batch.unwrap_or(1) > 1 => Some("hf memory, batch > 1"),
        _ => None,
    }
}

/// Issue 36's prompt bands on Hopper: a held-out prefill or first-token row
/// on an H100, H200, GH200 or H20 falls into "Hopper prompt" and into one
/// band by its prompt length (≤ 512, 1k–8k, ≥ 32k tokens; nothing between
/// 512 and 1k or 8k and 32k is in the data).
pub fn hopper_prompt_band(case: &Case, catalog: &Catalog) -> Option<&'static str> {
    let hopper = catalog.gpu(&case.gpu).is_some_and(|g| g.arch == Arch::Hopper);
    if !hopper || !matches!(case.kind, Kind::Ttft | Kind::Prefill) {
        return None;
    }
    Some(match case.input {
        0..=512 => "Hopper prompt ≤512",
        513..=16_383 => "Hopper prompt 1k–8k",
        _ => "Hopper prompt ≥32k",
    })
}

/// Errors of the held-out rows of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldOutStats {
    /// A kind ("decode") or a regime ("llama.cpp on HBM").
    pub group: String,
    pub rows: usize,
    pub median_ape: f64,
    pub p90_ape: f64,
    /// Largest of predicted/measured and measured/predicted.
    pub worst_ratio: f64,
}

/// Held-out errors per kind and per regime, from (case, prediction) pairs.
pub fn held_out_stats(scored: &[(&Case, f64)], catalog: &Catalog) -> Vec<HeldOutStats> {
    let mut groups: std::collections::BTreeMap<String, Vec<(f64, f64)>> = Default::default();
    for (c, p) in scored.iter().filter(|(c, _)| c.split == Split::HeldOut) {
        let e = (ape(*p, c.measured), (p / c.measured).max(c.measured / p));
        // An eager engine's decode is bound by its host, not the GPU
        // (`core::estimate::eager`): scored apart from the GPU-bound
        // decode rows, whose targets are issue 20's (issue 36).
        let kind = match (c.engine, c.kind) {
            (Engine::Hf, Kind::Decode) => "decode, eager (hf)".to_string(),
            _ => c.kind.as_str().to_string(),
        };
        groups.entry(format!("kind: {kind}")).or_default().push(e);
        if let Some(r) = regime(c, catalog) {
            groups.entry(format!("regime: {r}")).or_default().push(e);
        }
        if let Some(band) = hopper_prompt_band(c, catalog) {
            groups.entry("regime: Hopper prompt".to_string()).or_default().push(e);
            groups.entry(format!("regime: {band}")).or_default().push(e);
        }
    }
    groups
        .into_iter()
        .map(|(group, v)| {
            let errs: Vec<f64> = v.iter().map(|x| x.0).collect();
            HeldOutStats {
                group,
                rows: v.len(),
                median_ape: percentile(&errs, 0.5),
                p90_ape: percentile(&errs, 0.9),
                worst_ratio: v.iter().map(|x| x.1).fold(1.0, f64::max),
            }
        })
        .collect()
}
