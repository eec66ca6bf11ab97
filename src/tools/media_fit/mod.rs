//! The media side of `whichgpu calibrate`: maps the rows of
//! `tests/data/media_measurements.csv` (notes in MEDIA-NOTES.md) to image,
//! video and audio jobs, scores them per family and split, and with
//! `--fit` refits the constants of `core::estimate::media` on the rows whose
//! `split` is `fit` (`fit.rs`). The split is by source and made before any
//! fitting; [`leaks`] lists a source on both sides, and the tests fail on
//! any. Held-out rows are scored, never fitted. `tests/it/estimate/media.rs` fails
//! when a constant in the code is not what [`fit::fit`] finds.

pub mod fit;

use std::collections::BTreeMap;
use std::fmt::Write as _;

pub use fit::{fit, Constant, Params};

use crate::core::catalog::media::{MediaKind, MediaModel};
use crate::core::catalog::Catalog;
use crate::core::estimate::media::{EffClass, MediaJob};
use crate::core::units::GIB;
use crate::tools::calibrate::split::source_key;

/// The first columns of a media measurement file.
pub const HEADER_START: &str = "id,split,family,model_id,";

/// Whether a file is a media measurement file.
pub fn is_media_file(text: &str) -> bool {
    text.trim_start().starts_with(HEADER_START)
}

/// One row mapped to a job and predicted with the code's constants.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    pub id: String,
    /// `fit` or `held_out`, assigned by source before any fitting.
    pub split: String,
    /// The source with its version left out ([`source_key`]).
    pub source: String,
    pub family: String,
    pub model: String,
    pub gpu: String,
    pub metric: String,
    pub measured: f64,
    pub predicted: f64,
    pub error_pct: f64,
    pub class: Option<EffClass>,
    /// Ideal and fixed seconds of the batch and the measured batch seconds
    /// (speed rows only), to refit the efficiency.
    pub fit: Option<(f64, f64, f64)>,
    /// Host units of the batch (UNet forwards, or layer passes × kernels)
    /// and the measured seconds of the denoising loop.
    pub host: Option<(f64, f64)>,
    /// bitsandbytes int8 rows: the weight matmuls' ideal seconds at the
    /// 16-bit rate (they fit `BNB_INT8_MATMUL_FRACTION`, not the efficiency).
    pub bnb_16bit_s: Option<f64>,
    /// UNets: the CUDA-core seconds at the code's `UNET_VECTOR_FLOPS_PER_TOKEN`.
    pub vector_s: f64,
    /// Diffusion transformers: the SM issue seconds of the weight matmuls at
    /// the code's `DIT_LINEAR_FLOPS_PER_SM_CYCLE`.
    pub issue_s: f64,
    /// A vendor blog with a malformed table, or a row its notes call anecdotal.
    pub low_confidence: bool,
}

/// A row as the split sees it, mapped or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowSplit {
    pub id: String,
    pub split: String,
    pub family: String,
    pub source: String,
}

/// Median; NaN for no values.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    let mid = v.get(n / 2).copied().unwrap_or(f64::NAN);
    if n % 2 == 1 {
        mid
    } else {
        (v.get(n / 2 - 1).copied().unwrap_or(f64::NAN) + mid) / 2.0
    }
}

/// 90th percentile (nearest rank); NaN for no values.
pub fn p90(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let i = ((s.len() as f64) * 0.9).ceil() as usize;
    s.get(i.saturating_sub(1).min(s.len().saturating_sub(1))).copied().unwrap_or(f64::NAN)
}

/// max(predicted/measured, measured/predicted).
pub fn ratio(c: &Case) -> f64 {
    let r = c.predicted / c.measured;
    if r >= 1.0 {
        r
    } else {
        1.0 / r
    }
}

fn columns(headers: &csv::StringRecord) -> BTreeMap<String, usize> {
    headers.iter().enumerate().map(|(i, h)| (h.to_string(), i)).collect()
}

fn field(r: &csv::StringRecord, col: &BTreeMap<String, usize>, k: &str) -> String {
    col.get(k).and_then(|&i| r.get(i)).unwrap_or("").trim().to_string()
}

/// Every row's id, split, family and source key.
pub fn splits(text: &str) -> Result<Vec<RowSplit>, String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let col = columns(reader.headers().map_err(|e| e.to_string())?);
    let mut out = Vec::new();
    for rec in reader.records() {
        let r = rec.map_err(|e| e.to_string())?;
        let get = |k: &str| field(&r, &col, k);
        out.push(RowSplit {
            id: get("id"),
            split: get("split"),
            family: get("family"),
            source: source_key(&get("source")).to_string(),
        });
    }
    Ok(out)
}

/// Sources with rows on both sides of the split: (source, held-out id, fit id).
pub fn leaks(rows: &[RowSplit]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for h in rows.iter().filter(|r| r.split == "held_out") {
        if let Some(f) = rows.iter().find(|r| r.split == "fit" && r.source == h.source) {
            out.push((h.source.clone(), h.id.clone(), f.id.clone()));
        }
    }
    out
}

