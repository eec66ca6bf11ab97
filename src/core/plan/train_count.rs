//! The GPU count a training offer runs a job on: the deadline's where the
//! offer reaches it, else its most, else the fewest that hold the job, with
//! the fits and layouts worked out once per key ([`FitCache`]).

use super::super::catalog::{Gpu, Offer};
use super::super::estimate::train::{Layout, TrainJob};
use super::super::settings::Settings;
use super::train_layouts::{best_layout, smallest_fitting};
use super::train_speed::{gpus_for_deadline, DEFAULT_INTER_NODE_BYTES_PER_S};

/// Computed once per shape: the smallest fitting GPU count, which depends
/// only on the memory per GPU, the GPUs per node or instance, whether
/// several nodes or instances may be used and the deadline's GPU count
/// (shared by every GPU type of the same capacity); and per offer shape the
/// fastest layout at that count over given links. GPUs are keyed by their
/// place in the catalog (the address of its entry), cheaper to compare than
/// their ids.
#[derive(Default)]
pub(super) struct FitCache {
    pub(super) smallest: Vec<(FitKey, Option<u32>)>,
    pub(super) best: Vec<(LayoutKey, Option<(Layout, f64)>)>,
}

impl FitCache {
    pub(super) fn smallest(&mut self, key: FitKey, compute: impl FnOnce() -> Option<u32>) -> Option<u32> {
        if let Some((_, n)) = self.smallest.iter().find(|(k, _)| *k == key) {
            return *n;
        }
        let n = compute();
        self.smallest.push((key, n));
        n
    }
}

/// Usable bytes per GPU, GPUs per node or instance, several allowed, deadline GPUs, ZeRO stage.
type FitKey = (u64, u32, bool, u32, u8);

/// GPU, GPU count, GPUs per instance, data-parallel and tensor-parallel link speeds, ZeRO stage.
type LayoutKey = (usize, u32, u32, u64, u64, u8, bool);

/// Marks offer keys in `FitCache::smallest` (whose candidate counts differ
/// from the per-GPU plans'); deadlines never need 2³¹ GPUs.
const OFFER_KEY: u32 = 1 << 31;

/// What the offer's GPU-count search found: its count and layout (with the
/// layout's tokens/s), or none that holds the job.
pub(super) struct OfferCount {
    pub(super) found: Option<(u32, (Layout, f64))>,
    /// GPUs the deadline or the link asks for.
    pub(super) need: u32,
    /// The most GPUs the offer reaches.
    pub(super) most: u32,
    /// GPUs the link's `gpus` × `nodes` ask for (1 without them).
    pub(super) asked: u32,
    /// The bytes/s of the link tensor parallelism runs over.
    pub(super) tp_link: f64,
}

/// The offer's GPU count and layout: the deadline's count where the offer
/// reaches it, else its most GPUs, else the fewest that hold the job.
pub(super) fn offer_count(
    job: &TrainJob<'_>,
    cfg: &Settings,
    gpu: &Gpu,
    o: &Offer,
    cap: f64,
    cache: &mut FitCache,
) -> OfferCount {
    // Several instances over a published network: pipeline stages or
    // sharded data-parallel replicas across them.
    let multi = o.inter_node_gbps.is_some_and(|g| g >= super::shared::MIN_SPLIT_GBPS);
    // Add instances to meet a deadline, or to reach the GPUs the link asks
    // for (`gpus` per instance × `nodes`, as the per-GPU-type plan takes them).
    let asked = cfg.gpus.map_or(1, |g| g.saturating_mul(cfg.nodes).max(1));
    // A GPU count in the link is the shape rented: instances of exactly
    // `gpus` GPUs, `nodes` of them, every GPU one rank (docs/link-format.md `gpus`,
    // `nodes`); an instance of another size does not run that job.
    let counts: Vec<u32> = (1..=if multi { 64u32 } else { 1 })
        .map(|i| o.gpus * i)
        .filter(|n| cfg.gpus.is_none_or(|g| o.gpus == g && *n == asked))
        .collect();
    let need = if cfg.gpus.is_some() {
        asked
    } else {
        cfg.days.map_or(1, |d| gpus_for_deadline(job, cfg, gpu, d)).max(asked)
    };
    let scale_up = o.interconnect.is_scale_up();
    let tp_link = if scale_up { gpu.link_bytes_per_s(true) } else { gpu.pcie_peer_bytes_per_s() };
    let dp_link = |n: u32| {
        if n > o.gpus {
            o.inter_node_gbps.map_or(DEFAULT_INTER_NODE_BYTES_PER_S, |g| g * 1e9 / 8.0 / f64::from(o.gpus))
        } else {
            tp_link
        }
    };
    let gpu_key = std::ptr::from_ref(gpu) as usize;
    // None: no count reaches the deadline's GPUs, the offer cannot finish in time.
    // (Offer counts are multiples of the instance size, keyed apart from
    // the per-GPU plans' powers of two by the `multi` flag's place.)
    let mut locate = |at_least: u32| {
        let smallest = cache.smallest((cap.to_bits(), o.gpus, multi, at_least | OFFER_KEY, job.zero), || {
            smallest_fitting(job, &counts, o.gpus, cap, at_least)
        });
        smallest.and_then(|n| {
            let key = (gpu_key, n, o.gpus, dp_link(n).to_bits(), tp_link.to_bits(), job.zero, scale_up);
            let best = match cache.best.iter().find(|(k, _)| *k == key) {
                Some((_, b)) => *b,
                None => {
                    let b = best_layout(job, gpu, n, o.gpus, cap, (dp_link(n), tp_link), scale_up);
                    cache.best.push((key, b));
                    b
                }
            };
            Some((n, best?))
        })
    };
    // The deadline's GPU count where the offer reaches it; beyond its
    // reach, its most GPUs (the closest to the deadline, so "the fastest
    // that fits" is the fastest the offer can be); else the fewest that
    // hold the job (it fits, and `meets` says it is late).
    let most = counts.last().copied().unwrap_or(o.gpus);
    let mut found = locate(need)
        .or_else(|| if need > most && cfg.gpus.is_none() { locate(most) } else { None })
        .or_else(|| if need > 1 { locate(1) } else { None });
    // The count came from a data-parallel rate; the chosen layout may be
    // slower (pipeline bubbles, links). Iterate on its real speed.
    if let Some(days) = cfg.days {
        let tokens = job.job_tokens(cfg);
        for _ in 0..4 {
            let Some((n, (_, tps))) = found else { break };
            let hours = tokens / tps.max(1e-9) / 3600.0;
            if hours <= days * 24.0 {
                break;
            }
            let more =
                (f64::from(n) * hours / (days * 24.0) * 1.02).ceil().min(f64::from(u32::MAX / 2)) as u32;
            match locate(more.max(n + 1)) {
                Some(next) if next.0 > n => found = Some(next),
                _ => break,
            }
        }
    }
    OfferCount { found, need, most, asked, tp_link }
}
