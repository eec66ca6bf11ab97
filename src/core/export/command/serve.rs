//! Serving engines' own server commands: vLLM, SGLang, llama.cpp and
//! TensorRT-LLM with the layout, context, sequences per copy, KV-cache
//! type and memory fraction the plan assumed.

use super::super::super::config::Engine;
use super::super::super::engines::{self, LaunchRow};
use super::super::super::estimate::engine_rules;
use super::super::checkpoint::{separate_checkpoint, yarn_for};
use super::super::launch::Launch;
use super::parts::Command;

pub(super) fn serve(l: &Launch, port: u32, c: &mut Command) {
    model_note(l, c);
    if l.replicas_per_node() > 1 {
        // The copies the load asked keeps busy (the guidance's `g.note.idle_copies`).
        let s = &l.offer.speeds;
        let busy = s
            .decode_tokens_per_s_per_seq()
            .zip(s.decode_tokens_per_s_total())
            .map(|(per, total)| (total / (per * l.offer.batch.max(1.0)) - 1e-6).ceil().max(1.0));
        match busy.filter(|b| *b < f64::from(l.offer.replicas)) {
            Some(b) => c.note(format!(
                "the plan runs {} copies per instance; the load asked keeps {b} of its {} busy, the others \
                    are spare capacity paid either way: this is one copy; start each on its own GPUs and \
                        port",
                l.replicas_per_node(),
                l.offer.replicas
            )),
            None => c.note(format!(
                "the plan runs {} copies per instance: this is one copy; start each on \
                its own GPUs and port",
                l.replicas_per_node()
            )),
        }
    }
    let multi_node = l.nodes_per_replica() > 1;
    if multi_node && l.cfg.engine == Engine::Vllm {
        // vLLM runs one copy over several nodes on a Ray cluster only
        // (docs.vllm.ai serving/parallelism_scaling.md, read 2026-12-02;
        // examples/online_serving/multi-node-serving.sh): the head node
        // serves, the others join it.
        c.note(format!(
            "one copy spans {} instances (pipeline stages across nodes): run `ray start --head --port=6379` \
                here and `ray start --address=<this node's IP>:6379` on the others, then this",
            l.nodes_per_replica()
        ));
    } else if multi_node {
        c.note(format!(
            "one copy spans {} instances (pipeline stages across nodes): start the engine's multi-node \
                runtime on them first (not scripted here)",
            l.nodes_per_replica()
        ));
    }
    let (tp, pp, len, seqs) = (l.offer.tp.max(1), l.offer.pp.max(1), l.max_model_len(), l.seqs_per_replica());
    // Data-parallel attention ranks of `tp` GPUs each, and experts dealt out whole (`engine_rules::Layout`).
    let (dp, ep) = (l.offer.dp.max(1), l.offer.ep);
    let kv = l.answer.kv_format.as_str();
    let w = l.answer.weight_format.as_str();
    let model = l.model_arg();
    let rope = rope_scaling(l, len, c);
    // The engine table's flags: tensor and pipeline parallel, data-parallel attention, expert parallel,
    // context, sequences.
    let row = engines::launch(l.cfg.engine);
    let (tp_flag, pp_flag) = row.parallel_flags.unwrap_or_default();
    let (dp_flag, ep_flag) =
        (row.dp_attention_flag.unwrap_or_default(), row.expert_parallel_flag.unwrap_or_default());
    let (ctx_flag, seqs_flag) = (row.context_flag.map_or("", |f| f.value), row.seqs_flag.unwrap_or_default());
    match l.cfg.engine {
        Engine::Vllm => {
            c.words(&["vllm", "serve", &model]);
            c.flag(tp_flag, &tp);
            c.flag(pp_flag, &pp);
            // Attention data parallel over `dp` ranks of `tp` GPUs, experts over all
            // of them ("EP_SIZE = TP_SIZE × DP_SIZE", docs/serving/expert_parallel_deployment.md).
            if dp > 1 {
                c.flag(dp_flag, &dp);
            }
            if ep {
                c.words(&[ep_flag]);
            }
            c.flag(ctx_flag, &len);
            // "--max-num-seqs applies per DP rank" (docs/serving/data_parallel_deployment.md).
            c.flag(seqs_flag, &seqs.div_ceil(dp));
            fraction(row, c);
            match kv {
                "bf16" | "fp16" => c.flag("--kv-cache-dtype", &"auto"),
                "fp8" => c.flag("--kv-cache-dtype", &"fp8"),
                other => c.note(format!(
                    "vLLM has no {other} KV-cache type in the checked versions: the \
                    plan's {other} KV cache has no flag"
                )),
            }
            quantization(c, w, "vLLM");
            if let Some(json) = &rope {
                // vLLM v0.11: `--hf-overrides` (a JSON dict merged into the
                // model's config) beside `--rope-scaling`, both ModelConfig
                // arguments (vllm-project/vllm@99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b
                // vllm/engine/arg_utils.py, a v0.11-series commit).
                c.flag("--hf-overrides", &format!("'{json}'"));
            }
            if multi_node {
                c.flag("--distributed-executor-backend", &"ray");
            }
            super::spec::spec_flags(l, c);
            c.flag("--port", &port);
        }
        Engine::Sglang => {
            c.words(&["python", "-m", "sglang.launch_server", "--model-path", &model]);
            // SGLang's `--tp-size` is the whole group; `--dp-size` with
            // `--enable-dp-attention` splits its attention into data-parallel
            // ranks ("tensor parallelism for FFN", server_args.py), `--ep-size`
            // deals the experts out over it.
            c.flag(tp_flag, &(tp * dp));
            if dp > 1 {
                c.flag("--dp-size", &dp);
                c.words(&[dp_flag]);
            }
            if ep {
                c.flag(ep_flag, &(tp * dp));
            }
            c.flag(pp_flag, &pp);
            c.flag(ctx_flag, &len);
            // The whole server's limit, split over the data-parallel ranks (rounded to a multiple of them).
            c.flag(seqs_flag, &(seqs.div_ceil(dp) * dp));
            fraction(row, c);
            match kv {
                "bf16" | "fp16" => c.flag("--kv-cache-dtype", &"auto"),
                "fp8" => c.flag("--kv-cache-dtype", &"fp8_e4m3"),
                other => c.note(format!(
                    "SGLang has no {other} KV-cache type in the checked source: the \
                    plan's {other} KV cache has no flag"
                )),
            }
            quantization(c, w, "SGLang");
            if let Some(json) = &rope {
                // ServerArgs.json_model_override_args: a JSON dict applied to
                // the model's config (sgl-project/sglang@469c63e54e7d94591617ef9590c6aa26d54dc1bb
                // python/sglang/srt/server_args.py).
                c.flag("--json-model-override-args", &format!("'{json}'"));
            }
            super::spec::spec_flags(l, c);
            c.flag("--port", &port);
        }
        Engine::LlamaCpp => {
            if engines::row(l.cfg.engine).gguf_only.value && !w.starts_with("gguf") {
                c.note(format!(
                    "llama.cpp loads GGUF files only: MODEL must be a GGUF conversion (the plan assumed {w})"
                ));
            }
            c.note(format!("-c is the context of all {seqs} slots together: {len} tokens per slot"));
            c.words(&["llama-server", "-m", &model]);
            // Every layer on the GPU(s): the plan keeps the whole model in GPU memory.
            c.flag("-ngl", &999);
            c.flag(ctx_flag, &(u64::from(len) * u64::from(seqs)));
            c.flag(seqs_flag, &seqs);
            match kv {
                "bf16" | "fp16" | "q8_0" | "q4_0" => {
                    let t = if kv == "fp16" { "f16" } else { kv };
                    c.flag("-ctk", &t);
                    c.flag("-ctv", &t);
                }
                other => c.note(format!(
                    "llama.cpp has no {other} KV-cache type: the plan's {other} KV cache has no flag"
                )),
            }
            c.flag("-sm", &if pp > 1 { "layer" } else { "none" });
            if let Some((factor, original)) = l.checkpoint.as_ref().and_then(|k| yarn_for(k, len)) {
                // llama.cpp's own YaRN flags (tools/server/README.md:
                // --rope-scaling {none,linear,yarn}, --rope-scale N, --yarn-orig-ctx N).
                c.flag("--rope-scaling", &"yarn");
                c.flag("--rope-scale", &factor);
                c.flag("--yarn-orig-ctx", &original);
            }
            c.note("llama.cpp takes no memory fraction: it allocates exactly the context it is given");
            super::spec::spec_flags(l, c);
            c.flag("--port", &port);
        }
        Engine::TrtLlm => {
            c.words(&["trtllm-serve", &model]);
            c.flag(tp_flag, &tp);
            c.flag(pp_flag, &pp);
            c.flag(ctx_flag, &len);
            c.flag(seqs_flag, &seqs);
            fraction(row, c);
            if !matches!(kv, "bf16" | "fp16") {
                c.note(format!(
                    "trtllm-serve has no KV-cache type flag: the plan's {kv} KV cache is set in \
                    an --extra_llm_api_options file"
                ));
            }
            if !matches!(w, "bf16" | "fp16") {
                c.note(format!(
                    "trtllm-serve has no quantization flag: use a checkpoint already quantized to {w}"
                ));
            }
            if let Some(json) = &rope {
                c.note(format!(
                    "trtllm-serve has no rope-scaling flag: merge {json} into MODEL's config.json"
                ));
            }
            super::spec::spec_flags(l, c);
            c.flag("--port", &port);
        }
        Engine::Hf => {
            c.note(
                "transformers has no standard server command in this export: load the model in your own \
                server with",
            );
            c.note(format!(
                "device_map=\"auto\" over {} GPU{}, up to {seqs} sequences of {len} tokens, as the plan \
                    assumed",
                tp * pp,
                super::parts::plural(tp * pp)
            ));
            super::spec::spec_flags(l, c);
        }
    }
}

