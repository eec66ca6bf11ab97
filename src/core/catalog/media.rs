//! The image / video / audio generator table (`static/media_models.csv`):
//! component parameter counts, latent geometry, guidance passes, defaults
//! and audio token rates, each row with its sources. Blank cells mean "not
//! read from a source", never zero: they stay `None` here and the estimator
//! (`estimate::media`) degrades explicitly where it needs one.

use super::super::table::{is_id, Row, Table, TableError};

#[cfg(not(target_arch = "wasm32"))]
pub(crate) const MEDIA_CSV: &str = bundled_table!("media_models.csv");

pub const MEDIA_COLUMNS: &[&str] = &[
    "id",
    "name",
    "kind",
    "arch",
    "denoiser_params_b",
    "token_params_b",
    "text_encoder_params_b",
    "text_encoders",
    "vae_params_b",
    "other_params_b",
    "hidden_size",
    "layers",
    "latent_channels",
    "spatial_downsample",
    "temporal_downsample",
    "patch_size",
    "cfg_passes",
    "default_steps",
    "default_width",
    "default_height",
    "default_frames",
    "default_fps",
    "audio_frame_rate_hz",
    "audio_codebooks",
    "default_seconds",
    "heads",
    "attn_downsample",
    "pass_tflops_ref",
    "joint_text_tokens",
    "ar_steps_per_audio_s",
    "audio_window_s",
    "eager_kernels_per_layer",
    "vae_upcast_fp16",
    "native_dtype",
    "source",
    "notes",
];

/// What a model generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaKind {
    Image,
    Video,
    Audio,
}

impl MediaKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MediaKind::Image => "image",
            MediaKind::Video => "video",
            MediaKind::Audio => "audio",
        }
    }
}

/// How the generator computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MediaArch {
    /// Convolutional UNet with attention at the lower resolutions (SD 1.x, SDXL).
    Unet,
    /// Diffusion transformer over latent patches (DiT, MMDiT).
    Dit,
    /// Flow-matching transformer over audio frames (F5-TTS).
    FlowDit,
    /// Autoregressive decoder over audio tokens (MusicGen, XTTS, Bark).
    Ar,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MediaModel {
    pub id: String,
    pub name: String,
    pub kind: MediaKind,
    pub arch: MediaArch,
    /// Parameters of the denoiser (UNet/DiT) or of one autoregressive stage.
    pub denoiser_params: Option<f64>,
    /// Diffusion transformers: the denoiser weights each token multiplies in
    /// a pass (one stream of a dual-stream block; adaLN modulation, which
    /// acts once per sample, and text-only weights left out). Blank: every
    /// denoiser weight.
    pub token_params: Option<f64>,
    /// Parameters of all text encoders together.
    pub text_encoder_params: Option<f64>,
    pub text_encoders: String,
    /// Parameters of the VAE / audio codec.
    pub vae_params: Option<f64>,
    /// Any other resident weights (extra stages, vocoders).
    pub other_params: Option<f64>,
    /// DiT width; UNet: deepest width.
    pub hidden: Option<u32>,
    /// DiT blocks; UNet: self-attention layers at the highest-resolution
    /// attention level; AR: decoder layers.
    pub layers: Option<u32>,
    pub latent_channels: Option<u32>,
    pub spatial_downsample: Option<u32>,
    pub temporal_downsample: Option<u32>,
    pub patch: Option<u32>,
    /// Denoiser passes per step: 2 with classifier-free guidance, 1 when
    /// guidance is distilled into the model.
    pub cfg_passes: Option<u32>,
    pub default_steps: Option<u32>,
    pub default_width: Option<u32>,
    pub default_height: Option<u32>,
    pub default_frames: Option<u32>,
    pub default_fps: Option<f64>,
    /// Codec / latent / mel frames per second of audio.
    pub audio_frame_rate_hz: Option<f64>,
    pub audio_codebooks: Option<u32>,
    pub default_seconds: Option<f64>,
    /// Attention heads (UNet: at the highest-resolution attention level).
    pub heads: Option<u32>,
    /// UNet: latent downsampling of the highest-resolution attention level.
    pub attn_downsample: Option<u32>,
    /// UNet: published TFLOPs of one denoiser pass for one sample at the
    /// default resolution.
    pub pass_tflops_ref: Option<f64>,
    /// Text tokens that join the image tokens in the attention (MMDiT).
    pub joint_text_tokens: Option<u32>,
    /// Autoregressive decoder steps per second of audio.
    pub ar_steps_per_audio_s: Option<f64>,
    /// Audio diffusion over a fixed latent window: the denoiser always runs
    /// this many seconds and the clip is cut from it (Stable Audio Open:
    /// `sample_size` 2 097 152 samples at 44.1 kHz = 47.55 s).
    pub audio_window_s: Option<f64>,
    /// Kernels one decoder layer launches per step in PyTorch eager mode,
    /// counted in the model's reference implementation (see the notes).
    pub eager_kernels_per_layer: Option<f64>,
    /// The pipeline decodes with the VAE cast to fp32 when it runs in fp16
    /// (diffusers' SDXL pipelines: `force_upcast` in the VAE config); `1`
    /// in the table, blank = no.
    pub vae_upcast_fp16: bool,
    pub native_dtype: Option<String>,
    pub source: String,
    pub notes: String,
}

