//! Image, video and audio generation: memory per GPU and speed of one job
//! (`static/media_models.csv` rows). Pure functions of the model row, the
//! job and the GPU.
//!
//! Diffusion and flow models run `steps` denoiser passes (× `cfg_passes`
//! with classifier-free guidance, Ho & Salimans 2022), then decode the
//! latent with the VAE; the time is a compute roofline over the GPU's dense
//! tensor rate (`precision::executed` / `tensor_flops`) with one fitted
//! efficiency per class ([`EffClass`]: image UNet, image DiT, video, AR
//! audio, flow audio). Autoregressive audio models (MusicGen, XTTS, Bark)
//! decode one step at a time and are bound by reading their weights (the
//! decode roofline of Pope et al. 2022).
//!
//! Memory is weights + the larger of the denoising working set and the VAE
//! decode peak + runtime overhead.
//!
//! Efficiency factors are the median of ideal/measured over the rows of
//! `tests/data/media_measurements.csv` (`tests/media.rs` refits them and
//! checks these constants; its printout is the error table).

use super::super::catalog::media::{MediaArch, MediaKind, MediaModel};
use super::super::catalog::Gpu;
use super::super::precision::{self, Compute, WeightFormat};
use super::super::units::GIB;

/// FLOPs of the Stable Diffusion VAE decoder per output pixel:
/// 2.53933e12 FLOPs for one 512×512 image (NVIDIA TensorRT Stable Diffusion
/// slides, B=1; `static/media_models.csv` sd-1.5 row). SD, SDXL, SD3 and FLUX
/// decoders share these widths (ch 128, ch_mult (1, 2, 4, 4)); 3D video VAEs
/// are taken per output frame at the same cost (their causal 3D convolutions
/// cost more, so video decode times are a lower bound).
pub const VAE_DECODE_FLOPS_PER_PIXEL: f64 = 2.53933e12 / (512.0 * 512.0);

/// UNet FLOPs per parameter per latent pixel per pass, from SDXL's published
/// pass cost: 6.03e12 / (2 × 2.567e9 × 128²) = 0.0717 of the dense
/// 2·params·tokens count (convolutions and attention run on down-sampled
/// maps). Used only for UNets without a published figure (SDXL refiner).
pub const UNET_FLOPS_FRACTION: f64 = 6.03e12 / (2.0 * 2.567e9 * 16384.0);

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

/// Head width assumed when a DiT row gives no head count (64 in SD3, PixArt,
/// CogVideoX, LTX; 128 in FLUX, Wan, HunyuanVideo, whose rows give heads).
pub const DEFAULT_HEAD_DIM: f64 = 64.0;

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

/// Achieved / ideal, fitted as the median of ideal/measured over the rows of
/// `tests/data/media_measurements.csv` of each class (`tests/media.rs`
/// recomputes the medians and fails if these drift from them).
///
/// - Image UNet 0.34: 12 diffusers / TensorRT rows of SD 1.5 and SDXL (A100).
/// - Image DiT 0.61: 4 FLUX.1-dev rows (A100 ~0.75, H100 ~0.50).
/// - Video 0.39: 9 rows of Wan 2.1, HunyuanVideo and CogVideoX (RTX 4090,
///   A100, H100); attention over 20k–120k tokens runs below GEMM efficiency.
/// - Flow / diffusion audio 0.55: 4 Stable Audio Open rows (3 on a T4 at
///   its power-capped matmul rate, `Gpu::sustained_fraction`, 1 on an RTX
///   3090), close to the image DiT figure. The F5-TTS rows are host-bound.
/// - AR audio: every measured row is host-bound (see
///   [`host_s_per_unit`]), so none can fit a GPU efficiency; it
///   borrows the bandwidth factor fitted for Hugging Face transformers
///   decode on the serving calibration (0.52, `engine.rs`).
pub fn efficiency(class: EffClass) -> f64 {
    match class {
        EffClass::ImageUnet => 0.34,
        EffClass::ImageDit => 0.61,
        EffClass::FlowAudio => 0.55,
        EffClass::Video => 0.39,
        EffClass::ArAudio => 0.52,
    }
}

