//! The training estimator's rules: bytes per parameter, layouts, the
//! stacks' memory techniques and the cost of offloading (the measured rows
//! are scored in `training_data`).

use whichgpu::core::catalog::Catalog;
use whichgpu::core::config::{Checkpointing, Config, Method, Optim, Task, Trainer};
use whichgpu::core::estimate::stack::Stack;
use whichgpu::core::estimate::train::{mfu, Layout, TrainJob};
use whichgpu::core::evaluate::evaluate;

use crate::common;
use proptest::prelude::*;

const GIB: f64 = 1_073_741_824.0;

#[test]
fn seven_b_full_adamw_is_16_bytes_per_parameter() {
    let catalog = common::catalog();
    let m = catalog.model("llama-2-7b").expect("model");
    let cfg = Config { task: Task::Finetune, method: Method::Full, optim: Optim::Adamw, ..Config::default() };
    let job = TrainJob::new(m, &cfg);
    let mem = job.memory(1.0);
    assert_eq!(mem.weights + mem.gradients + mem.optimizer, 16.0 * m.params_total);
    // ZeRO-3 over 8 GPUs divides all three.
    let z3 = TrainJob { zero: 3, ..job.clone() }.memory(8.0);
    assert_eq!(z3.weights + z3.gradients + z3.optimizer, 2.0 * m.params_total);
}

#[test]
fn tensor_and_pipeline_parallel_divide_the_states() {
    let catalog = common::catalog();
    let m = catalog.model("llama-2-7b").expect("model");
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        optim: Optim::Adamw,
        mb: Some(2),
        seq: 4096,
        gc: Checkpointing::None,
        ..Config::default()
    };
    let job = TrainJob::new(m, &cfg);
    let one = job.memory(1.0);
    // tp 2 × pp 2: weights, gradients and AdamW states are 16 bytes per
    // parameter over the 4 model-parallel GPUs.
    let split = job.memory_layout(Layout { dp: 1, tp: 2, pp: 2 });
    assert_eq!(split.weights + split.gradients + split.optimizer, 16.0 * m.params_total / 4.0);
    // Activations divide by tp; the first pipeline stage still holds all
    // layers' worth (pp micro-batches of L/pp layers), without the logits.
    let v = f64::from(m.vocab) * Stack::of(Trainer::Hf).loss_bytes_per_vocab * 2.0 * 4096.0;
    assert!(
        (split.activations - (one.activations - v) / 2.0).abs() < 1.0,
        "{} vs {}",
        split.activations,
        (one.activations - v) / 2.0
    );
    // Data parallel without ZeRO keeps everything on every GPU.
    assert_eq!(job.memory_layout(Layout::data(8)), one);
}

#[test]
fn seventy_b_full_fine_tune_without_zero_takes_model_parallelism() {
    let catalog = common::catalog();
    let today = common::today();
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        zero: Some(0),
        trainer: Trainer::Megatron,
        model: Some("llama-3.1-70b".into()),
        gpu: Some("h100-sxm-80gb".into()),
        ..Config::default()
    };
    let a = evaluate(&cfg, Vec::new(), catalog, today);
    let r = a.results.first().expect("one GPU type");
    let (dp, tp, pp) = (
        r.speeds.train_dp().unwrap_or(0),
        r.speeds.train_tp().unwrap_or(0),
        r.speeds.train_pp().unwrap_or(0),
    );
    // 16 bytes × 70.6 B parameters = 1.13 TB: without ZeRO only tp·pp
    // divides it, so at least 16 model-parallel GPUs of 80 GB.
    assert!(
        r.fits && tp * pp >= 16 && dp * tp * pp == r.gpus * r.nodes,
        "{dp}×{tp}×{pp} on {}×{}",
        r.gpus,
        r.nodes
    );
    assert!(r.per_gpu_bytes <= 0.95 * 80.0 * GIB);
    assert!(tp <= 8, "tensor parallel stays inside one 8-GPU node");
    // The offers say the same: two 8×H100 instances.
    let pick = a.offers.iter().find(|o| o.fits).expect("a fitting offer");
    assert_eq!(pick.gpus * pick.instances, 16);
}

