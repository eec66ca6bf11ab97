//! One registry of the link's keys: for each, its name, how its value is
//! read and written (range and field, or a parser and a writer), the page
//! control that edits it, the message key of its label, how the page's
//! "blank" returns it to the default, and (native builds only) its
//! documentation: the values it takes, its default and what it means.
//! Decode, encode, the page's form, the CLI's help and
//! `docs/link-format.md` all read this table; `tests/it/link/keys.rs` checks
//! every entry against decode, encode and the form. Adding a key is one
//! entry here plus the code that uses the value. The order of the table is
//! the order links are written in.

use super::super::config::*;
use super::super::date::Date;
use super::super::messages::Msg;
use super::super::notice::Notice;
use super::super::precision;
use super::values::*;

/// How a key's value is read and written.
#[allow(clippy::type_complexity)]
pub enum Codec {
    /// A number in `[min, max]`: the field it sets and the field's value (`None`: unset).
    Num(f64, f64, fn(&mut Config, f64), fn(&Config) -> Option<f64>),
    /// A whole number in `[min, max]`.
    Int(u32, u32, fn(&mut Config, u32), fn(&Config) -> Option<u32>),
    /// `0`/`1` (or `false`/`true`).
    Flag(fn(&mut Config, bool), fn(&Config) -> Option<bool>),
    /// Any other value: parses and sets it (`key`, `value`), and the text a
    /// link writes given the defaults (`None`: left out).
    Text(fn(&mut Config, &str, &str) -> Result<(), Notice>, fn(&Config, &Config) -> Option<String>),
}

/// The page control that edits a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// A select over a list of values.
    Select,
    /// A checkbox for a `0`/`1` key.
    Check,
    /// A text input.
    Text,
    /// Filled by the "Import a Hugging Face config.json" box, no input of its own.
    Imported,
    /// Written by the page itself or only by hand in a link (`v`, `cat`, `lang`, `embed`, `targets`, `nodes`, …).
    None,
}

