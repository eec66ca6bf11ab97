//! Training stacks (`trainer=`): the memory techniques each one applies by
//! default, as terms of the training memory and time, each from the
//! stack's own code or documentation, and how each runs its layers as the
//! training clock sees it (`Clock`: eager launches, fused kernels, looped
//! experts, ZeRO-3 by tensor or by layer; the terms in `train_clock.rs`).
//! Never decides a layout or a price.
//!
//! - Loss: the Hugging Face Trainer materialises the logits of every token
//!   and upcasts them for the loss (`logits = logits.float()` in
//!   `ForCausalLMLoss`, huggingface/transformers@0114da07
//!   src/transformers/loss/loss_utils.py): at the peak, in the loss's
//!   backward, the 16-bit logits (kept in the model output), the fp32
//!   log-softmax that `cross_entropy` saves, the fp32 gradient arriving from
//!   the NLL, the fp32 gradient of the upcast logits and its 16-bit cast:
//!   2 + 4 + 4 + 4 + 2 = 16 bytes per vocabulary entry. Unsloth's
//!   long-context table (its "Hugging Face + FA2" column, Llama 3.1 8B
//!   QLoRA on 8–80 GB cards) grows by about 2.47 MB per token, about 16
//!   bytes per entry of the 128,256-token vocabulary (TRAINING-NOTES.md).
//!   torchtune's `CEWithChunkedOutputLoss` keeps the 16-bit logits and
//!   upcasts one of 8 chunks at a time (pytorch/torchtune@0031bfb0
//!   torchtune/modules/loss/ce_chunked_output_loss.py: `num_output_chunks
//!   = 8`; the recipes of that README's table name it). Unsloth (from
//!   2024.11, unslothai/unsloth@000252c9 unsloth/models/llama.py:
//!   `fused_linear_cross_entropy` whenever more than 1,024 tokens and
//!   `UNSLOTH_RETURN_LOGITS` unset) and Liger's fused linear cross-entropy
//!   (axolotl-ai-cloud/axolotl@16a69469 examples/llama-3/
//!   fft-8b-liger-fsdp.yaml: `liger_fused_linear_cross_entropy: true`)
//!   compute the loss block by block from the hidden states: no logits
//!   tensor at all. torchtitan compiles its loss (`torch.compile(loss_fn)`
//!   when `training.compile` is on, pytorch/torchtitan@e7c0cae9
//!   torchtitan/components/loss.py, as its published benchmarks run it):
//!   the fp32 upcast and the softmax fuse into one kernel, leaving the
//!   16-bit logits and their 16-bit gradient, 4 bytes per entry.
//! - Precision: torchtune trains in pure bf16, weights and optimizer states
//!   alike ("we don't support mixed-precision training", torchtune@0031bfb0
//!   docs/source/tutorials/memory_optimizations.rst), so AdamW keeps 2 + 2
//!   bytes of state and no fp32 master copy. Megatron-LM keeps fp32 main
//!   gradients beside the bf16 weights: 2 + 4 + 12 = 18 bytes per parameter
//!   without its distributed optimizer (NVIDIA/Megatron-LM@9fc93771
//!   docs/api-guide/dist_optimizer.md, the bytes-per-parameter table). The Hugging Face Trainer, DeepSpeed
//!   and
//!   Axolotl keep 16-bit
//!   gradients and fp32 master weights with fp32 AdamW states (ZeRO §3);
//!   torchtitan's FSDP2 keeps fp32 parameters, gradients and AdamW states
//!   and computes in bf16 (`MixedPrecisionPolicy(param_dtype=bf16,
//!   reduce_dtype=fp32)`): the same 16 bytes per parameter, sharded.
//! - torchtune's single-GPU full fine-tune steps the optimizer inside the
//!   backward pass (`optimizer_in_bwd: True` in
//!   recipes/configs/llama3_1/8B_full_single_device.yaml @0031bfb0): each
//!   parameter's gradient is applied and freed as soon as it exists, so no
//!   full gradient buffer is held, only the largest tensor's (the
//!   embedding).
//! - Activation offload: Unsloth's default `use_gradient_checkpointing =
//!   "unsloth"` ("uses 30% less VRAM", unsloth@000252c9 README.md) moves
//!   each checkpointed layer input to CPU memory; torchtune's
//!   `enable_activation_offloading` does the same through saved-tensor
//!   hooks (memory_optimizations.rst, "Activation Offloading"). The GPU then
//!   holds one layer's activations while it is recomputed, and while its
//!   backward runs the gradients of the gated MLP's two intermediates
//!   (2·f values per token): the working set Unsloth's long-context table
//!   (8B QLoRA, 2,972–342,733 tokens on 8–80 GB) grows by, about 212 KB
//!   per token for Llama 3.1 8B.
//! - Selective checkpointing (`gc=selective`): PyTorch stacks checkpoint
//!   per operator. torchtitan's policy (pytorch/torchtitan@e7c0cae9
//!   torchtitan/models/llama3/parallelize_llama.py, `_save_list` and
//!   `_custom_policy`; the same at b5bcd76c
//!   torchtitan/distributed/activation_checkpoint.py) saves the outputs of
//!   the attention kernel and of every second matmul of a layer and
//!   recomputes everything else; torchtune's `ac_mode: selective` applies
//!   the same op policy. In a Llama layer the matmuls run wq, wk, wv, wo,
//!   w1, w3, w2, so the saved ones are wq (q), wv (kv), w1 (f) and w2 (h),
//!   beside the attention output (q) and the layer's input (h): 2h + 2q +
//!   kv + f 16-bit values per token per layer. Megatron-LM's
//!   `--recompute-granularity selective` recomputes only the attention
//!   core (Korthikanti et al. 2022 §4.2), which with flash attention keeps
//!   almost every activation.
//! - Parameter offload (`param_offload=1`): FSDP's `CPUOffload(offload_params
//!   =True)` (torchtune `fsdp_cpu_offload`, axolotl `fsdp_offload_params`)
//!   and DeepSpeed ZeRO-3 `offload_param` (ZeRO-Infinity, Rajbhandari et
//!   al. 2021) keep parameters, gradients and optimizer states in CPU
//!   memory; the GPU holds the wrapped unit being computed and the one
//!   prefetched (two decoder layers) plus the root unit (embeddings and
//!   output layer), and one layer's gradients on their way out. torchtune
//!   wraps the embeddings and the output layer as units of their own
//!   (`custom_sharded_layers: ['tok_embeddings', 'output']`,
//!   recipes/configs/llama3_1/70B_full.yaml @0031bfb0), so only the larger
//!   of the two is gathered at a time.
//!   Megatron-LM and Unsloth have no parameter offload.

