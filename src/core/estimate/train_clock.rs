//! The parts of a training step that the fitted linear-layer utilisation
//! (`train_class`, fitted on llm-foundry's and torchtitan's fused or
//! compiled runs) does not carry, each a term with a physical meaning:
//!
//! - **Host launch time.** An eager PyTorch stack launches every kernel of
//!   every layer from Python, one after another. When the GPU's work per
//!   kernel is short (short micro-batches, small models, fast GPUs) the
//!   GPU waits for the host: a pass over a layer takes at least its
//!   launches. An eager decode step of Llama-2-7B under transformers 4.35.2
//!   (A100-SXM4-80GB, fp16, batch 1) takes 25.8 ms over 32 layers, 0.81 ms
//!   per layer, and stays there from batch 1 to 8 (huggingface/
//!   optimum-benchmark examples/running-llamas/artifacts/Llama-7b/
//!   short_report.csv @f75d9f9): the host's time for one forward pass of a
//!   decoder layer. An Nsight profile of eager PyTorch shows 31–35 µs
//!   between launches (vllm-project/vllm-omni PR #6516), so that layer is
//!   about 25 kernels. Full checkpointing runs the Python forward once
//!   more. The backward pass launches about two kernels per forward kernel
//!   (each matmul's input and weight gradients, each elementwise op's
//!   gradient), but from PyTorch's C++ autograd engine, not from Python: at
//!   the bare launch cost of 4–6 µs (a CUDA launch microbenchmark,
//!   susun-blog.com "pegainfer 3: CUDA graph"), [`CPP_S_PER_KERNEL`].
//!   PEFT's LoRA adds five kernels per adapted projection (dropout, A, B,
//!   the scaling and the add: `result + lora_B(lora_A(dropout(x))) *
//!   scaling`, huggingface/peft src/peft/tuners/lora/layer.py `Linear.forward`).
//! - **Unfused elementwise traffic.** Outside the matmuls an eager layer
//!   moves its activations through memory once per elementwise op: two
//!   RMSNorms upcast to fp32 (`hidden_states.to(torch.float32)`, `pow`,
//!   `mean`, `rsqrt`, the multiply, the cast back and the weight: about 18
//!   passes of the hidden width each, transformers
//!   src/transformers/models/llama/modeling_llama.py `LlamaRMSNorm`), rotary
//!   embedding on queries and keys (`q * cos + rotate_half(q) * sin`: about
//!   10 passes), the two residual adds (3 each) and the head layout copies
//!   (about 4): 56 passes of the hidden width; the gated MLP's `act(gate) *
//!   up` 5 passes of the FFN width; LoRA's dropout 2.5 passes of its input
//!   and its scaling and add 5 of its output. The backward pass moves about
//!   twice the forward's bytes (each op reads its saved input and the
//!   incoming gradient and writes its own). Fused stacks do these in one
//!   kernel per op boundary: Unsloth's Triton kernels (RMSNorm, RoPE,
//!   SwiGLU, its LoRA MLP), Liger's for Axolotl; compiled (torchtitan) and
//!   Transformer Engine (Megatron-LM) runs are what the fitted utilisation
//!   was measured on, so nothing is added for them.
//! - **Looped experts.** The Hugging Face mixture-of-experts blocks
//!   (transformers 4.x, e.g. `Qwen3MoeSparseMoeBlock.forward`) loop over
//!   the experts that received tokens: per expert a `torch.where` on the
//!   routing mask (a device-to-host sync), an index, the gate, up and down
//!   projections, the activation, two multiplies and an `index_add_`, about
//!   9 kernels, each expert's work too small to hide the host. The sync
//!   drains the queue, so this time adds to the GPU's instead of
//!   overlapping it. With LoRA on the experts each projection adds PEFT's
//!   five kernels. Stacks that run grouped expert GEMMs (Megatron-LM,
//!   torchtitan) launch one kernel for all experts.
//! - **CPU optimizer step.** With `optim_offload` the AdamW step runs on the
//!   CPU (DeepSpeed's `DeepSpeedCPUAdam`, FSDP CPU offload): per parameter
//!   it reads the fp32 weight, gradient and two moments and writes the
//!   weight, the moments and the 16-bit copy, 4·4 + 3·4 + 2 = 30 bytes of
//!   host memory traffic, after the backward pass and before the next
//!   forward (no overlap without DeepSpeed's optional delayed update). The
//!   host sustains [`HOST_ADAM_BYTES_PER_S`] per instance, fitted on one
//!   source (below); the instance's ranks share it.

