//! Launch texts that run (issue 38): the context flags are the plan's own
//! request (images included), the install follows the GPU's vendor, the
//! model is named by its repository, long contexts carry the checkpoint's
//! rope scaling, and a provider SkyPilot has no cloud for gets a
//! `docker run` line with the engine's image.

use whichgpu::core::answer::Answer;
use whichgpu::core::catalog::gpus::Vendor;
use whichgpu::core::export::{for_answer, install, Export, Launch};

use crate::common::{answer, catalog};

fn launch(q: &str) -> (Answer, Vec<Export>) {
    let a = answer(q);
    let e = for_answer(&a, catalog());
    assert!(!e.is_empty(), "{q} has a pick");
    (a, e)
}

/// The GPU of an export's offer.
fn gpu<'a>(a: &'a Answer, e: &Export) -> &'a str {
    a.offers.iter().find(|o| o.id == e.offer).map(|o| &*o.gpu).expect("the offer")
}

/// The value after `flag` on the command's one command line.
fn flag_value(command: &str, flag: &str) -> Option<String> {
    let line = command.lines().find(|l| !l.starts_with('#'))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    words.iter().position(|w| *w == flag).and_then(|i| words.get(i + 1)).map(|v| v.to_string())
}

#[test]
fn a_vision_language_launch_sizes_its_context_with_the_image_tokens() {
    let (a, exports) = launch("model=qwen2.5-vl-7b&images=16&res=1280x720&in=500&out=200&batch=8");
    let request = a.request_tokens.expect("a serving plan sizes its request");
    assert!(request > 19_000, "16 images of 1280×720 add their tokens: {request}");
    for e in &exports {
        assert_eq!(
            flag_value(&e.command, "--max-model-len").and_then(|v| v.parse().ok()),
            Some(request),
            "{}",
            e.command
        );
    }
    let (a, exports) =
        launch("model=qwen2.5-vl-7b&images=4&res=1024x1024&in=300&out=100&batch=4&engine=sglang");
    let request = a.request_tokens.expect("request");
    assert!(request > 400 + 4 * 1000);
    assert_eq!(
        flag_value(&exports[0].command, "--context-length").and_then(|v| v.parse().ok()),
        Some(request),
        "{}",
        exports[0].command
    );
}

#[test]
fn deepseek_r1_on_mi300x_installs_vllm_through_rocm() {
    let (a, exports) = launch("model=deepseek-r1&w=fp8&in=8000&out=2000&batch=32&gpu=mi300x-192gb");
    let pick = &exports[0];
    assert!(gpu(&a, pick).starts_with("mi300x"), "the pick is MI300X: {}", pick.offer);
    assert!(
        !pick.skypilot_yaml.contains("pip install \"vllm=="),
        "no CUDA wheel on ROCm:\n{}",
        pick.skypilot_yaml
    );
    assert!(
        pick.skypilot_yaml.contains("rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210"),
        "vLLM's ROCm image at the pinned version:\n{}",
        pick.skypilot_yaml
    );
    assert!(
        pick.skypilot_yaml.contains("--device=/dev/kfd"),
        "the container sees the AMD GPUs:\n{}",
        pick.skypilot_yaml
    );
    // The same offer under SGLang: its ROCm image, not a pip wheel.
    let (_, sg) = launch(&format!(
        "model=deepseek-r1&w=fp8&in=8000&out=2000&batch=32&engine=sglang&gpu={}",
        gpu(&a, pick)
    ));
    assert!(
        sg[0].skypilot_yaml.contains("lmsysorg/sglang:v0.5.5.post2-rocm700-mi30x"),
        "{}",
        sg[0].skypilot_yaml
    );
    assert!(!sg[0].skypilot_yaml.contains("pip install sglang"), "{}", sg[0].skypilot_yaml);
}

