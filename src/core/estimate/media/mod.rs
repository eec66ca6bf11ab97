//! Image, video and audio generation: memory per GPU and speed of one job
//! (`static/media_models.csv` rows). Pure functions of the model row, the
//! job and the GPU.
//!
//! Diffusion and flow models run `steps` denoiser passes (× `cfg_passes`
//! with classifier-free guidance, Ho & Salimans 2022), then decode the
//! latent with the VAE; the time is a compute roofline over the GPU's dense
//! tensor rate (`precision::executed` / `tensor_flops`) with one fitted
//! efficiency per class ([`EffClass`]: image UNet, image DiT, video, AR
//! audio, flow audio); a diffusion transformer's weight matmuls add SM
//! issue time in series ([`DIT_LINEAR_FLOPS_PER_SM_CYCLE`]). Autoregressive audio models (MusicGen, XTTS,
//! Bark)
//! decode one step at a time and are bound by reading their weights (the
//! decode roofline of Pope et al. 2022).
//!
//! Memory is weights + the larger of the denoising working set and the VAE
//! decode peak + runtime overhead.
//!
//! Efficiency factors are the median of ideal/measured over the fit rows of
//! `tests/data/media_measurements.csv`; `whichgpu calibrate
//! tests/data/media_measurements.csv --fit` refits every constant from the
//! fit rows only (`tools::media_fit`) and `tests/it/estimate/media.rs` fails if the
//! code differs from it; the held-out rows are scored by
//! `tests/it/estimate/media_holdout.rs`.
//!
//! This module holds the job ([`MediaJob`]), its defaults and its memory
//! per GPU, and re-exports the rest, which lives by concern:
//! `denoiser.rs` (tokens, heads and FLOPs of one diffusion / flow pass),
//! `autoregressive.rs` (AR audio decoders: steps, KV cache, decode
//! roofline), `efficiency.rs` (fitted efficiency and host-time constants
//! per class), `speed.rs` (time of a job) and `caveats.rs` (what limits an
//! estimate, and its confidence). It never looks a model or a GPU up,
//! picks a GPU or prices a job: the model row and the GPU are passed in.

mod autoregressive;
mod caveats;
mod denoiser;
mod efficiency;
mod job;
mod speed;

pub use caveats::{Confidence, MediaCaveat};
pub use denoiser::{PassFlops, DEFAULT_HEAD_DIM, UNET_FLOPS_FRACTION};
pub use efficiency::{
    efficiency, host_s_per_unit, EffClass, DEFAULT_AR_KERNELS, DIT_LINEAR_FLOPS_PER_SM_CYCLE,
    HOST_S_AR_KERNEL, HOST_S_DIFFUSION, HOST_S_UNET_FORWARD, UNET_VECTOR_FLOPS_PER_TOKEN,
};
pub use job::{
    MediaError, MediaJob, MediaMemory, MediaWeights, ACT_BYTES_PER_TOKEN_PER_WIDTH, RUNTIME_OVERHEAD_BYTES,
    UNET_BASE_CHANNELS, VAE_DECODE_PLANES,
};
pub use speed::{
    attention_share, sm_cycles_per_s, tf32_flops, ForwardPass, MediaSpeed, BNB_INT8_MATMUL_FRACTION,
    FA2_HOPPER_SHARE, H100_SXM_BF16_PER_FP32, H100_SXM_SM_CYCLES_PER_BF16_FLOP, VAE_DECODE_FLOPS_PER_PIXEL,
};

use super::super::catalog::media::{MediaArch, MediaKind, MediaModel};
use super::super::precision::{self, Compute, WeightFormat};
use job::f;

