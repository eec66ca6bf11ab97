//! Guidance for serving a language model: the four questions answered
//! with the numbers of the pick's own plan (its layout and sequences per
//! replica), and the notes that fire on rules.

use super::super::answer::{Answer, GuidanceItem, OfferResult};
use super::super::catalog::support::{Kind, Support};
use super::super::catalog::Catalog;
use super::super::config::Batch;
use super::super::estimate::serve::{Bound, Plan, ServeJob};
use super::super::messages::Msg;
use super::super::precision;
use super::super::settings::Settings;
use super::super::units::GIB;
use super::shared::{billing_rounding, gib1, gpu_size, prices_note, spot, suggestions, tight_memory};

/// A single-GPU alternative costing at most this many times the
/// multi-GPU pick per unit of work is "about the same": the note says so.
/// A product choice, like `thresholds::NEAR_TIE`, wider than it because the
/// note only points at a simpler setup and moves no ranking.
const SINGLE_GPU_CLOSE: f64 = 1.1;

pub fn guidance(cfg: &Settings, job: &ServeJob<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    let model = job.model;
    let pick = a.pick();

    // 1. How much memory, and where it goes.
    out.extend(memory(job, a));
    let m = &a.memory;
    if let Some(item) = prefix_saved(job, catalog, a) {
        out.push(item);
    }
    out.extend(spec_pays(job, catalog, a));

    // 2. Spot, on-demand or reserved, as the pick is billed.
    out.push(spot(cfg, a));

    // 3. 80 GB datacenter GPU or a 24–48 GB card: the pick's need per GPU.
    // With `batch=max` the pick fills its memory by design: a card holds the
    // job where one sequence fits, and runs fewer at once.
    let least = if cfg.batch() == Batch::Max { 1.0 } else { m.batch };
    out.push(gpu_size(a, Some(job.memory(Plan::tp_pp(1, 1), least).total()), false));
    out.extend(one_card_formats(job, catalog, a, least));

    // 4. Why generation is slow with the GPU idle: the pick's own plan (its
    // layout and sequences per replica) on the pick's GPU.
    out.extend(pick.and_then(|p| slow_decode(job, catalog, p)));

    // Rule-triggered notes.
    if let Some(p) = pick {
        out.extend(pick_notes(cfg, a, p));
    }
    out.extend(billing_rounding(cfg, a));
    // (Memory full by design under `batch=max`: no margin to leave.)
    out.extend(tight_memory(cfg, a).filter(|_| cfg.batch() != Batch::Max));
    out.extend(suggestions(a));
    out.extend(images_note(cfg, job));
    if model.inferred {
        out.push(GuidanceItem::new("inferred", None, Msg::new("g.note.inferred")));
    }
    if pick.is_none() {
        out.push(no_fit(cfg, a));
    }
    out
}

/// What prefix caching saved on the pick's plan: the shared prefix's KV
/// held once per copy instead of once per sequence, and the time to first
/// token with only the new tokens prefilled against prefilling the whole prompt.
/// How much memory the job takes and where it goes; a note when the KV
/// cache is the larger part.
fn memory(job: &ServeJob<'_>, a: &Answer) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    let m = &a.memory;
    // One sequence is said as one (a batch is rounded to whole sequences).
    let body = Msg::new(if m.batch.round() == 1.0 { "g.memory.body.one" } else { "g.memory.body" })
        .num("total", m.total_bytes / GIB, 1)
        .arg("weights", gib1(m.weights_bytes))
        .arg("kv", gib1(m.kv_cache_bytes))
        .arg("act", gib1(m.activations_bytes))
        .arg("overhead", gib1(m.overhead_bytes))
        .num("batch", m.batch, 0)
        .arg("ctx", format!("{}", job.context_tokens()));
    out.push(GuidanceItem::new("memory", Some("g.memory.title"), body));
    if m.total_bytes > 0.0 && m.kv_cache_bytes / m.total_bytes > 0.3 {
        let share = format!("{:.0}", 100.0 * m.kv_cache_bytes / m.total_bytes);
        out.push(GuidanceItem::new("kv-share", None, Msg::new("g.memory.kv_large").arg("share", share)));
    }
    out
}

