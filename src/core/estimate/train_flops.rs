//! Training FLOPs and the time a step spends on them: the model FLOPs per
//! token as model-FLOPs utilisation counts them, the FLOPs a GPU really
//! executes (recomputation included), the linear layers' and the
//! attention kernels' time apart, the share of a step FP8 speeds up, and
//! what activation, parameter and optimizer offload send to CPU memory.
//! Methods of [`TrainJob`]; the step time that uses them is in `train`.
//!
//! Attention runs in its own kernels at its own share of the peak, not at
//! the linear layers' utilisation: FlashAttention-2 (Dao 2023, §4.1,
//! arXiv 2307.08691) counts a causal forward as 4·seq²·d_head·heads / 2
//! FLOPs and the backward as 2.5× the forward (five matmuls against two,
//! recomputing the scores); "FlashAttention-2 reaches up to 230 TFLOPs/s,
//! 73 % of the theoretical maximum" on an A100 (its attention benchmarks
//! span 50–73 %; forward and backward together sit at the low end, the
//! backward being the slower kernel), and the same kernels on an H100
//! reach "up to 335 TFLOPs/s" (§4.1, Fig. 8), 34 % of its 989. The
//! Triton FlashAttention that MosaicML's MPT configurations name
//! (`attn_impl: triton`, mosaicml/llm-foundry@15fb4ffa
//! scripts/train/yamls/pretrain/mpt-7b.yaml) runs the forward 1.3–1.5×
//! and the backward about 2× slower than FlashAttention-2 (same §4.1).

use super::super::catalog::gpus::MAMF_REFERENCE_FRACTION;
use super::super::catalog::Gpu;
use super::super::config::{Checkpointing, Method};
use super::super::precision::{self, Compute};
use super::train::{AttnKernel, Layout, TrainJob};

/// FlashAttention-2's forward + backward rate as a share of the dense
/// 16-bit peak (see module docs): A100 50 %, H100 335 / 989. Hopper's share
/// also stands for Blackwell (no published FlashAttention-2 figure), the
/// A100's for every other GPU FlashAttention-2 supports.
pub fn attention_share_of_peak(gpu: &Gpu) -> f64 {
    match gpu.arch.as_str() {
        "hopper" | "blackwell" => 335.0 / 989.0,
        _ => 0.50,
    }
}

/// FlashAttention-2 over Triton FlashAttention, forward and backward
/// (the middle of 1.3–1.5×, and 2×; Dao 2023 §4.1).
const TRITON_FWD_SLOWDOWN: f64 = 1.4;
const TRITON_BWD_SLOWDOWN: f64 = 2.0;

