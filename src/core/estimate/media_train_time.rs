//! Time of an image-model fine-tune (`task=finetune` with an image model):
//! seconds per optimizer step on one GPU, and the run's hours from its
//! optimizer steps (`train_steps`). The model, its sources and its
//! held-out figures: `docs/image-training-time.md`.
//!
//! A micro-batch runs the denoiser forward and backward at the link's
//! resolution and micro-batch, timed by the media estimator's forward pass
//! ([`MediaJob::forward_pass`], the inference-fitted efficiency of the
//! model's class), times:
//! - weight matmuls: 1 forward + 1 backward for the input gradients of a
//!   frozen base (LoRA, QLoRA), + 1 more for the weight gradients of full
//!   training (backward ≈ 2× forward, Kaplan et al. 2020 §2.1);
//! - attention: 1 forward + 2.5 backward (FlashAttention-2's backward runs
//!   5 matmuls against the forward's 2, Dao 2023, arXiv 2307.08691 §3.1);
//! - CUDA-core work and kernel launches (host): 1 forward + 2 backward;
//! - gradient checkpointing: one more forward of everything (Chen et al.
//!   2016, arXiv 1604.06174: "one additional forward pass");
//! - QLoRA: bitsandbytes dequantizes every 4-bit weight to 16 bits before
//!   each matmul that uses it (forward, backward, recomputation:
//!   `MatMul4Bit` in bitsandbytes-foundation/bitsandbytes
//!   bitsandbytes/autograd/_functions.py calls `dequantize_4bit` in forward
//!   and backward), reading 4-bit and writing 16-bit weights at the memory
//!   bandwidth;
//! - text encoders and VAE encoder, unless their outputs are precomputed
//!   (`enc_offload`): the prompt through the text encoders (2·params FLOPs
//!   per token) and the image through the VAE encoder (2/3 of the decoder:
//!   the CompVis `Encoder` has `num_res_blocks` ResNet blocks per level, the
//!   `Decoder` `num_res_blocks + 1`, ldm/modules/diffusionmodules/model.py).
//!
//! A micro-batch takes the longer of its GPU time and its host time
//! (launches are asynchronous); a counted UNet's host time is its blocks'
//! kernels ([`unet_blocks`], [`UNET_KERNELS`]) at its inference cost per
//! kernel, the backward's from C++ (`train_clock.rs`). An optimizer step runs its micro-batches
//! (gradient accumulation), all-reduces the gradients across data-parallel
//! GPUs once ([`allreduce::allreduce_s`], in series: an upper bound, DDP
//! overlaps buckets with the backward) and steps the optimizer: a
//! memory-bound pass over the trainable parameters, their fp32 gradients
//! and states, plus the launches of an optimizer that loops over tensors in
//! Python ([`optimizer_kernels_per_tensor`]). The whole step is divided by [`TRAIN_LOOP_EFFICIENCY`], the
//! one factor fitted on the fit split of `tests/data/image_finetune.csv`.

use super::super::catalog::media::MediaArch;
use super::super::catalog::Gpu;
use super::super::config::{Checkpointing, Method, Optim};
use super::allreduce;
use super::media::HOST_S_UNET_FORWARD;
use super::media::VAE_DECODE_FLOPS_PER_PIXEL;
use super::media_train::{lora_projections, unet_blocks, MediaTrainJob, UnetBlocks, SD15_UNET};
use super::train_clock::{CPP_S_PER_KERNEL, HOST_S_PER_KERNEL, LORA_KERNELS};
use crate::core::precision::{self, Compute};

/// Achieved over modelled time of a training step, the median of
/// predicted/measured seconds per optimizer step over the fit rows of
/// `tests/data/image_finetune.csv` (split by source; `tests/it/estimate/image_train_time.rs`
/// refits it and fails when this differs, and scores the held-out rows).
pub const TRAIN_LOOP_EFFICIENCY: f64 = 1.09;

/// Micro-batches per optimizer step without `gbs`: the documented example
/// commands of the diffusers DreamBooth LoRA scripts accumulate 4
/// (`--gradient_accumulation_steps=4` in examples/dreambooth/README_sdxl.md,
/// README_flux.md and research_projects/flux_lora_quantization/README.md,
/// huggingface/diffusers@58eb52c0 / @33cb7a3c), the commands whose step
/// counts are [`default_train_steps`].
pub const DEFAULT_ACCUMULATION: f64 = 4.0;

