//! The export (issue 22): every SkyPilot task parses as YAML, uses only
//! the SkyPilot fields stored under `tests/data/export/` and asks for the
//! offer's own accelerator, count, spot setting and instances; every
//! engine command uses only the flags stored for that engine version and
//! sets the plan's layout, context length, sequences per copy, KV-cache
//! type and memory fraction. Property tests run over generated queries.

use std::collections::HashMap;
use std::fs;

use proptest::prelude::*;
use serde_json::Value;
use whichgpu::core::answer::Answer;
use whichgpu::core::config::{Engine, Trainer};
use whichgpu::core::estimate::engine::memory_fraction;
use whichgpu::core::export::names::{accelerator_for, cloud_for, lookup, normalize, Named};
use whichgpu::core::export::{for_answer, Export};
use whichgpu::core::link;

use crate::common::{answer, catalog};

/// A stored list: lines that are not comments; first word the flag or
/// field, the rest the values the export may write (`*` any).
fn stored(file: &str) -> HashMap<String, Vec<String>> {
    let text = fs::read_to_string(format!("tests/data/export/{file}")).expect("stored list");
    assert!(
        text.lines().any(|l| l.starts_with("# ") && l.contains('@') || l.contains("huggingface.co/docs")),
        "{file} names its source"
    );
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut w = l.split_whitespace().map(str::to_string);
            (w.next().unwrap_or_default(), w.collect())
        })
        .collect()
}

/// The stored flag list and the program a command starts with.
fn flags_file(task: &str, engine: Engine) -> (&'static str, &'static str) {
    if task != "serve" {
        return ("accelerate.flags", "accelerate launch ");
    }
    match engine {
        Engine::Vllm => ("vllm.flags", "vllm serve "),
        Engine::Sglang => ("sglang.flags", "python -m sglang.launch_server "),
        Engine::LlamaCpp => ("llama.cpp.flags", "llama-server "),
        Engine::TrtLlm => ("trt-llm.flags", "trtllm-serve "),
        Engine::Hf => ("", ""),
    }
}

/// The command's flags and values, split from its one command line;
/// every flag must be in `allowed` with an allowed value.
fn parse_command(
    command: &str,
    program: &str,
    allowed: &HashMap<String, Vec<String>>,
) -> HashMap<String, String> {
    let lines: Vec<&str> = command.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 1, "one command line: {command}");
    let args = lines[0].strip_prefix(program).unwrap_or_else(|| panic!("starts with `{program}`: {command}"));
    let mut out = HashMap::new();
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if w.starts_with('-') {
            let values =
                allowed.get(w).unwrap_or_else(|| panic!("flag {w} is not in the stored list: {command}"));
            if values.is_empty() {
                out.insert(w.to_string(), String::new());
            } else {
                let v = words.get(i + 1).unwrap_or_else(|| panic!("{w} has a value: {command}"));
                assert!(
                    values.iter().any(|a| a == "*" || a == v),
                    "{w} {v} is not a stored value: {command}"
                );
                out.insert(w.to_string(), v.to_string());
                i += 1;
            }
        }
        i += 1;
    }
    out
}

fn num(m: &HashMap<String, String>, flag: &str) -> f64 {
    m.get(flag).unwrap_or_else(|| panic!("{flag} set")).parse().expect("a number")
}