/// The values a key takes, as documented: derived from its [`Codec`]'s
/// range where it has one, the names of its enum, or a description.
#[cfg(not(target_arch = "wasm32"))]
pub enum Values {
    Derived,
    Names(fn() -> Vec<&'static str>),
    Text(&'static str),
}

/// A key's documentation (native builds: the CLI and `docs/link-format.md`).
#[cfg(not(target_arch = "wasm32"))]
pub struct Doc {
    pub values: Values,
    pub default: &'static str,
    pub meaning: &'static str,
}

/// One link key.
pub struct Key {
    pub name: &'static str,
    pub codec: Codec,
    pub control: Control,
    /// The message key of the input's label (`""`: no input); `form::label_for` varies it by job.
    pub label: &'static str,
    /// Returns the key to its default when the page's input is cleared (`None`: not clearable).
    pub clear: Option<fn(&mut Config)>,
    #[cfg(not(target_arch = "wasm32"))]
    pub doc: Doc,
}

macro_rules! keys {
    ($($name:literal, $codec:expr, $control:ident, $label:literal, $clear:expr, $values:expr, $default:literal, $meaning:literal;)*) => {
        /// Every key, in the order links are written.
        pub const REGISTRY: &[Key] = &[$(Key {
            name: $name,
            codec: $codec,
            control: Control::$control,
            label: $label,
            clear: $clear,
            #[cfg(not(target_arch = "wasm32"))]
            doc: Doc { values: $values, default: $default, meaning: $meaning },
        }),*];
    };
}

use Codec::{Flag, Int, Num, Text};
#[cfg(not(target_arch = "wasm32"))]
use Values::Text as Text_;
#[cfg(not(target_arch = "wasm32"))]
use Values::{Derived, Names};

#[rustfmt::skip]
keys! {
    "v", Text(|_, _, v| if v == "1" { Ok(()) } else { Err(Notice::unknown_version(v)) }, |_, _| Some(FORMAT_VERSION.to_string())), None, "", None,
        Text_("`1`"), "1", "link format version";
    "task", Text(|c, k, v| { c.task = pick(v, k, Task::NAMES)?; Ok(()) }, |c, d| name(c.task.as_str(), d.task.as_str())), Select, "ui.task", None,
        Names(|| names(Task::NAMES)), "serve", "LLM serving, media generation, fine-tuning, pre-training";
    "model", Text(|c, k, v| { c.model = Some(model_id(v, k)?); Ok(()) }, |c, _| c.model.clone()), Select, "ui.model", None,
        Text_("model id, `custom`"), "the task's (see Task defaults)", "68 language and vision-language models (`static/models.csv`, with DeepSeek-R1's five distilled checkpoints on their Qwen2.5/Llama bases); a model of another task gets a notice naming the tasks it serves; a hub name (`Qwen/Qwen2.5-7B`) is read as its last part in lower case, and an unknown id is answered with the most specific catalog ids whose words it contains and whose size agrees (`Qwen/Qwen2.5-7B-Instruct` → `qwen2.5-7b`). With `task=generate`: `sd-1.5` `sdxl` `sdxl-refiner` `sd-3.5-medium` `sd-3.5-large` `flux.1-dev` `flux.1-schnell` `pixart-sigma` `wan-2.1-1.3b` `wan-2.1-14b` `hunyuanvideo` `cogvideox-5b` `ltx-video` `mochi-1` `musicgen-small` `musicgen-medium` `musicgen-large` `stable-audio-open` `xtts-v2` `f5-tts` `bark`, default sdxl: generation models (`static/media_models.csv`)";
    "params", Num(0.01, 20_000.0, |c, v| c.custom.params_b = Some(v), |c| c.custom.params_b), Text, "ui.params", None,
        Derived, "–", "with `model=custom`: size; architecture inferred (labelled)";
    "layers", Int(1, 1000, |c, v| c.custom.layers = Some(v), |c| c.custom.layers), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "hidden", Int(64, 131_072, |c, v| c.custom.hidden = Some(v), |c| c.custom.hidden), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "heads", Int(1, 1024, |c, v| c.custom.heads = Some(v), |c| c.custom.heads), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "kv_heads", Int(1, 1024, |c, v| c.custom.kv_heads = Some(v), |c| c.custom.kv_heads), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "head_dim", Int(8, 1024, |c, v| c.custom.head_dim = Some(v), |c| c.custom.head_dim), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "ffn", Int(64, 1_048_576, |c, v| c.custom.ffn = Some(v), |c| c.custom.ffn), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "vocab", Int(2, 10_000_000, |c, v| c.custom.vocab = Some(v), |c| c.custom.vocab), Imported, "", None,
        Derived, "inferred", "with `model=custom`: the architecture, replacing inferred values; with `vocab` and `ffn` (or `experts`) and no `params`, the parameter count is computed from them";
    "experts", Int(1, 4096, |c, v| c.custom.experts = Some(v), |c| c.custom.experts), Imported, "", None,
        Derived, "– (dense)", "with `model=custom`: routed experts per MoE layer, and experts each token uses (`num_local_experts`/`num_experts`/`n_routed_experts`, `num_experts_per_tok`)";
    "experts_active", Int(1, 4096, |c, v| c.custom.experts_active = Some(v), |c| c.custom.experts_active), Imported, "", None,
        Derived, "– (dense)", "with `model=custom`: routed experts per MoE layer, and experts each token uses (`num_local_experts`/`num_experts`/`n_routed_experts`, `num_experts_per_tok`)";
    "shared_experts", Int(0, 64, |c, v| c.custom.shared_experts = Some(v), |c| c.custom.shared_experts), Imported, "", None,
        Derived, "0", "with `model=custom`: shared experts every token uses, in expert widths (`n_shared_experts`; Qwen-MoE's `shared_expert_intermediate_size` ÷ `expert_ffn`)";
    "expert_ffn", Int(16, 1_048_576, |c, v| c.custom.expert_ffn = Some(v), |c| c.custom.expert_ffn), Imported, "", None,
        Derived, "–", "with `model=custom`: one expert's FFN width (`moe_intermediate_size`; Mixtral and gpt-oss: `intermediate_size`)";
    "dense_layers", Int(0, 1000, |c, v| c.custom.dense_layers = Some(v), |c| c.custom.dense_layers), Imported, "", None,
        Derived, "0", "with `model=custom`: MoE models' dense (non-expert) layers (`first_k_dense_replace`, `mlp_only_layers`)";
    "kv_lora", Int(16, 65_536, |c, v| c.custom.kv_lora = Some(v), |c| c.custom.kv_lora), Imported, "", None,
        Derived, "– (no MLA)", "with `model=custom`: multi-head latent attention — KV latent rank (the cache holds it plus the RoPE key), query latent rank (0 = none), RoPE key width (`kv_lora_rank`, `q_lora_rank`, `qk_rope_head_dim`)";
    "q_lora", Int(0, 65_536, |c, v| c.custom.q_lora = Some(v), |c| c.custom.q_lora), Imported, "", None,
        Derived, "0", "with `model=custom`: multi-head latent attention — KV latent rank (the cache holds it plus the RoPE key), query latent rank (0 = none), RoPE key width (`kv_lora_rank`, `q_lora_rank`, `qk_rope_head_dim`)";
    "rope_dim", Int(0, 1024, |c, v| c.custom.rope_dim = Some(v), |c| c.custom.rope_dim), Imported, "", None,
        Derived, "64", "with `model=custom`: multi-head latent attention — KV latent rank (the cache holds it plus the RoPE key), query latent rank (0 = none), RoPE key width (`kv_lora_rank`, `q_lora_rank`, `qk_rope_head_dim`)";
    "window", Int(1, 100_000_000, |c, v| c.custom.window = Some(v), |c| c.custom.window), Imported, "", None,
        Derived, "– (full attention)", "with `model=custom`: sliding-window length (`sliding_window`; Llama 4's `attention_chunk_size`: a chunked layer's cache holds the chunk, as vLLM's `ChunkedLocalAttentionSpec` allocates)";
    "global_every", Int(1, 1000, |c, v| c.custom.global_every = Some(v), |c| c.custom.global_every), Imported, "", None,
        Derived, "– (every layer windowed)", "with `model=custom` and `window`: one layer in this many attends over the whole context (Gemma 2 and gpt-oss: 2, Gemma 3: 6, Llama 4: 4, its NoPE layers)";
    "state_layers", Int(0, 1000, |c, v| c.custom.state_layers = Some(v), |c| c.custom.state_layers), Imported, "", None,
        Derived, "0", "with `model=custom`: layers whose token mixer keeps a fixed state per sequence instead of a KV cache — linear attention (Qwen3-Next's Gated DeltaNet, `layer_types` `linear_attention`) or a state-space model (Jamba's Mamba layers, `attn_layer_period`/`attn_layer_offset`; Falcon-H1, Nemotron-H); the other layers attend";
    "state_size", Int(1, 1_000_000_000, |c, v| c.custom.state_size = Some(v), |c| c.custom.state_size), Imported, "", None,
        Derived, "–", "with `state_layers`: one such layer's state elements per sequence, held at 16 bits whatever the context (`docs/hybrid-and-prefix.md`: Gated DeltaNet value heads × key dim × value dim plus its convolution window; Mamba `d_inner × d_state` plus `d_inner × (d_conv − 1)`)";
    "tied", Flag(|c, v| c.custom.tied = Some(v), |c| c.custom.tied), Imported, "", None,
        Derived, "0", "with `model=custom`: the output head shares the embedding (`tie_word_embeddings`)";
    "context", Int(1, 100_000_000, |c, v| c.custom.context = Some(v), |c| c.custom.context), Imported, "", None,
        Derived, "–", "with `model=custom`: the longest context the model takes (`max_position_embeddings`)";
    "vision_params", Num(0.0001, 100.0, |c, v| c.custom.vision_params_b = Some(v), |c| c.custom.vision_params_b), Imported, "", None,
        Derived, "– (text only)", "with `model=custom`: the vision tower's parameters (kept 16-bit); needs `image_tokens` or `image_px`";
    "image_tokens", Int(1, 1_000_000, |c, v| c.custom.image_tokens = Some(v), |c| c.custom.image_tokens), Imported, "", None,
        Derived, "–", "with `vision_params`: LLM tokens per image or tile (absent: dynamic resolution, one token per `image_px` square), tile side in pixels, tiles per image, the encoder's patch side, cross-attention layers holding image K/V (Llama 3.2 Vision)";
    "image_px", Int(1, 8192, |c, v| c.custom.image_px = Some(v), |c| c.custom.image_px), Imported, "", None,
        Derived, "–", "with `vision_params`: LLM tokens per image or tile (absent: dynamic resolution, one token per `image_px` square), tile side in pixels, tiles per image, the encoder's patch side, cross-attention layers holding image K/V (Llama 3.2 Vision)";
    "image_tiles", Int(1, 256, |c, v| c.custom.image_tiles = Some(v), |c| c.custom.image_tiles), Imported, "", None,
        Derived, "–", "with `vision_params`: LLM tokens per image or tile (absent: dynamic resolution, one token per `image_px` square), tile side in pixels, tiles per image, the encoder's patch side, cross-attention layers holding image K/V (Llama 3.2 Vision)";
    "patch_px", Int(1, 1024, |c, v| c.custom.patch_px = Some(v), |c| c.custom.patch_px), Imported, "", None,
        Derived, "–", "with `vision_params`: LLM tokens per image or tile (absent: dynamic resolution, one token per `image_px` square), tile side in pixels, tiles per image, the encoder's patch side, cross-attention layers holding image K/V (Llama 3.2 Vision)";
    "cross_layers", Int(0, 1000, |c, v| c.custom.cross_layers = Some(v), |c| c.custom.cross_layers), Imported, "", None,
        Derived, "–", "with `vision_params`: LLM tokens per image or tile (absent: dynamic resolution, one token per `image_px` square), tile side in pixels, tiles per image, the encoder's patch side, cross-attention layers holding image K/V (Llama 3.2 Vision)";
    "w", Text(set_w, |c, _| c.w.clone()), Select, "ui.format", None,
        Names(weight_format_ids), "bf16 (nf4 for QLoRA)", "weight format; also read in any case and by its common short name where that names one format (`Q4_K_M` → `gguf-q4_k_m`, `awq` → `int4-awq`, `gptq`, `bnb`), written back as the id";
    "kv", Text(set_kv, |c, d| (c.kv != d.kv).then(|| c.kv.clone())), Select, "ui.kv", None,
        Names(|| precision::KV_FORMATS.iter().copied().filter(|f| *f != "fp32").collect()), "bf16", "KV-cache format";
    "engine", Text(|c, k, v| { c.engine = pick(v, k, Engine::NAMES)?; Ok(()) }, |c, d| name(c.engine.as_str(), d.engine.as_str())), Select, "ui.engine", None,
        Names(|| names(Engine::NAMES)), "vllm", "engine profile (memory layout, reservation, fitted efficiency)";
    "gpu", Text(|c, k, v| { c.gpu = Some(id(v, k)?); Ok(()) }, |c, _| c.gpu.clone()), Select, "ui.gpu", None,
        Text_("GPU id (`static/gpus.csv`)"), "any", "pin the results to this GPU and filter offers";
    "gpus", Int(1, 72, |c, v| c.gpus = Some(v), |c| c.gpus), Text, "ui.gpus", Some(|c| c.gpus = None),
        Derived, "fewest that fit", "GPUs per instance (tensor parallel; llama.cpp and hf split layers); honoured by every offer that has that many (for training: exactly that many per instance, `nodes` instances), else a notice says why not (a count that does not divide the attention heads, more than the pinned GPU comes per node)";
    "nodes", Int(1, 4096, |c, v| c.nodes = v, |c| Some(c.nodes)), None, "", None,
        Derived, "1", "nodes (pipeline stages)";
    "in", Int(1, 10_000_000, |c, v| c.input_tokens = v, |c| Some(c.input_tokens)), Text, "ui.in", None,
        Derived, "2000", "prompt tokens per request; serving a prompt and output past the model's context (`max_position_embeddings`) gets a notice naming `in` (or `out` where the output alone is too long) and is planned at what the model takes";
    "prefix", Int(0, 10_000_000, |c, v| c.prefix = v, |c| Some(c.prefix)), None, "", None,
        Derived, "0", "serving: the first tokens of every request's `in` that all requests share (a system prompt, a common document); vLLM, SGLang and TensorRT-LLM keep their KV once per copy (whole blocks) and prefill only each request's new tokens, so memory, time to first token, the batch that fits and the bill follow; llama.cpp, transformers and models with linear-attention or state-space layers share none by default (a notice). Above `in`: a notice, planned at `in`";
    "out", Int(1, 1_000_000, |c, v| c.output_tokens = v, |c| Some(c.output_tokens)), Text, "ui.out", None,
        Derived, "500", "generated tokens per request";
    "batch", Text(|c, k, v| { c.batch = Some(if v == "max" { Batch::Max } else { Batch::N(int(v, k, 1, 100_000)?) }); Ok(()) }, |c, _| c.batch.map(batch_text)), Text, "ui.batch", Some(|c| c.batch = None),
        Text_("1–100 000, `max`"), "16 (1 for generation; `max` for an offline serving job, see Task defaults)", "concurrent sequences; images per batch for generation; `max` = the most that fit";
    "images", Int(0, 64, |c, v| c.images = v, |c| Some(c.images)), Text, "ui.images", None,
        Derived, "0", "images per request (vision-language models)";
    "res", Text(set_res, |c, _| c.res.map(|(w, h)| format!("{w}x{h}"))), Text, "ui.res", Some(|c| c.res = None),
        Text_("`WxH`, 64–8192 each"), "1024x1024", "image resolution: image tokens of dynamic-resolution vision encoders, and each image's preparation time";
    "steps", Int(1, 1000, |c, v| c.steps = Some(v), |c| c.steps), Text, "ui.steps", Some(|c| c.steps = None),
        Derived, "model default", "denoising steps";
    "frames", Int(1, 2000, |c, v| c.frames = Some(v), |c| c.frames), Text, "ui.frames", Some(|c| c.frames = None),
        Derived, "model default", "video length";
    "fps", Int(1, 120, |c, v| c.fps = Some(v), |c| c.fps), Text, "ui.fps", Some(|c| c.fps = None),
        Derived, "model default", "video length";
    "seconds", Num(0.1, 36_000.0, |c, v| c.seconds = Some(v), |c| c.seconds), Text, "ui.seconds", Some(|c| c.seconds = None),
        Derived, "model default (30 with none)", "audio length per request";
    "enc_offload", Flag(|c, v| c.enc_offload = v, |c| Some(c.enc_offload)), None, "", None,
        Derived, "0", "text encoders offloaded to CPU (diffusion); for image-model fine-tuning: prompt embeddings and latents precomputed, so encoders and VAE stay off the GPU";
    "method", Text(set_method, |c, d| c.rl.map_or_else(|| name(c.method.as_str(), d.method.as_str()), |r| Some(r.as_str().into()))), Select, "ui.ftmethod", None,
        Names(|| names(Method::NAMES).into_iter().chain(names(Rl::NAMES)).collect()), "lora", "fine-tuning method (`qlora` implies `w=nf4`); with an image model (`model=sdxl`, `flux.1-dev`, …) `full` is DreamBooth-style training of the whole denoiser; `grpo`, `ppo`, `dpo`: reinforcement-learning fine-tuning of a language model on TRL (`docs/rl-finetuning.md`), its adapter in `adapter`";
    "adapter", Text(|c, k, v| { c.method = pick(v, k, Method::NAMES)?; Ok(()) }, |c, d| c.rl.and_then(|_| name(c.method.as_str(), d.method.as_str()))), Select, "ui.adapter", None,
        Names(|| names(Method::NAMES)), "lora", "with `method=grpo|ppo|dpo`: the adapter trained (`full`, `lora`, `qlora`)";
    "prompts", Int(1, 1_000_000_000, |c, v| c.prompts = v, |c| Some(c.prompts)), Text, "ui.prompts", None,
        Derived, "1000", "with an RL method: prompts per run (DPO: preference pairs)";
    "gens", Int(0, 4096, |c, v| c.gens = v, |c| Some(c.gens)), Text, "ui.gens", None,
        Derived, "8", "with `method=grpo`: completions per prompt (TRL's `num_generations`, default 8; 0 or 1: a notice, GRPO needs 2 or more); PPO samples one per prompt and DPO none, whatever this says";
    "prompt_len", Int(1, 1_048_576, |c, v| c.prompt_len = v, |c| Some(c.prompt_len)), Text, "ui.prompt_len", None,
        Derived, "512", "with an RL method: prompt length, tokens";
    "completion_len", Int(0, 1_048_576, |c, v| c.completion_len = v, |c| Some(c.completion_len)), Text, "ui.completion_len", None,
        Derived, "1024", "with an RL method: completion length, tokens (TRL's `max_completion_length`; a step waits for the longest, so the step's generation runs to this length; `completion_mean` gives the mean); 0 or past the model's context with the prompt: a notice, and the longest that fits";
    "completion_mean", Int(1, 1_048_576, |c, v| c.completion_mean = Some(v), |c| c.completion_mean), None, "", None,
        Derived, "not set: every completion runs to `completion_len`", "with `method=grpo|ppo`: the mean generated length, tokens (a measured run's logs give it: TRL's `completion_length`); the step's decode runs the whole batch for the mean and the longest completion alone to `completion_len`, and the update and scoring take the mean (DPO generates nothing and takes `completion_len`); above `completion_len`: a notice, and `completion_len`";
    "gen", Text(|c, k, v| { c.gen = Some(pick(v, k, GenMode::NAMES)?); Ok(()) }, |c, _| c.gen.map(|g| g.as_str().into())), Select, "ui.gen", Some(|c| c.gen = None),
        Names(|| names(GenMode::NAMES)), "colocate (TRL's `vllm_mode`)", "with `method=grpo`: vLLM inside the training processes, time-shared (`colocate`), or a `trl vllm-serve` server on GPUs of its own (`split`); the JSON's `rl` gives both layouts' step time";
    "vllm_mem", Num(0.05, 0.95, |c, v| c.vllm_mem = v, |c| Some(c.vllm_mem)), Text, "ui.vllm_mem", None,
        Derived, "0.3", "with `gen=colocate`: the share of each GPU's memory vLLM takes (TRL's `vllm_gpu_memory_utilization`)";
    "beta", Num(0.0, 100.0, |c, v| c.beta = v, |c| Some(c.beta)), Text, "ui.beta", None,
        Derived, "0", "with `method=grpo`: the KL coefficient (TRL's `beta`, default 0: no reference model); above 0 every step scores with the reference (the base with the adapter disabled under LoRA, a frozen copy under `adapter=full`)";
    "rank", Int(1, 4096, |c, v| c.rank = v, |c| Some(c.rank)), Text, "ui.rank", None,
        Derived, "16", "LoRA rank";
    "targets", Text(|c, k, v| { c.targets = pick(v, k, Targets::NAMES)?; Ok(()) }, |c, d| name(c.targets.as_str(), d.targets.as_str())), None, "", None,
        Names(|| names(Targets::NAMES)), "all", "the projections LoRA adapts";
    "optim", Text(|c, k, v| { c.optim = pick(v, k, Optim::NAMES)?; Ok(()) }, |c, d| name(c.optim.as_str(), d.optim.as_str())), Select, "ui.optim", None,
        Names(|| names(Optim::NAMES)), "adamw", "optimizer (mixed precision keeps fp32 master weights for full fine-tuning)";
    "optim_offload", Flag(|c, v| c.optim_offload = v, |c| Some(c.optim_offload)), None, "", None,
        Derived, "0", "optimizer states in CPU memory";
    "trainer", Text(|c, k, v| { c.trainer = pick(v, k, Trainer::NAMES)?; Ok(()) }, |c, d| name(c.trainer.as_str(), d.trainer.as_str())), Select, "ui.trainer", None,
        Names(|| names(Trainer::NAMES)), "hf", "the training stack and the memory techniques it applies by default (`src/core/estimate/stack.rs`, each from the stack's code or docs): `hf` the Hugging Face Trainer (its fp32-upcast loss, 16 bytes per vocabulary entry per token); `torchtitan` FSDP2 with its compiled loss (16-bit logits and gradient) as its benchmarks run it; `torchtune` chunked cross-entropy, pure bf16, optimizer step inside the backward pass on one GPU; `unsloth` fused linear cross-entropy and offloaded checkpoints; `axolotl` the HF Trainer with Liger's fused linear cross-entropy; `deepspeed` the HF memory layout; `megatron` fp32 main gradients. Megatron-LM and torchtitan have no LoRA/QLoRA adapters: a fine-tune under them is planned as `method=full`, with a notice; Unsloth has no ZeRO sharding: `zero` above 0 is planned as 0, with a notice; torchtune's distributed recipes always shard with FSDP2 (no DDP): unset, `zero` is 3, and `zero=0`/`1` is planned as 3 with a notice (`zero=2` launches `fsdp_reshard_after_forward=False`)";
    "act_offload", Flag(|c, v| c.act_offload = Some(v), |c| c.act_offload), Check, "ui.act_offload", None,
        Derived, "the trainer's (1 for `unsloth` unless `gc=none`)", "checkpointed activations kept in CPU memory between forward and backward; costs the PCIe time compute does not hide";
    "param_offload", Flag(|c, v| c.param_offload = v, |c| Some(c.param_offload)), Check, "ui.param_offload", None,
        Derived, "0", "parameters, gradients and optimizer states in CPU memory (FSDP CPU offload, ZeRO-3 offload / ZeRO-Infinity); needs `zero=3` (a notice assumes it) and a stack that has it (not `unsloth`, `megatron`); costs two fetches of the weights and one send of the gradients over PCIe per step";
    "mb", Int(1, 4096, |c, v| c.mb = Some(v), |c| Some(c.mb())), Text, "ui.mb", Some(|c| c.mb = None),
        Derived, "1 (8 with an RL method: TRL's `per_device_train_batch_size`)", "micro-batch: sequences per GPU per forward and backward pass";
    "gbs", Int(1, 10_000_000, |c, v| c.gbs = Some(v), |c| c.gbs), Text, "ui.gbs", Some(|c| c.gbs = None),
        Derived, "4,194,304 tokens in sequences of `seq` for `pretrain` (2048 at `seq=2048`; Llama 2's global batch of 4M tokens, Touvron et al. 2023 §2.2); none for `finetune`", "global batch: sequences per optimizer step, filled by gradient accumulation (`train_step::micro_batches`); DDP and ZeRO-1 exchange gradients once per step, ZeRO-2/3 every micro-batch; the launch commands carry it (`gradient_accumulation_steps`, Megatron's `--global-batch-size`, torchtitan's `--training.global_batch_size`)";
    "seq", Int(16, 1_048_576, |c, v| c.seq = v, |c| Some(c.seq)), Text, "ui.seq", None,
        Derived, "2048", "training sequence length, tokens";
    "gc", Text(|c, k, v| { c.gc = pick(v, k, Checkpointing::NAMES)?; Ok(()) }, |c, d| name(c.gc.as_str(), d.gc.as_str())), Select, "ui.gc", None,
        Names(|| names(Checkpointing::NAMES)), "full", "gradient (activation) checkpointing; `selective` is PyTorch's op-level policy (torchtitan, torchtune: the attention output and every second matmul saved), Megatron's recomputation of the attention core with `trainer=megatron`";
    "flash", Flag(|c, v| c.flash = v, |c| Some(c.flash)), None, "", None,
        Derived, "1", "memory-efficient attention (no stored score matrix)";
    "zero", Int(0, 3, |c, v| c.zero = u8::try_from(v).ok(), |c| c.zero.map(u32::from)), Select, "ui.zero", Some(|c| c.zero = None),
        Derived, "the planner's choice", "ZeRO stage; 3 = fully sharded (FSDP). Unset (the page's \"Planner's choice\"), every stage the stack runs is planned (`Config::zero_stages`: `torchtune` only 3, its distributed recipes always shard with FSDP2 and have no DDP; `unsloth` only 0; the others 0–3) and per GPU type and offer the plan kept is, in order: it fits, it meets `days`, it leaves memory to spare (the ranking's thin-margin rule: an out-of-memory crash costs more than a slow link), **no tensor parallelism over GPUs joined only by PCIe** where a layout without it fits (tensor parallelism stays inside an NVLink/NVSwitch domain, as Megatron-LM runs it; over PCIe the stacks shard data-parallel replicas instead), the fewest GPUs, the most tokens/s, the least sharding. The stage chosen is in each offer's layout text (\"sharded by ZeRO-3\"), in the JSON's `zero` and in the launch texts. Set explicitly, the stage is kept (`torchtune` with 0 or 1: a notice, planned as 3; 2 is its `fsdp_reshard_after_forward=False`)";
    "tokens", Num(1.0, 1e15, |c, v| c.tokens = Some(v), |c| c.tokens), Text, "ui.tokens", Some(|c| c.tokens = None),
        Derived, "20×params (pre-training), 100 M (fine-tuning)", "training tokens and passes";
    "epochs", Num(0.01, 1000.0, |c, v| c.epochs = v, |c| Some(c.epochs)), Text, "ui.epochs", None,
        Derived, "1", "training tokens and passes";
    "days", Num(0.01, 3650.0, |c, v| c.days = Some(v), |c| c.days), Text, "ui.days", Some(|c| c.days = None),
        Derived, "–", "deadline: training solves for the GPUs needed; an endpoint (or a job without `per_job`) has no work to time: a notice, and the key is left out; a batch job of a stated size (`use=jobs`/`once` with `per_job`, serving and generation) rents as many instances of an offer as it needs to end in time, its time as billed (each instance loads the model and does an equal share; on spot with the `restart` allowance; at most 64 instances, else the offer is late and does not meet it)";
    "use", Text(|c, k, v| { c.usage = Some(pick(v, k, Usage::NAMES)?); Ok(()) }, |c, _| c.usage.map(|x| x.as_str().into())), Select, "ui.usage", None,
        Names(|| names(Usage::NAMES)), "the task's (see Task defaults)", "usage pattern for the bill; an explicit value is never rewritten";
    "hpd", Num(0.0, 24.0, |c, v| c.hpd = v, |c| Some(c.hpd)), Text, "ui.hpd", None,
        Derived, "8", "with `use=hours`: busy hours per day";
    "jobs", Num(0.0, 1e6, |c, v| c.jobs = v, |c| Some(c.jobs)), Text, "ui.jobs", None,
        Derived, "30", "with `use=jobs`: jobs per month, minutes each";
    "jobmin", Num(0.0, 1e6, |c, v| c.jobmin = Some(v), |c| c.jobmin), Text, "ui.jobmin", Some(|c| c.jobmin = None),
        Derived, "60", "with `use=jobs`: jobs per month, minutes each; an image-model fine-tune given `jobmin` and no `train_steps` bills a run of `jobmin` minutes on every offer (given both, `train_steps` wins, with a notice)";
    "train_steps", Int(1, 1_000_000, |c, v| c.train_steps = Some(v), |c| c.train_steps), Text, "ui.train_steps", Some(|c| c.train_steps = None),
        Derived, "the training script's documented example: 500 (LoRA, DreamBooth), 700 (QLoRA)", "image-model fine-tuning: optimizer steps of the run (each `gbs`/(`mb`×GPUs) micro-batches, 4 without `gbs`, as the scripts' examples accumulate); each offer's run time is the steps at its own GPU's time per step (`docs/image-training-time.md`)";
    "per_job", Num(0.001, 1e9, |c, v| c.per_job = Some(v), |c| c.per_job), Text, "ui.per_job.requests", Some(|c| c.per_job = None),
        Derived, "–", "with `use=jobs` or `once` (serving and generation): the work of one job — requests, images, clips or audio seconds; the job's time follows from the plan's speed plus loading the model, and offers rank by `usd_per_job`";
    "spot", Flag(|c, v| c.spot = v, |c| Some(c.spot)), Check, "ui.spot", None,
        Derived, "0", "allow spot prices where the workload tolerates interruption (never for an endpoint)";
    "commit", Text(|c, k, v| { c.commit = pick(v, k, Commit::NAMES)?; Ok(()) }, |c, d| name(c.commit.as_str(), d.commit.as_str())), Select, "ui.commit", None,
        Names(|| names(Commit::NAMES)), "none", "price term: on-demand, or a committed/reserved term where the provider publishes one (the offers table names the term applied)";
    "restart", Num(0.0, 500.0, |c, v| c.restart_pct = v, |c| Some(c.restart_pct)), Text, "ui.restart", None,
        Derived, "10", "extra time lost to restarts on spot; billed, and counted against `days` (a spot plan late with it does not meet the deadline)";
    "store", Num(0.0, 1e7, |c, v| c.store_gb = Some(v), |c| c.store_gb), Text, "ui.store", Some(|c| c.store_gb = None),
        Derived, "weights size", "storage kept per instance: all month, except for `use=once`, which pays it for the run's billed hours";
    "ckpts", Int(0, 10_000, |c, v| c.ckpts = v, |c| Some(c.ckpts)), Text, "ui.ckpts", None,
        Derived, "1", "checkpoints kept";
    "egress", Num(0.0, 1e9, |c, v| c.egress_gb = v, |c| Some(c.egress_gb)), Text, "ui.egress", None,
        Derived, "0", "data out per month";
    "sort", Text(|c, k, v| { c.sort = pick(v, k, Sort::NAMES)?; Ok(()) }, |c, d| name(c.sort.as_str(), d.sort.as_str())), Select, "ui.sort", None,
        Names(|| names(Sort::NAMES)), "cost", "ranking goal";
    "provider", Text(set_providers, |c, _| (!c.providers.is_empty()).then(|| c.providers.join(","))), Text, "ui.provider", None,
        Text_("comma list of provider ids"), "all", "filter";
    "region", Text(set_region, |c, _| c.region.clone()), Text, "ui.region", None,
        Text_("text"), "all", "filter: region contains";
    "mintps", Num(0.0, 1e9, |c, v| c.mintps = Some(v), |c| c.mintps), Text, "ui.mintps", Some(|c| c.mintps = None),
        Derived, "–", "SLA: minimum decode tokens/s per sequence";
    "maxttft", Num(0.001, 3600.0, |c, v| c.maxttft = Some(v), |c| c.maxttft), Text, "ui.maxttft", Some(|c| c.maxttft = None),
        Derived, "–", "SLA: longest acceptable time to first token; offers above it do not meet (`meets`)";
    "rps", Num(0.0001, 1e6, |c, v| c.rps = Some(v), |c| c.rps), Text, "ui.rps", Some(|c| c.rps = None),
        Derived, "–", "serving load as a rate: without `batch`, the concurrency is rate × request latency (Little's law), solved per plan; each copy also prefills the prompts that arrive, so its decode gets the time left (a request's decode takes 1/(1 − share) as long, and the offer's per-sequence speed and latency say so), and a copy whose prompts alone would fill its time gets company: more copies (`plan::load`)";
    "measured", Num(0.01, 100_000.0, |c, v| c.measured = Some(v), |c| c.measured), Text, "ui.measured", Some(|c| c.measured = None),
        Derived, "–", "your own measurement on the pinned GPU (`gpu`, serving): decode tokens/s per sequence at this configuration. The answer compares it with the estimate (the JSON's `measured`) and rescales that GPU type's decode speed by measured ÷ estimate, so its speeds, copies and bills follow; a ratio outside 0.1–10 (total tokens/s given for per sequence?), no `gpu`, or another task: a notice, and it is ignored";
    "measured_ttft", Num(0.001, 3600.0, |c, v| c.measured_ttft = Some(v), |c| c.measured_ttft), Text, "ui.measured_ttft", Some(|c| c.measured_ttft = None),
        Derived, "–", "your own measured time to first token on the pinned GPU (seconds): rescales that GPU type's prefill and first-token time as `measured` does the decode";
    "spec", Text(|c, k, v| { c.spec = pick(v, k, Spec::NAMES)?; Ok(()) }, |c, d| name(c.spec.as_str(), d.spec.as_str())), Text, "ui.spec", Some(|c| c.spec = Spec::Off),
        Names(|| names(Spec::NAMES)), "off", "serving: speculative decoding (`docs/speculative-decoding.md`): `eagle` an EAGLE-3 draft head, `mtp` the model's own multi-token-prediction layers (DeepSeek-V3/R1, Qwen3-Next), `draft` a smaller catalog model (`draft`), `ngram` prompt lookup. Each decode step drafts `spec_tokens` tokens and the model verifies them in one step `spec_tokens`+1 tokens wide; with acceptance rate α a step yields (1 − α^(k+1))/(1 − α) tokens (Leviathan et al. 2023). The draft's weights and KV cache are in the memory, its passes in the step time, so the gain shrinks with the batch and turns into a loss where the wider step is compute-bound. A model without MTP layers, `draft` without a draft model, an engine without the method, or another task: a notice, planned without";
    "spec_tokens", Int(1, 16, |c, v| c.spec_tokens = Some(v), |c| c.spec_tokens), Text, "ui.spec_tokens", Some(|c| c.spec_tokens = None),
        Derived, "eagle 3, mtp 1, draft 5, ngram 5", "with `spec`: tokens drafted per step (the engines' `num_speculative_tokens`, `--speculative-num-steps`, `--draft-max`)";
    "draft", Text(|c, k, v| { c.draft = Some(model_id(v, k)?); Ok(()) }, |c, _| c.draft.clone()), Text, "ui.draft", Some(|c| c.draft = None),
        Text_("model id"), "–", "with `spec=draft`: the draft model, a catalog language model with the target's vocabulary and fewer parameters (else a notice); held in the target's weight format beside it";
    "spec_accept", Num(0.01, 0.99, |c, v| c.spec_accept = Some(v), |c| c.spec_accept), Text, "ui.spec_accept", Some(|c| c.spec_accept = None),
        Derived, "eagle 0.75, mtp 0.875, ngram 0.40; draft: none (a notice)", "with `spec`: the chance each drafted token is accepted (vLLM's per-position acceptance, or solve the mean acceptance length it logs); defaults from the fit sources in `docs/speculative-decoding.md`";
    "maxusd", Num(0.0, 1e12, |c, v| c.maxusd = Some(v), |c| c.maxusd), Text, "ui.maxusd", Some(|c| c.maxusd = None),
        Derived, "–", "budget filter";
    "price", Text(set_prices, |c, _| prices_text(c)), None, "", None,
        Text_("`offerid:amount,…`"), "–", "your own hourly prices for offers, each in the offer's own currency (yuan for an offer priced in CNY), all-in: no host CPU or memory is added to them";
    "cat", Text(|c, k, v| { c.cat = Some(Date::parse(v).ok_or_else(|| Notice::bad(k, v, "YYYY-MM-DD"))?); Ok(()) }, |c, _| c.cat.map(|d| d.to_string())), None, "", None,
        Text_("`YYYY-MM-DD`"), "–", "catalog date the link was made with (written by the page)";
    "cur", Text(|c, k, v| { c.cur = Some(pick(v, k, Currency::NAMES)?); Ok(()) }, |c, _| c.cur.map(|x| x.as_str().into())), Select, "ui.cur", Some(|c| c.cur = None),
        Names(|| names(Currency::NAMES)), "`cny` with `lang=zh`, else `usd`", "display currency of the page and the CLI's text report; prices in another currency are converted at the catalog's dated rate (`static/rates.csv`) and marked `*` with the rate and its date. The JSON's `usd_*` fields stay in US dollars";
    "lang", Text(|c, k, v| { c.lang = Some(pick(v, k, Lang::NAMES)?); Ok(()) }, |c, _| c.lang.map(|x| x.as_str().into())), None, "", None,
        Names(|| names(Lang::NAMES)), "browser language", "page language (the page fetches its Chinese texts, `messages-zh-<stamp>.txt`, when it is in Chinese)";
    "embed", Flag(|c, v| c.embed = v, |c| Some(c.embed)), None, "", None,
        Derived, "0", "compact embeddable view that posts its height to the parent";
    "theme", Text(|c, k, v| { c.theme = pick(v, k, Theme::NAMES)?; Ok(()) }, |c, d| name(c.theme.as_str(), d.theme.as_str())), Select, "ui.theme", None,
        Names(|| names(Theme::NAMES)), "auto", "page theme";
}

/// The registry entry of `name`.
pub fn find(name: &str) -> Option<&'static Key> {
    REGISTRY.iter().find(|k| k.name == name)
}

/// The keys' names, in link order. Evaluated at compile time (`KEYS`):
/// the loop's bounds keep both indices in range, and an index out of range
/// there would be a build error, not a panic.
#[allow(clippy::indexing_slicing)]
pub const fn names_in_order<const N: usize>() -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < N && i < REGISTRY.len() {
        out[i] = REGISTRY[i].name;
        i += 1;
    }
    out
}