#[test]
fn the_hugging_face_trainer_without_zero3_cannot_hold_70b_on_80gb_cards_and_says_what_would() {
    let catalog = common::catalog();
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        model: Some("llama-3.1-70b".into()),
        gpu: Some("h100-sxm-80gb".into()),
        zero: Some(0),
        ..Config::default()
    };
    // No pipeline stages and at most one node of AutoTP: 1.13 TB / 8 does not fit in 80 GB.
    let a = evaluate(&cfg, Vec::new(), catalog, common::today());
    assert!(a.offers.iter().all(|o| !o.fits), "nothing fits");
    let note = a.guidance.iter().find(|g| g.id == "nofit").expect("a note on what to change");
    let text = &note.text();
    for change in ["method=lora", "zero=3", "trainer=megatron"] {
        assert!(text.contains(change), "{change} missing from: {text}");
    }
    // Each suggested stack change does hold it.
    for (key, value) in [("zero", "3"), ("trainer", "megatron")] {
        let c = whichgpu::core::link::set(&cfg, key, value).expect("a valid value");
        let b = evaluate(&c, Vec::new(), catalog, common::today());
        assert!(b.offers.iter().any(|o| o.fits), "{key}={value} fits somewhere");
    }
}

#[test]
fn pipeline_bubble_and_tensor_all_reduces_cost_throughput() {
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-70b").expect("model");
    let gpu = catalog.gpu("h100-sxm-80gb").expect("gpu");
    // One sequence a step: no accumulation beyond the pipeline's own rounds.
    let job =
        TrainJob::new(m, &Config { task: Task::Pretrain, seq: 4096, gbs: Some(1), ..Config::default() });
    let eff = mfu(gpu, Method::Full);
    let link = gpu.link_bytes_per_s(true);
    let ideal = job.tokens_per_s(gpu, eff, Layout::data(1), link, link);
    // pp 4 with m = 16 micro-batches: 4 GPUs at 16/19 of their rate, less
    // the activations sent between stages (small over NVLink).
    let pp = job.tokens_per_s(gpu, eff, Layout { dp: 1, tp: 1, pp: 4 }, link, link);
    let share = pp / (4.0 * ideal);
    assert!(share < 16.0 / 19.0 && share > 0.99 * 16.0 / 19.0, "{share}");
    // Over 2.5 Gbit/s Ethernet between stages each boundary's 134 MB of
    // activations and gradients adds about 0.4 s to a ~1 s stage.
    let slow = job.tokens_per_s(gpu, eff, Layout { dp: 1, tp: 1, pp: 4 }, 2.5e9 / 8.0, link);
    assert!(slow < 0.8 * pp, "{slow} vs {pp}");
    // tp 8 over NVLink: below 8× one GPU, above the pipeline's share.
    let tp = job.tokens_per_s(gpu, eff, Layout { dp: 1, tp: 8, pp: 1 }, link, link);
    assert!(tp < 8.0 * ideal && tp > 0.7 * 8.0 * ideal, "{}", tp / (8.0 * ideal));
    // The same over PCIe is slower.
    let tp_pcie = job.tokens_per_s(gpu, eff, Layout { dp: 1, tp: 8, pp: 1 }, link, gpu.pcie_bytes_per_s());
    assert!(tp_pcie < tp);
}

#[test]
fn lora_and_qlora_fit_where_full_does_not() {
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-8b").expect("model");
    let full = TrainJob::new(m, &Config { task: Task::Finetune, method: Method::Full, ..Config::default() })
        .memory(1.0)
        .total();
    let lora = TrainJob::new(m, &Config { task: Task::Finetune, method: Method::Lora, ..Config::default() })
        .memory(1.0)
        .total();
    let qlora =
        TrainJob::new(m, &Config { task: Task::Finetune, method: Method::Qlora, ..Config::default() })
            .memory(1.0)
            .total();
    assert!(full > 100.0 * GIB && lora < 24.0 * GIB && qlora < lora, "{full} {lora} {qlora}");
}

