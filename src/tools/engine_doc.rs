//! `docs/engines.md`, generated from the engine table (`core::engines`)
//! and the support matrix (`static/support.csv`): `whichgpu docs engines`.
//! `tests/it/engines.rs` fails when the committed file differs.

use std::fmt::Write;

use crate::core::catalog::gpus::Arch;
use crate::core::catalog::support::WEIGHT_FORMATS;
use crate::core::catalog::{Catalog, Kind, Support};
use crate::core::config::Spec;
use crate::core::engines::{self, EngineRow, Fact, Kernels, Reservation, Split};
use crate::core::estimate::engine_rules::Grain;

/// A fact's value and source as one table row.
fn fact<T>(s: &mut String, name: &str, f: Fact<T>, show: impl Fn(T) -> String) {
    let _ = writeln!(s, "| {name} | {} | {} |", show(f.value), f.source.text().replace('|', "\\|"));
}

fn or_none(v: Option<&str>) -> String {
    v.map_or_else(|| "—".to_string(), |v| format!("`{v}`"))
}

fn reservation(r: Reservation, flag: &str) -> String {
    match r {
        Reservation::Card { share } => format!("{share} of the card at start (`{flag} {share}`)"),
        Reservation::Static { share } => {
            format!("a static pool of {share} of the card, activations beside it (`{flag} {share}`)")
        }
        Reservation::FreeForKv { share } => {
            format!("{share} of the memory free after the weights for the KV cache (`{flag} {share}`)")
        }
        Reservation::Exact => "exactly what it is given".to_string(),
        Reservation::Allocator => "PyTorch's caching allocator over the peak".to_string(),
    }
}

fn engine_section(s: &mut String, r: &EngineRow, catalog: &Catalog) {
    let l = engines::launch(r.engine);
    let _ = writeln!(s, "## {} (`engine={}`)\n", l.name, r.engine.as_str());
    s.push_str("| Fact | Value | Source |\n|---|---|---|\n");
    fact(s, "Version", l.version, |v| format!("`{v}`"));
    if !l.other_versions.is_empty() {
        let _ = writeln!(
            s,
            "| Other versions in the support matrix | {} | static/support.csv |",
            l.other_versions.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ")
        );
    }
    let _ = writeln!(s, "| Package | {} | |", or_none(l.package));
    if let Some(f) = l.image_version {
        fact(s, "Image release", f, |v| format!("`{v}`"));
    }
    if let Some(f) = l.rocm_image {
        fact(s, "ROCm image", f, |v| format!("`{v}`"));
    }
    fact(s, "Port", l.port, |v| v.to_string());
    fact(s, "Memory reservation", r.reservation, |v| reservation(v, l.memory_flag.unwrap_or_default()));
    fact(s, "Usable share of the driver-reported memory", r.usable_share, |v| v.to_string());
    fact(s, "Runtime memory outside the model, GiB per GPU", r.overhead_gib, |v| v.to_string());
    fact(s, "KV block, tokens", r.kv_block_tokens, |v| v.to_string());
    fact(s, "Prefill chunk, tokens", r.prefill_chunk, |v| {
        v.map_or_else(|| "the whole prompt".to_string(), |c| c.to_string())
    });
    fact(s, "Sequences in flight, at most", r.max_seqs, |c| {
        format!("{}{}", c.seqs, if c.per_dp_rank { " per data-parallel rank" } else { "" })
    });
    fact(s, "Shares a common prefix's KV", r.prefix_cache, |v| if v { "yes" } else { "no" }.to_string());
    fact(s, "Spreads a model by", r.split, |v| match v {
        Split::Tensor => "tensor parallel, pipeline stages across nodes".to_string(),
        Split::Layers => "a run of layers per GPU".to_string(),
    });
    let _ = writeln!(
        s,
        "| Tensor / pipeline flags | {} | tests/data/export/{}.flags |",
        l.parallel_flags.map_or_else(|| "—".to_string(), |(t, p)| format!("`{t}`, `{p}`")),
        r.engine.as_str()
    );
    fact(s, "Refuses a split off a format's block or group", r.shape_rules, |v| {
        if v { "yes: the rules below" } else { "no" }.to_string()
    });
    match r.expert_parallel {
        Some(f) => fact(s, "Expert parallelism", f, |e| {
            format!(
                "`{}`{}",
                l.expert_parallel_flag.unwrap_or_default(),
                if e.experts_divide_group { "; the experts must divide over the group" } else { "" }
            )
        }),
        None => s.push_str("| Expert parallelism | no | |\n"),
    }
    match r.dp_attention {
        Some(f) => fact(s, "Data-parallel attention", f, |d| {
            format!(
                "`{}`; dense FFN cut over {}",
                l.dp_attention_flag.unwrap_or_default(),
                if d.dense_over_group { "the whole group" } else { "each rank's GPUs" }
            )
        }),
        None => s.push_str("| Data-parallel attention | no | |\n"),
    }
    match l.context_flag {
        Some(f) => fact(s, "Context flag", f, |v| format!("`{v}`")),
        None => s.push_str("| Context flag | — | |\n"),
    }
    let _ = writeln!(
        s,
        "| Sequences flag | {} | tests/data/export/{}.flags |",
        or_none(l.seqs_flag),
        r.engine.as_str()
    );
    fact(s, "Kernels", r.kernels, |k| match k {
        Kernels::Graphs => "CUDA graphs".to_string(),
        Kernels::Compiled => "an engine compiled ahead".to_string(),
        Kernels::Eager => "eager".to_string(),
    });
    fact(s, "Loads GGUF files only", r.gguf_only, |v| if v { "yes" } else { "no" }.to_string());
    fact(s, "Speculative decoding (`spec=`)", r.speculative, |m| {
        m.iter().filter(|m| **m != Spec::Off).map(|m| m.as_str()).collect::<Vec<_>>().join(", ")
    });
    fact(s, "Short of memory", r.reservation, |v| {
        if v.pages_kv() { "serves fewer sequences (paged KV)" } else { "fails (sizes its cache up front)" }
            .to_string()
    });
    s.push_str(
        "\nWeight formats it runs, by architecture (static/support.csv; *weight-only*: stored in the \
        format, math at 16 bits):\n\n",
    );
    for arch in Arch::ALL {
        let runs: Vec<String> = WEIGHT_FORMATS
            .iter()
            .filter_map(|f| match catalog.support(r.engine.as_str(), arch.as_str(), Kind::Weights, f) {
                Support::Native => Some((*f).to_string()),
                Support::WeightOnly => Some(format!("{f} (weight-only)")),
                Support::Unsupported => None,
            })
            .collect();
        let _ = writeln!(
            s,
            "- `{}`: {}",
            arch.as_str(),
            if runs.is_empty() { "none".to_string() } else { runs.join(", ") }
        );
    }
    s.push('\n');
}

