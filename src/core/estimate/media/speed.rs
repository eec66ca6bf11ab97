//! Time of one job on one GPU: the compute roofline of diffusion / flow
//! passes and the VAE decode, the host-time floor, and the efficiency of
//! the class. It never fits the factors (`efficiency.rs`) or counts memory.

use super::{efficiency, f, EffClass, MediaJob};
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
pub(super) fn matmul_flops(gpu: &Gpu, c: Compute) -> f64 {
    match c {
        Compute::Fp32 => tf32_flops(gpu),
        c => precision::tensor_flops(gpu, c),
    }
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
}
