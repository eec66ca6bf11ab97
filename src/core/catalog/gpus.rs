//! The accelerator table (`static/gpus.csv`): memory, bandwidth, dense
//! tensor rates per precision, links. Every figure carries its source in the
//! file; sparse (2:4) datasheet rates are never used.

use super::super::named::named;
use super::super::table::{Table, TableError};

pub const GPU_COLUMNS: &[&str] = &[
    "id",
    "name",
    "vendor",
    "arch",
    "class",
    "form_factor",
    "memory_gb",
    "usable_mib",
    "memory_type",
    "mem_bw_gbps",
    "bf16_tflops",
    "fp8_tflops",
    "int8_tops",
    "fp4_tflops",
    "fp32_tflops",
    "mamf_bf16_tflops",
    "nvlink_gbps",
    "pcie_gen",
    "gpus_per_node",
    "tdp_w",
    "source",
    "notes",
];

named! {
    /// Market segment; consumer GDDR cards and datacenter HBM cards behave
    /// differently enough that efficiency factors are fitted per class.
    pub enum GpuClass { Datacenter = "datacenter", Workstation = "workstation", Consumer = "consumer" }
}

named! {
    pub enum Vendor { Nvidia = "nvidia", Amd = "amd", Intel = "intel", Huawei = "huawei" }
}

named! {
    /// The architecture: what the support matrix and the kernels key on.
    pub enum Arch {
        Pascal = "pascal", Volta = "volta", Turing = "turing", Ampere = "ampere", Ada = "ada",
        Hopper = "hopper", Blackwell = "blackwell",
        Cdna2 = "cdna2", Cdna3 = "cdna3", Cdna4 = "cdna4", Rdna3 = "rdna3",
        Gaudi2 = "gaudi2", Gaudi3 = "gaudi3",
        /// Huawei Ascend 910B (Atlas A2 generation, Da Vinci cores), named as CANN names
        /// the SoC family (`ascend910b`); no FP8 units (FP8 arrives with Ascend 950).
        Ascend910b = "ascend910b",
    }
}

