//! Units. Memory is counted in bytes and shown in GiB (2^30 bytes), the unit
//! nvidia-smi and PyTorch report; prices are US dollars.

pub const GIB: f64 = 1_073_741_824.0;
/// 2^20 bytes: nvidia-smi's `MiB` (its `memory.total` unit).
pub const MIB: f64 = 1_048_576.0;
pub const HOURS_PER_MONTH: f64 = 730.0;

pub fn gib(bytes: f64) -> f64 {
    bytes / GIB
}

/// Formats a number for the locale (thousands separators; Chinese uses the
/// same digits), as the page shows it. Here rather than in the shell so that
/// `build.rs` writes the compiled accuracy table's cells with it too.
pub fn num(v: f64, digits: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let s = format!("{:.*}", digits, v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), ""), |(a, b)| (a, b));
    let mut out = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if !frac.is_empty() {
        out.push('.');
        out.push_str(frac);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}
