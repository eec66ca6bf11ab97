//! The host a metered provider bills beside its GPUs (issue 42, "the whole
//! bill"): where the provider publishes its CPU and memory rates
//! (`providers.csv` `host_usd_per_vcpu_hour`, `host_usd_per_gib_hour`), the
//! offer's hourly price carries the host a job of that size uses, and the
//! host is no longer an unknown cost; where the host is included in the
//! price, nothing is added; where it is billed but unpublished, it stays
//! unknown.

use whichgpu::core::billing::{HostNeed, HOST_RSS_GIB_PER_GPU};
use whichgpu::core::catalog::offers::HostBilling;
use whichgpu::core::kinds::UnknownCost;

use crate::common::{answer, catalog};

const GIB: f64 = 1_073_741_824.0;

#[test]
fn modal_and_tensordock_publish_both_host_rates() {
    for id in ["modal", "tensordock"] {
        let p = catalog().provider(id).expect(id);
        assert_eq!(p.host_billing, HostBilling::Separate, "{id}");
        assert!(
            p.host_usd_per_vcpu_hour.is_some_and(|r| r > 0.0)
                && p.host_usd_per_gib_hour.is_some_and(|r| r > 0.0),
            "{id}"
        );
    }
    // Only a provider that bills its host separately carries host rates.
    for p in &catalog().providers {
        if p.host_billing != HostBilling::Separate {
            assert!(p.host_usd_per_vcpu_hour.is_none() && p.host_usd_per_gib_hour.is_none(), "{}", p.id);
        }
    }
}

#[test]
fn a_modal_endpoint_pays_its_host_at_modals_rates() {
    // 70B in 4-bit AWQ on one Modal GPU: two busy processes' vCPUs, the
    // engine's resident memory and the weights in the page cache.
    let a = answer("model=llama-3.1-70b&w=int4-awq&batch=1&in=1000&out=500&provider=modal");
    let modal = catalog().provider("modal").expect("modal");
    let mut seen = 0;
    for o in a.offers.iter().filter(|o| o.fits && o.gpus == 1) {
        let gpu_price = catalog().offers.iter().find(|c| c.id == o.id).expect("offer").usd_per_hour;
        let host = o.host_usd_per_hour.expect("Modal publishes its host rates");
        let weights_gib = a.memory.weights_bytes / GIB;
        let need = HostNeed::of(1, a.memory.weights_bytes, None);
        assert!((need.gib - (HOST_RSS_GIB_PER_GPU + weights_gib)).abs() < 1e-9);
        let want = need.vcpus * modal.host_usd_per_vcpu_hour.expect("rate")
            + need.gib * modal.host_usd_per_gib_hour.expect("rate");
        assert!((host - want).abs() < 1e-9, "{}: {host} against {want}", o.id);
        assert!(
            (o.usd_per_hour - (gpu_price + host)).abs() < 1e-9,
            "{}: {} against {gpu_price} + {host}",
            o.id,
            o.usd_per_hour
        );
        assert!(!o.unknown_costs.contains(&UnknownCost::Host), "{}", o.id);
        seen += 1;
    }
    assert!(seen >= 3, "{seen} one-GPU Modal offers fit");
}

#[test]
fn an_instance_that_includes_its_host_adds_nothing_and_an_unpublished_host_stays_unknown() {
    let a = answer("model=llama-3.1-8b&provider=lambda,salad");
    for o in &a.offers {
        assert_eq!(o.host_usd_per_hour, None, "{}", o.id);
        let billing = catalog().provider(&o.provider).expect("provider").host_billing;
        assert_eq!(
            o.unknown_costs.contains(&UnknownCost::Host),
            billing != HostBilling::Included,
            "{}",
            o.id
        );
    }
}

#[test]
fn a_users_own_price_is_all_in() {
    let a = answer("model=llama-3.1-8b&provider=modal&price=modal-h100:3");
    let o = a.offers.iter().find(|o| &*o.id == "modal-h100").expect("modal-h100");
    assert_eq!(o.host_usd_per_hour, None);
    assert!((o.usd_per_hour - 3.0).abs() < 1e-9, "{}", o.usd_per_hour);
}
