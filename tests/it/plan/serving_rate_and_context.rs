//! The serving adviser read as a paying user (the fourth practitioner's
//! check): rules found broken on realistic serving links, each held over
//! generated configurations.

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;

use crate::common::answer;

fn rate_link() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "llama-3.1-8b",
            "qwen2.5-32b",
            "llama-3.3-70b",
            "mixtral-8x7b",
            "qwen3-30b-a3b",
            "gemma-3-27b",
        ]),
        prop::sample::select(vec!["bf16", "fp8", "int4-awq"]),
        // A100 and V100-class cards store FP8 weights only (weight-only
        // decode); the others run them as FP8.
        prop::sample::select(vec![
            "a100-pcie-80gb",
            "a100-sxm-80gb",
            "a40-48gb",
            "l40s-48gb",
            "h100-sxm-80gb",
            "rtx-4090-24gb",
        ]),
        prop::sample::select(vec![0.5f64, 2.0, 4.0, 12.0]),
        prop::sample::select(vec![(300u32, 200u32), (1000, 300), (4000, 500)]),
    )
        .prop_map(|(model, w, gpu, rps, (inp, out))| {
            format!("model={model}&w={w}&gpu={gpu}&rps={rps}&in={inp}&out={out}")
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// With `rps` and no `batch`, each copy keeps rate × request latency
    /// sequences in flight (Little's law) at the speed the offer shows: the
    /// concurrency was once solved at the speed of the link's format as
    /// written (FP8 math) while the A100 offer decoded it weight-only, 12 %
    /// slower, and held 50 sequences where its own latency keeps 57.
    #[test]
    fn rate_concurrency_follows_the_offers_own_latency(q in rate_link()) {
        let a = answer(&q);
        let rps: f64 = q.split("rps=").nth(1).and_then(|s| s.split('&').next()).and_then(|s| s.parse().ok()).unwrap_or(1.0);
        for o in a.offers.iter().filter(|o| o.fits) {
            let (Some(per), Some(total), Some(lat)) =
                (o.speeds.decode_tokens_per_s_per_seq(), o.speeds.decode_tokens_per_s_total(), o.speeds.request_latency_s())
            else {
                continue;
            };
            let copies = (total / (per * o.batch)).round().max(1.0);
            let little = rps / copies * lat;
            prop_assert!(
                (o.batch - little).abs() <= 1.0 + 0.03 * little,
                "{q}: {} holds {} sequences per copy over {copies} copies, but {rps} req/s × {lat:.2} s is {little:.1} per copy",
                o.id, o.batch
            );
        }
    }
}

fn busy_copies(o: &whichgpu::core::answer::OfferResult) -> Option<f64> {
    let (per, total) = (o.speeds.decode_tokens_per_s_per_seq()?, o.speeds.decode_tokens_per_s_total()?);
    Some((total / (per * o.batch)).round().max(1.0))
}

fn short_prompt_flood() -> impl Strategy<Value = (String, &'static str, f64, f64)> {
    (
        prop::sample::select(vec!["llama-3.2-1b", "qwen2.5-7b", "llama-3.1-8b"]),
        prop::sample::select(vec!["rtx-4090-24gb", "l4-24gb", "a100-sxm-80gb", "h100-sxm-80gb", "l40s-48gb"]),
        prop::sample::select(vec![20.0f64, 100.0, 300.0, 500.0]),
        prop::sample::select(vec![512.0f64, 2000.0, 8000.0]),
        prop::sample::select(vec![1u32, 64, 300]),
    )
        .prop_map(|(model, gpu, rps, inp, out)| {
            (format!("model={model}&w=bf16&gpu={gpu}&rps={rps}&in={inp}&out={out}"), model, rps, inp)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// The copies an offer runs for a request rate can at least do the
    /// prompts' arithmetic: 2 × active parameters FLOPs per prompt token
    /// (Kaplan et al. 2020, the forward pass) at rps × prompt tokens a
    /// second, within the GPUs' peak 16-bit rate. Once the rate was solved
    /// on the unloaded latency alone: 500 requests/s of 512-token prompts
    /// to a 0.6B model were put on one RTX 4090, twice its peak.
    #[test]
    fn a_request_rate_never_outruns_the_copies_prefill(case in short_prompt_flood()) {
        let (q, model, rps, inp) = case;
        let a = answer(&q);
        let c = crate::common::catalog();
        let active = c.model(model).expect("catalog model").params_active;
        for o in a.offers.iter().filter(|o| o.fits) {
            let Some(copies) = busy_copies(o) else { continue };
            let gpu = c.gpu(&o.gpu).expect("offer GPU");
            let peak = copies * f64::from(o.tp.max(1) * o.dp.max(1) * o.pp.max(1)) * gpu.bf16_tflops * 1e12;
            let need = 2.0 * active * rps * inp;
            prop_assert!(need <= peak, "{q}: {} runs {copies} copies of {}×{} with {:.0} TFLOPS at peak for {:.0} TFLOPS of prompts", o.id, o.tp, o.pp, peak / 1e12, need / 1e12);
        }
    }
}

/// The tokens a query's answer was planned with (`in`, `out`; the
/// defaults where the normalized query leaves them out).
fn planned(a: &whichgpu::core::answer::Answer) -> (u64, u64) {
    let get = |k: &str, d: u64| {
        a.query
            .split('&')
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    (get("in", 2000), get("out", 500))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A prompt and output past the model's context is said (naming `in`,
    /// or `out` where the output alone is too long) and planned at what the
    /// model takes; one that fits is planned as asked, without a notice.
    /// Once 500,000-token prompts to Llama 3.1 8B (131,072 tokens) were
    /// planned on 16 GH200s with no word.
    #[test]
    fn context_beyond_the_model_is_said_and_cut(
        model in prop::sample::select(vec!["llama-3.1-8b", "mistral-7b", "gpt-2-124m", "llama-2-7b", "qwen2.5-7b"]),
        inp in prop::sample::select(vec![100u64, 3000, 30_000, 200_000, 2_000_000]),
        out in prop::sample::select(vec![1u64, 500, 8000, 300_000]),
    ) {
        let q = format!("model={model}&in={inp}&out={out}");
        let a = answer(&q);
        let most = u64::from(crate::common::catalog().model(model).and_then(|m| m.max_context).expect("context"));
        let said = a.notices.iter().find(|n| n.key == "in" || n.key == "out");
        let (pin, pout) = planned(&a);
        if inp + out <= most {
            prop_assert!(said.is_none(), "{q}: notice {:?} though {inp} + {out} fits {most}", said.map(|n| n.key.clone()));
            prop_assert_eq!((pin, pout), (inp, out), "{}: planned other tokens", q);
        } else {
            let n = said.expect("a notice naming the token count");
            prop_assert_eq!(n.key.as_str(), if out >= most { "out" } else { "in" });
            prop_assert!(pin + pout <= most && pin >= 1 && pout >= 1, "{q}: planned {pin} + {pout} past {most}");
            // Cut, never grown: a long output once turned a 2,000-token prompt into 65,536.
            prop_assert!(pin <= inp && pout <= out, "{q}: planned {pin} + {pout} beyond the asked {inp} + {out}");
        }
    }
}

/// A copy over two nodes (Llama 3.1 405B in 16 bits on H100s: tensor
/// parallel 8 × 2 pipeline stages) starts as vLLM runs one: a Ray cluster
/// that the first node leads and the second joins, and one server on the
/// leader over every GPU. The SkyPilot task once ran `vllm serve` on both
/// nodes, each asking for 16 GPUs of its 8.
#[test]
fn a_copy_over_two_nodes_launches_on_a_ray_cluster() {
    let a = answer("model=llama-3.1-405b&w=bf16&gpu=h100-sxm-80gb&in=2000&out=500&batch=16");
    let pick = a.pick().expect("a pick");
    assert_eq!((pick.tp, pick.pp, pick.instances), (8, 2, 2), "{}", pick.id);
    let exports = whichgpu::core::export::for_answer(&a, crate::common::catalog());
    let e = exports.first().expect("the pick's export");
    let y = &e.skypilot_yaml;
    assert!(y.contains("num_nodes: 2") && y.contains("pip install ray"), "{y}");
    let head = y.find("ray start --head").expect("the leader starts Ray");
    let join = y.find("ray start --address=$HEAD_IP:6379 --block").expect("the other node joins it");
    let serve = y.find("vllm serve").expect("one server");
    assert!(join < head && head < serve, "workers branch off first, the leader serves last:\n{y}");
    assert_eq!(y.matches("vllm serve").count(), 1, "{y}");
    for flag in
        ["--tensor-parallel-size 8", "--pipeline-parallel-size 2", "--distributed-executor-backend ray"]
    {
        assert!(y.contains(flag) && e.command.contains(flag), "{flag}:\n{y}\n{}", e.command);
    }
    assert!(e.command.contains("ray start --head") && !e.command.contains("not scripted"), "{}", e.command);
}
