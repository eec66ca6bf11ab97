//! The time of one tensor-parallel all-reduce of the hidden state, over the
//! link the GPUs of a group share.
//!
//! One fabric (NVLink/NVSwitch/xGMI, or PCIe alone): a ring all-reduce moves
//! 2·(n−1)/n of the message through each GPU's link (Patarasuk & Yuan 2009),
//! plus a fixed latency ([`engine::allreduce_latency_s`]).
//!
//! NVLink-bridged PCIe cards (H100 PCIe and H100 NVL, A100 PCIe, RTX A6000:
//! a bridge joins two cards, not more) run it in two levels, as NCCL's
//! hierarchical all-reduce does across fast islands (Jia et al. 2018,
//! "Highly Scalable Deep Learning Training System with Mixed-Precision",
//! §3.3): a reduce-scatter inside each bridged pair (half the message over
//! NVLink), an all-reduce of each GPU's half among the n/2 pairs over PCIe,
//! an all-gather inside the pair. The fixed latency is spread over a
//! ring's 2·(n−1) steps: the pair's steps at NVLink's latency, the
//! inter-pair ring's 2·(n/2−1) at PCIe's.

use super::super::catalog::gpus::FormFactor;
use super::super::catalog::Gpu;
use super::engine;
use super::serve_plan::Plan;

/// Whether a GPU's NVLink is a bridge between two cards (PCIe and NVL boards).
pub fn bridged_pairs(gpu: &Gpu) -> bool {
    gpu.nvlink_gbps > 0.0 && matches!(gpu.form_factor, FormFactor::Pcie | FormFactor::Nvl)
}

/// NVLink bridge bandwidth, GB/s both directions, of a PCIe card whose row
/// has none, for offers that list their cards as NVLink-bridged: the H100
/// PCIe's "NVLink: 600GB/s" (NVIDIA H100 Tensor Core GPU datasheet, PCIe
/// column, "2-way NVLink bridge") and the A100 PCIe's "NVIDIA NVLink Bridge
/// for 2 GPUs: 600GB/s" (NVIDIA A100 Tensor Core GPU datasheet).
pub fn bridge_gbps(gpu: &Gpu) -> Option<f64> {
    match gpu.id.as_str() {
        _ if gpu.nvlink_gbps > 0.0 => None,
        "h100-pcie-80gb" | "a100-pcie-80gb" | "a100-pcie-40gb" => Some(600.0),
        _ => None,
    }
}

/// Seconds for one all-reduce of `msg` bytes over a group of `tp` GPUs.
pub fn allreduce_s(gpu: &Gpu, tp: u32, msg: f64) -> f64 {
    if tp <= 1 {
        return 0.0;
    }
    let n = f64::from(tp);
    let nvlink = gpu.nvlink_gbps > 0.0;
    if !(bridged_pairs(gpu) && tp > 2) {
        return engine::allreduce_latency_s(nvlink)
            + 2.0 * (n - 1.0) / n * msg / gpu.link_bytes_per_s(nvlink);
    }
    let pairs = (n / 2.0).floor();
    let steps = 2.0 * (n - 1.0);
    let latency = (2.0 * engine::allreduce_latency_s(true)
        + 2.0 * (pairs - 1.0) * engine::allreduce_latency_s(false))
        / steps;
    // Reduce-scatter and all-gather in the pair: each moves half the message over NVLink.
    let pair = msg / gpu.link_bytes_per_s(true);
    let across = 2.0 * (pairs - 1.0) / pairs * (msg / 2.0) / gpu.link_bytes_per_s(false);
    latency + pair + across
}

/// Seconds of the collectives of one pass of a plan's stage over the
/// hidden states of its tokens (`msg` bytes): two all-reduces per layer
/// under tensor parallelism (Shoeybi et al. 2019, Megatron-LM §3); expert
/// parallelism without data-parallel attention keeps them (the MoE output is
/// all-reduced over the group as tensor parallelism's is).
///
/// Under data-parallel attention each layer gathers every rank's tokens for
/// the FFN and experts and scatters the sums back: an all-gather and a
/// reduce-scatter of the group's tokens, the bytes of one ring all-reduce
/// (each moves (n−1)/n of the message through each GPU), plus the
/// attention's own all-reduce inside each rank of more than one GPU. That
/// is the engines' default dispatch: vLLM's `VLLM_ALL2ALL_BACKEND` defaults
/// to "allgather_reducescatter" (vllm-project/vllm vllm/envs.py
/// @f218f9c24d224800e0ea4488aa71bd8215c8bdcd: "all2all implementation based
/// on allgather and reducescatter"), SGLang's `--moe-a2a-backend` to
/// `none`, which "Uses All-Reduce or All-Gather for token dispatch"
/// (sgl-project/sglang docs/advanced_features/expert_parallelism.md
/// @020017c4965d9224b6f353e557daa093c59c4835). DeepEP's all-to-all kernels,
/// which send each token only to its experts' GPUs, need their own install
/// and flags, which the launch does not set.
pub fn pass_s(gpu: &Gpu, plan: Plan, layers: u32, msg: f64) -> f64 {
    let layers = f64::from(layers);
    if plan.dp > 1 {
        let rank = if plan.tp > 1 { allreduce_s(gpu, plan.tp, msg / f64::from(plan.dp)) } else { 0.0 };
        return layers * (allreduce_s(gpu, plan.group(), msg) + rank);
    }
    if plan.tp <= 1 {
        return 0.0;
    }
    2.0 * layers * allreduce_s(gpu, plan.tp, msg)
}