/// The YAML checks: parses, stored fields only, the offer's accelerator,
/// count, spot and instances.
fn check_yaml(e: &Export, offer: &Value) {
    let fields = stored("skypilot-fields.txt");
    let clouds = stored("skypilot-clouds.txt");
    let y: serde_yaml::Value = serde_yaml::from_str(&e.skypilot_yaml)
        .unwrap_or_else(|err| panic!("YAML: {err}\n{}", e.skypilot_yaml));
    let map = y.as_mapping().expect("a mapping");
    for (section, v) in [("task", Some(&y)), ("resources", y.get("resources")), ("service", y.get("service"))]
    {
        for k in v.and_then(|v| v.as_mapping()).map(|m| m.keys().collect::<Vec<_>>()).unwrap_or_default() {
            let key = format!("{section}.{}", k.as_str().expect("string keys"));
            assert!(fields.contains_key(&key), "{key} is not a stored SkyPilot field:\n{}", e.skypilot_yaml);
        }
    }
    assert!(map.contains_key("run") && map.contains_key("resources"));
    let r = &y["resources"];
    let gpu = offer["gpu"].as_str().expect("gpu");
    if let Some(acc) = r["accelerators"].as_str() {
        let (name, count) = acc.rsplit_once(':').expect("NAME:COUNT");
        assert_eq!(count.parse::<u64>().ok(), offer["gpus"].as_u64(), "{acc}");
        match lookup(&normalize(name)) {
            Some(Named::Fixed(id)) => assert_eq!(id, gpu),
            Some(Named::Family(ids)) => assert!(ids.contains(&gpu), "{name} covers {gpu}"),
            None => panic!("{name} is not in the table"),
        }
    } else {
        // A GPU SkyPilot has no name for in the table: said, never guessed.
        assert!(
            accelerator_for(gpu).is_none(),
            "{gpu} has a name but no accelerators line:\n{}",
            e.skypilot_yaml
        );
        assert!(
            e.unsupported.is_some() && e.skypilot_yaml.contains("has no SkyPilot accelerator name"),
            "{}",
            e.skypilot_yaml
        );
    }
    assert_eq!(r["use_spot"].as_bool(), offer["spot"].as_bool());
    let nodes = y["num_nodes"].as_u64().expect("num_nodes");
    let copies = y.get("service").map_or(1, |s| s["replicas"].as_u64().expect("replicas"));
    assert_eq!(Some(nodes * copies), offer["instances"].as_u64(), "nodes × copies = instances");
    let provider = offer["provider"].as_str().expect("provider");
    match cloud_for(provider) {
        Some(c) => {
            assert_eq!(r["cloud"].as_str(), Some(c));
            assert!(clouds.contains_key(c), "{c} is a SkyPilot cloud");
            assert_eq!(e.unsupported.is_none(), accelerator_for(gpu).is_some(), "{:?}", e.unsupported);
        }
        None => {
            assert!(r.get("cloud").is_none(), "no cloud guessed for {provider}");
            assert!(e.unsupported.as_deref().is_some_and(|u| u.contains(provider)));
            assert!(e.skypilot_yaml.contains("# unsupported:"));
        }
    }
}

