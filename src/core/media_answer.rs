//! The answer for `task=generate`: image, video and audio generators from
//! `static/media_models.csv`, estimated by [`super::estimate::media`] and
//! priced per 1,000 images, per clip or per hour of audio. Each GPU of an
//! instance runs its own pipeline (replicas).

use super::answer::{Answer, Answers, GpuResult, MemoryJson, Speeds};
use super::catalog::media::{bundled_media, MediaKind, MediaModel};
use super::catalog::{Catalog, Date, Gpu, Offer};
use super::config::{Batch, Config, Usage};
use super::estimate::media::{Confidence, MediaJob};
use super::estimate::ranges;
use super::guidance::GuidanceItem;
use super::link::Notice;
use super::messages::Msg;
use super::precision;
use super::recommend::{self, bill, OfferResult};
use super::units::GIB;

/// Share of GPU memory a diffusion pipeline can use (allocator slack).
const USABLE: f64 = 0.95;

/// The media job a configuration describes; the model's defaults fill what
/// the link leaves out (a resolution equal to the page default counts as
/// unset for video and audio, whose models have their own).
pub(crate) fn job<'a>(model: &'a MediaModel, cfg: &Config) -> Option<MediaJob<'a>> {
    let precision = match &cfg.w {
        Some(w) if precision::is_media_format(w) => w.clone(),
        Some(_) => return None,
        None => MediaJob::native_precision(model).to_string(),
    };
    let mut j = MediaJob::new(model, &precision).ok()?;
    // The link's resolution, else the model's own.
    if let Some((w, h)) = cfg.res {
        j.width = w;
        j.height = h;
    }
    if let Some(s) = cfg.steps {
        j.steps = s;
    }
    if let Some(f) = cfg.frames {
        j.frames = f;
    }
    if let Some(f) = cfg.fps {
        j.fps = f64::from(f);
    }
    // The link's length, else the model's default, else 30 s.
    j.seconds = cfg.seconds.or(model.default_seconds).unwrap_or(30.0);
    // One item per batch unless the link says otherwise (the page's default
    // of 16 concurrent sequences is a serving default).
    j.batch = match cfg.batch {
        b if b == Config::default().batch => 1,
        Batch::N(n) => n.min(64),
        Batch::Max => 1,
    };
    j.enc_offload = cfg.enc_offload;
    j.flash = cfg.flash;
    Some(j)
}

fn widen(c: Confidence) -> (&'static str, f64) {
    match c {
        Confidence::High => ("high", 1.0),
        Confidence::Medium => ("medium", 1.6),
        Confidence::Low => ("low", 2.5),
    }
}

/// Speeds of one GPU running the job (per GPU; offers multiply by GPUs).
fn speeds(j: &MediaJob<'_>, gpu: &Gpu, w: f64) -> (Speeds, f64) {
    let s = j.speed(gpu);
    let sp = ranges::widen(ranges::PREFILL, w);
    let mut out = Speeds::default();
    match j.model.kind {
        MediaKind::Image => {
            out.seconds_per_image = Some(s.seconds_per_item);
            out.seconds_per_image_low = Some(s.seconds_per_item / sp.high);
            out.seconds_per_image_high = Some(s.seconds_per_item / sp.low);
            out.images_per_hour = Some(s.items_per_hour);
        }
        MediaKind::Video => {
            out.seconds_per_clip = Some(s.seconds_per_item);
            out.seconds_per_clip_low = Some(s.seconds_per_item / sp.high);
            out.seconds_per_clip_high = Some(s.seconds_per_item / sp.low);
        }
        MediaKind::Audio => {
            let rtf = s.realtime_factor.unwrap_or(j.seconds / s.seconds_per_item.max(1e-9));
            out.audio_realtime_factor = Some(rtf);
            out.audio_realtime_factor_low = Some(rtf * sp.low);
            out.audio_realtime_factor_high = Some(rtf * sp.high);
        }
    }
    (out, s.items_per_hour)
}