mod properties {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn checkpointing_never_increases_memory(mb in 1u32..16, seq in 128u32..32768, flash: bool, method in 0usize..3, model in 0usize..40) {
            let catalog = common::catalog();
            let m = &catalog.models[model % catalog.models.len()];
            let method = [Method::Full, Method::Lora, Method::Qlora][method];
            let mem = |gc| TrainJob::new(m, &Config { task: Task::Finetune, method, mb: Some(mb), seq, flash, gc, ..Config::default() }).memory(1.0).total();
            prop_assert!(mem(Checkpointing::Full) <= mem(Checkpointing::Selective));
            prop_assert!(mem(Checkpointing::Selective) <= mem(Checkpointing::None));
        }

        #[test]
        fn more_gpus_under_zero3_never_increase_per_gpu_memory(n in 1u32..512, model in 0usize..40) {
            let catalog = common::catalog();
            let m = &catalog.models[model % catalog.models.len()];
            let job = TrainJob::new(m, &Config { task: Task::Pretrain, zero: Some(3), ..Config::default() });
            prop_assert!(job.memory(f64::from(n + 1)).total() <= job.memory(f64::from(n)).total());
        }

        #[test]
        fn more_tensor_or_pipeline_parallelism_never_increases_per_gpu_memory(t in 0u32..3, p in 0u32..5, zero in 0u8..4, method in 0usize..3, model in 0usize..60) {
            let catalog = common::catalog();
            let m = &catalog.models[model % catalog.models.len()];
            let method = [Method::Full, Method::Lora, Method::Qlora][method];
            let job = TrainJob::new(m, &Config { task: Task::Finetune, method, zero: Some(zero), ..Config::default() });
            let (tp, pp) = (1u32 << t, 1u32 << p);
            let mem = |tp, pp| job.memory_layout(Layout { dp: 2, tp, pp }).total();
            prop_assert!(mem(tp * 2, pp) <= mem(tp, pp));
            prop_assert!(mem(tp, pp * 2) <= mem(tp, pp));
        }
    }
}

#[test]
fn zero3_pays_its_parameter_all_gathers() {
    let catalog = Catalog::bundled().expect("catalog");
    let m = catalog.model("llama-3.1-8b").expect("model");
    let gpu = catalog.gpu("rtx-4090-24gb").expect("gpu");
    let link = gpu.pcie_peer_bytes_per_s();
    let job = |zero: u8, method: Method| {
        TrainJob::new(m, &Config { task: Task::Finetune, method, zero: Some(zero), ..Config::default() })
    };
    let eff = mfu(gpu, Method::Full);
    let l = Layout::data(8);
    let z1 = job(1, Method::Full).tokens_per_s(gpu, eff, l, link, link);
    let z3 = job(3, Method::Full).tokens_per_s(gpu, eff, l, link, link);
    // ZeRO-3 moves 3Ψ per step (two gathers of the parameters and a
    // reduce-scatter of the gradients) against ZeRO-1's 2Ψ; the gathers
    // overlap compute, so a step takes at least that traffic's time and
    // never less than ZeRO-1's.
    let tokens_per_step = 8.0 * l.micro_batches() * 2048.0;
    let traffic_s = 3.0 * 7.0 / 8.0 * m.params_total * 2.0 / link;
    assert!(tokens_per_step / z3 >= traffic_s * 0.999, "ZeRO-3 {z3}: step below its traffic {traffic_s} s");
    assert!(z3 <= z1, "ZeRO-3 {z3} vs ZeRO-1 {z1}");
    // GeForce cards stage collectives through host memory.
    assert!(gpu.pcie_peer_bytes_per_s() < gpu.pcie_bytes_per_s());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// QLoRA's step is LoRA's plus the dequantization of its 4-bit base, one
    /// memory-bound pass over the body weights per matmul pass (forward,
    /// backward, and the forward again under full recomputation): a fixed
    /// time per micro-batch, so its share shrinks as micro-batches grow.
    #[test]
    fn qlora_pays_its_dequantization_once_per_pass(mb in 1u32..16, seq in 128u32..8192, full_gc in any::<bool>()) {
        let catalog = common::catalog();
        let m = catalog.model("llama-3.1-8b").expect("model");
        let gpu = catalog.gpu("rtx-4090-24gb").expect("gpu");
        let link = gpu.pcie_peer_bytes_per_s();
        let eff = mfu(gpu, Method::Lora);
        let gc = if full_gc { Checkpointing::Full } else { Checkpointing::None };
        let job = |method: Method, mb: u32, seq: u32| TrainJob::new(m, &Config { task: Task::Finetune, method, mb: Some(mb), seq, gc, ..Config::default() });
        let step = |method: Method, mb: u32, seq: u32| f64::from(mb) * f64::from(seq) / job(method, mb, seq).tokens_per_s(gpu, eff, Layout::data(1), link, link);
        let passes = if full_gc { 3.0 } else { 2.0 };
        let nf4_bytes = job(Method::Qlora, mb, seq).format.body_bits / 8.0;
        let expected = passes * m.body_params() * (nf4_bytes + 2.0) / gpu.bandwidth_bytes_per_s();
        let extra = step(Method::Qlora, mb, seq) - step(Method::Lora, mb, seq);
        prop_assert!((extra - expected).abs() <= 1e-6 * expected, "extra {extra} s, expected {expected} s");
        prop_assert_eq!(job(Method::Lora, mb, seq).dequant_s(gpu), 0.0);
        // Twice the tokens per micro-batch: the same dequantization over twice the compute.
        let share = |mb: u32| 1.0 - step(Method::Lora, mb, seq) / step(Method::Qlora, mb, seq);
        prop_assert!(share(2 * mb) < share(mb), "{} vs {}", share(2 * mb), share(mb));
    }
}

