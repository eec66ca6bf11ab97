//! One optimizer step of a training job: its micro-batches (the pipeline's
//! and gradient accumulation's), their compute and the traffic between
//! GPUs, and the tokens/s that follow.

use super::super::catalog::Gpu;
use super::super::config::{Checkpointing, GenMode, Method};
use super::rl::RlStep;
use super::stack;
use super::train::{Layout, TrainJob};

/// Micro-batches per optimizer step: the pipeline's fewest
/// ([`Layout::micro_batches`]), or as many as fill the global batch of
/// `gbs` sequences when each of the dp ranks takes `mb` at a time
/// (gradient accumulation: PyTorch DDP's `no_sync`, DeepSpeed's
/// `gradient_accumulation_steps`, Megatron's global ÷ (micro × dp)), in
/// whole rounds of the pipeline's (torchtitan asks the global batch to be
/// a multiple of the local one).
pub fn micro_batches(l: Layout, mb: f64, gbs: Option<f64>) -> f64 {
    let pipeline = l.micro_batches();
    match gbs {
        Some(g) if g.is_finite() && g > 0.0 => {
            let needed = (g / (f64::from(l.dp.max(1)) * mb.max(1.0))).ceil();
            (pipeline * (needed / pipeline).ceil()).clamp(pipeline, 1e6)
        }
        _ => pipeline,
    }
}

