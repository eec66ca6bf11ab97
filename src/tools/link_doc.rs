//! `docs/link-format.md`, the link and JSON contract, generated from the
//! code: the keys from the link registry (`core::link::REGISTRY`: values
//! from each key's range or enum, its default and meaning), the task
//! defaults from `Task`, and the JSON fields from the answers themselves
//! (every field the CLI writes for a set of questions that reaches every
//! kind of answer, with the JSON types seen) described by [`FIELDS`].
//! `whichgpu docs link-format` prints it; `tests/it/link/contract.rs` fails when
//! the committed file differs, when a field the JSON writes has no
//! description, or when a description names a field the JSON never writes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde_json::Value;

use crate::core::catalog::{Catalog, Date};
use crate::core::config::{Batch, Task};
use crate::core::evaluate::evaluate_query;
use crate::core::export;
use crate::core::link::{fmt_num, Codec, Values, FORMAT_VERSION, REGISTRY};

/// Questions whose answers, together, carry every field of the JSON.
pub const QUESTIONS: &[&str] = &[
    "v=1",
    "model=llama-3.1-70b&w=fp8&rps=2&maxttft=1",
    "model=llama-3.1-8b&use=jobs&per_job=100000&days=1&spot=1",
    "model=qwen2.5-vl-7b&images=2&lang=zh&cur=cny",
    "model=llama-3.1-8b&gpu=a10g-24gb&commit=1yr&use=hours&hpd=10",
    "task=generate&model=sdxl",
    "task=generate&model=wan-2.1-14b",
    "task=generate&model=musicgen-large&use=hours",
    "task=finetune&method=full&optim_offload=1",
    "task=pretrain&days=14",
    "task=finetune&model=sdxl",
    "model=custom&params=13",
    "model=llama-3.1-8b&provider=modal",
    "model=llama-3.1-8b&gpu=a10g-24gb&measured=30&measured_ttft=0.4",
    "model=kimi-k2&w=fp8&in=32000&out=2000&batch=32",
    "task=finetune&model=qwen2.5-7b&method=grpo&gpu=h100-sxm-80gb&gpus=8",
];