#[test]
fn trainer_and_offload_keys_round_trip_and_say_what_they_assume() {
    use whichgpu::core::link::{decode, encode};
    let (c, n) = decode("task=finetune&trainer=torchtune&act_offload=1&param_offload=1&zero=3");
    assert!(n.is_empty(), "{n:?}");
    assert_eq!((c.trainer, c.act_offload, c.param_offload), (Trainer::Torchtune, Some(true), true));
    let q = encode(&c);
    for part in ["trainer=torchtune", "act_offload=1", "param_offload=1"] {
        assert!(q.contains(part), "{q}");
    }
    assert_eq!(decode(&q).0, c);
    // act_offload=0 is a choice against the stack's default, kept in the link.
    let (c, _) = decode("trainer=unsloth&act_offload=0");
    assert_eq!(c.act_offload, Some(false));
    assert!(encode(&c).contains("act_offload=0"));
    // The default stack writes nothing: existing links keep their text.
    assert_eq!(encode(&decode("task=finetune").0), "v=1&task=finetune");
    for name in Trainer::NAMES.iter().map(|(n, _)| *n) {
        let (c, n) = decode(&format!("trainer={name}"));
        assert!(n.is_empty() && c.trainer.as_str() == name);
    }
    for bad in ["trainer=jax", "act_offload=2", "param_offload=yes"] {
        assert_eq!(decode(bad).1.len(), 1, "{bad}");
    }
    let catalog = common::catalog();
    let today = common::today();
    // Parameter offload without full sharding: said, and zero=3 assumed.
    let a = whichgpu::core::evaluate::evaluate_query(
        "task=finetune&method=full&param_offload=1&zero=1&gpu=a100-sxm-80gb",
        catalog,
        today,
    );
    let note = a.notices.iter().find(|n| n.key == "param_offload").expect("a notice for param_offload");
    assert!(note.message.contains("zero=3"), "{}", note.message);
    assert!(a.query.contains("zero=3"), "{}", a.query);
    // A stack without parameter offload: said, and ignored.
    let a = whichgpu::core::evaluate::evaluate_query(
        "task=finetune&trainer=unsloth&param_offload=1",
        catalog,
        today,
    );
    assert!(
        a.notices.iter().any(|n| n.key == "param_offload" && n.message.contains("unsloth")),
        "{:?}",
        a.notices
    );
    assert!(!a.query.contains("param_offload"), "{}", a.query);
    // Stacks without adapters plan LoRA as a full fine-tune, and say so.
    for trainer in ["megatron", "torchtitan"] {
        let a = whichgpu::core::evaluate::evaluate_query(
            &format!("task=finetune&trainer={trainer}&method=qlora"),
            catalog,
            today,
        );
        assert!(
            a.notices.iter().any(|n| n.key == "method" && n.message.contains(trainer)),
            "{trainer}: {:?}",
            a.notices
        );
        assert!(
            a.query.contains("method=full") && a.weight_format != "nf4",
            "{trainer}: {} {}",
            a.query,
            a.weight_format
        );
    }
    // Pre-training has no method to correct.
    let a = whichgpu::core::evaluate::evaluate_query("task=pretrain&trainer=megatron", catalog, today);
    assert!(a.notices.iter().all(|n| n.key != "method"), "{:?}", a.notices);
    // Unsloth has no ZeRO: said, and planned unsharded.
    let a = whichgpu::core::evaluate::evaluate_query("task=finetune&trainer=unsloth&zero=3", catalog, today);
    assert!(a.notices.iter().any(|n| n.key == "zero" && n.message.contains("zero=0")), "{:?}", a.notices);
    assert!(!a.query.contains("zero=3"), "{}", a.query);
}

