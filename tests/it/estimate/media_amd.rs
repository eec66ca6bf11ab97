//! AMD CDNA parts in the media estimator: their FP32 figure counts packed
//! FP32 on CDNA3/CDNA4, so the vector (non-matrix) work, the SM-issue term
//! and the FlashAttention-2 ceiling take the unpacked rate, and a compute
//! unit stands where an NVIDIA part has an SM (see `precision::fp32_vector_flops`).

use whichgpu::core::catalog::gpus::{Arch, Vendor};
use whichgpu::core::catalog::media::{bundled_media, MediaModel};
use whichgpu::core::catalog::Gpu;
use whichgpu::core::estimate::media::{self, MediaJob};
use whichgpu::core::precision::{self, Compute};

use crate::common;

fn gpu(id: &str) -> &'static Gpu {
    common::catalog().gpu(id).unwrap_or_else(|| panic!("gpu {id}"))
}

fn model(id: &str) -> &'static MediaModel {
    MediaModel::find(bundled_media().expect("media table"), id).unwrap_or_else(|| panic!("model {id}"))
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

#[test]
fn cdna_issue_cycles_are_compute_units_times_clock() {
    // Compute units × peak engine clock (ROCm GPU specifications; MI250X
    // per GCD: 110 CUs at 1.7 GHz). `sm_cycles_per_s` carries the sustained fraction.
    for (id, cus, ghz) in [
        ("mi300x-192gb", 304.0, 2.1),
        ("mi325x-256gb", 304.0, 2.1),
        ("mi355x-288gb", 256.0, 2.4),
        ("mi250x-64gb", 110.0, 1.7),
    ] {
        let g = gpu(id);
        let cycles = media::sm_cycles_per_s(g) / g.sustained_fraction();
        assert!(close(cycles, cus * ghz * 1e9, 0.01), "{id}: {cycles}");
    }
}

#[test]
fn the_vector_rate_is_the_catalog_rate_except_packed_cdna() {
    for g in &common::catalog().gpus {
        let (vector, fp32) = (precision::fp32_vector_flops(g), precision::tensor_flops(g, Compute::Fp32));
        if matches!(g.arch, Arch::Cdna3 | Arch::Cdna4) {
            assert!(close(vector, fp32 / 2.0, 1e-12), "{}", g.id);
        } else {
            // NVIDIA and every other part: exactly the old figure, so their answers do not move.
            assert_eq!(vector.to_bits(), fp32.to_bits(), "{}", g.id);
        }
    }
}

#[test]
fn cdna_attention_takes_the_fa2_ceiling_per_unpacked_fp32_lane() {
    let mi300x = gpu("mi300x-192gb");
    let want = media::FA2_HOPPER_SHARE * media::H100_SXM_BF16_PER_FP32 * 163.4 / 2.0 / mi300x.bf16_tflops;
    assert!(close(media::attention_share(mi300x), want, 1e-9));
    assert!(media::attention_share(mi300x) < 0.5);
    // MI355X: the same ceiling over twice the matrix peak, as the B200.
    assert!(media::attention_share(gpu("mi355x-288gb")) < media::attention_share(mi300x));
    // Matrix-rate FP32 matmuls keep the packed figure (CDNA3 FP32 matrix cores).
    assert!(close(
        precision::tensor_flops(mi300x, Compute::Fp32),
        163.4e12 * mi300x.sustained_fraction(),
        1e-12
    ));
}

#[test]
fn a_video_dit_is_no_faster_against_an_h100_than_the_peak_ratio() {
    // Attention-bound video jobs: no part under the FlashAttention-2 ceiling
    // (Hopper, HBM Blackwell, AMD) beats the H100 SXM by more than the larger
    // of its dense BF16 and unpacked FP32 ratios (the MI355X once came out 4×
    // an H100 on Wan 2.1 1.3B, for 2.5× and 2.3×). Ampere and Ada parts reach
    // a larger share of their peak by design and are left out.
    let h100 = gpu("h100-sxm-80gb");
    for (id, w, h, frames) in
        [("wan-2.1-1.3b", 832, 480, 81), ("hunyuanvideo", 1280, 720, 129), ("cogvideox-5b", 720, 480, 49)]
    {
        let m = model(id);
        let j = MediaJob {
            width: w,
            height: h,
            frames,
            ..MediaJob::new(m, MediaJob::native_precision(m)).expect("job")
        };
        let base = j.speed(h100).total_s;
        for g in common::catalog()
            .gpus
            .iter()
            .filter(|g| g.vendor == Vendor::Amd || media::attention_share(g) < 1.0)
        {
            let speedup = base / j.speed(g).total_s;
            let fp32 = precision::fp32_vector_flops(g) / precision::fp32_vector_flops(h100);
            let bound = (g.bf16_tflops / h100.bf16_tflops).max(fp32);
            assert!(speedup <= 1.05 * bound, "{id} on {}: {speedup:.2}× an H100 (bound {bound:.2})", g.id);
        }
    }
}