impl MediaModel {
    pub fn find<'a>(models: &'a [MediaModel], id: &str) -> Option<&'a MediaModel> {
        models.iter().find(|m| m.id == id)
    }
}

fn opt_params(row: &Row<'_>, field: &str) -> Result<Option<f64>, TableError> {
    match row.opt_f64(field)? {
        Some(v) if v <= 0.0 => Err(row.error(field, format!("must be positive, got {v}"))),
        Some(v) => Ok(Some(v * 1e9)),
        None => Ok(None),
    }
}

fn opt_positive(row: &Row<'_>, field: &str) -> Result<Option<f64>, TableError> {
    match row.opt_f64(field)? {
        Some(v) if v <= 0.0 => Err(row.error(field, format!("must be positive, got {v}"))),
        v => Ok(v),
    }
}

fn opt_count(row: &Row<'_>, field: &str) -> Result<Option<u32>, TableError> {
    match row.opt_u32(field)? {
        Some(0) => Err(row.error(field, "must be at least 1")),
        v => Ok(v),
    }
}

pub fn parse_media(text: &str) -> Result<Vec<MediaModel>, TableError> {
    let table = Table::parse("media_models.csv", text, MEDIA_COLUMNS)?;
    let mut out: Vec<MediaModel> = Vec::with_capacity(table.len());
    for row in table.rows() {
        let id = row.req_str("id")?;
        if !is_id(&id) {
            return Err(
                row.error("id", format!("`{}` is not a lowercase id", super::super::table::clip(&id)))
            );
        }
        if out.iter().any(|m| m.id == id) {
            return Err(row.error("id", format!("duplicate id `{id}`")));
        }
        let kind = match row.text("kind") {
            "image" => MediaKind::Image,
            "video" => MediaKind::Video,
            "audio" => MediaKind::Audio,
            t => {
                return Err(
                    row.error("kind", format!("`{}` is not image|video|audio", super::super::table::clip(t)))
                )
            }
        };
        let arch = match row.text("arch") {
            "unet" => MediaArch::Unet,
            "dit" => MediaArch::Dit,
            "flow-dit" => MediaArch::FlowDit,
            "ar" => MediaArch::Ar,
            t => {
                return Err(row.error(
                    "arch",
                    format!("`{}` is not unet|dit|flow-dit|ar", super::super::table::clip(t)),
                ))
            }
        };
        let native = row.text("native_dtype");
        out.push(MediaModel {
            id,
            name: row.req_str("name")?,
            kind,
            arch,
            denoiser_params: opt_params(&row, "denoiser_params_b")?,
            token_params: opt_params(&row, "token_params_b")?,
            text_encoder_params: opt_params(&row, "text_encoder_params_b")?,
            text_encoders: row.text("text_encoders").to_string(),
            vae_params: opt_params(&row, "vae_params_b")?,
            other_params: opt_params(&row, "other_params_b")?,
            hidden: opt_count(&row, "hidden_size")?,
            layers: opt_count(&row, "layers")?,
            latent_channels: opt_count(&row, "latent_channels")?,
            spatial_downsample: opt_count(&row, "spatial_downsample")?,
            temporal_downsample: opt_count(&row, "temporal_downsample")?,
            patch: opt_count(&row, "patch_size")?,
            cfg_passes: opt_count(&row, "cfg_passes")?,
            default_steps: opt_count(&row, "default_steps")?,
            default_width: opt_count(&row, "default_width")?,
            default_height: opt_count(&row, "default_height")?,
            default_frames: opt_count(&row, "default_frames")?,
            default_fps: opt_positive(&row, "default_fps")?,
            audio_frame_rate_hz: opt_positive(&row, "audio_frame_rate_hz")?,
            audio_codebooks: opt_count(&row, "audio_codebooks")?,
            default_seconds: opt_positive(&row, "default_seconds")?,
            heads: opt_count(&row, "heads")?,
            attn_downsample: opt_count(&row, "attn_downsample")?,
            pass_tflops_ref: opt_positive(&row, "pass_tflops_ref")?,
            joint_text_tokens: row.opt_u32("joint_text_tokens")?,
            ar_steps_per_audio_s: opt_positive(&row, "ar_steps_per_audio_s")?,
            audio_window_s: opt_positive(&row, "audio_window_s")?,
            eager_kernels_per_layer: opt_positive(&row, "eager_kernels_per_layer")?,
            vae_upcast_fp16: match row.text("vae_upcast_fp16") {
                "" | "0" => false,
                "1" => true,
                t => {
                    return Err(row
                        .error("vae_upcast_fp16", format!("`{}` is not 0|1", super::super::table::clip(t))))
                }
            },
            native_dtype: if native.is_empty() { None } else { Some(native.to_string()) },
            source: row.req_source()?,
            notes: row.text("notes").to_string(),
        });
    }
    Ok(out)
}

/// The media table compiled into this build, parsed once.
#[cfg(not(target_arch = "wasm32"))]
pub fn bundled_media() -> Result<&'static [MediaModel], TableError> {
    static CELL: std::sync::OnceLock<Result<Vec<MediaModel>, TableError>> = std::sync::OnceLock::new();
    CELL.get_or_init(|| parse_media(MEDIA_CSV)).as_ref().map(Vec::as_slice).map_err(Clone::clone)
}