use super::super::config::{Checkpointing, Trainer};

// The clock terms themselves are computed in `train_clock.rs` (module docs there).

/// What a training stack does by default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stack {
    /// Bytes per token per vocabulary entry that the loss holds at its peak.
    pub loss_bytes_per_vocab: f64,
    /// Mixed precision: fp32 master weights and fp32 optimizer states for
    /// full fine-tuning (false: states in the weights' 16-bit type).
    pub fp32_master: bool,
    /// fp32 gradients of the trainable weights (Megatron's main grads).
    pub fp32_grads: bool,
    /// The optimizer steps inside the backward pass on a single GPU.
    pub optimizer_in_backward: bool,
    /// Checkpointed activations go to CPU memory unless `act_offload=0`.
    pub offloads_activations: bool,
    /// The stack can keep parameters in CPU memory (FSDP / ZeRO-3 offload).
    pub can_offload_params: bool,
    /// Counts the backward pass's gradients of the MLP intermediates beside
    /// the one layer's activations (a count of tensors, no fitted factor).
    pub backward_working_set: bool,
    /// `gc=selective` is PyTorch's op-level selective checkpointing (the
    /// policy torchtitan and torchtune apply), not Megatron's recomputation
    /// of the attention core alone (see `TrainJob::memory`).
    pub op_level_selective: bool,
    /// The embeddings and the output layer are separate FSDP units.
    pub shards_root_apart: bool,
}

/// The Hugging Face loss at its peak (see the module docs): 16-bit logits,
/// the saved fp32 log-softmax, two fp32 gradients and the 16-bit one.
const FULL_LOGITS_BYTES: f64 = 2.0 + 4.0 + 4.0 + 4.0 + 2.0;
/// torchtitan's compiled loss: 16-bit logits and their 16-bit gradient.
const COMPILED_LOGITS_BYTES: f64 = 2.0 + 2.0;
/// `CEWithChunkedOutputLoss`'s default `num_output_chunks`.
const LOSS_CHUNKS: f64 = 8.0;
/// torchtune's chunked output: 16-bit logits of every token, one chunk at a
/// time upcast to fp32 with its fp32 gradient.
const CHUNKED_LOGITS_BYTES: f64 = 2.0 + 2.0 * 4.0 / LOSS_CHUNKS;

