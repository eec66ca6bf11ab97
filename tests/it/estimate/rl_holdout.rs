//! Issue 43's accuracy criterion: the RL step estimate (`estimate::rl`,
//! generation + scoring + update + weight sync) against public runs,
//! `tests/data/rl_runs.csv`. Every row is held out: nothing in the RL
//! model is fitted to them (its constants are TRL's, vLLM's and the
//! serving and training estimators'; the training clock's fitted
//! utilisation comes from llm-foundry and torchtitan runs and its ZeRO-3
//! hook cost from QwenLM/Qwen3#736, `docs/training-clock.md`: none of
//! these runs). Each scored row is mapped to a link as its notes say (the
//! measured mean generated length as `completion_mean`, the stack's step
//! as whichgpu steps: `rounds`), and the row's step time is compared.
//!
//! The issue asks for a median step-time error ≤ 30 % and memory ≤ 20 %
//! on six runs from three sources. Step time: met or not is printed and
//! the median asserted at 30 %; p90 and the worst row are guarded at
//! their measured figures (they miss). Memory: no scored run publishes
//! its peak (the one memory row names a model whichgpu lacks), so the
//! memory criterion is not met and the test says so.

use std::collections::{BTreeMap, BTreeSet};

use whichgpu::core::estimate::train::{Layout, TrainJob};
use whichgpu::core::link;
use whichgpu::core::plan::train_rl;

use crate::common;

const RUNS: &str = include_str!("../../data/rl_runs.csv");

struct Scored {
    id: String,
    publisher: String,
    measured: f64,
    estimate: f64,
    parts: String,
}

fn median_p90_worst(errors: &[f64]) -> (f64, f64, f64) {
    let mut e: Vec<f64> = errors.iter().map(|x| x.abs()).collect();
    e.sort_by(f64::total_cmp);
    let at = |q: f64| e[((e.len() as f64 - 1.0) * q).round() as usize];
    let median = if e.len() % 2 == 0 { (e[e.len() / 2 - 1] + e[e.len() / 2]) / 2.0 } else { e[e.len() / 2] };
    (median, at(0.9), e[e.len() - 1])
}

/// The link of a scored row: the keys its columns give, nothing else.
fn query(r: &BTreeMap<String, String>) -> String {
    let mut q = format!(
        "task=finetune&model={}&method={}&adapter={}&gpu={}&gpus={}&nodes={}",
        r["model"], r["method"], r["adapter"], r["gpu"], r["gpus"], r["nodes"]
    );
    for key in [
        "prompt_len",
        "completion_len",
        "completion_mean",
        "gens",
        "mb",
        "gbs",
        "gen",
        "vllm_mem",
        "beta",
        "zero",
    ] {
        if !r[key].is_empty() {
            q.push_str(&format!("&{key}={}", r[key]));
        }
    }
    q
}

/// `layout` = `DPxTPxPP`: the run's training layout, pinned.
fn pinned(r: &BTreeMap<String, String>) -> Option<Layout> {
    if r["layout"].is_empty() {
        return None;
    }
    let n: Vec<u32> = r["layout"].split('x').map(|v| v.parse().expect("layout")).collect();
    (n.len() == 3).then(|| Layout { dp: n[0], tp: n[1], pp: n[2] })
}