/// Host (CPU) time in PyTorch eager mode: Python dispatch and one launch
/// per kernel. Small models at batch 1 are bound by it rather than by the
/// GPU (the same clip takes about as long on an RTX 3090 as on an RTX 5090
/// in the audio rows). Fitted in `tests/media.rs` on the host-bound rows,
/// per unit of [`MediaJob::host_units_per_layer_pass`]:
///
/// - Autoregressive decoders: seconds per kernel launch, times the kernels
///   a decoder layer launches per step in the model's implementation
///   (`eager_kernels_per_layer`: Bark's nanoGPT block 13, XTTS-v2's GPT-2
///   block 27), so a leaner layer is cheaper to step.
/// - Diffusion / flow transformers: seconds per layer pass (4 F5-TTS rows,
///   0.98–2.06 ms; the sampler's per-step work rides on it); image and
///   video rows are GPU-bound by a wide margin, so the same figure never
///   decides their time.
pub fn host_s_per_unit(class: EffClass) -> f64 {
    match class {
        EffClass::ArAudio => HOST_S_AR_KERNEL,
        _ => HOST_S_DIFFUSION,
    }
}

pub const HOST_S_AR_KERNEL: f64 = 13.7e-6;
pub const HOST_S_DIFFUSION: f64 = 1.42e-3;

/// Kernels per decoder layer when the table has no count: a GPT-2-style
/// layer with fused attention (the median of the counted models).
pub const DEFAULT_AR_KERNELS: f64 = 22.0;

/// Why an estimate is less certain; the lead maps these to messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MediaCaveat {
    /// The denoiser / AR parameter count is not in the table: weights and
    /// FLOPs of the denoiser are missing from the estimate.
    MissingDenoiserParams,
    /// Text-encoder parameters not in the table: their weights are left out.
    MissingTextEncoderParams,
    /// VAE / codec parameters not in the table: their weights are left out.
    MissingVaeParams,
    /// Codec / vocoder / extra stages of an AR model not in the table.
    MissingOtherParams,
    /// No width/depth: attention FLOPs and activations are left out.
    MissingAttentionShape,
    /// Head count assumed from the width (head dimension 64).
    HeadsAssumed,
    /// UNet FLOPs scaled from SDXL's per-parameter cost (no published figure).
    UnetFlopsScaled,
    /// Autoregressive steps per second taken as frame rate × codebooks.
    ArStepsAssumed,
    /// Audio factors are fitted on few, low-confidence rows.
    AudioFitLowConfidence,
    /// Video VAE decode time taken per frame at the 2D VAE cost.
    VideoVaeApprox,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

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

/// FLOPs of one denoiser pass for one sample.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct PassFlops {
    /// Weight matmuls and convolutions: run at the denoiser's precision.
    pub linear: f64,
    /// Attention scores (QKᵀ, AV): run at 16 bits whatever the weights.
    pub attention: f64,
}

impl PassFlops {
    pub fn total(&self) -> f64 {
        self.linear + self.attention
    }
}

/// Speed of one job (the whole batch), likely values.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct MediaSpeed {
    /// Wall time of the batch, s.
    pub total_s: f64,
    /// Denoising (or autoregressive decoding) part of `total_s`.
    pub denoise_s: f64,
    /// VAE decode part of `total_s`.
    pub decode_s: f64,
    /// Time per image / clip (`total_s / batch`).
    pub seconds_per_item: f64,
    /// Images (or clips) per hour at this batch.
    pub items_per_hour: f64,
    /// Seconds of audio or video produced per second of compute.
    pub realtime_factor: Option<f64>,
    /// Time at 100 % efficiency of the compute/bandwidth terms.
    pub ideal_s: f64,
    /// Time that the efficiency factor does not scale (unfused attention
    /// score traffic when memory-efficient attention is off).
    pub fixed_s: f64,
    /// Host time of launching the kernels: transformer layer passes × the
    /// seconds per layer pass ([`MediaJob::host_s_per_layer_pass`]). A step
    /// takes the longer of the GPU time and this (launches are asynchronous
    /// and overlap the GPU work until the GPU work is shorter).
    pub host_s: f64,
    /// GPU time of the denoising (or decoding) passes at the class's efficiency.
    pub gpu_denoise_s: f64,
    /// Denoiser / decoder layer passes of the batch (steps × guidance rows ×
    /// layers; autoregressive: steps × layers).
    pub layer_passes: f64,
    pub efficiency: f64,
    pub class: EffClass,
}

fn f(v: u32) -> f64 {
    f64::from(v)
}

