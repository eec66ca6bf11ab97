//! The answer for `task=finetune` with an image generator (SD 1.5, SDXL,
//! FLUX…): memory per GPU of LoRA, QLoRA or full (DreamBooth) training at
//! the link's resolution and micro-batch, which offers fit, and the cost
//! of a run of the length the user gives (`jobmin`; the training time is
//! not estimated, see [`super::estimate::media_train`]).

use super::answer::{Answer, Answers, GpuResult, MemoryJson, Speeds};
use super::catalog::media::MediaModel;
use super::catalog::{Catalog, Date, Gpu, Offer};
use super::config::{Config, Method, Usage};
use super::estimate::media_train::MediaTrainJob;
use super::estimate::ranges;
use super::estimate::train::TrainMemory;
use super::guidance::GuidanceItem;
use super::link::Notice;
use super::messages::Msg;
use super::recommend::{self, bill, OfferResult};
use super::units::GIB;

/// Usable share of GPU memory (allocator slack), as for LLM training.
const USABLE: f64 = 0.95;

/// The training job a configuration describes, or `None` when the weight
/// format is unknown for generation models.
pub fn train_job<'a>(model: &'a MediaModel, cfg: &Config) -> Option<MediaTrainJob<'a>> {
    let mut c = cfg.clone();
    // QLoRA means an NF4 base (Dettmers et al. 2023); LoRA without a
    // format trains on the model's own 16-bit weights.
    if c.method == Method::Qlora && c.w.is_none() {
        c.w = Some("nf4".into());
    }
    let mut job = super::media_answer::job(model, &c)?;
    job.batch = 1;
    job.steps = 1;
    Some(MediaTrainJob {
        job,
        method: cfg.method,
        optim: cfg.optim,
        gc: cfg.gc,
        rank: f64::from(cfg.rank),
        mb: f64::from(cfg.mb.max(1)),
    })
}

fn offer_result(t: &MediaTrainJob<'_>, mem: &TrainMemory, cfg: &Config, catalog: &Catalog, gpu: &Gpu, o: &Offer, today: Date) -> OfferResult {
    let cap = gpu.memory_bytes() * USABLE;
    let need = mem.total();
    let fits = need <= cap;
    let sp = Speeds { train_dp: Some(o.gpus), train_tp: Some(1), train_pp: Some(1), ..Speeds::default() };
    let store_gb = cfg.store_gb.unwrap_or(checkpoint_bytes(t) * f64::from(cfg.ckpts.max(1)) / 1e9);
    let b = bill(cfg, catalog, o, 1, None, store_gb);
    let (reason_msgs, stale) = recommend::offer_reasons(cfg, o, today, o.gpus, need, cap, fits, b.spot);
    OfferResult {
        replicas: o.gpus,
        fits,
        headroom_bytes: cap - need,
        speeds: Box::new(sp),
        ..OfferResult::priced(o, &b, stale, reason_msgs)
    }
}

/// Bytes of a saved checkpoint: the adapter (fp32) or the full denoiser
/// (16-bit weights, the form the scripts save for inference).
pub fn checkpoint_bytes(t: &MediaTrainJob<'_>) -> f64 {
    match t.method {
        Method::Full => t.trainable_params() * 2.0,
        _ => t.trainable_params() * 4.0,
    }
}