/// The command checks against the plan's JSON and the query in effect.
fn check_command(e: &Export, offer: &Value, json: &Value, request_tokens: Option<u64>) {
    let (mut cfg, _) = link::decode(json["query"].as_str().expect("query"));
    // The stage the plan chose where the link names none (`zero` of the offer).
    cfg.zero = offer["zero"].as_u64().map(|z| u8::try_from(z).expect("stage")).or(cfg.zero);
    let task = json["task"].as_str().expect("task");
    if task == "generate" || (task == "serve" && cfg.engine == Engine::Hf) {
        assert!(
            e.command.lines().all(|l| l.starts_with('#')),
            "said plainly, no invented command: {}",
            e.command
        );
        return;
    }
    let media = e.command.starts_with("# diffusers + accelerate");
    // DeepSpeed's pipeline engine has its own launcher (export::command::train_deepspeed).
    let ds_pipeline = cfg.trainer == Trainer::Deepspeed && offer["pp"].as_f64().unwrap_or(1.0) > 1.0;
    if task != "serve" && !media && (!matches!(cfg.trainer, Trainer::Hf | Trainer::Deepspeed) || ds_pipeline)
    {
        crate::export::training::check(e, offer, &cfg);
        return;
    }
    let (file, program) = flags_file(task, cfg.engine);
    let m = parse_command(&e.command, program, &stored(file));
    let (tp, pp) = (offer["tp"].as_f64().expect("tp"), offer["pp"].as_f64().expect("pp"));
    let seqs = offer["batch"].as_f64().expect("batch").ceil().max(1.0);
    // The plan's own per-request length: prompt, image tokens and output.
    let len = request_tokens.map_or(f64::from(cfg.input_tokens + cfg.output_tokens), |t| t as f64);
    let kv = json["kv_format"].as_str().expect("kv_format");
    let frac = memory_fraction(cfg.engine);
    if task != "serve" {
        let (gpus, instances) =
            (offer["gpus"].as_f64().expect("gpus"), offer["instances"].as_f64().expect("instances"));
        assert_eq!(num(&m, "--num_processes"), gpus * instances);
        assert_eq!(num(&m, "--num_machines"), instances);
        // DeepSpeed for ZeRO, and for AutoTP when the plan splits layers
        // (stage 0-2); fully sharded with tensor parallelism: FSDP2 × TP.
        let split = tp > 1.0 && pp <= 1.0 && cfg.trainer != Trainer::Megatron;
        let (fsdp_tp, autotp) = (split && cfg.zero_stage() >= 3, split && cfg.zero_stage() < 3);
        assert_eq!(
            m.get("--zero_stage").map(|z| z.parse::<u8>().expect("stage")),
            ((cfg.zero_stage() > 0 || autotp) && !fsdp_tp).then_some(cfg.zero_stage())
        );
        if autotp {
            assert!(
                e.command.contains(&format!("\"autotp_size\": {tp}")),
                "the AutoTP size is said: {}",
                e.command
            );
        }
        if fsdp_tp {
            assert!(
                e.command.contains(&format!("tp_size={tp}")),
                "the FSDP2 × TP mesh is said: {}",
                e.command
            );
        }
        // The states the plan counted off the GPU are offloaded by the
        // launch itself, or the command says how (FSDP2) or that it cannot.
        let deepspeed = m.contains_key("--use_deepspeed");
        assert_eq!(
            m.get("--offload_optimizer_device").map(String::as_str),
            (deepspeed && cfg.optim_offload && cfg.zero_stage() >= 1).then_some("cpu"),
            "{}",
            e.command
        );
        assert_eq!(
            m.get("--offload_param_device").map(String::as_str),
            (deepspeed && cfg.param_offload).then_some("cpu"),
            "{}",
            e.command
        );
        if (cfg.optim_offload || cfg.param_offload) && !deepspeed {
            assert!(
                e.command.contains("CPUOffloadPolicy") || e.command.contains("no flag for optimizer offload"),
                "{}",
                e.command
            );
        }
        // Under DeepSpeed the accumulation is the launch's flag: the plan's
        // optimizer step over its micro-batches and data-parallel ranks.
        if deepspeed && !media {
            let accumulation = num(&m, "--gradient_accumulation_steps");
            assert!(accumulation >= 1.0, "{}", e.command);
            if let Some(gbs) = cfg.gbs {
                let dp = offer["dp"].as_f64().expect("dp");
                let mb = f64::from(cfg.mb().max(1));
                assert!(
                    accumulation * dp * mb >= f64::from(gbs),
                    "the step holds the global batch: {}",
                    e.command
                );
            }
        }
        return;
    }
    let (tp_f, pp_f, len_f, seq_f, kv_f, frac_f) = match cfg.engine {
        Engine::Vllm => (
            "--tensor-parallel-size",
            "--pipeline-parallel-size",
            "--max-model-len",
            "--max-num-seqs",
            "--kv-cache-dtype",
            "--gpu-memory-utilization",
        ),
        Engine::Sglang => (
            "--tp-size",
            "--pp-size",
            "--context-length",
            "--max-running-requests",
            "--kv-cache-dtype",
            "--mem-fraction-static",
        ),
        Engine::TrtLlm => (
            "--tp_size",
            "--pp_size",
            "--max_seq_len",
            "--max_batch_size",
            "",
            "--kv_cache_free_gpu_memory_fraction",
        ),
        Engine::LlamaCpp => {
            assert_eq!(tp, 1.0, "llama.cpp splits layers");
            assert_eq!(m.get("-sm").map(String::as_str), Some(if pp > 1.0 { "layer" } else { "none" }));
            assert_eq!(num(&m, "-np"), seqs);
            assert_eq!(num(&m, "-c") / num(&m, "-np"), len, "context per slot = the plan's request");
            let want = match kv {
                "fp16" => Some("f16"),
                "bf16" | "q8_0" | "q4_0" => Some(kv),
                _ => None,
            };
            assert_eq!(m.get("-ctk").map(String::as_str), want);
            assert_eq!(m.get("-ctv").map(String::as_str), want);
            assert!(frac.is_none());
            return;
        }
        Engine::Hf => unreachable!(),
    };
    // Data-parallel attention ranks and expert parallelism (issue 37): vLLM's
    // `--tensor-parallel-size` is each rank's, `--max-num-seqs` per rank;
    // SGLang's `--tp-size` is the whole group, `--max-running-requests` the server's.
    let (dp, ep) = (offer["dp"].as_f64().unwrap_or(1.0).max(1.0), offer["ep"].as_bool().unwrap_or(false));
    match cfg.engine {
        Engine::Vllm => {
            assert_eq!(num(&m, tp_f), tp);
            assert_eq!(
                m.get("--data-parallel-size").map(|v| v.parse::<f64>().expect("a number")),
                (dp > 1.0).then_some(dp),
                "{}",
                e.command
            );
            assert_eq!(m.contains_key("--enable-expert-parallel"), ep, "{}", e.command);
            assert_eq!(num(&m, seq_f), (seqs / dp).ceil());
        }
        Engine::Sglang => {
            assert_eq!(num(&m, tp_f), tp * dp);
            assert_eq!(
                m.get("--dp-size").map(|v| v.parse::<f64>().expect("a number")),
                (dp > 1.0).then_some(dp),
                "{}",
                e.command
            );
            assert_eq!(m.contains_key("--enable-dp-attention"), dp > 1.0, "{}", e.command);
            assert_eq!(
                m.get("--ep-size").map(|v| v.parse::<f64>().expect("a number")),
                ep.then_some(tp * dp),
                "{}",
                e.command
            );
            assert_eq!(num(&m, seq_f), (seqs / dp).ceil() * dp);
        }
        _ => {
            assert!(
                dp <= 1.0 && !ep,
                "{} runs neither data-parallel attention nor expert parallelism",
                cfg.engine
            );
            assert_eq!(num(&m, tp_f), tp);
            assert_eq!(num(&m, seq_f), seqs);
        }
    }
    assert_eq!(num(&m, pp_f), pp);
    assert_eq!(num(&m, len_f), len);
    assert_eq!(Some(num(&m, frac_f)), frac);
    if !kv_f.is_empty() {
        let want = match (cfg.engine, kv) {
            (_, "bf16" | "fp16") => Some("auto"),
            (Engine::Vllm, "fp8") => Some("fp8"),
            (Engine::Sglang, "fp8") => Some("fp8_e4m3"),
            _ => None,
        };
        assert_eq!(m.get(kv_f).map(String::as_str), want, "{}", e.command);
        if want.is_none() {
            assert!(e.command.contains(&format!("{kv} KV")), "said plainly: {}", e.command);
        }
    }
}