/// Why generation is slow with the GPU idle: what bounds the pick's decode
/// step on its own plan and GPU.
fn slow_decode(job: &ServeJob<'_>, catalog: &Catalog, p: &OfferResult) -> Option<GuidanceItem> {
    let model = job.model;
    let gpu = catalog.gpu(&p.gpu)?;
    let plan = Plan { tp: p.tp, pp: p.pp, dp: p.dp.max(1), ep: p.ep };
    let batch = p.batch;
    let bound = p.speeds.decode_tokens_per_s_per_seq().map(|_| job.speed(gpu, plan, batch).decode_bound);
    let tps = p.speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0);
    let msg = if matches!(bound, Some(Bound::Memory | Bound::Issue)) {
        let ctx = super::super::estimate::arch::mean_context(job.prompt_tokens(), job.output_tokens);
        let kv = batch * job.kv_per_seq_per_gpu(plan.stage(), ctx);
        // transformers also copies the cache every step (`estimate::eager::cache_copy_bytes`).
        let copies = super::super::estimate::eager::cache_copy_bytes(job.engine, model, kv);
        // Under speculative decoding a step's read yields its accepted run (`estimate::spec`).
        let bytes = (job.weight_bytes_per_step(plan, batch) + kv + copies)
            / job.spec.as_deref().map_or(1.0, |d| d.tokens_per_step());
        // `bytes` is what one GPU of each stage reads, the stages in
        // turn; split over a group (tensor parallel, or data-parallel
        // attention's ranks with the experts over all of them), the
        // token reads the group's whole share, said as both.
        let group = plan.group();
        let (key, per_gpu) = match (bound, group > 1, plan.pp > 1) {
            (Some(Bound::Issue), _, _) => ("g.slow.issue", bytes),
            _ if copies > 0.0 => ("g.slow.memory.copies", bytes / f64::from(plan.pp)),
            (_, true, false) => ("g.slow.memory.tp", bytes),
            (_, true, true) => ("g.slow.memory.pp", bytes / f64::from(plan.pp)),
            _ => ("g.slow.memory", bytes),
        };
        Msg::new(key)
            .num("bytes", per_gpu / GIB, 1)
            .num("total", bytes * f64::from(group) / GIB, 1)
            .num("tp", f64::from(group), 0)
            .num("pp", f64::from(plan.pp), 0)
            .arg("gpu", gpu.name.clone())
            .num("tps", tps, 0)
            .sub("how", Msg::new(if plan.dp > 1 { "g.slow.how.dp" } else { "g.slow.how.tp" }))
    } else if bound == Some(Bound::Host) {
        // An eager engine: the host's launches outlast the GPU's work (`estimate::eager`).
        let host = super::super::estimate::eager::host_s(&job.factors(gpu), model.layers, 1.0);
        Msg::new("g.slow.host")
            .num("host", host * 1e3, 0)
            .num("layers", f64::from(model.layers), 0)
            .arg("gpu", gpu.name.clone())
            .num("tps", tps, 0)
    } else {
        Msg::new("g.slow.compute").num("batch", batch, 0).arg("gpu", gpu.name.clone())
    };
    Some(GuidanceItem::new("slow-decode", Some("g.slow.title"), msg))
}