fn rows() -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(RUNS.as_bytes());
    let headers = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|rec| {
            headers
                .iter()
                .zip(rec.expect("row").iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn score() -> Vec<Scored> {
    let mut out = Vec::new();
    for r in rows().iter().filter(|r| r["scored"] == "yes" && !r["step_s"].is_empty()) {
        let q = query(r);
        let a = common::answer(&q);
        // The mapping must be what the row says: no key replaced by a notice.
        assert!(a.notices.is_empty(), "{}: {q}: {:?}", r["id"], a.notices);
        let rl = match pinned(r) {
            // The run's own layout where the planner would take another
            // (the row's notes say why): the same RL answer on it.
            Some(l) => {
                // The stack's clock for the update (`trainer`): the link
                // plans RL on TRL only, the step estimator takes any.
                let cfg = link::decode(&format!("{q}&trainer={}", r["trainer"])).0;
                assert_eq!(
                    l.gpus(),
                    cfg.gpus.unwrap_or(0) * cfg.nodes,
                    "{}: the layout covers the run's GPUs",
                    r["id"]
                );
                let (model, gpu) = (
                    common::catalog().model(&r["model"]).expect("model"),
                    common::catalog().gpu(&r["gpu"]).expect("gpu"),
                );
                train_rl::answer(&TrainJob::new(model, &cfg).on_gpu(gpu), gpu, l)
            }
            None => a.answers.rl.clone(),
        };
        let rl = rl.unwrap_or_else(|| panic!("{}: no rl block", r["id"]));
        let step = if r["gen"] == "split" { rl.split.as_ref() } else { rl.colocate.as_ref() };
        let s = step.unwrap_or_else(|| panic!("{}: no {} step", r["id"], r["gen"]));
        let gbs: f64 = r["gbs"].parse().expect("gbs");
        assert_eq!(s.sequences_per_step, gbs, "{}: the step trains the row's sequences", r["id"]);
        let rounds: f64 = r["rounds"].parse().expect("rounds");
        out.push(Scored {
            id: r["id"].clone(),
            publisher: r["publisher"].clone(),
            measured: r["step_s"].parse().expect("step_s"),
            estimate: s.step_s * rounds,
            parts: format!(
                "gen {:.1} + score {:.1} + update {:.1} + sync {:.2} (x{rounds}); {} training GPUs, {} generating, vLLM tp {}",
                s.generation_s, s.scoring_s, s.update_s, s.sync_s, s.training_gpus, s.generation_gpus, s.vllm_tp
            ),
        });
    }
    out
}

#[test]
fn rl_runs_are_held_out_and_sourced() {
    let rows = rows();
    for r in &rows {
        assert_eq!(r["split"], "holdout", "{}: every RL run is held out", r["id"]);
        assert!(
            r["source"].split_once('/').is_some_and(|(host, path)| host.contains('.') && !path.is_empty()),
            "{}: source",
            r["id"]
        );
        assert!(common::catalog().gpu(&r["gpu"]).is_some(), "{}: gpu", r["id"]);
        assert!(!r["notes"].is_empty(), "{}: the mapping is written down", r["id"]);
    }
}

#[test]
fn rl_step_time_on_held_out_public_runs() {
    let scored = score();
    let publishers: BTreeSet<&str> = scored.iter().map(|s| s.publisher.as_str()).collect();
    assert!(scored.len() >= 6 && publishers.len() >= 3, "{} runs from {publishers:?}", scored.len());
    let errors: Vec<f64> = scored.iter().map(|s| s.estimate / s.measured - 1.0).collect();
    for (s, e) in scored.iter().zip(&errors) {
        println!(
            "{:32} measured {:7.1} s  estimate {:7.1} s  {:+6.0} %  {}",
            s.id,
            s.measured,
            s.estimate,
            e * 100.0,
            s.parts
        );
    }
    let (median, p90, worst) = median_p90_worst(&errors);
    println!(
        "step time, {} held-out runs from {} publishers: median |error| {:.0} %, p90 {:.0} %, worst {:.0} % (issue 43: median ≤ 30 %: {})",
        scored.len(),
        publishers.len(),
        median * 100.0,
        p90 * 100.0,
        worst * 100.0,
        if median <= 0.30 { "met" } else { "NOT met" }
    );
    // Each publisher's rows on their own: no source carries the median alone.
    for p in &publishers {
        let e: Vec<f64> =
            scored.iter().zip(&errors).filter(|(s, _)| s.publisher == *p).map(|(_, e)| *e).collect();
        println!("  {p}: {} runs, median |error| {:.0} %", e.len(), median_p90_worst(&e).0 * 100.0);
    }
    assert!(median <= 0.30, "issue 43's threshold: median step-time error {:.0} % > 30 %", median * 100.0);
    // Not thresholds of the issue: guards at the measured figures (rounded
    // up), so the tail cannot grow unseen. See docs/rl-finetuning.md.
    assert!(
        p90 <= GUARD_P90 && worst <= GUARD_WORST,
        "p90 {:.0} %, worst {:.0} %: worse than the guard",
        p90 * 100.0,
        worst * 100.0
    );
}

/// The measured p90 and worst |error| of the step time, rounded up: NeMo
/// RL's Llama-3.1-8B on GB200 (−57 %) and DeepSpeed-Chat's 13B PPO
/// (−41 %) are the tail (docs/rl-finetuning.md, "Accuracy").
const GUARD_P90: f64 = 0.42;
const GUARD_WORST: f64 = 0.58;

#[test]
fn rl_memory_criterion_has_no_scored_run_yet() {
    // Issue 43 asks memory ≤ 20 % on held-out runs: none of the scored
    // runs publishes a peak. When a row with `peak_gib` is scored, score
    // it here against the threshold; until then the criterion is not met.
    let with_memory = rows().iter().filter(|r| r["scored"] == "yes" && !r["peak_gib"].is_empty()).count();
    println!("memory: {with_memory} scored runs publish a peak (issue 43's memory ≤ 20 %: not met, nothing to score)");
    assert_eq!(
        with_memory, 0,
        "a scored memory row: compare answers.rl's memory with it against the 20 % threshold"
    );
}