/// Dense FLOP/s of TF32 tensor cores: half the BF16 rate on NVIDIA Ampere and
/// later and AMD CDNA3+ (A100 156 of 312; H100 495 of 989; MI300X 654 of
/// 1307 — vendor datasheets); older parts run plain FP32.
pub fn tf32_flops(gpu: &Gpu) -> f64 {
    let tf32 = matches!(gpu.arch.as_str(), "ampere" | "ada" | "hopper" | "blackwell" | "cdna3" | "cdna4");
    if tf32 {
        gpu.bf16_tflops * 1e12 / 2.0
    } else {
        precision::tensor_flops(gpu, Compute::Fp32)
    }
}

/// Matmul rate for a compute precision. FP32 pipelines run on TF32 tensor
/// cores: PyTorch enables TF32 for cuDNN convolutions by default
/// (`torch.backends.cudnn.allow_tf32 = True`), and the diffusion-fast SDXL
/// rows (fp32 7.36 s vs bf16 4.63 s on an A100, a ratio of 1.6) are
/// impossible at plain FP32's 1/16 of the BF16 rate.
fn matmul_flops(gpu: &Gpu, c: Compute) -> f64 {
    match c {
        Compute::Fp32 => tf32_flops(gpu),
        c => precision::tensor_flops(gpu, c),
    }
}