/// Every export of an answer checked; returns how many there were.
pub fn check(a: &Answer) -> usize {
    let json = serde_json::to_value(a).expect("JSON");
    let exports = for_answer(a, catalog());
    let rec = &json["recommendation"];
    if rec.is_null() {
        assert!(exports.is_empty());
        return 0;
    }
    assert_eq!(
        exports.len(),
        1 + rec["alternatives"].as_array().map_or(0, Vec::len),
        "pick and every alternative"
    );
    assert_eq!(exports[0].role, "pick");
    assert_eq!(&*exports[0].offer, rec["pick"]["offer"].as_str().expect("pick"));
    for e in &exports {
        let offer = json["offers"]
            .as_array()
            .expect("offers")
            .iter()
            .find(|o| o["id"].as_str() == Some(&e.offer))
            .expect("the offer");
        check_yaml(e, offer);
        check_command(e, offer, &json, a.request_tokens);
    }
    exports.len()
}

#[test]
fn named_queries_export_checked_tasks_and_commands() {
    let queries = [
        "task=serve&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16",
        "task=serve&model=llama-3.1-8b&engine=sglang&kv=fp8&batch=64",
        "task=serve&model=llama-3.1-8b&engine=llama.cpp&w=gguf-q4_k_m&kv=q8_0&batch=8&gpus=2",
        "task=serve&model=llama-3.1-70b&engine=trt-llm&batch=32&provider=aws",
        "task=serve&model=llama-3.1-8b&batch=400&provider=aws",
        "task=serve&model=llama-3.1-8b&engine=hf&batch=4",
        // Speculative decoding's flags (issue 45), each engine and method.
        "task=serve&model=llama-3.3-70b&w=fp8&batch=4&spec=eagle",
        "task=serve&model=deepseek-v3&w=fp8&batch=8&spec=mtp&engine=sglang",
        "task=serve&model=llama-3.1-70b&batch=2&spec=draft&draft=llama-3.2-1b&spec_accept=0.7&engine=sglang",
        "task=serve&model=llama-3.1-8b&engine=llama.cpp&w=gguf-q4_k_m&batch=1&spec=eagle",
        "task=serve&model=llama-3.1-8b&engine=llama.cpp&w=gguf-q4_k_m&batch=1&spec=ngram",
        "task=serve&model=qwen3-8b&batch=1&spec=ngram&engine=trt-llm",
        "task=finetune&model=llama-3.1-70b&method=full&zero=3",
        "task=finetune&model=llama-3.1-8b&method=qlora",
        "task=pretrain&model=llama-3.1-8b&tokens=1e10&days=3",
        "task=generate&model=sdxl&images=1000",
    ];
    for q in queries {
        assert!(check(&answer(q)) >= 1, "{q} exports its pick");
    }
}

