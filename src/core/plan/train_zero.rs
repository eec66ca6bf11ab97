//! The ZeRO / FSDP stage of a training plan when the link names none
//! (`Config::zero_stages`): each stage the stack runs is planned, and the
//! plan kept is, in order, the one that fits, that meets the deadline,
//! that leaves memory to spare (the ranking's thin-margin rule,
//! `offers::thin_margin`), that needs no tensor parallelism over GPUs
//! joined only by PCIe, on the fewest GPUs, the fastest, and the least
//! sharded.
//!
//! Why tensor parallelism over PCIe comes last: it exchanges every layer's
//! activations four times per micro-batch in the critical path (Shoeybi et
//! al. 2019 §3), where sharded data parallelism moves each parameter three
//! times per step and overlaps it with compute (ZeRO §7.2.2; FSDP's
//! prefetch). Megatron-LM keeps tensor parallelism inside an NVLink domain
//! ("tensor model parallel … within a node", Narayanan et al. 2021 §3.3,
//! Takeaway #1) and the fine-tuning stacks shard data-parallel replicas
//! (FSDP, DeepSpeed ZeRO) across PCIe cards.

use std::cmp::Ordering;

use super::super::units::GIB;

/// What decides between the plans of one job at different stages.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    pub fits: bool,
    pub meets: bool,
    /// More than a GiB, and more than 3 % of the usable memory, to spare.
    pub roomy: bool,
    /// Tensor parallelism over a link that is not NVLink/NVSwitch.
    pub pcie_tp: bool,
    /// GPUs of the whole job.
    pub gpus: u32,
    /// Training tokens/s.
    pub tps: f64,
    pub zero: u8,
}

impl Candidate {
    /// Whether tensor parallelism of `tp` crosses a PCIe-only link.
    pub fn pcie_tp(tp: u32, scale_up: bool) -> bool {
        tp > 1 && !scale_up
    }

    /// Memory to spare by the ranking's rule (`offers::thin_margin`, which
    /// this layer cannot import).
    pub fn roomy(usable: f64, need: f64) -> bool {
        usable - need >= GIB.max(0.03 * usable)
    }

    /// `Less` when `self` is the better plan.
    pub fn order(&self, other: &Candidate) -> Ordering {
        other
            .fits
            .cmp(&self.fits)
            .then(other.meets.cmp(&self.meets))
            .then(other.roomy.cmp(&self.roomy))
            .then(self.pcie_tp.cmp(&other.pcie_tp))
            .then(self.gpus.cmp(&other.gpus))
            .then(other.tps.total_cmp(&self.tps))
            .then(self.zero.cmp(&other.zero))
    }
}

/// Plans the stages in increasing order (`stages` of them; `plan(i)`
/// gives the plan, its candidate and whether its layout splits no layers,
/// tp = pp = 1) and keeps the best, with its index. It stops once the best
/// cannot be beaten: it fits, meets the deadline, leaves room and splits
/// no layers on `least` GPUs, the fewest the shape allows; a higher stage
/// runs that layout no faster (the same traffic or more: ZeRO-2 exchanges
/// every micro-batch, ZeRO-3 gathers the parameters too) on no fewer GPUs,
/// and ties go to the lower stage. (The training evaluation stays near the
/// cost of one stage where one GPU or plain data parallelism holds the job.)
pub fn search<P>(
    stages: usize,
    least: u32,
    mut plan: impl FnMut(usize) -> (P, Candidate, bool),
) -> Option<(P, usize)> {
    let mut best: Option<(P, Candidate, bool, usize)> = None;
    for i in 0..stages {
        let (p, c, whole) = plan(i);
        if best.as_ref().is_none_or(|(_, b, _, _)| c.order(b) == Ordering::Less) {
            best = Some((p, c, whole, i));
        }
        if best
            .as_ref()
            .is_some_and(|(_, b, whole, _)| b.fits && b.meets && b.roomy && *whole && b.gpus <= least)
        {
            break;
        }
    }
    best.map(|(p, _, _, i)| (p, i))
}
