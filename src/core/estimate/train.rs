//! Fine-tuning and pre-training: memory per GPU, tokens/s, job time.
//!
//! Memory: parameters, gradients and optimizer states per method and
//! optimizer (ZeRO, Rajbhandari et al. 2020, §3: mixed-precision Adam keeps
//! 2 + 2 + 12 = 16 bytes per parameter), sharded by ZeRO stage / FSDP over
//! the data-parallel GPUs; LoRA adapters (Hu et al. 2021) of rank r on the
//! chosen projections; QLoRA's NF4 base with double quantization (Dettmers
//! et al. 2023); activations per token per layer after Korthikanti et al.
//! 2022 ("Reducing Activation Recomputation in Large Transformer Models",
//! Table 2: attention 11·h, layer norms 4·h, MLP 2·h + the FFN's
//! intermediates, plus 5·a·s scores per token without memory-efficient
//! attention), stored for every layer, only at layer inputs (2·h) with full
//! recomputation; logits over the vocabulary in fp32 for the loss.
//!
//! Time: the linear layers' FLOPs ≈ 6·N per token for training (Kaplan
//! et al. 2020, §2.1), 4·N for LoRA/QLoRA where frozen weights need no
//! weight gradients, plus the forward that recomputation runs again, at a
//! utilisation per GPU class fitted by `whichgpu calibrate --fit` on the
//! training file's fit rows ([`mfu`]); attention's FLOPs in their own
//! kernels at FlashAttention's published rate
//! ([`TrainJob::compute_s_per_token`], `train_flops`); FP8 speeds up the
//! body's linear GEMMs only; QLoRA adds the memory-bound dequantization of
//! its 4-bit base once per pass over the weights ([`TrainJob::dequant_s`]).
//!
//! Layouts ([`Layout`]): data parallel (with the ZeRO stage) × tensor
//! parallel inside a node × pipeline stages, as Megatron-LM splits the
//! largest models (Narayanan et al. 2021, "Efficient Large-Scale Language
//! Model Training on GPU Clusters Using Megatron-LM"): weights, gradients
//! and optimizer states divide by tp·pp before ZeRO shards them over dp;
//! activations divide by tp with sequence parallelism (Korthikanti et al.
//! 2022, Table 2), and under the 1F1B schedule the first stage holds pp
//! micro-batches of L/pp layers, i.e. all L layers' worth (ibid. §4.2.3).

use super::super::catalog::{Gpu, Model};
use super::super::config::{Checkpointing, Config, Method, Optim, Targets, Task};
use super::super::precision::{self, Compute, WeightFormat};
use super::rl::{self, RlJob};
use super::stack::{self, Stack};
pub use super::train_class::{mfu, TrainClass};

#[derive(Debug, Clone)]
pub struct TrainJob<'a> {
    pub model: &'a Model,
    pub task: Task,
    pub method: Method,
    /// Format of the (frozen, for LoRA/QLoRA) base weights.
    pub format: WeightFormat,
    /// Bytes per element of trainable weights, gradients and activations:
    /// 2 under mixed precision, 4 in plain fp32 training.
    pub train_bytes: f64,
    pub optim: Optim,
    pub optim_offload: bool,
    pub zero: u8,
    pub mb: f64,
    pub seq: f64,
    pub gc: Checkpointing,
    pub flash: bool,
    pub rank: f64,
    pub targets: Targets,
    /// The training stack's memory techniques ([`Stack`]).
    pub stack: Stack,
    /// The model-parallel splits the stack can launch.
    pub parallel: stack::Parallelism,
    /// Activations kept in CPU memory between forward and backward
    /// (`act_offload`, else the stack's default).
    pub offload_activations: bool,
    /// Parameters, gradients and optimizer states in CPU memory
    /// (`param_offload`, where the stack can and the job is sharded).
    pub offload_params: bool,
    /// Sequences per optimizer step, filled by gradient accumulation
    /// (`Config::global_batch`); `None` = one micro-batch per data-parallel
    /// rank and pipeline round.
    pub gbs: Option<f64>,
    /// The attention kernel (FlashAttention-2 unless a measurement's source
    /// names another).
    pub attn_kernel: AttnKernel,
    /// How the stack runs its layers: eager launches, unfused elementwise
    /// ops, looped experts ([`stack::Clock`]; its terms in `train_clock`).
    pub clock: stack::Clock,
    /// Reinforcement learning on TRL (`estimate::rl`): the sequence is
    /// prompt + completion and the rate the whole step's.
    pub rl: Option<RlJob>,
}