#[test]
fn image_model_fine_tuning_exports_a_diffusers_launch_not_a_language_model_one() {
    let a = answer("task=finetune&model=flux.1-dev&method=lora&res=768x768");
    assert!(check(&a) >= 1);
    for e in for_answer(&a, catalog()) {
        assert!(
            e.skypilot_yaml.contains("pip install diffusers") && !e.skypilot_yaml.contains("transformers=="),
            "{}",
            e.skypilot_yaml
        );
        assert!(
            e.command.contains("diffusers + accelerate") && e.command.contains("resolution 768×768"),
            "{}",
            e.command
        );
        assert!(
            !e.command.contains("sequence length"),
            "no sequence length for an image model: {}",
            e.command
        );
    }
}

#[test]
fn an_unsupported_provider_is_said_plainly() {
    let a = answer("task=serve&model=llama-3.1-8b&provider=coreweave");
    assert!(check(&a) >= 1);
    let e = &for_answer(&a, catalog())[0];
    assert!(e.unsupported.is_some(), "{}", e.skypilot_yaml);
}

#[test]
fn every_offer_gpu_has_a_skypilot_name_that_maps_back() {
    // GPUs SkyPilot has no accelerator name for in the table (China-market
    // and newer consumer boards): their tasks say so (`check_yaml`).
    let mut named = 0;
    for o in &catalog().offers {
        let gpu: &str = &o.gpu;
        let Some((name, _)) = accelerator_for(gpu) else { continue };
        named += 1;
        let back = lookup(&normalize(name)).expect("in the table");
        assert!(
            matches!(back, Named::Fixed(id) if id == gpu)
                || matches!(back, Named::Family(ids) if ids.contains(&gpu))
        );
    }
    assert!(
        named * 10 >= catalog().offers.len() * 7,
        "{named} of {} offers have a SkyPilot name",
        catalog().offers.len()
    );
}

