//! SkyPilot's names for what the catalog knows: accelerator names ⇄ GPU
//! ids (shared with the catalog converter in `tools::skypilot`) and the
//! SkyPilot cloud of each provider. A name or cloud not in these tables is
//! unknown and said so, never guessed.

/// What a SkyPilot accelerator name (normalized) stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    /// One GPU id.
    Fixed(&'static str),
    /// SXM, PCIe and NVL ids ("" where there is no such form): the name
    /// alone does not say which.
    Family([&'static str; 3]),
}

impl Named {
    fn covers(self, gpu: &str) -> bool {
        match self {
            Named::Fixed(id) => id == gpu,
            Named::Family(ids) => ids.contains(&gpu),
        }
    }
}

/// SkyPilot accelerator names as whichgpu spells them, with what each
/// stands for. SkyPilot matches names case-insensitively but keeps dashes
/// (skypilot-org/skypilot sky/utils/accelerator_registry.py
/// `canonicalize_accelerator_name`); the converter compares them without
/// spaces, dashes and underscores ([`normalize`]). The first row covering
/// a GPU is the name a task asks for ([`accelerator_for`]), so family names
/// come before board-specific spellings. `true`: the spelling is the one in
/// the SkyPilot catalogs stored under `tests/data/skypilot/`.
pub const ACCELERATORS: &[(&str, Named, bool)] = &[
    ("A100", Named::Family(["a100-sxm-40gb", "a100-pcie-40gb", ""]), true),
    ("A100-80GB", Named::Family(["a100-sxm-80gb", "a100-pcie-80gb", ""]), true),
    ("H100", Named::Family(["h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb"]), true),
    ("H100-80GB", Named::Family(["h100-sxm-80gb", "h100-pcie-80gb", "h100-nvl-94gb"]), false),
    // GCP's A3 Mega: H100 SXM with more network.
    ("H100-SXM", Named::Fixed("h100-sxm-80gb"), false),
    ("H100-MEGA", Named::Fixed("h100-sxm-80gb"), false),
    ("H100-PCIE", Named::Fixed("h100-pcie-80gb"), false),
    ("H100-NVL", Named::Fixed("h100-nvl-94gb"), false),
    ("H200", Named::Fixed("h200-sxm-141gb"), true),
    ("B200", Named::Fixed("b200-sxm-180gb"), false),
    ("GB200", Named::Fixed("gb200-186gb"), false),
    ("GH200", Named::Fixed("gh200-96gb"), false),
    ("A100-SXM", Named::Fixed("a100-sxm-40gb"), false),
    ("A100-PCIE", Named::Fixed("a100-pcie-40gb"), false),
    ("A100-80GB-SXM", Named::Fixed("a100-sxm-80gb"), false),
    ("A100-80GB-PCIE", Named::Fixed("a100-pcie-80gb"), false),
    ("L40S", Named::Fixed("l40s-48gb"), false),
    ("L40", Named::Fixed("l40-48gb"), false),
    ("L4", Named::Fixed("l4-24gb"), true),
    ("A10G", Named::Fixed("a10g-24gb"), true),
    ("A10", Named::Fixed("a10-24gb"), true),
    ("A40", Named::Fixed("a40-48gb"), false),
    ("A6000", Named::Fixed("rtx-a6000-48gb"), true),
    ("RTXA6000", Named::Fixed("rtx-a6000-48gb"), false),
    ("A4000", Named::Fixed("rtx-a4000-16gb"), false),
    ("RTXA4000", Named::Fixed("rtx-a4000-16gb"), false),
    // Lambda's `RTX6000` is the Turing Quadro RTX 6000 (24 GB).
    ("RTX6000", Named::Fixed("quadro-rtx-6000-24gb"), true),
    ("QuadroRTX6000", Named::Fixed("quadro-rtx-6000-24gb"), false),
    ("RTX6000-Ada", Named::Fixed("rtx-6000-ada-48gb"), false),
    ("RTXPRO6000", Named::Fixed("rtx-pro-6000-96gb"), false),
    ("T4", Named::Fixed("t4-16gb"), true),
    ("V100", Named::Fixed("v100-16gb"), true),
    ("V100-32GB", Named::Fixed("v100-32gb"), true),
    ("RTX3070", Named::Fixed("rtx-3070-8gb"), false),
    ("RTX3080", Named::Fixed("rtx-3080-10gb"), false),
    ("RTX3080Ti", Named::Fixed("rtx-3080-ti-12gb"), false),
    ("RTX3090", Named::Fixed("rtx-3090-24gb"), false),
    ("RTX4070Ti", Named::Fixed("rtx-4070-ti-12gb"), false),
    ("RTX4080", Named::Fixed("rtx-4080-16gb"), false),
    ("RTX4090", Named::Fixed("rtx-4090-24gb"), false),
    ("RTX5090", Named::Fixed("rtx-5090-32gb"), false),
    ("MI250X", Named::Fixed("mi250x-64gb"), false),
    ("MI300X", Named::Fixed("mi300x-192gb"), false),
    ("MI325X", Named::Fixed("mi325x-256gb"), false),
    ("MI355X", Named::Fixed("mi355x-288gb"), false),
];

/// SkyPilot accelerator names, upper-cased without spaces, '-' and '_'.
pub fn normalize(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, ' ' | '-' | '_')).map(|c| c.to_ascii_uppercase()).collect()
}

/// What a normalized SkyPilot accelerator name stands for.
pub fn lookup(key: &str) -> Option<Named> {
    ACCELERATORS.iter().find(|(name, _, _)| normalize(name) == key).map(|(_, named, _)| *named)
}

/// The SkyPilot accelerator name a task asks for to get this GPU, and
/// whether that spelling is confirmed in a stored SkyPilot catalog.
pub fn accelerator_for(gpu: &str) -> Option<(&'static str, bool)> {
    ACCELERATORS.iter().find(|(_, named, _)| named.covers(gpu)).map(|(name, _, seen)| (*name, *seen))
}

/// The SkyPilot cloud of a catalog provider: the provider ids whose cloud
/// is in SkyPilot's `ALL_CLOUDS` (skypilot-org/skypilot
/// @0015e8ecf7387add6114d98bd9b38cbb480d605f sky/skylet/constants.py:
/// aws, azure, gcp, ibm, lambda, scp, oci, kubernetes, runpod, vast, vsphere,
/// cudo, fluidstack, paperspace, primeintellect, do, nebius, ssh, slurm,
/// hyperbolic, seeweb, shadeform, yotta, mithril, verda). CoreWeave is a
/// storage-only cloud there (`STORAGE_ONLY_CLOUDS`), and Crusoe, Jarvislabs,
/// Vultr, Hyperstack, TensorDock and Together are not SkyPilot clouds.
pub fn cloud_for(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "aws" => "aws",
        "azure" => "azure",
        "gcp" => "gcp",
        "oci" => "oci",
        "lambda" => "lambda",
        "runpod" => "runpod",
        "vastai" => "vast",
        "nebius" => "nebius",
        "paperspace" => "paperspace",
        "fluidstack" => "fluidstack",
        _ => return None,
    })
}
