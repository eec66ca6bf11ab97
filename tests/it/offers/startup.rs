//! Start-up per provider class (issue 42): a job on a fresh instance pays
//! its provider's provisioning and the engine image's pull before the
//! engine reads its weights and starts; a one-off run also downloads the
//! weights; a serverless job pays its cold start instead, and an endpoint
//! kept up pays none per job.

use whichgpu::core::estimate::engine::startup_s;
use whichgpu::core::offers::startup::{
    provision_s, ENGINE_IMAGE_BYTES, HUB_DOWNLOAD_BYTES_PER_S, IMAGE_PULL_BYTES_PER_S,
    PROVISION_S_HYPERSCALER,
};

use crate::common::{answer, catalog};

const JOBS: &str =
    "model=llama-3.1-8b&use=jobs&jobs=20&per_job=500&provider=aws,gcp,runpod,lambda,vastai,jarvislabs,modal";

#[test]
fn each_job_pays_its_providers_provisioning_and_the_image_pull() {
    let a = answer(JOBS);
    let pull = ENGINE_IMAGE_BYTES / IMAGE_PULL_BYTES_PER_S;
    let engine = startup_s(a.memory.weights_bytes);
    let mut classes = std::collections::BTreeSet::new();
    for o in a.offers.iter().filter(|o| o.fits) {
        let p = catalog().provider(&o.provider);
        if o.serverless {
            assert_eq!(o.startup_s, None, "{}: a serverless job pays its cold start instead", o.id);
            assert!(o.cold_start_s.is_some(), "{}", o.id);
            continue;
        }
        let s = o.startup_s.expect("a job on an instance has a start-up");
        // Jobs keep their weights on the volume the bill stores: no download.
        assert!((s - (provision_s(p) + pull + engine)).abs() < 1e-6, "{}: {s}", o.id);
        classes.insert((o.provider.to_string(), provision_s(p) as u32));
    }
    // A hyperscaler VM takes longer to come up than a RunPod container.
    let of = |id: &str| classes.iter().find(|(p, _)| p == id).map(|(_, s)| *s);
    assert_eq!(of("aws"), Some(PROVISION_S_HYPERSCALER as u32), "{classes:?}");
    assert!(of("runpod") < of("aws") && of("runpod").is_some(), "{classes:?}");
}

#[test]
fn a_one_off_run_also_downloads_its_weights() {
    let once = answer("task=finetune&model=llama-3.1-8b&method=lora&tokens=2000000&provider=aws,runpod");
    for o in once.offers.iter().filter(|o| o.fits) {
        let s = o.startup_s.expect("a one-off run has a start-up");
        let p = catalog().provider(&o.provider);
        let download = once.memory.weights_bytes / HUB_DOWNLOAD_BYTES_PER_S;
        assert!(s > provision_s(p) + download, "{}: {s}", o.id);
    }
}

#[test]
fn an_endpoint_kept_up_has_no_start_up_per_job() {
    let a = answer("model=llama-3.1-8b&provider=aws,runpod,lambda");
    assert!(a.offers.iter().all(|o| o.startup_s.is_none()));
}