/// An enum's value where it differs from the default.
fn name(v: &'static str, default: &'static str) -> Option<String> {
    (v != default).then(|| v.to_string())
}

#[cfg(not(target_arch = "wasm32"))]
fn names<T>(table: &'static [(&'static str, T)]) -> Vec<&'static str> {
    table.iter().map(|(n, _)| *n).collect()
}

#[cfg(not(target_arch = "wasm32"))]
fn weight_format_ids() -> Vec<&'static str> {
    precision::weight_formats().iter().map(|f| f.id).collect()
}

fn batch_text(b: Batch) -> String {
    match b {
        Batch::Max => "max".into(),
        Batch::N(n) => n.to_string(),
    }
}

/// `method`: a supervised method (and no RL), or an RL method keeping the adapter.
fn set_method(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    if let Ok(rl) = pick(value, key, Rl::NAMES) {
        c.rl = Some(rl);
        return Ok(());
    }
    c.method = pick(value, key, Method::NAMES)
        .map_err(|_| Notice::bad(key, value, "full | lora | qlora | grpo | ppo | dpo"))?;
    c.rl = None;
    Ok(())
}

fn set_w(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    let Some(id) = weight_format_id(value) else {
        let ids: Vec<&str> = precision::weight_formats().iter().map(|f| f.id).collect();
        return Err(Notice::bad(key, value, &ids.join(" | ")));
    };
    c.w = Some(id.to_string());
    Ok(())
}

