//! Every answer stays the same unless a commit says otherwise: 2,000 links
//! from a fixed-seed generator over every task, model family, format,
//! engine, GPU pin, load, training and billing key, each with the SHA-256 of
//! its answer's JSON and of its launch texts' JSON, committed in
//! `tests/data/answer_hashes.txt`. A refactor leaves the file as it is; a
//! change that moves answers regenerates it deliberately
//! (`UPDATE_ANSWER_HASHES=1 cargo test --test it answer_hashes`) and says so
//! in its commit. Answers and launch texts are hashed apart, so a change to
//! the texts alone shows that no answer moved.

use sha2::{Digest, Sha256};
use whichgpu::core::export;

use crate::common;

const PATH: &str = "tests/data/answer_hashes.txt";
const LINKS: usize = 2000;

/// SplitMix64 (Steele, Lea & Flood 2014): a fixed sequence from a fixed seed.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const LLMS: &[&str] = &[
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.3-70b",
    "llama-3.2-1b",
    "llama-3.2-3b",
    "llama-2-13b",
    "mistral-7b",
    "mixtral-8x7b",
    "mixtral-8x22b",
    "qwen2.5-7b",
    "qwen2.5-14b",
    "qwen2.5-32b",
    "qwen2.5-72b",
    "qwen3-8b",
    "qwen3-32b",
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "deepseek-v3",
    "deepseek-r1",
    "deepseek-r1-distill-qwen-7b",
    "gemma-2-9b",
    "gemma-3-27b",
    "phi-4",
    "gpt-oss-20b",
    "gpt-oss-120b",
    "llama-3.1-405b",
    "qwen2.5-vl-7b",
    "llama-3.2-vision-11b",
    "pixtral-12b",
    "qwen2.5-vl-72b",
];
const FORMATS: &[&str] =
    &["bf16", "fp8", "int8", "int4-awq", "int4-gptq", "nf4", "mxfp4", "gguf-q4_k_m", "gguf-q8_0", "fp16"];
const ENGINES: &[&str] = &["vllm", "sglang", "trt-llm", "llama.cpp", "hf"];
const GPUS: &[&str] = &[
    "h100-sxm-80gb",
    "h100-pcie-80gb",
    "h200-sxm-141gb",
    "b200-sxm-180gb",
    "a100-sxm-80gb",
    "a100-pcie-40gb",
    "l40s-48gb",
    "l4-24gb",
    "a10g-24gb",
    "rtx-4090-24gb",
    "rtx-3090-24gb",
    "t4-16gb",
    "mi300x-192gb",
    "rtx-pro-6000-96gb",
    "v100-32gb",
    "ascend-910b-64gb",
    "gaudi2-96gb",
    "rtx-5090-32gb",
];
const MEDIA: &[&str] = &[
    "sd-1.5",
    "sdxl",
    "sd-3.5-large",
    "flux.1-dev",
    "flux.1-schnell",
    "pixart-sigma",
    "wan-2.1-1.3b",
    "wan-2.1-14b",
    "hunyuanvideo",
    "ltx-video",
    "musicgen-medium",
    "stable-audio-open",
    "xtts-v2",
    "f5-tts",
    "bark",
];
const TRAINERS: &[&str] = &["hf", "torchtune", "unsloth", "axolotl", "deepspeed", "megatron", "torchtitan"];

