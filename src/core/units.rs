//! Units. Memory is counted in bytes and shown in GiB (2^30 bytes), the unit
//! nvidia-smi and PyTorch report; prices are US dollars.

pub const GIB: f64 = 1_073_741_824.0;
/// 2^20 bytes: nvidia-smi's `MiB` (its `memory.total` unit).
pub const MIB: f64 = 1_048_576.0;
pub const HOURS_PER_MONTH: f64 = 730.0;

pub fn gib(bytes: f64) -> f64 {
    bytes / GIB
}