impl TrainJob<'_> {
    /// Tokens/s of the job under a layout: the training clock's
    /// ([`TrainJob::train_tokens_per_s`]), or an RL run's trained tokens
    /// over its whole step (generation, scoring, update, sync: `estimate::rl`).
    pub fn tokens_per_s(&self, gpu: &Gpu, mfu: f64, l: Layout, dp_link: f64, tp_link: f64) -> f64 {
        match self.rl {
            Some(rl) => self
                .rl_step(gpu, mfu, l, rl.gen, dp_link, tp_link)
                .map_or(0.0, |s| s.sequences * rl.seq() / s.total().max(1e-9)),
            None => self.train_tokens_per_s(gpu, mfu, l, dp_link, tp_link),
        }
    }

    /// An RL run's step under a layout in a generation mode (`None`: not
    /// an RL job, or it cannot run so). The weights reach a split's vLLM
    /// server over the links inside the node.
    pub fn rl_step(
        &self,
        gpu: &Gpu,
        mfu: f64,
        l: Layout,
        mode: GenMode,
        dp_link: f64,
        tp_link: f64,
    ) -> Option<RlStep> {
        let rl = self.rl?;
        self.rl_step_of(
            &rl,
            gpu,
            l,
            mode,
            &|t| self.train_tokens_per_s(gpu, mfu, t, dp_link, tp_link),
            tp_link,
        )
    }

    /// Training tokens/s per GPU at linear-layer utilisation `mfu`, with the
    /// gradient all-reduce (ring: 2·(n−1)/n of the gradient bytes; Patarasuk
    /// & Yuan 2009) overlapping the backward pass (PyTorch DDP buckets), so
    /// a step takes the longer of the two.
    pub fn tokens_per_s_per_gpu(&self, gpu: &Gpu, mfu: f64, gpus: f64, link_bytes_per_s: f64) -> f64 {
        let n = if gpus.is_finite() { gpus.clamp(1.0, 1e7) as u32 } else { 1 };
        self.tokens_per_s(gpu, mfu, Layout::data(n), link_bytes_per_s, link_bytes_per_s) / f64::from(n)
    }

    /// Training tokens/s of the whole job under a layout. One pipeline
    /// step runs m micro-batches through pp stages in (m + pp − 1) stage
    /// times (1F1B; Narayanan et al. 2021 eq. 1 for the bubble); a stage
    /// time is its share of the FLOPs on tp GPUs plus the tensor-parallel
    /// all-reduces, 4 per layer per micro-batch (2 forward, 2 backward) of
    /// mb·seq·hidden 16-bit values (Shoeybi et al. 2019 §3), not overlapped.
    /// The data-parallel gradient all-reduce of the GPU's 1/(tp·pp) share
    /// overlaps the backward pass over `dp_link` (bytes/s per GPU).
    pub fn train_tokens_per_s(&self, gpu: &Gpu, mfu: f64, l: Layout, dp_link: f64, tp_link: f64) -> f64 {
        let (dp, tp, pp) = (f64::from(l.dp.max(1)), f64::from(l.tp.max(1)), f64::from(l.pp.max(1)));
        let mb_tokens = self.mb * self.seq;
        let stage_compute = mb_tokens * self.compute_s_per_token(gpu, mfu) / (tp * pp);
        let tp_comm = if tp > 1.0 {
            let layers = f64::from(self.model.layers) / pp;
            layers * 4.0 * 2.0 * (tp - 1.0) / tp * mb_tokens * f64::from(self.model.hidden) * 2.0
                / tp_link.max(1.0)
        } else {
            0.0
        };
        // Pipeline stages send each micro-batch's activations forward and
        // their gradients back: mb·seq·hidden 16-bit values each way per
        // stage boundary (Narayanan et al. 2021 §2.2), over the link between
        // stages (the data-parallel link when stages span instances).
        let pp_comm = if pp > 1.0 {
            2.0 * mb_tokens * f64::from(self.model.hidden) * 2.0 / dp_link.min(tp_link).max(1.0)
        } else {
            0.0
        };
        let m = micro_batches(l, self.mb, self.gbs);
        // The GPU's work on a micro-batch, or the host's launches where they
        // take longer (eager stacks), then the looped experts' serial time
        // (`train_clock`).
        let gpu_work = stage_compute + mb_tokens * self.elementwise_s_per_token(gpu, l);
        let unit = gpu_work.max(self.host_launch_s(l))
            + self.looped_expert_s(l)
            + self.zero3_collective_s(l)
            + self.dequant_s(gpu) / pp
            + tp_comm
            + pp_comm;
        let step_compute = (m + pp - 1.0) * unit;
        let grad_bytes = self.trainable_params() * 2.0 / (tp * pp);
        let t_comm = if dp > 1.0 { 2.0 * (dp - 1.0) / dp * grad_bytes / dp_link.max(1.0) } else { 0.0 };
        // ZeRO-3 / FSDP gathers every parameter before its forward and again
        // before its backward and reduce-scatters the gradients: 3Ψ of
        // traffic against data parallelism's 2Ψ (Rajbhandari et al. 2020,
        // ZeRO §7.2.2), so one more (dp−1)/dp of the shard's bytes. The
        // gathers are prefetched while the previous unit computes (FSDP's
        // `forward_prefetch` / `backward_prefetch`, DeepSpeed's
        // `stage3_prefetch_bucket_size`) and overlap compute like the
        // gradient buckets do.
        // Adapters train over a frozen base that is gathered twice per
        // micro-batch (before the forward and before the backward) while
        // only the adapters' gradients are reduced: 2Ψ of the base.
        let gathers = if self.method == Method::Full { 1.0 } else { 2.0 };
        let t_gather = if self.zero >= 3 && dp > 1.0 {
            gathers * (dp - 1.0) / dp * self.model.params_total * self.format.body_bits
                / 8.0
                / (tp * pp)
                / dp_link.max(1.0)
        } else {
            0.0
        };
        let host = stack::host_link_s(
            step_compute,
            m * self.offloaded_activation_bytes(l),
            self.offloaded_state_bytes(l),
            gpu.pcie_bytes_per_s(),
        );
        // With gradient accumulation the step runs in rounds of the
        // pipeline's micro-batches. DDP and ZeRO-1 (Megatron's distributed
        // optimizer) accumulate full gradients locally and exchange them
        // once per step, overlapping the last round's backward (PyTorch
        // `DistributedDataParallel.no_sync`; Megatron-LM@d98e8a64
        // megatron/core/distributed/distributed_data_parallel.py syncs on
        // the last micro-batch). ZeRO-2 keeps only its shard of the
        // gradients and ZeRO-3 only its shard of the parameters, so every
        // micro-batch reduce-scatters its gradients (and gathers the
        // parameters) again (Rajbhandari et al. 2020 §5.2, §5.3): that
        // traffic repeats each round and overlaps each round's compute.
        let round = (l.micro_batches() + pp - 1.0) * unit;
        let comm = t_comm + t_gather;
        let synced = if self.zero >= 2 {
            step_compute.max(m / l.micro_batches() * comm)
        } else {
            step_compute.max(step_compute - round + comm)
        };
        let step = synced + host + self.cpu_optimizer_s(gpu, l);
        if step > 0.0 {
            dp * m * mb_tokens / step
        } else {
            0.0
        }
    }

    /// Seconds one micro-batch spends dequantizing QLoRA's 4-bit base:
    /// bitsandbytes' `MatMul4Bit` (bitsandbytes-foundation/bitsandbytes@95f9af30
    /// bitsandbytes/autograd/_functions.py) turns every weight back into a
    /// 16-bit copy (`F.dequantize_4bit`) before its forward matmul and again
    /// before the backward's input-gradient matmul, and a recomputed forward
    /// does it once more; torchao's NF4 tensor, torchtune's QLoRA base, does
    /// the same (pytorch/ao torchao/dtypes/nf4tensor.py `LinearNF4`: forward
    /// `F.linear(input, weight.to(input.dtype))`, backward `grad_output @
    /// weight.to(grad_output.dtype)`). Each pass reads the
    /// 4-bit weights and writes the 16-bit copy, a memory-bound kernel at the
    /// card's bandwidth. The cost is per pass over the weights, not per
    /// token: it weighs on short micro-batches and fades on long ones.
    pub fn dequant_s(&self, gpu: &Gpu) -> f64 {
        if self.method != Method::Qlora {
            return 0.0;
        }
        let passes = if self.gc == Checkpointing::Full { 3.0 } else { 2.0 };
        passes * self.model.body_params() * (self.format.body_bits / 8.0 + self.train_bytes)
            / gpu.bandwidth_bytes_per_s().max(1.0)
    }
}
