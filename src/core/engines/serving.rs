//! The serving engines' rows (module docs in `engines`). Flags written by
//! the launch texts are checked against the engines' sources in
//! `tests/data/export/<engine>.flags`, which names the commit read.

use super::super::config::{Engine, Spec};
use super::super::thresholds::USABLE_SHARE;
use super::fields::{
    cite, DpAttention, EngineRow, ExpertParallel, Kernels, LaunchRow, Reservation, SeqCap, Split,
};

/// The rows, in `Engine::ALL`'s order.
pub static ROWS: [&EngineRow; 5] = [&VLLM, &SGLANG, &TRT_LLM, &LLAMA_CPP, &HF];

/// Their launch facts, in the same order.
pub static LAUNCH_ROWS: [&LaunchRow; 5] =
    [&VLLM_LAUNCH, &SGLANG_LAUNCH, &TRT_LLM_LAUNCH, &LLAMA_CPP_LAUNCH, &HF_LAUNCH];

/// vLLM's `--gpu-memory-utilization` default (vllm-project/vllm @001999d2f360
/// vllm/engine/arg_utils.py): the share of the driver-reported memory its
/// worker requests (`vllm/v1/worker/gpu_worker.py`, `init_device`: `MemorySnapshot().total_memory ×
/// gpu_memory_utilization`, the total `torch.cuda.mem_get_info`'s; on an ECC-on L4 that is 0.9 × 23,034 MiB).
const VLLM_SHARE: f64 = 0.9;
const VLLM_SHARE_SOURCE: &str = "vllm-project/vllm@001999d2f360 vllm/engine/arg_utils.py \
    (--gpu-memory-utilization default 0.9); vllm/v1/worker/gpu_worker.py init_device (of the driver-reported \
        total)";

/// SGLang's `--mem-fraction-static` as the plan assumes it and the export sets it.
const SGLANG_SHARE: f64 = 0.88;
const SGLANG_SHARE_SOURCE: &str = "SGLang picks --mem-fraction-static at start-up from the GPU's memory and \
    the parallel sizes (sgl-project/sglang python/sglang/srt/server_args.py); the plan assumes 0.88 and the \
        export's command sets it";

/// Where tensor-parallel engines check a format's blocks and groups, and run expert and data-parallel
/// attention.
const SHAPE_RULES: &str = "estimate/engine_rules.rs: vllm-project/vllm fp8_utils.py \
    validate_fp8_block_shape, marlin_utils.py @007d5005; vllm-project/vllm#17569, #25292, #17604, #13640";
const SPLIT_TENSOR: &str = "tensor parallel within a node; one copy over several nodes as pipeline stages \
    (docs.vllm.ai serving/parallelism_scaling.md)";
const SPLIT_LAYERS: &str =
    "llama.cpp's default --split-mode layer; transformers' device_map=\"auto\" (Accelerate's big-model \
        inference places consecutive layers on each GPU and runs them in turn)";
const PREFIX: &str = "vLLM automatic prefix caching, SGLang's radix cache (unless --disable-radix-cache, \
    docs.sglang.ai server arguments), TensorRT-LLM KvCacheConfig.enable_block_reuse = True (llm-api \
        reference); llama.cpp reuses a slot's own prompt only (cache_prompt); transformers' generate keeps \
            no cache between calls";
const BLOCKS: &str = "vLLM block_size 16; TensorRT-LLM tokens_per_block 32; SGLang page size 1; llama.cpp \
    pads the context to 256; transformers grows exactly";
const CHUNK: &str = "vLLM V1 max_num_batched_tokens 8192; SGLang chunked_prefill_size 8192; TensorRT-LLM \
    max_num_tokens 8192; llama.cpp n_ubatch 512; transformers runs the whole prompt";
const SEQS: &str = "vLLM max_num_seqs (1024 in V1 on large GPUs; \"--max-num-seqs applies per DP rank\", \
    docs/serving/data_parallel_deployment.md); TensorRT-LLM max_batch_size 2048; SGLang max_running_requests \
        ~4096; llama.cpp --parallel slots; transformers none (512 assumed)";
