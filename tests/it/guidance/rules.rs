//! Each guidance rule has a case where it fires and one where it does not.

use crate::common;

fn rules(query: &str) -> Vec<(String, String)> {
    let a = common::answer(query);
    a.guidance.iter().map(|g| (g.id.to_string(), g.text())).collect()
}

fn fires(query: &str, id: &str) -> bool {
    rules(query).iter().any(|(r, _)| r == id)
}

fn text(query: &str, id: &str) -> String {
    rules(query).into_iter().find(|(r, _)| r == id).map(|(_, t)| t).unwrap_or_default()
}

#[test]
fn the_four_questions_are_always_answered_for_serving() {
    for id in ["memory", "spot", "gpu-size", "slow-decode"] {
        assert!(fires("model=llama-3.1-8b", id), "{id}");
    }
}

#[test]
fn kv_share_note() {
    assert!(fires("model=llama-3.1-8b&in=32000&out=1000&batch=32&gpu=h200-sxm-141gb", "kv-share"));
    assert!(!fires("model=llama-3.1-8b&in=100&out=100&batch=1", "kv-share"));
}

#[test]
fn spot_answer_depends_on_the_workload() {
    assert!(text("model=llama-3.1-8b", "spot").contains("user-facing endpoint"));
    // The answer follows the pick: on spot where the pick is billed at spot.
    assert!(text("model=llama-3.1-8b&use=jobs&spot=1&provider=aws", "spot").contains("spot prices are used"));
    // Jarvislabs offers spot but no spot price is captured (RunPod community rows now carry spot prices).
    assert!(
        text("model=llama-3.1-8b&use=jobs&spot=1&provider=jarvislabs", "spot").contains("has no spot price")
    );
    // A long synchronous pre-training run over several instances stays off spot.
    assert!(text("task=pretrain&model=llama-3.1-70b&tokens=200000000000&spot=1&provider=aws", "spot")
        .contains("not put on spot"));
    assert!(text("model=llama-3.1-8b&use=jobs", "spot").contains("spot=1"));
}

#[test]
fn gpu_size_answer_scales_with_need() {
    assert!(text("model=llama-3.1-8b&w=int4-awq&batch=1&in=1000&out=100", "gpu-size")
        .starts_with("A 24 GB card holds it"));
    assert!(text("model=qwen2.5-32b&w=int4-awq&batch=4&in=4000&out=500&gpu=l40s-48gb", "gpu-size")
        .starts_with("A 48 GB card"));
    assert!(text("model=llama-3.1-70b&w=bf16&gpu=mi300x-192gb", "gpu-size").starts_with("Yes"));
    // A pick that splits a 70B copy over four 24 GB cards is not told it needs an 80 GB card.
    let t = text("model=llama-3.3-70b&w=int4-awq&in=8000&out=1000&batch=8&cur=cny&gpus=4", "gpu-size");
    assert!(
        t.starts_with("Not for this pick") && t.contains("an 80 GB one") && t.contains("× rtx-4090-24gb"),
        "{t}"
    );
    // Pinned to 4090s, none of which holds a copy: the answer is how many.
    let t = text("model=llama-3.1-70b&w=int4-awq&in=8000&out=1000&batch=8&gpu=rtx-4090-24gb", "gpu-size");
    assert!(
        t.starts_with("No GPU offered here holds one copy alone") && t.contains("× rtx-4090-24gb"),
        "{t}"
    );
    // 145 GiB in bf16: not "an 80 GB one".
    let t = text("model=llama-3.3-70b&w=bf16&in=4000&out=1000&batch=8", "gpu-size");
    assert!(
        t.starts_with("Not for this pick")
            && t.contains("more than an 80 GB card holds")
            && !t.contains("an 80 GB one"),
        "{t}"
    );
    // DeepSeek-V3 fits no single card: the answer is how many, not "an 80 GB one".
    let t = text("model=deepseek-v3&w=fp8&in=2000&out=800&batch=32", "gpu-size");
    assert!(t.starts_with("No GPU offered here holds one copy alone") && !t.contains("80 GB"), "{t}");
    // Training and generation are compute bound: no bandwidth advice there.
    assert!(text("task=finetune&method=qlora", "gpu-size").contains("compute bound"));
}