/// Notes the pick's own figures call for: a single GPU would do, idle
/// copies, tensor parallelism without NVLink, storage's share, the price date.
fn pick_notes(cfg: &Settings, a: &Answer, p: &OfferResult) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    // Said where the filters left no single-GPU offer, or where the
    // single-GPU alternative costs about the same
    // per unit of work (within 10 %) on a cost ranking: a multi-GPU
    // pick that is cheaper, or faster on a speed or latency ranking,
    // earned its GPUs.
    let single_fits = a.answers.min_gpus == Some(1);
    let single_close = a
        .recommendation
        .as_ref()
        .and_then(|r| r.alternatives.iter().find(|x| x.why == super::super::kinds::AltKind::SingleGpu))
        .and_then(|x| {
            let o = a.offers.iter().find(|o| o.id == x.offer)?;
            Some(super::ranked::ranked_cost(a, o)? <= super::ranked::ranked_cost(a, p)? * SINGLE_GPU_CLOSE)
        });
    let single_offered = a.offers.iter().any(|o| o.fits && o.gpus == 1);
    if single_fits && p.gpus > 1 && !single_offered {
        out.push(GuidanceItem::new("single-gpu", None, Msg::new("g.note.single_gpu")));
    } else if single_fits && p.gpus > 1 && single_close == Some(true) {
        out.push(GuidanceItem::new("single-gpu", None, Msg::new("g.note.single_gpu.close")));
    }
    // Copies the stated load (batch or rate) keeps busy, against those rented: the rest idle, paid.
    if let (Batch::N(_), Some(per), Some(total)) =
        (cfg.batch(), p.speeds.decode_tokens_per_s_per_seq(), p.speeds.decode_tokens_per_s_total())
    {
        let (busy, copies) =
            ((total / (per * p.batch.max(1.0)) - 1e-6).ceil().max(1.0), f64::from(p.replicas));
        if per > 0.0 && copies > busy {
            let msg = Msg::new("g.note.idle_copies").num("busy", busy, 0).num("copies", copies, 0).num(
                "idle",
                copies - busy,
                0,
            );
            out.push(GuidanceItem::new("idle-copies", None, msg));
        }
    }
    // A layer split (llama.cpp, transformers) has no all-reduce.
    // (Data-parallel attention gathers and scatters every layer's tokens over the whole group.)
    let group = p.tp * p.dp.max(1);
    if group > 1
        && !cfg.engine.splits_layers()
        && !matches!(p.interconnect, "nvlink" | "nvswitch" | "nvl72" | "xgmi")
    {
        out.push(GuidanceItem::new(
            "nvlink",
            None,
            Msg::new("g.note.nvlink").num("gpus", f64::from(group), 0),
        ));
    }
    let total = p.usd_per_month;
    let side = p.storage_usd_per_month + p.egress_usd_per_month;
    if total > 0.0 && side / total >= 0.15 {
        out.push(GuidanceItem::new(
            "storage",
            None,
            Msg::new("g.note.storage").arg("share", format!("{:.0}", 100.0 * side / total)),
        ));
    }
    out.extend(prices_note(p));
    out
}

/// The images' share of the context, for a vision model given images.
fn images_note(cfg: &Settings, job: &ServeJob<'_>) -> Option<GuidanceItem> {
    if job.model.vision.is_none() || job.images <= 0.0 {
        return None;
    }
    let res = cfg.resolution();
    // Cross-attention models (Llama 3.2 Vision) keep image tokens out of
    // the text context, in their own cache.
    let (tokens, text) = match &job.model.vision {
        Some(v) if v.cross_attention_layers.is_some() => {
            (v.tokens_per_image(res) * job.images, job.context_tokens())
        }
        _ => (job.image_tokens, job.context_tokens() - job.image_tokens),
    };
    let share = 100.0 * tokens / (tokens + text).max(1.0);
    Some(GuidanceItem::new(
        "images",
        None,
        Msg::new("g.note.images")
            .num("images", job.images, 0)
            .arg("res", format!("{}×{}", res.0, res.1))
            .num("tokens", tokens, 0)
            .num("share", share, 0)
            .num("prep", job.image_prep_s, 2),
    ))
}

/// What to change when nothing fits: a format the engine runs, or a smaller one.
fn no_fit(cfg: &Settings, a: &Answer) -> GuidanceItem {
    // The widest format the engine runs that fits the focus GPU.
    let best = a.answers.best_weight_format.clone().filter(|f| *f != a.weight_format);
    // An offer whose memory holds the job on a GPU the engine cannot
    // run this format on: the format, not the size, rules it out.
    let refused = a
        .offers
        .iter()
        .filter(|o| o.need_bytes <= o.usable_bytes)
        .find_map(|o| o.reason_msgs.iter().find(|m| m.key == "reason.unsupported"));
    let fallback = match (refused, best) {
        (Some(r), Some(fmt)) => Msg { key: "g.note.unsupported", args: r.args.clone() }.arg("fmt", fmt),
        (Some(r), None) => Msg { key: "g.note.unsupported.other", args: r.args.clone() },
        (None, best) => {
            // A smaller format than the one that already does not fit.
            let small = if cfg.engine.splits_layers() { "gguf-q4_k_m" } else { "int4-awq" };
            Msg::new("g.note.nofit").arg("fmt", best.unwrap_or_else(|| small.into()))
        }
    };
    super::shared::no_pick(cfg, a, fallback)
}

