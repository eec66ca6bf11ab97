//! How a serving launch gets its engine on the GPU's vendor: the pip
//! wheels on NVIDIA (CUDA), the engine's ROCm image on AMD, vLLM's Ascend
//! and Gaudi plugins on Huawei and Intel; and the `docker run` line of the
//! engine's official image, for an AMD task and for a provider SkyPilot
//! has no cloud for. Every image and package names the version the
//! support matrix pins (`static/support.csv`), with its source.

use super::command::Command;
use super::launch::Launch;
use crate::core::catalog::gpus::Vendor;
use crate::core::config::Engine;
use crate::core::engines;

/// The engine table's image versions: vLLM's ROCm image (AMD publishes
/// vLLM's ROCm builds as `rocm/vllm`, built for Instinct MI300 (gfx942) and
/// MI350 (gfx950)) and SGLang's image release; Docker Hub's
/// `lmsysorg/sglang` tags the CUDA build `<version>` and the ROCm builds
/// `<version>-rocm700-mi30x` (MI300X/MI325X) and `-mi35x` (MI350X/MI355X)
/// (docs.sglang.io docs/hardware-platforms/amd_gpu.md). Sources in the rows.
fn image_of(engine: Engine) -> (Option<&'static str>, Option<&'static str>) {
    let r = engines::launch(engine);
    (r.rocm_image.map(|f| f.value), r.image_version.map(|f| f.value))
}

/// The device flags a container needs for the vendor's GPUs: NVIDIA's
/// container toolkit (`--gpus all`, docs.vllm.ai en/v0.11.2/deployment/docker),
/// ROCm's kernel driver and render nodes (`--device=/dev/kfd
/// --device=/dev/dri --group-add video`, docs.sglang.io amd_gpu.md and
/// rocm.docs.amd.com inference/vllm.html).
/// Huawei's NPUs: one `--device /dev/davinciN` per NPU the instance has,
/// the driver's management devices, and the driver's files mounted read
/// from the host, as vLLM Ascend's container quick start runs it
/// (docs.vllm.ai/projects/ascend/en/v0.13.0/quick_start.html, "Setup
/// environment using container").
fn devices(vendor: Vendor, npus: u32) -> Option<String> {
    match vendor {
        Vendor::Nvidia => Some("--gpus all".to_string()),
        Vendor::Amd => Some(
            "--device=/dev/kfd --device=/dev/dri --group-add video --security-opt seccomp=unconfined"
                .to_string(),
        ),
        Vendor::Huawei => {
            let npus: Vec<String> = (0..npus.max(1)).map(|i| format!("--device /dev/davinci{i}")).collect();
            Some(format!(
                "--shm-size=1g {} --device /dev/davinci_manager --device /dev/devmm_svm --device \
                    /dev/hisi_hdc \
                 -v /usr/local/dcmi:/usr/local/dcmi -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi \
                 -v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ \
                 -v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info \
                 -v /etc/ascend_install.info:/etc/ascend_install.info",
                npus.join(" ")
            ))
        }
        Vendor::Intel => None,
    }
}

