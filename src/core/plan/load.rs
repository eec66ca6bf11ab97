//! Serving load given as a request rate: how many copies of a plan carry
//! it, and the sequences each keeps in flight (Little's law). Pure
//! arithmetic on the estimator's latency; no pricing.

use super::super::catalog::Gpu;
use super::super::estimate::serve::{Plan, ServeJob};

/// A request rate on one plan: the copies that carry it, the sequences
/// each keeps in flight, and the share of each copy's time its arriving
/// prompts take to prefill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Load {
    pub batch: f64,
    pub copies: u32,
    pub prefill_share: f64,
}

/// The fewest copies of a plan that carry a request rate, and the
/// sequences each keeps in flight: for k copies each takes rps/k, and its
/// concurrency b solves b = (rps/k) × latency(b); the first k whose b
/// settles within what a copy holds (Little's law, Little 1961: L = λ·W,
/// solved by fixed-point iteration from one sequence). `None` when 256
/// copies do not.
///
/// A copy also prefills every prompt that arrives: at rate λ with p
/// seconds of GPU time per prompt, a share u = λ·p of its time goes to
/// prefill, and the decode of the sequences in flight gets the rest, so a
/// request's decode takes 1/(1 − u) as long (vLLM's scheduler runs
/// waiting prompts' prefill chunks in the same steps as the running
/// sequences' decode, `max_num_batched_tokens` shared between them; the
/// time-sharing is the processor-sharing queue's, Kleinrock 1967). A copy
/// with u ≥ 1 cannot keep up at any concurrency: more copies. p is the
/// prompt's share of a pass that packs as many prompts as a copy holds,
/// the least GPU time a prompt can take, so the share is never overstated.
pub fn little(job: &ServeJob<'_>, gpu: &Gpu, plan: Plan, rps: f64) -> Option<Load> {
    let most = f64::from(job.max_batch(gpu, plan));
    if most < 1.0 {
        return None;
    }
    let prompt = job.new_prompt_tokens();
    let per_prompt_s = (job.vision_s(gpu, plan, most) + job.prefill_s(gpu, plan, prompt, most)) / most;
    (1..=256u32).find_map(|k| {
        let rate = rps / f64::from(k);
        let share = rate * per_prompt_s;
        if share.is_nan() || share >= 1.0 {
            return None;
        }
        let mut b = 1.0;
        for _ in 0..40 {
            let s = job.speed(gpu, plan, b);
            let latency =
                s.time_to_first_token_s + (s.request_latency_s - s.time_to_first_token_s) / (1.0 - share);
            let next = (rate * latency).max(1.0);
            if next > most {
                return None;
            }
            if (next - b).abs() < 0.01 * b {
                return Some(Load { batch: next.ceil(), copies: k, prefill_share: share });
            }
            b = next;
        }
        None
    })
}
