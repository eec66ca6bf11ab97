//! LLM serving memory of one plan: KV cache per sequence (with a shared
//! prefix held once and the fixed state of linear-attention or state-space
//! layers), activations, the engine's usable share of the GPU, and the
//! most sequences that fit. The job and its speed are in `serve.rs`.

use super::super::catalog::Gpu;
use super::super::config::{Batch, Engine};
use super::super::engines;
use super::serve::{Plan, ServeJob, ServeMemory};
use super::{arch, engine, engine_rules, layers};

impl ServeJob<'_> {
    /// The shared prefix's KV on one GPU, held once per copy of the model.
    pub fn shared_kv_per_gpu(&self, plan: Plan) -> f64 {
        layers::shared_kv_bytes(
            self.model,
            self.shared_prefix,
            self.kv_elem_bytes,
            arch::kv_split(self.model, plan.tp),
        ) / f64::from(plan.pp)
    }

    /// What each sequence holds on one GPU beside the shared prefix (under
    /// data-parallel attention, on the average GPU: `1 / dp` of it, as
    /// [`Self::kv_per_seq_per_gpu`]; each rank keeps its own copy of the
    /// prefix).
    pub fn private_kv_per_seq_per_gpu(&self, plan: Plan) -> f64 {
        // (Speculative decoding's drafter keeps its own cache of every sequence, `spec.rs`.)
        self.kv_per_seq_per_gpu(plan, self.context_tokens())
            - self.shared_kv_per_gpu(plan) / f64::from(plan.dp.max(1))
            + self.draft_kv_per_seq_per_gpu(plan)
    }

    /// KV bytes of one sequence at full context on one GPU of a plan,
    /// rounded up to the engine's allocation block, plus the fixed state of
    /// its linear-attention or state-space layers ([`layers::state_bytes_per_seq`]).
    /// Under data-parallel attention each rank caches only its own sequences
    /// (sequences spread evenly over the ranks: a sequence costs a GPU
    /// `1 / dp` of its cache on the average); under tensor-parallel
    /// attention a latent (MLA) cache is whole on every GPU of the group
    /// (`arch::kv_split`).
    pub fn kv_per_seq_per_gpu(&self, plan: Plan, context: f64) -> f64 {
        let block = f64::from(engine::kv_block_tokens(self.engine));
        let tokens = (context / block).ceil() * block;
        let mut bytes = arch::kv_bytes_per_seq(
            self.model,
            tokens,
            self.kv_elem_bytes,
            arch::kv_split(self.model, plan.tp),
        ) + layers::state_bytes_per_seq(self.model, plan.tp);
        if let Some(v) = &self.model.vision {
            if let (Some(cross), true) = (v.cross_attention_layers, self.images > 0.0) {
                // Cross-attention layers cache K/V of the image tokens.
                let img = v.tokens_per_image((0, 0)) * self.images;
                bytes += 2.0
                    * f64::from(cross)
                    * img
                    * f64::from(self.model.kv_heads)
                    * f64::from(self.model.head_dim)
                    * self.kv_elem_bytes
                    / arch::kv_split(self.model, plan.tp);
            }
        }
        bytes / f64::from(plan.pp) / f64::from(plan.dp.max(1))
    }

    /// Activation workspace of one prefill chunk plus the sampler's logits.
    /// Per token: the residual stream and attention projections
    /// (≈ 4·h + 2·d_attn) and the FFN intermediate (2·f, gated) at 2 bytes,
    /// split by TP; logits in fp32 over the vocabulary for each running sequence.
    /// Transformers' `generate` runs the whole batch's prompts through the
    /// first forward pass at once (`input_ids` of shape batch × prompt; no
    /// chunked prefill, huggingface/transformers
    /// `src/transformers/generation/utils.py`, `_sample`), so its chunk is
    /// every running sequence's prompt; the serving engines schedule a token
    /// budget per step instead.
    pub fn activation_bytes(&self, plan: Plan, batch: f64) -> f64 {
        let m = self.model;
        let per_step = engine::prefill_chunk_tokens(self.engine, self.prompt_tokens().round() as u32);
        let chunk = if self.engine == Engine::Hf {
            f64::from(per_step) * batch.max(1.0)
        } else {
            f64::from(per_step)
        };
        let ffn = super::arch::active_ffn(m);
        let attn = f64::from(m.heads) * f64::from(m.head_dim);
        // Data-parallel attention: each rank's attention over its `tp` GPUs, the FFN over the group, its own
        // sequences' logits.
        let per_token = if plan.dp <= 1 {
            4.0 * f64::from(m.hidden) + (2.0 * attn + 2.0 * ffn) / f64::from(plan.tp)
        } else {
            4.0 * f64::from(m.hidden)
                + 2.0 * attn / f64::from(plan.tp.max(1))
                + 2.0 * ffn / f64::from(plan.group())
        };
        chunk * per_token * 2.0 + batch.max(1.0) / f64::from(plan.dp.max(1)) * f64::from(m.vocab) * 4.0
    }

    /// Weight bytes one GPU of a plan holds: an even share of every weight
    /// under tensor (and expert) parallelism; under data-parallel attention
    /// the attention weights (and a vision tower) split over each rank's
    /// `tp` GPUs only, copied on every rank, the routed experts over the
    /// whole group, the dense FFN, shared experts, embeddings and head as
    /// the engine splits them (`engine_rules::dense_ways`).
    pub fn weights_per_gpu(&self, plan: Plan) -> f64 {
        if plan.dp <= 1 {
            return self.weight_bytes() / f64::from(plan.gpus());
        }
        let m = self.model;
        let bits = self.body_bits() / 8.0;
        let attention = (m.attention_params() * f64::from(m.layers)).min(m.body_params()) * bits
            + m.vision_params() * 2.0;
        let experts = m
            .moe
            .as_ref()
            .map_or(0.0, |moe| m.expert_params() * f64::from(moe.experts) * f64::from(m.moe_layers()) * bits);
        let rest = (self.weight_bytes() - attention - experts).max(0.0);
        let l = plan.layout();
        let dense = f64::from(engine_rules::dense_ways(self.engine, l));
        (attention / f64::from(l.tp.max(1)) + experts / f64::from(l.gpus()) + rest / dense)
            / f64::from(plan.pp)
    }

    /// With a tuple KV cache, each layer builds its grown K/V with
    /// `torch.cat([past_key_value[0], key_states])` (transformers v4.35.2
    /// `models/llama/modeling_llama.py`; Qwen(1)'s remote code keeps
    /// `layer_past=(key,value)` the same way, QwenLM/Qwen README.md, section
    /// "Quantization of KV cache") while `generate` still holds the previous
    /// step's tuple until the forward pass returns and
    /// `_update_model_kwargs_for_generation` replaces it: at the last step
    /// the whole cache exists twice. The `Cache` classes of v4.36
    /// (huggingface/transformers PR #26681) replace each layer's tensors in
    /// place, freeing the old copy at once; the current profile holds it once.
    pub fn tuple_cache_copy_bytes(&self, plan: Plan, batch: f64) -> f64 {
        if self.engine == Engine::Hf && self.tuple_kv_cache {
            batch * self.kv_per_seq_per_gpu(plan, self.context_tokens())
        } else {
            0.0
        }
    }

    pub fn memory(&self, plan: Plan, batch: f64) -> ServeMemory {
        ServeMemory {
            weights: self.weights_per_gpu(plan) + self.draft_weights_per_gpu(plan),
            kv_cache: batch * self.private_kv_per_seq_per_gpu(plan)
                + if batch > 0.0 { self.shared_kv_per_gpu(plan) } else { 0.0 },
            activations: self.activation_bytes(plan, batch) + self.tuple_cache_copy_bytes(plan, batch),
            overhead: engine::runtime_overhead_bytes(self.engine),
        }
    }

    /// Usable fraction of a GPU's memory for this engine (the engine
    /// table's `usable_share`: vLLM's default `gpu_memory_utilization`,
    /// SGLang's `mem_fraction_static`, others leave a little for the driver), applied to the memory the
    /// driver reports (`Gpu::usable_bytes`), not the nominal size: vLLM's
    /// worker requests `MemorySnapshot().total_memory ×
    /// gpu_memory_utilization`, where the total is `torch.cuda.mem_get_info`'s
    /// (vllm-project/vllm `vllm/v1/worker/gpu_worker.py`, `init_device`;
    /// docs: "fraction of GPU memory to be used for the model executor",
    /// and vLLM-Omni's guide states `requested_memory = total_gpu_memory ×
    /// gpu_memory_utilization`, docs.vllm.ai/projects/vllm-omni/en/latest/
    /// configuration/gpu_memory_utilization/). On an ECC-on L4 that is
    /// 0.9 × 23,034 MiB, not 0.9 × 24 GiB.
    pub fn usable_bytes(&self, gpu: &Gpu) -> f64 {
        let f = engines::row(self.engine).usable_share.value;
        gpu.usable_bytes() * f
    }

    /// Most sequences whose KV cache fits beside the weights, capped by the
    /// engine's scheduler limit (the engine table's `max_seqs`).
    pub fn max_batch(&self, gpu: &Gpu, plan: Plan) -> u32 {
        let fixed = self.memory(plan, 1.0);
        let kv_and_logits = self.private_kv_per_seq_per_gpu(plan)
            + f64::from(self.model.vocab) * 4.0 / f64::from(plan.dp.max(1));
        // Each sequence adds its KV cache and its logits, and under HF its
        // prompt's share of the one prefill pass (see `activation_bytes`),
        // which the first sequence's share in `fixed` already holds once.
        let per_seq = self.memory(plan, 2.0).total() - fixed.total();
        let extra = (per_seq - kv_and_logits).max(0.0);
        let free = self.usable_bytes(gpu) - fixed.weights - fixed.activations - fixed.overhead + extra;
        if free <= 0.0 || per_seq <= 0.0 {
            return 0;
        }
        let cap = engines::row(self.engine).max_seqs.value;
        let cap = f64::from(cap.seqs) * if cap.per_dp_rank { f64::from(plan.dp.max(1)) } else { 1.0 };
        (free / per_seq).floor().clamp(0.0, cap) as u32
    }

    pub fn resolve_batch(&self, batch: Batch, gpu: &Gpu, plan: Plan) -> f64 {
        match batch {
            Batch::N(n) => f64::from(n),
            Batch::Max => f64::from(self.max_batch(gpu, plan).max(1)),
        }
    }
}