/// The attention kernel a run uses (a property of its code, not a link key:
/// every stack a link can name runs FlashAttention-2 or PyTorch's SDPA
/// flash kernel, which is FlashAttention-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AttnKernel {
    #[default]
    Flash2,
    /// The Triton FlashAttention of MosaicML's MPT runs.
    TritonFlash,
}

/// How a training job is split over its GPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Data-parallel replicas (sharded by the ZeRO stage).
    pub dp: u32,
    /// Tensor-parallel GPUs per layer, inside one node.
    pub tp: u32,
    /// Pipeline stages.
    pub pp: u32,
}

impl Layout {
    pub fn data(n: u32) -> Layout {
        Layout { dp: n.max(1), tp: 1, pp: 1 }
    }

    pub fn gpus(&self) -> u32 {
        self.dp.saturating_mul(self.tp).saturating_mul(self.pp)
    }

    /// The fewest micro-batches per optimizer step of one pipeline: m = 4·pp
    /// keeps the 1F1B bubble, (pp − 1)/m, under 25 % (Narayanan et al. 2021
    /// §2.2 ask for m ≫ pp); one micro-batch without pipelining. Gradient
    /// accumulation to a global batch adds more (`train_step::micro_batches`).
    pub fn micro_batches(&self) -> f64 {
        if self.pp > 1 {
            4.0 * f64::from(self.pp)
        } else {
            1.0
        }
    }
}

/// Tensor- and pipeline-parallel degrees tried for a job; tp stays inside
/// one node of `per_node` GPUs and divides the attention heads, pp divides
/// the layers.
pub const TP_DEGREES: [u32; 4] = [1, 2, 4, 8];
pub const PP_DEGREES: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// Memory of a training job per GPU, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TrainMemory {
    pub weights: f64,
    pub gradients: f64,
    pub optimizer: f64,
    pub activations: f64,
    pub overhead: f64,
}

impl TrainMemory {
    pub fn total(&self) -> f64 {
        self.weights + self.gradients + self.optimizer + self.activations + self.overhead
    }
}

/// CUDA context, allocator slack and communication buffers per GPU (~1 GiB).
const OVERHEAD_BYTES: f64 = 1_073_741_824.0;

