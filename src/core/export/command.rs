//! The engine command of one offer's plan: serving engines' own server
//! commands with the layout and limits the plan assumed; `accelerate
//! launch` for training; for image, video and audio generation a plain
//! statement that no standard server command exists. Every flag written
//! here is in the flag list stored for that engine under
//! `tests/data/export/` with its source, and a test checks each command
//! against it. A value the plan assumes but the engine has no flag for
//! becomes a comment line, never an invented flag.

use super::super::config::{Checkpointing, Engine, Method, Task, Trainer};
use super::super::estimate::engine::memory_fraction;
use super::{base_port, engine_name, Launch};

/// One copy's command: comment lines, then the program and its arguments
/// (`argv` empty when there is no command to run).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Command {
    pub notes: Vec<String>,
    pub argv: Vec<String>,
}

impl Command {
    /// Comment lines, then the command on one line.
    pub fn render(&self) -> String {
        let mut out: String = self.notes.iter().map(|n| format!("# {n}\n")).collect();
        if !self.argv.is_empty() {
            out.push_str(&self.argv.join(" "));
            out.push('\n');
        }
        out
    }

    fn flag(&mut self, name: &str, value: impl ToString) {
        self.argv.push(name.to_string());
        self.argv.push(value.to_string());
    }

    fn words(&mut self, words: &[&str]) {
        self.argv.extend(words.iter().map(|w| (*w).to_string()));
    }

    fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }
}

/// The command of one copy of the plan, listening on the engine's base port.
pub fn engine(l: &Launch) -> Command {
    engine_on(l, base_port(l.cfg.engine))
}

/// The command of one copy of the plan, listening on `port` (serving).
pub fn engine_on(l: &Launch, port: u32) -> Command {
    let mut c = Command::default();
    if l.media_training {
        // The support matrix's version is transformers'; diffusers has no row.
        c.note(format!("diffusers + accelerate — {} on {} × {}", l.answer.model_name, l.offer.gpus, l.offer.gpu));
    } else {
        let name = engine_name(l.cfg.task, l.cfg.engine);
        c.note(format!("{name} {} — {} on {} × {}", l.engine_version, l.answer.model_name, l.offer.gpus, l.offer.gpu));
    }
    match l.cfg.task {
        Task::Serve => serve(l, port, &mut c),
        Task::Finetune | Task::Pretrain => train(l, &mut c),
        Task::Generate => {
            c.note("no standard server command exists for image, video or audio generation: run the model's own pipeline");
            c.note(format!("(e.g. a diffusers script) with {} item(s) per batch, as the plan assumed", l.seqs_per_replica()));
        }
    }
    c
}

