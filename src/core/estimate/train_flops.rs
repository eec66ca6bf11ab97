//! Training FLOPs and the bytes a step moves over the host link: the
//! model FLOPs per token as model-FLOPs utilisation counts them, the FLOPs
//! a GPU really executes, the share of a step FP8 speeds up, and what
//! activation, parameter and optimizer offload send to CPU memory.
//! Methods of [`TrainJob`]; the step time that uses them is in `train`.

use super::super::catalog::gpus::MAMF_REFERENCE_FRACTION;
use super::super::catalog::Gpu;
use super::super::config::{Checkpointing, Method};
use super::super::precision::{self, Compute};
use super::train::{Layout, TrainJob};

impl TrainJob<'_> {
    /// Model FLOPs per token, counted as model-FLOPs utilisation counts
    /// them (see module docs): the utilisation constants (`train::mfu`) are
    /// published MFUs, so a step's time is these FLOPs over MFU × peak.
    /// Recomputation's extra forward is not added: the runs behind the
    /// constants recompute (llm-foundry's and torchtitan's 70B rows fully),
    /// and their MFU already carries its cost.
    pub fn flops_per_token(&self) -> f64 {
        self.linear_flops_per_token() + self.attention_flops_per_token()
    }

    /// The weights' matmuls: 6·N, or 4·N for adapters over frozen weights.
    pub(super) fn linear_flops_per_token(&self) -> f64 {
        let passes = if self.method == Method::Full { 6.0 } else { 4.0 };
        passes * self.model.params_active
    }

    /// Attention scores and their weighted sum, forward and backward:
    /// 12·layers·d_attn·seq per token, the whole seq × seq matrix, as
    /// Narayanan et al. 2021 (eq. 3, the s/6h term) and Chowdhery et al.
    /// 2022 (PaLM, App. B: 6N + 12·L·H·Q·T) count it; llm-foundry's MFU
    /// column counts the same (`attn_flops_per_seq = n_layers·2·2·d_model·seq²`,
    /// three passes). The gradients flow through attention with adapters too.
    fn attention_flops_per_token(&self) -> f64 {
        let m = self.model;
        12.0 * f64::from(m.layers) * f64::from(m.heads) * f64::from(m.head_dim) * self.seq
    }

    /// FLOPs the GPU executes per token: the model's plus the forward that
    /// full recomputation runs again (a physical bound on a run's speed).
    pub fn hardware_flops_per_token(&self) -> f64 {
        let recompute = if self.gc == Checkpointing::Full { (self.linear_flops_per_token() + self.attention_flops_per_token()) / 3.0 } else { 0.0 };
        self.flops_per_token() + recompute
    }

    /// Share of a 16-bit step's time that FP8 speeds up, and by how much:
    /// Transformer Engine (and torchtitan's float8 training) run the
    /// linear layers' GEMMs in FP8; attention stays in 16 bits
    /// (`DelayedScaling.fp8_dpa` is off by default in
    /// NVIDIA/TransformerEngine transformer_engine/common/recipe), the output
    /// layer too (torchtitan's float8 converter skips it: `filter_fqns = "output"` in pytorch/torchtitan@01424cb2 torchtitan/models/llama3/train_configs/llama3_8b.toml), and so do
    /// norms, activations, optimizer and communication. Of a step at
    /// utilisation `mfu` the GEMMs take mfu / g of the time, g the share of
    /// peak a long GEMM sustains (its MAMF: H100 SXM 794.5 of 989 TFLOPS,
    /// stas00/ml-engineering); FP8 divides that part by its rate over the
    /// 16-bit one and leaves the rest. H100, Llama 8B at 2k tokens: about
    /// 1.3× (torchtitan measured 1.48× with Float8 on its 500 W H100s, t036
    /// vs t038; llm-foundry's MPT FP8 rows sit near 1.3×), not the 2× of
    /// the peaks' ratio.
    pub fn fp8_time_factor(&self, gpu: &Gpu, mfu: f64) -> f64 {
        if self.compute(gpu) != Compute::Fp8 {
            return 1.0;
        }
        let (bf16, fp8) = (precision::tensor_flops(gpu, Compute::Bf16), precision::tensor_flops(gpu, Compute::Fp8));
        if fp8 <= bf16 || bf16 <= 0.0 {
            return 1.0;
        }
        let gemm_share_of_peak = gpu.mamf_bf16_tflops.filter(|_| gpu.bf16_tflops > 0.0).map_or(MAMF_REFERENCE_FRACTION, |x| x / gpu.bf16_tflops);
        let m = self.model;
        let passes = if self.method == Method::Full { 6.0 } else { 4.0 };
        let fp8_flops = passes * m.active_body_params();
        let time_share = (fp8_flops / self.flops_per_token()) * (mfu / gemm_share_of_peak.max(mfu)).min(1.0);
        1.0 - time_share * (1.0 - bf16 / fp8)
    }

    /// Bytes of checkpointed activations one micro-batch sends to CPU memory
    /// and back per GPU: each layer's input (hidden values at 16 bits) per
    /// token, out in the forward and back in the backward.
    pub(super) fn offloaded_activation_bytes(&self, l: Layout) -> f64 {
        if !self.offload_activations {
            return 0.0;
        }
        let layers = f64::from(self.model.layers) / f64::from(l.pp.max(1));
        2.0 * self.mb * self.seq * layers * f64::from(self.model.hidden) * self.train_bytes / f64::from(l.tp.max(1))
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
        let grad_bytes = if self.method == Method::Full && !self.stack.fp32_grads { self.train_bytes } else { 4.0 };
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