impl<'a> MediaJob<'a> {
    /// A job with the model's defaults (or generic ones where the table has
    /// none: 1024² images, 30 steps; 832×480×81-frame video at 16 fps and
    /// 50 steps; 10 s of audio), batch 1, encoders on the GPU, SDPA on.
    pub fn new(model: &'a MediaModel, precision_id: &str) -> Result<MediaJob<'a>, MediaError> {
        let precision = precision::weight_format(precision_id).ok_or_else(|| MediaError::UnknownPrecision(super::super::table::clip(precision_id)))?;
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

    /// Latent frames of a video: causal 3D VAEs keep the first frame and
    /// compress the rest by the temporal factor, (F − 1)/t + 1 (Wan 2.1,
    /// HunyuanVideo and CogVideoX reports: 81 → 21, 129 → 33, 49 → 13).
    pub fn latent_frames(&self) -> f64 {
        if self.model.kind != MediaKind::Video {
            return 1.0;
        }
        let t = f(self.model.temporal_downsample.unwrap_or(1).max(1));
        (f(self.frames.max(1)) - 1.0).div_euclid(t) + 1.0
    }

    /// Tokens the denoiser sees per sample, text excluded.
    /// Image/video: (W/8/p)·(H/8/p)·latent frames (DiT patchify, Peebles &
    /// Xie 2023 §3.1; a UNet has p = 1: SDXL at 1024² → 128·128 = 16 384).
    /// Audio: frames per second × seconds (codec, latent or mel frames), or
    /// the model's whole window when it has one.
    pub fn latent_tokens(&self) -> f64 {
        let m = self.model;
        if m.kind == MediaKind::Audio {
            // A fixed-window model denoises its whole window and cuts the
            // clip from it (see `MediaModel::audio_window_s`).
            let seconds = self.seconds.max(m.audio_window_s.unwrap_or(0.0)).max(0.0);
            return (seconds * m.audio_frame_rate_hz.unwrap_or(0.0)).ceil();
        }
        let step = f(m.spatial_downsample.unwrap_or(8).max(1) * m.patch.unwrap_or(1).max(1));
        let w = (f(self.width) / step).ceil();
        let h = (f(self.height) / step).ceil();
        w * h * self.latent_frames()
    }

    /// Sequence length of one pass: latent tokens plus the text tokens that
    /// join them in MMDiT attention (SD3, Esser et al. 2024 §2.2; FLUX.1
    /// model card / diffusers `max_sequence_length` 512). Cross-attention
    /// models (PixArt, Wan, LTX) attend to text separately (not counted:
    /// < 2 % of their FLOPs at default sizes).
    pub fn sequence_tokens(&self) -> f64 {
        self.latent_tokens() + f(self.model.joint_text_tokens.unwrap_or(0))
    }

    fn heads(&self) -> Option<f64> {
        match (self.model.heads, self.model.hidden) {
            (Some(h), _) => Some(f(h)),
            (None, Some(w)) if self.model.arch != MediaArch::Unet => Some((f(w) / DEFAULT_HEAD_DIM).max(1.0)),
            _ => None,
        }
    }

    /// Tokens and self-attention layers at the widest attention map (UNet:
    /// the highest-resolution attention level; DiT: every block).
    fn attention_map(&self) -> (f64, f64) {
        let m = self.model;
        let layers = f(m.layers.unwrap_or(0));
        match m.arch {
            MediaArch::Unet => {
                let ds = f(m.attn_downsample.unwrap_or(1).max(1));
                (self.latent_tokens() / (ds * ds), layers)
            }
            _ => (self.sequence_tokens(), layers),
        }
    }

    /// FLOPs of one denoiser pass for one sample.
    ///
    /// DiT/MMDiT: 2·params·tokens for the weight matmuls (Kaplan et al. 2020
    /// §2.1; DiT Gflops, Peebles & Xie 2023) plus 4·layers·hidden·tokens²
    /// for QKᵀ and AV (2·d per query-key pair each, Kaplan Table 1).
    /// UNet: the published pass cost at the default resolution scaled
    /// linearly with latent pixels (convolutions and projections dominate;
    /// attention, ~15 % at the reference, grows faster, so large images are
    /// slightly underestimated).
    pub fn pass_flops(&self) -> PassFlops {
        let m = self.model;
        let params = m.denoiser_params.unwrap_or(0.0);
        let n = self.sequence_tokens();
        match m.arch {
            MediaArch::Unet => {
                let per_token = match (m.pass_tflops_ref, m.default_width, m.default_height) {
                    (Some(tf), Some(w), Some(h)) => {
                        let step = f(m.spatial_downsample.unwrap_or(8).max(1));
                        let n_ref = (f(w) / step).ceil() * (f(h) / step).ceil();
                        tf * 1e12 / n_ref.max(1.0)
                    }
                    _ => 2.0 * params * UNET_FLOPS_FRACTION,
                };
                PassFlops { linear: per_token * self.latent_tokens(), attention: 0.0 }
            }
            MediaArch::Dit | MediaArch::FlowDit | MediaArch::Ar => {
                let attention = match (m.layers, m.hidden) {
                    (Some(l), Some(h)) => 4.0 * f(l) * f(h) * n * n,
                    _ => 0.0,
                };
                PassFlops { linear: 2.0 * params * n, attention }
            }
        }
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
            vae: m.vae_params.unwrap_or(0.0) * pipe,
            other: m.other_params.unwrap_or(0.0) * other_bytes,
        }
    }

    /// Autoregressive steps per second of audio: the table's figure (MusicGen:
    /// 50, one step per 20 ms EnCodec frame — Défossez et al. 2022 — with the
    /// 4 codebooks predicted in parallel by the delay pattern), else frame
    /// rate × codebooks (codebooks flattened one per step).
    fn ar_steps_per_s(&self) -> f64 {
        let m = self.model;
        m.ar_steps_per_audio_s
            .unwrap_or_else(|| m.audio_frame_rate_hz.unwrap_or(0.0) * f(m.audio_codebooks.unwrap_or(1).max(1)))
    }

    /// Layer passes of the denoiser or decoder for the whole batch: an
    /// autoregressive step runs every layer once for all rows together; a
    /// diffusion step runs every layer once per guidance pass (the batch
    /// rides in the same pass).
    pub fn layer_passes(&self) -> f64 {
        let layers = f(self.model.layers.unwrap_or(0));
        match self.model.arch {
            MediaArch::Ar => self.ar_total_steps() * layers,
            _ => f(self.steps) * self.cfg() * layers,
        }
    }

    /// What the host constant of the class is per, for one layer pass:
    /// kernels per layer for an autoregressive decoder, 1 otherwise.
    pub fn host_units_per_layer_pass(&self) -> f64 {
        match self.efficiency_class() {
            EffClass::ArAudio => self.model.eager_kernels_per_layer.unwrap_or(DEFAULT_AR_KERNELS),
            _ => 1.0,
        }
    }

    /// Host seconds of one layer pass (see [`host_s_per_unit`]).
    pub fn host_s_per_layer_pass(&self) -> f64 {
        self.host_units_per_layer_pass() * host_s_per_unit(self.efficiency_class())
    }

    fn ar_total_steps(&self) -> f64 {
        (self.seconds.max(0.0) * self.ar_steps_per_s()).ceil()
    }

    /// KV cache of an autoregressive decoder at the end of the clip:
    /// 2 (K,V) · layers · hidden · steps · 2 bytes per sequence, × batch ×
    /// guidance rows (MusicGen batches the conditional and unconditional rows).
    fn ar_kv_bytes(&self, ctx: f64) -> f64 {
        let m = self.model;
        match (m.layers, m.hidden) {
            (Some(l), Some(h)) => 2.0 * f(l) * f(h) * ctx * 2.0 * self.batch_f() * self.cfg(),
            _ => 0.0,
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
    /// the output resolution for every image of the batch; a video VAE
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
        VAE_DECODE_PLANES * f(self.width) * f(self.height) * frames * self.pipeline_bytes() * self.batch_f()
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

    pub fn efficiency_class(&self) -> EffClass {
        EffClass::of(self.model)
    }

    /// Speed with the fitted efficiency of the model's class.
    pub fn speed(&self, gpu: &Gpu) -> MediaSpeed {
        self.speed_with(gpu, efficiency(self.efficiency_class()))
    }

    /// Speed at a given efficiency (used to fit the factors).
    pub fn speed_with(&self, gpu: &Gpu, eff: f64) -> MediaSpeed {
        let eff = if eff.is_finite() && eff > 0.0 { eff } else { 1.0 };
        let (ideal_denoise, ideal_decode, fixed) = match self.model.arch {
            MediaArch::Ar => (self.ar_ideal_s(gpu), 0.0, 0.0),
            _ => self.diffusion_ideal_s(gpu),
        };
        let layer_passes = self.layer_passes();
        let host_s = layer_passes * self.host_s_per_layer_pass();
        let gpu_denoise_s = ideal_denoise / eff + fixed;
        let denoise_s = gpu_denoise_s.max(host_s);
        let decode_s = ideal_decode / eff;
        let total = denoise_s + decode_s;
        let batch = self.batch_f();
        let per_item = total / batch;
        let produced = match self.model.kind {
            MediaKind::Audio => Some(self.seconds * batch),
            MediaKind::Video if self.fps > 0.0 => Some(f(self.frames) / self.fps * batch),
            _ => None,
        };
        MediaSpeed {
            total_s: total,
            denoise_s,
            decode_s,
            seconds_per_item: per_item,
            items_per_hour: if total > 0.0 { 3600.0 * batch / total } else { 0.0 },
            realtime_factor: produced.filter(|_| total > 0.0).map(|p| p / total),
            ideal_s: ideal_denoise + ideal_decode,
            fixed_s: fixed,
            host_s,
            gpu_denoise_s,
            layer_passes,
            efficiency: eff,
            class: self.efficiency_class(),
        }
    }

    /// Ideal denoise and VAE decode seconds of a diffusion / flow job, and
    /// the unscaled attention-score traffic.
    ///
    /// Each pass takes the larger of its compute time and reading the
    /// denoiser weights (roofline). Weight matmuls run at the executed
    /// precision of the weight format (`precision::executed`: FP8 on an A100
    /// runs as BF16, weight-only formats such as NF4 dequantise to 16 bits,
    /// a cost amortised over thousands of tokens per pass and not modelled); attention
    /// runs at 16 bits (SDPA/FlashAttention take BF16/FP16 Q, K, V).
    /// Without memory-efficient attention the PyTorch math path writes the
    /// scores, reads them for the softmax, writes the probabilities and reads
    /// them for AV: 4 × heads × tokens² × bytes per layer, at the memory
    /// bandwidth.
    fn diffusion_ideal_s(&self, gpu: &Gpu) -> (f64, f64, f64) {
        let exec = self.precision.executed(gpu);
        let lin_rate = matmul_flops(gpu, exec);
        let attn_rate = if exec == Compute::Fp32 { tf32_flops(gpu) } else { precision::tensor_flops(gpu, Compute::Bf16) };
        let pass = self.pass_flops();
        let compute = pass.linear / lin_rate.max(1.0) + pass.attention / attn_rate.max(1.0);
        let weights = self.weights().denoiser / gpu.bandwidth_bytes_per_s().max(1.0);
        let passes = f(self.steps) * self.cfg() * self.batch_f();
        let per_pass = compute.max(weights / self.batch_f());
        let denoise = passes * per_pass;
        let decode = match self.model.kind {
            MediaKind::Audio => 0.0,
            _ => {
                let frames = if self.model.kind == MediaKind::Video { f(self.frames.max(1)) } else { 1.0 };
                VAE_DECODE_FLOPS_PER_PIXEL * f(self.width) * f(self.height) * frames * self.batch_f() / attn_rate.max(1.0)
            }
        };
        let fixed = if self.flash {
            0.0
        } else {
            match self.heads() {
                Some(heads) => {
                    let (n, layers) = self.attention_map();
                    passes * layers * 4.0 * heads * n * n * self.pipeline_bytes() / gpu.bandwidth_bytes_per_s().max(1.0)
                }
                None => 0.0,
            }
        };
        (denoise, decode, fixed)
    }

    /// Ideal seconds of autoregressive decoding: every step reads the
    /// stage's weights and the KV cache so far (memory roofline) or does
    /// 2·params FLOPs per row plus attention over the cache (compute
    /// roofline), whichever is longer; rows = batch × guidance rows
    /// (MusicGen: 50 steps per second of audio with its 4 codebooks in
    /// parallel, Copet et al. 2023 §2.2).
    fn ar_ideal_s(&self, gpu: &Gpu) -> f64 {
        let m = self.model;
        let steps = self.ar_total_steps();
        let mean_ctx = steps / 2.0;
        let rows = self.batch_f() * self.cfg();
        let params = m.denoiser_params.unwrap_or(0.0);
        let bytes = params * self.precision.body_bits / 8.0 + self.ar_kv_bytes(mean_ctx);
        let attn = match (m.layers, m.hidden) {
            (Some(l), Some(h)) => 4.0 * f(l) * f(h) * mean_ctx,
            _ => 0.0,
        };
        let flops = rows * (2.0 * params + attn);
        let rate = matmul_flops(gpu, self.precision.executed(gpu));
        let t_mem = bytes / gpu.bandwidth_bytes_per_s().max(1.0);
        let t_compute = flops / rate.max(1.0);
        steps * t_mem.max(t_compute)
    }

    /// What limits this estimate.
    pub fn caveats(&self) -> Vec<MediaCaveat> {
        let m = self.model;
        let mut out = Vec::new();
        if m.denoiser_params.is_none() {
            out.push(MediaCaveat::MissingDenoiserParams);
        }
        let needs_text = !m.text_encoders.is_empty();
        if needs_text && m.text_encoder_params.is_none() && !self.enc_offload {
            out.push(MediaCaveat::MissingTextEncoderParams);
        }
        if m.kind != MediaKind::Audio && m.vae_params.is_none() {
            out.push(MediaCaveat::MissingVaeParams);
        }
        if m.arch == MediaArch::Ar && m.other_params.is_none() && m.vae_params.is_none() {
            out.push(MediaCaveat::MissingOtherParams);
        }
        if m.arch != MediaArch::Unet && (m.layers.is_none() || m.hidden.is_none()) {
            out.push(MediaCaveat::MissingAttentionShape);
        }
        if m.arch != MediaArch::Unet && m.arch != MediaArch::Ar && m.heads.is_none() && !self.flash {
            out.push(MediaCaveat::HeadsAssumed);
        }
        if m.arch == MediaArch::Unet && m.pass_tflops_ref.is_none() {
            out.push(MediaCaveat::UnetFlopsScaled);
        }
        if m.arch == MediaArch::Ar && m.ar_steps_per_audio_s.is_none() {
            out.push(MediaCaveat::ArStepsAssumed);
        }
        if m.kind == MediaKind::Audio {
            out.push(MediaCaveat::AudioFitLowConfidence);
        }
        if m.kind == MediaKind::Video {
            out.push(MediaCaveat::VideoVaeApprox);
        }
        out
    }

    /// High: every input from the table and a class fitted on primary
    /// sources; Medium: an assumption or scaling stands in for a figure;
    /// Low: a component is missing or the class fit is weak (audio).
    pub fn confidence(&self) -> Confidence {
        let caveats = self.caveats();
        let low = caveats.iter().any(|c| {
            matches!(
                c,
                MediaCaveat::MissingDenoiserParams
                    | MediaCaveat::MissingTextEncoderParams
                    | MediaCaveat::MissingVaeParams
                    | MediaCaveat::MissingOtherParams
                    | MediaCaveat::AudioFitLowConfidence
            )
        });
        if low {
            Confidence::Low
        } else if caveats.is_empty() {
            Confidence::High
        } else {
            Confidence::Medium
        }
    }
}
