//! The closed sets a link's keys choose from (task, engine, method,
//! trainer, usage, currency, …), each a name-table enum written as its
//! documented string; `config` re-exports them.

use super::named::named;

named! {
    pub enum Task { Serve = "serve", Generate = "generate", Finetune = "finetune", Pretrain = "pretrain" }
}

named! {
    /// A serving engine profile (one row here; its factors live in `estimate::engine`).
    pub enum Engine {
        Vllm = "vllm",
        Sglang = "sglang",
        TrtLlm = "trt-llm",
        LlamaCpp = "llama.cpp",
        Hf = "hf",
    }
}

named! {
    pub enum Method { Full = "full", Lora = "lora", Qlora = "qlora" }
}

named! {
    /// A reinforcement-learning fine-tune on TRL (`method=grpo|ppo|dpo`;
    /// `estimate::rl`); the adapter is then `adapter` (`Config::method`).
    pub enum Rl { Grpo = "grpo", Ppo = "ppo", Dpo = "dpo" }
}

named! {
    /// Where an RL fine-tune generates: vLLM inside the training processes
    /// (TRL's `vllm_mode="colocate"`) or a `trl vllm-serve` server on GPUs of its own.
    pub enum GenMode { Colocate = "colocate", Split = "split" }
}

named! {
    pub enum Targets { Attn = "attn", AttnMlp = "attn-mlp", All = "all" }
}

named! {
    pub enum Optim {
        Adamw = "adamw",
        Adamw8bit = "adamw8bit",
        Adafactor = "adafactor",
        Sgd = "sgd",
        SgdMomentum = "sgd-momentum",
    }
}

named! {
    /// The training stack: which memory techniques run by default
    /// (`estimate::stack` holds each one's profile and sources).
    pub enum Trainer {
        Hf = "hf",
        Torchtune = "torchtune",
        Unsloth = "unsloth",
        Axolotl = "axolotl",
        Deepspeed = "deepspeed",
        Megatron = "megatron",
        Torchtitan = "torchtitan",
        Trl = "trl",
    }
}

named! {
    pub enum Checkpointing { None = "none", Selective = "selective", Full = "full" }
}

named! {
    pub enum Usage { Always = "always", Hours = "hours", Jobs = "jobs", Once = "once" }
}

named! {
    /// The price term: on-demand, or a committed/reserved term where the provider publishes one.
    pub enum Commit { None = "none", Month = "1mo", Year = "1yr", ThreeYears = "3yr" }
}

named! {
    /// A currency: of an offer's prices (`currency` in the catalog) and of the display (`cur`).
    pub enum Currency { Usd = "usd", Cny = "cny" }
}

named! {
    pub enum Sort { Cost = "cost", Token = "token", Speed = "speed", Latency = "latency" }
}

named! {
    pub enum Lang { En = "en", Zh = "zh" }
}

named! {
    /// Speculative decoding (`spec`): how a serving engine drafts tokens for
    /// the model to verify in one step (`estimate::spec`).
    pub enum Spec { Off = "off", Eagle = "eagle", Mtp = "mtp", Draft = "draft", Ngram = "ngram" }
}

named! {
    pub enum Theme { Light = "light", Dark = "dark", Auto = "auto" }
}