#[test]
fn slow_decode_answer_names_the_bound() {
    assert!(text("model=llama-3.1-8b&batch=1", "slow-decode").contains("bandwidth bound"));
    assert!(text("model=llama-3.1-8b&batch=1024&in=100&out=100&gpu=h100-sxm-80gb&gpus=1", "slow-decode")
        .contains("compute bound"));
    // llama.cpp's Q2_K on a Tesla P40 issues its unpacking longer than it reads: not called bandwidth bound.
    let p40 = "model=llama-2-7b&engine=llama.cpp&w=gguf-q2_k&gpu=tesla-p40-24gb&batch=1";
    assert!(
        text(p40, "slow-decode").contains("instruction rate")
            && !text(p40, "slow-decode").contains("bandwidth bound"),
        "{}",
        text(p40, "slow-decode")
    );
    // Q4_0 on the same card reads its weights longer than it issues them: bandwidth bound.
    assert!(text("model=llama-2-7b&engine=llama.cpp&w=gguf-q4_0&gpu=tesla-p40-24gb&batch=1", "slow-decode")
        .contains("bandwidth bound"));
}

#[test]
fn nvlink_note_only_when_tensor_parallelism_runs_over_pcie() {
    // 70B at 16 bits spans GPUs: over PCIe the note fires, over NVSwitch it does not.
    assert!(fires("model=llama-3.1-70b&w=bf16&gpu=a100-pcie-80gb", "nvlink"));
    assert!(!fires("model=llama-3.1-70b&w=bf16&gpu=h100-sxm-80gb", "nvlink"));
    // H100 PCIe's pick is an NVLink-bridged box (issue 37: two-level all-reduce), which needs no note.
    assert!(!fires("model=llama-3.1-70b&w=bf16&gpu=h100-pcie-80gb", "nvlink"));
    assert!(!fires("model=llama-3.1-8b&gpu=h100-pcie-80gb", "nvlink"));
}

#[test]
fn single_gpu_note_when_a_multi_gpu_box_is_picked_for_a_one_gpu_model() {
    // Restricting to 8-GPU instances forces a box the model does not need.
    assert!(fires("model=llama-3.1-8b&provider=aws&gpu=h100-sxm-80gb", "single-gpu"));
    assert!(!fires("model=llama-3.1-8b&gpu=l40s-48gb", "single-gpu"));
}

#[test]
fn format_suggestions_come_from_the_plan_and_never_repeat_the_current_format() {
    let suggests = |q: &str, what: &str| rules(q).iter().any(|(id, t)| id == "whatif" && t.contains(what));
    assert!(suggests("model=llama-3.1-70b&w=bf16", "w=fp8"));
    assert!(!suggests("model=llama-3.1-70b&w=fp8", "w=fp8"));
    // An FP8 KV cache is never suggested for a cache that is already FP8.
    assert!(!suggests("model=llama-3.1-8b&kv=fp8&in=32000&batch=32", "kv=fp8"));
}

#[test]
fn billing_note_for_bursty_use() {
    // Per-hour billing rounds a 7-minute job up to an hour; per-second does not.
    assert!(fires("model=llama-3.1-8b&use=jobs&jobmin=7&provider=paperspace", "billing"));
    assert!(!fires("model=llama-3.1-8b&use=jobs&jobmin=7&provider=runpod", "billing"));
    assert!(!fires("model=llama-3.1-8b&use=hours&hpd=4&provider=paperspace", "billing"));
    assert!(!fires("model=llama-3.1-8b&use=always", "billing"));
}

#[test]
fn storage_note_when_storage_is_a_large_share() {
    assert!(fires("model=llama-3.1-8b&use=hours&hpd=0.5&store=20000&provider=aws", "storage"));
    assert!(!fires("model=llama-3.1-8b&provider=aws", "storage"));
}

#[test]
fn prices_note_unless_the_user_priced_the_pick() {
    let q = "model=llama-3.1-8b&gpu=h100-sxm-80gb&provider=aws";
    assert!(fires(q, "prices"));
    let a = common::answer(q);
    let pick = a.recommendation.expect("pick").pick.offer;
    assert!(!fires(&format!("{q}&price={pick}:0.01"), "prices"));
}

#[test]
fn inferred_note_only_for_inferred_architectures() {
    assert!(fires("model=custom&params=13", "inferred"));
    assert!(!fires("model=custom&params=13&layers=40&hidden=5120&heads=40", "inferred"));
}