fn set_kv(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    if precision::kv_bytes(value).is_none() || value == "fp32" {
        return Err(Notice::bad(key, value, &precision::KV_FORMATS.join(" | ")));
    }
    c.kv = value.to_string();
    Ok(())
}

fn set_res(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    let parsed =
        value.split_once('x').and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)));
    match parsed {
        Some((w, h)) if (64..=8192).contains(&w) && (64..=8192).contains(&h) => c.res = Some((w, h)),
        _ => return Err(Notice::bad_msg(key, value, Msg::new("expect.res"))),
    }
    Ok(())
}

fn set_providers(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    let list: Result<Vec<String>, Notice> =
        value.split(',').filter(|s| !s.is_empty()).map(|p| id(p, key)).collect();
    c.providers = list?;
    Ok(())
}

fn set_region(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    if value.is_empty() || value.len() > 64 || value.chars().any(char::is_control) {
        return Err(Notice::bad_msg(key, value, Msg::new("expect.region")));
    }
    c.region = Some(value.to_string());
    Ok(())
}

fn set_prices(c: &mut Config, key: &str, value: &str) -> Result<(), Notice> {
    let mut prices = Vec::new();
    for part in value.split(',').filter(|s| !s.is_empty()) {
        let (offer, usd) = part.rsplit_once(':').ok_or_else(|| Notice::bad(key, part, "offerid:amount"))?;
        let offer = id(offer, key)?;
        let usd = num(usd, key, 0.0001, 1e6)?;
        prices.push((offer, usd));
    }
    c.prices = prices;
    Ok(())
}

fn prices_text(c: &Config) -> Option<String> {
    (!c.prices.is_empty())
        .then(|| c.prices.iter().map(|(o, p)| format!("{o}:{}", fmt_num(*p))).collect::<Vec<_>>().join(","))
}