/// One generated link.
pub(crate) fn link(r: &mut Rng) -> String {
    let mut q = vec!["v=1".to_string()];
    let add = |q: &mut Vec<String>, k: &str, v: &str| q.push(format!("{k}={v}"));
    match r.next() % 10 {
        0..=4 => {
            add(&mut q, "model", r.pick(LLMS));
            if r.chance(60) {
                add(&mut q, "w", r.pick(FORMATS));
            }
            if r.chance(25) {
                add(&mut q, "engine", r.pick(ENGINES));
            }
            add(&mut q, "in", r.pick(&["128", "1000", "2000", "8000", "32000", "100000"]));
            add(&mut q, "out", r.pick(&["64", "200", "500", "2000"]));
            add(&mut q, "batch", r.pick(&["1", "4", "16", "64", "max"]));
            if r.chance(15) {
                add(&mut q, "rps", r.pick(&["0.2", "2", "20"]));
            }
            if r.chance(15) {
                add(&mut q, "kv", r.pick(&["fp8", "bf16"]));
            }
            if r.chance(10) {
                add(&mut q, "images", r.pick(&["1", "4"]));
            }
            if r.chance(15) {
                add(&mut q, "use", r.pick(&["hours", "jobs", "once"]));
                add(&mut q, "hpd", r.pick(&["4", "12"]));
                add(&mut q, "jobs", r.pick(&["10", "100"]));
                if r.chance(50) {
                    add(&mut q, "per_job", r.pick(&["1000", "200000"]));
                    add(&mut q, "days", r.pick(&["0.25", "2"]));
                }
            }
            if r.chance(10) {
                add(&mut q, "sort", r.pick(&["speed", "token", "cost"]));
            }
            if r.chance(10) {
                add(&mut q, "mintps", r.pick(&["20", "60"]));
            }
        }
        5..=7 => {
            add(&mut q, "task", r.pick(&["finetune", "finetune", "pretrain"]));
            add(&mut q, "model", r.pick(&LLMS[..26]));
            add(&mut q, "method", r.pick(&["full", "lora", "qlora"]));
            add(&mut q, "trainer", r.pick(TRAINERS));
            add(&mut q, "tokens", r.pick(&["1000000", "50000000", "1e9"]));
            add(&mut q, "seq", r.pick(&["512", "2048", "8192"]));
            add(&mut q, "mb", r.pick(&["1", "2", "4"]));
            if r.chance(40) {
                add(&mut q, "zero", r.pick(&["0", "1", "2", "3"]));
            }
            if r.chance(15) {
                add(&mut q, "optim_offload", "1");
            }
            if r.chance(15) {
                add(&mut q, "optim", r.pick(&["adamw8bit", "adafactor", "sgd"]));
            }
            if r.chance(20) {
                add(&mut q, "days", r.pick(&["1", "7", "30"]));
            }
            if r.chance(15) {
                add(&mut q, "gc", r.pick(&["none", "selective", "full"]));
            }
        }
        _ => {
            let model = r.pick(MEDIA);
            let train = r.chance(20)
                && matches!(model, "sd-1.5" | "sdxl" | "flux.1-dev" | "sd-3.5-large" | "wan-2.1-1.3b");
            add(&mut q, "task", if train { "finetune" } else { "generate" });
            add(&mut q, "model", model);
            if train {
                add(&mut q, "method", r.pick(&["lora", "qlora", "full"]));
            } else {
                add(&mut q, "batch", r.pick(&["1", "4"]));
                add(&mut q, "use", r.pick(&["hours", "jobs"]));
                add(&mut q, "jobs", r.pick(&["10", "1000"]));
                add(&mut q, "jobmin", r.pick(&["5", "30"]));
            }
        }
    }
    if r.chance(20) {
        add(&mut q, "gpu", r.pick(GPUS));
    }
    if r.chance(10) {
        add(&mut q, "spot", "1");
    }
    if r.chance(8) {
        add(&mut q, "commit", r.pick(&["1yr", "3yr"]));
    }
    if r.chance(8) {
        add(&mut q, "provider", r.pick(&["aws", "runpod", "lambda", "gcp,azure"]));
    }
    if r.chance(8) {
        add(&mut q, "lang", "zh");
    }
    if r.chance(5) {
        add(&mut q, "cur", r.pick(&["cny", "eur"]));
    }
    q.join("&")
}

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The generated links and, per link, the hashes of its answer and of its
/// launch texts.
fn lines() -> Vec<String> {
    let mut r = Rng(0x5EED_2026_1204);
    (0..LINKS)
        .map(|_| {
            let query = link(&mut r);
            let answer = common::answer(&query);
            let json = serde_json::to_string(&answer).expect("answer serializes");
            let texts = serde_json::to_string(&export::for_answer(&answer, common::catalog()))
                .expect("texts serialize");
            format!("{} {} {query}", &sha(&json)[..16], &sha(&texts)[..16])
        })
        .collect()
}

#[test]
fn answer_hashes() {
    let now = lines();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PATH);
    if std::env::var_os("UPDATE_ANSWER_HASHES").is_some() {
        let text = format!(
            "# answer-sha256[..16] launch-texts-sha256[..16] link (tests/it/answer_hashes.rs)\n{}\n",
            now.join("\n")
        );
        std::fs::write(&path, text).expect("write hashes");
        return;
    }
    let stored = std::fs::read_to_string(&path)
        .expect("tests/data/answer_hashes.txt (UPDATE_ANSWER_HASHES=1 writes it)");
    let stored: Vec<&str> = stored.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(stored.len(), LINKS, "the hash file has {} links, the generator {LINKS}", stored.len());
    let (mut answers, mut texts) = (Vec::new(), Vec::new());
    for (old, new) in stored.iter().zip(&now) {
        let (o, n): (Vec<&str>, Vec<&str>) = (old.splitn(3, ' ').collect(), new.splitn(3, ' ').collect());
        assert_eq!(o.get(2), n.get(2), "the generator changed: regenerate the file deliberately");
        if o.first() != n.first() {
            answers.push(n[2].to_string());
        } else if o.get(1) != n.get(1) {
            texts.push(n[2].to_string());
        }
    }
    assert!(
        answers.is_empty() && texts.is_empty(),
        "{} answers and {} launch texts (answer unchanged) differ from the committed hashes; first answers: {:?}; first texts: {:?}",
        answers.len(),
        texts.len(),
        answers.iter().take(5).collect::<Vec<_>>(),
        texts.iter().take(5).collect::<Vec<_>>()
    );
}
