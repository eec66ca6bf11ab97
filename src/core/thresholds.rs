//! Named thresholds the planners, the ranking and the guidance share, each
//! written once with where it comes from.

/// Two values within 5 % of each other are a tie: a cheaper offer by less
/// is not an alternative (`offers::recommend`), a plan serving less than
/// 5 % more is not worth a layout change (`plan::serve_layout`), offers
/// within 5 % on a speed are ordered by cost (`offers::rank`), a bill
/// rounded up by less is not worth a note (`guidance`). A product choice,
/// not a measurement: below the ±10–20 % of the speed estimates' ranges
/// (`estimate::ranges`), so a tie is never decided on noise.
pub const NEAR_TIE: f64 = 0.05;

/// `1 − NEAR_TIE`: the most a value may be and still be 5 % below another.
pub const BELOW_TIE: f64 = 1.0 - NEAR_TIE;

/// `1 + NEAR_TIE`: the least a value may be and be 5 % above another.
pub const ABOVE_TIE: f64 = 1.0 + NEAR_TIE;

/// What nvidia-smi shows over the job's peak under PyTorch: the caching
/// allocator keeps freed blocks reserved ("unused memory managed by the
/// allocator will still show as if used in nvidia-smi", pytorch.org/docs/
/// stable/notes/cuda.html, "Memory management"); ~10 % of the peak is this
/// project's assumption for its fragmentation.
pub const ALLOCATOR_RESERVE: f64 = 1.1;

/// The share of a GPU's usable memory a PyTorch job without a memory
/// fraction of its own may plan to fill (training, diffusion pipelines,
/// TensorRT-LLM and transformers serving): the rest is the allocator's
/// slack and the CUDA context's workspace. The project's assumption, the
/// counterpart of the engines' own fractions (`engines`' rows).
pub const USABLE_SHARE: f64 = 0.95;

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived bounds are the literals they replaced, to the bit, so
    /// naming them moved no answer.
    #[test]
    fn the_tie_bounds_are_the_old_literals() {
        assert_eq!(BELOW_TIE.to_bits(), 0.95_f64.to_bits());
        assert_eq!(ABOVE_TIE.to_bits(), 1.05_f64.to_bits());
    }
}
