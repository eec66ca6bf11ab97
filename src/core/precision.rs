//! Number formats: how many bits each weight and each KV-cache element
//! takes, and which tensor-core precision actually executes the math.

use super::catalog::gpus::Arch;
use super::catalog::Gpu;

/// How the matrix multiplies of a format run on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compute {
    Fp32,
    Bf16,
    Fp8,
    Int8,
    Fp4,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightFormat {
    pub id: &'static str,
    /// Bits per weight of the transformer body, scales included.
    pub body_bits: f64,
    /// Bits per weight of the token embedding and output head, which most
    /// engines keep at 16 bits when they quantize the body.
    pub embed_bits: f64,
    /// Weight-only quantization: weights are dequantized on the fly (extra
    /// CUDA-core work per weight) and the math runs at 16 bits.
    pub weight_only: bool,
    /// Precision the math wants; [`WeightFormat::executed`] falls back when the GPU lacks it.
    pub compute: Compute,
    pub gguf: bool,
}

/// 16-bit brain float: the format every model falls back to.
pub const BF16: WeightFormat = WeightFormat {
    id: "bf16",
    body_bits: 16.0,
    embed_bits: 16.0,
    weight_only: false,
    compute: Compute::Bf16,
    gguf: false,
};

/// Bits for group-wise 4-bit formats: 4 bits plus a 16-bit scale and a
/// 4-bit zero point per group of 128 (AWQ, Lin et al. 2023; GPTQ, Frantar et
/// al. 2022, as packed by AutoAWQ/AutoGPTQ).
const G32_SCALE_ZERO_BITS: f64 = 16.0 + 16.0;
const G32_GROUP: f64 = 32.0;

const INT4_G128_BITS: f64 = 4.0 + (16.0 + 4.0) / 128.0;

/// GGUF files: effective bits per weight over the whole file, from the sizes
/// `llama-quantize --help` lists for Llama-3-8B (8.03 B parameters):
/// size_GiB × 2^30 × 8 / 8.03e9 (ggml-org/llama.cpp tools/quantize/README.md).
const fn gguf_bits(size_gib_at_llama3_8b: f64) -> f64 {
    size_gib_at_llama3_8b * 1_073_741_824.0 * 8.0 / 8.03e9
}

const fn plain(id: &'static str, bits: f64, compute: Compute) -> WeightFormat {
    WeightFormat { id, body_bits: bits, embed_bits: bits, weight_only: false, compute, gguf: false }
}

const fn wo(id: &'static str, bits: f64) -> WeightFormat {
    WeightFormat {
        id,
        body_bits: bits,
        embed_bits: 16.0,
        weight_only: true,
        compute: Compute::Bf16,
        gguf: false,
    }
}

const fn gguf(id: &'static str, gib: f64) -> WeightFormat {
    let b = gguf_bits(gib);
    // Prompt processing dequantizes to FP16 GEMMs: measured llama.cpp
    // prefill is no faster with Q4_K_M than with F16 (calibration rows
    // v014 vs v028), so the math is taken to run at 16 bits.
    WeightFormat { id, body_bits: b, embed_bits: b, weight_only: true, compute: Compute::Bf16, gguf: true }
}

pub fn weight_formats() -> [WeightFormat; 23] {
    WEIGHT_FORMATS
}