#[test]
fn current_stacks_hold_far_fewer_activations_than_the_hf_trainer() {
    // The example: Llama 3.1 8B LoRA, micro-batch 2 × 2048 tokens.
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-8b").expect("model");
    let act = |trainer| {
        let cfg = Config {
            task: Task::Finetune,
            method: Method::Lora,
            mb: Some(2),
            seq: 2048,
            trainer,
            ..Config::default()
        };
        TrainJob::new(m, &cfg).memory(1.0).activations / GIB
    };
    let (hf, tt, us, ax) =
        (act(Trainer::Hf), act(Trainer::Torchtune), act(Trainer::Unsloth), act(Trainer::Axolotl));
    // The HF Trainer's fp32 logits alone: 128,256 × 10 bytes × 4,096 tokens ≈ 4.9 GiB.
    assert!(hf > 5.5, "hf {hf:.2} GiB");
    // Unsloth: one layer plus its backward gradients, offloaded checkpoints, no logits.
    assert!(us < 1.2, "unsloth {us:.2} GiB");
    // Liger's fused loss (axolotl) drops the logits but keeps the checkpoints.
    assert!(ax < hf - 4.5 && ax > us, "axolotl {ax:.2} GiB");
    // torchtune keeps 16-bit logits (1 GiB) and upcasts one chunk in eight.
    assert!(tt < ax + 1.6 && tt > ax, "torchtune {tt:.2} GiB");
}

#[test]
fn torchtune_full_fine_tune_is_pure_bf16_with_the_step_in_the_backward_pass() {
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-8b").expect("model");
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        trainer: Trainer::Torchtune,
        ..Config::default()
    };
    let mem = TrainJob::new(m, &cfg).memory(1.0);
    // 2 bytes of weights, bf16 AdamW states (2 + 2), no fp32 master copy.
    assert_eq!(mem.weights + mem.optimizer, 6.0 * m.params_total);
    // Only the embedding's gradient is ever held whole.
    assert_eq!(mem.gradients, f64::from(m.vocab) * f64::from(m.hidden) * 2.0);
    // Megatron keeps fp32 main gradients: 2 + 4 + 12 = 18 bytes.
    let meg = TrainJob::new(m, &Config { trainer: Trainer::Megatron, ..cfg.clone() }).memory(1.0);
    assert_eq!(meg.weights + meg.gradients + meg.optimizer, 18.0 * m.params_total);
}

