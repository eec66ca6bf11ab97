//! The data × tensor × pipeline layouts of a training job on a GPU count:
//! which the model can take, the fastest that fits, and the fewest GPUs
//! some layout fits (`plan::train` plans with them).

use super::super::catalog::Gpu;
use super::super::estimate::train::{mfu, Layout, TrainJob, PP_DEGREES, TP_DEGREES};
use super::train_zero::Candidate;

/// The layouts of `n` GPUs that the model can take, tensor parallel inside
/// groups of `per_node`.
fn layouts<'j>(job: &'j TrainJob<'_>, n: u32, per_node: u32) -> impl Iterator<Item = Layout> + 'j {
    TP_DEGREES.into_iter().filter(move |tp| *tp <= per_node.max(1)).flat_map(move |tp| {
        PP_DEGREES.into_iter().filter_map(move |pp| {
            let mp = tp * pp;
            (n % mp == 0).then_some(Layout { dp: n / mp, tp, pp }).filter(|l| job.splits(*l))
        })
    })
}

/// Of the layouts of `n` GPUs that fit in `cap` bytes per GPU, the one with
/// the most tokens/s (data parallel alone when it fits and is fastest),
/// in `train_zero`'s order: one with memory to spare first, and over GPUs
/// without NVLink/NVSwitch (`scale_up` false) tensor parallelism only
/// where no layout without it fits.
pub fn best_layout(
    job: &TrainJob<'_>,
    gpu: &Gpu,
    n: u32,
    per_node: u32,
    cap: f64,
    links: (f64, f64),
    scale_up: bool,
) -> Option<(Layout, f64)> {
    let eff = mfu(gpu, job.method);
    let (dp_link, tp_link) = links;
    // The margin against `cap`, as the offer's `usable_bytes` is ranked.
    let rank = |l: &Layout| {
        (!Candidate::roomy(cap, job.memory_layout(*l).total()), Candidate::pcie_tp(l.tp, scale_up))
    };
    layouts(job, n, per_node)
        .filter(|l| job.memory_layout(*l).total() <= cap)
        .map(|l| (l, job.tokens_per_s(gpu, eff, l, dp_link, tp_link)))
        .max_by(|a, b| {
            rank(&b.0)
                .cmp(&rank(&a.0))
                .then(a.1.total_cmp(&b.1))
                .then(b.0.tp.cmp(&a.0.tp))
                .then(b.0.pp.cmp(&a.0.pp))
        })
}

/// The smallest GPU count among `counts` (ascending) that some layout fits
/// and that is at least `at_least`. For one (tp, pp) the per-GPU memory is
/// A + B/dp (ZeRO shards B over the data-parallel replicas; A is what every
/// replica keeps), so two evaluations give the replicas needed.
pub fn smallest_fitting(
    job: &TrainJob<'_>,
    counts: &[u32],
    per_node: u32,
    cap: f64,
    at_least: u32,
) -> Option<u32> {
    // Usually the first count that is large enough already fits.
    let first = counts.iter().copied().find(|n| *n >= at_least)?;
    if layouts(job, first, per_node).any(|l| job.memory_layout(l).total() <= cap) {
        return Some(first);
    }
    let mut best: Option<u32> = None;
    for tp in TP_DEGREES.into_iter().filter(|tp| *tp <= per_node.max(1)) {
        for pp in PP_DEGREES {
            if !job.splits(Layout { dp: 1, tp, pp }) {
                continue;
            }
            let mp = tp * pp;
            let mem = |dp: u32| job.memory_layout(Layout { dp, tp, pp }).total();
            let (m1, m2) = (mem(1), mem(2));
            let dp_needed = if m1 <= cap {
                1.0
            } else {
                let sharded = 2.0 * (m1 - m2);
                let kept = m1 - sharded;
                if sharded <= 0.0 || kept >= cap {
                    continue;
                }
                (sharded / (cap - kept)).ceil()
            };
            let threshold = (dp_needed * f64::from(mp)).max(f64::from(at_least));
            let start = counts.partition_point(|n| f64::from(*n) < threshold);
            let found = counts
                .iter()
                .skip(start)
                .copied()
                .filter(|n| n % mp == 0)
                .take(4)
                .find(|n| mem(n / mp) <= cap);
            if let Some(n) = found {
                best = Some(best.map_or(n, |b| b.min(n)));
            }
        }
    }
    best
}