#[test]
fn ascend_and_gaudi_picks_install_their_own_vllm_route() {
    let (a, e) = launch("model=qwen2.5-7b&batch=8&gpu=ascend-910b-64gb");
    assert_eq!(gpu(&a, &e[0]), "ascend-910b-64gb");
    assert!(
        e[0].skypilot_yaml.contains("vllm-ascend==0.13.0")
            && !e[0].skypilot_yaml.contains("pip install \"vllm==0.11.2\""),
        "{}",
        e[0].skypilot_yaml
    );
    // No Gaudi offer is in the catalog today: the same plan's launch on a Gaudi 3.
    let offer = a.offers.iter().find(|o| o.id == e[0].offer).expect("offer");
    let mut l = Launch::new(&a, offer, catalog());
    (l.vendor, l.arch, l.engine_version) = (Vendor::Intel, "gaudi3".to_string(), "v0.11.2".to_string());
    let setup = install::setup(&l).expect("a Gaudi route").join("\n");
    assert!(
        setup.contains("vllm-gaudi")
            && setup.contains("--branch v0.11.2")
            && !setup.contains("pip install \"vllm=="),
        "{setup}"
    );
}

#[test]
fn catalog_models_launch_with_their_repository_id() {
    for (model, repo) in [
        ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"),
        ("qwen2.5-7b", "Qwen/Qwen2.5-7B-Instruct"),
        ("deepseek-r1", "deepseek-ai/DeepSeek-R1"),
    ] {
        let (_, exports) = launch(&format!("model={model}&batch=4"));
        for e in &exports {
            assert!(!e.skypilot_yaml.contains("MODEL: null"), "{model}:\n{}", e.skypilot_yaml);
            assert!(e.skypilot_yaml.contains(&format!("MODEL: {repo}")), "{model}:\n{}", e.skypilot_yaml);
            assert!(
                e.command.contains(&format!("${{MODEL:-{repo}}}")),
                "{model}: the command's default:\n{}",
                e.command
            );
            assert!(!e.command.contains("has no repository id"), "{}", e.command);
        }
    }
    // Every catalog language model has one.
    for m in &catalog().models {
        assert!(whichgpu::core::export::checkpoint::of(&m.id).is_some(), "{} has a repository id", m.id);
    }
}

#[test]
fn a_quantized_plan_says_the_repository_is_the_bf16_checkpoint() {
    let (_, exports) = launch("model=llama-3.1-8b&w=int4-awq&batch=4");
    let e = &exports[0];
    assert!(
        e.command.contains("AWQ") && e.command.contains("meta-llama/Llama-3.1-8B-Instruct"),
        "{}",
        e.command
    );
    assert!(e.command.contains("MODEL must point at"), "said plainly, not served as bf16: {}", e.command);
}

#[test]
fn qwen2_5_7b_instruct_at_100k_carries_yarn() {
    let (_, exports) = launch("model=qwen2.5-7b&in=100000&out=1000&batch=1");
    for e in &exports {
        let v = flag_value(&e.command, "--hf-overrides")
            .unwrap_or_else(|| panic!("YaRN past 32,768 tokens: {}", e.command));
        let json: serde_json::Value = serde_json::from_str(v.trim_matches('\'')).expect("JSON");
        let rope = &json["rope_scaling"];
        assert_eq!(rope["type"], "yarn");
        assert_eq!(rope["factor"].as_f64(), Some(4.0));
        assert_eq!(rope["original_max_position_embeddings"].as_u64(), Some(32_768));
    }
    // Within the checkpoint's own context: no rope scaling.
    let (_, exports) = launch("model=qwen2.5-7b&in=8000&out=1000&batch=1");
    assert!(exports.iter().all(|e| !e.command.contains("rope_scaling")), "{}", exports[0].command);
    // SGLang takes the same override by its own flag.
    let (_, exports) = launch("model=qwen2.5-7b&in=100000&out=1000&batch=1&engine=sglang");
    assert!(
        flag_value(&exports[0].command, "--json-model-override-args").is_some_and(|v| v.contains("yarn")),
        "{}",
        exports[0].command
    );
}