fn offer_result(j: &MediaJob<'_>, cfg: &Config, catalog: &Catalog, gpu: &Gpu, o: &Offer, today: Date) -> OfferResult {
    let mem = j.memory();
    let cap = gpu.memory_bytes() * USABLE;
    let fits = mem.total <= cap;
    let (conf, w) = widen(j.confidence());
    let (sp, items_per_hour_gpu) = speeds(j, gpu, w);
    let items_per_hour = items_per_hour_gpu * f64::from(o.gpus);
    let store_gb = cfg.store_gb.unwrap_or(mem.weights_bytes / 1e9);
    let b = bill(cfg, catalog, o, 1, None, store_gb);
    let per_item = if items_per_hour > 0.0 && fits { Some(b.usd_per_hour / items_per_hour) } else { None };
    let (reason_msgs, stale) = recommend::offer_reasons(cfg, o, today, 1, mem.total, cap, fits, b.spot);
    let audio_rtf_total = sp.audio_realtime_factor.map(|r| r * f64::from(o.gpus));
    OfferResult {
        replicas: o.gpus,
        fits,
        headroom_bytes: cap - mem.total,
        confidence: conf,
        speeds: Box::new(sp),
        usd_per_job: if j.model.kind == MediaKind::Video { per_item } else { b.usd_per_job },
        usd_per_1000_images: if j.model.kind == MediaKind::Image { per_item.map(|p| p * 1000.0) } else { None },
        usd_per_audio_hour: audio_rtf_total.filter(|r| *r > 0.0 && fits).map(|r| b.usd_per_hour / r),
        throughput_total: items_per_hour,
        speed_score: if fits { items_per_hour } else { 0.0 },
        ..OfferResult::priced(o, &b, stale, reason_msgs)
    }
}

pub fn evaluate_media(user_cfg: &Config, mut notices: Vec<Notice>, catalog: &Catalog, today: Date) -> Answer {
    let mut cfg = user_cfg.clone();
    if cfg.usage == Usage::Always && user_cfg.usage == Usage::Always {
        // Generation is batch work: bill it as jobs unless the user said otherwise.
        cfg.usage = Usage::Jobs;
    }
    let media = bundled_media().unwrap_or(&[]);
    let default_llm = Config::default().model;
    let mut unusable = false;
    let model = match MediaModel::find(media, &cfg.model) {
        Some(m) => Some(m),
        None => {
            if cfg.model != default_llm {
                notices.push(Notice::other("model", format!("unknown generation model `{}`; using sdxl", super::table::clip(&cfg.model))));
                unusable = notices.iter().all(|n| n.key == "model" || n.key == "v");
            }
            MediaModel::find(media, "sdxl").or(media.first())
        }
    };
    let Some(model) = model else {
        return empty(user_cfg, notices, catalog);
    };
    let Some(mut j) = with_own_precision(&mut cfg, &mut notices, |c| job(model, c)) else {
        return empty(user_cfg, notices, catalog);
    };
    if let Some(window) = model.audio_window_s.filter(|w| j.seconds > *w) {
        notices.push(Notice::other(
            "seconds",
            format!("{} generates at most {window} s per clip; estimating a {window} s clip", model.name),
        ));
        j.seconds = window;
    }
    let (conf, w) = widen(j.confidence());
    let mem = j.memory();
    let gpus = catalog.gpus_for(cfg.gpu.as_deref());
    let results: Vec<GpuResult> = gpus
        .iter()
        .map(|gpu| GpuResult {
            gpu: gpu.id.clone(),
            gpu_name: gpu.name.clone(),
            gpus: 1,
            nodes: 1,
            batch: f64::from(j.batch),
            fits: mem.total <= gpu.memory_bytes() * USABLE,
            per_gpu_bytes: mem.total,
            capacity_bytes: gpu.memory_bytes(),
            confidence: conf,
            bound: if j.model.kind == MediaKind::Audio { "memory" } else { "compute" },
            executed_precision: j.precision.id.to_string(),
            speeds: speeds(&j, gpu, w).0,
        })
        .collect();
    let offers: Vec<OfferResult> = catalog
        .offers
        .iter()
        .filter(|o| recommend::passes_filters(&cfg, o))
        .filter_map(|o| Some(offer_result(&j, &cfg, catalog, catalog.gpu(&o.gpu)?, o, today)))
        .collect();
    let offers = recommend::rank(&cfg, offers);
    let recommendation = recommend::recommend(&cfg, &offers);
    let pick = recommendation.as_ref().and_then(|r| offers.iter().find(|o| o.id == r.pick.offer));
    let focus = cfg.gpu.clone().or_else(|| pick.map(|o| o.gpu.to_string())).and_then(|g| catalog.gpu(&g));
    let capacity = focus.map_or(0.0, |g| g.memory_bytes());
    let memory = MemoryJson {
        weights_bytes: mem.weights_bytes,
        activations_bytes: mem.activations_bytes,
        overhead_bytes: mem.overhead_bytes,
        total_bytes: mem.total,
        total_bytes_low: mem.total * ranges::MEMORY.low,
        total_bytes_high: mem.total * ranges::MEMORY.high,
        reserved_bytes: (mem.total * 1.1).max(mem.total),
        gpus: 1,
        gpu: focus.map_or_else(String::new, |g| g.id.clone()),
        capacity_bytes: capacity,
        ..MemoryJson::default()
    };
    let mut answer = Answer {
        memory,
        results,
        answers: Answers { min_gpus: Some(1), best_weight_format: Some(j.precision.id.to_string()), ..Answers::default() },
        offers,
        recommendation,
        unusable,
        ..Answer::empty(user_cfg, notices, catalog, (&model.id, &model.name, false), j.precision.id)
    };
    answer.guidance = guidance(&cfg, &j, catalog, &answer);
    answer
}