/// The table [`weight_formats`] copies, worked out when compiling (one
/// table in the page's Wasm instead of code that builds it at each use).
static WEIGHT_FORMATS: [WeightFormat; 23] = [
    WeightFormat { embed_bits: 32.0, ..plain("fp32", 32.0, Compute::Fp32) },
    plain("bf16", 16.0, Compute::Bf16),
    plain("fp16", 16.0, Compute::Bf16),
    // FP8 W8A8 (per-tensor scales): embeddings and lm_head stay 16-bit
    // in vLLM / TensorRT-LLM ModelOpt checkpoints.
    WeightFormat { embed_bits: 16.0, ..plain("fp8", 8.0, Compute::Fp8) },
    // INT8 W8A8 (SmoothQuant) where the engine has kernels; weight-only otherwise.
    WeightFormat { embed_bits: 16.0, ..plain("int8", 8.0, Compute::Int8) },
    // Weight-only int8 with per-channel scales (torchao / gpt-fast `int8`).
    wo("int8-wo", 8.0),
    // bitsandbytes LLM.int8(): int8 weights, fp16 outlier columns (Dettmers et al. 2022).
    wo("int8-bnb", 8.0),
    wo("int4-awq", INT4_G128_BITS),
    wo("int4-gptq", INT4_G128_BITS),
    // gpt-fast int4 with group size 32: bf16 scale + bf16 zero per 32 weights.
    wo("int4-g32", 4.0 + G32_SCALE_ZERO_BITS / G32_GROUP),
    // NF4 with double quantization: 4 + 8/64 + 32/(64·256) = 4.127 bits
    // (QLoRA, Dettmers et al. 2023, §3).
    wo("nf4", 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)),
    // MXFP4: 4-bit E2M1 elements with one 8-bit scale per 32 (OCP MX spec v1.0).
    WeightFormat { compute: Compute::Fp4, ..wo("mxfp4", 4.0 + 8.0 / 32.0) },
    gguf("gguf-q2_k", 2.96),
    gguf("gguf-q3_k_m", 3.74),
    gguf("gguf-q4_0", 4.34),
    gguf("gguf-q4_1", 4.78),
    gguf("gguf-q4_k_s", 4.37),
    gguf("gguf-q4_k_m", 4.58),
    gguf("gguf-q5_0", 5.21),
    gguf("gguf-q5_k_m", 5.33),
    gguf("gguf-q6_k", 6.14),
    gguf("gguf-q8_0", 7.96),
    WeightFormat {
        id: "gguf-f16",
        body_bits: 16.0,
        embed_bits: 16.0,
        weight_only: false,
        compute: Compute::Bf16,
        gguf: true,
    },
];

/// Formats that image, video and audio generators are published or run in:
/// full and half precision, FP8 checkpoints (FLUX, SD 3.5, Wan), int8
/// (TensorRT and torchao weight-only, bitsandbytes), NF4 (bitsandbytes via
/// diffusers) and GGUF files (ComfyUI-GGUF, diffusers' GGUF loader). The
/// AWQ/GPTQ/g32 int4 and MXFP4 formats are language-model kernels.
pub fn is_media_format(id: &str) -> bool {
    matches!(id, "fp32" | "bf16" | "fp16" | "fp8" | "int8" | "int8-wo" | "int8-bnb" | "nf4")
        || id.starts_with("gguf-")
}

pub fn weight_format(id: &str) -> Option<WeightFormat> {
    WEIGHT_FORMATS.iter().find(|f| f.id == id).copied()
}

impl WeightFormat {
    /// The precision the GPU really executes: a format whose math the tensor
    /// cores do not accelerate runs at the next one they do (FP8 on an A100
    /// computes in BF16; weight-only formats dequantize to 16 bits).
    pub fn executed(&self, gpu: &Gpu) -> Compute {
        executed(self.compute, gpu)
    }
}

pub fn executed(want: Compute, gpu: &Gpu) -> Compute {
    match want {
        Compute::Fp4 if gpu.fp4_tflops.is_some() => Compute::Fp4,
        Compute::Fp4 | Compute::Fp8 if gpu.fp8_tflops.is_some() => Compute::Fp8,
        // Pascal's INT8 rate is DP4A on the CUDA cores, not the int8 tensor
        // cores W8A8 GEMMs need (vLLM's hardware table: INT8 W8A8 from
        // Turing, not on Volta; docs.vllm.ai/en/v0.11.2/features/quantization/,
        // read 2026-12-01); only llama.cpp's quantized matmuls use it
        // (`ServeJob::quant_matmul_rate`).
        Compute::Int8 if gpu.int8_tops.is_some() && gpu.arch != Arch::Pascal => Compute::Int8,
        Compute::Fp32 => Compute::Fp32,
        _ => Compute::Bf16,
    }
}