fn prefix_saved(job: &ServeJob<'_>, catalog: &Catalog, a: &Answer) -> Option<GuidanceItem> {
    let p = a.pick().filter(|_| job.shared_prefix > 0.0)?;
    let gpu = catalog.gpu(&p.gpu)?;
    let plan = Plan { tp: p.tp, pp: p.pp, dp: p.dp.max(1), ep: p.ep };
    // Each data-parallel attention rank keeps its own copy of the prefix.
    let ranks = f64::from(plan.dp.max(1));
    let once = job.shared_kv_per_gpu(plan) * f64::from(plan.gpus()) / ranks;
    let whole = ServeJob { shared_prefix: 0.0, ..job.clone() };
    let msg = Msg::new("g.prefix")
        .num("prefix", job.shared_prefix, 0)
        .arg("kv", gib1(once))
        .arg("saved", gib1(once * (p.batch - ranks).max(0.0)))
        .num("batch", p.batch, 0)
        .num("new", job.new_prompt_tokens(), 0)
        .num("ttft", job.speed(gpu, plan, p.batch).time_to_first_token_s, 2)
        .num("ttft0", whole.speed(gpu, plan, p.batch).time_to_first_token_s, 2);
    Some(GuidanceItem::new("prefix", None, msg))
}

/// "Does speculative decoding pay here?": the pick's decode speed per
/// sequence with the drafter against the same plan without it (`estimate::spec`),
/// and why: a verify step still bound by reading weights gains, a
/// compute-bound one loses.
fn spec_pays(job: &ServeJob<'_>, catalog: &Catalog, a: &Answer) -> Option<GuidanceItem> {
    let d = job.spec.as_deref()?;
    let p = a.pick()?;
    let gpu = catalog.gpu(&p.gpu)?;
    let plan = Plan { tp: p.tp, pp: p.pp, dp: p.dp.max(1), ep: p.ep };
    let with = job.speed(gpu, plan, p.batch).decode_tokens_per_s_per_seq;
    let without =
        ServeJob { spec: None, ..job.clone() }.speed(gpu, plan, p.batch).decode_tokens_per_s_per_seq;
    let ratio = with / without.max(f64::MIN_POSITIVE);
    let msg = Msg::new("g.spec")
        .arg("method", d.method.as_str())
        .num("k", d.k, 0)
        .num("alpha", 100.0 * d.alpha, 0)
        .num("tokens", d.tokens_per_step(), 2)
        .num("batch", p.batch, 0)
        .num("tps", with, 0)
        .num("tps0", without, 0)
        .num("ratio", ratio, 2)
        .sub(
            "verdict",
            Msg::new(match (ratio > 1.0, job.speed(gpu, plan, p.batch).decode_bound) {
                (false, _) => "g.spec.loses",
                (true, Bound::Compute) => "g.spec.pays.compute",
                _ => "g.spec.pays",
            }),
        );
    Some(GuidanceItem::new("spec", None, msg))
}

/// Where the pick splits a 16-bit copy over several GPUs: the smaller
/// weight formats the engine runs on the pick's card (`support.csv`) in
/// which one card holds a copy, with the sequences it then holds at once
/// ("is a 4090 enough for a 13B?": yes, in 8 or 4 bits).
fn one_card_formats(job: &ServeJob<'_>, catalog: &Catalog, a: &Answer, least: f64) -> Option<GuidanceItem> {
    let p = a.pick().filter(|p| p.tp.max(1) * p.pp.max(1) > 1 && job.format.body_bits >= 16.0)?;
    let gpu = catalog.gpu(&p.gpu)?;
    let one = Plan::tp_pp(1, 1);
    let fits: Vec<String> = ["fp8", "int4-awq"]
        .iter()
        .filter(|id| {
            catalog.support(job.engine.as_str(), gpu.arch.as_str(), Kind::Weights, id) != Support::Unsupported
        })
        .filter_map(|id| {
            let j = ServeJob { format: precision::weight_format(id)?, ..job.clone() };
            let most = f64::from(j.max_batch(gpu, one)).min(least.max(1.0));
            (most >= 1.0).then(|| format!("w={id} ({most:.0})"))
        })
        .collect();
    if fits.is_empty() {
        return None;
    }
    let msg = Msg::new("g.size.formats").arg("gpu", p.gpu.to_string()).arg("formats", fits.join(", "));
    Some(GuidanceItem::new("gpu-size-formats", None, msg))
}
