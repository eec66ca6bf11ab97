//! Guidance for fine-tuning an image generator.

use super::super::answer::{Answer, GuidanceItem};
use super::super::catalog::Catalog;
use super::super::config::Method;
use super::super::estimate::media_train::MediaTrainJob;
use super::super::messages::Msg;
use super::super::plan::media_train::timed_steps;
use super::super::resolve::image_train_job;
use super::super::settings::Settings;
use super::shared::{billing_rounding, gib1, gpu_size, spot, suggestions};

/// Memory in words, why LoRA/QLoRA fit where full training does not, the
/// GPU size that suits it, spot and prices.
pub fn guidance(cfg: &Settings, t: &MediaTrainJob<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
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
    out.push(time_item(cfg, t, catalog, a));
    if !t.job.enc_offload {
        out.push(GuidanceItem::new(
            "enc-offload",
            None,
            Msg::new("g.imgtrain.cache")
                .arg("enc", gib1(t.job.weights().text_encoders + t.job.weights().vae)),
        ));
    }
    out.push(spot(cfg, a));
    let pick = a.pick();
    match pick {
        Some(p) => out.extend(super::shared::prices_note(p)),
        None => out.push(super::shared::no_pick(cfg, a, Msg::new("g.media.nofit"))),
    }
    // The serverless note (in worker- and GPU-hours of the assumed run) and the rounding note.
    out.extend(billing_rounding(cfg, a));
    out.extend(suggestions(a));
    out
}

/// The run's time on the pick's GPUs and what dominates a step, or the
/// user's own length (`jobmin` without `train_steps`).
fn time_item(cfg: &Settings, t: &MediaTrainJob<'_>, catalog: &Catalog, a: &Answer) -> GuidanceItem {
    let gpu = a.pick().and_then(|p| catalog.gpu(&p.gpu).map(|g| (g, p.gpus)));
    let msg = match (timed_steps(cfg), gpu) {
        (Some(steps), Some((gpu, n))) => {
            let micro = t.micro_batches(cfg.gbs, n);
            let st = t.step_time(gpu, micro, n);
            Msg::new("g.imgtrain.time")
                .num("steps", f64::from(steps), 0)
                .num("micro", micro, 0)
                .num("hours", f64::from(steps) * st.total_s / 3600.0, 1)
                .arg("gpu", format!("{n} × {}", gpu.name))
                .num("step", st.total_s, 2)
                .sub("part", Msg::new(part_key(st.dominant())))
        }
        _ => Msg::new("g.imgtrain.jobmin").num("min", cfg.job_minutes(), 0),
    };
    GuidanceItem::new("imgtrain-time", Some("g.bound.title"), msg)
}

fn part_key(part: &str) -> &'static str {
    match part {
        "recompute" => "g.imgtrain.part.recompute",
        "dequant" => "g.imgtrain.part.dequant",
        "encoders" => "g.imgtrain.part.encoders",
        "host" => "g.imgtrain.part.host",
        "sync" => "g.imgtrain.part.sync",
        "optimizer" => "g.imgtrain.part.optimizer",
        _ => "g.imgtrain.part.denoiser",
    }
}
