//! Accelerator and instance names in SkyPilot catalogs mapped to catalog
//! GPU ids: SXM vs PCIe from the instance family, GCP's host machine types,
//! the interconnect a board implies. Names it cannot pin down are errors,
//! never guesses. The accelerator-name table itself is the core's
//! (`core::export::names`), which the SkyPilot export reads the other way.

use crate::core::catalog::Gpu;
pub(super) use crate::core::export::names::{lookup, normalize, Named};
use crate::core::table::clip;

/// GCP machine types that come with exactly these GPUs attached
/// (cloud.google.com/compute/docs/accelerator-optimized-machines: A2 Standard
/// a2-highgpu-{1,2,4,8}g and a2-megagpu-16g with A100 40GB; A2 Ultra
/// a2-ultragpu-{1,2,4,8}g with A100 80GB; A3 High a3-highgpu-{1,2,4,8}g and
/// A3 Mega a3-megagpu-8g with H100; A3 Ultra a3-ultragpu-8g with H200; A4
/// a4-highgpu-8g with B200; G2 g2-standard-{4,8,12,16,32} with one L4, -24
/// with two, -48 with four, -96 with eight). GPUs that attach to any N1 VM
/// (T4, V100, P100, P4) have no fixed host and are not converted.
pub(super) fn gcp_hosts(accel: &str, count: u32) -> &'static [&'static str] {
    match (accel, count) {
        ("A100", 1) => &["a2-highgpu-1g"],
        ("A100", 2) => &["a2-highgpu-2g"],
        ("A100", 4) => &["a2-highgpu-4g"],
        ("A100", 8) => &["a2-highgpu-8g"],
        ("A100", 16) => &["a2-megagpu-16g"],
        ("A10080GB", 1) => &["a2-ultragpu-1g"],
        ("A10080GB", 2) => &["a2-ultragpu-2g"],
        ("A10080GB", 4) => &["a2-ultragpu-4g"],
        ("A10080GB", 8) => &["a2-ultragpu-8g"],
        ("H100", 1) => &["a3-highgpu-1g"],
        ("H100", 2) => &["a3-highgpu-2g"],
        ("H100", 4) => &["a3-highgpu-4g"],
        ("H100", 8) => &["a3-highgpu-8g"],
        ("H100MEGA", 8) => &["a3-megagpu-8g"],
        ("H200", 8) => &["a3-ultragpu-8g"],
        ("B200", 8) => &["a4-highgpu-8g"],
        ("L4", 1) => {
            &["g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32"]
        }
        ("L4", 2) => &["g2-standard-24"],
        ("L4", 4) => &["g2-standard-48"],
        ("L4", 8) => &["g2-standard-96"],
        _ => &[],
    }
}

pub(super) fn is_gcp_gpu_host(instance: &str) -> bool {
    ["a2-", "a3-", "a4-", "g2-"].iter().any(|p| instance.starts_with(p))
}

/// Board form of an A100/H100 whose SkyPilot name does not say it.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Board {
    Sxm,
    Pcie,
    Nvl,
}

/// The board an instance carries, from its name or family, with why.
pub(super) fn board(instance: &str) -> Option<(Board, &'static str)> {
    let i = instance.to_ascii_lowercase();
    if i.contains("sxm") {
        return Some((Board::Sxm, "the instance name says SXM"));
    }
    if i.contains("pcie") {
        return Some((Board::Pcie, "the instance name says PCIe"));
    }
    if i.contains("nvl") {
        return Some((Board::Nvl, "the instance name says NVL"));
    }
    if ["p4d.", "p4de.", "p5.", "p5e.", "p5en."].iter().any(|p| i.starts_with(p)) {
        return Some((Board::Sxm, "AWS P4d/P4de/P5 instances carry SXM boards"));
    }
    if i.starts_with("a2-") || i.starts_with("a3-") {
        return Some((Board::Sxm, "GCP A2/A3 machine types carry SXM boards"));
    }
    if i.starts_with("standard_nd") {
        return Some((Board::Sxm, "Azure ND-series VMs carry SXM boards"));
    }
    if i.starts_with("standard_nc") && i.contains("a100") {
        return Some((Board::Pcie, "Azure NC A100 v4 VMs carry PCIe cards"));
    }
    if i.starts_with("standard_nc") && i.contains("h100") {
        return Some((Board::Nvl, "Azure NC H100 v5 VMs carry H100 NVL cards"));
    }
    None
}

pub(super) fn unknown(name: &str) -> String {
    format!("`AcceleratorName` `{}` is not a GPU whichgpu knows", clip(name))
}

/// Maps a SkyPilot accelerator name to a GPU id of `gpus`, with a note when
/// the board form was taken from the instance.
pub(super) fn map_gpu(
    name: &str,
    instance: &str,
    gpus: &[Gpu],
) -> Result<(&'static str, Option<String>), String> {
    let (id, note) = match lookup(&normalize(name)) {
        None => return Err(unknown(name)),
        Some(Named::Fixed(id)) => (id, None),
        Some(Named::Family([sxm, pcie, nvl])) => {
            let Some((b, why)) = board(instance) else {
                return Err(format!(
                    "`AcceleratorName` `{}` does not say SXM or PCIe, and nothing in instance \
                    `{}` does either",
                    clip(name),
                    clip(instance)
                ));
            };
            let id = match b {
                Board::Sxm => sxm,
                Board::Pcie => pcie,
                Board::Nvl => nvl,
            };
            if id.is_empty() {
                return Err(format!("`AcceleratorName` `{}` has no NVL form ({why})", clip(name)));
            }
            (id, Some(format!("`{}` resolved to {id}: {why}", clip(name))))
        }
    };
    if !gpus.iter().any(|g| g.id == id) {
        return Err(format!("`AcceleratorName` `{}` maps to `{id}`, which is not in gpus.csv", clip(name)));
    }
    Ok((id, note))
}

/// GPU-to-GPU link inside the instance. One GPU: single. SXM boards: NVSwitch
/// at 8 or more (HGX A100/H100/H200/B200 baseboards), NVLink below that and
/// for Volta (V100 SXM2's hybrid cube mesh has no NVSwitch). OAM (AMD
/// Instinct): Infinity Fabric (xgmi). H100 NVL: NVLink bridge between a pair.
/// GB200: the NVL72 domain. Everything else: PCIe.
pub(super) fn interconnect(gpu: &str, count: u32, gpus: &[Gpu]) -> &'static str {
    if count <= 1 {
        return "single";
    }
    let Some(g) = gpus.iter().find(|g| g.id == gpu) else { return "pcie" };
    match g.form_factor.as_str() {
        "sxm" if g.arch.as_str() == "volta" => "nvlink",
        "sxm" if count >= 8 => "nvswitch",
        "sxm" => "nvlink",
        "oam" => "xgmi",
        "nvl" if count == 2 => "nvlink",
        "superchip" if gpu.starts_with("gb200") => "nvl72",
        _ => "pcie",
    }
}
