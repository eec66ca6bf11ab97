//! Time of one job on one GPU: the compute roofline of diffusion / flow
//! passes and the VAE decode, the host-time floor, and the efficiency of
//! the class. It never fits the factors (`efficiency.rs`) or counts memory.

use super::efficiency::{
    efficiency, host_s_per_unit, EffClass, DIT_LINEAR_FLOPS_PER_SM_CYCLE, UNET_VECTOR_FLOPS_PER_TOKEN,
};
use super::job::{f, MediaJob};
use crate::core::catalog::media::{MediaArch, MediaKind};
use crate::core::catalog::Gpu;
use crate::core::precision::{self, Compute};

/// FLOPs of the Stable Diffusion VAE decoder per output pixel:
/// 2.53933e12 FLOPs for one 512×512 image (NVIDIA TensorRT Stable Diffusion
/// slides, B=1; `static/media_models.csv` sd-1.5 row). SD, SDXL, SD3 and FLUX
/// decoders share these widths (ch 128, ch_mult (1, 2, 4, 4)); 3D video VAEs
/// are taken per output frame at the same cost (their causal 3D convolutions
/// cost more, so video decode times are a lower bound).
pub const VAE_DECODE_FLOPS_PER_PIXEL: f64 = 2.53933e12 / (512.0 * 512.0);

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
    /// bitsandbytes int8 jobs: ideal seconds of the weight matmuls at the
    /// 16-bit rate (inside `ideal_s` they are divided by
    /// [`BNB_INT8_MATMUL_FRACTION`]); 0 otherwise. Used to fit the fraction.
    pub bnb_matmul_16bit_s: f64,
    /// UNets: the CUDA-core work of the passes at the GPU's FP32 rate
    /// ([`UNET_VECTOR_FLOPS_PER_TOKEN`]), not scaled by the efficiency; 0 otherwise.
    pub vector_s: f64,
    /// Diffusion transformers (image DiT and video classes): the SM issue
    /// time of the passes' weight matmuls ([`DIT_LINEAR_FLOPS_PER_SM_CYCLE`]
    /// at [`sm_cycles_per_s`]), not scaled by the efficiency; 0 otherwise.
    pub issue_s: f64,
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

/// Weight-matmul rate for a compute precision. FP32 is split by what the
/// layers are: PyTorch runs cuDNN convolutions on TF32 tensor cores by
/// default (`torch.backends.cudnn.allow_tf32` True) but not matmuls
/// (`torch.backends.cuda.matmul.allow_tf32` False since PyTorch 1.12;
/// PyTorch docs, "CUDA semantics", TensorFloat-32 section, read 2026-12-01).
/// A UNet's pass cost is mostly convolutions and is taken at TF32 (the
/// diffusion-fast SDXL rows, fp32 7.36 s vs bf16 4.63 s on an A100, are
/// impossible at plain FP32's 1/16 of the BF16 rate); a transformer's
/// linear layers run at the plain FP32 rate of the CUDA cores.
pub(super) fn matmul_flops(gpu: &Gpu, c: Compute, convolutional: bool) -> f64 {
    match c {
        Compute::Fp32 if convolutional => tf32_flops(gpu),
        c => precision::tensor_flops(gpu, c),
    }
}