#[test]
fn nofit_note_when_nothing_fits() {
    assert!(fires("model=llama-3.1-405b&w=bf16&gpu=l4-24gb&engine=llama.cpp", "nofit"));
    assert!(!fires("model=llama-3.1-8b", "nofit"));
}

#[test]
fn training_explains_why_adapters_fit() {
    let t = text("task=finetune&model=llama-3.1-8b&method=full", "methods");
    assert!(t.contains("LoRA") && t.contains("QLoRA"), "{t}");
    assert!(!fires("task=pretrain&model=llama-3.1-8b", "methods"));
}

#[test]
fn images_note_for_vision_requests_only() {
    let q = "model=qwen2.5-vl-7b&images=2&res=1280x720&in=100&out=100";
    assert!(fires(q, "images"));
    // 46 × 26 tokens of 28 px per 1280×720 image; 2 × 0.9216 MP × 0.114 s.
    let t = text(q, "images");
    assert!(t.contains("2392 image tokens") && t.contains("0.21 s"), "{t}");
    assert!(!fires("model=qwen2.5-vl-7b&images=0", "images"));
    assert!(!fires("model=llama-3.1-8b&images=2", "images"));
}

#[test]
fn no_nvlink_note_for_a_layer_split() {
    // transformers spreads a 70B model over GPUs by layers: no all-reduce.
    assert!(fires("model=llama-3.1-70b&gpus=2&gpu=a100-pcie-80gb", "nvlink"));
    assert!(!fires("model=llama-3.1-70b&gpus=2&gpu=a100-pcie-80gb&engine=hf", "nvlink"));
}

#[test]
fn no_pick_says_which_ask_rules_the_offers_out() {
    // Offers hold a 70B model; the budget rules every one of them out.
    let a = common::answer("model=llama-3.1-70b&maxusd=500");
    assert!(a.pick().is_none());
    let g = a.guidance.iter().find(|g| g.id == "nomeet").expect("the budget note");
    assert_eq!(g.msg.key, "g.note.overbudget");
    let cheapest = a.offers.iter().filter(|o| o.fits).map(|o| o.usd_per_month).fold(f64::MAX, f64::min);
    assert!(
        cheapest > 500.0 && g.text().contains(&format!("${cheapest:.0}")),
        "{}: cheapest {cheapest}",
        g.text()
    );
    assert!(!fires("model=llama-3.1-70b&maxusd=500", "nofit"), "told that nothing holds a job that fits");
    // A speed floor nobody reaches is named as the ask.
    assert!(text("model=llama-3.1-8b&mintps=500", "nomeet").contains("mintps"));
    // Within budget, no such note.
    assert!(!fires("model=llama-3.1-8b&maxusd=5000", "nomeet"));
}

#[test]
fn nothing_fits_never_suggests_the_format_already_set() {
    let t = text("model=llama-3.1-405b&gpu=rtx-4090-24gb&w=bf16", "nofit");
    assert!(!t.is_empty() && !t.contains("(bf16)"), "{t}");
}

/// A generator's memory sentence names one item (size, frames, seconds of
/// audio) in the page's language: no English unit words in the Chinese.
#[test]
fn the_media_memory_sentence_names_its_item_in_either_language() {
    use whichgpu::core::config::Lang;
    for (model, en_word, zh_word) in [
        ("sdxl", "1024×1024", "分辨率 1024×1024"),
        ("wan-2.1-14b", "frames", "帧"),
        ("xtts-v2", "s of audio", "秒音频"),
    ] {
        let a = common::answer(&format!("task=generate&model={model}"));
        let g = a.guidance.iter().find(|g| g.id == "memory").expect("a memory answer");
        let (en, zh) = (g.msg.render(Lang::En), g.msg.render(Lang::Zh));
        assert!(en.contains(en_word), "{model}: {en}");
        assert!(zh.contains(zh_word) && !zh.contains("frames") && !zh.contains("audio"), "{model}: {zh}");
    }
}

/// The generating network is named for what it is: a denoiser for image
/// and video models, the autoregressive decoder for MusicGen, XTTS and Bark.
#[test]
fn the_media_memory_sentence_names_the_generating_network() {
    for (model, part) in [
        ("sdxl", "denoiser"),
        ("flux.1-dev", "denoiser"),
        ("musicgen-medium", "autoregressive decoder"),
        ("xtts-v2", "autoregressive decoder"),
    ] {
        let t = text(&format!("task=generate&model={model}"), "memory");
        assert!(t.contains(&format!("({part} ")), "{model}: {t}");
    }
}

