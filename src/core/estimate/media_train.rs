//! Fine-tuning image generators (`task=finetune` with an image model):
//! LoRA on the denoiser's attention projections, QLoRA on an NF4 base, or
//! DreamBooth-style full training of the UNet/DiT, as the diffusers
//! training scripts run them.
//!
//! Memory per GPU:
//! - the denoiser: frozen at its format (LoRA/QLoRA), or trained in fp32
//!   (full: the scripts keep the trained model in fp32 under mixed
//!   precision and autocast the forward pass);
//! - text encoders and VAE at 16 bits, unless their outputs are
//!   precomputed (`enc_offload=1`: cached prompt embeddings and latents,
//!   the scripts' `--cache_latents` / precomputed-embedding paths);
//! - trainable parameters in fp32 with fp32 gradients and the optimizer's
//!   states (AdamW 8 bytes, 8-bit AdamW 2, SGD momentum 4, Adafactor ≈ 0);
//! - activations of the micro-batch: for a DiT, Korthikanti et al. 2022
//!   (34·h bytes per token per layer at 16 bits, 2·h with full
//!   recomputation plus one layer's full set, 5·heads·seq more without
//!   memory-efficient attention); for a UNet, whose blocks change width and
//!   resolution, bytes per latent token fitted on measured DreamBooth runs
//!   (`tests/media_train.rs`), scaled by the UNet's size relative to SD 1.5.
//!
//! Time is [`super::media_train_time`]'s.

use super::super::catalog::media::{MediaArch, MediaModel};
use super::super::config::{Checkpointing, Method, Optim};
use super::media::MediaJob;
use super::train::TrainMemory;

/// CUDA context, allocator slack and workspace per GPU (~1 GiB), as for
/// language-model training.
const OVERHEAD_BYTES: f64 = 1_073_741_824.0;

/// UNet activation bytes per latent token per image, SD 1.5-sized UNet,
/// fitted in `tests/media_train.rs` (median over the measured rows of each
/// checkpointing setting): with gradient checkpointing, and without.
pub const UNET_BYTES_PER_TOKEN_GC: f64 = 95_000.0;
pub const UNET_BYTES_PER_TOKEN: f64 = 427_000.0;
/// The UNet those constants were measured on (SD 1.5, 859.5 M parameters).
const UNET_REFERENCE_PARAMS: f64 = 0.8595e9;

/// Hidden-to-hidden linear layers named `to_q`, `to_k`, `to_v` or
/// `to_out.0` in diffusers' model code (huggingface/diffusers@58eb52c0
/// src/diffusers/models/transformers/), where a block holds more or fewer
/// than four: FLUX.1 19 double-stream blocks × 4 and 38 single-stream
/// blocks × 3 (`pre_only` attention has no `to_out`), 190
/// (transformer_flux.py); LTX-Video 28 blocks × 2 attention modules (self
/// and cross, `attn1`/`attn2`, cross-attention dim 2048 = hidden) × 4, 224
/// (transformer_ltx.py); HunyuanVideo 20 double-stream × 4, 40
/// single-stream × 3 and 2 token-refiner blocks × 4, 208
/// (transformer_hunyuan_video.py); CogVideoX-5b 42 blocks × 4, 168
/// (cogvideox_transformer_3d.py). The trainable counts the training runs
/// print agree: FLUX.1 rank 4, 4,669,440 (huggingface/blog flux-qlora.md);
/// rank 128: LTX-Video 117,440,512, HunyuanVideo 163,577,856, CogVideoX-5b
/// 132,120,576 (a-r-r-o-w/finetrainers@eeb4dd7 docs/training/*.md).
/// Catalog facts that live here rather than in `static/media_models.csv`
/// because only fine-tuning reads them (the page's compiled catalog stays
/// as it is).
pub fn lora_projections(model_id: &str) -> Option<f64> {
    match model_id {
        "flux.1-dev" | "flux.1-schnell" => Some(190.0),
        "ltx-video" => Some(224.0),
        "hunyuanvideo" => Some(208.0),
        "cogvideox-5b" => Some(168.0),
        _ => None,
    }
}

/// Blocks of a diffusers `UNet2DConditionModel`, counted from its config
/// (huggingface/diffusers src/diffusers/models/unets/unet_2d_blocks.py:
/// a `CrossAttn*Block2D` holds `layers_per_block` ResNet blocks down and
/// `layers_per_block + 1` up, each followed by one `Transformer2DModel` of
/// `transformer_layers_per_block` `BasicTransformerBlock`s; the mid block
/// two ResNets around one `Transformer2DModel` of the last level's depth).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnetBlocks {
    /// `BasicTransformerBlock`s (self-attention, cross-attention, GEGLU FF).
    pub transformer: f64,
    /// `ResnetBlock2D`s.
    pub resnet: f64,
    /// `Transformer2DModel` wrappers (norm, `proj_in`, `proj_out`).
    pub wrappers: f64,
    /// Down- and upsamplers.
    pub samplers: f64,
}

/// SD 1.5's blocks (see [`unet_blocks`]).
pub const SD15_UNET: UnetBlocks =
    UnetBlocks { transformer: 16.0, resnet: 22.0, wrappers: 16.0, samplers: 6.0 };