use super::super::catalog::Gpu;
use super::super::config::{Checkpointing, Method, Targets};
// The stack's clock profile lives with the stack's other defaults
// (`stack.rs`), which `train.rs` reads; this module adds its terms to a step.
pub use super::stack::{Clock, Term, ZERO3_S_PER_COLLECTIVE};
use super::train::{Layout, TrainJob};

/// Host time of one eager forward pass over a decoder layer (module docs:
/// optimum-benchmark's Llama-2-7B eager decode, 25.8 ms / 32 layers).
pub const HOST_S_PER_LAYER_FORWARD: f64 = 25.8e-3 / 32.0;
/// Host time between two eager kernel launches (vllm-omni PR #6516: 31–35 µs).
pub const HOST_S_PER_KERNEL: f64 = 33e-6;
/// A kernel launched by the C++ autograd engine (module docs: 4–6 µs).
pub const CPP_S_PER_KERNEL: f64 = 5e-6;
/// Kernels PEFT's LoRA adds per adapted projection (module docs).
pub const LORA_KERNELS: f64 = 5.0;
/// Kernels of one looped expert's forward pass (module docs).
const EXPERT_KERNELS: f64 = 9.0;
/// Host-memory bytes of one AdamW step per parameter on the CPU (module docs).
pub const CPU_ADAM_BYTES_PER_PARAM: f64 = 30.0;
/// Host-memory traffic a CPU AdamW step sustains per instance. Fitted on
/// deepspeedai/DeepSpeed#6834 (the training-clock file's fit split): Qwen
/// 72B full fine-tune, ZeRO-3 with offload on 32 A100-80GB, "the step time
/// of no-offload vs offload is ~0.2s vs ~10s": 72e9 / 32 parameters per rank,
/// 8 ranks per instance, 30 bytes each, in 10 s = 54 GB/s.
pub const HOST_ADAM_BYTES_PER_S: f64 = 72e9 / 32.0 * 8.0 * CPU_ADAM_BYTES_PER_PARAM / 10.0;