impl Stack {
    pub fn of(trainer: Trainer) -> Stack {
        let hf = Stack {
            loss_bytes_per_vocab: FULL_LOGITS_BYTES,
            fp32_master: true,
            fp32_grads: false,
            optimizer_in_backward: false,
            offloads_activations: false,
            can_offload_params: true,
            backward_working_set: true,
            op_level_selective: true,
            shards_root_apart: false,
        };
        match trainer {
            // TRL's trainers subclass the Hugging Face Trainer (trl/trainer/grpo_trainer.py `class
            // GRPOTrainer(_BaseTrainer)`).
            Trainer::Hf | Trainer::Trl => hf,
            Trainer::Torchtune => Stack {
                loss_bytes_per_vocab: CHUNKED_LOGITS_BYTES,
                fp32_master: false,
                optimizer_in_backward: true,
                shards_root_apart: true,
                ..hf
            },
            Trainer::Torchtitan => Stack { loss_bytes_per_vocab: COMPILED_LOGITS_BYTES, ..hf },
            Trainer::Unsloth => Stack {
                loss_bytes_per_vocab: 0.0,
                offloads_activations: true,
                can_offload_params: false,
                ..hf
            },
            Trainer::Axolotl => Stack { loss_bytes_per_vocab: 0.0, ..hf },
            Trainer::Deepspeed => hf,
            Trainer::Megatron => {
                Stack { fp32_grads: true, can_offload_params: false, op_level_selective: false, ..hf }
            }
        }
    }
}

impl Stack {
    /// Whether activations go to CPU memory when the link does not say:
    /// Unsloth's offload is part of its gradient checkpointing, so not
    /// without checkpointing.
    pub fn offloads_by_default(&self, gc: Checkpointing) -> bool {
        self.offloads_activations && gc != Checkpointing::None
    }
}

/// Seconds a step spends moving offloaded bytes over the host link that
/// compute does not hide. Activation offload streams on its own CUDA stream
/// (torchtune's `OffloadActivations` with `use_streams`), so it costs only
/// where the transfer outlasts the compute; parameter and optimizer offload
/// move weights and gradients between the optimizer step on the CPU and
/// the next forward, in the step's critical path (ZeRO-Offload, Ren et
/// al. 2021 §4: one gradient copy out and one parameter copy back per
/// step; parameter offload adds the fetch of each layer's weights before
/// its forward and again before its backward).
pub fn host_link_s(compute_s: f64, streamed_bytes: f64, serial_bytes: f64, host_bytes_per_s: f64) -> f64 {
    let rate = host_bytes_per_s.max(1.0);
    (streamed_bytes / rate - compute_s).max(0.0) + serial_bytes / rate
}

/// The model-parallel splits a stack can run beside data parallelism with
/// ZeRO / FSDP sharding: a layout the stack cannot launch is never planned.
///
/// - Megatron-LM: tensor and pipeline parallelism (its own layers;
///   NVIDIA/Megatron-LM@9fc93771 `--tensor-model-parallel-size`,
///   `--pipeline-model-parallel-size`), with its distributed optimizer.
/// - DeepSpeed: pipeline stages (`deepspeed.pipe.PipelineModule`, ZeRO
///   stage < 2, see [`super::train::TrainJob::splits`]) and tensor
///   parallelism through AutoTP training, which combines with ZeRO stages
///   0–2 only (deepspeed.ai/tutorials/autotp-training, read 2026-12-01:
///   "ZeRO Optimization … (Stage 0, 1, or 2)"; DeepSpeed ≥ 0.16.4).
/// - The Hugging Face Trainer and Axolotl reach the same AutoTP through
///   accelerate's DeepSpeed plugin (deepspeedai/DeepSpeed blogs/
///   huggingface-tp/README.md: `transformers >= 4.50.1`, `accelerate >=
///   1.6.0`, `tensor_parallel.autotp_size` in the DeepSpeed config), and
///   tensor parallelism under full sharding through accelerate's
///   `ParallelismConfig(dp_shard_size, tp_size)` with FSDP2
///   (huggingface.co/blog/accelerate-nd-parallel, 2025-08-08, "together
///   with Axolotl"); neither has a pipeline schedule.
/// - torchtitan composes FSDP2 with tensor and pipeline parallelism
///   (pytorch/torchtitan@e7c0cae9 README.md: "FSDP2", "Tensor Parallel",
///   "Pipeline Parallel"; `parallelize_llama.py`).
/// - torchtune's distributed recipes shard with FSDP and Unsloth trains one
///   model copy per GPU: data parallel only, as modelled here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parallelism {
    /// Tensor parallelism, with at most this ZeRO stage (None: no TP).
    pub tensor_max_zero: Option<u8>,
    /// Pipeline stages.
    pub pipeline: bool,
}

pub fn parallelism(trainer: Trainer) -> Parallelism {
    match trainer {
        Trainer::Megatron => Parallelism { tensor_max_zero: Some(3), pipeline: true },
        Trainer::Deepspeed => Parallelism { tensor_max_zero: Some(2), pipeline: true },
        Trainer::Torchtitan => Parallelism { tensor_max_zero: Some(3), pipeline: true },
        Trainer::Hf | Trainer::Trl | Trainer::Axolotl => {
            Parallelism { tensor_max_zero: Some(3), pipeline: false }
        }
        Trainer::Torchtune | Trainer::Unsloth => Parallelism { tensor_max_zero: None, pipeline: false },
    }
}

