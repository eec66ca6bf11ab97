//! Guidance for fine-tuning and pre-training a language model.

use super::super::answer::{Answer, GuidanceItem, OfferResult};
use super::super::catalog::{Catalog, Gpu};
use super::super::config::{Checkpointing, Method, Task, Trainer};
use super::super::estimate::train::Layout;
use super::super::estimate::train::{mfu, TrainJob};
use super::super::messages::Msg;
use super::super::plan::train::method_comparison;
use super::super::plan::train_speed::{clock_term, host_share, network_share};
use super::super::resolve;
use super::super::settings::Settings;
use super::super::units::GIB;
use super::shared::{billing_rounding, gib1, gpu_size, prices_note, spot, suggestions, tight_memory};

/// A run longer than this without a deadline gets the note that `days`
/// scales it out: a month, a planning horizon, not a fitted figure.
const LONG_RUN_HOURS: f64 = 30.0 * 24.0;

/// Guidance for fine-tuning and pre-training jobs.
pub fn guidance(cfg: &Settings, job: &TrainJob<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    let model = job.model;
    let mut out = Vec::new();
    out.push(memory(job, a));
    out.push(spot(cfg, a));
    out.push(size(job, catalog, a));
    if cfg.task == Task::Finetune {
        let [(_, full), (_, lora), (_, qlora)] = method_comparison(model, cfg);
        // Offloaded, the states are not in these GPU figures: said so.
        let key = if job.offloaded().0 { "g.train.methods.offload" } else { "g.train.methods" };
        out.push(GuidanceItem::new(
            "methods",
            Some("g.train.methods.title"),
            Msg::new(key).arg("full", gib1(full)).arg("lora", gib1(lora)).arg("qlora", gib1(qlora)),
        ));
    }
    let pick = a.pick();
    if let Some(p) = pick {
        out.extend(pick_items(cfg, job, catalog, a, p));
    } else if let Some(msg) = shape_missing(cfg, a) {
        out.push(GuidanceItem::new("noshape", None, msg));
    } else {
        out.push(super::shared::no_pick(
            cfg,
            a,
            Msg::new("g.train.nofit").arg("tries", nofit_tries(cfg, job).join(", ")),
        ));
    }
    if let Some(c) = a.answers.checkpoint_bytes {
        out.push(GuidanceItem::new(
            "checkpoints",
            None,
            Msg::new("g.train.ckpt").arg("size", gib1(c)).arg("n", cfg.ckpts.to_string()),
        ));
    }
    if model.inferred {
        out.push(GuidanceItem::new("inferred", None, Msg::new("g.note.inferred")));
    }
    out.extend(billing_rounding(cfg, a));
    out.extend(tight_memory(cfg, a));
    out.extend(suggestions(a));
    out
}

/// How much memory each GPU holds and where it goes.
fn memory(job: &TrainJob<'_>, a: &Answer) -> GuidanceItem {
    let m = &a.memory;
    let n = f64::from(m.gpus.max(1));
    // An RL run's generation engine sits in the overhead: named apart.
    let engine = a.answers.rl.as_ref().map_or(0.0, |r| r.engine_bytes).clamp(0.0, m.overhead_bytes / n);
    let body = if engine > 0.0 {
        Msg::new("g.train.memory.body.rl").arg("engine", gib1(engine))
    } else {
        Msg::new("g.train.memory.body")
    };
    GuidanceItem::new(
        "memory",
        Some("g.memory.title"),
        body.arg("total", gib1(m.total_bytes / n))
            .arg("gpus", m.gpus.to_string())
            .arg("weights", gib1(m.weights_bytes / n))
            .arg("grads", gib1(m.gradients_bytes / n))
            .arg("optim", gib1(m.optimizer_bytes / n))
            .arg("act", gib1(m.activations_bytes / n))
            .arg("mb", format!("{}", job.mb))
            .arg("seq", format!("{}", job.seq))
            .arg("overhead", gib1(m.overhead_bytes / n - engine)),
    )
}

