//! GPU names in OpenComputePrices files mapped to catalog GPU ids. The
//! collectors write a short model name (`gpu_name`: "RTX 4090", "H100",
//! "RTX A6000"), sometimes a board (`gpu_variant`: "PCIe", "NVLink", "SXM")
//! and the memory. Names whose board or size is not said are errors, never
//! guesses: an "H100" without a variant may be SXM, PCIe or NVL. The
//! silybench converter uses the same table.

use crate::core::catalog::Gpu;
use crate::core::table::clip;

/// Upper-cased, without spaces, '-' and '_', and without the "NVIDIA",
/// "GEFORCE", "TESLA" and "AMD"/"RADEON"/"INSTINCT" prefixes that some
/// collectors keep and others drop.
pub(crate) fn normalize(name: &str) -> String {
    let mut s: String =
        name.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).flat_map(char::to_uppercase).collect();
    for prefix in ["NVIDIA", "GEFORCE", "TESLA", "AMD", "RADEON", "INSTINCT"] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.to_string();
        }
    }
    s
}

/// Names with exactly one catalog GPU, whatever the board.
const FIXED: &[(&str, &str)] = &[
    ("RTX3070", "rtx-3070-8gb"),
    ("RTX3080", "rtx-3080-10gb"),
    ("RTX3080TI", "rtx-3080-ti-12gb"),
    ("RTX3090", "rtx-3090-24gb"),
    ("RTX3090TI", "rtx-3090-ti-24gb"),
    ("RTX4070TI", "rtx-4070-ti-12gb"),
    ("RTX4070TISUPER", "rtx-4070-ti-super-16gb"),
    ("RTX4080", "rtx-4080-16gb"),
    ("RTX4080SUPER", "rtx-4080-super-16gb"),
    ("RTX4090", "rtx-4090-24gb"),
    ("RTX5070TI", "rtx-5070-ti-16gb"),
    ("RTX5080", "rtx-5080-16gb"),
    ("RTX5090", "rtx-5090-32gb"),
    ("RTXA4000", "rtx-a4000-16gb"),
    ("A4000", "rtx-a4000-16gb"),
    ("A5000", "rtx-a5000-24gb"),
    ("RTXA5000", "rtx-a5000-24gb"),
    ("RTXA6000", "rtx-a6000-48gb"),
    ("A6000", "rtx-a6000-48gb"),
    ("RTX4000ADA", "rtx-4000-ada-20gb"),
    ("RTX6000ADA", "rtx-6000-ada-48gb"),
    ("RTXPRO6000", "rtx-pro-6000-96gb"),
    ("RTXPRO6000SERVEREDITION", "rtx-pro-6000-96gb"),
    ("RTXPRO6000SERVEREDITIONNOINTERCONNECT", "rtx-pro-6000-96gb"),
    ("QUADRORTX6000", "quadro-rtx-6000-24gb"),
    ("P40", "tesla-p40-24gb"),
    ("T4", "t4-16gb"),
    ("L4", "l4-24gb"),
    ("L40", "l40-48gb"),
    ("L40S", "l40s-48gb"),
    ("A10", "a10-24gb"),
    ("A10G", "a10g-24gb"),
    ("A40", "a40-48gb"),
    ("B200", "b200-sxm-180gb"),
    ("GB200", "gb200-186gb"),
    ("RX7900XTX", "radeon-rx-7900-xtx-24gb"),
    ("MI250X", "mi250x-64gb"),
    ("MI300X", "mi300x-192gb"),
    ("MI325X", "mi325x-256gb"),
    ("MI355X", "mi355x-288gb"),
    ("GAUDI2", "gaudi2-96gb"),
    ("GAUDI3", "gaudi3-128gb"),
];

/// The board a row states in `gpu_variant` or its instance name.
fn board(variant: &str, instance: &str) -> Option<&'static str> {
    let v = format!("{} {}", variant.to_ascii_lowercase(), instance.to_ascii_lowercase());
    if v.contains("sxm") || v.contains("hgx") {
        // HGX baseboards carry SXM modules.
        Some("sxm")
    } else if v.contains("nvl") && !v.contains("nvlink") {
        Some("nvl")
    } else if v.contains("pcie") {
        // "H100 PCIe NVLink" is a PCIe card with a bridge: still PCIe.
        Some("pcie")
    } else {
        None
    }
}

/// Maps a row's GPU to a catalog id. `mem_gb` is the memory of one GPU
/// (0 when the file leaves it out).
pub(crate) fn map_gpu(
    name: &str,
    variant: &str,
    instance: &str,
    mem_gb: f64,
    gpus: &[Gpu],
) -> Result<&'static str, String> {
    let key = normalize(name);
    let by_size = |small: &'static str, large: &'static str, cut: f64| -> Result<&'static str, String> {
        if mem_gb <= 0.0 {
            Err(format!("`gpu_name` `{}` comes in two memory sizes and `gpu_memory_gb` is empty", clip(name)))
        } else if mem_gb < cut {
            Ok(small)
        } else {
            Ok(large)
        }
    };
    let unsaid = |what: &str| {
        format!("`{}`: {what} is not said by `gpu_variant` or the instance name (not guessed)", clip(name))
    };
    let id = match key.as_str() {
        "H100" | "H10080GB" => match board(variant, instance) {
            Some("sxm") => "h100-sxm-80gb",
            Some("pcie") => "h100-pcie-80gb",
            Some(_) => "h100-nvl-94gb",
            None => return Err(unsaid("SXM, PCIe or NVL")),
        },
        "H100NVL" => "h100-nvl-94gb",
        "H200" => match board(variant, instance) {
            Some("sxm") => "h200-sxm-141gb",
            _ => return Err(unsaid("SXM or NVL")),
        },
        "A100" | "A10040GB" | "A10080GB" => {
            let size = if key == "A10040GB" {
                40.0
            } else if key == "A10080GB" {
                80.0
            } else {
                mem_gb
            };
            let (small, large) = match board(variant, instance) {
                Some("sxm") => ("a100-sxm-40gb", "a100-sxm-80gb"),
                Some("pcie") => ("a100-pcie-40gb", "a100-pcie-80gb"),
                _ => return Err(unsaid("SXM or PCIe")),
            };
            if size <= 0.0 {
                return Err(format!(
                    "`gpu_name` `{}` comes in 40 and 80 GB and `gpu_memory_gb` is empty",
                    clip(name)
                ));
            }
            if size < 60.0 {
                small
            } else {
                large
            }
        }
        "V100" => by_size("v100-16gb", "v100-32gb", 24.0)?,
        "GH200" => by_size("gh200-96gb", "gh200-144gb", 120.0)?,
        k => match FIXED.iter().find(|(n, _)| *n == k) {
            Some((_, id)) => id,
            None => {
                return Err(format!(
                    "`gpu_name` `{}` is not in the name table (src/tools/ocp/names.rs)",
                    clip(name)
                ))
            }
        },
    };
    let Some(gpu) = gpus.iter().find(|g| g.id == id) else {
        return Err(format!("`{}` maps to `{id}`, which static/gpus.csv does not have", clip(name)));
    };
    // A stated memory that is far from the catalog GPU's says the name was
    // read wrong (or the file holds a variant the catalog lacks).
    if mem_gb > 0.0 && (mem_gb - gpu.memory_gb).abs() > 0.15 * gpu.memory_gb {
        return Err(format!(
            "`{}` with {mem_gb} GB per GPU does not match `{id}` ({} GB)",
            clip(name),
            gpu.memory_gb
        ));
    }
    Ok(id)
}
