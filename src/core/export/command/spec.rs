//! Speculative decoding's launch flags (`spec`): each engine's own way to
//! turn on the method the plan assumed, with the drafted tokens it assumed
//! (`estimate::spec` has which engine runs which method). Chain drafting
//! (one candidate per position) is what the plan's verify step assumes, so
//! SGLang gets `--speculative-eagle-topk 1` and `k + 1` draft tokens.

use super::super::super::config::{Engine, Spec};
use super::super::super::estimate::spec::{default_tokens, eagle_head};
use super::super::checkpoint;
use super::super::launch::Launch;
use super::parts::Command;

/// The drafter's repository: the EAGLE-3 head or the catalog draft model's
/// checkpoint, with a comment where none is known.
fn drafter_repo(l: &Launch, c: &mut Command) -> String {
    let repo = match l.cfg.spec {
        Spec::Eagle => eagle_head(&l.answer.model).map(str::to_string),
        Spec::Draft => {
            l.cfg.draft.as_deref().and_then(checkpoint::of).map(|k| k.repo).filter(|r| !r.is_empty())
        }
        _ => None,
    };
    match repo {
        Some(r) => format!("${{DRAFT:-{r}}}"),
        None => {
            c.note(
                "DRAFT: the drafter's repository or path (none published for this model in the checked \
                    sources: an EAGLE-3 head you train, or the draft model)",
            );
            "$DRAFT".to_string()
        }
    }
}

pub(super) fn spec_flags(l: &Launch, c: &mut Command) {
    let spec = l.cfg.spec;
    if spec == Spec::Off {
        return;
    }
    let k = l.cfg.spec_tokens.unwrap_or_else(|| default_tokens(spec));
    let mtp = if l.answer.model.starts_with("qwen3-next") { "qwen3_next_mtp" } else { "deepseek_mtp" };
    match l.cfg.engine {
        Engine::Vllm => {
            // `--speculative-config` takes the SpeculativeConfig as JSON (vllm/config/speculative.py: method,
            // model, num_speculative_tokens); `draft_model` needs vLLM v0.12.0 or later (PR #24322).
            // The drafter's repository goes between the JSON's single quotes as a double-quoted shell word,
            // so `$DRAFT` can replace it: '{"model":"'"${DRAFT:-repo}"'",…}'.
            let (method, drafter) = match spec {
                Spec::Eagle => ("eagle3", Some(drafter_repo(l, c))),
                Spec::Mtp => (mtp, None),
                Spec::Draft => {
                    c.note("method draft_model needs vLLM v0.12.0 or later (vllm-project/vllm PR #24322)");
                    ("draft_model", Some(drafter_repo(l, c)))
                }
                Spec::Ngram | Spec::Off => ("ngram", None),
            };
            let model = drafter.map(|d| format!("\"model\":\"'\"{d}\"'\",")).unwrap_or_default();
            let lookup = if spec == Spec::Ngram { ",\"prompt_lookup_max\":4" } else { "" };
            let json = format!("{{\"method\":\"{method}\",{model}\"num_speculative_tokens\":{k}{lookup}}}");
            c.flag("--speculative-config", &format!("'{json}'"));
        }
        Engine::Sglang => {
            let algorithm = match spec {
                Spec::Eagle => "EAGLE3",
                Spec::Mtp => "NEXTN",
                Spec::Draft => "STANDALONE",
                Spec::Ngram | Spec::Off => "NGRAM",
            };
            c.flag("--speculative-algorithm", &algorithm);
            if matches!(spec, Spec::Eagle | Spec::Draft) {
                let repo = drafter_repo(l, c);
                c.flag("--speculative-draft-model-path", &repo);
            }
            c.flag("--speculative-num-steps", &k);
            c.flag("--speculative-eagle-topk", &1);
            c.flag("--speculative-num-draft-tokens", &(k + 1));
        }
        Engine::LlamaCpp => {
            // `--spec-type` and `--spec-draft-n-max` (ggml-org/llama.cpp@00dc8057 tools/server/README.md);
            // the draft or EAGLE-3 head as a GGUF file with `-md`; n-gram drafts `--spec-ngram-simple-size-m`
            // tokens.
            let kind = match spec {
                Spec::Eagle => "draft-eagle3",
                Spec::Mtp => "draft-mtp",
                Spec::Draft => "draft-simple",
                Spec::Ngram | Spec::Off => "ngram-simple",
            };
            c.flag("--spec-type", &kind);
            if matches!(spec, Spec::Eagle | Spec::Draft) {
                c.note("-md must point at a GGUF conversion of the drafter");
                c.flag("-md", &"$DRAFT_GGUF");
            }
            if spec == Spec::Ngram {
                c.flag("--spec-ngram-simple-size-m", &k);
            } else {
                c.flag("--spec-draft-n-max", &k);
            }
        }
        Engine::TrtLlm => {
            let kind = match spec {
                Spec::Eagle => "Eagle3",
                Spec::Mtp => "MTP",
                Spec::Draft => "DraftTarget",
                Spec::Ngram | Spec::Off => "NGram",
            };
            let len = if spec == Spec::Mtp { "num_nextn_predict_layers" } else { "max_draft_len" };
            c.note(format!(
                "trtllm-serve has no speculative-decoding flag: put `speculative_config: \
                {{decoding_type: {kind}, {len}: {k}}}` in the --extra_llm_api_options file"
            ));
        }
        Engine::Hf => {
            let how = if spec == Spec::Draft {
                format!("generate(assistant_model=<the draft>, num_assistant_tokens={k})")
            } else {
                format!("generate(prompt_lookup_num_tokens={k})")
            };
            c.note(format!("speculative decoding as the plan assumed: {how}"));
        }
    }
}