/// Kernels an eager forward pass launches per block of a diffusers UNet
/// (huggingface/diffusers src/diffusers/models/): a `BasicTransformerBlock`
/// (attention.py) 24 — three LayerNorms, per attention (`AttnProcessor2_0`,
/// attention_processor.py) `to_q`, `to_k`, `to_v`, SDPA, the head-merge
/// copy, `to_out.0` and the division by `rescale_output_factor` (2 × 7),
/// the GEGLU feed-forward's projection, GELU, product and output linear
/// (4), three residual adds; a `ResnetBlock2D` (resnet.py) 12 — two
/// GroupNorms and SiLUs, two convolutions, the time embedding's SiLU,
/// linear and broadcast add, the shortcut convolution, the residual add
/// and the division by `output_scale_factor`; a `Transformer2DModel`
/// wrapper 6 (GroupNorm, two layout copies, `proj_in`, `proj_out`, the
/// residual add); a sampler 2 (interpolation or stride, convolution); the
/// stem 15 (sinusoidal timestep embedding, its two linears and SiLU,
/// `conv_in`, the output norm, SiLU and `conv_out`).
const UNET_KERNELS: UnetBlocks = UnetBlocks { transformer: 24.0, resnet: 12.0, wrappers: 6.0, samplers: 2.0 };
const UNET_STEM_KERNELS: f64 = 15.0;

/// LoRA-adapted projections per `BasicTransformerBlock`: `to_q`, `to_k`,
/// `to_v`, `to_out.0` of its two attentions (the diffusers SDXL LoRA
/// script's `target_modules`, examples/dreambooth/train_dreambooth_lora_sdxl.py).
const UNET_LORA_PROJECTIONS: f64 = 8.0;

/// Kernels one parameter tensor costs an optimizer that steps each tensor
/// from Python: transformers' `Adafactor.step` (src/transformers/
/// optimization.py) on a factored (2-D) tensor without relative step —
/// the parameter's RMS (2), the squared gradient plus eps (2), the row and
/// column moment updates (6), `_approx_sq_grad` (5), the product with the
/// gradient (1), the RMS clip (5), the learning rate (1), the update (2):
/// 24; bitsandbytes' 8-bit AdamW (`Optimizer8bit.step` loops over the
/// parameters, one blockwise update kernel each): 1. PyTorch's AdamW and
/// SGD default to the multi-tensor `foreach` path on CUDA (torch/optim/
/// optimizer.py `_default_to_fused_or_foreach`), a few launches for all
/// tensors together: 0 per tensor.
fn optimizer_kernels_per_tensor(optim: Optim) -> f64 {
    match optim {
        Optim::Adafactor => 24.0,
        Optim::Adamw8bit => 1.0,
        Optim::Adamw | Optim::Sgd | Optim::SgdMomentum => 0.0,
    }
}

/// Text tokens a CLIP-only model encodes per prompt (CLIP's 77-token context).
const CLIP_TOKENS: f64 = 77.0;

/// The documented example's optimizer steps for the method:
/// `--max_train_steps=700` for QLoRA (huggingface/diffusers@33cb7a3c
/// examples/research_projects/flux_lora_quantization/README.md; the
/// huggingface/blog flux-qlora.md run also 700), `--max_train_steps=500`
/// for LoRA and DreamBooth (examples/dreambooth/README_sdxl.md,
/// README_flux.md, and the full `train_dreambooth_flux.py` example,
/// huggingface/diffusers@58eb52c0).
pub fn default_train_steps(method: Method) -> u32 {
    match method {
        Method::Qlora => 700,
        _ => 500,
    }
}

/// One optimizer step on one GPU, by part (seconds; GPU parts before the
/// loop efficiency, `total_s` after it).
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct StepTime {
    /// Denoiser forward and backward of every micro-batch.
    pub denoiser_s: f64,
    /// The extra forward of gradient checkpointing.
    pub recompute_s: f64,
    /// QLoRA's 4-bit → 16-bit dequantization of the base weights.
    pub dequant_s: f64,
    /// Text encoders and VAE encoder when their outputs are not cached.
    pub encoders_s: f64,
    /// Host (kernel-launch) time where it exceeds the GPU time.
    pub host_s: f64,
    /// Gradient all-reduce across data-parallel GPUs.
    pub sync_s: f64,
    /// The optimizer's pass over the trainable parameters.
    pub optimizer_s: f64,
    pub micro_batches: f64,
    pub total_s: f64,
}

