//! The answer's per-topic parts: the quick answers (`Answers`), an RL
//! fine-tune's memory and step (`RlAnswer`), the user's own measurement
//! against the estimate (`Measured`) and the hosted-API comparison (`Api`).
//! Types only, like `answer`.

use serde::Serialize;

use super::date::Date;

#[derive(Debug, Clone, Serialize, Default)]
pub struct Answers {
    pub max_context_tokens: Option<u64>,
    pub max_batch: Option<u32>,
    pub min_gpus: Option<u32>,
    pub best_weight_format: Option<String>,
    /// Training: GPUs of the focus type needed to finish within `days`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpus_for_deadline: Option<u32>,
    /// Training: bytes of one checkpoint (full, or the adapter) and of all kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_bytes: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoints_bytes_total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_tokens: Option<f64>,
    /// RL fine-tuning (`method=grpo|ppo|dpo`): memory beside the policy and
    /// the step's parts in both generation layouts (`plan::train_rl`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rl: Option<RlAnswer>,
}

/// An RL fine-tune on the focus GPU type's plan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RlAnswer {
    pub method: &'static str,
    pub adapter: &'static str,
    pub plan_gpus: u32,
    /// The generation layout the plan and the bill use (`gen`, else TRL's colocate), and the faster of the
    /// two that fits.
    pub gen: &'static str,
    pub faster_gen: Option<&'static str>,
    /// Per GPU: the policy (weights, gradients, optimizer, activations, logits) and what sits beside it.
    pub policy_bytes: f64,
    pub reference_bytes: f64,
    pub reward_bytes: f64,
    pub critic_bytes: f64,
    pub engine_bytes: f64,
    pub colocate: Option<RlStepAnswer>,
    pub split: Option<RlStepAnswer>,
}

/// One layout's optimizer step and the run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RlStepAnswer {
    pub generation_s: f64,
    pub scoring_s: f64,
    pub update_s: f64,
    pub sync_s: f64,
    pub step_s: f64,
    pub steps: f64,
    pub run_hours: f64,
    pub sequences_per_step: f64,
    pub generation_gpus: u32,
    pub training_gpus: u32,
    pub vllm_tp: u32,
    /// The policy and what sits beside it fit each GPU in this layout.
    pub fits: bool,
}

/// Your measurement on the pinned GPU against the estimate the answer
/// would show without it (the pick's, `offer`), and the factors applied to
/// that GPU type: on decode speed, and on prefill and first-token time
/// (1 where not given, or ignored as too far, with a notice).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Measured {
    pub gpu: String,
    pub offer: String,
    pub decode_tokens_per_s_per_seq: Option<f64>,
    pub estimate_decode_tokens_per_s_per_seq: Option<f64>,
    pub decode_factor: f64,
    pub time_to_first_token_s: Option<f64>,
    pub estimate_time_to_first_token_s: Option<f64>,
    pub ttft_factor: f64,
}

/// The pick's load on a hosted API: the cheapest listed host for the
/// model at the link's prompt and output lengths (`static/api_prices.csv`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Api {
    pub host: String,
    pub usd_per_million_input: f64,
    pub usd_per_million_output: f64,
    /// The load compared: requests per second while busy, and a month's requests.
    pub requests_per_s: f64,
    pub requests_per_month: f64,
    /// The API's bill for that month, and the pick's.
    pub usd_per_month: f64,
    pub pick_usd_per_month: f64,
    /// The request rate (over the same busy hours) at which the API's bill
    /// equals the pick's as billed here; above it the pick is cheaper.
    /// `None` for a batch job of a stated size, whose GPU bill grows with
    /// its work (compare `usd_per_month` directly).
    pub breakeven_requests_per_s: Option<f64>,
    pub source: String,
    pub as_of: Date,
    /// Hosts listed for the model (the one compared is the cheapest).
    pub hosts_listed: usize,
}
