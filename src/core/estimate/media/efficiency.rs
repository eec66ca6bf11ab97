//! The fitted constants of a job's class: GPU efficiency (achieved / ideal)
//! and host (CPU) launch time per layer pass. It only states the factors
//! and which class a model falls in; fitting them is `tools::media_fit`'s
//! (`whichgpu calibrate tests/data/media_measurements.csv --fit` prints what
//! the fit rows give for every constant here and in `speed.rs`;
//! `tests/it/estimate/media.rs` fails when one differs), and applying them is
//! `speed.rs`'s.

use super::job::MediaJob;
use crate::core::catalog::media::{MediaArch, MediaKind, MediaModel};

/// Class of the fitted efficiency factor: one per family (image, video,
/// audio), with image split by architecture and audio by mechanism, because
/// one image factor puts FLUX 100 % off (UNets reach ~35 % of peak, large
/// DiT GEMMs ~60 %) and audio mixes a bandwidth and a compute roofline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EffClass {
    /// Convolutional UNets (SD 1.x, SDXL): many small kernels, GroupNorm.
    ImageUnet,
    /// Image diffusion transformers (FLUX, SD3, PixArt): large GEMMs.
    #[default]
    ImageDit,
    /// Video diffusion transformers: long sequences, attention-heavy.
    Video,
    /// Autoregressive audio decoders, bandwidth-bound at small batch.
    ArAudio,
    /// Flow / diffusion transformers over audio frames (F5-TTS, Stable Audio).
    FlowAudio,
}

impl EffClass {
    pub fn as_str(self) -> &'static str {
        match self {
            EffClass::ImageUnet => "image-unet",
            EffClass::ImageDit => "image-dit",
            EffClass::Video => "video",
            EffClass::ArAudio => "ar-audio",
            EffClass::FlowAudio => "flow-audio",
        }
    }

    pub fn of(model: &MediaModel) -> EffClass {
        match (model.kind, model.arch) {
            (MediaKind::Audio, MediaArch::Ar) => EffClass::ArAudio,
            (MediaKind::Audio, _) => EffClass::FlowAudio,
            (MediaKind::Video, _) => EffClass::Video,
            (MediaKind::Image, MediaArch::Unet) => EffClass::ImageUnet,
            (MediaKind::Image, _) => EffClass::ImageDit,
        }
    }
}

/// Achieved / ideal, fitted as the median of ideal/measured over the fit
/// rows (`split` = fit) of `tests/data/media_measurements.csv` of each class
/// (refit: `whichgpu calibrate tests/data/media_measurements.csv --fit`,
/// `tools::media_fit::fit`; `tests/it/estimate/media.rs` fails if these drift;
/// held-out rows are scored by `tests/it/estimate/media_holdout.rs`, never fitted).
///
/// - Image UNet 0.635: 15 GPU-bound diffusers rows of SD 1.5 and SDXL (A100,
///   V100, T4, RTX 3090, RTX 4090), with the CUDA-core work
///   ([`UNET_VECTOR_FLOPS_PER_TOKEN`]) and the host floor beside it.
/// - Image DiT 0.48: 6 FLUX.1-dev rows (A100, H100; BF16, FP16, NF4, int8
///   weight-only), attention at [`super::attention_share`] of the rate, and
///   the SM issue time ([`DIT_LINEAR_FLOPS_PER_SM_CYCLE`]) beside it.
/// - Video 0.73: 6 CogVideoX-5b rows (A100, H100; the official figures
///   and the diffusers-torchao table), likewise.
/// - Flow / diffusion audio 0.525: 2 Stable Audio Open fit rows (a T4 at
///   its power-capped matmul rate, `Gpu::sustained_fraction`, and an RTX
///   3090). The F5-TTS rows are host-bound.
/// - AR audio: every measured row is host-bound (see
///   [`host_s_per_unit`]), so none can fit a GPU efficiency; it
///   borrows the bandwidth factor fitted for Hugging Face transformers
///   decode on the serving calibration (0.52, `engine.rs`).
pub fn efficiency(class: EffClass) -> f64 {
    match class {
        EffClass::ImageUnet => 0.635,
        EffClass::ImageDit => 0.56,
        EffClass::FlowAudio => 0.525,
        EffClass::Video => 0.73,
        EffClass::ArAudio => 0.52,
    }
}

