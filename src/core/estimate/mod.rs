//! The estimator: memory, speed and the inverse questions for a
//! configuration on one GPU type. Pure functions of the catalog and the
//! configuration.

pub mod arch;
pub mod engine;
pub mod media;
pub mod media_train;
pub mod ranges;
pub mod serve;
pub mod train;

use super::catalog::{Catalog, Model};
use super::config::{Config, CustomArch};
use super::link::Notice;
use super::table::clip;

/// The model a configuration names: a catalog entry, a custom architecture,
/// or (after a notice) the default model.
pub fn resolve_model(cfg: &Config, catalog: &Catalog, notices: &mut Vec<Notice>) -> Option<Model> {
    if cfg.model == "custom" {
        return Some(custom_model(&cfg.custom, notices));
    }
    match catalog.model(&cfg.model) {
        Some(m) => Some(m.clone()),
        None => {
            notices.push(Notice::other("model", format!("unknown model `{}`", clip(&cfg.model))));
            None
        }
    }
}

fn custom_model(a: &CustomArch, notices: &mut Vec<Notice>) -> Model {
    let params_b = match a.params_b {
        Some(p) => p,
        None => {
            notices.push(Notice::other("params", "model=custom needs `params` (billions); assuming 7".into()));
            7.0
        }
    };
    let mut m = Model::inferred_from_params(params_b);
    let full = a.layers.is_some() && a.hidden.is_some() && a.heads.is_some();
    if let Some(v) = a.layers {
        m.layers = v;
    }
    if let Some(v) = a.hidden {
        m.hidden = v;
    }
    if let Some(v) = a.heads {
        m.heads = v;
        m.head_dim = (m.hidden / v).max(1);
        m.kv_heads = m.kv_heads.min(v);
    }
    if let Some(v) = a.head_dim {
        m.head_dim = v;
    }
    if let Some(v) = a.kv_heads {
        if m.heads % v == 0 {
            m.kv_heads = v;
        } else {
            notices.push(Notice::other("kv_heads", format!("{v} does not divide {} heads; using {}", m.heads, m.kv_heads)));
        }
    }
    if m.heads % m.kv_heads != 0 {
        m.kv_heads = 1;
    }
    if let Some(v) = a.ffn {
        m.ffn = Some(v);
    }
    if let Some(v) = a.vocab {
        m.vocab = v;
    }
    if full {
        m.inferred = false;
        m.name = format!("Custom {params_b}B");
        m.source = "architecture given in the link".into();
    }
    m
}