impl Parallelism {
    /// Whether a layout of `tp` × `pp` runs with ZeRO stage `zero`.
    pub fn allows(&self, tp: u32, pp: u32, zero: u8) -> bool {
        (tp <= 1 || self.tensor_max_zero.is_some_and(|z| zero <= z)) && (pp <= 1 || self.pipeline)
    }
}

/// Fixed time of one ZeRO-3 collective (hook, launch, sync), fitted on the
/// training-clock file's fit rows (QwenLM/Qwen3#736: HF Trainer + PEFT +
/// DeepSpeed ZeRO-3 on 8 H100) by `tests/it/estimate/training_clock.rs`.
pub const ZERO3_S_PER_COLLECTIVE: f64 = 0.8e-3;

/// How a stack runs its layers, as the clock sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// Launches each kernel from Python (eager PyTorch).
    pub eager: bool,
    /// Elementwise passes of the hidden and FFN widths per token per layer
    /// in the forward pass (0: fused, already in the fitted utilisation).
    pub elementwise_hidden: f64,
    pub elementwise_ffn: f64,
    /// LoRA's dropout, scaling and add run unfused.
    pub unfused_lora: bool,
    /// Mixture-of-experts layers loop over their experts.
    pub looped_experts: bool,
    /// ZeRO-3 gathers tensor by tensor (DeepSpeed), not layer by layer (FSDP).
    pub per_tensor_zero3: bool,
    /// Fixed seconds of one ZeRO-3 collective ([`ZERO3_S_PER_COLLECTIVE`]).
    pub zero3_collective_s: f64,
    /// An offloaded optimizer steps on the CPU (every stack that offloads it).
    pub cpu_step: bool,
}

/// A term of the clock, for the guidance to name the one that costs most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    HostLaunch,
    LoopedExperts,
    Zero3Collectives,
    CpuOptimizer,
    Elementwise,
}

impl Term {
    pub const ALL: [Term; 5] = [
        Term::HostLaunch,
        Term::LoopedExperts,
        Term::Zero3Collectives,
        Term::CpuOptimizer,
        Term::Elementwise,
    ];

    /// The message key naming the term (`g.train.clock.<name>`).
    pub fn key(self) -> &'static str {
        match self {
            Term::HostLaunch => "g.train.clock.host",
            Term::LoopedExperts => "g.train.clock.experts",
            Term::Zero3Collectives => "g.train.clock.zero3",
            Term::CpuOptimizer => "g.train.clock.cpu",
            Term::Elementwise => "g.train.clock.elementwise",
        }
    }

    /// The clock without this term.
    pub fn without(self, c: Clock) -> Clock {
        match self {
            Term::HostLaunch => Clock { eager: false, ..c },
            Term::LoopedExperts => Clock { looped_experts: false, ..c },
            Term::Zero3Collectives => Clock { zero3_collective_s: 0.0, ..c },
            Term::CpuOptimizer => Clock { cpu_step: false, ..c },
            Term::Elementwise => Clock { elementwise_hidden: 0.0, elementwise_ffn: 0.0, ..c },
        }
    }
}

impl Clock {
    pub fn of(trainer: Trainer) -> Clock {
        let eager = Clock {
            eager: true,
            elementwise_hidden: 56.0,
            elementwise_ffn: 5.0,
            unfused_lora: true,
            looped_experts: true,
            per_tensor_zero3: true,
            zero3_collective_s: ZERO3_S_PER_COLLECTIVE,
            cpu_step: true,
        };
        // One read and one write per fused op: the two norms, RoPE, the
        // residual adds; the gated MLP's read of two inputs and its write.
        let fused = Clock { elementwise_hidden: 12.0, elementwise_ffn: 3.0, ..eager };
        match trainer {
            // The Hugging Face Trainer, DeepSpeed on it, and torchtune's
            // recipes (`compile: False` in its configs) run eager modules.
            Trainer::Hf | Trainer::Trl | Trainer::Deepspeed => eager,
            // FSDP2 units of one layer.
            Trainer::Torchtune => Clock { per_tensor_zero3: false, ..eager },
            // Liger's kernels (norms, RoPE, SwiGLU); PEFT's LoRA as is.
            Trainer::Axolotl => fused,
            // Unsloth's own kernels cover LoRA too.
            Trainer::Unsloth => Clock { unfused_lora: false, ..fused },
            // Compiled or fused-kernel stacks with grouped expert GEMMs:
            // their fit rows carry their launch and elementwise time.
            Trainer::Torchtitan | Trainer::Megatron => Clock {
                eager: false,
                elementwise_hidden: 0.0,
                elementwise_ffn: 0.0,
                unfused_lora: false,
                looped_experts: false,
                per_tensor_zero3: false,
                ..eager
            },
        }
    }
}