/// Whether an 80 GB card is needed, as the pick's plan and the other
/// fitting offers show it.
fn size(job: &TrainJob<'_>, catalog: &Catalog, a: &Answer) -> GuidanceItem {
    // A pick whose offload sets its pace: the size answer says so rather
    // than calling the job compute bound.
    let host_bound = a.pick().and_then(|p| Some((p, catalog.gpu(&p.gpu)?))).is_some_and(|(p, gpu)| {
        let layout = Layout { dp: p.dp.max(1), tp: p.tp.max(1), pp: p.pp.max(1) };
        let host = host_share(job, gpu, layout);
        host < 0.8 && host <= network_share(job, gpu, layout)
    });
    let mut size = gpu_size(a, None, false);
    if let ("g.size.small.compute" | "g.size.medium.compute", true) = (size.msg.key, host_bound) {
        let key = if size.msg.key == "g.size.small.compute" {
            "g.size.small.offload"
        } else {
            "g.size.medium.offload"
        };
        size.msg = Msg { key, args: std::mem::take(&mut size.msg.args) };
    }
    // "Yes, an 80 GB card" is true of the pick's plan only: where another
    // fitting offer runs the job on smaller cards (sharded, or split over
    // more of them), it names the best-ranked of those.
    let per_gpu = a.memory.total_bytes / f64::from(a.memory.gpus.max(1));
    if let ("g.size.large.compute", Some(o)) = (
        size.msg.key,
        a.offers.iter().find(|o| o.fits && o.usable_bytes <= 76.0 * GIB && o.usable_bytes < per_gpu),
    ) {
        size.msg = Msg::new("g.size.sharded")
            .num("need", per_gpu / GIB, 1)
            .arg("offer", o.id.to_string())
            .num("gpus", f64::from(o.gpus * o.instances.max(1)), 0)
            .arg("gpu", o.gpu.to_string())
            .num("other", o.need_bytes / GIB, 1);
    }
    size
}

/// The pick's run: its time, a long run, host memory for offloaded states,
/// what bounds its speed, NVLink and the price date.
fn pick_items(
    cfg: &Settings,
    job: &TrainJob<'_>,
    catalog: &Catalog,
    a: &Answer,
    p: &OfferResult,
) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    let gpu_name = catalog.gpu(&p.gpu).map_or(p.gpu.to_string(), |g| g.name.clone());
    // Where the stack's own clock costs a fifth of the rate or more, the
    // time is not the utilisation's alone, and the sentence says so.
    let stack_bound = catalog.gpu(&p.gpu).is_some_and(|g| {
        clock_term(job, g, Layout { dp: p.dp.max(1), tp: p.tp.max(1), pp: p.pp.max(1) }).1 < 0.8
    });
    out.push(GuidanceItem::new(
        "train-time",
        None,
        Msg::new(if stack_bound { "g.train.time.clock" } else { "g.train.time" })
            .arg("tokens", format!("{:.3e}", a.answers.training_tokens.unwrap_or(0.0)))
            .num("hours", p.speeds.job_hours().unwrap_or(0.0), 1)
            .arg("gpus", (p.gpus * p.instances).to_string())
            .arg("gpu", gpu_name)
            .num(
                "gpuh",
                p.speeds.job_gpu_hours().unwrap_or(0.0),
                if p.speeds.job_gpu_hours().unwrap_or(0.0) < 10.0 { 2 } else { 0 },
            ),
    ));
    // No deadline: the plan takes the fewest GPUs that hold the job. A
    // run past a month on them is said, with the key that scales it out
    // (without a `gpus` pin, which fixes the count).
    let hours = p.speeds.job_hours().unwrap_or(0.0);
    if cfg.days.is_none() && cfg.gpus.is_none() && hours > LONG_RUN_HOURS {
        out.push(GuidanceItem::new(
            "long-run",
            None,
            Msg::new("g.train.long")
                .num("days", hours / 24.0, 0)
                .arg("gpus", (p.gpus * p.instances).to_string()),
        ));
    }
    // The offloaded states live in the instances' CPU memory, which
    // the GPU figures leave out and no offer's price covers.
    if let Some(host) = job.host_offload_bytes(p.instances) {
        let key = if job.offloaded().1 { "g.train.host.all" } else { "g.train.host.optim" };
        let check = match catalog.offer(&p.id).and_then(|o| o.ram_gb) {
            Some(ram) => Msg::new("g.train.host.has").num("ram", ram, 0),
            None => Msg::new("g.train.host.check"),
        };
        out.push(GuidanceItem::new(
            "host-memory",
            None,
            Msg::new(key)
                .arg("host", gib1(host))
                .arg("instances", p.instances.max(1).to_string())
                .sub("check", check),
        ));
    }
    out.extend(catalog.gpu(&p.gpu).and_then(|gpu| bound(cfg, job, a, p, gpu)));
    if p.tp > 1 && !matches!(p.interconnect, "nvlink" | "nvswitch" | "nvl72" | "xgmi") {
        out.push(GuidanceItem::new(
            "nvlink",
            None,
            Msg::new("g.note.nvlink").num("gpus", f64::from(p.tp), 0),
        ));
    }
    out.extend(prices_note(p));
    out
}