const OVERHEAD: &str = "the CUDA context and library workspaces (~0.5 GiB; PyTorch \"CUDA semantics\" \
    notes), plus CUDA-graph pools where graphs are captured (vLLM logs 0.5–1 GiB for graph capture)";
const CHECKPOINTS: &str =
    "loads the Hugging Face checkpoint (safetensors) in the plan's format; GGUF through --quantization gguf \
        where the support matrix lists it";

/// Every method (`spec=eagle|mtp|draft|ngram`).
const ALL_SPEC: &[Spec] = &[Spec::Off, Spec::Eagle, Spec::Mtp, Spec::Draft, Spec::Ngram];
const GRAPHS: &str = "vLLM V1 compiles and captures CUDA graphs by default (from v0.8.0); SGLang captures \
    CUDA graphs (issue #1008); llama.cpp replays single-token steps as one CUDA graph from PR #6766 \
        (bc4bba36, 2024-05-08)";
const EP: &str = "vllm-project/vllm docs/serving/expert_parallel_deployment.md @01702569 \
    (--enable-expert-parallel, \"EP_SIZE = TP_SIZE × DP_SIZE\"); \
        vllm/model_executor/layers/fused_moe/layer.py determine_expert_map gives the remainder to the first \
            ranks";
const DPA: &str = "vllm-project/vllm docs/serving/data_parallel_deployment.md @01e4fce0 (\"each DP engine \
    owns a number of per-GPU worker processes equal to the configured TP size\")";
const SGLANG_EP: &str = "sgl-project/sglang@001067ff python/sglang/srt/server_args.py (--ep-size); \
    fused_moe_triton/layer.py FusedMoE.__init__: assert num_experts % self.moe_ep_size == 0";
const SGLANG_DPA: &str =
    "sgl-project/sglang@001067ff server_args.py (--enable-dp-attention: \"Enabling data \
    parallelism for attention and tensor parallelism for FFN\"; enable_dense_mlp_attn_tp and \
        enable_dp_lm_head off by default); docs/advanced_features/dp_dpa_router_guide.md @1c34b5e3";

pub static VLLM: EngineRow = EngineRow {
    engine: Engine::Vllm,
    reservation: cite(Reservation::Card { share: VLLM_SHARE }, VLLM_SHARE_SOURCE),
    usable_share: cite(VLLM_SHARE, VLLM_SHARE_SOURCE),
    overhead_gib: cite(1.0, OVERHEAD),
    kv_block_tokens: cite(16, BLOCKS),
    prefill_chunk: cite(Some(8192), CHUNK),
    max_seqs: cite(SeqCap { seqs: 1024, per_dp_rank: true }, SEQS),
    prefix_cache: cite(true, PREFIX),
    split: cite(Split::Tensor, SPLIT_TENSOR),
    shape_rules: cite(true, SHAPE_RULES),
    expert_parallel: Some(cite(ExpertParallel { experts_divide_group: false }, EP)),
    dp_attention: Some(cite(DpAttention { dense_over_group: false }, DPA)),
    kernels: cite(Kernels::Graphs, GRAPHS),
    speculative: cite(
        ALL_SPEC,
        "--speculative-config methods eagle3, deepseek_mtp / qwen3_next_mtp, ngram \
        (vllm/config/speculative.py; docs.vllm.ai v0.12.0 api/vllm/config/speculative) and draft_model (vLLM \
            PR #24322)",
    ),
    gguf_only: cite(false, CHECKPOINTS),
};

