//! Guidance for serving a language model: the four questions answered
//! with the numbers of the pick's own plan (its layout and sequences per
//! replica), and the notes that fire on rules.

use super::super::answer::{Answer, GuidanceItem};
use super::super::billing;
use super::super::catalog::Catalog;
use super::super::config::{Config, Usage};
use super::super::estimate::serve::{Bound, Plan, ServeJob};
use super::super::messages::Msg;
use super::super::precision;
use super::{gib1, gpu_size};

pub fn guidance(cfg: &Config, job: &ServeJob<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    let model = job.model;
    let pick = a.pick();

    // 1. How much memory, and where it goes.
    let m = &a.memory;
    let body = Msg::new("g.memory.body")
        .arg("total", gib1(m.total_bytes))
        .arg("weights", gib1(m.weights_bytes))
        .arg("kv", gib1(m.kv_cache_bytes))
        .arg("act", gib1(m.activations_bytes))
        .arg("overhead", gib1(m.overhead_bytes))
        .arg("batch", format!("{}", m.batch))
        .arg("ctx", format!("{}", job.context_tokens()));
    out.push(GuidanceItem::new("memory", Some("g.memory.title"), body));
    if m.total_bytes > 0.0 && m.kv_cache_bytes / m.total_bytes > 0.3 {
        let share = format!("{:.0}", 100.0 * m.kv_cache_bytes / m.total_bytes);
        out.push(GuidanceItem::new("kv-share", None, Msg::new("g.memory.kv_large").arg("share", share)));
    }

    // 2. Spot or on-demand.
    let spot = if !billing::tolerates_interruption(cfg) {
        Msg::new("g.spot.endpoint")
    } else if cfg.spot {
        Msg::new("g.spot.batch_on").arg("restart", format!("{:.0}", cfg.restart_pct))
    } else {
        Msg::new("g.spot.batch_off")
    };
    out.push(GuidanceItem::new("spot", Some("g.spot.title"), spot));

    // 3. 80 GB datacenter GPU or a 24–48 GB card: the need on one GPU.
    let one = job.memory(Plan::in_node(cfg.engine, 1, 1), m.batch.max(1.0)).total();
    out.push(gpu_size(one));

    // 4. Why generation is slow with the GPU idle: on the pick's GPU.
    if let Some(p) = pick {
        if let Some(gpu) = catalog.gpu(&p.gpu) {
            // The pick's own plan: its layout and sequences per replica.
            let plan = Plan { tp: p.tp, pp: p.pp };
            let batch = p.batch;
            let s = job.speed(gpu, plan, batch);
            let msg = if s.decode_bound == Bound::Memory {
                let quant = if job.format.body_bits > 8.5 { "fp8" } else { "int4-awq" };
                let quant = if quant == "fp8" && gpu.fp8_tflops.is_none() { "int8" } else { quant };
                let mut qjob = job.clone();
                if let Some(f) = precision::weight_format(quant) {
                    qjob.format = f;
                }
                let q = qjob.speed(gpu, plan, batch);
                let bytes = job.weight_bytes() / f64::from(plan.tp) + job.kv_per_seq_per_gpu(plan, job.context_tokens()) * batch;
                Msg::new("g.slow.memory")
                    .arg("bytes", gib1(bytes))
                    .arg("gpu", gpu.name.clone())
                    .arg("tps", format!("{:.0}", s.decode_tokens_per_s_per_seq))
                    .arg("fmt", quant)
                    .arg("qtps", format!("{:.0}", q.decode_tokens_per_s_per_seq))
            } else {
                Msg::new("g.slow.compute").arg("batch", format!("{batch}")).arg("gpu", gpu.name.clone())
            };
            out.push(GuidanceItem::new("slow-decode", Some("g.slow.title"), msg));
        }
    }

    // Rule-triggered notes.
    if let Some(p) = pick {
        let single_fits = a.answers.min_gpus == Some(1);
        if single_fits && p.gpus > 1 {
            out.push(GuidanceItem::new("single-gpu", None, Msg::new("g.note.single_gpu")));
        }
        // A layer split (llama.cpp, transformers) has no all-reduce.
        if p.tp > 1 && !cfg.engine.splits_layers() {
            out.push(GuidanceItem::new("nvlink", None, Msg::new("g.note.nvlink").arg("gpus", p.tp.to_string())));
        }
        let total = p.usd_per_month;
        let side = p.storage_usd_per_month + p.egress_usd_per_month;
        if total > 0.0 && side / total >= 0.15 {
            out.push(GuidanceItem::new("storage", None, Msg::new("g.note.storage").arg("share", format!("{:.0}", 100.0 * side / total))));
        }
        if !p.price_overridden {
            out.push(GuidanceItem::new("prices", None, Msg::new("g.note.prices").arg("date", p.price_as_of.to_string())));
        }
    }
    let sixteen_bit = job.format.body_bits >= 16.0;
    let fp8_gpu_missing = pick.and_then(|p| catalog.gpu(&p.gpu)).is_some_and(|g| g.fp8_tflops.is_none());
    if model.params_total >= 30e9 && (sixteen_bit || (job.format.id == "fp8" && fp8_gpu_missing)) {
        out.push(GuidanceItem::new("fp8", None, Msg::new("g.note.fp8")));
    }
    let bursty = matches!(cfg.usage(), Usage::Jobs | Usage::Hours);
    let hourly_billing = catalog.offers.iter().any(|o| o.billing(catalog.provider(&o.provider)).0 >= 3600.0);
    if bursty && hourly_billing {
        let minutes = match cfg.usage() {
            Usage::Jobs => cfg.jobmin,
            _ => cfg.hpd * 60.0,
        };
        out.push(GuidanceItem::new("billing", None, Msg::new("g.note.billing").arg("minutes", format!("{minutes:.0}"))));
    }
    if model.vision.is_some() && job.images > 0.0 {
        let res = cfg.resolution();
        // Cross-attention models (Llama 3.2 Vision) keep image tokens out of
        // the text context, in their own cache.
        let (tokens, text) = match &model.vision {
            Some(v) if v.cross_attention_layers.is_some() => (v.tokens_per_image(res) * job.images, job.context_tokens()),
            _ => (job.image_tokens, job.context_tokens() - job.image_tokens),
        };
        let share = 100.0 * tokens / (tokens + text).max(1.0);
        out.push(GuidanceItem::new(
            "images",
            None,
            Msg::new("g.note.images")
                .num("images", job.images, 0)
                .arg("res", format!("{}×{}", res.0, res.1))
                .num("tokens", tokens, 0)
                .num("share", share, 0)
                .num("prep", job.image_prep_s, 2),
        ));
    }
    if model.inferred {
        out.push(GuidanceItem::new("inferred", None, Msg::new("g.note.inferred")));
    }
    if pick.is_none() {
        let fmt = a.answers.best_weight_format.clone().unwrap_or_else(|| "int4-awq".into());
        out.push(GuidanceItem::new("nofit", None, Msg::new("g.note.nofit").arg("fmt", fmt)));
    }
    out
}