/// Rows not mapped: (id, reason).
pub type Unmapped = Vec<(String, String)>;

/// The mapped rows, and the rows not mapped with the reason.
pub fn load(text: &str, catalog: &Catalog, models: &[MediaModel]) -> Result<(Vec<Case>, Unmapped), String> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let col = columns(reader.headers().map_err(|e| e.to_string())?);
    let (mut cases, mut unmapped) = (Vec::new(), Vec::new());
    for rec in reader.records() {
        let r = rec.map_err(|e| e.to_string())?;
        match evaluate(&r, &col, catalog, models) {
            Ok(c) => cases.push(c),
            Err(why) => unmapped.push((field(&r, &col, "id"), why)),
        }
    }
    Ok((cases, unmapped))
}

/// Maps one measurement row to a job; `Err` says why it cannot be mapped.
pub fn evaluate(
    r: &csv::StringRecord,
    col: &BTreeMap<String, usize>,
    catalog: &Catalog,
    models: &[MediaModel],
) -> Result<Case, String> {
    let get = |k: &str| field(r, col, k);
    let num = |k: &str| get(k).parse::<f64>().ok();
    let int = |k: &str| get(k).parse::<u32>().ok();
    let family = get("family");
    if family == "multimodal" {
        return Err("multimodal LLM serving row (decode tok/s, TTFT): mapped through the serving estimator \
            (tests/it/estimate/media.rs)"
            .into());
    }
    let m = MediaModel::find(models, &get("model_id"))
        .ok_or_else(|| format!("model `{}` not in media_models.csv", get("model_id")))?;
    let g = catalog.gpu(&get("gpu_id")).ok_or_else(|| format!("GPU `{}` not in gpus.csv", get("gpu_id")))?;
    let gpus = int("gpus").unwrap_or(1);
    if gpus != 1 {
        return Err(format!("{gpus} GPUs: the media estimator is single-GPU"));
    }
    let prec = match get("precision").as_str() {
        "" => MediaJob::native_precision(m).to_string(),
        p => p.to_string(),
    };
    let mut j = MediaJob::new(m, &prec).map_err(|e| e.to_string())?;
    if let Some(w) = int("width") {
        j.width = w;
    }
    if let Some(h) = int("height") {
        j.height = h;
    }
    if let Some(s) = int("steps") {
        j.steps = s;
    }
    if let Some(fr) = int("frames") {
        j.frames = fr;
    }
    if let Some(s) = num("seconds_audio") {
        j.seconds = s;
    }
    if let Some(b) = int("batch") {
        j.batch = b.max(1);
    }
    let cond = get("conditions");
    j.flash = !cond.contains("SDPA off");
    j.enc_offload = cond.contains("t5_cpu");
    if m.kind != MediaKind::Audio && j.steps == 0 {
        return Err("no step count".into());
    }
    let metric = get("metric");
    let value = num("value").ok_or("no value")?;
    let s = j.speed(g);
    let batch = f64::from(j.batch.max(1));
    let (predicted, measured_batch_s) = match metric.as_str() {
        "seconds_per_image" | "seconds_per_clip" => (s.seconds_per_item, Some(value * batch)),
        "it_per_s" => (f64::from(j.steps) / s.seconds_per_item, Some(f64::from(j.steps) / value * batch)),
        // The pipeline's progress bar: denoising iterations of the whole
        // batch per second, the VAE decode left out (the fit adds the
        // predicted decode back to compare with the whole job's ideal time).
        "it_per_s_batch" => (
            f64::from(j.steps) / s.denoise_s.max(f64::MIN_POSITIVE),
            Some(f64::from(j.steps) / value + s.decode_s),
        ),
        "realtime_factor" => {
            (s.realtime_factor.ok_or("no realtime factor for this model")?, Some(j.seconds * batch / value))
        }
        "peak_memory_gib" => {
            let unit = if get("unit") == "GiB" { GIB } else { 1e9 };
            (j.memory().total / unit, None)
        }
        other => return Err(format!("metric `{other}` is not a media metric")),
    };
    Ok(Case {
        id: get("id"),
        split: get("split"),
        source: source_key(&get("source")).to_string(),
        family,
        model: m.id.clone(),
        gpu: g.id.clone(),
        metric,
        measured: value,
        predicted,
        error_pct: (predicted / value - 1.0) * 100.0,
        class: measured_batch_s.map(|_| j.efficiency_class()),
        fit: measured_batch_s.map(|t| (s.ideal_s, s.fixed_s, t)),
        // The host floor covers the denoising loop: the decode is taken off.
        host: measured_batch_s.map(|t| (j.host_units(), t - s.decode_s)),
        vector_s: s.vector_s,
        issue_s: s.issue_s,
        bnb_16bit_s: Some(s.bnb_matmul_16bit_s).filter(|b| *b > 0.0),
        // MEDIA-NOTES.md: the vendor blog's table is malformed, and rows
        // whose notes call them anecdotal are one person's rough figure.
        low_confidence: get("source").contains("gigagpu") || get("notes").contains("anecdot"),
    })
}