/// The document.
pub fn markdown(catalog: &Catalog) -> String {
    let mut s = String::new();
    s.push_str("# The engine table\n\n");
    s.push_str(
        "Generated by `cargo run --bin whichgpu -- docs engines > docs/engines.md` from \
        `src/core/engines/` (one row per serving engine and training launcher, at the version the launch \
            texts install) and `static/support.csv`; `tests/it/engines.rs` fails when this file differs. The \
                planner, the memory model, the layout rules, the launch texts and the guidance read these \
                    rows.\n\n",
    );
    for r in engines::ROWS {
        engine_section(&mut s, r, catalog);
    }
    s.push_str("## Splits the engines refuse\n\n");
    s.push_str(
        "Where an engine checks shapes (above), a layout is a plan only if each GPU's slice of every \
        sharded dimension — query heads × head size, KV heads × head size, the dense FFN width, each \
            expert's FFN width — is a whole number of the format's blocks or groups \
                (`src/core/estimate/engine_rules.rs`, each rule with its source):\n\n",
    );
    s.push_str(
        "| Format | Row-parallel slice (K) | Column-parallel slice (N) | Expert width |\n|---|---|---|---|\n",
    );
    for g in [Grain::Fp8Block128, Grain::Group128] {
        let (k, n, e) = g.multiples();
        let _ = writeln!(s, "| {} | {k} | {n} | {e} |", g.label());
    }
    s.push_str(
        "\n## Training launchers (`trainer=`)\n\n| Trainer | Launch | Version | Source | Memory terms \
        |\n|---|---|---|---|---|\n",
    );
    for t in engines::TRAINERS {
        let launch = match t.launcher {
            engines::Launcher::Accelerate => "`accelerate launch` (transformers' version: the `hf` row)",
            engines::Launcher::Own => "its own command",
        };
        let (v, src) = t.version.map_or(("—", ""), |f| (f.value, f.source.text()));
        let _ = writeln!(
            s,
            "| {} (`{}`) | {launch} | {v} | {src} | `{}` |",
            t.name,
            t.trainer.as_str(),
            t.memory_terms
        );
    }
    s
}