impl<'a> MediaJob<'a> {
    /// A job with the model's defaults (or generic ones where the table has
    /// none: 1024² images, 30 steps; 832×480×81-frame video at 16 fps and
    /// 50 steps; 10 s of audio), batch 1, encoders on the GPU, SDPA on.
    pub fn new(model: &'a MediaModel, precision_id: &str) -> Result<MediaJob<'a>, MediaError> {
        let precision = precision::weight_format(precision_id)
            .ok_or_else(|| MediaError::UnknownPrecision(super::super::table::clip(precision_id)))?;
        Ok(MediaJob::in_format(model, precision))
    }

    /// [`MediaJob::new`] for a format already looked up.
    pub fn in_format(model: &'a MediaModel, precision: WeightFormat) -> MediaJob<'a> {
        let video = model.kind == MediaKind::Video;
        let (w, h) = if video { (832, 480) } else { (1024, 1024) };
        MediaJob {
            model,
            precision,
            width: model.default_width.unwrap_or(w),
            height: model.default_height.unwrap_or(h),
            steps: model.default_steps.unwrap_or(if video { 50 } else { 30 }),
            frames: if video { model.default_frames.unwrap_or(81) } else { 1 },
            fps: model.default_fps.unwrap_or(16.0),
            seconds: model.default_seconds.unwrap_or(10.0),
            batch: 1,
            enc_offload: false,
            flash: true,
        }
    }

    /// The format the model ships in, if the table names one, else bf16.
    pub fn native_precision(model: &MediaModel) -> &'static str {
        match model.native_dtype.as_deref() {
            Some("fp32") => "fp32",
            Some("fp16") => "fp16",
            _ => "bf16",
        }
    }

    fn batch_f(&self) -> f64 {
        f(self.batch.max(1))
    }

    fn cfg(&self) -> f64 {
        f(self.model.cfg_passes.unwrap_or(1).max(1))
    }

    /// Bytes per element of the pipeline's 16-bit parts (text encoders, VAE,
    /// activations): 4 when the pipeline runs in fp32.
    fn pipeline_bytes(&self) -> f64 {
        if self.precision.compute == Compute::Fp32 {
            4.0
        } else {
            2.0
        }
    }

    /// Bytes per element of the VAE (weights and decode activations): the
    /// pipeline's, or 4 where a 16-bit pipeline upcasts it to decode. The
    /// SDXL pipelines check `vae.dtype == float16 and
    /// vae.config.force_upcast` and cast the VAE to float32 before decoding
    /// (huggingface/diffusers `pipeline_stable_diffusion_xl.py`; the SDXL
    /// VAE overflows in fp16), so the decoder's full-resolution planes take
    /// twice the bytes and set the peak at batch > 1. BF16 pipelines are
    /// not upcast (the check is for float16 only).
    pub fn vae_bytes(&self) -> f64 {
        if self.vae_upcast() {
            4.0
        } else {
            self.pipeline_bytes()
        }
    }

    /// The VAE decodes in fp32 although the pipeline runs in fp16.
    pub fn vae_upcast(&self) -> bool {
        self.model.vae_upcast_fp16 && self.precision.id == "fp16"
    }

    /// Weights held on the GPU by component.
    pub fn weights(&self) -> MediaWeights {
        let m = self.model;
        let den_bytes = self.precision.body_bits / 8.0;
        let pipe = self.pipeline_bytes();
        let other_bytes = if m.arch == MediaArch::Ar { den_bytes } else { pipe };
        MediaWeights {
            denoiser: m.denoiser_params.unwrap_or(0.0) * den_bytes,
            text_encoders: if self.enc_offload { 0.0 } else { m.text_encoder_params.unwrap_or(0.0) * pipe },
            vae: m.vae_params.unwrap_or(0.0) * self.vae_bytes(),
            other: m.other_params.unwrap_or(0.0) * other_bytes,
        }
    }

    /// Working set while denoising. Transformer: 28·hidden bytes per token
    /// for the block that runs (see [`ACT_BYTES_PER_TOKEN_PER_WIDTH`]); UNet:
    /// the same at the full latent resolution with 320 channels. × batch ×
    /// guidance passes (diffusers concatenates the conditional and
    /// unconditional batch for SD/SDXL/FLUX/CogVideoX; pipelines that run
    /// them one after another — Wan, Mochi — need half). Without
    /// memory-efficient attention one layer's score matrix is materialised:
    /// heads × tokens² × 2 bytes per sample.
    pub fn denoise_activation_bytes(&self) -> f64 {
        let m = self.model;
        let rows = self.batch_f() * self.cfg();
        let scale = self.pipeline_bytes() / 2.0;
        if m.arch == MediaArch::Ar {
            return self.ar_kv_bytes(self.ar_total_steps());
        }
        let (width, tokens) = match m.arch {
            MediaArch::Unet => (UNET_BASE_CHANNELS, self.latent_tokens()),
            _ => (f(m.hidden.unwrap_or(0)), self.sequence_tokens()),
        };
        let mut bytes = tokens * ACT_BYTES_PER_TOKEN_PER_WIDTH * width * scale * rows;
        if !self.flash {
            if let Some(heads) = self.heads() {
                let (n, _) = self.attention_map();
                bytes += heads * n * n * self.pipeline_bytes() * rows;
            }
        }
        bytes
    }

    /// Peak while the VAE decodes: [`VAE_DECODE_PLANES`] channel planes at
    /// the output resolution for every image of the batch (diffusers decodes
    /// the whole batch in one call unless VAE slicing is on), at
    /// [`MediaJob::vae_bytes`]; a video VAE
    /// decodes one latent frame (temporal-factor output frames) at a time
    /// (Wan 2.1's causal cache; CogVideoX decodes 2 latent frames per batch).
    /// Audio codecs and vocoders are small (not counted).
    pub fn decode_activation_bytes(&self) -> f64 {
        let m = self.model;
        let frames = match m.kind {
            MediaKind::Audio => return 0.0,
            MediaKind::Image => 1.0,
            MediaKind::Video => f(m.temporal_downsample.unwrap_or(1).max(1)).min(f(self.frames.max(1))),
        };
        VAE_DECODE_PLANES * f(self.width) * f(self.height) * frames * self.vae_bytes() * self.batch_f()
    }

    pub fn memory(&self) -> MediaMemory {
        let parts = self.weights();
        let weights = parts.denoiser + parts.text_encoders + parts.vae + parts.other;
        let denoise = self.denoise_activation_bytes();
        let decode = self.decode_activation_bytes();
        let activations = denoise.max(decode);
        MediaMemory {
            weights_bytes: weights,
            activations_bytes: activations,
            overhead_bytes: RUNTIME_OVERHEAD_BYTES,
            total: weights + activations + RUNTIME_OVERHEAD_BYTES,
            parts,
            denoise_activation_bytes: denoise,
            decode_activation_bytes: decode,
        }
    }
}