/// FP32 (CUDA-core) lanes per SM: 64 on Volta (NVIDIA Tesla V100
/// whitepaper: 64 FP32 cores per SM), Turing (Turing architecture
/// whitepaper: 64) and GA100, the HBM Ampere parts A100 / A800 / A30 (A100
/// whitepaper: 64); 128 on Pascal GP102 (the Tesla P40: 3,840 cores in 30
/// SMs), GA10x, the GDDR Ampere parts (GA102 whitepaper: 128 FP32 operations
/// per clock per SM), Ada (Ada whitepaper: 128 CUDA cores per SM), Hopper
/// (H100 whitepaper: 128 FP32 cores per SM) and Blackwell. AMD CDNA: a
/// compute unit (four SIMD16 units, each fed by its own scheduler, as an
/// SM's four partitions are) is the SM's counterpart, 64 FP32 lanes like a
/// GA100 SM; its lanes count against the unpacked vector rate
/// ([`precision::fp32_vector_flops`]: MI300X 81.7 TFLOPS over 128 = 638 G
/// = 304 CUs × 2.1 GHz). Other vendors: none (their rate comes from
/// [`H100_SXM_SM_CYCLES_PER_BF16_FLOP`]).
fn fp32_lanes_per_sm(gpu: &Gpu) -> Option<f64> {
    match gpu.arch.as_str() {
        "volta" | "turing" => Some(64.0),
        "ampere" if gpu.is_hbm() => Some(64.0),
        "pascal" | "ampere" | "ada" | "hopper" | "blackwell" => Some(128.0),
        "cdna2" | "cdna3" | "cdna4" => Some(64.0),
        _ => None,
    }
}

/// The FP32 vector rate in TFLOPS as an NVIDIA datasheet counts it (lanes ×
/// 2 × clock, no packed FP32): the catalog's `fp32_tflops` over
/// [`precision::fp32_packing`] (CDNA3/CDNA4 state the packed rate).
fn fp32_vector_tflops(gpu: &Gpu) -> Option<f64> {
    gpu.fp32_tflops.filter(|v| *v > 0.0).map(|v| v / precision::fp32_packing(gpu))
}

/// SM cycles per second of all SMs together (SMs × clock): the FP32 rate
/// over 2 FLOPs per lane per cycle (FMA) × `fp32_lanes_per_sm` — the H100
/// SXM's 67 TFLOPS give 261.7 G (132 SMs at 1.98 GHz), the A100's 19.5
/// give 152.3 G (108 SMs at 1.41 GHz), the L20's 59.35 give 231.8 G (92 SMs
/// at 2.52 GHz); on AMD CDNA the compute units × clock (MI300X 304 × 2.1
/// GHz = 638 G, MI355X 256 × 2.4 GHz = 614 G, one MI250X GCD 110 × 1.7 GHz
/// = 187 G). Parts without an FP32 figure or a known SM width take the
/// H100 SXM's cycles per dense BF16 FLOP/s. Scaled, like every rate, by
/// the GPU's sustained fraction (a power cap lowers the clock).
pub fn sm_cycles_per_s(gpu: &Gpu) -> f64 {
    let cycles = match (fp32_lanes_per_sm(gpu), fp32_vector_tflops(gpu)) {
        (Some(lanes), Some(fp32)) if fp32 > 0.0 => fp32 * 1e12 / (2.0 * lanes),
        _ => gpu.bf16_tflops * 1e12 * H100_SXM_SM_CYCLES_PER_BF16_FLOP,
    };
    cycles * gpu.sustained_fraction()
}

/// The H100 SXM's SM cycles per second (67 TFLOPS FP32 / 256) over its
/// dense BF16 rate (989 TFLOPS; NVIDIA H100 datasheet).
pub const H100_SXM_SM_CYCLES_PER_BF16_FLOP: f64 = 67.0 / 256.0 / 989.0;

