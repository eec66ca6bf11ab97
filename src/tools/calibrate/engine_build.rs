//! What a measurement row says about the engine that ran it: the engine
//! profile (named first in `method_notes`); for llama.cpp, whether the
//! build replays each decode step as one CUDA graph; for vLLM and SGLang,
//! whether that graph holds the eager model's kernels or compiled ones.

use crate::core::config::Engine;
use crate::core::estimate::engine::Launch;

/// Maps a row's engine (named first in `method_notes`) to a profile.
/// gpt-fast, lmdeploy and NIM are not profiles of their own: gpt-fast and
/// lmdeploy (TurboMind) run CUDA-graph-captured fused decode kernels like
/// TensorRT-LLM; NIM's optimized profiles are TensorRT-LLM engines.
pub fn engine_of(notes: &str) -> Option<Engine> {
    let n = notes.trim().to_ascii_lowercase();
    Some(if n.starts_with("llama.cpp") {
        Engine::LlamaCpp
    } else if n.starts_with("vllm") {
        Engine::Vllm
    } else if n.starts_with("sglang") {
        Engine::Sglang
    } else if n.starts_with("trt-llm")
        || n.starts_with("gpt-fast")
        || n.starts_with("lmdeploy")
        || n.starts_with("nim")
    {
        Engine::TrtLlm
    } else if n.starts_with("hf-transformers") {
        Engine::Hf
    } else {
        return None;
    })
}

/// The day llama.cpp's CUDA graphs were merged (commit bc4bba3, PR #6766).
const GRAPHS_MERGED: (u32, u32, u32) = (2024, 5, 8);
/// The first of the 2025 kernel fusions (PR #15631, 2025-08-28).
const FUSION_BEGAN: (u32, u32, u32) = (2025, 8, 28);

/// The day by which llama.cpp turned FlashAttention on by default (PR
/// #15434, "use FA + max. GPU layers by default"; LocalAI PR #6168 adopted
/// `-fa auto` on 2025-08-31).
const FLASH_ATTN_DEFAULT: (u32, u32, u32) = (2025, 8, 31);

const MONTHS: [&str; 12] =
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// How the llama.cpp build of a row launched its decode kernels: what the
/// notes say outright ("before CUDA graphs", "no CUDA graphs", a
/// "CUDA-graphs branch" or "PR" that predates the merge), else the first
/// date in the notes or the source ("2024-01-10", "Dec 2023") against the
/// days graphs and kernel fusion arrived, else "CUDA graphs" in the notes.
/// `None` when nothing places the build (a month-only date in the month
/// of either change).
pub fn launch_of(notes: &str, source: &str) -> Option<Launch> {
    let n = notes.to_ascii_lowercase();
    if n.contains("before cuda graphs") || n.contains("no cuda graphs") {
        return Some(Launch::PerKernel);
    }
    if n.contains("cuda-graphs branch") || n.contains("cuda-graphs pr") {
        return Some(Launch::Graph);
    }
    let Some(date) = first_date(&n).or_else(|| first_date(&source.to_ascii_lowercase())) else {
        return n.contains("cuda graphs").then_some(Launch::Graph);
    };
    let at_or_after = |(y, m, d): (u32, u32, u32)| match date {
        (yy, mm, Some(dd)) => Some((yy, mm, dd) >= (y, m, d)),
        (yy, mm, None) if (yy, mm) == (y, m) => None,
        (yy, mm, None) => Some((yy, mm) > (y, m)),
    };
    Some(if at_or_after(FUSION_BEGAN)? {
        Launch::Fused
    } else if at_or_after(GRAPHS_MERGED)? {
        Launch::Graph
    } else {
        Launch::PerKernel
    })
}

/// The day vLLM's V1 engine, which runs the model through torch.compile
/// by default, became the default: release v0.8.0, 2025-03-18 ("We have
/// now enabled V1 engine by default", vllm-project/vllm PR #13726, as
/// quoted in vllm-project/vllm-ascend PR #557; earlier releases ran it only
/// with `VLLM_USE_V1=1`). Builds before it ran the V0 engine, whose CUDA
/// graphs captured the eager model.
const VLLM_V1_DEFAULT: (u32, u32, u32) = (2025, 3, 18);
/// SGLang compiles only with `--enable-torch-compile`; its builds before
/// this day (those of issue #1008 and PR #1401, 2024) are the ones a fit
/// row measured without it. Later builds are read as compiled until a fit
/// row measures one (see `engine::PYTORCH_UNFUSED_LAYER_S`).
const SGLANG_MEASURED_UNTIL: (u32, u32, u32) = (2025, 1, 1);