#[test]
fn a_provider_skypilot_lacks_gets_a_docker_run_line() {
    for (q, image) in [
        ("model=llama-3.1-8b&batch=8&provider=tensordock", "vllm/vllm-openai:v0.11.2"),
        ("model=llama-3.1-8b&batch=8&provider=matpool", "vllm/vllm-openai:v0.11.2"),
        ("model=llama-3.1-8b&batch=8&provider=tensordock&engine=sglang", "lmsysorg/sglang:v0.5.5.post2"),
    ] {
        let (_, exports) = launch(q);
        let e = &exports[0];
        assert!(e.unsupported.is_some(), "{q}: SkyPilot has no cloud for it");
        let docker = e
            .skypilot_yaml
            .lines()
            .find(|l| l.contains("docker run"))
            .unwrap_or_else(|| panic!("{q}: a docker run line:\n{}", e.skypilot_yaml));
        assert!(docker.contains(image), "{q}: {docker}");
        assert!(docker.contains("--gpus all"), "{q}: {docker}");
        // The same engine arguments as the command.
        let line = e.command.lines().find(|l| !l.starts_with('#')).expect("the command");
        let args = line.split_once("-Instruct}").map(|(_, rest)| rest.trim()).expect("model argument");
        assert!(docker.contains(args), "{q}: {docker}\nvs {line}");
    }
}

/// An Ascend pick on a provider SkyPilot lacks (AutoDL's 910B) gets vLLM
/// Ascend's image with one NPU device per card and the driver's mounts, as
/// its container quick start runs it, and the command's own arguments.
#[test]
fn an_ascend_pick_on_a_provider_skypilot_lacks_gets_vllm_ascends_docker_line() {
    let q = "model=qwen2.5-14b&gpu=ascend-910b-64gb&lang=zh";
    let (_, exports) = launch(q);
    let e = &exports[0];
    assert!(e.unsupported.is_some(), "{q}: SkyPilot has no cloud for it");
    let docker = e
        .skypilot_yaml
        .lines()
        .find(|l| l.contains("docker run"))
        .unwrap_or_else(|| panic!("{q}: a docker run line:\n{}", e.skypilot_yaml));
    assert!(docker.contains("quay.io/ascend/vllm-ascend:v0.13.0"), "{docker}");
    for device in ["/dev/davinci0", "/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"] {
        assert!(docker.contains(&format!("--device {device}")), "{device}: {docker}");
    }
    assert!(!docker.contains("--gpus all"), "{docker}");
    let line = e.command.lines().find(|l| !l.starts_with('#')).expect("the command");
    let args = line.split_once("-Instruct}").map(|(_, rest)| rest.trim()).expect("model argument");
    assert!(docker.contains(args), "{docker}\nvs {line}");
}

/// A card without bf16 (Volta, Turing: support.csv's `hf` rows) trains in
/// fp16 mixed precision; the launch never asks it for bf16.
#[test]
fn training_on_a_card_without_bf16_launches_in_fp16() {
    for q in [
        "task=finetune&model=sdxl&method=lora&train_steps=500&gpu=v100-32gb",
        "task=finetune&model=llama-3.1-8b&method=qlora&gpu=t4-16gb",
    ] {
        let (a, exports) = launch(q);
        let pick = exports.first().unwrap_or_else(|| panic!("{q}: no launch"));
        assert!(gpu(&a, pick).starts_with("v100") || gpu(&a, pick).starts_with("t4"), "{q}: {}", pick.offer);
        let text = format!("{}\n{}", pick.command, pick.skypilot_yaml);
        assert!(
            !text.contains("--mixed_precision bf16") && !text.contains("--bf16"),
            "{q}: bf16 asked of a card without it:\n{}",
            pick.command
        );
    }
}

/// A split Qwen 72B AWQ plan loads only a conversion with the padded FFN
/// (`engine_rules::PADDED_GROUP_FFN`): the launch says so; a one-GPU plan does not need it.
#[test]
fn a_split_qwen_72b_awq_launch_asks_for_the_padded_ffn() {
    let (a, exports) = launch("model=qwen2.5-72b&w=int4-awq&gpu=rtx-4090-24gb&batch=4");
    let pick = a.offers.iter().find(|o| o.id == exports[0].offer).expect("the pick");
    assert!(pick.tp * pick.dp.max(1) > 1, "4090s split it");
    assert!(exports[0].command.contains("FFN padded to 29696"), "{}", exports[0].command);
    let (a, exports) = launch("model=qwen2.5-72b&w=int4-awq&gpu=h200-sxm-141gb&batch=4");
    for e in &exports {
        let o = a.offers.iter().find(|o| o.id == e.offer).expect("offer");
        assert_eq!(e.command.contains("padded to"), o.tp * o.dp.max(1) > 1, "{}", e.command);
    }
}