/// When no offer is picked, a format the note proposes is one the engine
/// runs on the pinned GPU (support matrix), and the note blames the memory
/// only where no offer's memory would hold the job: where the memory fits
/// but the engine does not run the format there, it says that instead.
#[test]
fn no_pick_notes_name_the_real_obstacle_and_a_format_that_runs() {
    use whichgpu::core::catalog::support::Kind;
    use whichgpu::core::catalog::Support;
    use whichgpu::core::messages::Arg;
    let catalog = common::catalog();
    let mut checked = 0;
    for engine in ["vllm", "sglang", "trt-llm", "llama.cpp", "hf"] {
        for w in ["bf16", "fp8", "int8", "int4-awq", "nf4", "mxfp4", "gguf-q4_k_m"] {
            for (model, gpu) in [
                ("gpt-oss-20b", "v100-32gb"),
                ("gpt-oss-20b", "t4-16gb"),
                ("gpt-oss-20b", "rtx-4090-24gb"),
                ("gpt-oss-20b", "mi300x-192gb"),
                ("llama-3.1-8b", "tesla-p40-24gb"),
                ("llama-3.1-70b", "rtx-3090-24gb"),
                ("llama-3.1-8b", "gaudi2-96gb"),
            ] {
                let a = common::answer(&format!("model={model}&engine={engine}&w={w}&gpu={gpu}"));
                let Some(g) = a.guidance.iter().find(|g| g.id == "nofit") else { continue };
                checked += 1;
                let arch = catalog.gpu(gpu).expect("pinned GPU").arch.as_str();
                if let Some((_, Arg::Text(fmt))) = g.msg.args.iter().find(|(k, _)| *k == "fmt") {
                    if g.msg.key == "g.note.unsupported"
                        || a.answers.best_weight_format.as_deref() == Some(fmt.as_str())
                    {
                        assert_ne!(
                            catalog.support(engine, arch, Kind::Weights, fmt),
                            Support::Unsupported,
                            "{engine} {w} on {gpu}: proposes {fmt}"
                        );
                    }
                }
                let refused = a.offers.iter().any(|o| {
                    o.need_bytes <= o.usable_bytes
                        && o.reason_msgs.iter().any(|m| m.key == "reason.unsupported")
                });
                assert_eq!(
                    refused,
                    g.msg.key.starts_with("g.note.unsupported"),
                    "{engine} {w} on {gpu}: {}",
                    g.text()
                );
            }
        }
    }
    assert!(checked >= 20, "only {checked} configurations had no pick");
}

/// llama.cpp runs gpt-oss's GGUF files, whose experts are ggml's MXFP4 type.
#[test]
fn llama_cpp_runs_mxfp4_gguf_on_a_geforce_card() {
    let a = common::answer("model=gpt-oss-20b&engine=llama.cpp&w=mxfp4&gpu=rtx-4090-24gb&batch=1");
    assert!(a.pick().is_some(), "{:?}", a.guidance.iter().map(|g| g.text()).collect::<Vec<_>>());
    // A V100 under vLLM cannot run FP8: the note says so and proposes fp16, not bf16.
    let t = text("model=llama-3.1-8b&w=fp8&gpu=v100-32gb", "nofit");
    assert!(t.contains("does not run fp8 on volta") && t.contains("(fp16)"), "{t}");
}

/// "Is a 4090 enough for a 13B?": where the pick splits a 16-bit copy, the
/// card-size answer is followed by the smaller formats in which one of the
/// pick's cards holds a copy, with the sequences it then runs.
#[test]
fn a_split_16_bit_pick_names_the_formats_one_card_holds() {
    use whichgpu::core::config::Lang;
    let a = crate::common::answer("model=llama-2-13b&gpu=rtx-4090-24gb");
    let pick = a.pick().expect("pick");
    assert!(pick.tp * pick.pp > 1, "the 16-bit 13B at 16 sequences is split over 4090s");
    let item = a.guidance.iter().find(|g| g.id == "gpu-size-formats").expect("the formats sentence");
    let t = item.msg.render(Lang::En);
    assert!(t.contains("w=int4-awq (") && t.contains("rtx-4090-24gb"), "{t}");
    // A pick that holds a copy on one card gets no such sentence.
    assert!(!crate::common::answer("model=llama-3.1-8b&batch=1")
        .guidance
        .iter()
        .any(|g| g.id == "gpu-size-formats"));
}
