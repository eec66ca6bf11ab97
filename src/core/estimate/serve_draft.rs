//! The drafter's share of a serving step (`spec`): its passes per verify
//! step, its weights and its KV cache, as methods of [`ServeJob`] beside
//! the serving roofline they reuse (the model of speculation is
//! `estimate::spec`).

use super::super::catalog::Gpu;
use super::super::config::{Engine, Spec};
use super::arch;
use super::serve::{Plan, ServeJob};
use super::spec::VLLM_DRAFT_PASS_S;

fn draft_pass_host_s(engine: Engine) -> f64 {
    if engine == Engine::Vllm {
        VLLM_DRAFT_PASS_S
    } else {
        0.0
    }
}

impl ServeJob<'_> {
    /// The drafter's `k` passes for `batch` sequences at context `ctx`: its
    /// own roofline step, less the scheduler's fixed cost, which the engine
    /// pays once per verify step. N-gram lookup: none.
    pub fn draft_s(&self, gpu: &Gpu, plan: Plan, batch: f64, ctx: f64) -> f64 {
        let Some(d) = self.spec.as_deref() else { return 0.0 };
        let Some(model) = &d.model else { return 0.0 };
        let job = ServeJob {
            model,
            format: d.format,
            spec: None,
            shared_prefix: 0.0,
            image_tokens: 0.0,
            images: 0.0,
            vision_flops: 0.0,
            ..self.clone()
        };
        let (pass, _) = job.pass_s(gpu, plan, batch, 1.0, ctx);
        d.k * ((pass - self.factors(gpu).step_overhead_s).max(0.0) + draft_pass_host_s(self.engine))
    }

    /// The drafter's weights on one GPU (split as the target's, the engines
    /// running the draft with the target's tensor-parallel size by default).
    pub fn draft_weights_per_gpu(&self, plan: Plan) -> f64 {
        let Some(d) = self.spec.as_deref() else { return 0.0 };
        let Some(model) = &d.model else { return 0.0 };
        // A draft model is a whole model in the target's format; a head or MTP layer is body weights.
        let bytes = if d.method == Spec::Draft {
            arch::weight_bytes(model, &d.format, d.format.body_bits)
        } else {
            d.stored_params * d.format.body_bits / 8.0
        };
        bytes / f64::from(plan.gpus().max(1))
    }

    /// The drafter's KV cache of one sequence at full context on one GPU.
    pub fn draft_kv_per_seq_per_gpu(&self, plan: Plan) -> f64 {
        let Some(d) = self.spec.as_deref() else { return 0.0 };
        let Some(model) = &d.model else { return 0.0 };
        let job = ServeJob { model, spec: None, ..self.clone() };
        job.kv_per_seq_per_gpu(plan, self.context_tokens())
    }
}