fn serve(l: &Launch, port: u32, c: &mut Command) {
    c.note(format!(
        "MODEL: the Hugging Face repository or local path of {} in {} weights (the catalog has no repository id)",
        l.answer.model_name, l.answer.weight_format
    ));
    if l.replicas_per_node() > 1 {
        c.note(format!("the plan runs {} copies per instance: this is one copy; start each on its own GPUs and port", l.replicas_per_node()));
    }
    if l.nodes_per_replica() > 1 {
        c.note(format!(
            "one copy spans {} instances (pipeline stages across nodes): start the engine's multi-node runtime on them first (not scripted here)",
            l.nodes_per_replica()
        ));
    }
    let (tp, pp, len, seqs) = (l.offer.tp.max(1), l.offer.pp.max(1), l.max_model_len(), l.seqs_per_replica());
    let kv = l.answer.kv_format.as_str();
    let w = l.answer.weight_format.as_str();
    match l.cfg.engine {
        Engine::Vllm => {
            c.words(&["vllm", "serve", "$MODEL"]);
            c.flag("--tensor-parallel-size", tp);
            c.flag("--pipeline-parallel-size", pp);
            c.flag("--max-model-len", len);
            c.flag("--max-num-seqs", seqs);
            fraction(l, c, "--gpu-memory-utilization");
            match kv {
                "bf16" | "fp16" => c.flag("--kv-cache-dtype", "auto"),
                "fp8" => c.flag("--kv-cache-dtype", "fp8"),
                other => c.note(format!("vLLM has no {other} KV-cache type in the checked versions: the plan's {other} KV cache has no flag")),
            }
            quantization(c, w, "vLLM");
            c.flag("--port", port);
        }
        Engine::Sglang => {
            c.words(&["python", "-m", "sglang.launch_server", "--model-path", "$MODEL"]);
            c.flag("--tp-size", tp);
            c.flag("--pp-size", pp);
            c.flag("--context-length", len);
            c.flag("--max-running-requests", seqs);
            fraction(l, c, "--mem-fraction-static");
            match kv {
                "bf16" | "fp16" => c.flag("--kv-cache-dtype", "auto"),
                "fp8" => c.flag("--kv-cache-dtype", "fp8_e4m3"),
                other => c.note(format!("SGLang has no {other} KV-cache type in the checked source: the plan's {other} KV cache has no flag")),
            }
            quantization(c, w, "SGLang");
            c.flag("--port", port);
        }
        Engine::LlamaCpp => {
            if !w.starts_with("gguf") {
                c.note(format!("llama.cpp loads GGUF files only: MODEL must be a GGUF conversion (the plan assumed {w})"));
            }
            c.note(format!("-c is the context of all {seqs} slots together: {len} tokens per slot"));
            c.words(&["llama-server", "-m", "$MODEL"]);
            // Every layer on the GPU(s): the plan keeps the whole model in GPU memory.
            c.flag("-ngl", 999);
            c.flag("-c", u64::from(len) * u64::from(seqs));
            c.flag("-np", seqs);
            match kv {
                "bf16" | "fp16" | "q8_0" | "q4_0" => {
                    let t = if kv == "fp16" { "f16" } else { kv };
                    c.flag("-ctk", t);
                    c.flag("-ctv", t);
                }
                other => c.note(format!("llama.cpp has no {other} KV-cache type: the plan's {other} KV cache has no flag")),
            }
            c.flag("-sm", if pp > 1 { "layer" } else { "none" });
            c.note("llama.cpp takes no memory fraction: it allocates exactly the context it is given");
            c.flag("--port", port);
        }
        Engine::TrtLlm => {
            c.words(&["trtllm-serve", "$MODEL"]);
            c.flag("--tp_size", tp);
            c.flag("--pp_size", pp);
            c.flag("--max_seq_len", len);
            c.flag("--max_batch_size", seqs);
            fraction(l, c, "--kv_cache_free_gpu_memory_fraction");
            if !matches!(kv, "bf16" | "fp16") {
                c.note(format!("trtllm-serve has no KV-cache type flag: the plan's {kv} KV cache is set in an --extra_llm_api_options file"));
            }
            if !matches!(w, "bf16" | "fp16") {
                c.note(format!("trtllm-serve has no quantization flag: use a checkpoint already quantized to {w}"));
            }
            c.flag("--port", port);
        }
        Engine::Hf => {
            c.note("transformers has no standard server command in this export: load the model in your own server with");
            c.note(format!("device_map=\"auto\" over {} GPU(s), up to {seqs} sequences of {len} tokens, as the plan assumed", tp * pp));
        }
    }
}

/// The memory share the plan assumed, as the engine's flag.
fn fraction(l: &Launch, c: &mut Command, flag: &str) {
    if let Some(f) = memory_fraction(l.cfg.engine) {
        c.flag(flag, format!("{f}"));
    }
}

/// The weight format as a `--quantization` value where the engine
/// quantizes or loads it by name; the checkpoint decides otherwise.
fn quantization(c: &mut Command, w: &str, engine: &str) {
    let q = match w {
        "bf16" | "fp16" | "fp32" => return,
        "fp8" => "fp8",
        "int4-awq" => "awq",
        "int4-gptq" => "gptq",
        "int8-bnb" | "nf4" => "bitsandbytes",
        _ if w.starts_with("gguf") => "gguf",
        other => {
            c.note(format!("{engine} reads the {other} quantization from the checkpoint's own config: no flag"));
            return;
        }
    };
    c.flag("--quantization", q);
}