/// Host (CPU) time in PyTorch eager mode: Python dispatch and one launch
/// per kernel. Small models at batch 1 are bound by it rather than by the
/// GPU (the same clip takes about as long on an RTX 3090 as on an RTX 5090
/// in the audio rows). Fitted by `tools::media_fit::fit` on the host-bound fit rows,
/// per unit of [`MediaJob::host_units_per_layer_pass`]:
///
/// - Autoregressive decoders: seconds per kernel launch, times the kernels
///   a decoder layer launches per step in the model's implementation
///   (`eager_kernels_per_layer`: Bark's nanoGPT block 13, XTTS-v2's GPT-2
///   block 27), so a leaner layer is cheaper to step.
/// - Diffusion / flow transformers: seconds per layer pass (3 F5-TTS fit
///   rows; the sampler's per-step work rides on it); image and
///   video rows are GPU-bound by a wide margin, so the same figure never
///   decides their time.
///
/// - UNets: seconds per UNet forward (one per step: diffusers' SD and SDXL
///   pipelines concatenate the conditional and unconditional latents into
///   one call, `torch.cat([latents] * 2)`). An eager SD 1.5 forward
///   launches on the order of a thousand kernels (16 transformer blocks,
///   22 ResNet blocks, samplers), so at batch 1 the host sets the pace: the
///   same pipeline runs 22 it/s on an A100 and on an RTX 3090, 41 on an RTX
///   4090 with a faster CPU (diffusers torch2.0 benchmark). Fitted on the
///   host-bound fit rows.
pub fn host_s_per_unit(class: EffClass) -> f64 {
    match class {
        EffClass::ArAudio => HOST_S_AR_KERNEL,
        EffClass::ImageUnet => HOST_S_UNET_FORWARD,
        _ => HOST_S_DIFFUSION,
    }
}

pub const HOST_S_UNET_FORWARD: f64 = 0.0457;

/// Work of a UNet pass that runs on the CUDA cores rather than the tensor
/// cores — GroupNorm, SiLU, residual adds, time-embedding broadcasts and
/// the softmax around every convolution and attention — per latent token
/// per pass, in FP32-operation equivalents at the GPU's FP32 (non-tensor)
/// rate. It grows with the activation planes (latent tokens), not with the
/// tensor FLOPs: SDXL's extra FLOPs sit in transformer blocks at low
/// resolution. It is why a GeForce card with 4× an A100's CUDA-core rate
/// (RTX 4090 82.6 vs 19.5 TFLOPS FP32) but half its tensor rate keeps pace
/// with it on SD 1.5 (3.17 vs 3.04 it/s at batch 16, diffusers torch2.0
/// benchmark). The figure is an effective cost (it also absorbs the memory
/// traffic of those operations), fitted with the UNet efficiency on the fit
/// rows (`tools::media_fit::fit` searches it in steps of 0.5 M).
pub const UNET_VECTOR_FLOPS_PER_TOKEN: f64 = 28.5e6;

/// Weight-matmul FLOPs a diffusion transformer's passes complete per SM
/// cycle of the work that does not overlap the tensor cores (instruction
/// issue, address arithmetic, and the normalisation, modulation, rotary and
/// activation work around every GEMM, which run on the SM's CUDA cores and
/// scale with SMs × clock, not with the tensor rate): a pass takes FLOPs /
/// (tensor rate × efficiency) + FLOPs / (this × [`super::sm_cycles_per_s`]).
/// A part with many tensor FLOPs per SM cycle pays more of it: an H100 SXM
/// has 3,779 dense BF16 FLOPs per SM cycle (989 TFLOPS over 261.7 G
/// cycles/s), an A100 2,048, an H20 861, an L20 516 (119.5 over 231.8 G), so
/// the smaller parts reach a larger share of their peak (FLUX.1-dev at
/// 1024², 28 steps: 26.4 s on an L20, 14.3–15.7 s on an A100, 7.1 s on an
/// H100 — 1.8× and 3.7× for 2.6× and 8.3× the peak). Attention has no
/// such term: FlashAttention-2's ceiling ([`super::attention_share`]) is
/// that limit for it (the fit, given a separate constant for attention
/// FLOPs, pushed it to the end of its grid). Fitted with the image-DiT and
/// video efficiencies on the GPU-bound fit rows of both classes
/// (`tools::media_fit::fit`: a grid of 250, the mean log error, both
/// efficiencies kept at or below 1).
pub const DIT_LINEAR_FLOPS_PER_SM_CYCLE: f64 = 3000.0;

pub const HOST_S_AR_KERNEL: f64 = 13.7e-6;
pub const HOST_S_DIFFUSION: f64 = 1.277e-3;

/// Kernels per decoder layer when the table has no count: a GPT-2-style
/// layer with fused attention (the median of the counted models).
pub const DEFAULT_AR_KERNELS: f64 = 22.0;

impl<'a> MediaJob<'a> {
    /// What the host constant of the class is per, for one layer pass:
    /// kernels per layer for an autoregressive decoder, 1 otherwise.
    pub fn host_units_per_layer_pass(&self) -> f64 {
        match self.efficiency_class() {
            EffClass::ArAudio => self.model.eager_kernels_per_layer.unwrap_or(DEFAULT_AR_KERNELS),
            _ => 1.0,
        }
    }

    /// Units of the host constant in the whole job: UNet forwards (one per
    /// step), or layer passes × [`MediaJob::host_units_per_layer_pass`].
    pub fn host_units(&self) -> f64 {
        match self.efficiency_class() {
            EffClass::ImageUnet => f64::from(self.steps),
            _ => self.layer_passes() * self.host_units_per_layer_pass(),
        }
    }

    /// Host seconds of one layer pass (see [`host_s_per_unit`]).
    pub fn host_s_per_layer_pass(&self) -> f64 {
        self.host_units_per_layer_pass() * host_s_per_unit(self.efficiency_class())
    }

    pub fn efficiency_class(&self) -> EffClass {
        EffClass::of(self.model)
    }
}