/// How a vLLM or SGLang row's build ran its decode step: [`Launch::Fused`]
/// when the notes name torch.compile in use ("--enable-torch-compile",
/// "torch.compile", not "without torch.compile"); [`Launch::Graph`] (a CUDA
/// graph of the eager model) for a vLLM version before 0.8 or a row whose
/// first date, in the notes or the source, is before the engine's day
/// above; else `Fused`: a current build, as a link assumes.
pub fn pytorch_launch_of(engine: Engine, notes: &str, source: &str) -> Launch {
    let n = notes.to_ascii_lowercase();
    let compiled = (n.contains("enable-torch-compile") || n.contains("torch.compile"))
        && !n.contains("without torch.compile")
        && !n.contains("no torch.compile");
    if compiled {
        return Launch::Fused;
    }
    let until = match engine {
        Engine::Vllm => VLLM_V1_DEFAULT,
        _ => SGLANG_MEASURED_UNTIL,
    };
    let v0 = engine == Engine::Vllm && vllm_minor(&n).is_some_and(|minor| minor < 8);
    let before = first_date(&n)
        .or_else(|| first_date(&source.to_ascii_lowercase()))
        .is_some_and(|(y, m, d)| (y, m, d.unwrap_or(1)) < until);
    if v0 || before {
        Launch::Graph
    } else {
        Launch::Fused
    }
}

/// The minor version of a "vllm 0.N" or "vllm v0.N" the notes start with.
fn vllm_minor(n: &str) -> Option<u32> {
    let rest = n.strip_prefix("vllm ")?.trim_start_matches('v');
    let rest = rest.strip_prefix("0.")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// llama.cpp's micro-batch of a row whose notes give it ("n_ubatch 64"): the smaller of
/// llama-bench's `-b` and `-ub` (512 by default); `None` leaves the engine's 512.
pub fn ubatch_of(notes: &str) -> Option<u32> {
    let n = notes.to_ascii_lowercase();
    let (_, rest) = n.split_once("n_ubatch ")?;
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok().filter(|u| *u > 0)
}

/// Whether the llama.cpp build of a row kept attention scores on chip:
/// the notes say so ("fa 1", "flash attention on"; "fa 0" or "flash
/// attention off" say it did not), else the row's first date is on or
/// after the day it became the default. Rows that place no date ran
/// without it (off by default until then).
pub fn flash_attn_of(notes: &str, source: &str) -> bool {
    let n = notes.to_ascii_lowercase();
    if ["fa 1", "flash attention on", "flash-attn on"].iter().any(|p| n.contains(p)) {
        return true;
    }
    if ["fa 0", "flash attention off", "flash-attn off"].iter().any(|p| n.contains(p)) {
        return false;
    }
    let Some((y, m, d)) = first_date(&n).or_else(|| first_date(&source.to_ascii_lowercase())) else {
        return false;
    };
    (y, m, d.unwrap_or(1)) >= FLASH_ATTN_DEFAULT
}

/// A year, month and, when given, day.
type Date = (u32, u32, Option<u32>);

/// The first "YYYY-MM-DD" or "Mon YYYY" in lower-case text.
fn first_date(t: &str) -> Option<Date> {
    let b = t.as_bytes();
    let num = |s: usize, len: usize| -> Option<u32> {
        t.get(s..s + len).filter(|x| x.bytes().all(|c| c.is_ascii_digit())).and_then(|x| x.parse().ok())
    };
    let mut best: Option<(usize, Date)> = None;
    for i in 0..b.len() {
        if let (Some(y), Some(m), Some(d)) = (num(i, 4), num(i + 5, 2), num(i + 8, 2)) {
            if t.get(i + 4..i + 5) == Some("-")
                && t.get(i + 7..i + 8) == Some("-")
                && (2000..2100).contains(&y)
            {
                best = Some((i, (y, m, Some(d))));
                break;
            }
        }
    }
    for (k, name) in MONTHS.iter().enumerate() {
        let pat = format!("{name} ");
        if let Some(i) = t.find(&pat) {
            if let Some(y) = num(i + pat.len(), 4).filter(|y| (2000..2100).contains(y)) {
                if best.is_none_or(|(j, _)| i < j) {
                    best = Some((i, (y, k as u32 + 1, None)));
                }
            }
        }
    }
    best.map(|b| b.1)
}