pub static VLLM_LAUNCH: LaunchRow = LaunchRow {
    engine: Engine::Vllm,
    name: "vLLM",
    version: cite(
        "v0.11.2",
        "static/support.csv (docs.vllm.ai/en/v0.11.2): pip install vllm==0.11.2, image \
        vllm/vllm-openai:v0.11.2 (docs.vllm.ai en/v0.11.2/deployment/docker)",
    ),
    other_versions: &["vllm-ascend v0.13.0 (docs.vllm.ai/projects/ascend)"],
    package: Some("vllm"),
    image_version: None,
    rocm_image: Some(cite(
        "rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210",
        "docs.vllm.ai en/v0.11.2/getting_started/installation/gpu (AMD ROCm, pre-built images); the tag is \
            in the rocm/vllm tag list quoted in ROCm/amdgpu-docs#88; built for MI300 (gfx942) and MI350 \
                (gfx950)",
    )),
    parallel_flags: Some(("--tensor-parallel-size", "--pipeline-parallel-size")),
    context_flag: Some(cite(
        "--max-model-len",
        "tests/data/export/vllm.flags (vllm/engine/arg_utils.py \
        @001999d2)",
    )),
    seqs_flag: Some("--max-num-seqs"),
    port: cite(
        8000,
        "tests/data/export/vllm.flags: --port, the OpenAI-compatible server's port (default \
        8000)",
    ),
    memory_flag: Some("--gpu-memory-utilization"),
    expert_parallel_flag: Some("--enable-expert-parallel"),
    dp_attention_flag: Some("--data-parallel-size"),
};

pub static SGLANG: EngineRow = EngineRow {
    engine: Engine::Sglang,
    reservation: cite(Reservation::Static { share: SGLANG_SHARE }, SGLANG_SHARE_SOURCE),
    usable_share: cite(SGLANG_SHARE, SGLANG_SHARE_SOURCE),
    overhead_gib: cite(1.0, OVERHEAD),
    kv_block_tokens: cite(1, BLOCKS),
    prefill_chunk: cite(Some(8192), CHUNK),
    max_seqs: cite(SeqCap { seqs: 4096, per_dp_rank: false }, SEQS),
    prefix_cache: cite(true, PREFIX),
    split: cite(Split::Tensor, SPLIT_TENSOR),
    shape_rules: cite(true, SHAPE_RULES),
    expert_parallel: Some(cite(ExpertParallel { experts_divide_group: true }, SGLANG_EP)),
    dp_attention: Some(cite(DpAttention { dense_over_group: true }, SGLANG_DPA)),
    kernels: cite(Kernels::Graphs, GRAPHS),
    speculative: cite(
        ALL_SPEC,
        "--speculative-algorithm EAGLE3, NEXTN (MTP), STANDALONE (draft model), \
        NGRAM (python/sglang/srt/server_args.py; docs.sglang.io advanced_features/speculative_decoding)",
    ),
    gguf_only: cite(false, CHECKPOINTS),
};

pub static SGLANG_LAUNCH: LaunchRow = LaunchRow {
    engine: Engine::Sglang,
    name: "SGLang",
    version: cite(
        "main (docs.sglang.io, undated)",
        "static/support.csv: SGLang main (docs.sglang.io, \
        undated); the pip install is unpinned",
    ),
    other_versions: &[],
    package: Some("sglang"),
    image_version: Some(cite(
        "v0.5.5.post2",
        "sgl-project/sglang@3c76c022 docs/diffusion/installation.md (Platform-Specific: ROCm, \
            lmsysorg/sglang:v0.5.5.post2-rocm700-mi30x); docs.sglang.io docs/hardware-platforms/amd_gpu.md \
                (-rocm700-mi30x for MI300X/MI325X, -mi35x for MI350X/MI355X)",
    )),
    rocm_image: None,
    parallel_flags: Some(("--tp-size", "--pp-size")),
    context_flag: Some(cite(
        "--context-length",
        "tests/data/export/sglang.flags (sgl-project/sglang@001067ff \
        server_args.py)",
    )),
    seqs_flag: Some("--max-running-requests"),
    port: cite(
        30000,
        "tests/data/export/sglang.flags: port (sgl-project/sglang@001067ff server_args.py, \
        default 30000)",
    ),
    memory_flag: Some("--mem-fraction-static"),
    expert_parallel_flag: Some("--ep-size"),
    dp_attention_flag: Some("--enable-dp-attention"),
};