#[test]
fn the_cli_emits_yaml_documents_and_commands_pick_first() {
    use std::process::Command;
    let run = |kind: &str| {
        let args: &[&str] =
            if kind == "--json" { &["--json", "--emit", "command"] } else { &["--emit", kind] };
        let out = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
            .args(args)
            .args(["task=serve&model=llama-3.1-70b&w=fp8&batch=16", "--today", "2026-11-29"])
            .output()
            .expect("run whichgpu");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let yaml = run("skypilot");
    assert!(yaml.starts_with("# pick: "));
    let docs: Vec<serde_yaml::Value> = serde_yaml::Deserializer::from_str(&yaml)
        .map(|d| serde::Deserialize::deserialize(d).expect("a YAML document"))
        .collect();
    let a = answer("task=serve&model=llama-3.1-70b&w=fp8&batch=16");
    assert_eq!(docs.len(), for_answer(&a, catalog()).len());
    let cmd = run("command");
    assert!(cmd.starts_with("# === pick: "));
    assert!(cmd.contains("vllm serve"));
    let json = run("--json");
    let v: Value = serde_json::from_str(&json).expect("JSON");
    let export = v["export"].as_array().expect("an export array with --json --emit");
    assert_eq!(export.len(), docs.len());
    assert_eq!(export[0]["role"], "pick");
    assert!(export[0]["skypilot_yaml"].as_str().is_some_and(|y| y.contains("accelerators: ")));
}

fn serve_query() -> impl Strategy<Value = String> {
    let models =
        vec!["llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b", "mistral-7b", "mixtral-8x7b", "qwen3-30b-a3b"];
    let engines = vec!["vllm", "sglang", "trt-llm", "llama.cpp"];
    let gpus: Vec<String> = catalog()
        .offers
        .iter()
        .map(|o| o.gpu.to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    (
        prop::sample::select(models),
        prop::sample::select(engines),
        prop::option::of(prop::sample::select(gpus)),
        1u32..300,
        prop::sample::select(vec![256u32, 2000, 8000]),
        prop::sample::select(vec!["bf16", "fp8", "q8_0"]),
        any::<bool>(),
    )
        .prop_map(|(m, e, g, b, i, kv, spot)| {
            let w = if e == "llama.cpp" { "gguf-q4_k_m" } else { "bf16" };
            let gpu = g.map(|g| format!("&gpu={g}")).unwrap_or_default();
            format!(
                "task=serve&model={m}&engine={e}&w={w}&kv={kv}&batch={b}&in={i}&out=500&spot={}{gpu}",
                u8::from(spot)
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn generated_serving_exports_match_their_plans(q in serve_query()) {
        check(&answer(&q));
    }

    #[test]
    fn generated_training_exports_match_their_plans(
        m in prop::sample::select(vec!["llama-3.1-8b", "qwen2.5-7b", "llama-3.1-70b"]),
        method in prop::sample::select(vec!["full", "lora", "qlora"]),
        zero in 0u8..4,
        nodes in 1u32..3,
    ) {
        check(&answer(&format!("task=finetune&model={m}&method={method}&zero={zero}&nodes={nodes}")));
    }
}

/// Issue 38's lint over generated plans: every link of the answer guard's
/// fixed-seed generator (`tests/data/answer_hashes.txt`: 2,000 links over
/// every task, engine, format, GPU vendor and layout) has launch texts that
/// pass the stored flag sets and match their plans.
#[test]
fn every_generated_plans_launch_texts_pass_the_lint() {
    let text = include_str!("../../data/answer_hashes.txt");
    let links: Vec<&str> =
        text.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.splitn(3, ' ').nth(2)).collect();
    assert!(links.len() >= 1000, "{}", links.len());
    let mut with_texts = 0;
    for q in &links {
        let a = answer(q);
        with_texts += usize::from(a.recommendation.is_some());
        check(&a);
    }
    assert!(with_texts >= 1000, "{with_texts} of {} links have launch texts", links.len());
}
