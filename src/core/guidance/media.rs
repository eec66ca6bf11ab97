//! Guidance for generating images, video and audio.

use super::super::answer::{Answer, GuidanceItem};
use super::super::catalog::gpus::Vendor;
use super::super::catalog::media::{MediaArch, MediaKind};
use super::super::catalog::{Catalog, Gpu};
use super::super::estimate::media::{MediaJob, MediaSpeed};
use super::super::messages::Msg;
use super::super::settings::Settings;
use super::super::units::GIB;
use super::shared::{billing_rounding, gib1, gpu_size, spot, suggestions, tight_memory};

fn item(id: &'static str, title: Option<&'static str>, msg: Msg) -> GuidanceItem {
    GuidanceItem::new(id, title, msg)
}

pub fn guidance(cfg: &Settings, j: &MediaJob<'_>, catalog: &Catalog, a: &Answer) -> Vec<GuidanceItem> {
    let mem = j.memory();
    let mut out = vec![memory(j)];
    out.push(spot(cfg, a));
    let pick = a.pick();
    // The pick's card and its speed there, once for the sentences below.
    let on_pick = pick.and_then(|p| catalog.gpu(&p.gpu)).map(|gpu| (gpu, j.speed(gpu)));
    // Small models at small batches wait on the host, not the GPU.
    let host_bound = on_pick.as_ref().is_some_and(|(_, s)| s.host_s > 0.0 && s.host_s >= s.gpu_denoise_s);
    out.push(gpu_size(a, None, host_bound));
    if let Some(p) = pick {
        if let Some((gpu, s)) = on_pick {
            out.extend(speed_items(j, gpu, &s, host_bound));
        }
        out.extend(super::shared::prices_note(p));
    } else {
        out.push(super::shared::no_pick(cfg, a, Msg::new("g.media.nofit")));
    }
    if !cfg.enc_offload && mem.parts.text_encoders > 2.0 * GIB {
        out.push(item(
            "enc-offload",
            None,
            Msg::new("g.media.offload").arg("enc", gib1(mem.parts.text_encoders)),
        ));
    }
    out.extend(billing_rounding(cfg, a));
    out.extend(tight_memory(cfg, a));
    out.extend(suggestions(a));
    out
}

/// How much memory the job takes and where it goes.
fn memory(j: &MediaJob<'_>) -> GuidanceItem {
    let mem = j.memory();
    item(
        "memory",
        Some("g.memory.title"),
        Msg::new("g.media.memory.body")
            .arg("total", gib1(mem.total))
            .arg("weights", gib1(mem.weights_bytes))
            // The generating network: a denoiser (UNet, DiT, flow), or the
            // autoregressive decoder of MusicGen, XTTS and Bark.
            .sub(
                "core",
                Msg::new(if j.model.arch == MediaArch::Ar {
                    "g.media.part.decoder"
                } else {
                    "g.media.part.denoiser"
                }),
            )
            .arg("denoiser", gib1(mem.parts.denoiser))
            .arg("enc", gib1(mem.parts.text_encoders))
            .arg("vae", gib1(mem.parts.vae))
            .arg("act", gib1(mem.activations_bytes))
            .arg("batch", j.batch.to_string())
            // What one item is, in the page's language (size, frames, seconds).
            .sub(
                "res",
                match j.model.kind {
                    MediaKind::Image => {
                        Msg::new("g.media.res.image").arg("size", format!("{}×{}", j.width, j.height))
                    }
                    MediaKind::Video => Msg::new("g.media.res.video")
                        .arg("size", format!("{}×{}", j.width, j.height))
                        .arg("frames", j.frames.to_string()),
                    MediaKind::Audio => Msg::new("g.media.res.audio").num("seconds", j.seconds, 0),
                },
            )
            .arg("overhead", gib1(mem.overhead_bytes)),
    )
}

/// The pick's speed on its card, where PyTorch runs off NVIDIA, and a
/// host-bound note where the host outlasts the GPU.
fn speed_items(j: &MediaJob<'_>, gpu: &Gpu, s: &MediaSpeed, host_bound: bool) -> Vec<GuidanceItem> {
    let mut out = Vec::new();
    let msg = match j.model.kind {
        MediaKind::Image => Msg::new("g.media.speed.image")
            .arg("s", format!("{:.1}", s.seconds_per_item))
            .arg("gpu", gpu.name.clone())
            .arg("per_hour", format!("{:.0}", s.items_per_hour))
            .arg("steps", j.steps.to_string()),
        MediaKind::Video => Msg::new("g.media.speed.video")
            .arg("s", format!("{:.0}", s.seconds_per_item))
            .arg("gpu", gpu.name.clone())
            .arg("tokens", format!("{:.0}", j.sequence_tokens())),
        MediaKind::Audio => Msg::new("g.media.speed.audio")
            .arg("gpu", gpu.name.clone())
            .arg("rtf", format!("{:.1}", s.realtime_factor.unwrap_or(0.0))),
    };
    out.push(item("media-speed", None, msg));
    // Generation pipelines have no row in the support matrix: off
    // NVIDIA, say where PyTorch runs them, for the reader to check.
    // (PyTorch's ROCm builds, pytorch.org/get-started; Ascend's
    // torch_npu, github.com/Ascend/pytorch; Gaudi's PyTorch bridge,
    // github.com/huggingface/optimum-habana.)
    let stack = match gpu.vendor {
        Vendor::Nvidia => None,
        Vendor::Amd => Some("PyTorch for ROCm"),
        Vendor::Huawei => Some("torch_npu"),
        Vendor::Intel => Some("optimum-habana"),
    };
    if let Some(stack) = stack {
        out.push(item(
            "vendor",
            None,
            Msg::new("g.media.vendor").arg("gpu", gpu.name.clone()).arg("stack", stack),
        ));
    }
    let gpu_s = s.gpu_denoise_s;
    if host_bound {
        out.push(item(
            "host-bound",
            None,
            Msg::new("g.media.hostbound")
                .num("batch", f64::from(j.batch), 0)
                .num("host", s.host_s, 1)
                .num("gpu", gpu_s, 1),
        ));
    }
    out
}