/// How a training plan that splits layers runs outside Megatron-LM:
/// (FSDP2 × TP under full sharding, DeepSpeed AutoTP otherwise).
fn splits(l: &Launch) -> (bool, bool) {
    let split = l.offer.tp > 1 && l.offer.pp <= 1 && l.cfg.trainer != Trainer::Megatron;
    let fsdp_tp = split && l.cfg.zero >= 3;
    (fsdp_tp, split && !fsdp_tp)
}

/// The launch runs under DeepSpeed: a ZeRO stage, or AutoTP's tensor parallelism.
pub fn uses_deepspeed(l: &Launch) -> bool {
    let (fsdp_tp, autotp) = splits(l);
    (l.cfg.zero > 0 || autotp) && !fsdp_tp
}

fn train(l: &Launch, c: &mut Command) {
    let o = l.offer;
    let procs = o.gpus.max(1) * o.instances.max(1);
    let cfg = &l.cfg;
    c.note("train.py: your training script; accelerate has no flags for the values below, so give them to the script:");
    let gc = match cfg.gc {
        Checkpointing::None => "off",
        Checkpointing::Selective => "selective",
        Checkpointing::Full => "full",
    };
    if l.media_training {
        let (w, h) = cfg.resolution();
        // Image-model fine-tuning runs a diffusers training script
        // (examples/dreambooth, examples/text_to_image) under the same launcher.
        c.note(format!(
            "(diffusers' training scripts, e.g. its examples/dreambooth): resolution {w}×{h}, micro-batch {} per GPU, gradient checkpointing {gc}",
            cfg.mb.max(1)
        ));
    } else {
        c.note(format!("micro-batch {} per GPU, sequence length {}, gradient checkpointing {gc}", cfg.mb.max(1), cfg.seq));
    }
    if cfg.method != Method::Full && cfg.task == Task::Finetune {
        c.note(format!("{} with rank {}, targets={}", cfg.method, cfg.rank, cfg.targets));
    }
    // The layouts a stack can run (estimate::stack::parallelism): pipeline
    // stages only under Megatron-LM or DeepSpeed; tensor parallelism also
    // through DeepSpeed's AutoTP (ZeRO 0-2) or, fully sharded, accelerate's
    // FSDP2 × TP device mesh.
    let (fsdp_tp, autotp) = splits(l);
    if autotp {
        c.note(format!(
            "the plan splits each layer over {} GPUs: set \"tensor_parallel\": {{\"autotp_size\": {}}} in the DeepSpeed config (AutoTP training, DeepSpeed >= 0.16.4, ZeRO stage 0-2)",
            o.tp, o.tp
        ));
    } else if fsdp_tp {
        c.note(format!(
            "the plan shards every state over {} data-parallel ranks and splits each layer over {} GPUs: in train.py, Accelerator(parallelism_config=ParallelismConfig(dp_shard_size={}, tp_size={})) with FSDP2 (accelerate >= 1.10); DeepSpeed's AutoTP does not combine with ZeRO-3",
            o.dp, o.tp, o.dp, o.tp
        ));
    } else if o.tp > 1 || o.pp > 1 {
        c.note(format!(
            "the plan is tensor-parallel {} × pipeline {}: Megatron-LM's --tensor-model-parallel-size {} --pipeline-model-parallel-size {}; accelerate launch has no such flags",
            o.tp, o.pp, o.tp, o.pp
        ));
    }
    c.words(&["accelerate", "launch"]);
    c.flag("--num_processes", procs);
    c.flag("--num_machines", o.instances.max(1));
    if o.instances > 1 {
        c.note("SKYPILOT_NODE_RANK and HEAD_IP come from the SkyPilot task (or set them yourself)");
        c.flag("--machine_rank", "$SKYPILOT_NODE_RANK");
        c.flag("--main_process_ip", "$HEAD_IP");
        c.flag("--main_process_port", 29500);
    }
    match l.answer.weight_format.as_str() {
        "fp16" => c.flag("--mixed_precision", "fp16"),
        "bf16" | "nf4" => c.flag("--mixed_precision", "bf16"),
        _ => {}
    }
    if uses_deepspeed(l) {
        c.words(&["--use_deepspeed"]);
        c.flag("--zero_stage", cfg.zero);
    } else if procs > 1 {
        c.words(&["--multi_gpu"]);
    }
    c.words(&["train.py"]);
}
