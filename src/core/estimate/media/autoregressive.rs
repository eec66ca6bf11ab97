//! Autoregressive audio decoders (MusicGen, XTTS, Bark): steps per second
//! of audio, the KV cache and the decode roofline that bounds them by
//! reading their weights. Diffusion and flow models never come here.

use super::job::{f, MediaJob};
use super::speed::matmul_flops;
use crate::core::catalog::Gpu;

impl<'a> MediaJob<'a> {
    /// Autoregressive steps per second of audio: the table's figure (MusicGen:
    /// 50, one step per 20 ms EnCodec frame — Défossez et al. 2022 — with the
    /// 4 codebooks predicted in parallel by the delay pattern), else frame
    /// rate × codebooks (codebooks flattened one per step).
    fn ar_steps_per_s(&self) -> f64 {
        let m = self.model;
        m.ar_steps_per_audio_s.unwrap_or_else(|| {
            m.audio_frame_rate_hz.unwrap_or(0.0) * f(m.audio_codebooks.unwrap_or(1).max(1))
        })
    }

    pub(super) fn ar_total_steps(&self) -> f64 {
        (self.seconds.max(0.0) * self.ar_steps_per_s()).ceil()
    }

    /// KV cache of an autoregressive decoder at the end of the clip:
    /// 2 (K,V) · layers · hidden · steps · 2 bytes per sequence, × batch ×
    /// guidance rows (MusicGen batches the conditional and unconditional rows).
    pub(super) fn ar_kv_bytes(&self, ctx: f64) -> f64 {
        let m = self.model;
        match (m.layers, m.hidden) {
            (Some(l), Some(h)) => 2.0 * f(l) * f(h) * ctx * 2.0 * self.batch_f() * self.cfg(),
            _ => 0.0,
        }
    }

    /// Ideal seconds of autoregressive decoding: every step reads the
    /// stage's weights and the KV cache so far (memory roofline) or does
    /// 2·params FLOPs per row plus attention over the cache (compute
    /// roofline), whichever is longer; rows = batch × guidance rows
    /// (MusicGen: 50 steps per second of audio with its 4 codebooks in
    /// parallel, Copet et al. 2023 §2.2).
    pub(super) fn ar_ideal_s(&self, gpu: &Gpu) -> f64 {
        let m = self.model;
        let steps = self.ar_total_steps();
        let mean_ctx = steps / 2.0;
        let rows = self.batch_f() * self.cfg();
        let params = m.denoiser_params.unwrap_or(0.0);
        let bytes = params * self.precision.body_bits / 8.0 + self.ar_kv_bytes(mean_ctx);
        let attn = match (m.layers, m.hidden) {
            (Some(l), Some(h)) => 4.0 * f(l) * f(h) * mean_ctx,
            _ => 0.0,
        };
        let flops = rows * (2.0 * params + attn);
        let rate = matmul_flops(gpu, self.precision.executed(gpu), false);
        let t_mem = bytes / gpu.bandwidth_bytes_per_s().max(1.0);
        let t_compute = flops / rate.max(1.0);
        steps * t_mem.max(t_compute)
    }
}
