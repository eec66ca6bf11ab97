//! Which layout a serving plan runs: the layouts the engine loads
//! (`engine_rules::layouts`: tensor parallel, expert parallel where tensor
//! parallelism is refused for an expert's width, data-parallel attention
//! for a latent-attention mixture of experts), the smallest that holds the
//! job, and among the larger or other ones the one that serves the users
//! best; the rule a refused layout breaks, for the offer's reasons.

use super::super::catalog::Gpu;
use super::super::config::{Batch, Engine, Sort};
use super::super::estimate::engine_rules::{self, layouts, layouts_at, Layout};
use super::super::estimate::serve::{Plan, ServeJob};
use super::super::messages::Msg;
use super::super::thresholds::{ABOVE_TIE, BELOW_TIE, NEAR_TIE};
use super::serve::{user_batch, ServePlanner};
use super::serve_speeds::OnGpu;

impl<'r> ServePlanner<'r> {
    /// The plan for a GPU type: the configuration's own GPU count if given
    /// (the first of its layouts that holds the job), else the smallest
    /// layout that fits, else whole nodes as pipeline stages.
    pub fn plan_for(&self, gpu: &Gpu) -> (Plan, bool) {
        let (job, cfg) = (&self.job, self.cfg);
        let fits = |plan: Plan| job.memory(plan, user_batch(cfg)).total() <= job.usable_bytes(gpu);
        let (e, model, format) = (cfg.engine, job.model, job.format.id);
        if let Some(g) = cfg.gpus {
            let mut first = None;
            for l in layouts_at(model, format, e, g) {
                let p = Plan::of_layout(e, l, cfg.nodes);
                if fits(p) {
                    return (p, true);
                }
                first = first.or(Some(p));
            }
            return (first.unwrap_or_else(|| Plan::in_node(e, g, cfg.nodes)), false);
        }
        let opts = layouts(model, format, e, gpu.gpus_per_node);
        for &l in &opts {
            let plan = Plan::of_layout(e, l, cfg.nodes);
            if fits(plan) {
                return (plan, true);
            }
        }
        let staged = Self::largest_staged(&opts);
        if !e.splits_layers() {
            for pp in cfg.nodes.max(2)..=64 {
                let plan = Plan::of_layout(e, staged, pp);
                if fits(plan) {
                    return (plan, true);
                }
            }
        }
        (Plan::of_layout(e, staged, cfg.nodes), false)
    }

    /// The plans an instance of `gpus` GPUs may run, in the order of
    /// [`engine_rules::layouts`]: the link's own GPU count's layouts (over
    /// its instances), else every layout whose group divides the instance.
    pub(super) fn candidates(&self, job: &ServeJob<'r>, gpus: u32) -> Vec<Plan> {
        let (cfg, e) = (self.cfg, self.cfg.engine);
        let (opts, nodes) = match cfg.gpus {
            Some(g) => (layouts_at(job.model, job.format.id, e, g), cfg.nodes),
            None => (layouts(job.model, job.format.id, e, gpus), 1),
        };
        let mut out = Vec::new();
        for l in opts {
            if cfg.gpus.is_some() || gpus % l.gpus() == 0 {
                out.push(Plan::of_layout(e, l, nodes));
            }
        }
        out
    }

