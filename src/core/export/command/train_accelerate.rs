//! `accelerate launch` for the Hugging Face Trainer (`trainer=hf`), for
//! `trainer=deepspeed` (the same launcher with `--use_deepspeed`) and for
//! image-model fine-tuning with diffusers' training scripts. Flags:
//! `tests/data/export/accelerate.flags`. Under DeepSpeed the launch also
//! carries the plan's CPU offload (`--offload_optimizer_device`,
//! `--offload_param_device`) and gradient accumulation
//! (`--gradient_accumulation_steps`): accelerate's DeepSpeed arguments,
//! huggingface/accelerate@00785cd9fc2e6a153c4951f96208590b1ed4e166
//! src/accelerate/commands/launch.py.

use super::super::super::config::{Method, Task, Trainer};
use super::super::launch::Launch;
use super::parts::{accumulation, gc_word, Command};

/// How a training plan that splits layers runs outside Megatron-LM:
/// (FSDP2 × TP under full sharding, DeepSpeed AutoTP otherwise).
pub(super) fn splits(l: &Launch) -> (bool, bool) {
    let split = l.offer.tp > 1 && l.offer.pp <= 1 && l.cfg.trainer != Trainer::Megatron;
    let fsdp_tp = split && l.cfg.zero_stage() >= 3;
    (fsdp_tp, split && !fsdp_tp)
}

/// The launch runs under DeepSpeed: a ZeRO stage, or AutoTP's tensor parallelism.
pub fn uses_deepspeed(l: &Launch) -> bool {
    let (fsdp_tp, autotp) = splits(l);
    ((l.cfg.zero_stage() > 0 || autotp) && !fsdp_tp) || super::train_deepspeed::pipelined(l)
}

pub(super) fn train(l: &Launch, c: &mut Command) {
    let o = l.offer;
    let procs = o.gpus.max(1) * o.instances.max(1);
    let cfg = &l.cfg;
    c.note(
        "train.py: your training script; accelerate has no flags for the values below, so give them to \
        the script:",
    );
    let gc = gc_word(cfg.gc);
    if l.media_training {
        let (w, h) = cfg.resolution();
        // Image-model fine-tuning runs a diffusers training script
        // (examples/dreambooth, examples/text_to_image) under the same launcher.
        c.note(format!(
            "(diffusers' training scripts, e.g. its examples/dreambooth): resolution {w}×{h}, micro-batch {} \
                per GPU, gradient checkpointing {gc}",
            cfg.mb().max(1)
        ));
    } else if uses_deepspeed(l) {
        // Under DeepSpeed the accumulation is a launch flag (below).
        c.note(format!(
            "micro-batch {} per GPU, sequence length {}, gradient checkpointing {gc}",
            cfg.mb().max(1),
            cfg.seq
        ));
    } else {
        c.note(format!(
            "micro-batch {} per GPU, gradient accumulation {} steps, sequence length {}, gradient \
                checkpointing {gc}",
            cfg.mb().max(1),
            accumulation(l),
            cfg.seq
        ));
    }
    if let Some(rl) = cfg.rl.filter(|_| cfg.task == Task::Finetune && !l.media_training) {
        c.note(rl_note(l, rl));
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
            "the plan splits each layer over {} GPUs: set \"tensor_parallel\": {{\"autotp_size\": {}}} in \
                the DeepSpeed config (AutoTP training, DeepSpeed >= 0.16.4, ZeRO stage 0-2)",
            o.tp, o.tp
        ));
    } else if fsdp_tp {
        c.note(format!(
            "the plan shards every state over {} data-parallel ranks and splits each layer over {} GPUs: in \
                train.py, Accelerator(parallelism_config=ParallelismConfig(dp_shard_size={}, tp_size={})) \
                    with FSDP2 (accelerate >= 1.10); DeepSpeed's AutoTP does not combine with ZeRO-3",
            o.dp, o.tp, o.dp, o.tp
        ));
    } else if o.tp > 1 || o.pp > 1 {
        c.note(format!(
            "the plan is tensor-parallel {} × pipeline {}: Megatron-LM's --tensor-model-parallel-size {} \
                --pipeline-model-parallel-size {}; accelerate launch has no such flags",
            o.tp, o.pp, o.tp, o.pp
        ));
    }
    c.words(&["accelerate", "launch"]);
    c.flag("--num_processes", &procs);
    c.flag("--num_machines", &o.instances.max(1));
    if o.instances > 1 {
        c.note("SKYPILOT_NODE_RANK and HEAD_IP come from the SkyPilot task (or set them yourself)");
        c.flag("--machine_rank", &"$SKYPILOT_NODE_RANK");
        c.flag("--main_process_ip", &"$HEAD_IP");
        c.flag("--main_process_port", &29500);
    }
    match l.answer.weight_format.as_str() {
        "fp16" => c.flag("--mixed_precision", &"fp16"),
        // A card without bf16 (Volta, Turing) trains in fp16 mixed precision.
        "bf16" | "nf4" => c.flag("--mixed_precision", &if l.bf16 { "bf16" } else { "fp16" }),
        _ => {}
    }
    if uses_deepspeed(l) {
        c.words(&["--use_deepspeed"]);
        c.flag("--zero_stage", &cfg.zero_stage());
        // The states the plan keeps in CPU memory (ZeRO-Offload: optimizer
        // states from stage 1; ZeRO-Infinity: parameters at stage 3, which
        // `resolve` sets for param_offload). Without these flags the launch
        // keeps them on the GPU and runs out of the memory the plan counted.
        if cfg.optim_offload && cfg.zero_stage() >= 1 {
            c.flag("--offload_optimizer_device", &"cpu");
        }
        if cfg.param_offload && cfg.zero_stage() >= 3 {
            c.flag("--offload_param_device", &"cpu");
        }
        if !l.media_training {
            c.flag("--gradient_accumulation_steps", &accumulation(l));
        }
    } else if procs > 1 {
        c.words(&["--multi_gpu"]);
    }
    if (cfg.optim_offload || cfg.param_offload) && !uses_deepspeed(l) {
        if fsdp_tp {
            c.note(
                "the plan keeps states in CPU memory: FSDP2's CPU offload (torch's CPUOffloadPolicy; in \
                accelerate's FSDP plugin cpu_offload / fsdp_offload_params: true) moves parameters, \
                    gradients and optimizer states there",
            );
        } else if cfg.optim_offload && cfg.zero_stage() == 0 {
            c.no_flag(&"optimizer offload without a ZeRO stage (zero=1 or more runs it under DeepSpeed)");
        }
    }
    c.words(&["train.py"]);
}

