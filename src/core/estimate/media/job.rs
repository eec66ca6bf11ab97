//! A media job: the model, its format and the request's shape, and the
//! memory and weights figures the estimator returns.

use super::super::super::catalog::media::MediaModel;
use super::super::super::precision::WeightFormat;
use super::super::super::units::GIB;

/// Channel planes alive at full resolution while the VAE decodes: the last
/// up-block of the SD/SDXL decoder (ch 128, ch_mult (1, 2, 4, 4): CompVis
/// v1-inference.yaml and generative-models sd_xl_base.yaml first_stage
/// ddconfig) takes the 256-channel upsampled tensor, and a ResnetBlock holds
/// its input, the normalised copy and the convolution output: ≈ 3 × 256
/// channels × H × W — the full-resolution decoder activations that
/// diffusers' `AutoencoderKL.enable_tiling()` exists to bound ("split the
/// input tensor into tiles ... useful to save a large amount of memory and
/// to allow the processing of larger images", huggingface/diffusers
/// src/diffusers/models/autoencoder_kl.py @94781b6); tiling is not modelled.
pub const VAE_DECODE_PLANES: f64 = 3.0 * 256.0;

/// Activation bytes per token per unit of width held while one transformer
/// block runs, forward only (no autograd): residual, normalised input and
/// attention output (4·h), Q/K/V and attention projections (2·h) and the MLP
/// intermediate (2 · 4h), at 2 bytes: 2 × (4 + 2 + 8) = 28 bytes × h — the
/// same accounting as `serve::ServeJob::activation_bytes` (after Korthikanti
/// et al. 2022, Table 2, without the stored-for-backward terms).
pub const ACT_BYTES_PER_TOKEN_PER_WIDTH: f64 = 28.0;

/// UNet activation width at the full latent resolution: `model_channels`
/// 320 in both SD 1.x (v1-inference.yaml) and SDXL (sd_xl_base.yaml).
pub const UNET_BASE_CHANNELS: f64 = 320.0;

/// Runtime memory outside the model: the CUDA context (~0.3–0.5 GiB,
/// PyTorch "CUDA semantics" notes) plus cuBLAS/cuDNN workspaces and the
/// caching allocator's slack.
pub const RUNTIME_OVERHEAD_BYTES: f64 = 0.75 * GIB;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MediaError {
    #[error("unknown precision `{0}`")]
    UnknownPrecision(String),
}

/// One generation job: `batch` images / clips at once on one GPU.
#[derive(Debug, Clone)]
pub struct MediaJob<'a> {
    pub model: &'a MediaModel,
    /// Format of the denoiser (or AR decoder) weights; text encoders and
    /// the VAE stay at 16 bits (32 when the whole pipeline runs in fp32).
    pub precision: WeightFormat,
    pub width: u32,
    pub height: u32,
    pub steps: u32,
    /// Output frames (video); 1 for images.
    pub frames: u32,
    pub fps: f64,
    /// Seconds of audio per clip.
    pub seconds: f64,
    pub batch: u32,
    /// Text encoders kept on the CPU (diffusers `enable_model_cpu_offload`
    /// for the encoders, Wan `--t5_cpu`): they leave GPU memory.
    pub enc_offload: bool,
    /// Memory-efficient attention (SDPA / FlashAttention / xFormers): no
    /// tokens² score matrix in memory.
    pub flash: bool,
}

/// Memory of one job per GPU, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct MediaMemory {
    pub weights_bytes: f64,
    /// The larger of the denoising working set and the VAE decode peak
    /// (they do not overlap: the decoder runs after the last step).
    pub activations_bytes: f64,
    pub overhead_bytes: f64,
    pub total: f64,
    pub parts: MediaWeights,
    pub denoise_activation_bytes: f64,
    pub decode_activation_bytes: f64,
}

/// Weights by component, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct MediaWeights {
    pub denoiser: f64,
    pub text_encoders: f64,
    pub vae: f64,
    pub other: f64,
}

pub(super) fn f(v: u32) -> f64 {
    f64::from(v)
}