impl<'a> TrainJob<'a> {
    pub fn new(model: &'a Model, cfg: &Config) -> TrainJob<'a> {
        let method = if cfg.task == Task::Pretrain { Method::Full } else { cfg.method };
        let format = precision::weight_format(cfg.weight_format_id())
            .or_else(|| precision::weight_format("bf16"))
            .unwrap_or(WeightFormat {
                id: "bf16",
                body_bits: 16.0,
                embed_bits: 16.0,
                weight_only: false,
                compute: Compute::Bf16,
                gguf: false,
            });
        let rl = RlJob::new(cfg).filter(|_| cfg.task == Task::Finetune);
        // DPO runs chosen and rejected of each pair in one batch (trl/trainer/dpo_trainer.py:355-357).
        let mb = f64::from(cfg.mb())
            * if rl.is_some_and(|r| r.kind == super::super::config::Rl::Dpo) { 2.0 } else { 1.0 };
        TrainJob {
            model,
            rl,
            task: cfg.task,
            method,
            train_bytes: if format.id == "fp32" { 4.0 } else { 2.0 },
            format,
            optim: cfg.optim,
            optim_offload: cfg.optim_offload,
            zero: cfg.zero_stage(),
            mb,
            seq: rl.map_or(f64::from(cfg.seq), |r| r.seq()),
            gc: cfg.gc,
            flash: cfg.flash,
            rank: f64::from(cfg.rank),
            targets: cfg.targets,
            stack: Stack::of(cfg.trainer),
            parallel: stack::parallelism(cfg.trainer),
            offload_activations: cfg
                .act_offload
                .unwrap_or(Stack::of(cfg.trainer).offloads_by_default(cfg.gc)),
            offload_params: cfg.param_offload && Stack::of(cfg.trainer).can_offload_params,
            gbs: cfg.global_batch().map(f64::from),
            attn_kernel: AttnKernel::Flash2,
            clock: stack::Clock::of(cfg.trainer),
        }
    }

    /// Trainable parameters: all of them, or the LoRA adapters: r·(d_in + d_out)
    /// per adapted projection (Hu et al. 2021, §4.1).
    pub fn trainable_params(&self) -> f64 {
        if self.method == Method::Full {
            return self.model.params_total;
        }
        let m = self.model;
        let h = f64::from(m.hidden);
        let q = f64::from(m.heads) * f64::from(m.head_dim);
        let kv = f64::from(m.kv_heads) * f64::from(m.head_dim);
        let attn = (h + q) + (h + kv) * 2.0 + (q + h);
        let ffn_width = match &m.moe {
            Some(moe) => f64::from(moe.expert_ffn),
            None => f64::from(m.ffn.unwrap_or(4 * m.hidden)),
        };
        let experts = m.moe.as_ref().map_or(1.0, |x| f64::from(x.experts + x.shared));
        let mlp = 3.0 * (h + ffn_width) * experts;
        let per_layer = match self.targets {
            Targets::Attn => attn,
            Targets::AttnMlp | Targets::All => attn + mlp,
        };
        self.rank * per_layer * f64::from(m.layers)
    }

    /// Bytes of optimizer state per trainable parameter, master weights
    /// included under mixed precision: AdamW 4+4 (+4 master); 8-bit AdamW
    /// 1+1 (Dettmers et al. 2021) (+4); Adafactor's factored second moment is
    /// negligible (Shazeer & Stern 2018) (+4); SGD momentum 4 (+4).
    /// A stack that trains in pure 16-bit (torchtune) keeps no master copy
    /// and its AdamW / momentum states in the weights' type.
    fn optimizer_bytes_per_param(&self) -> f64 {
        let mixed = self.train_bytes < 4.0 && self.method == Method::Full;
        let master = if mixed && self.stack.fp32_master { 4.0 } else { 0.0 };
        let state_scale = if mixed && !self.stack.fp32_master { self.train_bytes / 4.0 } else { 1.0 };
        let states = match self.optim {
            Optim::Adamw => 8.0 * state_scale,
            Optim::Adamw8bit => 2.0,
            Optim::Adafactor => 0.1,
            Optim::Sgd => 0.0,
            Optim::SgdMomentum => 4.0 * state_scale,
        };
        master + states
    }

    /// Activation bytes per token per layer, stored for the backward pass.
    fn layer_activation_bytes_per_token(&self) -> f64 {
        let m = self.model;
        let h = f64::from(m.hidden);
        let f = super::arch::active_ffn(m);
        // 16-bit elements: Korthikanti et al. 2022 count 34·h bytes for a
        // 4h GeLU MLP; with a gated FFN the MLP keeps its input and three f-wide tensors.
        let gated = super::arch::gated_ffn(m);
        let mlp = if gated { 2.0 * h + 6.0 * f } else { 2.0 * h + 4.0 * f + f };
        let base = (11.0 + 4.0) * h + mlp;
        let scores = if self.flash { 0.0 } else { 5.0 * f64::from(m.heads) * self.seq };
        (base + scores) * self.train_bytes / 2.0
    }

    /// Whether a layout can split this model: tp divides the heads, pp the
    /// layers (uneven stages are possible but not modelled); and ZeRO
    /// stages 2 and 3 shard what pipeline stages keep, so they run without
    /// pipeline parallelism (DeepSpeed's PipelineEngine asserts
    /// `zero_stage < 2`; FSDP has no pipeline schedule); and the stack
    /// must be able to run the split ([`stack::parallelism`]); QLoRA's
    /// 4-bit base is never tensor-parallel.
    pub fn splits(&self, l: Layout) -> bool {
        let m = self.model;
        l.tp >= 1
            && l.pp >= 1
            && m.heads % l.tp == 0
            && m.layers % l.pp == 0
            && l.pp <= m.layers
            && (self.zero < 2 || l.pp == 1)
            && self.parallel.allows(l.tp, l.pp, self.zero)
            // bitsandbytes' 4-bit weights are not split by tensor-parallel
            // plans: QLoRA spreads over GPUs by FSDP sharding (bitsandbytes
            // docs, "FSDP-QLoRA"; Answer.AI's fsdp_qlora), not by layers.
            && (self.method != Method::Qlora || l.tp == 1)
    }

    /// Memory per GPU with `dp` data-parallel GPUs.
    pub fn memory(&self, dp: f64) -> TrainMemory {
        self.memory_split(dp, 1.0, 1.0)
    }

    /// Memory per GPU under a layout.
    pub fn memory_layout(&self, l: Layout) -> TrainMemory {
        self.memory_split(f64::from(l.dp), f64::from(l.tp), f64::from(l.pp))
    }

    fn memory_split(&self, dp: f64, tp: f64, pp: f64) -> TrainMemory {
        let Some(rl) = self.rl else { return self.policy_memory(dp, tp, pp) };
        let l = Layout { dp: dp as u32, tp: tp as u32, pp: pp as u32 };
        let (policy, extra) = self.rl_memory(&rl, l);
        TrainMemory {
            weights: policy.weights + extra.reference + extra.reward,
            overhead: policy.overhead + extra.engine,
            optimizer: policy.optimizer + extra.critic,
            ..policy
        }
    }

    pub(super) fn policy_memory(&self, dp: f64, tp: f64, pp: f64) -> TrainMemory {
        let m = self.model;
        let dp = dp.max(1.0);
        let (tp, pp) = (tp.max(1.0), pp.max(1.0));
        let mp = tp * pp;
        let trainable = self.trainable_params();
        let shard = |stage: u8| if self.zero >= stage { dp } else { 1.0 };
        // Weights: the trainable copy at training precision, or the frozen
        // base at its format; the body and the root (embeddings, output
        // layer, vision tower) apart for parameter offload.
        let (body_weights, root_weights) = if self.method == Method::Full {
            let root = m.params_total - m.body_params();
            (m.body_params() * self.train_bytes, root * self.train_bytes)
        } else {
            let body_bits = if self.format.id == "fp32" { 32.0 } else { self.format.body_bits };
            let embed_bits = if self.format.id == "fp32" { 32.0 } else { self.format.embed_bits };
            (
                m.body_params() * body_bits / 8.0,
                m.embedding_params() * embed_bits / 8.0 + m.vision_params() * 2.0,
            )
        };
        let layers = f64::from(m.layers) * if m.encoder_decoder { 2.0 } else { 1.0 };
        let adapter = if self.method == Method::Full { 0.0 } else { trainable * 4.0 };
        // PEFT keeps adapters (and their gradients) in fp32 by default;
        // Megatron keeps fp32 main gradients.
        let grad_bytes =
            if self.method == Method::Full && !self.stack.fp32_grads { self.train_bytes } else { 4.0 };
        let (weights, gradients, optimizer) = if self.offload_params && self.zero >= 3 {
            // In CPU memory; on the GPU the unit computed and the one
            // prefetched (two layers), the root unit, and one layer's
            // gradients on their way out (see `stack`).
            let root = if self.stack.shards_root_apart && self.method == Method::Full {
                f64::from(m.vocab) * f64::from(m.hidden) * self.train_bytes
            } else {
                root_weights
            };
            let w = (2.0 * body_weights / layers.max(1.0) + root.min(root_weights)) / tp + adapter / mp;
            (w, trainable * grad_bytes / layers.max(1.0) / tp, 0.0)
        } else {
            let w = (body_weights + root_weights) / mp / shard(3) + adapter / mp;
            // An optimizer step inside the backward pass (one GPU) frees
            // each gradient as it is applied: the largest, the embedding's, is what stays.
            let g = if self.stack.optimizer_in_backward && self.method == Method::Full && dp * mp <= 1.0 {
                f64::from(m.vocab) * f64::from(m.hidden) * grad_bytes
            } else {
                trainable * grad_bytes / mp / shard(2)
            };
            let o = if self.optim_offload {
                0.0
            } else {
                trainable * self.optimizer_bytes_per_param() / mp / shard(1)
            };
            (w, g, o)
        };
        let tokens = self.mb * self.seq;
        let per_layer = self.layer_activation_bytes_per_token();
        let stored = match (self.gc, self.offload_activations) {
            (_, true) => per_layer,
            (Checkpointing::Full, false) => {
                layers * 2.0 * f64::from(m.hidden) * self.train_bytes / 2.0 + per_layer
            }
            // Op-level selective checkpointing keeps a few tensors of every
            // layer (see `stack`); the layer being recomputed holds its whole
            // set once.
            (Checkpointing::Selective, false) if self.stack.op_level_selective => {
                layers * self.op_selective_bytes_per_token() + per_layer
            }
            // Megatron's selective recomputation drops the attention scores
            // of every layer; the layer being recomputed holds them once.
            (Checkpointing::Selective, false) => {
                let scores = if self.flash {
                    0.0
                } else {
                    5.0 * f64::from(m.heads) * self.seq * self.train_bytes / 2.0
                };
                layers * (per_layer - scores) + scores
            }
            (Checkpointing::None, false) => layers * per_layer,
        };
        // While a layer's backward runs, the gradients of its MLP
        // intermediates (two f-wide for a gated MLP) sit beside its activations.
        let working = if self.stack.backward_working_set { self.mlp_gradient_bytes_per_token() } else { 0.0 };
        // Logits held for the loss (see `stack`).
        let logits_per_token = f64::from(m.vocab)
            * self.rl.map_or(self.stack.loss_bytes_per_vocab, |r| rl::LOGITS_BYTES * r.logit_share());
        // Pipelined, the first stage holds L layers' worth and the last L/pp
        // layers plus the logits; the larger decides. Both divide by tp
        // (sequence parallelism; vocabulary-parallel logits).
        let stored = stored.max(0.0) + working;
        let per_token =
            if pp > 1.0 { stored.max(stored / pp + logits_per_token) } else { stored + logits_per_token };
        TrainMemory {
            weights,
            gradients,
            optimizer,
            activations: tokens * per_token / tp,
            overhead: OVERHEAD_BYTES,
        }
    }

    /// What PyTorch's op-level selective checkpointing keeps of one layer
    /// per token (see `stack`): the layer input and the outputs of wq, wv,
    /// the attention kernel, w1 and w2 — 2h + 2q + kv + f values at 16
    /// bits, and the attention's fp32 log-sum-exp per head.
    fn op_selective_bytes_per_token(&self) -> f64 {
        let m = self.model;
        let h = f64::from(m.hidden);
        let q = f64::from(m.heads) * f64::from(m.head_dim);
        let kv = f64::from(m.kv_heads) * f64::from(m.head_dim);
        let f = super::arch::active_ffn(m);
        (2.0 * h + 2.0 * q + kv + f) * self.train_bytes + 4.0 * f64::from(m.heads)
    }

    /// Gradients of the MLP's intermediates per token during its backward:
    /// gate and up (2·f) for a gated MLP, the one f-wide input of the
    /// activation otherwise, at 16 bits.
    fn mlp_gradient_bytes_per_token(&self) -> f64 {
        let m = self.model;
        let f = super::arch::active_ffn(m);
        let gated = super::arch::gated_ffn(m);
        (if gated { 2.0 } else { 1.0 }) * f * self.train_bytes
    }

    /// The precision the matmuls run at.
    pub fn compute(&self, gpu: &Gpu) -> Compute {
        if self.format.id == "fp32" {
            Compute::Fp32
        } else if self.format.id == "fp8" {
            precision::executed(Compute::Fp8, gpu)
        } else {
            Compute::Bf16
        }
    }

    /// The job planned on `gpu`: an RL job's generation engine takes a
    /// share of that GPU's memory (`RlJob::gpu_bytes`).
    pub fn on_gpu(&self, gpu: &Gpu) -> TrainJob<'a> {
        TrainJob { rl: self.rl.map(|r| RlJob { gpu_bytes: gpu.memory_bytes(), ..r }), ..self.clone() }
    }

