//! Guidance for fine-tuning an image generator.

use super::super::answer::{Answer, GuidanceItem};
use super::super::config::Method;
use super::super::estimate::media_train::MediaTrainJob;
use super::super::messages::Msg;
use super::super::resolve::image_train_job;
use super::super::settings::Settings;
use super::{billing_rounding, gib1, gpu_size, spot, suggestions};

/// Memory in words, why LoRA/QLoRA fit where full training does not, the
/// GPU size that suits it, spot and prices.
pub fn guidance(cfg: &Settings, t: &MediaTrainJob<'_>, a: &Answer) -> Vec<GuidanceItem> {
    let mem = t.memory();
    let method_mem = |method: Method| {
        let mut c = cfg.config().clone();
        c.method = method;
        if method != cfg.method {
            c.w = None;
        }
        match image_train_job(t.model(), &c) {
            Ok(j) | Err(j) => j.memory().total(),
        }
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
        gpu_size(a, None, false),
    ];
    out.push(GuidanceItem::new("imgtrain-time", None, Msg::new("g.imgtrain.time").num("min", cfg.job_minutes(), 0)));
    if !t.job.enc_offload {
        out.push(GuidanceItem::new("enc-offload", None, Msg::new("g.imgtrain.cache").arg("enc", gib1(t.job.weights().text_encoders + t.job.weights().vae))));
    }
    out.push(spot(cfg, a));
    let pick = a.pick();
    match pick {
        Some(p) if !p.price_overridden => out.push(GuidanceItem::new("prices", None, Msg::new("g.note.prices").arg("date", p.price_as_of.to_string()))),
        Some(_) => {}
        None => out.push(super::no_pick(cfg, a, Msg::new("g.media.nofit"))),
    }
    // The serverless note (in worker- and GPU-hours of the assumed run) and the rounding note.
    out.extend(billing_rounding(cfg, a));
    out.extend(suggestions(a));
    out
}