/// Share of its tensor rate that a GPU's attention kernel reaches, relative
/// to Ampere and Ada. PyTorch's SDPA and the diffusion repositories run
/// FlashAttention-2, which reaches 50–73 % of peak on an A100 (Dao 2023,
/// arXiv 2307.08691, abstract) but "only 35 % utilization" on an H100,
/// whose tensor cores need asynchronous warpgroup instructions it does not
/// use (Shah et al. 2024, FlashAttention-3, arXiv 2407.08608, abstract).
/// That is a ceiling of FlashAttention-2's instruction path, set by the SMs
/// and their clock, not a fraction of every part's tensor peak: it is
/// taken as 0.35 / 0.73 of the H100 SXM's dense BF16 rate scaled by the
/// part's FP32 (CUDA-core) rate, which counts SMs × clock, against the
/// H100 SXM's ([`H100_SXM_BF16_PER_FP32`]). A part whose tensor rate is cut
/// below what its SMs could issue lies under the ceiling and reaches the
/// Ampere share: the H20 (148 TFLOPS BF16, 44 FP32) runs HunyuanVideo only
/// 3.5× slower than an H100 (6,639 vs 1,904 s, xDiT's HunyuanVideo
/// performance page) although its peak is 6.7× lower. The H100 PCIe keeps
/// the H100 SXM's share (both rates scale together); Blackwell's tensor
/// cores need their own instructions again, so an HBM Blackwell part gets
/// the same ceiling per unit of FP32 rate (B200: 0.24 of its peak). AMD
/// CDNA parts get it too: PyTorch's SDPA there dispatches to AOTriton's
/// Triton FlashAttention-2 kernels, which run 18–62 % slower than AMD's
/// hand-scheduled AITER kernels on an MI300X because of how they schedule
/// the matrix cores (M. Diareshadi, "attn-dsl-bench", midiareshadi.github.io
/// /blog/attn-dsl-bench/, read 2026-12-02) — the same instruction-path
/// ceiling, per unit of the unpacked FP32 vector rate
/// ([`precision::fp32_vector_flops`]; MI300X 81.7 TFLOPS: 0.44 of its
/// peak, MI355X 78.6: 0.22). Parts without an FP32 figure keep the H100
/// SXM's share. This is why a video DiT,
/// whose time is mostly attention over 20k–120k tokens, runs only about 2×
/// faster on an H100 than on an A100 (CogVideoX 180 vs 90 s, HunyuanVideo
/// 3600 vs 1800 s) although the H100's dense rate is 3.2× higher.
pub fn attention_share(gpu: &Gpu) -> f64 {
    let hbm_blackwell = gpu.arch.as_str() == "blackwell" && gpu.memory_type.starts_with("HBM");
    let cdna = matches!(gpu.arch.as_str(), "cdna2" | "cdna3" | "cdna4");
    if !(gpu.arch.as_str() == "hopper" || hbm_blackwell || cdna) {
        return 1.0;
    }
    match fp32_vector_tflops(gpu) {
        Some(fp32) if fp32 > 0.0 && gpu.bf16_tflops > 0.0 => {
            (FA2_HOPPER_SHARE * H100_SXM_BF16_PER_FP32 * fp32 / gpu.bf16_tflops).min(1.0)
        }
        _ => FA2_HOPPER_SHARE,
    }
}

pub const FA2_HOPPER_SHARE: f64 = 0.35 / 0.73;

/// Dense BF16 over FP32 (non-tensor) TFLOPS of the H100 SXM, the part the
/// FlashAttention-3 paper measured: 989 / 67 (NVIDIA H100 datasheet).
pub const H100_SXM_BF16_PER_FP32: f64 = 989.0 / 67.0;

/// bitsandbytes LLM.int8() (`int8-bnb`) runs each weight matmul as an int8
/// GEMM over the non-outlier columns, a 16-bit GEMM over the outlier
/// columns, and quantise / dequantise passes around them (Dettmers et al.
/// 2022, §3.2); its maintainer states the kernels were designed for
/// training and are slow for inference (bitsandbytes issue 490; diffusers
/// issue 6500: "never faster than fp16"). Modelled as the weight matmuls
/// running at this share of the 16-bit tensor rate, fitted by
/// `tools::media_fit::fit` on the fit rows in that format (FLUX.1-dev on an
/// H100, 27 s against 12 s in BF16: huggingface/blog
/// diffusers-quantization.md).
pub const BNB_INT8_MATMUL_FRACTION: f64 = 0.265;