/// The memory share the plan assumed, as the engine's flag (the engine table's reservation).
fn fraction(row: &LaunchRow, c: &mut Command) {
    if let Some((f, flag)) = engines::row(row.engine).reservation.value.fraction().zip(row.memory_flag) {
        c.flag(flag, &format!("{f}"));
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
            c.note(format!(
                "{engine} reads the {other} quantization from the checkpoint's own config: no flag"
            ));
            return;
        }
    };
    c.flag("--quantization", &q);
}

/// What `$MODEL` is: the catalog's repository (its default), a conversion
/// of it the plan's weights need, or whatever the user names.
fn model_note(l: &Launch, c: &mut Command) {
    let (name, w) = (&l.answer.model_name, l.answer.weight_format.as_str());
    let repo = l.checkpoint.as_ref().map(|k| k.repo.as_str()).filter(|r| !r.is_empty());
    match (l.served_repo(), repo) {
        (Some(r), _) => {
            c.note(format!("MODEL: {r} unless set (the catalog's repository of {name}, huggingface.co/{r})"))
        }
        (None, Some(r)) if engines::row(l.cfg.engine).gguf_only.value || w.starts_with("gguf") => {
            c.note(format!(
                "MODEL must point at a GGUF file converted from {r} (the catalog's repository holds no GGUF)"
            ))
        }
        (None, Some(r)) if separate_checkpoint(w) => {
            let kind = match w {
                "int4-awq" => "an AWQ",
                "int4-gptq" => "a GPTQ",
                _ => "a",
            };
            c.note(format!(
                "MODEL must point at {kind} ({w}) conversion of {r}: the catalog's repository is the bf16 \
                    checkpoint, which this launch cannot serve as {w}"
            ));
            // The plan's split loads only with the FFN padded as Qwen's own releases pad it
            // (`engine_rules::PADDED_GROUP_FFN`).
            let split = l.offer.tp.max(1) * l.offer.dp.max(1);
            if let Some(f) = engine_rules::padded_ffn(&l.answer.model)
                .filter(|_| split > 1 && matches!(w, "int4-awq" | "int4-gptq"))
            {
                c.note(format!(
                    "the conversion must have its FFN padded to {f} (as Qwen pads its 72B AWQ/GPTQ releases, \
                        QwenLM/Qwen3#698): an unpadded one does not load split {split} ways \
                            (vllm-project/vllm#13640)"
                ));
            }
        }
        _ => {
            let why = l
                .checkpoint
                .as_ref()
                .map(|k| k.why_none.clone())
                .filter(|w| !w.is_empty())
                .unwrap_or_else(|| "not a catalog model".to_string());
            c.note(format!(
                "MODEL: the Hugging Face repository or local path of {name} in {w} weights (no \
                repository in the catalog: {why})"
            ))
        }
    }
}

/// The YaRN override a context of `len` tokens needs past the served
/// checkpoint's own context, as the model card writes it (Qwen2.5 Instruct:
/// `"rope_scaling": {"factor": 4.0, "original_max_position_embeddings":
/// 32768, "type": "yarn"}`), one shell word; what is beyond it is said.
fn rope_scaling(l: &Launch, len: u32, c: &mut Command) -> Option<String> {
    let k = l.checkpoint.as_ref()?;
    let ctx = k.context?;
    if len <= ctx {
        return None;
    }
    let Some((factor, original)) = yarn_for(k, len) else {
        c.note(format!("the plan's {len} tokens per request are beyond {}'s own context of {ctx}", k.repo));
        return None;
    };
    let scaled = factor * f64::from(original);
    if f64::from(len) > scaled {
        c.note(format!(
            "the plan's {len} tokens per request are beyond even the YaRN-scaled context of {scaled}"
        ));
    }
    Some(format!(
        "{{\"rope_scaling\":{{\"type\":\"yarn\",\"factor\":{factor:?},\
         \"original_max_position_embeddings\":{original}}}}}"
    ))
}