named! {
    /// Board form: SXM/OAM modules on a baseboard, PCIe cards, NVL pairs,
    /// Grace superchips, Gaudi HLS boards.
    pub enum FormFactor {
        Sxm = "sxm",
        Pcie = "pcie",
        Nvl = "nvl",
        Oam = "oam",
        Superchip = "superchip",
        Hls = "hls",
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Gpu {
    pub id: String,
    pub name: String,
    pub vendor: Vendor,
    pub arch: Arch,
    pub class: GpuClass,
    pub form_factor: FormFactor,
    /// Marketed capacity. Vendors' "80 GB" HBM parts expose ~80 GiB, so the
    /// estimator treats this figure as GiB (nvidia-smi shows MiB).
    pub memory_gb: f64,
    /// Memory the driver reports as the device total (nvidia-smi
    /// `memory.total`, rocm-smi `VRAM Total Memory`, hl-smi) in the default
    /// ECC mode, in MiB. Below the nominal size on GDDR cards that ship with
    /// ECC on (L4, A10, A10G, L40S, L40, A40 and T4 lose 1/16) and a little
    /// on HBM3 parts; every figure's capture is named in the row's `source`.
    pub usable_mib: f64,
    pub memory_type: String,
    pub mem_bw_gbps: f64,
    /// Dense BF16 (FP16 on pre-Ampere) tensor TFLOPS.
    pub bf16_tflops: f64,
    /// Dense FP8 tensor TFLOPS; `None` when the tensor cores do not accelerate FP8.
    pub fp8_tflops: Option<f64>,
    pub int8_tops: Option<f64>,
    pub fp4_tflops: Option<f64>,
    pub fp32_tflops: Option<f64>,
    /// Maximum achievable matmul TFLOPS, measured (16-bit, large GEMMs).
    pub mamf_bf16_tflops: Option<f64>,
    /// Scale-up link bandwidth per GPU (GB/s, bidirectional); 0 when PCIe only.
    pub nvlink_gbps: f64,
    pub pcie_gen: u32,
    pub gpus_per_node: u32,
    pub tdp_w: Option<f64>,
    pub source: String,
    pub notes: String,
}

/// Measured/peak matmul rate of the GPUs the efficiency factors were fitted
/// on: A100 SXM 271.2/312 = 0.87 and H100 SXM 794.5/989 = 0.80 (their
/// `mamf_bf16_tflops`). The lower one is the reference, so that neither
/// fitted GPU is changed by it.
pub const MAMF_REFERENCE_FRACTION: f64 = 0.80;

/// Largest accepted `usable_mib` relative to the nominal size in MiB.
pub const USABLE_MAX_OVER_NOMINAL: f64 = 1.05;

impl Gpu {
    /// Share of the datasheet tensor rate this GPU sustains, relative to the
    /// reference GPUs the efficiency factors were fitted on. A card whose
    /// measured matmul rate is far below its peak (the 70 W T4 is power
    /// capped to ~24 of 65 TFLOPS in long GEMMs) is slowed by the ratio;
    /// none is sped up, and without a measurement the datasheet stands.
    pub fn sustained_fraction(&self) -> f64 {
        match self.mamf_bf16_tflops {
            Some(m) if self.bf16_tflops > 0.0 => (m / self.bf16_tflops / MAMF_REFERENCE_FRACTION).min(1.0),
            _ => 1.0,
        }
    }

    /// Nominal capacity (`memory_gb` as GiB): what the GPU is sold as.
    pub fn memory_bytes(&self) -> f64 {
        self.memory_gb * super::super::units::GIB
    }

    /// Capacity a program can allocate from: the driver-reported total
    /// (`usable_mib` MiB). Engines' memory fractions (vLLM's
    /// `gpu_memory_utilization`) apply to this figure, and fitting uses it.
    pub fn usable_bytes(&self) -> f64 {
        self.usable_mib * super::super::units::MIB
    }

    pub fn bandwidth_bytes_per_s(&self) -> f64 {
        self.mem_bw_gbps * 1e9
    }

    pub fn is_hbm(&self) -> bool {
        self.memory_type.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("HBM"))
    }

    /// PCIe bandwidth per direction in bytes/s for x16 (gen3 ≈ 16 GB/s,
    /// doubling per generation; PCI-SIG base specifications).
    pub fn pcie_bytes_per_s(&self) -> f64 {
        let gen = self.pcie_gen.clamp(3, 6);
        16e9 * f64::from(1u32 << (gen - 3))
    }

    /// GPU-to-GPU bandwidth over PCIe for collectives. GeForce cards have
    /// peer-to-peer over PCIe disabled by the driver, so NCCL stages every
    /// transfer through host memory (its SHM transport; the PHB/SYS paths
    /// of NVIDIA/nccl-tests#307 on RTX 4090s): each byte crosses PCIe twice,
    /// halving the rate.
    pub fn pcie_peer_bytes_per_s(&self) -> f64 {
        if self.class == GpuClass::Consumer {
            self.pcie_bytes_per_s() / 2.0
        } else {
            self.pcie_bytes_per_s()
        }
    }

    /// Scale-up bandwidth per direction in bytes/s used for tensor-parallel
    /// all-reduce: NVLink/xGMI when present, PCIe otherwise (through host
    /// memory on cards without peer-to-peer, [`Self::pcie_peer_bytes_per_s`]).
    pub fn link_bytes_per_s(&self, nvlink: bool) -> f64 {
        if nvlink && self.nvlink_gbps > 0.0 {
            self.nvlink_gbps * 1e9 / 2.0
        } else {
            self.pcie_peer_bytes_per_s()
        }
    }
}

pub fn parse_gpus(text: &str) -> Result<Vec<Gpu>, TableError> {
    let table = Table::parse("gpus.csv", text, GPU_COLUMNS)?;
    let mut out = Vec::with_capacity(table.len());
    for row in table.rows() {
        let named = |field: &str, parse: fn(&str) -> Option<_>, names: &[&str]| {
            let t = row.text(field);
            parse(t).ok_or_else(|| row.error(field, format!("`{t}` is not {}", names.join("|"))))
        };
        let class: GpuClass =
            named("class", GpuClass::parse, &GpuClass::NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>())?;
        let memory_gb = row.positive("memory_gb")?;
        let usable_mib = row.positive("usable_mib")?;
        // The driver never reports more than the chips hold; 5 % slack covers
        // vendors whose nominal "GB" is decimal.
        if usable_mib > memory_gb * 1024.0 * USABLE_MAX_OVER_NOMINAL {
            return Err(row.error(
                "usable_mib",
                format!("{usable_mib} MiB is more than 1.05 × the nominal {memory_gb} GiB"),
            ));
        }
        out.push(Gpu {
            id: row.req_str("id")?,
            name: row.req_str("name")?,
            vendor: Vendor::parse(row.text("vendor")).ok_or_else(|| {
                row.error("vendor", format!("`{}` is not nvidia|amd|intel|huawei", row.text("vendor")))
            })?,
            arch: Arch::parse(row.text("arch")).ok_or_else(|| {
                row.error("arch", format!("`{}` is not a known architecture", row.text("arch")))
            })?,
            class,
            form_factor: FormFactor::parse(row.text("form_factor")).ok_or_else(|| {
                row.error("form_factor", format!("`{}` is not a known form factor", row.text("form_factor")))
            })?,
            memory_gb,
            usable_mib,
            memory_type: row.req_str("memory_type")?,
            mem_bw_gbps: row.positive("mem_bw_gbps")?,
            bf16_tflops: row.positive("bf16_tflops")?,
            fp8_tflops: row.opt_non_negative("fp8_tflops")?.filter(|v| *v > 0.0),
            int8_tops: row.opt_non_negative("int8_tops")?.filter(|v| *v > 0.0),
            fp4_tflops: row.opt_non_negative("fp4_tflops")?.filter(|v| *v > 0.0),
            fp32_tflops: row.opt_non_negative("fp32_tflops")?.filter(|v| *v > 0.0),
            mamf_bf16_tflops: row.opt_non_negative("mamf_bf16_tflops")?.filter(|v| *v > 0.0),
            nvlink_gbps: row.opt_non_negative("nvlink_gbps")?.unwrap_or(0.0),
            pcie_gen: row.opt_u32("pcie_gen")?.unwrap_or(4),
            gpus_per_node: row.opt_u32("gpus_per_node")?.unwrap_or(1).max(1),
            tdp_w: row.opt_non_negative("tdp_w")?,
            source: row.req_source()?,
            notes: row.text("notes").to_string(),
        });
    }
    Ok(out)
}