pub fn evaluate_media_training(user_cfg: &Config, notices: Vec<Notice>, catalog: &Catalog, today: Date, model: &MediaModel) -> Answer {
    let mut cfg = user_cfg.clone();
    if cfg.usage == Usage::Always {
        cfg.usage = Usage::Once;
    }
    let mut notices = notices;
    let Some(t) = super::media_answer::with_own_precision(&mut cfg, &mut notices, |c| train_job(model, c)) else {
        return super::media_answer::empty(user_cfg, notices, catalog);
    };
    let mem = t.memory();
    let gpus = catalog.gpus_for(cfg.gpu.as_deref());
    let results: Vec<GpuResult> = gpus
        .iter()
        .map(|gpu| {
            GpuResult {
                gpu: gpu.id.clone(),
                gpu_name: gpu.name.clone(),
                gpus: 1,
                nodes: 1,
                batch: t.mb,
                fits: mem.total() <= gpu.memory_bytes() * USABLE,
                per_gpu_bytes: mem.total(),
                capacity_bytes: gpu.memory_bytes(),
                confidence: "low",
                bound: "compute",
                executed_precision: t.job.precision.id.to_string(),
                speeds: Speeds { train_dp: Some(1), train_tp: Some(1), train_pp: Some(1), ..Speeds::default() },
            }
        })
        .collect();
    let offers: Vec<OfferResult> = catalog
        .offers
        .iter()
        .filter(|o| recommend::passes_filters(&cfg, o))
        .filter_map(|o| Some(offer_result(&t, &mem, &cfg, catalog, catalog.gpu(&o.gpu)?, o, today)))
        .collect();
    let offers = recommend::rank(&cfg, offers);
    let recommendation = recommend::recommend(&cfg, &offers);
    let pick = recommendation.as_ref().and_then(|r| offers.iter().find(|o| o.id == r.pick.offer));
    let focus = cfg.gpu.clone().or_else(|| pick.map(|o| o.gpu.to_string())).and_then(|g| catalog.gpu(&g));
    let total = mem.total();
    let memory = MemoryJson {
        weights_bytes: mem.weights,
        activations_bytes: mem.activations,
        gradients_bytes: mem.gradients,
        optimizer_bytes: mem.optimizer,
        overhead_bytes: mem.overhead,
        total_bytes: total,
        total_bytes_low: total * ranges::MEMORY.low,
        total_bytes_high: total * ranges::MEMORY.high,
        reserved_bytes: total * 1.1,
        gpus: 1,
        gpu: focus.map_or_else(String::new, |g| g.id.clone()),
        capacity_bytes: focus.map_or(0.0, |g| g.memory_bytes()),
        ..MemoryJson::default()
    };
    let ckpt = checkpoint_bytes(&t);
    let mut answer = Answer {
        memory,
        results,
        answers: Answers {
            min_gpus: focus.filter(|g| total <= g.memory_bytes() * USABLE).map(|_| 1),
            best_weight_format: Some(t.job.precision.id.to_string()),
            checkpoint_bytes: Some(ckpt),
            checkpoints_bytes_total: Some(ckpt * f64::from(cfg.ckpts.max(1))),
            ..Answers::default()
        },
        offers,
        recommendation,
        ..Answer::empty(user_cfg, notices, catalog, (&model.id, &model.name, false), t.job.precision.id)
    };
    answer.guidance = guidance(&cfg, &t, &answer);
    answer
}

fn gib1(b: f64) -> String {
    format!("{:.1}", b / GIB)
}

/// Memory in words, why LoRA/QLoRA fit where full training does not, the
/// GPU size that suits it, spot and prices.
fn guidance(cfg: &Config, t: &MediaTrainJob<'_>, a: &Answer) -> Vec<GuidanceItem> {
    let mem = t.memory();
    let method_mem = |method: Method| {
        let mut c = cfg.clone();
        c.method = method;
        if method != cfg.method {
            c.w = None;
        }
        train_job(t.model(), &c).map_or(0.0, |j| j.memory().total())
    };
    let mut out = vec![
        GuidanceItem::new(
            "memory",
            Some("g.memory.title"),
            Msg::new("g.imgtrain.memory")
                .arg("total", gib1(mem.total()))
                .arg("weights", gib1(mem.weights))
                .arg("states", gib1(mem.gradients + mem.optimizer))
                .arg("act", gib1(mem.activations))
                .arg("mb", format!("{:.0}", t.mb))
                .arg("res", format!("{}×{}", t.job.width, t.job.height)),
        ),
        GuidanceItem::new(
            "methods",
            Some("g.train.methods.title"),
            Msg::new("g.imgtrain.methods")
                .arg("full", gib1(method_mem(Method::Full)))
                .arg("lora", gib1(method_mem(Method::Lora)))
                .arg("qlora", gib1(method_mem(Method::Qlora))),
        ),
        super::guidance::gpu_size(mem.total()),
    ];
    out.push(GuidanceItem::new("imgtrain-time", None, Msg::new("g.imgtrain.time").num("min", cfg.jobmin, 0)));
    if !t.job.enc_offload {
        out.push(GuidanceItem::new("enc-offload", None, Msg::new("g.imgtrain.cache").arg("enc", gib1(t.job.weights().text_encoders + t.job.weights().vae))));
    }
    let spot = if cfg.spot { Msg::new("g.spot.batch_on").arg("restart", format!("{:.0}", cfg.restart_pct)) } else { Msg::new("g.spot.batch_off") };
    out.push(GuidanceItem::new("spot", Some("g.spot.title"), spot));
    let pick = a.recommendation.as_ref().and_then(|r| a.offers.iter().find(|o| o.id == r.pick.offer));
    match pick {
        Some(p) if !p.price_overridden => out.push(GuidanceItem::new("prices", None, Msg::new("g.note.prices").arg("date", p.price_as_of.to_string()))),
        Some(_) => {}
        None => out.push(GuidanceItem::new("nofit", None, Msg::new("g.note.nofit").arg("fmt", "nf4 (QLoRA)"))),
    }
    out
}