impl TrainJob<'_> {
    /// Model FLOPs per token, counted as model-FLOPs utilisation counts
    /// them: 6·N (4·N for adapters) plus the whole score matrix's
    /// 12·layers·d_attn·seq, no recomputation (Narayanan et al. 2021 eq. 3;
    /// PaLM App. B; llm-foundry's and torchtitan's MFU columns).
    pub fn flops_per_token(&self) -> f64 {
        self.linear_flops_per_token() + self.attention_flops_per_token()
    }

    /// The weights' matmuls: 6·N, or 4·N for adapters over frozen weights.
    pub(super) fn linear_flops_per_token(&self) -> f64 {
        let passes = if self.method == Method::Full { 6.0 } else { 4.0 };
        passes * self.model.params_active
    }

    /// Attention scores and their weighted sum, forward and backward, the
    /// whole seq × seq matrix: 12·layers·d_attn·seq per token.
    fn attention_flops_per_token(&self) -> f64 {
        12.0 * self.attn_width() * self.seq
    }

    /// layers · heads · head_dim.
    fn attn_width(&self) -> f64 {
        let m = self.model;
        f64::from(m.layers) * f64::from(m.heads) * f64::from(m.head_dim)
    }

    /// The share of the forward pass that recomputation runs again: all of
    /// it with full checkpointing; with op-level selective checkpointing
    /// every second matmul of the linear layers and no attention kernel
    /// (its output is saved); nothing otherwise.
    fn recomputed_linear_share(&self) -> f64 {
        match self.gc {
            Checkpointing::Full => 1.0,
            Checkpointing::Selective if self.stack.op_level_selective => 0.5,
            _ => 0.0,
        }
    }

    /// Linear-layer FLOPs the GPU executes per token: the model's plus the
    /// recomputed forward (2·N per recomputed pass).
    fn linear_hardware_flops_per_token(&self) -> f64 {
        self.linear_flops_per_token() + 2.0 * self.model.params_active * self.recomputed_linear_share()
    }

    /// Attention FLOPs the kernels execute per token, forward and backward:
    /// with flash attention the causal half (2·d_attn·seq per layer forward,
    /// the backward 2.5× that), the forward again under full checkpointing;
    /// without it the whole matrix, the backward twice the forward.
    fn attention_kernel_flops_per_token(&self) -> (f64, f64) {
        let full = self.gc == Checkpointing::Full;
        if self.flash {
            let fwd = 2.0 * self.attn_width() * self.seq;
            (fwd * if full { 2.0 } else { 1.0 }, 2.5 * fwd)
        } else {
            let fwd = 4.0 * self.attn_width() * self.seq;
            (fwd * if full { 2.0 } else { 1.0 }, 2.0 * fwd)
        }
    }

    /// FLOPs the GPU executes per token, recomputation included (a physical
    /// bound on a run's speed).
    pub fn hardware_flops_per_token(&self) -> f64 {
        let (fwd, bwd) = self.attention_kernel_flops_per_token();
        self.linear_hardware_flops_per_token() + fwd + bwd
    }

    /// Seconds of compute per token on one GPU: the linear layers'
    /// executed FLOPs at `eff` of the 16-bit peak (the fitted utilisation,
    /// `train::mfu`), less what FP8 saves, plus the attention kernels at
    /// their own rate (module docs); without flash attention the scores
    /// are ordinary matmuls at `eff`.
    pub fn compute_s_per_token(&self, gpu: &Gpu, eff: f64) -> f64 {
        let base = if self.compute(gpu) == Compute::Fp8 { Compute::Bf16 } else { self.compute(gpu) };
        let peak = precision::tensor_flops(gpu, base).max(1.0);
        let eff = eff.max(1e-3);
        let linear = self.linear_hardware_flops_per_token() / (eff * peak);
        let (fwd, bwd) = self.attention_kernel_flops_per_token();
        let attention = if self.flash {
            let (sf, sb) = match self.attn_kernel {
                AttnKernel::Flash2 => (1.0, 1.0),
                AttnKernel::TritonFlash => (TRITON_FWD_SLOWDOWN, TRITON_BWD_SLOWDOWN),
            };
            (fwd * sf + bwd * sb) / (attention_share_of_peak(gpu) * peak)
        } else {
            (fwd + bwd) / (eff * peak)
        };
        (linear - self.fp8_saved_s_per_token(gpu, eff, peak)).max(0.0) + attention
    }

    /// Seconds per token FP8 saves: Transformer Engine (and torchtitan's
    /// float8 training) run the body's linear GEMMs in FP8; attention stays
    /// in 16 bits (`DelayedScaling.fp8_dpa` is off by default in
    /// NVIDIA/TransformerEngine transformer_engine/common/recipe), the
    /// output layer too (torchtitan's float8 converter skips it:
    /// `filter_fqns = "output"` in pytorch/torchtitan@01424cb2
    /// torchtitan/models/llama3/train_configs/llama3_8b.toml), and so do
    /// norms, activations, optimizer and communication. The GEMMs run at
    /// the share of peak a long GEMM sustains (its MAMF: H100 SXM 794.5 of
    /// 989 TFLOPS, stas00/ml-engineering), never faster than the linear
    /// layers as a whole; FP8 divides their time by its rate over the 16-bit one.
    fn fp8_saved_s_per_token(&self, gpu: &Gpu, eff: f64, peak: f64) -> f64 {
        if self.compute(gpu) != Compute::Fp8 {
            return 0.0;
        }
        let (bf16, fp8) =
            (precision::tensor_flops(gpu, Compute::Bf16), precision::tensor_flops(gpu, Compute::Fp8));
        if fp8 <= bf16 || bf16 <= 0.0 {
            return 0.0;
        }
        let gemm_share = gpu
            .mamf_bf16_tflops
            .filter(|_| gpu.bf16_tflops > 0.0)
            .map_or(MAMF_REFERENCE_FRACTION, |x| x / gpu.bf16_tflops)
            .max(eff);
        let m = self.model;
        let passes =
            (if self.method == Method::Full { 6.0 } else { 4.0 }) + 2.0 * self.recomputed_linear_share();
        passes * m.active_body_params() / (gemm_share * peak) * (1.0 - bf16 / fp8)
    }

    /// Bytes of checkpointed activations one micro-batch sends to CPU memory
    /// and back per GPU: each layer's input (hidden values at 16 bits) per
    /// token, out in the forward and back in the backward.
    pub(super) fn offloaded_activation_bytes(&self, l: Layout) -> f64 {
        if !self.offload_activations {
            return 0.0;
        }
        let layers = f64::from(self.model.layers) / f64::from(l.pp.max(1));
        2.0 * self.mb * self.seq * layers * f64::from(self.model.hidden) * self.train_bytes
            / f64::from(l.tp.max(1))
    }

    /// Bytes a GPU moves over its host link per optimizer step for states
    /// kept in CPU memory: with parameter offload its shard of the weights
    /// twice (before the forward and before the backward) and its
    /// gradients once; with optimizer offload alone its gradients out and
    /// the updated weights back.
    pub(super) fn offloaded_state_bytes(&self, l: Layout) -> f64 {
        let mp = f64::from(l.tp.max(1)) * f64::from(l.pp.max(1));
        let dp = f64::from(l.dp.max(1));
        let trainable = self.trainable_params();
        let grad_bytes =
            if self.method == Method::Full && !self.stack.fp32_grads { self.train_bytes } else { 4.0 };
        if self.offload_params && self.zero >= 3 {
            let weights = self.model.params_total * self.format.body_bits.max(4.0) / 8.0;
            (2.0 * weights + trainable * grad_bytes) / mp / dp
        } else if self.optim_offload {
            let shard = if self.zero >= 1 { dp } else { 1.0 };
            trainable * (grad_bytes + self.train_bytes) / mp / shard
        } else {
            0.0
        }
    }
}
