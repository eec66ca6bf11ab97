//! Serving load given as a request rate: how many copies of a plan carry
//! it, and the sequences each keeps in flight (Little's law). Pure
//! arithmetic on the estimator's latency; no pricing.

use super::super::catalog::Gpu;
use super::super::estimate::serve::{Plan, ServeJob};

/// The fewest copies of a plan that carry a request rate, and the
/// sequences each keeps in flight: for k copies each takes rps/k, and its
/// concurrency b solves b = (rps/k) × latency(b); the first k whose b
/// settles within what a copy holds (Little's law, Little 1961: L = λ·W,
/// solved by fixed-point iteration from one sequence). `None` when 256
/// copies do not.
pub fn little(job: &ServeJob<'_>, gpu: &Gpu, plan: Plan, rps: f64) -> Option<(f64, u32)> {
    let most = f64::from(job.max_batch(gpu, plan));
    if most < 1.0 {
        return None;
    }
    (1..=256u32).find_map(|k| {
        let rate = rps / f64::from(k);
        let mut b = 1.0;
        for _ in 0..40 {
            let next = (rate * job.speed(gpu, plan, b).request_latency_s).max(1.0);
            if next > most {
                return None;
            }
            if (next - b).abs() < 0.01 * b {
                return Some((next.ceil(), k));
            }
            b = next;
        }
        None
    })
}
