//! The configuration: everything a user chose, exactly what a share link
//! holds. Defaults live here and nowhere else; the link codec
//! ([`super::link`]) turns query strings into this and back.

use super::date::Date;

pub use super::choices::{
    Checkpointing, Commit, Currency, Engine, GenMode, Lang, Method, Optim, Rl, Sort, Spec, Targets, Task,
    Theme, Trainer, Usage,
};

/// Concurrent sequences: a number, or as many as fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Batch {
    N(u32),
    Max,
}

/// Architecture keys for `model=custom`; any left out are inferred.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct CustomArch {
    pub params_b: Option<f64>,
    pub layers: Option<u32>,
    pub hidden: Option<u32>,
    pub heads: Option<u32>,
    pub kv_heads: Option<u32>,
    pub head_dim: Option<u32>,
    pub ffn: Option<u32>,
    pub vocab: Option<u32>,
    /// Mixture of experts: routed experts, experts per token, shared
    /// experts, one expert's FFN width, leading dense layers.
    pub experts: Option<u32>,
    pub experts_active: Option<u32>,
    pub shared_experts: Option<u32>,
    pub expert_ffn: Option<u32>,
    pub dense_layers: Option<u32>,
    /// Multi-head latent attention: KV and query latent ranks, RoPE key width.
    pub kv_lora: Option<u32>,
    pub q_lora: Option<u32>,
    pub rope_dim: Option<u32>,
    /// Sliding-window attention: the window in tokens; one layer in
    /// `global_every` attends over the whole context (`None`: every layer is windowed).
    pub window: Option<u32>,
    pub global_every: Option<u32>,
    /// Linear-attention or state-space layers (of `layers`) and one such
    /// layer's state elements per sequence.
    pub state_layers: Option<u32>,
    pub state_size: Option<u32>,
    pub tied: Option<bool>,
    /// Longest context the model takes, in tokens.
    pub context: Option<u32>,
    /// Vision tower: parameters (billions), LLM tokens per image or tile,
    /// tile or token side in pixels, tiles per image, patch side, and the
    /// cross-attention layers that hold image K/V.
    pub vision_params_b: Option<f64>,
    pub image_tokens: Option<u32>,
    pub image_px: Option<u32>,
    pub image_tiles: Option<u32>,
    pub patch_px: Option<u32>,
    pub cross_layers: Option<u32>,
}

