//! What a job on a fresh instance pays before the engine starts: the
//! provider's provisioning, pulling the engine's image and, for a one-off
//! run, downloading the weights (issue 42, "start-up per provider class").
//! The engine's own start (reading the weights from disk, starting up:
//! `estimate::engine::startup_s`) is the plan's; a serverless platform's
//! cold start is billed apart (`billing::ColdStart`). Figures: research
//! notes in `docs/currencies-and-serverless.md`, "Start-up".

use super::super::catalog::Provider;
use super::super::config::Usage;
use super::super::settings::Settings;

/// A hyperscaler GPU VM with the driver in its image, request to usable,
/// seconds: SkyPilot's measured launches after its provisioning work —
/// GCP 75 s, AWS 101–140 s, Azure 160 s (skypilot-org/skypilot PRs #4027,
/// #4091, #4167: "Provision Time = from start of launching an instance to
/// instance ready").
pub const PROVISION_S_HYPERSCALER: f64 = 150.0;
/// A GPU cloud's VM: "Instances might take several minutes to launch"
/// (docs.lambda.ai, creating and managing instances); 3–5 minutes for one
/// GPU in a Lambda recipe (NousResearch/hermes-agent @eb02d8b5).
pub const PROVISION_S_GPU_CLOUD: f64 = 240.0;
/// A marketplace host starting a container from a prebuilt image: "1-2 min
/// startup" on Vast.ai (emgun/universal_simulator @fb9018e7
/// scripts/launch_docker.sh).
pub const PROVISION_S_MARKETPLACE: f64 = 120.0;
/// An engine image as pulled, bytes: vLLM's "around 12 GB"
/// (vllm-project/vllm#27154), 9 GB a year earlier (#7609); SGLang's 11 GB
/// (sgl-project/sglang#3673); NGC PyTorch 24.08 9.5 GB compressed
/// (aws-ia/terraform-aws-eks-blueprints @db5c59c4, ml-container-cache.md).
pub const ENGINE_IMAGE_BYTES: f64 = 10e9;
/// Pull and unpack rate of an image on a fresh GPU host, bytes/s: 9.5 GB in
/// 334 s on EKS (the blueprints page above, 28 MB/s), 15–20 GB in 4–6
/// minutes on AWS (the SOCI parallel-pull write-up, 50–80 MB/s), 16.3 GB
/// in 165–169 s on RunPod (Crazytieguy/alignment-hive#98, about 100 MB/s).
pub const IMAGE_PULL_BYTES_PER_S: f64 = 50e6;
/// Download rate of weights from the Hugging Face Hub to a cloud GPU host,
/// bytes/s: "~500Mo/s" on DGX or large AWS instances
/// (huggingface/datasets#5501), 300 MB/s over parallel files with the
/// default client and 40 MB/s for one file (huggingface/huggingface_hub#2658),
/// 100 MB/s on 10 Gbit (oobabooga/textgen#6143).
pub const HUB_DOWNLOAD_BYTES_PER_S: f64 = 250e6;

/// Seconds from asking for the instance to a machine that runs the job:
/// the provider's own figure (`providers.csv` `provision_s`) or its class's.
pub fn provision_s(provider: Option<&Provider>) -> f64 {
    match provider {
        Some(p) => p.provision_s.unwrap_or(match p.kind.as_str() {
            "hyperscaler" => PROVISION_S_HYPERSCALER,
            "marketplace" => PROVISION_S_MARKETPLACE,
            _ => PROVISION_S_GPU_CLOUD,
        }),
        None => PROVISION_S_GPU_CLOUD,
    }
}

/// Seconds a job on a fresh instance pays before the engine starts, or 0
/// where nothing starts per job (an endpoint kept up, or busy hours on an
/// instance kept) or the platform's cold start covers it (serverless).
/// Each job of `use=jobs` provisions and pulls again; the weights wait on
/// the volume the bill keeps between jobs (`store`), so only a one-off run
/// (`use=once`) downloads them.
pub fn fresh_instance_s(cfg: &Settings, provider: Option<&Provider>, load_bytes: f64) -> f64 {
    if provider.is_some_and(Provider::is_serverless) {
        return 0.0;
    }
    let download =
        if cfg.usage() == Usage::Once { load_bytes.max(0.0) / HUB_DOWNLOAD_BYTES_PER_S } else { 0.0 };
    match cfg.usage() {
        Usage::Jobs | Usage::Once => {
            provision_s(provider) + ENGINE_IMAGE_BYTES / IMAGE_PULL_BYTES_PER_S + download
        }
        Usage::Always | Usage::Hours => 0.0,
    }
}