/// What each JSON field means, by its name (a field written in several
/// objects means the same in each). `_low`/`_high` siblings of a field are
/// its range and are not listed apart.
#[rustfmt::skip]
pub const FIELDS: &[(&str, &str)] = &[
    ("query", "the link's query as decoded and written back (canonical: `v=1` first, defaults left out)"),
    ("notices", "what the link asked that was ignored or changed, each `{key, message}` (English); \
        `--strict` makes any an error"),
    ("key", "the link key a notice or a what-if concerns"),
    ("message", "the notice in English"),
    ("catalog_as_of", "the newest price date in the catalog"),
    ("catalog_stale", "the catalog's newest price is over six months old"),
    ("display", "the display currency (`cur`) and the catalog's dated exchange rates"),
    ("currency", "a currency id (`usd`, `cny`): of the display, or the one an offer's price is published in"),
    ("usd_per_unit", "US dollars per unit of the currency"),
    ("rate_as_of", "the date of an exchange rate (`null` for the dollar)"),
    ("rates", "every exchange rate of the catalog"),
    ("as_of", "the date of this rate (in `api`: of the API's price, the date its list was read)"),
    ("task", "the task in effect"),
    ("model", "the model id in effect (a generator's id for generation)"),
    ("model_name", "the model's name"),
    ("architecture_inferred", "the architecture was inferred from `params` alone (labelled as such)"),
    ("weight_format", "the weight format in effect"),
    ("kv_format", "the KV-cache format in effect"),
    ("memory", "the memory of the recommended offer's plan, one copy of the model, per GPU unless said"),
    ("weights_bytes", "weights held on each GPU of the plan"),
    ("kv_cache_bytes", "KV cache of the plan's sequences"),
    ("activations_bytes", "activations (training: what checkpointing keeps; serving: the engine's working \
        buffers)"),
    ("gradients_bytes", "gradients (training)"),
    ("optimizer_bytes", "optimizer states, fp32 master weights included (training)"),
    ("overhead_bytes", "the runtime's own memory (CUDA context, allocator, engine)"),
    ("total_bytes", "the plan's need per GPU, with its range"),
    ("reserved_bytes", "what the engine will hold, as nvidia-smi shows it"),
    ("capacity_bytes", "memory of the GPU the plan is sized for"),
    ("results", "one plan per GPU type (or the pinned one)"),
    ("gpu", "a GPU id (`static/gpus.csv`)"),
    ("gpu_name", "the GPU's name"),
    ("gpus", "GPUs per instance"),
    ("nodes", "instances of the plan"),
    ("batch", "concurrent sequences (serving), images per batch (generation), micro-batch (training)"),
    ("fits", "the plan fits in the memory the driver reports"),
    ("meets", "the deadline (`days`), SLA (`mintps`, `maxttft`) and budget hold (true when none is set)"),
    ("reasons", "why the plan or offer is as it is, each sentence in English (the page renders them by \
        message key)"),
    ("per_gpu_bytes", "the plan's need on each GPU"),
    ("confidence", "`high`, `medium` or `low`: how well measurements back this estimate"),
    ("bound", "what limits a decode step: `memory` (the weight and KV stream), `compute`, `issue` \
        (llama.cpp's single-token kernel on a Pascal card), or `host` (an eager engine's kernel launches, \
            `engine=hf`)"),
    ("executed_precision", "the precision the matmuls run in on this GPU"),
    ("decode_tokens_per_s_per_seq", "output tokens a second of one sequence while decoding"),
    ("decode_tokens_per_s_total", "output tokens a second while decoding, over the copies the load keeps \
        busy"),
    ("prefill_tokens_per_s", "prompt tokens a second of the context phase"),
    ("time_to_first_token_s", "seconds to the first output token"),
    ("request_latency_s", "seconds for one request, prompt and output"),
    ("output_tokens_per_s", "output tokens a second of one copy with the prompts' prefill included (what $ \
        per million tokens is priced on)"),
    ("output_tokens_per_s_total", "the same over every busy copy"),
    ("train_tokens_per_s", "training tokens a second of the whole job"),
    ("train_dp", "data-parallel replicas of the training layout"),
    ("train_tp", "tensor-parallel degree of the training layout"),
    ("train_pp", "pipeline stages of the training layout"),
    ("job_hours", "hours one job takes (training: the run; a batch job with `per_job`: its work and loading \
        the model)"),
    ("job_gpu_hours", "GPU-hours of one job"),
    ("seconds_per_image", "seconds per generated image at the plan's batch"),
    ("images_per_hour", "images an hour"),
    ("seconds_per_clip", "seconds per generated video clip"),
    ("audio_realtime_factor", "seconds of audio generated per second"),
    ("answers", "the inverse questions, for the pinned or first fitting GPU"),
    ("max_context_tokens", "the longest context that fits"),
    ("max_batch", "the most sequences that fit"),
    ("min_gpus", "the fewest GPUs the job fits on"),
    ("best_weight_format", "the most precise weight format that fits"),
    ("gpus_for_deadline", "GPUs a training job needs to end within `days`"),
    ("checkpoint_bytes", "one training checkpoint's size"),
    ("checkpoints_bytes_total", "the checkpoints kept (`ckpts`)"),
    ("training_tokens", "tokens the training job processes (`tokens` × `epochs`; an RL run: its sequences at \
        prompt + completion)"),
    ("rl", "an RL fine-tune (`method=grpo|ppo|dpo`) on the focus GPU type's plan: memory beside the policy \
        and both generation layouts (`docs/rl-finetuning.md`)"),
    ("method", "the RL method (`grpo`, `ppo`, `dpo`)"),
    ("adapter", "the adapter trained (`full`, `lora`, `qlora`)"),
    ("plan_gpus", "GPUs of the plan the RL step is worked out on"),
    ("gen", "the generation layout the plan and the bill use (`colocate` or `split`)"),
    ("faster_gen", "the faster generation layout of those that fit (null: neither fits)"),
    ("policy_bytes", "per GPU: the policy being trained (weights, gradients, optimizer states, activations, \
        logits)"),
    ("reference_bytes", "per GPU: a frozen reference model (0 where TRL loads none)"),
    ("reward_bytes", "per GPU: PPO's reward model"),
    ("critic_bytes", "per GPU: PPO's value model with its gradients and optimizer states"),
    ("engine_bytes", "per GPU: colocated vLLM's share of the GPU's memory"),
    ("colocate", "the step with vLLM inside the training processes, taking turns with training (null: it \
        cannot run so)"),
    ("split", "the step with a `trl vllm-serve` server on GPUs of its own (null: one GPU, or not GRPO)"),
    ("generation_s", "seconds a step spends generating its completions (the longest decides)"),
    ("scoring_s", "seconds a step spends in forward passes of the reference, reward and value models"),
    ("update_s", "seconds a step spends in the policy update (the training clock)"),
    ("sync_s", "seconds a step spends sending the weights to vLLM"),
    ("step_s", "seconds of one optimizer step, the sum of its parts (TRL waits for generation)"),
    ("steps", "optimizer steps of the run"),
    ("run_hours", "hours of the run in this layout"),
    ("sequences_per_step", "sequences trained per optimizer step (completions; DPO: chosen and rejected)"),
    ("generation_gpus", "GPUs serving vLLM only (0 colocated)"),
    ("training_gpus", "GPUs that train"),
    ("vllm_tp", "vLLM's tensor-parallel size"),
    ("offers", "every catalog offer that passes the filters, ranked by the objective"),
    ("id", "an offer id (`static/offers.csv`), or a guidance answer's id"),
    ("provider", "the offer's provider id"),
    ("instance", "the provider's instance name"),
    ("region", "the offer's region"),
    ("instances", "instances the offer rents for the job (more than one where the model spans nodes or a \
        deadline needs them)"),
    ("replicas", "copies of the model over every instance rented"),
    ("tp", "tensor-parallel degree of one copy"),
    ("pp", "pipeline stages of one copy"),
    ("dp", "data-parallel copies (serving: the copy's data-parallel attention ranks of `tp` GPUs each, 1 \
        without)"),
    ("ep", "serving: the routed experts dealt out whole over the copy's GPUs (expert parallel); absent when \
        not"),
    ("zero", "the ZeRO stage the training plan runs at, the link's or the planner's"),
    ("layout", "the layout in words"),
    ("headroom_bytes", "memory left per GPU after the plan"),
    ("need_bytes", "the plan's need per GPU"),
    ("usable_bytes", "the memory the driver reports per GPU"),
    ("spot", "priced at the spot rate"),
    ("commitment", "the price term applied: `none` or a `commit` id"),
    ("unknown_costs", "the parts of the bill the provider does not publish or bills beside the GPU price \
        (`storage`, `egress`, `billing_increment`, `host`, `cold_start`), never counted as $0"),
    ("interconnect", "how the instance's GPUs are joined"),
    ("usd_per_hour", "US dollars an hour for everything the offer rents"),
    ("host_usd_per_hour", "of `usd_per_hour`, the host CPU and memory a provider bills beside the GPUs at \
        its published rates (`providers.csv` `host_usd_per_vcpu_hour`, `host_usd_per_gib_hour`); absent \
            where the price includes the host or its rates are unpublished"),
    ("usd_per_month", "US dollars a month: compute as billed by usage, storage and egress"),
    ("serverless", "a serverless platform: billed for busy time and cold starts"),
    ("startup_s", "seconds a job on an instance pays before its work, inside its hours: the provider's \
        provisioning (`providers.csv` `provision_s`, else its class's), pulling the engine image, a one-off \
            run's weights download, reading the weights and starting the engine; absent for serverless, \
                always-on and busy-hours use"),
    ("cold_start_s", "seconds billed per start from zero (serverless)"),
    ("cold_starts_per_month", "starts from zero a month (serverless)"),
    ("busy_hours_per_month", "hours a month the job keeps the offer busy"),
    ("billed_hours_per_month", "hours a month billed after increments and minimums"),
    ("usd_per_job", "US dollars per job (training run, or a batch job with `per_job`)"),
    ("usd_per_million_output_tokens", "US dollars per million output tokens at the stated load"),
    ("usd_per_1000_images", "US dollars per 1,000 images"),
    ("usd_per_audio_hour", "US dollars per hour of generated audio"),
    ("usd_per_clip", "US dollars per video clip"),
    ("storage_usd_per_month", "storage's part of the month"),
    ("egress_usd_per_month", "egress's part of the month"),
    ("committed_1yr_usd_per_month", "the month at the provider's published 1-year term"),
    ("price_overridden", "the link's `price` replaced the catalog's hourly price"),
    ("price_as_of", "the date of the offer's price"),
    ("stale", "the price is over six months old"),
    ("source", "where the offer's price (in `api`: the API's price) was read"),
    ("measured", "your measurement (`measured`, `measured_ttft` on the pinned GPU) against the estimate the \
        answer would show without it: the pick's (`offer`); absent without one"),
    ("estimate_decode_tokens_per_s_per_seq", "the estimate's decode tokens/s per sequence the measurement is \
        compared with"),
    ("decode_factor", "measured ÷ estimate: the factor on that GPU type's decode speed (1 when not given, or \
        ignored with a notice)"),
    ("estimate_time_to_first_token_s", "the estimate's time to first token the measurement is compared with"),
    ("ttft_factor", "measured ÷ estimate: the factor on that GPU type's prefill and first-token time (1 when \
        not given, or ignored with a notice)"),
    ("api", "serving (the CLI's JSON; the page carries no API prices): the pick's load on the cheapest \
        hosted API listed for the model (`static/api_prices.csv`, rows not marked stale, cheapest for this \
            prompt and output); absent where the model has no price or nothing fits"),
    ("host", "the API host, with its tier where it sells several"),
    ("usd_per_million_input", "the host's price per million input (prompt) tokens, cache-miss"),
    ("usd_per_million_output", "the host's price per million output tokens"),
    ("requests_per_s", "the load compared, in requests per second while busy: the link's `rps`, else what \
        the pick's concurrent sequences complete"),
    ("requests_per_month", "the requests a month at that load over the pick's busy hours (a batch job: \
        `per_job` × `jobs`)"),
    ("pick_usd_per_month", "the pick's own month (its `usd_per_month`)"),
    ("breakeven_requests_per_s", "the request rate at which the API's month equals the pick's as billed \
        here; above it renting is cheaper (past the pick's load, ask again with that `rps`: more copies may \
            cost more); `null` for a batch job of a stated size"),
    ("hosts_listed", "the hosts listed for the model and not marked stale (the cheapest is compared)"),
    ("recommendation", "the pick and its alternatives"),
    ("objective", "the quantity offers are ranked on (a field name of `offers[]`)"),
    ("pick", "the recommended offer"),
    ("alternatives", "other offers worth naming"),
    ("offer", "an offer id"),
    ("why", "`best` (the pick), `cheapest`, `fragile` (a cheaper offer the pick was preferred over for its \
        margin), `fastest`, `single-gpu`, `on-demand` or `committed`"),
    ("guidance", "the FAQ answers and notes beside the pick"),
    ("title", "the answer's question, in English"),
    ("text", "the answer, in English"),
    ("whatif", "single changes to the link worth making, each evaluated on the pick's GPU type and provider"),
    ("value", "the changed key's value"),
    ("before", "the objective before the change"),
    ("after", "the objective after it"),
    ("better", "the change improves the objective"),
    ("export", "with `--emit`: the launch texts of the pick and alternatives"),
    ("role", "`pick` or `alternative`"),
    ("skypilot_yaml", "the SkyPilot task"),
    ("command", "the engine or training command (comment lines start with `#`)"),
    ("unsupported", "why SkyPilot cannot launch this offer as it stands (`null` when it can)"),
];

