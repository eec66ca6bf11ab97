//! What limits a media estimate ([`MediaCaveat`]) and the confidence that
//! follows from it. It only reads the model row and the job; it never
//! changes a figure.

use super::job::MediaJob;
use crate::core::catalog::media::{MediaArch, MediaKind};

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

pub use super::super::ranges::Confidence;

impl<'a> MediaJob<'a> {
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
