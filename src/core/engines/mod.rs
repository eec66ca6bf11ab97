//! The engine table: one row per serving engine and per training launcher,
//! at the version the launch texts install, the one home of each engine's
//! facts (memory reservation, KV block size, prefill chunk, scheduler cap,
//! how it spreads a model, which parallel modes it runs and their flags,
//! context flag, how it launches kernels). Every fact carries its source
//! ([`Fact`]): the engine's docs page, a source file at a pinned commit, or
//! the issue that shows it. The planner, the memory model, the layout rules
//! (`estimate::engine_rules`, whose format rules this table points at), the
//! launch texts and the guidance read these rows; `docs/engines.md` is
//! generated from them (`whichgpu docs engines`).
//!
//! Which weight and KV formats run on which GPU architecture is the
//! support matrix's (`static/support.csv`, one dated source per row); a
//! row here names the version labels that matrix uses for its engine, and
//! `tests/it/engines.rs` checks that the two agree. The fitted efficiency
//! factors stay where the fit writes them (`estimate::engine`).
//!
//! Pattern: ripgrep's `ignore/src/default_types.rs`, one row per variant
//! and a test of the table's invariants.

mod fields;
mod serving;
mod training;

use super::config::{Engine, Trainer};

pub use fields::*;
pub use serving::{LAUNCH_ROWS, ROWS};
pub use training::TRAINERS;

/// The launch facts of `engine`.
pub fn launch(engine: Engine) -> &'static LaunchRow {
    match engine {
        Engine::Vllm => &serving::VLLM_LAUNCH,
        Engine::Sglang => &serving::SGLANG_LAUNCH,
        Engine::TrtLlm => &serving::TRT_LLM_LAUNCH,
        Engine::LlamaCpp => &serving::LLAMA_CPP_LAUNCH,
        Engine::Hf => &serving::HF_LAUNCH,
    }
}

/// The row of `engine`.
pub fn row(engine: Engine) -> &'static EngineRow {
    match engine {
        Engine::Vllm => &serving::VLLM,
        Engine::Sglang => &serving::SGLANG,
        Engine::TrtLlm => &serving::TRT_LLM,
        Engine::LlamaCpp => &serving::LLAMA_CPP,
        Engine::Hf => &serving::HF,
    }
}

/// The row of `trainer`.
pub fn trainer(t: Trainer) -> &'static TrainerRow {
    match t {
        Trainer::Hf => &training::HF,
        Trainer::Trl => &training::TRL,
        Trainer::Deepspeed => &training::DEEPSPEED,
        Trainer::Megatron => &training::MEGATRON,
        Trainer::Torchtitan => &training::TORCHTITAN,
        Trainer::Torchtune => &training::TORCHTUNE,
        Trainer::Axolotl => &training::AXOLOTL,
        Trainer::Unsloth => &training::UNSLOTH,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::Spec;

    /// Every engine has exactly one row and `row` finds it.
    #[test]
    fn one_row_per_engine() {
        for e in Engine::ALL {
            assert_eq!(ROWS.iter().filter(|r| r.engine == *e).count(), 1, "{e}");
            assert_eq!(LAUNCH_ROWS.iter().filter(|r| r.engine == *e).count(), 1, "{e}");
            assert_eq!((row(*e).engine, launch(*e).engine), (*e, *e));
        }
        assert_eq!((ROWS.len(), LAUNCH_ROWS.len()), (Engine::ALL.len(), Engine::ALL.len()));
    }

    /// Every trainer has exactly one row and `trainer` finds it.
    #[test]
    fn one_row_per_trainer() {
        for t in Trainer::ALL {
            assert_eq!(TRAINERS.iter().filter(|r| r.trainer == *t).count(), 1, "{t}");
            assert_eq!(trainer(*t).trainer, *t);
        }
        assert_eq!(TRAINERS.len(), Trainer::ALL.len());
    }

    /// Shares are shares, sizes are positive, every fact has a source, and
    /// an engine with a flag for a mode runs it through the layout rules.
    #[test]
    fn the_rows_hold_sane_facts() {
        for r in ROWS {
            let e = r.engine;
            let l = launch(e);
            assert!(!l.version.value.trim().is_empty() && !l.name.is_empty(), "{e}");
            assert!(r.usable_share.value > 0.0 && r.usable_share.value < 1.0, "{e}");
            if let Some(share) = r.reservation.value.fraction() {
                assert!(share > 0.0 && share < 1.0, "{e}");
            }
            // A mode the planner runs has the flag the launch writes, and only then.
            assert_eq!(
                r.reservation.value.fraction().is_some(),
                l.memory_flag.is_some_and(|f| f.starts_with('-')),
                "{e}"
            );
            assert_eq!(
                r.expert_parallel.is_some(),
                l.expert_parallel_flag.is_some_and(|f| f.starts_with('-')),
                "{e}"
            );
            assert_eq!(
                r.dp_attention.is_some(),
                l.dp_attention_flag.is_some_and(|f| f.starts_with('-')),
                "{e}"
            );
            assert!(
                r.overhead_gib.value > 0.0 && r.kv_block_tokens.value >= 1 && r.max_seqs.value.seqs >= 1,
                "{e}"
            );
            assert!(r.prefill_chunk.value.is_none_or(|c| c >= 1), "{e}");
            // Modes beyond tensor parallel only where the shapes are checked and layers are not split.
            let modes = r.expert_parallel.is_some() || r.dp_attention.is_some();
            assert!(!modes || (r.shape_rules.value && r.split.value == Split::Tensor), "{e}");
            assert_eq!(l.parallel_flags.is_some(), r.split.value == Split::Tensor, "{e}");
            let sources = [
                l.version.source,
                l.port.source,
                r.reservation.source,
                r.usable_share.source,
                r.overhead_gib.source,
                r.kv_block_tokens.source,
            ];
            let more = [
                r.prefill_chunk.source,
                r.max_seqs.source,
                r.prefix_cache.source,
                r.split.source,
                r.shape_rules.source,
                r.kernels.source,
                r.speculative.source,
                r.gguf_only.source,
            ];
            assert!(r.speculative.value.contains(&Spec::Off), "{e}: every engine runs without speculation");
            for s in sources
                .iter()
                .chain(more.iter())
                .chain(r.expert_parallel.map(|f| f.source).iter())
                .chain(r.dp_attention.map(|f| f.source).iter())
            {
                assert!(s.text().len() > 8, "{e}: a fact without its source");
            }
        }
        for t in TRAINERS {
            assert!(!t.name.is_empty() && !t.memory_terms.is_empty(), "{}", t.trainer);
            assert_eq!(
                t.launcher == Launcher::Own,
                t.version.is_some(),
                "{}: an own launch names its version",
                t.trainer
            );
            // A pinned version (not "(unpinned)") is the one the setup installs.
            if let Some(v) =
                t.version.and_then(|v| v.value.split_whitespace().next()).filter(|v| !v.starts_with('('))
            {
                assert!(
                    t.setup_lines().iter().any(|l| l.contains(v)),
                    "{}: the setup installs {v}",
                    t.trainer
                );
            }
            assert!(t.version.is_none_or(|v| v.source.text().len() > 8), "{}", t.trainer);
        }
    }
}
