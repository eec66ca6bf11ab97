//! The command line as scripts use it: exit statuses, notices on stderr,
//! and the JSON fields of docs/link-format.md.

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_whichgpu"))
        .args(args)
        .args(["--today", "2026-11-29"])
        .output()
        .expect("run whichgpu");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn json(query: &str) -> serde_json::Value {
    let (code, out, err) = run(&["--json", query]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

#[test]
fn answers_with_every_contract_field() {
    let v = json("v=1&task=serve&model=llama-3.1-70b&w=fp8&in=2000&out=500&batch=16");
    for k in [
        "query",
        "notices",
        "catalog_as_of",
        "memory",
        "results",
        "answers",
        "offers",
        "recommendation",
        "guidance",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    for k in [
        "weights_bytes",
        "kv_cache_bytes",
        "activations_bytes",
        "gradients_bytes",
        "optimizer_bytes",
        "overhead_bytes",
        "total_bytes",
        "total_bytes_low",
        "total_bytes_high",
        "reserved_bytes",
    ] {
        assert!(v["memory"][k].is_number(), "memory.{k}");
    }
    let r = &v["results"][0];
    for k in [
        "gpu",
        "gpus",
        "nodes",
        "batch",
        "fits",
        "per_gpu_bytes",
        "confidence",
        "decode_tokens_per_s_per_seq",
        "decode_tokens_per_s_per_seq_low",
        "decode_tokens_per_s_per_seq_high",
        "prefill_tokens_per_s",
        "time_to_first_token_s",
        "request_latency_s",
    ] {
        assert!(r.get(k).is_some(), "results[].{k}");
    }
    for k in ["max_context_tokens", "max_batch", "min_gpus", "best_weight_format"] {
        assert!(v["answers"].get(k).is_some(), "answers.{k}");
    }
    let o = &v["offers"][0];
    for k in [
        "id",
        "provider",
        "instance",
        "gpu",
        "gpus",
        "instances",
        "fits",
        "spot",
        "interconnect",
        "usd_per_hour",
        "usd_per_month",
        "usd_per_million_output_tokens",
        "storage_usd_per_month",
        "egress_usd_per_month",
        "price_as_of",
        "stale",
        "source",
        "reasons",
    ] {
        assert!(o.get(k).is_some(), "offers[].{k}");
    }
    let pick = v["recommendation"]["pick"]["offer"].as_str().expect("pick");
    assert!(v["offers"].as_array().expect("offers").iter().any(|o| o["id"] == pick));
    assert_eq!(v["recommendation"]["pick"]["why"], "best");
}

#[test]
fn the_cli_and_the_core_agree() {
    let q = "model=llama-3.1-8b&w=bf16&gpu=h100-sxm-80gb&gpus=1&in=8192&out=1&batch=1&kv=bf16&engine=hf";
    let v = json(q);
    // 1 GiB of KV for Llama-3-8B-class at 8k (+1 token), and 16.06 GB of weights.
    let kv = v["memory"]["kv_cache_bytes"].as_f64().expect("kv");
    assert!((kv / 1_073_741_824.0 - 1.0).abs() < 0.001, "{kv}");
    assert!((v["memory"]["weights_bytes"].as_f64().expect("w") - 16.06e9).abs() < 0.01e9);
}

#[test]
fn exit_statuses() {
    // Notices go to stderr and into the JSON, and the answer still comes.
    let (code, out, err) = run(&["--json", "model=llama-3.1-8b&in=-4&bogus=1"]);
    assert_eq!(code, 0);
    assert!(err.contains("notice [in]") && err.contains("notice [bogus]"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["notices"].as_array().map(Vec::len), Some(2));
    // The text report carries its notices itself: stdout once, stderr none.
    let (code, out, err) = run(&["model=llama-3.1-8b&engine=llamacpp"]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("notice [engine]").count(), 1, "{out}");
    assert!(!err.contains("notice [engine]"), "{err}");
    // --strict turns a notice into exit 2.
    assert_eq!(run(&["--strict", "model=llama-3.1-8b&in=-4"]).0, 2);
    assert_eq!(run(&["--strict", "model=llama-3.1-8b"]).0, 0);
    // Nothing usable: exit 2 with a message.
    let (code, _, err) = run(&["model=no-such-model"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown model"), "{err}");
    // Page-only keys are accepted and ignored.
    assert_eq!(run(&["--strict", "lang=zh&embed=1&theme=dark"]).0, 0);
}

#[test]
fn hostile_arguments_never_panic() {
    for q in [
        "",
        "&&&",
        "=",
        "%",
        "%ff%fe",
        "in=99999999999999999999",
        "model=custom&params=1e308",
        "batch=max&in=10000000&model=llama-3.1-405b",
        "price=::,:",
        "res=0x0",
        "v=2",
    ] {
        let (code, _, err) = run(&[q]);
        assert!(code == 0 || code == 2, "{q}: exit {code} {err}");
        assert!(!err.contains("panicked"), "{q}: {err}");
    }
}

#[test]
fn training_and_generation_fields() {
    let v = json("task=finetune&model=llama-3.1-8b&method=lora&tokens=10000000");
    for k in ["gradients_bytes", "optimizer_bytes"] {
        assert!(v["memory"][k].as_f64().unwrap_or(0.0) > 0.0, "memory.{k}");
    }
    for k in ["train_tokens_per_s", "job_hours", "job_gpu_hours"] {
        assert!(v["results"][0][k].is_number(), "results[].{k}");
    }
    assert!(v["offers"][0]["usd_per_job"].is_number());
    let img = json("task=generate&model=sdxl");
    assert!(
        img["results"][0]["seconds_per_image"].is_number()
            && img["results"][0]["images_per_hour"].is_number()
    );
    assert!(img["offers"][0]["usd_per_1000_images"].is_number());
    let vid = json("task=generate&model=cogvideox-5b");
    assert!(vid["results"][0]["seconds_per_clip"].is_number());
    let aud = json("task=generate&model=musicgen-medium");
    assert!(aud["results"][0]["audio_realtime_factor"].is_number());
    assert!(aud["offers"][0]["usd_per_audio_hour"].is_number());
}

#[test]
fn the_report_names_the_layout_and_replicas_of_the_pick_and_each_alternative() {
    // 64 concurrent chats of a 70B model at FP8 on H100s.
    let (code, out, _) = run(&["model=llama-3.1-70b&w=fp8&gpu=h100-sxm-80gb&batch=64"]);
    assert_eq!(code, 0, "{out}");
    let rec: Vec<&str> =
        out.lines().skip_while(|l| !l.starts_with("Recommendation:")).take_while(|l| !l.is_empty()).collect();
    assert!(!rec.is_empty(), "{out}");
    for line in &rec {
        assert!(
            line.contains("replicas behind a load balancer") || line.contains("one copy"),
            "no layout in `{line}`"
        );
    }
    let j = json("model=llama-3.1-70b&w=fp8&gpu=h100-sxm-80gb&batch=64");
    let pick_id = j["recommendation"]["pick"]["offer"].as_str().expect("pick");
    let pick =
        j["offers"].as_array().expect("offers").iter().find(|o| o["id"] == pick_id).expect("pick offer");
    for field in [
        "replicas",
        "tp",
        "pp",
        "dp",
        "layout",
        "meets",
        "commitment",
        "unknown_costs",
        "output_tokens_per_s_total",
    ] {
        assert!(!pick[field].is_null(), "{field} missing");
    }
}

#[test]
fn config_json_import_prints_the_query_to_share() {
    let file = "tests/data/hf-configs/Qwen--Qwen3-30B-A3B.json";
    let (code, out, err) = run(&["--json", "--config", file, "in=1000"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("share this query: v=1&model=custom&params=30.532&layers=48"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let query = v["query"].as_str().expect("query");
    assert!(
        query.contains("experts=128&experts_active=8&expert_ffn=768") && query.contains("in=1000"),
        "{query}"
    );
    // The shared query alone, without the file, gives the same answer.
    assert_eq!(json(query)["memory"], v["memory"]);

    // A bad file: the notice names the field and the query still answers.
    let bad = std::env::temp_dir().join(format!("whichgpu-bad-config-{}.json", std::process::id()));
    let text = std::fs::read_to_string(file)
        .expect("config")
        .replace("\"num_attention_heads\"", "\"heads_renamed\"");
    std::fs::write(&bad, text).expect("write");
    let bad = bad.to_string_lossy().into_owned();
    let (code, _, err) = run(&["--config", &bad, "model=llama-3.1-8b"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("num_attention_heads"), "{err}");
    // Nothing usable: the file refused and no model in the query.
    let (code, _, err) = run(&["--config", &bad, "in=100"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["--config", "tests/data/hf-configs/no-such-file.json", "model=llama-3.1-8b"]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_file(&bad);
}

/// `lang=zh` gives the report's sentences in Chinese: every guidance text
/// the JSON carries, rendered in Chinese, is in the text report.
#[test]
fn a_chinese_link_reports_its_guidance_in_chinese() {
    let q = "model=qwen2.5-14b&lang=zh&use=hours&hpd=10";
    let (code, out, err) = run(&[q]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("建议:") && out.contains("推荐方案:"), "{out}");
    let (en_code, en, _) = run(&["model=qwen2.5-14b&use=hours&hpd=10"]);
    assert_eq!(en_code, 0);
    assert!(en.contains("Guidance:") && !en.contains("建议"), "{en}");
    // The Chinese report holds no English guidance sentence.
    let v = json(q);
    for g in v["guidance"].as_array().expect("guidance") {
        let english = g["text"].as_str().expect("text");
        assert!(!out.contains(english), "English guidance in a Chinese report: {english}");
    }
}