/// The base name of a field: `total_bytes_low` → `total_bytes`.
fn base(name: &str) -> &str {
    name.strip_suffix("_low").or_else(|| name.strip_suffix("_high")).unwrap_or(name)
}

/// Every field path the JSON of [`QUESTIONS`] writes, with the JSON types seen.
pub fn json_fields(catalog: &Catalog, today: Date) -> BTreeMap<String, BTreeSet<&'static str>> {
    fn walk(v: &Value, path: &str, out: &mut BTreeMap<String, BTreeSet<&'static str>>) {
        let kind = match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        if !path.is_empty() {
            out.entry(path.to_string()).or_default().insert(kind);
        }
        match v {
            Value::Object(map) => {
                for (k, x) in map {
                    walk(x, &if path.is_empty() { k.clone() } else { format!("{path}.{k}") }, out);
                }
            }
            Value::Array(items) => {
                for x in items {
                    walk(x, &format!("{path}[]"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    for q in QUESTIONS {
        let answer = evaluate_query(q, catalog, today);
        let mut v = serde_json::to_value(&answer).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut v {
            map.insert(
                "export".into(),
                serde_json::to_value(export::for_answer(&answer, catalog)).unwrap_or(Value::Null),
            );
        }
        walk(&v, "", &mut out);
    }
    out
}

/// The description of a field path, by its last name.
pub fn describe(path: &str) -> Option<&'static str> {
    let name = path.rsplit('.').next().unwrap_or(path).trim_end_matches("[]");
    FIELDS.iter().find(|(n, _)| *n == base(name)).map(|(_, d)| *d)
}

/// The values column of a key: its range, its enum's names, or its description.
fn values(codec: &Codec, values: &Values) -> String {
    let names = |v: Vec<&str>| v.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" ");
    match (values, codec) {
        (Values::Names(f), _) => names(f()),
        (Values::Text(t), _) => (*t).to_string(),
        (Values::Derived, Codec::Num(min, max, ..)) => format!("{}–{}", fmt_num(*min), fmt_num(*max)),
        (Values::Derived, Codec::Int(min, max, ..)) => format!("{min}–{max} (whole)"),
        (Values::Derived, Codec::Flag(..)) => "`0`/`1`".into(),
        (Values::Derived, Codec::Text(..)) => "text".into(),
    }
}

/// The whole document.
pub fn markdown(catalog: &Catalog, today: Date) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# The link format and the CLI's JSON\n\n<!-- Generated by `whichgpu docs link-format` from the link \
            registry \
         (src/core/link/keys.rs) and the answers' JSON (src/tools/link_doc.rs); edit those, not this file. \
         tests/it/link/contract.rs fails when this file differs. -->\n\n\
         A whichgpu configuration is a URL query string (format version {FORMAT_VERSION}). The page reads \
             and writes it; the CLI \
         takes the same string (`whichgpu '<query>'`, `--json` for JSON). Other people's tests, scripts and \
             documentation embed \
         these strings: a key may be added, never renamed.\n\n\
         ## Rules\n\n\
         - Every key is optional: a missing key takes its default. Keys are lowercase; values are ids, \
             numbers or comma lists.\n\
         - An unknown key, a repeated key or a bad value never stops the answer: a notice names the key and \
             why, and that key \
         keeps its default. The CLI prints notices at the head of its text report, or on stderr beside the \
             JSON (and in its `notices`); `--strict` makes any notice exit 2; a \
         query with nothing usable exits 2.\n\
         - Links are written canonically: `v=1` first, then every key whose value differs from its default, \
             in the order of the \
         table below.\n\
         - The page-only keys (`lang`, `embed`, `theme`) are accepted by the CLI; there `lang` sets the \
             report's language and \
         the default of `cur`.\n"
    );
    let _ =
        writeln!(s, "## Keys\n\n| key | values | default | meaning | page input |\n|---|---|---|---|---|");
    // Consecutive keys that share their meaning share a row.
    for group in REGISTRY.chunk_by(|a, b| a.doc.meaning == b.doc.meaning) {
        let Some(first) = group.first() else { continue };
        let keys = group.iter().map(|k| format!("`{}`", k.name)).collect::<Vec<_>>().join(" ");
        let vals: Vec<String> = group.iter().map(|k| values(&k.codec, &k.doc.values)).collect();
        let defaults: Vec<String> = group.iter().map(|k| k.doc.default.to_string()).collect();
        let one = |v: Vec<String>| {
            if v.iter().all(|x| Some(x) == v.first()) {
                v.first().cloned().unwrap_or_default()
            } else {
                v.join("; ")
            }
        };
        let control = format!("{:?}", first.control).to_lowercase();
        let _ = writeln!(
            s,
            "| {keys} | {} | {} | {} | {} |",
            one(vals),
            one(defaults),
            first.doc.meaning,
            if control == "none" { "–".into() } else { control }
        );
    }
    let _ = writeln!(
        s,
        "\nThe architecture keys (page input `imported`) are filled together by the page's \"Import a \
            Hugging Face \
         config.json\" box and by the CLI's `--config`; the link carries them.\n\n\
         ## Task defaults\n\nWhere a link is silent, the task decides (`Task::default_model`, \
             `default_usage`, \
         `default_batch` in `src/core/config.rs`):\n\n| task | `model` | `use` | `batch` |\n|---|---|---|---|"
    );
    for (name, task) in Task::NAMES {
        let batch = match task.default_batch() {
            Batch::Max => "max".to_string(),
            Batch::N(n) => n.to_string(),
        };
        let batch = match task {
            Task::Serve => {
                format!("{batch}; `max` for an offline job (`use=jobs`/`once` with `per_job`, no `rps`)")
            }
            Task::Finetune | Task::Pretrain => "– (`mb`)".to_string(),
            Task::Generate => batch,
        };
        let _ = writeln!(
            s,
            "| `{name}` | `{}` | `{}` | {batch} |",
            task.default_model(),
            task.default_usage().as_str()
        );
    }
    let _ = writeln!(
        s,
        "\n## The CLI's JSON\n\n`whichgpu --json '<query>'` writes one object; `--emit` adds `export`. Every \
            field below is \
         written by at least one of the questions in `src/tools/link_doc.rs` (`QUESTIONS`); a field's `_low` \
             and `_high` \
         siblings are its range. Costs are in US dollars whatever the display currency. A value nobody \
             publishes is `null` or \
         named in `unknown_costs`, never 0.\n\n| field | JSON type | meaning |\n|---|---|---|"
    );
    for (path, kinds) in json_fields(catalog, today) {
        let name = path.rsplit('.').next().unwrap_or(&path);
        if name != base(name) && !name.ends_with("[]") {
            continue;
        }
        let kinds = kinds.into_iter().collect::<Vec<_>>().join(" or ");
        let _ = writeln!(s, "| `{path}` | {kinds} | {} |", describe(&path).unwrap_or(""));
    }
    let _ = writeln!(
        s,
        "\n## The page\n\n- Stable `data-testid` hooks others may rely on: `recommendation`, `memory-total` \
            (its `data-bytes` \
         attribute holds the number), `memory-chart`, `offers`, `guidance`, `notice`, `copy-link`, \
             `embed-snippet`, \
         `lang-switch`, `cost-chart`, `export`.\n\
         - With `embed=1` the page posts `{{type: \"whichgpu:height\", height}}` (pixels) to its parent \
             whenever its height changes."
    );
    s
}

/// The date the document's answers are computed on: the tests' fixed
/// "today", so the document does not depend on the clock.
pub fn date() -> Date {
    Date { year: 2026, month: 11, day: 29 }
}

/// The key table as plain text, for `whichgpu keys`.
pub fn keys_text() -> String {
    let mut s = String::new();
    for k in REGISTRY {
        let _ = writeln!(
            s,
            "{}\n  values:  {}\n  default: {}\n  {}\n",
            k.name,
            values(&k.codec, &k.doc.values),
            k.doc.default,
            k.doc.meaning
        );
    }
    s
}