/// What bounds the pick's speed on its own layout: the stack's clock, the
/// host link, the network, or the GPU's compute.
fn bound(cfg: &Settings, job: &TrainJob<'_>, a: &Answer, p: &OfferResult, gpu: &Gpu) -> Option<GuidanceItem> {
    // The pick's own layout: where the exchange between GPUs costs
    // more than a fifth of the compute rate, the network sets the pace.
    let share = network_share(job, gpu, Layout { dp: p.dp.max(1), tp: p.tp.max(1), pp: p.pp.max(1) });
    // Accumulation amortises a once-per-step exchange (DDP, ZeRO-1);
    // ZeRO-2/3 exchange every micro-batch, which only a larger one amortises.
    let network = if job.zero >= 2 { "g.train.network.sharded" } else { "g.train.network" };
    // Offloaded states and activations cross PCIe each step; where
    // that costs more than a fifth of the rate, the host link sets it.
    let layout = Layout { dp: p.dp.max(1), tp: p.tp.max(1), pp: p.pp.max(1) };
    let host = host_share(job, gpu, layout);
    // The stack's own clock terms (host launches, looped experts,
    // ZeRO-3's per-tensor collectives, the CPU's optimizer step,
    // unfused elementwise ops): the one that costs most is named.
    let (term, clock) = clock_term(job, gpu, layout);
    let msg = if clock < 0.8 && clock <= host && clock <= share {
        Msg::new("g.train.clock")
            .num("x", 1.0 / clock.max(1e-9), 1)
            .arg("gpu", gpu.name.clone())
            .sub("term", Msg::new(term.key()))
    } else if host < 0.8 && host <= share {
        Msg::new("g.train.hostlink").num("pct", 100.0 * host, 0).arg("gpu", gpu.name.clone())
    } else if share < 0.8 {
        // ZeRO-2 exchanges gradients each micro-batch, ZeRO-3 the
        // parameters too; a lower stage is advice only where the
        // link set it (unset, the planner took the least that fits).
        let what = Msg::new(if job.zero >= 3 { "g.train.shard.gather" } else { "g.train.shard.scatter" });
        let m = Msg::new(network)
            .num("pct", 100.0 * share, 0)
            .num("zero", f64::from(job.zero), 0)
            .arg("gpu", gpu.name.clone())
            .sub("what", what);
        if cfg.zero.is_some() {
            m.sub("lower", Msg::new("g.train.shard.lower"))
        } else {
            m.arg("lower", "")
        }
    } else {
        // One GPU exchanges nothing with others.
        let key = if layout.gpus() == 1 { "g.train.bound.one" } else { "g.train.bound" };
        Msg::new(key).num("mfu", 100.0 * mfu(gpu, job.method), 0).arg("gpu", gpu.name.clone())
    };
    // An RL step that mostly waits on generation is paced by it, not
    // by the update this answer describes: the RL answer says so.
    let rl_step =
        a.answers
            .rl
            .as_ref()
            .and_then(|r| if r.gen == "split" { r.split.as_ref() } else { r.colocate.as_ref() });
    // The stack's clock terms but the CPU step name other trainers as
    // the remedy; an RL run takes TRL only, so there it is left out.
    let other_stack =
        a.answers.rl.is_some() && msg.key == "g.train.clock" && term.key() != "g.train.clock.cpu";
    let skip = rl_step.is_some_and(super::train_rl::generation_paces) || other_stack;
    (!skip).then(|| GuidanceItem::new("train-bound", Some("g.bound.title"), msg))
}