/// The pinned `x.y.z` of a version text (`v0.11.2` → `0.11.2`).
pub fn pinned(version: &str) -> Option<String> {
    let v = version.trim().trim_start_matches('v');
    (!v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.')).then(|| v.to_string())
}

/// The engine's official image for this launch's GPU, where one is pinned.
pub fn image(l: &Launch) -> Option<String> {
    let arch = l.arch.as_str();
    let (rocm, release) = image_of(l.cfg.engine);
    // The ROCm image is of the row's version only.
    let rocm =
        rocm.filter(|_| pinned(&l.engine_version) == pinned(engines::launch(l.cfg.engine).version.value));
    match (l.cfg.engine, l.vendor) {
        // vLLM's own CUDA image, tagged by release (docs.vllm.ai
        // en/v0.11.2/deployment/docker: `vllm/vllm-openai`).
        (Engine::Vllm, Vendor::Nvidia) => pinned(&l.engine_version).map(|v| format!("vllm/vllm-openai:v{v}")),
        (Engine::Vllm, Vendor::Amd) if matches!(arch, "cdna3" | "cdna4") && rocm.is_some() => {
            rocm.map(str::to_string)
        }
        (Engine::Sglang, Vendor::Nvidia) => release.map(|v| format!("lmsysorg/sglang:{v}")),
        (Engine::Sglang, Vendor::Amd) if arch == "cdna3" => {
            release.map(|v| format!("lmsysorg/sglang:{v}-rocm700-mi30x"))
        }
        (Engine::Sglang, Vendor::Amd) if arch == "cdna4" => {
            release.map(|v| format!("lmsysorg/sglang:{v}-rocm700-mi35x"))
        }
        // vLLM Ascend's image, tagged by its release, for Atlas A2 (the
        // 910B) (docs.vllm.ai/projects/ascend/en/v0.13.0/quick_start.html:
        // `quay.io/ascend/vllm-ascend:v0.13.0`; `-a3` for Atlas A3).
        (Engine::Vllm, Vendor::Huawei) => l
            .engine_version
            .split_whitespace()
            .nth(1)
            .and_then(pinned)
            .map(|v| format!("quay.io/ascend/vllm-ascend:v{v}")),
        _ => None,
    }
}

/// Whether the task runs the engine from its image (AMD: no pip wheel of
/// the engine is the ROCm build) rather than from pip on the host.
pub fn from_image(l: &Launch) -> bool {
    l.vendor == Vendor::Amd && image(l).is_some()
}

/// `docker run` of the engine's image with the command's own arguments
/// (its entrypoint set to the command's program, so the image's default
/// entrypoint never doubles it); `env` is an extra `-e NAME=VALUE`.
pub fn docker_run(l: &Launch, c: &Command, env: Option<&str>) -> Option<String> {
    let image = image(l)?;
    let devices = devices(l.vendor, l.offer.gpus)?;
    let (program, args) = c.argv.split_first()?;
    // SGLang's images ship `python3` (docs.sglang.io amd_gpu.md launches `python3 -m sglang.launch_server`).
    let program = if program == "python" { "python3" } else { program.as_str() };
    let env = env.map(|e| format!(" -e {e}")).unwrap_or_default();
    Some(format!(
        "docker run --rm --network=host --ipc=host {devices}{env} -v \
            $HOME/.cache/huggingface:/root/.cache/huggingface -e HF_TOKEN --entrypoint {program} {image} {}",
        args.join(" ")
    ))
}

/// The setup lines of a serving task: `None` where the plain pip wheel of
/// the engine is the right one (NVIDIA).
pub fn setup(l: &Launch) -> Option<Vec<String>> {
    let engine = l.cfg.engine;
    if from_image(l) {
        return image(l).map(|i| vec![format!("docker pull {i}")]);
    }
    match (l.vendor, engine) {
        (Vendor::Nvidia, _) | (_, Engine::LlamaCpp | Engine::Hf) => None,
        (Vendor::Amd, Engine::Vllm) => Some(vec![
            format!(
                "# no prebuilt vLLM ROCm image for {} (the rocm/vllm images are built for \
                MI300/MI350):",
                l.arch
            ),
            "# build one from vLLM's docker/Dockerfile.rocm (docs.vllm.ai \
                en/v0.11.2/getting_started/installation/gpu, AMD ROCm)"
                .to_string(),
        ]),
        (Vendor::Huawei, Engine::Vllm) => {
            // vLLM Ascend v0.13.0 runs on vLLM v0.13.0 in a CANN 8.5.0
            // environment (docs.vllm.ai/projects/ascend/en/v0.13.0/installation.html:
            // "pip install vllm==0.13.0", "pip install vllm-ascend==0.13.0").
            let v = l
                .engine_version
                .split_whitespace()
                .nth(1)
                .and_then(pinned)
                .unwrap_or_else(|| "0.13.0".to_string());
            Some(vec![
                format!(
                    "# Ascend: vLLM's Ascend plugin {v}, in a CANN 8.5.0 environment \
                    (docs.vllm.ai/projects/ascend/en/v{v}/installation.html)"
                ),
                format!("pip install \"vllm=={v}\" \"vllm-ascend=={v}\""),
            ])
        }
        (Vendor::Intel, Engine::Vllm) => {
            let v = pinned(&l.engine_version).unwrap_or_else(|| "0.11.2".to_string());
            // vLLM Hardware Plugin for Intel Gaudi: vLLM built for no device,
            // then the plugin, in Intel's Gaudi PyTorch container
            // (docs.vllm.ai/projects/gaudi/en/0.13.0/getting_started/installation.html,
            // "Building from source"; its compatibility matrix pairs vLLM v0.11.2).
            Some(vec![
                "# Intel Gaudi: vLLM with the vLLM Hardware Plugin for Intel Gaudi, in Intel's Gaudi PyTorch \
                    container".to_string(),
                "# (docs.vllm.ai/projects/gaudi/en/0.13.0/getting_started/installation.html; check out the \
                    plugin release its compatibility matrix pairs with this vLLM)".to_string(),
                format!("git clone --branch v{v} https://github.com/vllm-project/vllm && \
                    VLLM_TARGET_DEVICE=empty pip install ./vllm"),
                "git clone https://github.com/vllm-project/vllm-gaudi && pip install \
                    ./vllm-gaudi".to_string(),
            ])
        }
        (vendor, engine) => Some(vec![format!(
            "# {} on {} GPUs has no install route in whichgpu's table: follow the engine's own guide for \
                this platform",
            super::launch::engine_name(l.cfg.task, engine),
            vendor.as_str()
        )]),
    }
}
