//! Accelerator and instance names in SkyPilot catalogs mapped to catalog
//! GPU ids: SXM vs PCIe from the instance family, GCP's host machine types,
//! the interconnect a board implies. Names it cannot pin down are errors,
//! never guesses.

use crate::core::catalog::Gpu;
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
        ("L4", 1) => &["g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32"],
        ("L4", 2) => &["g2-standard-24"],
        ("L4", 4) => &["g2-standard-48"],
        ("L4", 8) => &["g2-standard-96"],
        _ => &[],
    }
}

pub(super) fn is_gcp_gpu_host(instance: &str) -> bool {
    ["a2-", "a3-", "a4-", "g2-"].iter().any(|p| instance.starts_with(p))
}

/// SkyPilot accelerator names, upper-cased without spaces, '-' and '_'.
pub(super) fn normalize(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).flat_map(char::to_uppercase).collect()
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

/// What a SkyPilot accelerator name (normalized) stands for.
pub(super) enum Named {
    /// One GPU id.
    Fixed(&'static str),
    /// SXM, PCIe and NVL ids ("" where there is no such form): the name
    /// alone does not say which.
    Family([&'static str; 3]),
}

pub(super) fn lookup(key: &str) -> Option<Named> {
    let id = match key {
        "A100" => return Some(Named::Family(["a100-sxm-40gb", "a100-pcie-40gb", ""])),
        "A10080GB" => return Some(Named::Family(["a100-sxm-80gb", "a100-pcie-80gb", ""])),
        "H100" | "H10080GB" => return Some(Named::Family(["h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb"])),
        // GCP's A3 Mega: H100 SXM with more network.
        "H100SXM" | "H100MEGA" => "h100-sxm-80gb",
        "H100PCIE" => "h100-pcie-80gb",
        "H100NVL" => "h100-nvl-94gb",
        "H200" => "h200-sxm-141gb",
        "B200" => "b200-sxm-180gb",
        "GB200" => "gb200-186gb",
        "GH200" => "gh200-96gb",
        "A100SXM" => "a100-sxm-40gb",
        "A100PCIE" => "a100-pcie-40gb",
        "A10080GBSXM" => "a100-sxm-80gb",
        "A10080GBPCIE" => "a100-pcie-80gb",
        "L40S" => "l40s-48gb",
        "L40" => "l40-48gb",
        "L4" => "l4-24gb",
        "A10G" => "a10g-24gb",
        "A10" => "a10-24gb",
        "A40" => "a40-48gb",
        "A6000" | "RTXA6000" => "rtx-a6000-48gb",
        "A4000" | "RTXA4000" => "rtx-a4000-16gb",
        // Lambda's `RTX6000` is the Turing Quadro RTX 6000 (24 GB).
        "RTX6000" | "QUADRORTX6000" => "quadro-rtx-6000-24gb",
        "RTX6000ADA" => "rtx-6000-ada-48gb",
        "RTXPRO6000" => "rtx-pro-6000-96gb",
        "T4" => "t4-16gb",
        "V100" => "v100-16gb",
        "V10032GB" => "v100-32gb",
        "RTX3070" => "rtx-3070-8gb",
        "RTX3080" => "rtx-3080-10gb",
        "RTX3080TI" => "rtx-3080-ti-12gb",
        "RTX3090" => "rtx-3090-24gb",
        "RTX4070TI" => "rtx-4070-ti-12gb",
        "RTX4080" => "rtx-4080-16gb",
        "RTX4090" => "rtx-4090-24gb",
        "RTX5090" => "rtx-5090-32gb",
        "MI250X" => "mi250x-64gb",
        "MI300X" => "mi300x-192gb",
        "MI325X" => "mi325x-256gb",
        "MI355X" => "mi355x-288gb",
        _ => return None,
    };
    Some(Named::Fixed(id))
}

pub(super) fn unknown(name: &str) -> String {
    format!("`AcceleratorName` `{}` is not a GPU whichgpu knows", clip(name))
}

/// Maps a SkyPilot accelerator name to a GPU id of `gpus`, with a note when
/// the board form was taken from the instance.
pub(super) fn map_gpu(name: &str, instance: &str, gpus: &[Gpu]) -> Result<(&'static str, Option<String>), String> {
    let (id, note) = match lookup(&normalize(name)) {
        None => return Err(unknown(name)),
        Some(Named::Fixed(id)) => (id, None),
        Some(Named::Family([sxm, pcie, nvl])) => {
            let Some((b, why)) = board(instance) else {
                return Err(format!("`AcceleratorName` `{}` does not say SXM or PCIe, and nothing in instance `{}` does either", clip(name), clip(instance)));
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