/// Builds a generation or image-training job; a language-model format (AWQ,
/// GPTQ, MXFP4…) or an unknown one gets a notice and the model's own
/// precision instead (NF4 for QLoRA).
pub(crate) fn with_own_precision<T>(cfg: &mut Config, notices: &mut Vec<Notice>, build: impl Fn(&Config) -> Option<T>) -> Option<T> {
    if let Some(t) = build(cfg) {
        return Some(t);
    }
    notices.push(Notice::other(
        "w",
        format!("weight format `{}` is not used for generation models; using the model's own precision", cfg.weight_format_id()),
    ));
    cfg.w = None;
    build(cfg)
}

pub(crate) fn empty(cfg: &Config, notices: Vec<Notice>, catalog: &Catalog) -> Answer {
    Answer { unusable: true, ..Answer::empty(cfg, notices, catalog, (&cfg.model, &cfg.model, false), cfg.weight_format_id()) }
}

fn gib1(b: f64) -> String {
    format!("{:.1}", b / GIB)
}

fn item(id: &'static str, title: Option<&'static str>, msg: Msg) -> GuidanceItem {
    GuidanceItem::new(id, title, msg)
}

fn guidance(cfg: &Config, j: &MediaJob<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    let mem = j.memory();
    let mut out = vec![item(
        "memory",
        Some("g.memory.title"),
        Msg::new("g.media.memory.body")
            .arg("total", gib1(mem.total))
            .arg("weights", gib1(mem.weights_bytes))
            .arg("denoiser", gib1(mem.parts.denoiser))
            .arg("enc", gib1(mem.parts.text_encoders))
            .arg("vae", gib1(mem.parts.vae))
            .arg("act", gib1(mem.activations_bytes))
            .arg("batch", j.batch.to_string())
            .arg(
                "res",
                match j.model.kind {
                    MediaKind::Image => format!("{}×{}", j.width, j.height),
                    MediaKind::Video => format!("{}×{}, {} frames", j.width, j.height, j.frames),
                    MediaKind::Audio => format!("{:.0} s of audio", j.seconds),
                },
            )
            .arg("overhead", gib1(mem.overhead_bytes)),
    )];
    let spot = if cfg.spot { Msg::new("g.spot.batch_on").arg("restart", format!("{:.0}", cfg.restart_pct)) } else { Msg::new("g.spot.batch_off") };
    out.push(item("spot", Some("g.spot.title"), spot));
    out.push(super::guidance::gpu_size(mem.total));
    let pick = a.recommendation.as_ref().and_then(|r| a.offers.iter().find(|o| o.id == r.pick.offer));
    if let Some(p) = pick {
        if let Some(gpu) = catalog.gpu(&p.gpu) {
            let s = j.speed(gpu);
            let msg = match j.model.kind {
                MediaKind::Image => Msg::new("g.media.speed.image")
                    .arg("s", format!("{:.1}", s.seconds_per_item))
                    .arg("gpu", gpu.name.clone())
                    .arg("per_hour", format!("{:.0}", s.items_per_hour))
                    .arg("steps", j.steps.to_string()),
                MediaKind::Video => Msg::new("g.media.speed.video")
                    .arg("s", format!("{:.0}", s.seconds_per_item))
                    .arg("gpu", gpu.name.clone())
                    .arg("tokens", format!("{:.0}", j.sequence_tokens())),
                MediaKind::Audio => Msg::new("g.media.speed.audio")
                    .arg("gpu", gpu.name.clone())
                    .arg("rtf", format!("{:.1}", s.realtime_factor.unwrap_or(0.0))),
            };
            out.push(item("media-speed", None, msg));
            // Small models at small batches wait on the host, not the GPU.
            let gpu_s = s.gpu_denoise_s;
            if s.host_s > 0.0 && s.host_s >= gpu_s {
                out.push(item(
                    "host-bound",
                    None,
                    Msg::new("g.media.hostbound").num("batch", f64::from(j.batch), 0).num("host", s.host_s, 1).num("gpu", gpu_s, 1),
                ));
            }
        }
        if !p.price_overridden {
            out.push(item("prices", None, Msg::new("g.note.prices").arg("date", p.price_as_of.to_string())));
        }
    } else {
        out.push(item("nofit", None, Msg::new("g.note.nofit").arg("fmt", "fp8 / nf4")));
    }
    if !cfg.enc_offload && mem.parts.text_encoders > 2.0 * GIB {
        out.push(item("enc-offload", None, Msg::new("g.media.offload").arg("enc", gib1(mem.parts.text_encoders))));
    }
    out
}