    /// Of `cands`, the plan an instance of `gpus` GPUs runs: the first that
    /// holds the weights, replaced by a later one (a larger group, or
    /// another layout of the same GPUs) while it needs fewer instances for
    /// the users' sequences (more KV room per copy beats renting another
    /// node); ties keep the earlier one. `None` when none holds them.
    pub(super) fn best(&self, gpu: &Gpu, on: &OnGpu<'r>, gpus: u32, cands: &[Plan]) -> Option<Plan> {
        let (cfg, job, e) = (self.cfg, &on.job, self.cfg.engine);
        let usable = job.usable_bytes(gpu);
        let at = cands.iter().position(|p| job.memory(*p, 1.0).total() <= usable)?;
        let copies = |p: Plan| f64::from((gpus / p.per_node(e).max(1)).max(1));
        let instances_for = |p: Plan| {
            let per_copy = f64::from(on.max_batch(gpu, p));
            let wanted = match self.batch_on(job, gpu, p) {
                Batch::N(w) => f64::from(w),
                Batch::Max => return 1.0,
            };
            if per_copy < 1.0 {
                f64::MAX
            } else {
                (wanted / (per_copy * copies(p))).ceil()
            }
        };
        // A first-token limit first (a larger group prefills faster); for
        // speed or latency goals the faster plan; then the fewest instances.
        // Last, the box's output rate for the users' sequences: copies they
        // cannot fill stay idle, a larger group puts every GPU to work.
        let box_rate = |p: Plan| {
            let (per_copy, n) = (f64::from(on.max_batch(gpu, p)), copies(p));
            let wanted =
                if let Batch::N(w) = self.batch_on(job, gpu, p) { f64::from(w) } else { per_copy * n };
            if per_copy < 1.0 {
                return 0.0;
            }
            let busy = (wanted / per_copy).ceil().clamp(1.0, n);
            let b = (wanted / busy).ceil().max(1.0);
            // Requests a second (each of the same length): prefill and decode.
            busy * b / on.speed(gpu, p, b).request_latency_s.max(1e-9)
        };
        // (The single-sequence speed only where a first-token limit or a
        // speed goal reads it; an offline job's speed is the box's rate.)
        let speed_goal = matches!(cfg.sort, Sort::Speed | Sort::Latency) && !cfg.offline_job();
        let rank = |p: Plan| {
            let speed = (cfg.maxttft.is_some() || speed_goal).then(|| on.speed(gpu, p, 1.0));
            let late = speed.is_some_and(|s| cfg.maxttft.is_some_and(|m| s.time_to_first_token_s > m));
            let goal = speed.filter(|_| speed_goal).map_or(0.0, |s| s.request_latency_s);
            (late, goal, instances_for(p), box_rate(p))
        };
        // Another plan must serve 5 % more to be worth it.
        let better = |a: &(bool, f64, f64, f64), b: &(bool, f64, f64, f64)| {
            (!a.0 && b.0)
                || (a.0 == b.0
                    && (a.1 < b.1 * BELOW_TIE
                        || ((a.1 - b.1).abs() <= NEAR_TIE * b.1
                            && (a.2 < b.2 || (a.2 == b.2 && a.3 > b.3 * ABOVE_TIE)))))
        };
        let mut best = *cands.get(at)?;
        let mut best_rank = rank(best);
        for &p in cands.iter().skip(at + 1) {
            if job.memory(p, 1.0).total() <= usable {
                let r = rank(p);
                if better(&r, &best_rank) {
                    (best, best_rank) = (p, r);
                }
            }
        }
        Some(best)
    }
}

/// The layout helpers the planner's offer shapes call (`ServePlanner::shape`),
/// as associated functions so that `serve.rs` names none of this file.
impl ServePlanner<'_> {
    /// The largest tensor- or expert-parallel layout of `opts`, the one
    /// pipeline stages across instances repeat (data-parallel attention stays
    /// inside one node).
    pub(super) fn largest_staged(opts: &[Layout]) -> Layout {
        let mut out = Layout::tensor(1);
        for l in opts {
            if l.dp <= 1 {
                out = *l;
            }
        }
        out
    }

    /// The layout of one copy in words: tensor parallel, with expert parallel,
    /// or data-parallel attention.
    pub(super) fn layout_msg(e: Engine, plan: Plan) -> Msg {
        if plan.dp > 1 {
            Msg::new("layout.dp_attention")
                .num("dp", f64::from(plan.dp), 0)
                .num("tp", f64::from(plan.tp), 0)
                .num("gpus", f64::from(plan.group()), 0)
        } else if plan.ep && !e.splits_layers() {
            Msg::new("layout.ep").num("tp", f64::from(plan.tp), 0)
        } else {
            Msg::new("layout.tp").num("tp", f64::from(plan.tp), 0)
        }
    }

    /// Why an instance of `gpus` GPUs holds the job only in a layout the engine
    /// refuses: the smallest group that would hold the weights where no layout
    /// loads, named with the rule each layout tried breaks (`engine_rules`).
    pub(super) fn refused_fit(job: &ServeJob<'_>, e: Engine, gpus: u32, usable: f64) -> Vec<Msg> {
        let refused = engine_rules::tp_refused(job.model, job.format.id, e, gpus);
        let mut out = Vec::new();
        let mut at = None;
        for (n, r) in refused {
            if at.is_none() && gpus % n == 0 && job.memory(Plan::in_node(e, n, 1), 1.0).total() <= usable {
                at = Some(n);
            }
            if at == Some(n) {
                out.push(r.msg(e));
            }
        }
        out
    }
}