#[derive(Debug, Clone, serde::Serialize)]
// The page's Wasm compares configurations by their links: `link`'s
// `impl PartialEq for Config` says why.
#[cfg_attr(not(target_arch = "wasm32"), derive(PartialEq))]
pub struct Config {
    pub task: Task,
    /// The model id; `None` = the task's default ([`Task::default_model`]).
    pub model: Option<String>,
    pub custom: CustomArch,
    /// Weight format; `None` = the task's default (bf16, nf4 for QLoRA).
    pub w: Option<String>,
    pub kv: String,
    pub engine: Engine,
    pub gpu: Option<String>,
    /// GPUs per node; `None` = the fewest that fit.
    pub gpus: Option<u32>,
    pub nodes: u32,
    pub input_tokens: u32,
    /// The first tokens of every request's prompt that all requests share
    /// (a system prompt, a common context); 0: none.
    pub prefix: u32,
    pub output_tokens: u32,
    /// Concurrent sequences (serving) or images per batch (generation);
    /// `None` = the task's default ([`Task::default_batch`]).
    pub batch: Option<Batch>,
    pub images: u32,
    /// Image resolution; `None`: the model's own (1024×1024 where it has none).
    pub res: Option<(u32, u32)>,
    pub steps: Option<u32>,
    pub frames: Option<u32>,
    pub fps: Option<u32>,
    /// Seconds of audio per clip; `None`: the model's default (else 30).
    pub seconds: Option<f64>,
    pub enc_offload: bool,
    /// The adapter of the fine-tune (`method=full|lora|qlora`, or `adapter` with an RL method).
    pub method: Method,
    /// Reinforcement learning (`method=grpo|ppo|dpo`); `None`: supervised.
    pub rl: Option<Rl>,
    /// RL: prompts per run, completions per prompt (`gens`), prompt and
    /// completion lengths in tokens, where vLLM generates (`gen`; `None`:
    /// TRL's default, colocated) and its colocated memory share (`vllm_mem`).
    pub prompts: u32,
    pub gens: u32,
    pub prompt_len: u32,
    pub completion_len: u32,
    /// RL: the mean generated length, tokens (`completion_mean`); `None`:
    /// not known, every completion taken at `completion_len`.
    pub completion_mean: Option<u32>,
    pub gen: Option<GenMode>,
    pub vllm_mem: f64,
    /// GRPO's KL coefficient (`beta`): above 0 a reference model scores every step.
    pub beta: f64,
    pub rank: u32,
    pub targets: Targets,
    pub optim: Optim,
    pub optim_offload: bool,
    /// The training stack (`trainer`); `hf` = the Hugging Face Trainer.
    pub trainer: Trainer,
    /// Activations offloaded to CPU memory between forward and backward;
    /// `None` = the trainer's default (Unsloth offloads, the others do not).
    pub act_offload: Option<bool>,
    /// Parameters (and with them gradients and optimizer states) kept in
    /// CPU memory: FSDP CPU offload or ZeRO-3 offload / ZeRO-Infinity.
    pub param_offload: bool,
    /// Micro-batch: sequences per GPU per pass; `None` = [`Config::mb`]'s default.
    pub mb: Option<u32>,
    /// Global batch in sequences per optimizer step (`gbs`), filled by
    /// gradient accumulation; `None` = the task's default
    /// ([`Config::global_batch`]).
    pub gbs: Option<u32>,
    pub seq: u32,
    pub gc: Checkpointing,
    pub flash: bool,
    /// ZeRO / FSDP stage (`zero`); `None` = the planner's choice per layout
    /// (data parallel plain or sharded, the stack's own rule:
    /// [`Config::zero_stages`]).
    pub zero: Option<u8>,
    /// Training tokens (dataset size); `None` = 20 tokens per parameter for
    /// pre-training (Hoffmann et al. 2022) or 100 M for fine-tuning.
    pub tokens: Option<f64>,
    pub epochs: f64,
    pub days: Option<f64>,
    /// How the offer is used; `None` = the task's default ([`Task::default_usage`]).
    pub usage: Option<Usage>,
    pub hpd: f64,
    pub jobs: f64,
    /// Minutes per job (`jobmin`); `None` = not given: 60 where the bill
    /// needs a length ([`Config::job_minutes`]), and an image-model
    /// fine-tune's run is timed from its steps instead.
    pub jobmin: Option<f64>,
    /// Optimizer steps of an image-model fine-tune (`train_steps`); `None`
    /// = the training script's documented default for the method
    /// (`estimate::media_train_time::default_train_steps`).
    pub train_steps: Option<u32>,
    pub spot: bool,
    /// The price term asked for; offers without it stay on-demand.
    pub commit: Commit,
    /// With `use=jobs`: the work of one job (requests, images, clips or
    /// audio seconds); the job's time then follows from the plan's speed.
    pub per_job: Option<f64>,
    pub restart_pct: f64,
    pub store_gb: Option<f64>,
    pub ckpts: u32,
    pub egress_gb: f64,
    pub sort: Sort,
    pub providers: Vec<String>,
    pub region: Option<String>,
    pub mintps: Option<f64>,
    /// SLA: the longest acceptable time to first token, seconds.
    pub maxttft: Option<f64>,
    /// Serving load as requests per second; sets the concurrency by
    /// Little's law (rate × request latency) when `batch` is not given.
    pub rps: Option<f64>,
    /// Your own measurement on the pinned GPU (`gpu`) at this
    /// configuration: decode tokens/s per sequence, and time to first token
    /// in seconds. The answer rescales that GPU type's speeds by them.
    pub measured: Option<f64>,
    pub measured_ttft: Option<f64>,
    /// Speculative decoding: the method, tokens drafted per step (`None`:
    /// the method's default), the draft model of `spec=draft` (a catalog
    /// id) and the acceptance rate per drafted token (`None`: the method's
    /// cited default, `estimate::spec`).
    pub spec: Spec,
    pub spec_tokens: Option<u32>,
    pub draft: Option<String>,
    pub spec_accept: Option<f64>,
    pub maxusd: Option<f64>,
    pub prices: Vec<(String, f64)>,
    pub cat: Option<Date>,
    /// Display currency; `None` = the language's (`cny` for Chinese, else `usd`).
    pub cur: Option<Currency>,
    pub lang: Option<Lang>,
    pub embed: bool,
    pub theme: Theme,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            task: Task::Serve,
            model: None,
            custom: CustomArch::default(),
            w: None,
            kv: "bf16".into(),
            engine: Engine::Vllm,
            gpu: None,
            gpus: None,
            nodes: 1,
            input_tokens: 2000,
            prefix: 0,
            output_tokens: 500,
            batch: None,
            images: 0,
            res: None,
            steps: None,
            frames: None,
            fps: None,
            seconds: None,
            enc_offload: false,
            method: Method::Lora,
            rl: None,
            prompts: 1000,
            gens: 8,
            prompt_len: 512,
            completion_len: 1024,
            completion_mean: None,
            gen: None,
            // TRL's GRPOConfig `vllm_gpu_memory_utilization` default
            // (huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8
            // trl/trainer/grpo_config.py:646).
            vllm_mem: 0.3,
            // TRL's GRPOConfig `beta` default (grpo_config.py:671 at the same commit).
            beta: 0.0,
            rank: 16,
            targets: Targets::All,
            optim: Optim::Adamw,
            optim_offload: false,
            trainer: Trainer::Hf,
            act_offload: None,
            param_offload: false,
            mb: None,
            gbs: None,
            seq: 2048,
            gc: Checkpointing::Full,
            flash: true,
            zero: None,
            tokens: None,
            epochs: 1.0,
            days: None,
            usage: None,
            hpd: 8.0,
            jobs: 30.0,
            jobmin: None,
            train_steps: None,
            spot: false,
            commit: Commit::None,
            per_job: None,
            restart_pct: 10.0,
            store_gb: None,
            ckpts: 1,
            egress_gb: 0.0,
            sort: Sort::Cost,
            providers: Vec::new(),
            region: None,
            mintps: None,
            maxttft: None,
            rps: None,
            measured: None,
            measured_ttft: None,
            spec: Spec::Off,
            spec_tokens: None,
            draft: None,
            spec_accept: None,
            maxusd: None,
            prices: Vec::new(),
            cat: None,
            cur: None,
            lang: None,
            embed: false,
            theme: Theme::Auto,
        }
    }
}