pub static TRT_LLM: EngineRow = EngineRow {
    engine: Engine::TrtLlm,
    reservation: cite(
        Reservation::FreeForKv { share: 0.9 },
        "NVIDIA/TensorRT-LLM@00209af1 tensorrt_llm/commands/serve.py: --kv_cache_free_gpu_memory_fraction \
            default 0.9, \"free GPU memory fraction reserved for KV cache, after allocating model weights \
                and buffers\"",
    ),
    usable_share: cite(
        USABLE_SHARE,
        "thresholds::USABLE_SHARE: a PyTorch job without a memory fraction of \
        its own (the project's assumption)",
    ),
    overhead_gib: cite(0.8, OVERHEAD),
    kv_block_tokens: cite(32, BLOCKS),
    prefill_chunk: cite(Some(8192), CHUNK),
    max_seqs: cite(SeqCap { seqs: 2048, per_dp_rank: false }, SEQS),
    prefix_cache: cite(true, PREFIX),
    split: cite(Split::Tensor, SPLIT_TENSOR),
    shape_rules: cite(
        false,
        "TensorRT-LLM builds its own engine from the checkpoint; no load failure of the \
        block/group kind is recorded for it (estimate/engine_rules.rs)",
    ),
    expert_parallel: None,
    dp_attention: None,
    kernels: cite(
        Kernels::Compiled,
        "TensorRT-LLM runs the engine it builds from the checkpoint \
        (trtllm-serve, tensorrt_llm/commands/serve.py)",
    ),
    speculative: cite(
        ALL_SPEC,
        "EAGLE 3, MTP (DeepSeek-V3/R1), draft/target, NGram \
        (nvidia.github.io/TensorRT-LLM/features/speculative-decoding.html)",
    ),
    gguf_only: cite(false, CHECKPOINTS),
};

pub static TRT_LLM_LAUNCH: LaunchRow = LaunchRow {
    engine: Engine::TrtLlm,
    name: "TensorRT-LLM",
    version: cite(
        "0.18.2",
        "static/support.csv: 0.18.2 (Hopper, Ada, Ampere rows), 1.0.0 (Blackwell rows); \
        pip install tensorrt_llm==0.18.2",
    ),
    other_versions: &["1.0.0"],
    package: Some("tensorrt_llm"),
    image_version: None,
    rocm_image: None,
    parallel_flags: Some(("--tp_size", "--pp_size")),
    context_flag: Some(cite(
        "--max_seq_len",
        "tests/data/export/trt-llm.flags: \"maximum total length of one \
        request, including prompt and outputs\"",
    )),
    seqs_flag: Some("--max_batch_size"),
    port: cite(
        8000,
        "tests/data/export/trt-llm.flags: --port (NVIDIA/TensorRT-LLM@00209af1 \
        tensorrt_llm/commands/serve.py)",
    ),
    memory_flag: Some("--kv_cache_free_gpu_memory_fraction"),
    expert_parallel_flag: None,
    dp_attention_flag: None,
};

pub static LLAMA_CPP: EngineRow = EngineRow {
    engine: Engine::LlamaCpp,
    reservation: cite(
        Reservation::Exact,
        "llama.cpp allocates exactly the context it is given (-c); it \
        takes no memory fraction",
    ),
    usable_share: cite(
        0.97,
        "the project's assumption: llama.cpp allocates exactly, leaving a little of the \
        driver-reported memory free",
    ),
    overhead_gib: cite(0.3, OVERHEAD),
    kv_block_tokens: cite(256, BLOCKS),
    prefill_chunk: cite(Some(512), CHUNK),
    max_seqs: cite(SeqCap { seqs: 256, per_dp_rank: false }, SEQS),
    prefix_cache: cite(false, PREFIX),
    split: cite(Split::Layers, SPLIT_LAYERS),
    shape_rules: cite(false, "a layer split cuts no dimension (estimate/engine_rules.rs)"),
    expert_parallel: None,
    dp_attention: None,
    kernels: cite(Kernels::Graphs, GRAPHS),
    speculative: cite(
        ALL_SPEC,
        "--spec-type draft-simple, draft-eagle3, draft-mtp, ngram-simple \
        (ggml-org/llama.cpp@00dc8057 tools/server/README.md)",
    ),
    gguf_only: cite(
        true,
        "llama.cpp requires the model to be stored in the GGUF file format (ggml-org/llama.cpp README.md; \
            convert_hf_to_gguf.py converts others)",
    ),
};