impl StepTime {
    /// The part that takes the most time (message key suffix for the guidance).
    pub fn dominant(&self) -> &'static str {
        let parts = [
            ("denoiser", self.denoiser_s),
            ("recompute", self.recompute_s),
            ("dequant", self.dequant_s),
            ("encoders", self.encoders_s),
            ("host", self.host_s),
            ("sync", self.sync_s),
            ("optimizer", self.optimizer_s),
        ];
        parts.iter().fold(("denoiser", f64::MIN), |best, p| if p.1 > best.1 { *p } else { best }).0
    }
}

impl MediaTrainJob<'_> {
    /// Micro-batches per optimizer step on `dp` data-parallel GPUs: `gbs`
    /// images per step over `mb` × `dp`, else [`DEFAULT_ACCUMULATION`].
    pub fn micro_batches(&self, gbs: Option<u32>, dp: u32) -> f64 {
        match gbs {
            Some(g) => (f64::from(g) / (self.mb * f64::from(dp.max(1)))).ceil().max(1.0),
            None => DEFAULT_ACCUMULATION,
        }
    }

    /// Seconds of one optimizer step on one of `dp` GPUs of the same type.
    pub fn step_time(&self, gpu: &Gpu, micro_batches: f64, dp: u32) -> StepTime {
        let mut j = self.job.clone();
        j.batch = self.mb.max(1.0) as u32;
        let fwd = j.forward_pass(gpu);
        let full = self.method == Method::Full;
        let gc = if self.gc == Checkpointing::None { 0.0 } else { 1.0 };
        let lin_k = if full { 3.0 } else { 2.0 };
        // LoRA adapters: forward, input and weight gradients over the micro-batch's tokens.
        let adapters = if full {
            0.0
        } else {
            6.0 * self.trainable_params() * j.sequence_tokens() * self.mb
                / precision::tensor_flops(gpu, Compute::Bf16).max(1.0)
        };
        let denoiser = lin_k * fwd.linear_s + 3.5 * fwd.attention_s + 3.0 * fwd.cuda_core_s + adapters;
        let recompute = gc * (fwd.linear_s + fwd.attention_s + fwd.cuda_core_s);
        let dequant = if self.job.precision.body_bits < 8.0 && self.method != Method::Full {
            let m = self.model();
            let bytes = m.denoiser_params.unwrap_or(0.0) * (self.job.precision.body_bits / 8.0 + 2.0);
            (2.0 + gc) * bytes / gpu.bandwidth_bytes_per_s().max(1.0)
        } else {
            0.0
        };
        let encoders = if self.job.enc_offload { 0.0 } else { self.encoder_s(gpu) };
        let gpu_micro = denoiser + recompute + dequant + encoders;
        let host_micro = match self.unet_forward_kernels() {
            // Python launches the forward (again under checkpointing) at the
            // UNet's inference cost per kernel; the C++ autograd engine two
            // backward kernels per forward kernel.
            Some(k) => k * unet_s_per_kernel() * (1.0 + gc) + 2.0 * k * CPP_S_PER_KERNEL,
            None => (3.0 + gc) * fwd.host_s,
        };
        let host = (host_micro - gpu_micro).max(0.0);
        let grads = self.trainable_params() * 4.0;
        let sync = if dp > 1 { allreduce::allreduce_s(gpu, dp, grads) } else { 0.0 };
        let optimizer = self.trainable_params() * self.optimizer_step_bytes()
            / gpu.bandwidth_bytes_per_s().max(1.0)
            + self.trainable_tensors() * optimizer_kernels_per_tensor(self.optim) * HOST_S_PER_KERNEL;
        let n = micro_batches.max(1.0);
        let raw = n * (gpu_micro + host) + sync + optimizer;
        StepTime {
            denoiser_s: n * denoiser,
            recompute_s: n * recompute,
            dequant_s: n * dequant,
            encoders_s: n * encoders,
            host_s: n * host,
            sync_s: sync,
            optimizer_s: optimizer,
            micro_batches: n,
            total_s: raw / TRAIN_LOOP_EFFICIENCY,
        }
    }

    /// Kernels of one eager training forward of a UNet whose blocks are
    /// counted ([`unet_blocks`]): the blocks' kernels ([`UNET_KERNELS`]),
    /// and for LoRA and QLoRA PEFT's five per adapted projection
    /// ([`LORA_KERNELS`], `src/core/estimate/train_clock.rs`).
    fn unet_forward_kernels(&self) -> Option<f64> {
        let b = unet_blocks(&self.model().id)?;
        let adapters = if self.method == Method::Full {
            0.0
        } else {
            b.transformer * UNET_LORA_PROJECTIONS * LORA_KERNELS
        };
        Some(unet_kernels(&b) + adapters)
    }

    /// Parameter tensors the optimizer steps: LoRA's A and B per adapted
    /// projection; for full training, a UNet's per counted block
    /// (`BasicTransformerBlock` 20: three norms' weights and biases, six
    /// projection weights, three biases, GEGLU's two linears' weights and
    /// biases; `ResnetBlock2D` 12; wrapper 6) or 20 per DiT block.
    fn trainable_tensors(&self) -> f64 {
        let m = self.model();
        let blocks = unet_blocks(&m.id);
        match (self.method, blocks) {
            (Method::Full, Some(b)) => 20.0 * b.transformer + 12.0 * b.resnet + 6.0 * b.wrappers,
            (Method::Full, None) => 20.0 * f64::from(m.layers.unwrap_or(0)),
            (_, Some(b)) => 2.0 * UNET_LORA_PROJECTIONS * b.transformer,
            (_, None) => 2.0 * lora_projections(&m.id).unwrap_or(4.0 * f64::from(m.layers.unwrap_or(0))),
        }
    }

    /// The prompt through the text encoders (2·params per token, at the
    /// model's joint text length or CLIP's 77) and the images through the
    /// VAE encoder, for one micro-batch, at the 16-bit tensor rate and the
    /// class's efficiency.
    fn encoder_s(&self, gpu: &Gpu) -> f64 {
        let m = self.model();
        let rate = precision::tensor_flops(gpu, Compute::Bf16).max(1.0)
            * super::media::efficiency(self.job.efficiency_class());
        let tokens = f64::from(m.joint_text_tokens.unwrap_or(0)).max(CLIP_TOKENS);
        let text = 2.0 * m.text_encoder_params.unwrap_or(0.0) * tokens;
        let pixels = f64::from(self.job.width) * f64::from(self.job.height);
        let vae = if m.arch == MediaArch::Ar { 0.0 } else { VAE_DECODE_FLOPS_PER_PIXEL * pixels * 2.0 / 3.0 };
        self.mb * (text + vae) / rate
    }

    /// Bytes the optimizer step moves per trainable parameter: the fp32
    /// parameter read and written (8), its fp32 gradient read (4), and the
    /// states read and written (AdamW 2 × 8, 8-bit AdamW 2 × 2, momentum
    /// 2 × 4, Adafactor's factored second moment ≈ 0).
    fn optimizer_step_bytes(&self) -> f64 {
        let states = match self.optim {
            Optim::Adamw => 16.0,
            Optim::Adamw8bit => 4.0,
            Optim::SgdMomentum => 8.0,
            Optim::Sgd | Optim::Adafactor => 0.0,
        };
        12.0 + states
    }

    /// Hours of `steps` optimizer steps.
    pub fn run_hours(&self, gpu: &Gpu, steps: u32, micro_batches: f64, dp: u32) -> f64 {
        f64::from(steps) * self.step_time(gpu, micro_batches, dp).total_s / 3600.0
    }
}

/// Kernels of an eager inference forward of a UNet with blocks `b`.
fn unet_kernels(b: &UnetBlocks) -> f64 {
    let k = UNET_KERNELS;
    b.transformer * k.transformer
        + b.resnet * k.resnet
        + b.wrappers * k.wrappers
        + b.samplers * k.samplers
        + UNET_STEM_KERNELS
}

/// Host seconds per kernel of an eager diffusers UNet forward: the fitted
/// host time of an SD 1.5 inference forward ([`HOST_S_UNET_FORWARD`],
/// diffusers' torch2.0 benchmark, host-bound at batch 1) over its kernels
/// (16 transformer blocks, 22 ResNets, 16 wrappers, 6 samplers: 771),
/// about 59 µs: the bare launch gap (33 µs, [`HOST_S_PER_KERNEL`]) plus
/// diffusers' Python per module.
fn unet_s_per_kernel() -> f64 {
    HOST_S_UNET_FORWARD / unet_kernels(&SD15_UNET)
}