impl Config {
    /// The model id in effect: the link's, else the task's default.
    pub fn model_id(&self) -> &str {
        self.model.as_deref().unwrap_or(self.task.default_model())
    }

    /// The usage in effect: the link's, never rewritten, else the task's default.
    pub fn usage(&self) -> Usage {
        self.usage.unwrap_or(self.task.default_usage())
    }

    /// The batch in effect: the link's, else the task's default; an offline
    /// serving job (`use=jobs`/`once` with `per_job`, no `rps`) runs as many
    /// sequences as fit (`max`): its requests wait in a queue, not for users.
    pub fn batch(&self) -> Batch {
        let offline = self.task == Task::Serve && self.offline_job() && self.rps.is_none();
        self.batch.unwrap_or(if offline { Batch::Max } else { self.task.default_batch() })
    }

    /// Batch work rather than a service kept up: `use=jobs` or `once`. The
    /// one home of this rule (billing by job, the objective, the form, the
    /// what-ifs and the deadline all ask it here).
    /// Minutes per job for the bill: the link's `jobmin`, else 60.
    pub fn job_minutes(&self) -> f64 {
        self.jobmin.unwrap_or(60.0)
    }

    /// The micro-batch in effect: the link's `mb`, else 1, or for an RL
    /// fine-tune TRL's `per_device_train_batch_size`, the transformers
    /// `TrainingArguments` default of 8 that GRPOConfig, DPOConfig and
    /// PPOConfig keep (huggingface/trl@f2cd5771 trl/trainer/grpo_config.py
    /// lists the defaults it overrides; this is not one of them).
    pub fn mb(&self) -> u32 {
        self.mb.unwrap_or(self.default_mb())
    }