#[test]
fn parameter_offload_trades_gpu_memory_for_host_link_time() {
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-70b").expect("model");
    let gpu = catalog.gpu("a100-sxm-80gb").expect("gpu");
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        zero: Some(3),
        mb: Some(2),
        trainer: Trainer::Torchtune,
        ..Config::default()
    };
    let on = TrainJob::new(m, &Config { param_offload: true, ..cfg.clone() });
    let off = TrainJob::new(m, &cfg);
    let l = Layout::data(8);
    let (mem_on, mem_off) = (on.memory_layout(l), off.memory_layout(l));
    // On the GPU: two decoder layers and the root unit (embeddings, output layer), no optimizer states.
    let layer = m.body_params() / f64::from(m.layers) * 2.0;
    assert!(mem_on.weights <= 2.0 * layer + (m.params_total - m.body_params()) * 2.0 + 1.0);
    assert_eq!(mem_on.optimizer, 0.0);
    assert!(mem_on.total() < 0.3 * mem_off.total(), "{} vs {}", mem_on.total() / GIB, mem_off.total() / GIB);
    // Each GPU fetches its shard twice and sends its gradients once over PCIe.
    let link = gpu.link_bytes_per_s(true);
    let eff = mfu(gpu, Method::Full);
    let tokens_per_step = 8.0 * 2.0 * 2048.0;
    let (t_on, t_off) = (
        tokens_per_step / on.tokens_per_s(gpu, eff, l, link, link),
        tokens_per_step / off.tokens_per_s(gpu, eff, l, link, link),
    );
    // And the AdamW step runs on the CPU (`train_clock::cpu_optimizer_s`).
    let pcie_s = 3.0 * m.params_total * 2.0 / 8.0 / gpu.pcie_bytes_per_s() + on.cpu_optimizer_s(gpu, l);
    assert!(on.cpu_optimizer_s(gpu, l) > 0.0 && off.cpu_optimizer_s(gpu, l) == 0.0);
    assert!((t_on - t_off - pcie_s).abs() < 1e-6 * t_on, "{t_on} − {t_off} vs {pcie_s}");
}

#[test]
fn activation_offload_costs_only_what_compute_does_not_hide() {
    let catalog = common::catalog();
    let m = catalog.model("llama-3.1-8b").expect("model");
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Lora,
        mb: Some(1),
        seq: 8192,
        trainer: Trainer::Torchtune,
        ..Config::default()
    };
    let on = TrainJob::new(m, &Config { act_offload: Some(true), ..cfg.clone() });
    let off = TrainJob::new(m, &cfg);
    assert!(on.memory(1.0).activations < off.memory(1.0).activations);
    let one = Layout::data(1);
    for id in ["h100-sxm-80gb", "rtx-4090-24gb", "t4-16gb"] {
        let Some(gpu) = catalog.gpu(id) else { continue };
        let eff = mfu(gpu, Method::Lora);
        let (a, b) =
            (on.tokens_per_s(gpu, eff, one, 1e12, 1e12), off.tokens_per_s(gpu, eff, one, 1e12, 1e12));
        let tokens = 8192.0;
        let (t_on, t_off) = (tokens / a, tokens / b);
        // The layer inputs go out and come back: 2 × 32 layers × 4096 × 2 bytes per token.
        let transfer = 2.0 * 32.0 * 4096.0 * 2.0 * tokens / gpu.pcie_bytes_per_s();
        assert!((t_on - t_off.max(transfer)).abs() < 1e-9 * t_on, "{id}: {t_on} vs max({t_off}, {transfer})");
    }
}