impl TrainJob<'_> {
    /// Forward passes per micro-batch (the recomputed one under full
    /// checkpointing) and backward passes counted in forward passes (two).
    fn passes(&self) -> (f64, f64) {
        (if self.gc == Checkpointing::Full { 2.0 } else { 1.0 }, 2.0)
    }

    /// Projections LoRA adapts per layer (attention 4, the gated MLP 3).
    fn lora_projections(&self) -> f64 {
        match (self.method, self.targets) {
            (Method::Full, _) => 0.0,
            (_, Targets::Attn) => 4.0,
            (_, Targets::AttnMlp | Targets::All) => 7.0,
        }
    }

    /// Seconds the host spends launching one micro-batch's kernels on one
    /// pipeline stage (0 for a stack that does not launch eagerly).
    pub fn host_launch_s(&self, l: Layout) -> f64 {
        let clock = self.clock;
        if !clock.eager {
            return 0.0;
        }
        let lora =
            if clock.unfused_lora { self.lora_projections() * LORA_KERNELS * HOST_S_PER_KERNEL } else { 0.0 };
        let (fwd, bwd) = self.passes();
        let layers = f64::from(self.model.layers) / f64::from(l.pp.max(1));
        let kernels = HOST_S_PER_LAYER_FORWARD / HOST_S_PER_KERNEL + lora / HOST_S_PER_KERNEL;
        layers * ((HOST_S_PER_LAYER_FORWARD + lora) * fwd + bwd * kernels * CPP_S_PER_KERNEL)
    }

    /// Seconds one micro-batch's looped experts keep the GPU waiting on the
    /// host (added to the step: each expert's routing sync drains the queue).
    pub fn looped_expert_s(&self, l: Layout) -> f64 {
        let Some(moe) = self.model.moe.as_ref().filter(|_| self.clock.looped_experts) else { return 0.0 };
        // Experts that receive a token: every expert once a micro-batch's
        // routed tokens outnumber them.
        let routed = self.mb * self.seq * f64::from(moe.active);
        let hit = routed.min(f64::from(moe.experts));
        let lora = if self.method == Method::Full || self.targets == Targets::Attn {
            0.0
        } else {
            3.0 * LORA_KERNELS
        };
        let (fwd, bwd) = self.passes();
        let layers = f64::from(self.model.moe_layers()) / f64::from(l.pp.max(1));
        layers * hit * (EXPERT_KERNELS + lora) * (HOST_S_PER_KERNEL * fwd + CPP_S_PER_KERNEL * bwd)
    }

    /// Seconds per micro-batch of DeepSpeed ZeRO-3's per-tensor collectives
    /// on one stage: every partitioned tensor is gathered by its own hook
    /// before the forward and before the backward, and a trainable one's
    /// gradient reduce-scattered (`deepspeed/runtime/zero/
    /// partitioned_param_coordinator.py` fetches per submodule), each
    /// collective paying a fixed latency ([`ZERO3_S_PER_COLLECTIVE`]) that
    /// the bandwidth term (`train_step`) does not count. FSDP wraps a layer
    /// as one unit and prefetches it behind the previous one's compute: its
    /// three collectives per layer are the bandwidth term's alone.
    pub fn zero3_collective_s(&self, l: Layout) -> f64 {
        if self.zero < 3 || l.dp <= 1 || !self.clock.per_tensor_zero3 {
            return 0.0;
        }
        let m = self.model;
        let lora = self.method != Method::Full;
        let (dense, moe) = match &m.moe {
            Some(x) => {
                let shared = if x.shared > 0 { 4.0 } else { 0.0 };
                (7.0 + 2.0, 4.0 + 2.0 + 1.0 + 3.0 * f64::from(x.experts) + shared)
            }
            None => (9.0, 9.0),
        };
        let moe_layers = f64::from(m.moe_layers());
        let dense_layers = f64::from(m.layers) - moe_layers;
        let per_layer = |tensors: f64, projections: f64| {
            if lora {
                // The frozen base gathered twice; each adapted projection's
                // A and B gathered twice and reduced once.
                2.0 * tensors + 2.0 * 3.0 * projections
            } else {
                3.0 * tensors
            }
        };
        let adapted = self.lora_projections();
        let expert_adapted = match &m.moe {
            Some(x) if adapted > 4.0 => 4.0 + 3.0 * f64::from(x.experts),
            _ => adapted,
        };
        let collectives =
            dense_layers * per_layer(dense, adapted) + moe_layers * per_layer(moe, expert_adapted);
        collectives / f64::from(l.pp.max(1)) * self.clock.zero3_collective_s
    }

    /// Seconds per token of the unfused elementwise ops' memory traffic on
    /// one GPU (16-bit activations; the layer's share under tensor parallelism).
    pub fn elementwise_s_per_token(&self, gpu: &Gpu, l: Layout) -> f64 {
        let c = self.clock;
        if c.elementwise_hidden <= 0.0 {
            return 0.0;
        }
        let m = self.model;
        let h = f64::from(m.hidden);
        let f = super::arch::active_ffn(m);
        let lora = if c.unfused_lora && self.lora_projections() > 0.0 {
            // Dropout on each adapted input (2.5 passes), scaling and add on
            // each output (5): attention in h, the MLP's inputs h and f.
            let attn = 2.5 * 4.0 * h + 5.0 * 4.0 * h;
            let mlp =
                if self.lora_projections() > 4.0 { 2.5 * (2.0 * h + f) + 5.0 * (2.0 * f + h) } else { 0.0 };
            attn + mlp
        } else {
            0.0
        };
        let per_layer_forward = (c.elementwise_hidden * h + c.elementwise_ffn * f + lora) * self.train_bytes;
        let (fwd, bwd) = self.passes();
        let layers = f64::from(m.layers) / f64::from(l.pp.max(1)) / f64::from(l.tp.max(1));
        layers * per_layer_forward * (fwd + bwd) / gpu.bandwidth_bytes_per_s().max(1.0)
    }

    /// Seconds per optimizer step of the AdamW step on the CPU: the ranks
    /// of one instance share its host memory (module docs).
    pub fn cpu_optimizer_s(&self, gpu: &Gpu, l: Layout) -> f64 {
        if !(self.optim_offload || self.offload_params) || !self.clock.cpu_step {
            return 0.0;
        }
        let shard = if self.zero >= 1 { f64::from(l.dp.max(1)) } else { 1.0 };
        let per_rank = self.trainable_params() / shard / (f64::from(l.tp.max(1)) * f64::from(l.pp.max(1)));
        let ranks = f64::from(l.gpus().min(gpu.gpus_per_node.max(1)));
        ranks * per_rank * CPU_ADAM_BYTES_PER_PARAM / HOST_ADAM_BYTES_PER_S
    }
}