    /// The micro-batch where the link gives none (see [`Config::mb`]).
    pub fn default_mb(&self) -> u32 {
        if self.rl.is_some() && self.task == Task::Finetune {
            8
        } else {
            1
        }
    }

    pub fn batch_usage(&self) -> bool {
        matches!(self.usage(), Usage::Jobs | Usage::Once)
    }

    /// A job of stated work (`per_job` with `use=jobs`/`once`): done when
    /// all of it is, so its speed is the whole offer's output.
    pub fn offline_job(&self) -> bool {
        self.per_job.is_some() && self.batch_usage()
    }

    /// Sequences per optimizer step in effect: the link's `gbs`, else for
    /// pre-training 4,194,304 tokens (Llama 2's global batch of 4M tokens,
    /// Touvron et al. 2023 §2.2) in sequences of `seq`; fine-tuning
    /// accumulates nothing unless asked (the launch commands' default of
    /// one micro-batch per step).
    pub fn global_batch(&self) -> Option<u32> {
        match (self.gbs, self.task) {
            (Some(g), _) => Some(g),
            (None, Task::Pretrain) => Some(4_194_304u32.div_ceil(self.seq.max(1))),
            _ => None,
        }
    }

    /// The ZeRO stages a training plan may use: the one the link names, or
    /// where it names none those the stack runs, the planner taking per
    /// layout the one that holds the job on the fewest GPUs without tensor
    /// parallelism over PCIe, then the fastest (docs/link-format.md, `zero`).
    /// torchtune's distributed recipes always shard with FSDP2, fully by
    /// default (pytorch/torchtune@a6290a5b, v0.6.1-rc3, the version the
    /// launch installs: recipes/full_finetune_distributed.py and
    /// lora_finetune_distributed.py, `reshard_after_forward=cfg.get(
    /// "fsdp_reshard_after_forward", True)`; "DDP is currently not
    /// supported" in the full recipe's docstring at bd2a0fc7); Unsloth keeps a whole model per GPU; the
    /// others launch
    /// DDP or any stage (axolotl-ai-cloud/axolotl@067b021c docs/multi-gpu.qmd:
    /// DeepSpeed ZeRO 1–3, FSDP, or DDP by default).
    pub fn zero_stages(&self) -> &'static [u8] {
        match (self.zero, self.trainer) {
            (Some(z), _) => [&[0u8][..], &[1], &[2], &[3]].get(usize::from(z)).copied().unwrap_or(&[0]),
            (None, Trainer::Unsloth) => &[0],
            (None, Trainer::Torchtune) => &[3],
            (None, _) => &[0, 1, 2, 3],
        }
    }

    /// The stage a single-configuration estimate uses: the link's, else
    /// the stack's plain default (torchtune's FSDP, the others unsharded).
    pub fn zero_stage(&self) -> u8 {
        self.zero.unwrap_or(if self.trainer == Trainer::Torchtune { 3 } else { 0 })
    }

    /// The resolution to use where a model has no default of its own.
    pub fn resolution(&self) -> (u32, u32) {
        self.res.unwrap_or((1024, 1024))
    }

    /// The weight format in effect: the user's, else bf16 (nf4 for QLoRA).
    pub fn weight_format_id(&self) -> &str {
        match &self.w {
            Some(w) => w,
            None if self.task == Task::Finetune && self.method == Method::Qlora => "nf4",
            None => "bf16",
        }
    }

    /// The display currency in effect: the link's, else yuan for a Chinese
    /// page and US dollars otherwise (`docs/link-format.md`, `cur`).
    pub fn display_currency(&self) -> Currency {
        self.cur.unwrap_or(match self.lang {
            Some(Lang::Zh) => Currency::Cny,
            _ => Currency::Usd,
        })
    }

    pub fn is_training(&self) -> bool {
        matches!(self.task, Task::Finetune | Task::Pretrain)
    }
}
