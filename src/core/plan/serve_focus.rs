//! The serving plan's focus: the memory breakdown of the pick's plan (or
//! the link's GPU count) and the inverse questions on its GPU type.

use super::super::answer::{Answers, MemoryJson, OfferResult};
use super::super::catalog::support::Kind;
use super::super::catalog::{Gpu, Support};
use super::super::estimate::engine;
use super::super::estimate::engine_rules;
use super::super::estimate::serve::Plan;
use super::super::precision;
use super::serve::ServePlanner;
use super::shared::EngineSupport;

impl<'r> ServePlanner<'r> {
    /// The plan the memory breakdown and the inverse answers describe: the
    /// link's GPU count if it sets one, else the pick's own plan (its
    /// layout and sequences per replica), else the plan for the GPU type.
    fn focus_plan(&self, gpu: &Gpu, pick: Option<&OfferResult>) -> (Plan, f64) {
        let cfg = self.cfg;
        match (cfg.gpus, pick.filter(|p| *p.gpu == *gpu.id)) {
            (None, Some(p)) => (Plan { tp: p.tp, pp: p.pp, dp: p.dp.max(1), ep: p.ep }, p.batch),
            (Some(g), _) => {
                let plan = Plan::in_node(cfg.engine, g, cfg.nodes);
                (plan, self.job.resolve_batch(cfg.batch(), gpu, plan))
            }
            (None, None) => {
                let plan = self.plan_for(gpu).0;
                (plan, self.job.resolve_batch(cfg.batch(), gpu, plan))
            }
        }
    }

    pub fn focus(&self, gpu: &Gpu, pick: Option<&OfferResult>) -> (MemoryJson, Answers) {
        let (plan, batch) = self.focus_plan(gpu, pick);
        (self.memory_json(gpu, plan, batch), self.inverse_answers(gpu, plan, batch))
    }

    /// Memory for a plan on one GPU type.
    fn memory_json(&self, gpu: &Gpu, plan: Plan, batch: f64) -> MemoryJson {
        let per_gpu = self.job.memory(plan, batch);
        let n = f64::from(plan.gpus());
        let total = per_gpu.total() * n;
        let without_kv = per_gpu.total() - per_gpu.kv_cache;
        let reserved =
            engine::reserved_per_gpu(self.cfg.engine, per_gpu.total(), without_kv, gpu.memory_bytes()) * n;
        MemoryJson {
            weights_bytes: per_gpu.weights * n,
            kv_cache_bytes: per_gpu.kv_cache * n,
            activations_bytes: per_gpu.activations * n,
            overhead_bytes: per_gpu.overhead * n,
            ..super::shared::memory_json(
                total,
                reserved,
                batch,
                plan.gpus(),
                gpu.id.clone(),
                gpu.memory_bytes() * n,
            )
        }
    }

    /// The inverse questions on one GPU type for a plan and its sequences
    /// per copy: the longest context, the most sequences, the fewest GPUs
    /// and the widest format that fit.
    fn inverse_answers(&self, gpu: &Gpu, plan: Plan, batch: f64) -> Answers {
        let job = &self.job;
        let usable = job.usable_bytes(gpu);
        // Largest context: bisection on the total (KV grows monotonically with context).
        let fits_ctx = |ctx: f64| {
            let mut j = job.clone();
            j.input_tokens = (ctx - j.output_tokens - j.image_tokens).max(1.0);
            j.memory(plan, batch).total() <= usable
        };
        let max_ctx = if fits_ctx(job.output_tokens + job.image_tokens + 1.0) {
            let (mut lo, mut hi) = (job.output_tokens + job.image_tokens + 1.0, 1.0e8);
            for _ in 0..60 {
                let mid = (lo + hi) / 2.0;
                if fits_ctx(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let cap = job.model.max_context.map_or(lo, |m| lo.min(f64::from(m)));
            Some(cap.floor() as u64)
        } else {
            None
        };
        let max_batch = Some(job.max_batch(gpu, plan));
        let min_gpus = {
            let c = self.cfg.without_gpu_count();
            let (p, fits) = ServePlanner::new(job.clone(), &c, self.catalog).plan_for(gpu);
            fits.then_some(p.gpus())
        };
        // The formats the engine loads: GGUF for llama.cpp, the rest elsewhere;
        // only those the support matrix says it runs on this GPU (fp16 where
        // the card has no bf16).
        let formats: &[&str] = if super::super::engines::row(self.cfg.engine).gguf_only.value {
            &["gguf-f16", "gguf-q8_0", "gguf-q6_k", "gguf-q4_k_m", "gguf-q2_k"]
        } else {
            &["bf16", "fp16", "fp8", "int8", "int4-awq", "nf4"]
        };
        let matrix = self.matrix.get_or_init(|| EngineSupport::new(self.catalog, self.cfg.engine));
        let runs = |id: &&str| matrix.get(gpu.arch.as_str(), Kind::Weights, id) != Support::Unsupported;
        // (A format the engine refuses under this plan's layout is no answer: `engine_rules`.)
        let loads =
            |id: &&str| engine_rules::layout_refusal(job.model, id, self.cfg.engine, plan.layout()).is_none();
        let best = formats.iter().copied().filter(runs).filter(loads).find(|id| {
            precision::weight_format(id).is_some_and(|f| {
                let mut j = job.clone();
                j.format = f;
                j.memory(plan, batch).total() <= usable
            })
        });
        Answers {
            max_context_tokens: max_ctx,
            max_batch,
            min_gpus,
            best_weight_format: best.map(String::from),
            ..Answers::default()
        }
    }
}
