//! The speculative-decoding keys (`spec`, `spec_tokens`, `draft`,
//! `spec_accept`) checked against the task, the model, the engine and the
//! catalog: what cannot be planned is said, naming the key, and planned
//! without speculation (`estimate::spec` has the sources).

use super::super::catalog::{Catalog, Model};
use super::super::config::{Config, Spec, Task};
use super::super::estimate::spec::{default_accept, eagle_head, engine_runs, has_mtp};
use super::super::messages::Msg;
use super::super::notice::Notice;
use super::super::table::clip;

/// Says what of the speculative-decoding keys cannot be used and turns
/// speculation off where it cannot be planned; `model` is the served
/// language model (`None`: the task serves none).
pub(super) fn spec_notices(
    cfg: &mut Config,
    model: Option<&Model>,
    catalog: &Catalog,
    notices: &mut Vec<Notice>,
) {
    let serving = cfg.task == Task::Serve && model.is_some();
    if cfg.spec != Spec::Off && !serving {
        notices.push(Notice::said("spec", Msg::new("notice.spec.task")));
        cfg.spec = Spec::Off;
    }
    // The method's own keys, given without it.
    for (key, unused) in [
        ("spec_tokens", cfg.spec == Spec::Off && cfg.spec_tokens.is_some()),
        ("spec_accept", cfg.spec == Spec::Off && cfg.spec_accept.is_some()),
        ("draft", cfg.spec != Spec::Draft && cfg.draft.is_some()),
    ] {
        if unused {
            notices.push(Notice::said(key, Msg::new("notice.spec.unused").arg("key", key)));
        }
    }
    let Some(model) = model.filter(|_| cfg.spec != Spec::Off) else { return };
    let why = match cfg.spec {
        _ if !engine_runs(cfg.engine, cfg.spec) => Some((
            "engine",
            Msg::new("notice.spec.engine")
                .arg("engine", cfg.engine.to_string())
                .arg("method", cfg.spec.as_str()),
        )),
        Spec::Mtp if !has_mtp(model) => {
            Some(("spec", Msg::new("notice.spec.mtp").arg("model", model.name.clone())))
        }
        Spec::Draft => draft_refused(cfg, model, catalog),
        _ => None,
    };
    if let Some((key, msg)) = why {
        notices.push(Notice::said(key, msg));
        cfg.spec = Spec::Off;
        return;
    }
    if cfg.spec_accept.is_none() && default_accept(cfg.spec).is_none() {
        notices.push(Notice::said("spec_accept", Msg::new("notice.spec.accept")));
        cfg.spec = Spec::Off;
        return;
    }
    if cfg.spec == Spec::Eagle && eagle_head(&model.id).is_none() {
        notices.push(Notice::said("spec", Msg::new("notice.spec.head").arg("model", model.name.clone())));
    }
}

/// Why `spec=draft` cannot be planned with the link's `draft`: none given,
/// not a catalog language model, another vocabulary (the engines verify the
/// draft's token ids against the target's), or not smaller than the target.
fn draft_refused(cfg: &Config, model: &Model, catalog: &Catalog) -> Option<(&'static str, Msg)> {
    let Some(id) = cfg.draft.as_deref() else {
        return Some(("draft", Msg::new("notice.spec.draft_missing").arg("model", model.name.clone())));
    };
    let Some(d) = catalog.model(id) else {
        return Some(("draft", Msg::new("notice.spec.draft_unknown").arg("draft", clip(id))));
    };
    if d.vocab != model.vocab {
        let msg =
            Msg::new("notice.spec.draft_vocab").arg("draft", d.name.clone()).arg("model", model.name.clone());
        return Some(("draft", msg.arg("dv", d.vocab.to_string()).arg("tv", model.vocab.to_string())));
    }
    (d.params_total >= model.params_total).then(|| {
        (
            "draft",
            Msg::new("notice.spec.draft_size").arg("draft", d.name.clone()).arg("model", model.name.clone()),
        )
    })
}