/// SD 1.5 (runwayml/stable-diffusion-v1-5 unet/config.json: block_out_channels
/// [320, 640, 1280, 1280], layers_per_block 2, transformer_layers_per_block 1,
/// down CrossAttnDownBlock2D ×3 + DownBlock2D): 6 + 1 + 9 = 16 transformer
/// blocks, 8 + 2 + 12 = 22 ResNets, 16 wrappers, 3 + 3 samplers. SDXL base
/// (stabilityai/stable-diffusion-xl-base-1.0 unet/config.json, as reproduced
/// in public copies: block_out_channels [320, 640, 1280], layers_per_block 2,
/// transformer_layers_per_block [1, 2, 10], down DownBlock2D +
/// CrossAttnDownBlock2D ×2, up CrossAttnUpBlock2D ×2 + UpBlock2D): 2·1·2 +
/// 2·10 down, 10 mid, 3·10 + 3·2 up = 70 transformer blocks; 6 + 2 + 9 = 17
/// ResNets; 4 + 1 + 6 = 11 wrappers; 2 + 2 samplers. Other UNets: unknown.
pub fn unet_blocks(model_id: &str) -> Option<UnetBlocks> {
    match model_id {
        "sd-1.5" => Some(SD15_UNET),
        "sdxl" => Some(UnetBlocks { transformer: 70.0, resnet: 17.0, wrappers: 11.0, samplers: 4.0 }),
        _ => None,
    }
}

#[derive(Debug, Clone)]
pub struct MediaTrainJob<'a> {
    /// Resolution, denoiser format (the frozen base), encoder placement.
    pub job: MediaJob<'a>,
    pub method: Method,
    pub optim: Optim,
    pub gc: Checkpointing,
    pub rank: f64,
    /// Images per optimizer step on one GPU.
    pub mb: f64,
}

impl<'a> MediaTrainJob<'a> {
    pub fn model(&self) -> &'a MediaModel {
        self.job.model
    }

    /// Trainable parameters: the whole denoiser, or LoRA adapters of rank r
    /// on the attention projections the diffusers and finetrainers scripts
    /// target by default (`to_q`, `to_k`, `to_v`, `to_out.0`), r·(d_in +
    /// d_out) each (Hu et al. 2021): the counted projections of
    /// [`lora_projections`], else four per block. For a UNet the table's
    /// width is its deepest, so this overstates the adapters slightly (a
    /// few MB either way).
    pub fn trainable_params(&self) -> f64 {
        let m = self.model();
        match self.method {
            Method::Full => m.denoiser_params.unwrap_or(0.0),
            _ => {
                let h = f64::from(m.hidden.unwrap_or(0));
                let projections = lora_projections(&m.id).unwrap_or(4.0 * f64::from(m.layers.unwrap_or(0)));
                self.rank * 2.0 * h * projections
            }
        }
    }

    fn optimizer_bytes_per_param(&self) -> f64 {
        match self.optim {
            Optim::Adamw => 8.0,
            Optim::Adamw8bit => 2.0,
            Optim::Adafactor => 0.1,
            Optim::Sgd => 0.0,
            Optim::SgdMomentum => 4.0,
        }
    }

    /// Activation bytes stored for the backward pass of one micro-batch.
    pub fn activation_bytes(&self) -> f64 {
        let m = self.model();
        let tokens = self.job.sequence_tokens();
        match m.arch {
            MediaArch::Unet => {
                let per_token = match self.gc {
                    Checkpointing::Full => UNET_BYTES_PER_TOKEN_GC,
                    _ => UNET_BYTES_PER_TOKEN,
                };
                let scale = m.denoiser_params.unwrap_or(UNET_REFERENCE_PARAMS) / UNET_REFERENCE_PARAMS;
                self.mb * self.job.latent_tokens() * per_token * scale
            }
            _ => {
                let h = f64::from(m.hidden.unwrap_or(0));
                let layers = f64::from(m.layers.unwrap_or(0));
                let heads = f64::from(m.heads.unwrap_or(0));
                let scores = if self.job.flash { 0.0 } else { 5.0 * heads * tokens };
                let full_layer = 34.0 * h + scores;
                let per_token = match self.gc {
                    Checkpointing::Full => layers * 2.0 * h + full_layer,
                    Checkpointing::Selective => layers * 34.0 * h + scores,
                    Checkpointing::None => layers * full_layer,
                };
                self.mb * tokens * per_token
            }
        }
    }

    /// Memory per GPU (data parallel: every GPU holds the whole job).
    pub fn memory(&self) -> TrainMemory {
        let m = self.model();
        let parts = self.job.weights();
        let trainable = self.trainable_params();
        let denoiser = match self.method {
            Method::Full => m.denoiser_params.unwrap_or(0.0) * 4.0,
            _ => parts.denoiser + trainable * 4.0,
        };
        // Precomputed prompt embeddings and latents: neither the encoders
        // nor the VAE stay on the GPU.
        let pipeline = if self.job.enc_offload { 0.0 } else { parts.text_encoders + parts.vae };
        TrainMemory {
            weights: denoiser + pipeline + parts.other,
            gradients: trainable * 4.0,
            optimizer: trainable * self.optimizer_bytes_per_param(),
            activations: self.activation_bytes(),
            overhead: OVERHEAD_BYTES,
        }
    }
}