/// The single changes that shrink a training job's memory per GPU, for
/// the note when nothing holds it: adapters instead of full weights, ZeRO-3
/// sharding every state over the GPUs, a stack with pipeline stages (the
/// Hugging Face Trainer splits layers only by AutoTP inside one node;
/// never for adapters, which Megatron-LM does not have), a stack whose loss
/// and checkpoints take less memory (`estimate::stack`), activation
/// offload, full recomputation, one sequence per micro-batch, parameter
/// offload. Each is kept only where the estimator says it shrinks what
/// every GPU holds at the GPU count the link allows (its `gpus` × `nodes`,
/// else a node of 8): ZeRO-3 shards nothing on one GPU; the five that
/// shrink it most are named, largest saving first. Where none does, half
/// the sequence length.
fn nofit_tries(cfg: &Settings, job: &TrainJob<'_>) -> Vec<String> {
    let adapters = cfg.task == Task::Finetune && cfg.method != Method::Full;
    let most = cfg.gpus.map_or(8, |g| g.saturating_mul(cfg.nodes).max(1));
    let mut candidates: Vec<(&str, String)> = Vec::new();
    // An RL fine-tune's adapter is its own key (`method` names the RL method).
    let adapter = if cfg.rl.is_some() { "adapter" } else { "method" };
    match cfg.method {
        _ if cfg.task != Task::Finetune => {}
        Method::Full => candidates.extend([(adapter, "lora".to_string()), (adapter, "qlora".to_string())]),
        // A 4-bit base is a quarter of the 16-bit one LoRA keeps.
        Method::Lora => candidates.push((adapter, "qlora".to_string())),
        Method::Qlora => {}
    }
    if cfg.zero.is_some_and(|z| z < 3) && cfg.trainer != Trainer::Unsloth {
        candidates.push(("zero", "3".to_string()));
    }
    candidates.extend(
        [Trainer::Unsloth, Trainer::Axolotl, Trainer::Torchtune]
            .into_iter()
            .filter(|t| *t != cfg.trainer)
            .map(|t| ("trainer", t.as_str().to_string())),
    );
    if !job.offload_activations {
        candidates.push(("act_offload", "1".to_string()));
    }
    if cfg.gc != Checkpointing::Full {
        candidates.push(("gc", "full".to_string()));
    }
    if cfg.mb() > 1 {
        candidates.push(("mb", "1".to_string()));
    }
    if !cfg.param_offload && job.stack.can_offload_params {
        candidates.push(("param_offload", "1".to_string()));
    }
    let now = job.memory(f64::from(most)).total();
    let mut shrink: Vec<(String, f64)> = candidates
        .into_iter()
        .filter_map(|(key, value)| {
            let c = changed(cfg, key, &value)?;
            let after = TrainJob::new(job.model, &c).memory(f64::from(most)).total();
            (after < 0.99 * now).then(|| (format!("{key}={value}"), after))
        })
        .collect();
    // The five that shrink it most, largest saving first.
    super::super::order::sort_by(&mut shrink, &|x, y| x.1.total_cmp(&y.1));
    let mut tries: Vec<String> = shrink.into_iter().take(5).map(|(t, _)| t).collect();
    // Megatron-LM has pipeline stages but no adapters: an adapter
    // fine-tune under it is planned as a full one, which needs more memory;
    // stages need more than one GPU.
    if !job.parallel.pipeline && !adapters && most > 1 {
        tries.push("trainer=megatron".to_string());
    }
    if tries.is_empty() {
        tries.push(format!("seq={}", (cfg.seq / 2).max(16)));
    }
    tries
}

/// Where the link's `gpus` is an instance size no offer of the GPU has,
/// and the plan holds the job on that many GPUs of it: the shape, not the
/// memory, is what no offer runs; the note names the sizes offered.
fn shape_missing(cfg: &Settings, a: &Answer) -> Option<Msg> {
    let want = cfg.gpus?;
    let on_gpu: Vec<_> = a.offers.iter().filter(|o| *o.gpu == *a.memory.gpu).collect();
    let other_size = |o: &&super::super::answer::OfferResult| {
        o.reason_msgs.iter().any(|m| matches!(m.key, "reason.gpus_short" | "reason.gpus_more"))
    };
    if on_gpu.is_empty() || a.offers.iter().any(|o| o.fits) || !on_gpu.iter().all(other_size) {
        return None;
    }
    let need = a.memory.total_bytes / f64::from(a.memory.gpus.max(1));
    if !on_gpu.iter().any(|o| o.usable_bytes >= need) {
        return None;
    }
    let mut sizes: Vec<u32> = on_gpu.iter().map(|o| o.gpus).collect();
    // Through the one compiled sort (`core::order`).
    super::super::order::sort_by(&mut sizes, &|x, y| x.cmp(y));
    sizes.dedup();
    let sizes: Vec<String> = sizes.iter().map(u32::to_string).collect();
    Some(
        Msg::new("g.train.noshape")
            .arg("want", want.to_string())
            .arg("gpu", a.memory.gpu.clone())
            .arg("gpus", a.memory.gpus.to_string())
            .arg("need", gib1(need))
            .arg("sizes", sizes.join(", ")),
    )
}

/// The configuration with one key changed as the plan would run it (what
/// `resolve` does for the stack: Unsloth has no ZeRO, a stack without
/// parameter offload keeps the parameters, parameter offload is ZeRO-3's).
fn changed(cfg: &Settings, key: &str, value: &str) -> Option<Settings> {
    let mut c = cfg.config().clone();
    match (key, value) {
        ("method" | "adapter", v) => c.method = if v == "qlora" { Method::Qlora } else { Method::Lora },
        ("zero", _) => c.zero = Some(3),
        ("trainer", v) => c.trainer = Trainer::parse(v)?,
        ("act_offload", _) => c.act_offload = Some(true),
        ("gc", _) => c.gc = Checkpointing::Full,
        ("mb", _) => c.mb = Some(1),
        ("param_offload", _) => {
            c.param_offload = true;
            c.zero = Some(3);
        }
        _ => return None,
    }
    Some(resolve::restack(c))
}