/// Per family, metric (speed or memory) and split: n, median, p90 (% abs
/// error) and the worst ratio.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub family: String,
    pub memory: bool,
    pub split: String,
    pub n: usize,
    pub median_pct: f64,
    pub p90_pct: f64,
    pub worst: f64,
}

pub fn groups(cases: &[Case]) -> Vec<Group> {
    let mut out = Vec::new();
    for family in ["image", "video", "audio"] {
        for memory in [false, true] {
            for split in ["fit", "held_out"] {
                let sel: Vec<&Case> = cases
                    .iter()
                    .filter(|c| {
                        c.family == family && c.split == split && (c.metric == "peak_memory_gib") == memory
                    })
                    .collect();
                if sel.is_empty() {
                    continue;
                }
                let mut errs: Vec<f64> = sel.iter().map(|c| c.error_pct.abs()).collect();
                let worst = sel.iter().map(|c| ratio(c)).fold(1.0, f64::max);
                let p = p90(&errs);
                out.push(Group {
                    family: family.into(),
                    memory,
                    split: split.into(),
                    n: sel.len(),
                    median_pct: median(&mut errs),
                    p90_pct: p,
                    worst,
                });
            }
        }
    }
    out
}

/// [`run`] on the bundled generation models (`static/media_models.csv`).
pub fn run_bundled(text: &str, catalog: &Catalog, with_fit: bool) -> Result<String, String> {
    let models = crate::core::catalog::media::bundled_media().map_err(|e| e.to_string())?;
    run(text, catalog, models, with_fit)
}

/// The report `whichgpu calibrate tests/data/media_measurements.csv [--fit]` prints.
pub fn run(text: &str, catalog: &Catalog, models: &[MediaModel], with_fit: bool) -> Result<String, String> {
    let rows = splits(text)?;
    let (cases, unmapped) = load(text, catalog, models)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<34} {:<8} {:<18} {:<16} {:<17} {:>10} {:>10} {:>8}",
        "row", "split", "model", "gpu", "metric", "measured", "predicted", "err%"
    );
    for c in &cases {
        let split = if c.split == "fit" { "fit" } else { "held" };
        let _ = writeln!(
            out,
            "{:<34} {split:<8} {:<18} {:<16} {:<17} {:>10.3} {:>10.3} {:>+8.1}",
            c.id, c.model, c.gpu, c.metric, c.measured, c.predicted, c.error_pct
        );
    }
    let _ = writeln!(
        out,
        "\n{:<7} {:<7} {:<9} {:>3} {:>8} {:>8} {:>7}",
        "family", "metric", "split", "n", "median%", "p90%", "worst×"
    );
    for g in groups(&cases) {
        let what = if g.memory { "memory" } else { "speed" };
        let _ = writeln!(
            out,
            "{:<7} {what:<7} {:<9} {:>3} {:>8.1} {:>8.1} {:>7.2}",
            g.family, g.split, g.n, g.median_pct, g.p90_pct, g.worst
        );
    }
    let generation: Vec<&(String, String)> =
        unmapped.iter().filter(|(_, why)| !why.starts_with("multimodal")).collect();
    let _ = writeln!(
        out,
        "\nnot scored ({} image/video/audio rows; multimodal rows go through the serving estimator):",
        generation.len()
    );
    for (id, why) in generation {
        let _ = writeln!(out, "  {id}: {why}");
    }
    let leaked = leaks(&rows);
    for (source, held, fit) in &leaked {
        let _ = writeln!(out, "LEAK: source `{source}` is held out ({held}) and in the fit part ({fit})");
    }
    if with_fit {
        if !leaked.is_empty() {
            return Err(format!("{} source(s) on both sides of the split: no fit", leaked.len()));
        }
        let f = fit(&cases);
        let how = match f.cycle {
            1 => format!("{} passes to a fixed point", f.passes),
            0 => format!("no fixed point in {} passes: the last state", f.passes),
            n => format!(
                "{} passes, then a cycle of {n} states: the one with the smallest median error over \
                the fit rows",
                f.passes
            ),
        };
        let _ = writeln!(out, "\nfitted on the fit rows only ({how}):");
        let _ = writeln!(out, "  {:<30} {:>5} {:>14} {:>14}", "constant", "rows", "fitted", "in code");
        for k in &f.constants {
            let mark = if k.drifted() { "  <- differs" } else { "" };
            let _ = writeln!(
                out,
                "  {:<30} {:>5} {:>14} {:>14}{mark}",
                k.name,
                k.rows,
                k.shown(k.fitted),
                k.shown(k.current)
            );
        }
        let _ = writeln!(out, "  (rows 0: nothing in the fit part to fit it; the code's value is kept)");
    }
    Ok(out)
}