mod stack_properties {
    use super::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn offloading_never_increases_gpu_memory(t in 0usize..7, mb in 1u32..8, seq in 128u32..32768, method in 0usize..3, model in 0usize..60) {
            let catalog = common::catalog();
            let m = &catalog.models[model % catalog.models.len()];
            let trainer = Trainer::NAMES[t].1;
            let method = [Method::Full, Method::Lora, Method::Qlora][method];
            let cfg = Config { task: Task::Finetune, method, mb: Some(mb), seq, trainer, zero: Some(3), ..Config::default() };
            // On one GPU; sharded over many, the root unit (embeddings) that
            // FSDP gathers whole can outweigh a small model's saved shard.
            let mem = |c: &Config| TrainJob::new(m, c).memory(1.0).total();
            let base = mem(&Config { act_offload: Some(false), ..cfg.clone() });
            let act = mem(&Config { act_offload: Some(true), ..cfg.clone() });
            let params = mem(&Config { act_offload: Some(false), param_offload: true, ..cfg.clone() });
            prop_assert!(act <= base, "activation offload {} > {}", act, base);
            prop_assert!(params <= base * 1.0001, "parameter offload {} > {}", params, base);
        }
    }
}

#[test]
fn a_zero3_request_is_answered_with_fully_sharded_data_parallelism() {
    // FSDP prefetches each layer's parameters while the previous one
    // computes; with the gathers overlapped, sharding over the node beats
    // splitting every layer for a job that fits either way. (DeepSpeed's
    // ZeRO-3 under the Hugging Face Trainer gathers tensor by tensor, each
    // collective with its fixed time, `train_clock::zero3_collective_s`, and
    // is not this case.)
    let catalog = common::catalog();
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        trainer: Trainer::Torchtitan,
        zero: Some(3),
        model: Some("llama-3.1-70b".into()),
        gpu: Some("b200-sxm-180gb".into()),
        ..Config::default()
    };
    let a = evaluate(&cfg, Vec::new(), catalog, common::today());
    let r = a.results.first().expect("one GPU type");
    assert_eq!(
        (r.speeds.train_dp(), r.speeds.train_tp(), r.speeds.train_pp()),
        (Some(8), Some(1), Some(1)),
        "{:?}",
        r.speeds
    );
}

#[test]
fn the_form_offers_the_stack_and_offload_controls_with_labels_in_both_languages() {
    use whichgpu::core::config::Lang;
    use whichgpu::core::form::{self, FormKind};
    use whichgpu::core::messages::ui;
    let cfg = Config { task: Task::Finetune, ..Config::default() };
    let inputs = form::inputs(&cfg, FormKind::Train);
    for key in ["trainer", "act_offload", "param_offload"] {
        assert!(inputs.advanced.contains(&key), "{key} missing from {:?}", inputs.advanced);
        let label = form::label(FormKind::Train, key);
        assert!(!ui(label, Lang::En).is_empty() && !ui(label, Lang::Zh).is_empty(), "{key}: label `{label}`");
    }
    // Serving has no training stack.
    let serve = form::inputs(&Config::default(), FormKind::Serve);
    assert!(!serve.advanced.contains(&"trainer"));
}

