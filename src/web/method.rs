//! The method card: the formulas with this configuration's numbers, and
//! how far the estimates are from measurements.

use yew::prelude::*;

use super::format::{gib, num};
use crate::core::answer::Answer;
use crate::core::config::Lang;
use crate::core::estimate::engine;
use crate::core::messages::ui;

/// The method section: the formulas with this configuration's numbers.
pub fn method(a: &Answer, lang: Lang) -> Html {
    let t = |k: &'static str| ui(k, lang);
    let m = &a.memory;
    let pick = a.recommendation.as_ref().and_then(|r| a.offers.iter().find(|o| o.id == r.pick.offer));
    html! {
        <section class="card method" id="method" aria-labelledby="h-method">
            <h2 id="h-method">{ t("ui.method") }</h2>
            <p>{ "weights = body params × bits/8 + embedding params × embed bits/8 = " }{ gib(m.weights_bytes) }</p>
            <p>{ "KV cache = sequences × tokens × Σ layers 2 · kv_heads · head_dim · bytes (window-capped for sliding layers, latent for MLA) = " }{ gib(m.kv_cache_bytes) }</p>
            <p>{ format!("decode step = max(weights read / (bandwidth · η_bw), 2 · active params · batch / (dense rate · η_c)) + KV read / (bandwidth · η_bw) + all-reduce + routed-expert layers × {:.0} µs (vLLM, SGLang)", engine::MOE_LAYER_S * 1e6) }</p>
            <p>{ format!("first token = images × megapixels × {} s (preparation) + 2 · vision params · patches / (dense rate · η_c) + prefill FLOPs / (dense rate · η_c)", engine::IMAGE_PREP_S_PER_MP) }</p>
            if let Some(o) = pick {
                <p>{ format!("→ {} tok/s per sequence on {}× {} (confidence: {})", num(o.speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0), 1), o.gpus, o.gpu, o.confidence) }</p>
            }
            <p>{ "η fitted per engine × GPU class on published measurements; median error: decode 6.5 %, prefill 14.3 %, offline throughput 4.7 %, memory 1.4 % (74 rows). Sources: Pope et al. 2022; Kaplan et al. 2020; GQA (Ainslie et al. 2023); DeepSeek-V2 (MLA); vendor datasheets (dense rates)." }</p>
            <h3>{ t("ui.accuracy") }</h3>
            <div class="scroll" tabindex="0" role="region" aria-label={t("ui.accuracy")}><table>
                <thead><tr><th>{ "case" }</th><th>{ "measured" }</th><th>{ "estimate" }</th></tr></thead>
                <tbody>
                    { for ACCURACY.iter().map(|(case, measured, est)| html! { <tr><td>{ *case }</td><td class="num">{ *measured }</td><td class="num">{ *est }</td></tr> }) }
                </tbody>
            </table></div>
        </section>
    }
}

/// Representative rows of `whichgpu calibrate tests/data/calibration.csv`.
const ACCURACY: &[(&str, &str, &str)] = &[
    ("Llama-3-8B Q4_K_M decode, RTX 4090, llama.cpp", "130.6 tok/s", "156.7 tok/s"),
    ("Llama-3-70B Q4_K_M decode, 2× RTX 3090, llama.cpp", "16.6 tok/s", "17.3 tok/s"),
    ("Llama-2-70B BF16 decode, 8× A100 TP8, gpt-fast", "62.5 tok/s", "62.8 tok/s"),
    ("Llama-3.1-8B FP8 throughput 128/2048, H200, TensorRT-LLM", "26 221 tok/s", "25 506 tok/s"),
    ("OctoCoder 15.5B BF16 memory, A100, HF", "29.03 GiB", "28.88 GiB"),
];
