//! What one diffusion / flow denoiser pass sees, for image, video and
//! flow-audio models: latent frames and tokens, the joint text tokens,
//! attention heads and the widest attention map, and the FLOPs of a pass.
//! Pure functions of the model row and the job; it never times a pass
//! (`speed.rs`) or counts memory (`mod.rs`).

use super::job::{f, MediaJob};
use crate::core::catalog::media::{MediaArch, MediaKind};

/// UNet FLOPs per parameter per latent pixel per pass, from SDXL's published
/// pass cost: 6.03e12 / (2 × 2.567e9 × 128²) = 0.0717 of the dense
/// 2·params·tokens count (convolutions and attention run on down-sampled
/// maps). Used only for UNets without a published figure (SDXL refiner).
pub const UNET_FLOPS_FRACTION: f64 = 6.03e12 / (2.0 * 2.567e9 * 16384.0);

/// Head width assumed when a DiT row gives no head count (64 in SD3, PixArt,
/// CogVideoX, LTX; 128 in FLUX, Wan, HunyuanVideo, whose rows give heads).
pub const DEFAULT_HEAD_DIM: f64 = 64.0;

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

impl<'a> MediaJob<'a> {
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

    pub(super) fn heads(&self) -> Option<f64> {
        match (self.model.heads, self.model.hidden) {
            (Some(h), _) => Some(f(h)),
            (None, Some(w)) if self.model.arch != MediaArch::Unet => Some((f(w) / DEFAULT_HEAD_DIM).max(1.0)),
            _ => None,
        }
    }

    /// Tokens and self-attention layers at the widest attention map (UNet:
    /// the highest-resolution attention level; DiT: every block).
    pub(super) fn attention_map(&self) -> (f64, f64) {
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
    /// §2.1; DiT Gflops, Peebles & Xie 2023), with the parameters each token
    /// multiplies (`token_params_b`: one stream of a dual-stream MMDiT block,
    /// no adaLN modulation — FLUX.1 6.46 of 11.9 B) where the row gives them, plus 4·layers·hidden·tokens²
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
                PassFlops { linear: 2.0 * m.token_params.unwrap_or(params) * n, attention }
            }
        }
    }
}