pub static LLAMA_CPP_LAUNCH: LaunchRow = LaunchRow {
    engine: Engine::LlamaCpp,
    name: "llama.cpp",
    version: cite(
        "master (README Supported backends, 2025)",
        "static/support.csv: llama.cpp master; flags checked at ggml-org/llama.cpp@00dc8057 \
            tools/server/README.md (tests/data/export/llama.cpp.flags); built from source",
    ),
    other_versions: &["master (docs/backend/CANN.md, undated)", "master (ggml-cuda mmvq.cu, 2025)"],
    package: None,
    image_version: None,
    rocm_image: None,
    parallel_flags: None,
    context_flag: Some(cite(
        "-c",
        "ggml-org/llama.cpp@00dc8057 tools/server/README.md: -c is the context of \
        all -np slots together",
    )),
    seqs_flag: Some("-np"),
    port: cite(8080, "ggml-org/llama.cpp@00dc8057 tools/server/README.md (--port, default 8080)"),
    memory_flag: None,
    expert_parallel_flag: None,
    dp_attention_flag: None,
};

pub static HF: EngineRow = EngineRow {
    engine: Engine::Hf,
    reservation: cite(
        Reservation::Allocator,
        "PyTorch's caching allocator keeps freed blocks reserved (pytorch.org/docs/stable/notes/cuda.html, \
            Memory management); thresholds::ALLOCATOR_RESERVE",
    ),
    usable_share: cite(
        USABLE_SHARE,
        "thresholds::USABLE_SHARE: a PyTorch job without a memory fraction of \
        its own (the project's assumption)",
    ),
    overhead_gib: cite(0.5, OVERHEAD),
    kv_block_tokens: cite(1, BLOCKS),
    prefill_chunk: cite(None, CHUNK),
    max_seqs: cite(SeqCap { seqs: 512, per_dp_rank: false }, SEQS),
    prefix_cache: cite(false, PREFIX),
    split: cite(Split::Layers, SPLIT_LAYERS),
    shape_rules: cite(false, "a layer split cuts no dimension (estimate/engine_rules.rs)"),
    expert_parallel: None,
    dp_attention: None,
    kernels: cite(
        Kernels::Eager,
        "transformers' generate runs eagerly: Python, PyTorch's dispatcher and one \
        kernel launch per op (estimate/eager.rs; huggingface/optimum-benchmark running-llamas @f75d9f9)",
    ),
    speculative: cite(
        &[Spec::Off, Spec::Draft, Spec::Ngram],
        "a draft model (generate(assistant_model=…)) \
        and prompt lookup (prompt_lookup_num_tokens); no EAGLE head or MTP layer",
    ),
    gguf_only: cite(false, CHECKPOINTS),
};

pub static HF_LAUNCH: LaunchRow = LaunchRow {
    engine: Engine::Hf,
    name: "transformers",
    version: cite("v5.8.1", "static/support.csv: transformers v5.8.1; pip install transformers==5.8.1"),
    other_versions: &[],
    package: Some("transformers"),
    image_version: None,
    rocm_image: None,
    parallel_flags: None,
    context_flag: None,
    seqs_flag: None,
    port: cite(8000, "the export's choice: transformers has no standard server command"),
    memory_flag: None,
    expert_parallel_flag: None,
    dp_attention_flag: None,
};