/// One denoiser forward pass of the job's `batch` samples on one GPU (no
/// guidance rows, no steps: what a training micro-batch runs), split by
/// what sets each part's time, at the class's fitted efficiency
/// ([`efficiency`]); the parts the efficiency does not scale (SM issue,
/// UNet CUDA-core work) as [`MediaJob::speed_with`] adds them.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct ForwardPass {
    /// Weight matmuls and convolutions at the executed precision's rate.
    pub linear_s: f64,
    /// Attention scores (QKᵀ, AV) at 16 bits and the part's attention share.
    pub attention_s: f64,
    /// SM issue time of a diffusion transformer's weight matmuls, or a
    /// UNet's CUDA-core work ([`UNET_VECTOR_FLOPS_PER_TOKEN`]).
    pub cuda_core_s: f64,
    /// Host (CPU) time of launching one forward's kernels: a UNet forward
    /// ([`super::HOST_S_UNET_FORWARD`]), or layers × the seconds per layer pass.
    pub host_s: f64,
}

impl<'a> MediaJob<'a> {
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
        let host_s = self.host_units() * host_s_per_unit(self.efficiency_class());
        let vector_s = self.unet_vector_s(gpu);
        let issue_s = self.dit_issue_s(gpu);
        let gpu_denoise_s = ideal_denoise / eff + fixed + vector_s + issue_s;
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
            bnb_matmul_16bit_s: self.bnb_matmul_16bit_s(gpu),
            vector_s,
            issue_s,
        }
    }

    /// One forward pass of the batch (see [`ForwardPass`]).
    pub fn forward_pass(&self, gpu: &Gpu) -> ForwardPass {
        let eff = efficiency(self.efficiency_class());
        let exec = self.precision.executed(gpu);
        let unet = self.model.arch == MediaArch::Unet;
        let bnb = if self.precision.id == "int8-bnb" { BNB_INT8_MATMUL_FRACTION } else { 1.0 };
        let lin_rate = matmul_flops(gpu, exec, unet) * bnb;
        let attn_rate = if exec == Compute::Fp32 {
            precision::tensor_flops(gpu, Compute::Fp32)
        } else {
            precision::tensor_flops(gpu, Compute::Bf16)
        };
        let pass = self.pass_flops();
        let b = self.batch_f();
        let cuda_core_s = match self.efficiency_class() {
            EffClass::ImageDit | EffClass::Video => {
                b * pass.linear / (DIT_LINEAR_FLOPS_PER_SM_CYCLE * sm_cycles_per_s(gpu)).max(1.0)
            }
            EffClass::ImageUnet => {
                b * UNET_VECTOR_FLOPS_PER_TOKEN * self.latent_tokens()
                    / precision::fp32_vector_flops(gpu).max(1.0)
            }
            _ => 0.0,
        };
        let host_s = match self.efficiency_class() {
            EffClass::ImageUnet => host_s_per_unit(EffClass::ImageUnet),
            _ => f(self.model.layers.unwrap_or(0)) * self.host_s_per_layer_pass(),
        };
        ForwardPass {
            linear_s: b * pass.linear / lin_rate.max(1.0) / eff,
            attention_s: b * pass.attention / (attn_rate * attention_share(gpu)).max(1.0) / eff,
            cuda_core_s,
            host_s,
        }
    }

    /// Diffusion transformers' SM issue time: the passes' weight-matmul
    /// FLOPs at [`DIT_LINEAR_FLOPS_PER_SM_CYCLE`] per SM cycle
    /// ([`sm_cycles_per_s`]), in series with the tensor-core time. 0 for
    /// UNets (their CUDA-core work is [`UNET_VECTOR_FLOPS_PER_TOKEN`]), audio
    /// and autoregressive models.
    fn dit_issue_s(&self, gpu: &Gpu) -> f64 {
        if !matches!(self.efficiency_class(), EffClass::ImageDit | EffClass::Video) {
            return 0.0;
        }
        let passes = f(self.steps) * self.cfg() * self.batch_f();
        passes * self.pass_flops().linear / (DIT_LINEAR_FLOPS_PER_SM_CYCLE * sm_cycles_per_s(gpu)).max(1.0)
    }

    /// UNet passes' CUDA-core work: [`UNET_VECTOR_FLOPS_PER_TOKEN`] per
    /// latent token per pass at the FP32 vector (non-tensor) rate
    /// ([`precision::fp32_vector_flops`]: `fp32_tflops`, unpacked on CDNA3/4,
    /// scaled like every rate by the GPU's sustained fraction).
    fn unet_vector_s(&self, gpu: &Gpu) -> f64 {
        if self.model.arch != MediaArch::Unet {
            return 0.0;
        }
        let rate = precision::fp32_vector_flops(gpu);
        f(self.steps) * self.cfg() * self.batch_f() * UNET_VECTOR_FLOPS_PER_TOKEN * self.latent_tokens()
            / rate.max(1.0)
    }

    /// Ideal seconds of a bitsandbytes int8 job's weight matmuls at the
    /// 16-bit rate (0 for other formats and autoregressive models).
    fn bnb_matmul_16bit_s(&self, gpu: &Gpu) -> f64 {
        if self.precision.id != "int8-bnb" || self.model.arch == MediaArch::Ar {
            return 0.0;
        }
        let rate = matmul_flops(gpu, self.precision.executed(gpu), self.model.arch == MediaArch::Unet);
        f(self.steps) * self.cfg() * self.batch_f() * self.pass_flops().linear / rate.max(1.0)
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
        let unet = self.model.arch == MediaArch::Unet;
        let bnb = if self.precision.id == "int8-bnb" { BNB_INT8_MATMUL_FRACTION } else { 1.0 };
        let lin_rate = matmul_flops(gpu, exec, unet) * bnb;
        // Attention runs at 16 bits (SDPA / FlashAttention), or in fp32 on
        // an fp32 pipeline, where it is matmuls again (no TF32 by default).
        let attn_rate = if exec == Compute::Fp32 {
            precision::tensor_flops(gpu, Compute::Fp32)
        } else {
            precision::tensor_flops(gpu, Compute::Bf16)
        };
        // The VAE decoder is convolutions: TF32 in an fp32 pipeline.
        let conv_rate = if exec == Compute::Fp32 { tf32_flops(gpu) } else { attn_rate };
        let pass = self.pass_flops();
        let compute =
            pass.linear / lin_rate.max(1.0) + pass.attention / (attn_rate * attention_share(gpu)).max(1.0);
        let weights = self.weights().denoiser / gpu.bandwidth_bytes_per_s().max(1.0);
        let passes = f(self.steps) * self.cfg() * self.batch_f();
        let per_pass = compute.max(weights / self.batch_f());
        let denoise = passes * per_pass;
        let decode = match self.model.kind {
            MediaKind::Audio => 0.0,
            _ => {
                let frames = if self.model.kind == MediaKind::Video { f(self.frames.max(1)) } else { 1.0 };
                // An upcast VAE runs its convolutions in fp32, on TF32
                // tensor cores (cuDNN's `allow_tf32` defaults to True).
                let vae_rate = if self.vae_upcast() { tf32_flops(gpu) } else { conv_rate };
                VAE_DECODE_FLOPS_PER_PIXEL * f(self.width) * f(self.height) * frames * self.batch_f()
                    / vae_rate.max(1.0)
            }
        };
        let fixed = if self.flash {
            0.0
        } else {
            match self.heads() {
                Some(heads) => {
                    let (n, layers) = self.attention_map();
                    passes * layers * 4.0 * heads * n * n * self.pipeline_bytes()
                        / gpu.bandwidth_bytes_per_s().max(1.0)
                }
                None => 0.0,
            }
        };
        (denoise, decode, fixed)
    }
}
