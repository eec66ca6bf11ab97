//! Issue 37: mixture-of-experts layouts consider expert parallelism, and
//! latent-attention models data-parallel attention, with the latent cache
//! per GPU instead of copied on every GPU of a tensor-parallel group
//! (`core::estimate::engine_rules::layouts`, `core::plan::serve_layout`);
//! the launch texts carry the layout's flags; a layout the engine refuses is
//! named in the offers' reasons in both languages.

use crate::common::{answer, catalog};
use whichgpu::core::answer::{reasons, Answer, OfferResult};
use whichgpu::core::config::{Engine, Lang};
use whichgpu::core::estimate::allreduce;
use whichgpu::core::estimate::arch;
use whichgpu::core::estimate::engine_rules::{self, Dim, Layout};
use whichgpu::core::estimate::serve::{Plan, ServeJob};
use whichgpu::core::export::for_answer;
use whichgpu::core::link;
use whichgpu::core::resolve::{resolve, Subject};

/// The pick of an answer.
fn pick(a: &Answer) -> &OfferResult {
    let id = &a.recommendation.as_ref().expect("a pick").pick.offer;
    a.offers.iter().find(|o| &o.id == id).expect("the pick's offer")
}

/// The job a link describes, as the planner runs it.
fn with_job<T>(query: &str, f: impl FnOnce(&ServeJob<'_>) -> T) -> T {
    let (cfg, _) = link::decode(query);
    let r = resolve(&cfg, Vec::new(), catalog());
    let Subject::Llm { model, format } = &r.subject else { panic!("a language model") };
    f(&ServeJob::new(model, &r.cfg, *format))
}

/// The Kimi K2 load: 32 users of 32,000-token prompts and 2,000-token answers in FP8.
const KIMI: &str = "model=kimi-k2&w=fp8&in=32000&out=2000&batch=32";

#[test]
fn kimi_k2_holds_on_one_8_gpu_node_with_data_parallel_attention_and_its_cache_per_gpu() {
    // Before: two 8×MI300X nodes ($40.5k a month) with 284.8 GiB of KV
    // cache, the latent cache copied on all 8 GPUs of each copy.
    let a = answer(KIMI);
    let p = pick(&a);
    assert_eq!((p.gpus, p.instances, p.replicas), (8, 1, 1), "{} {:?}", p.id, p.layout_msg);
    assert!(
        p.dp > 1 && p.ep && p.tp * p.dp == 8,
        "data-parallel attention with expert parallel: tp {} dp {} ep {}",
        p.tp,
        p.dp,
        p.ep
    );
    assert!(p.usd_per_month < 30_000.0, "{}", p.usd_per_month);
    // The cache per GPU: each GPU holds its rank's share of the 32 sequences'
    // latent cache, copied only over the rank's own `tp` GPUs.
    let (ctx, one_seq) = with_job(KIMI, |job| {
        (job.context_tokens(), job.kv_per_seq_per_gpu(Plan::tp_pp(1, 1), job.context_tokens()))
    });
    let m = &a.memory;
    assert_eq!(m.gpus, 8);
    let want = 32.0 * one_seq * f64::from(p.tp);
    assert!(
        (m.kv_cache_bytes / want - 1.0).abs() < 1e-6,
        "KV {} GiB, want {} GiB",
        m.kv_cache_bytes / 2f64.powi(30),
        want / 2f64.powi(30)
    );
    // A latent-attention model caches 576 values per token per layer.
    let m_k2 = catalog().model("kimi-k2").expect("in the catalog");
    let block = (ctx / 16.0).ceil() * 16.0;
    assert!((one_seq - arch::kv_bytes_per_seq(m_k2, block, 2.0, 1.0)).abs() < 1.0);
    // Tensor parallel 8, today's layout, copies the cache on every GPU and holds fewer than the 32 sequences.
    with_job(KIMI, |job| {
        let gpu = catalog().gpu(&p.gpu).expect("gpu");
        let tp8 = Plan::tp_pp(8, 1);
        assert!(job.memory(tp8, 32.0).total() > job.usable_bytes(gpu));
        assert!(job.max_batch(gpu, tp8) < 32);
        let dp = Plan { tp: p.tp, pp: 1, dp: p.dp, ep: true };
        assert!(
            (job.memory(tp8, 32.0).kv_cache / job.memory(dp, 32.0).kv_cache - 8.0 / f64::from(p.tp)).abs()
                < 1e-9
        );
    });
}

#[test]
fn kimi_k2_from_its_config_json_also_holds_on_one_node() {
    // The issue's own `--config` import, as the link it shares.
    let config =
        std::fs::read_to_string("tests/data/hf-configs/moonshotai--Kimi-K2-Instruct.json").expect("config");
    let (cfg, _) = link::decode("w=fp8&in=32000&out=2000&batch=32");
    let (imported, _) = whichgpu::core::hfconfig::import(&cfg, &config).expect("imports");
    let q = link::encode(&imported);
    let p = pick(&answer(&q)).clone();
    assert_eq!((p.gpus, p.instances), (8, 1), "{q}: {} {:?}", p.id, p.layout_msg);
    assert!(p.dp > 1, "{q}");
}

#[test]
fn kimi_k2_fp8_weights_do_not_leave_room_for_the_load_on_eight_h200s() {
    // Moonshot's guidance: "The smallest deployment unit for Kimi-K2 FP8
    // weights with 128k seqlen on mainstream H800 platforms is a 16-GPU
    // cluster"; 1.03 TB of FP8 weights leave an 8×H200 node under 7 GiB a GPU.
    with_job(KIMI, |job| {
        let h200 = catalog().gpu("h200-sxm-141gb").expect("gpu");
        let w = job.memory(Plan::tp_pp(8, 1), 1.0).weights;
        assert!(w > 0.9 * job.usable_bytes(h200) && w < job.usable_bytes(h200), "{}", w / 2f64.powi(30));
    });
}

#[test]
fn deepseek_r1_fp8_on_one_8xh20_node_needs_the_latent_cache_per_gpu() {
    // Issue 41: "one 8×H20 node holds it once the latent cache is per GPU".
    // Twelve 9,000-token sequences: tensor parallel 8 copies each one's
    // latent cache on all 8 GPUs and holds ten; data-parallel attention over
    // two ranks of 4 GPUs (each rank's attention weights copied twice) holds
    // them in one node. Full data parallel (8 ranks of one GPU) copies the
    // attention weights 8 times, 10 GiB a GPU more than 96 GB allows.
    let q = "model=deepseek-r1&w=fp8&gpu=h20-96gb&in=8000&out=1000&batch=12";
    let a = answer(q);
    let r = a.results.iter().find(|r| r.gpu == "h20-96gb").expect("h20 row");
    assert!(r.fits);
    assert_eq!((r.gpus, r.nodes), (8, 1), "{q}");
    with_job(q, |job| {
        let h20 = catalog().gpu("h20-96gb").expect("gpu");
        assert!(job.memory(Plan::tp_pp(8, 1), 12.0).total() > job.usable_bytes(h20));
        assert!(job.memory(Plan { tp: 4, pp: 1, dp: 2, ep: true }, 12.0).total() <= job.usable_bytes(h20));
        assert!(job.memory(Plan { tp: 1, pp: 1, dp: 8, ep: true }, 1.0).total() > job.usable_bytes(h20));
    });
    // At the default load one node holds it with tensor parallelism alone.
    let a = answer("model=deepseek-r1&w=fp8&gpu=h20-96gb");
    let r = a.results.iter().find(|r| r.gpu == "h20-96gb").expect("h20 row");
    assert_eq!((r.gpus, r.nodes, r.fits), (8, 1, true));
}

#[test]
fn data_parallel_attention_copies_the_attention_weights_and_halves_the_collectives() {
    let q = "model=deepseek-v3&w=fp8";
    for (engine, dense_split) in [(Engine::Vllm, false), (Engine::Sglang, true)] {
        with_job(&format!("{q}&engine={engine}"), |job| {
            let m = job.model;
            let tp8 = job.memory(Plan::tp_pp(8, 1), 1.0).weights;
            let dp8 = job.memory(Plan { tp: 1, pp: 1, dp: 8, ep: true }, 1.0).weights;
            // Attention (11.4B parameters in FP8) whole on every GPU, not an eighth of it.
            let attention = m.attention_params() * f64::from(m.layers);
            assert!((attention / 1e9 - 11.4).abs() < 0.1, "{attention}");
            let extra = dp8 - tp8;
            // SGLang splits the dense FFN, shared experts and head over all 8 (`enable_dense_mlp_attn_tp` off);
            // vLLM's ranks hold them whole.
            let attention_extra = attention * 7.0 / 8.0;
            if dense_split {
                assert!(
                    (extra / attention_extra - 1.0).abs() < 0.02,
                    "{engine}: {extra} vs {attention_extra}"
                );
            } else {
                assert!(extra > attention_extra * 1.3, "{engine}: {extra} vs {attention_extra}");
            }
            assert_eq!(
                engine_rules::dense_ways(engine, Layout { tp: 1, dp: 8, ep: true }),
                if dense_split { 8 } else { 1 }
            );
        });
    }
    // One gather/scatter of the whole batch per layer instead of two all-reduces.
    let gpu = catalog().gpu("h100-sxm-80gb").expect("gpu");
    let msg = 64.0 * 7168.0 * 2.0;
    let tp = allreduce::pass_s(gpu, Plan::tp_pp(8, 1), 61, msg);
    let dp = allreduce::pass_s(gpu, Plan { tp: 1, pp: 1, dp: 8, ep: true }, 61, msg);
    assert!((tp / dp - 2.0).abs() < 1e-9, "{tp} {dp}");
    // Expert parallelism without data-parallel attention all-reduces as tensor parallelism does.
    assert_eq!(allreduce::pass_s(gpu, Plan { tp: 8, pp: 1, dp: 1, ep: true }, 61, msg), tp);
}

#[test]
fn the_engine_table_offers_expert_parallel_and_data_parallel_attention_where_the_engines_run_them() {
    let m = |id: &str| catalog().model(id).expect("model");
    // Qwen3-30B-A3B FP8 at 8: tensor parallel cuts 768-wide experts to 96
    // (vllm-project/vllm#17569); expert parallel keeps them whole.
    assert_eq!(
        engine_rules::layouts_at(m("qwen3-30b-a3b"), "fp8", Engine::Vllm, 8),
        vec![Layout { tp: 8, dp: 1, ep: true }]
    );
    assert_eq!(engine_rules::layouts_at(m("qwen3-30b-a3b"), "fp8", Engine::Vllm, 2), vec![Layout::tensor(2)]);
    // A dense model: tensor parallel only; llama.cpp splits layers.
    assert_eq!(engine_rules::layouts_at(m("llama-2-13b"), "int4-awq", Engine::Vllm, 8), Vec::<Layout>::new());
    assert_eq!(
        engine_rules::layouts_at(m("qwen3-30b-a3b"), "fp8", Engine::LlamaCpp, 8),
        vec![Layout::tensor(8)]
    );
    assert_eq!(
        engine_rules::layouts_at(m("qwen3-30b-a3b"), "fp8", Engine::TrtLlm, 8),
        vec![Layout::tensor(8)]
    );
    // Latent attention: data-parallel attention at 2, 4 and 8 ranks with expert parallel.
    for id in ["deepseek-v3", "deepseek-r1", "kimi-k2"] {
        let got = engine_rules::layouts_at(m(id), "fp8", Engine::Sglang, 8);
        assert_eq!(got[0], Layout::tensor(8), "{id}");
        for d in [2u32, 4, 8] {
            assert!(got.contains(&Layout { tp: 8 / d, dp: d, ep: true }), "{id}: {got:?}");
        }
        assert!(engine_rules::layouts_at(m(id), "fp8", Engine::TrtLlm, 8).iter().all(|l| l.dp == 1 && !l.ep));
    }
    assert!(engine_rules::layouts_at(m("qwen3-235b-a22b"), "fp8", Engine::Vllm, 8).iter().all(|l| l.dp == 1));
}

/// A 200B mixture of 60 experts of 1,408 (Qwen1.5-MoE's expert shape) in AWQ.
const SIXTY: &str = "model=custom&params=200&layers=60&hidden=6144&heads=48&kv_heads=8&head_dim=128&vocab=152064&experts=60&experts_active=4&expert_ffn=1408&context=32768&w=int4-awq";

#[test]
fn sglang_refuses_expert_parallel_where_the_experts_do_not_divide_and_the_offers_say_so() {
    // 1408/8 = 176 is off the Marlin MoE kernel's 128 (vllm-project/vllm#17604's rule);
    // expert parallel 8 deals 60 experts out unevenly: vLLM gives the remainder to the first ranks,
    // SGLang asserts `num_experts % moe_ep_size == 0`.
    with_job(SIXTY, |job| {
        let m = job.model;
        assert_eq!(
            engine_rules::refusal(m, "int4-awq", Engine::Sglang, 8).map(|r| (r.dim, r.per_gpu)),
            Some((Dim::ExpertFfn, 176))
        );
        let ep8 = Layout { tp: 8, dp: 1, ep: true };
        assert!(engine_rules::layout_loads(m, "int4-awq", Engine::Vllm, ep8));
        let r = engine_rules::layout_refusal(m, "int4-awq", Engine::Sglang, ep8).expect("refused");
        assert_eq!((r.dim, r.full, r.ways), (Dim::Experts, 60, 8));
        assert!(engine_rules::layouts_at(m, "int4-awq", Engine::Sglang, 8).is_empty());
        assert_eq!(
            engine_rules::layouts_at(m, "int4-awq", Engine::Sglang, 4),
            vec![Layout { tp: 4, dp: 1, ep: true }]
        );
    });
    // vLLM: eight 4090s run it expert parallel.
    let a = answer(&format!("{SIXTY}&gpu=rtx-4090-24gb"));
    assert!(a.offers.iter().filter(|o| o.fits).any(|o| o.gpus == 8 && o.ep), "vLLM runs it on 8 cards");
    // SGLang: no layout of 8 loads, 4 cards cannot hold it; the 8-card offers name both rules.
    let a = answer(&format!("{SIXTY}&gpu=rtx-4090-24gb&engine=sglang"));
    let eights: Vec<&OfferResult> = a.offers.iter().filter(|o| o.gpus == 8).collect();
    assert!(!eights.is_empty() && eights.iter().all(|o| !o.fits || o.instances > 1));
    let why = |lang| eights.iter().map(|o| reasons(&o.reason_msgs, lang)).collect::<Vec<_>>();
    assert!(
        why(Lang::En)
            .iter()
            .any(|w| w.contains("refuses expert parallel 8") && w.contains("60 routed experts")),
        "{:?}",
        why(Lang::En)
    );
    assert!(
        why(Lang::En).iter().any(|w| w.contains("refuses tensor parallel 8") && w.contains("176")),
        "{:?}",
        why(Lang::En)
    );
    assert!(
        why(Lang::Zh).iter().any(|w| w.contains("拒绝专家并行 8") && w.contains("60 个路由专家")),
        "{:?}",
        why(Lang::Zh)
    );
}

#[test]
fn launch_texts_carry_the_layouts_flags() {
    for (engine, flags) in [
        (
            Engine::Vllm,
            &[
                "--tensor-parallel-size 1",
                "--data-parallel-size 8",
                "--enable-expert-parallel",
                "--max-num-seqs 4",
            ][..],
        ),
        (
            Engine::Sglang,
            &[
                "--tp-size 8",
                "--dp-size 8",
                "--enable-dp-attention",
                "--ep-size 8",
                "--max-running-requests 32",
            ][..],
        ),
    ] {
        let q = format!("{KIMI}&engine={engine}&gpu=mi300x-192gb");
        let a = answer(&q);
        let p = pick(&a);
        assert_eq!((p.tp, p.dp, p.ep, p.gpus, p.instances), (1, 8, true, 8, 1), "{q}");
        let exports = for_answer(&a, catalog());
        let cmd = &exports[0].command;
        for f in flags {
            assert!(cmd.contains(f), "{engine}: {f} in\n{cmd}");
        }
        assert_eq!(crate::export::texts::check(&a), exports.len());
    }
    // Expert parallel alone (Qwen3-30B-A3B FP8 over 4 or 8 cards): the flag, no data-parallel ranks.
    let a = answer("model=qwen3-30b-a3b&w=fp8&in=8000&out=1000&batch=32&gpu=rtx-4090-24gb");
    crate::export::texts::check(&a);
    for e in for_answer(&a, catalog()) {
        let o = a.offers.iter().find(|o| o.id == e.offer).expect("offer");
        assert_eq!(e.command.contains("--enable-expert-parallel"), o.ep, "{}", e.command);
        assert!(!e.command.contains("--data-parallel-size"), "{}", e.command);
    }
}