    /// Tokens the job trains on: an RL run's sequences (`RlJob::sequences`) at prompt + completion; the
    /// user's, or for pre-training the
    /// compute-optimal 20 tokens per parameter (Hoffmann et al. 2022), or
    /// 100 M for fine-tuning; times epochs.
    pub fn job_tokens(&self, cfg: &Config) -> f64 {
        if let Some(rl) = self.rl {
            return rl.sequences() * rl.seq() * cfg.epochs;
        }
        let base = cfg.tokens.unwrap_or(match self.task {
            Task::Pretrain => 20.0 * self.model.params_total,
            _ => 1e8,
        });
        base * cfg.epochs
    }

    /// Size of one saved checkpoint: full (16-bit weights + optimizer states)
    /// or the adapter alone.
    /// The states the plan keeps in CPU memory instead of on the GPUs: the
    /// optimizer's (`optim_offload`, or with the parameters under ZeRO-3),
    /// and the parameters themselves (`param_offload` at ZeRO-3).
    pub fn offloaded(&self) -> (bool, bool) {
        let params = self.offload_params && self.zero >= 3;
        (self.optim_offload || params, params)
    }

    /// CPU memory each of `instances` instances needs for the offloaded
    /// states, by DeepSpeed's own estimator with `zero_init`
    /// (deepspeedai/DeepSpeed@ea78ab6863441bdf40e352132d5f930cc9e2d7aa
    /// deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs):
    /// per trainable parameter its optimizer bytes plus fp32 gradients (16
    /// for mixed-precision AdamW: fp32 master, two moments, gradient), plus
    /// the parameters at their width when they are offloaded too (18 in
    /// all), times its `additional_buffer_factor` 1.5, split over the nodes.
    /// None when nothing is offloaded.
    pub fn host_offload_bytes(&self, instances: u32) -> Option<f64> {
        let (optim, params) = self.offloaded();
        if !optim {
            return None;
        }
        let m = self.model;
        let states = self.trainable_params() * (self.optimizer_bytes_per_param() + 4.0);
        let weights = match (params, self.method) {
            (false, _) => 0.0,
            (true, Method::Full) => m.params_total * self.train_bytes,
            (true, _) => {
                m.body_params() * self.format.body_bits / 8.0
                    + m.embedding_params() * self.format.embed_bits / 8.0
            }
        };
        Some((states + weights) * 1.5 / f64::from(instances.max(1)))
    }

    pub fn checkpoint_bytes(&self) -> f64 {
        match self.method {
            Method::Full => self.model.params_total * (2.0 + self.optimizer_bytes_per_param()),
            _ => self.trainable_params() * 4.0,
        }
    }
}