mod stack_layouts {
    use super::*;
    use whichgpu::core::estimate::stack::parallelism;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Every plan is one its stack can launch: tensor parallelism only
        /// where the stack has it (and AutoTP only up to ZeRO-2), pipeline
        /// stages only under Megatron-LM or DeepSpeed.
        #[test]
        fn every_offer_layout_is_one_the_stack_runs(t in 0usize..6, zero in 0u8..4, method in 0usize..3, model in 0usize..60, pretrain: bool) {
            let catalog = common::catalog();
            let m = &catalog.models[model % catalog.models.len()];
            let trainer = Trainer::NAMES[t].1;
            let method = [Method::Full, Method::Lora, Method::Qlora][method];
            let task = if pretrain { Task::Pretrain } else { Task::Finetune };
            let cfg = Config { task, method, zero: Some(zero), trainer, model: Some(m.id.to_string()), tokens: Some(1e8), ..Config::default() };
            let a = evaluate(&cfg, Vec::new(), catalog, common::today());
            let p = parallelism(trainer);
            // Stacks without adapters plan QLoRA as a full fine-tune (a notice says so).
            let qlora = task == Task::Finetune && a.query.split('&').any(|p| p == "method=qlora");
            prop_assert_eq!(qlora, task == Task::Finetune && method == Method::Qlora && !matches!(trainer, Trainer::Megatron | Trainer::Torchtitan), "{}", a.query);
            for o in a.offers.iter().filter(|o| o.fits) {
                prop_assert!(!qlora || o.tp == 1, "{}: QLoRA split over {} GPUs", o.id, o.tp);
                prop_assert!(p.allows(o.tp, o.pp, zero), "{}: tp {} pp {} under {} zero={}", o.id, o.tp, o.pp, trainer.as_str(), zero);
            }
            for r in a.results.iter().filter(|r| r.fits) {
                let (tp, pp) = (r.speeds.train_tp().unwrap_or(1), r.speeds.train_pp().unwrap_or(1));
                prop_assert!(p.allows(tp, pp, zero), "{}: tp {} pp {} under {} zero={}", r.gpu, tp, pp, trainer.as_str(), zero);
            }
        }
    }
}
proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Op-level selective checkpointing keeps more than full recomputation
    /// and less than no checkpointing, for every model and shape; a longer
    /// sequence of the same tokens never trains faster (attention grows
    /// with it).
    #[test]
    fn selective_sits_between_full_and_none_and_long_sequences_cost_time(model in 0usize..200, mb in 1u32..8, seq in 256u32..32768, t in 0usize..7) {
        let catalog = common::catalog();
        let m = &catalog.models[model % catalog.models.len()];
        prop_assume!(m.layers >= 2);
        let trainer = Trainer::NAMES[t].1;
        let cfg = Config { task: Task::Finetune, method: Method::Full, mb: Some(mb), seq, trainer, act_offload: Some(false), ..Config::default() };
        let mem = |gc: Checkpointing| TrainJob::new(m, &Config { gc, ..cfg.clone() }).memory(1.0).activations;
        let (full, sel, none) = (mem(Checkpointing::Full), mem(Checkpointing::Selective), mem(Checkpointing::None));
        prop_assert!(full <= sel && sel <= none, "full {} selective {} none {}", full, sel, none);
        let gpu = catalog.gpu("h100-sxm-80gb").expect("gpu");
        let s = |seq: u32| TrainJob::new(m, &Config { seq, ..cfg.clone() }).compute_s_per_token(gpu, mfu(gpu, Method::Full));
        prop_assert!(s(seq) <= s(seq * 2), "{} > {}", s(seq), s(seq * 2));
    }
}

#[test]
fn zero3_on_a_stack_without_tensor_parallel_sharding_stays_data_parallel() {
    // DeepSpeed's tensor-parallel training (AutoTP) combines with ZeRO
    // stages 0-2 only: an 8B full fine-tune under DeepSpeed with zero=3 on
    // 8 RTX 4090s shards over the 8 GPUs.
    let catalog = common::catalog();
    let cfg = Config {
        task: Task::Finetune,
        method: Method::Full,
        zero: Some(3),
        trainer: Trainer::Deepspeed,
        model: Some("llama-3.1-8b".into()),
        gpu: Some("rtx-4090-24gb".into()),
        ..Config::default()
    };
    let a = evaluate(&cfg, Vec::new(), catalog, common::today());
    let r = a.results.first().expect("one GPU type");
    assert_eq!(r.speeds.train_tp(), Some(1), "{:?}", r.speeds);
    assert_eq!(r.speeds.train_pp(), Some(1), "{:?}", r.speeds);
    // torchtitan and accelerate's FSDP2 mesh (the HF Trainer, Axolotl)
    // compose full sharding with tensor parallelism; torchtune's recipes
    // and Unsloth stay data parallel.
    let m = catalog.model("llama-3.1-8b").expect("model");
    let job = |trainer| TrainJob::new(m, &Config { trainer, ..cfg.clone() });
    let two = Layout { dp: 4, tp: 2, pp: 1 };
    assert!(
        !job(Trainer::Deepspeed).splits(two)
            && !job(Trainer::Torchtune).splits(two)
            && !job(Trainer::Unsloth).splits(two)
    );
    assert!(
        job(Trainer::Torchtitan).splits(two)
            && job(Trainer::Hf).splits(two)
            && job(Trainer::Hf).splits(Layout::data(8))
    );
}