/// What train.py sets for an RL fine-tune: TRL's trainer and the config
/// fields the plan assumed (field names at huggingface/trl@f2cd5771
/// trl/trainer/grpo_config.py, dpo_config.py; `vllm_mode` "colocate" or
/// "server", the latter with `trl vllm-serve` on the serving GPUs and
/// `CUDA_VISIBLE_DEVICES` keeping the trainer off them, docs/source/vllm_integration.md).
fn rl_note(l: &Launch, rl: super::super::super::config::Rl) -> String {
    use super::super::super::config::{GenMode, Rl};
    let cfg = &l.cfg;
    let trainer = match rl {
        Rl::Grpo => "GRPOTrainer(GRPOConfig(",
        Rl::Ppo => {
            "PPOTrainer(PPOConfig( (trl.experimental.ppo; a reward and a value model beside the policy)"
        }
        Rl::Dpo => "DPOTrainer(DPOConfig(",
    };
    let lengths = match rl {
        Rl::Dpo => format!("max_length={}", cfg.prompt_len + cfg.completion_len),
        Rl::Ppo => format!("response_length={}", cfg.completion_len),
        Rl::Grpo => format!(
            "max_completion_length={}, num_generations={}, beta={}",
            cfg.completion_len, cfg.gens, cfg.beta
        ),
    };
    let vllm = match (rl, cfg.gen.unwrap_or(GenMode::Colocate)) {
        (Rl::Grpo, GenMode::Colocate) => format!(
            ", use_vllm=True, vllm_mode=\"colocate\", \
            vllm_gpu_memory_utilization={}",
            cfg.vllm_mem
        ),
        (Rl::Grpo, GenMode::Split) => ", use_vllm=True, vllm_mode=\"server\" (start `trl vllm-serve --model \
            <model>` on GPUs of its own first)"
            .to_string(),
        _ => String::new(),
    };
    format!(
        "RL fine-tuning in train.py: {trainer}per_device_train_batch_size={}, {lengths}{vllm}, \
        gradient_checkpointing=True, bf16=True))",
        cfg.mb().max(1)
    )
}