/// Dense tensor rate of a GPU at a precision, in FLOP/s.
pub fn tensor_flops(gpu: &Gpu, c: Compute) -> f64 {
    let tf = match c {
        Compute::Fp4 => gpu.fp4_tflops.unwrap_or(gpu.bf16_tflops),
        Compute::Fp8 => gpu.fp8_tflops.unwrap_or(gpu.bf16_tflops),
        Compute::Int8 => gpu.int8_tops.unwrap_or(gpu.bf16_tflops),
        Compute::Bf16 => gpu.bf16_tflops,
        // FP32 matmuls use TF32 tensor cores by default in PyTorch on Ampere+
        // only when enabled; take the plain FP32 rate.
        Compute::Fp32 => gpu.fp32_tflops.unwrap_or(gpu.bf16_tflops / 8.0),
    };
    tf * 1e12 * gpu.sustained_fraction()
}

/// FP32 rate of the vector (CUDA-core / SIMD) units that run a kernel's
/// non-matrix work (normalisation, activations, softmax, address arithmetic),
/// in FLOP/s, scaled like every rate by the sustained fraction. NVIDIA's
/// FP32 figure is that rate. AMD CDNA3 and CDNA4 state their FP32 figure
/// as the packed-FP32 rate, 256 FLOPs per compute unit per clock (MI300X:
/// 304 CUs × 2.1 GHz × 256 = 163.4 TFLOPS, which AMD's CDNA 3 launch gives
/// as 3.4× the MI250X's 47.9 vector FP32; MI355X: 256 CUs × 2.4 GHz × 256
/// = 157.3), reached only by `v_pk_fma_f32` on pairs of values; ordinary
/// FP32 code issues 64 lanes × FMA = 128 per CU per clock, half the figure.
/// CDNA2 rows already hold the unpacked rate (the MI250X GCD's 23.95 = 110
/// CUs × 1.7 GHz × 128). CU counts: ROCm "AMD GPU specifications"
/// (rocm.docs.amd.com reference/gpu-specs.html, read 2026-12-02: MI355X
/// 256, MI325X 304) and "AMD Instinct MI300 series microarchitecture"
/// (rocm.docs.amd.com docs-6.2.2 conceptual/gpu-arch/mi300.html: 38 active
/// CUs per XCD, up to 304). FP32 matmuls keep [`tensor_flops`] (CDNA3's
/// FP32 matrix cores run at the packed figure).
pub fn fp32_vector_flops(gpu: &Gpu) -> f64 {
    tensor_flops(gpu, Compute::Fp32) / fp32_packing(gpu)
}

/// How many FP32 operations per lane per FMA slot the catalog's FP32 figure
/// counts: 2 on CDNA3/CDNA4 (packed FP32, see [`fp32_vector_flops`]), 1 elsewhere.
pub fn fp32_packing(gpu: &Gpu) -> f64 {
    if matches!(gpu.arch, Arch::Cdna3 | Arch::Cdna4) {
        2.0
    } else {
        1.0
    }
}

/// Bytes per cached key or value element.
pub fn kv_bytes(id: &str) -> Option<f64> {
    Some(match id {
        "bf16" | "fp16" => 2.0,
        "fp8" | "int8" => 1.0,
        // llama.cpp q8_0 / q4_0 blocks: 32 values plus one fp16 scale.
        "q8_0" => 34.0 / 32.0,
        "q4_0" => 18.0 / 32.0,
        "fp32" => 4.0,
        _ => return None,
    })
}

pub const KV_FORMATS: &[&str] = &["bf16", "fp16", "fp8", "int8", "q8_0", "q4_0"];
