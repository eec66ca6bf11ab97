//! What bounds a decode step.

/// Which roofline binds a decode step: the weight and KV stream from memory,
/// the matmuls' compute, or (llama.cpp's single-token kernel on a Pascal
/// card, [`super::dp4a::mmvq_weights_s`]) the issue of its integer instructions,
/// or (an eager engine, [`eager`]) the host launching each layer's kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    #[default]
    Memory,
    Compute,
    Issue,
    Host,
}
