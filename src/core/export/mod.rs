//! Export: what a person runs to launch the plan the answer recommends —
//! a SkyPilot task ([`skypilot`]) and the engine's own command line
//! ([`command`]) — for the pick and each alternative, with the values the
//! plan assumed (layout, replicas, sequences per replica, context length,
//! KV-cache precision, memory fraction; for training the launcher, the
//! process counts and the ZeRO stage). It reads the answer and the catalog
//! and computes nothing new. Where a mapping is unknown (a provider
//! SkyPilot has no cloud for, a value an engine has no flag for) the text
//! says so in a comment line and never guesses a name or a flag.
//!
//! Small on purpose: the page links it too, so YAML is written by hand
//! (a tiny fixed shape) and no YAML library enters the Wasm build.

pub mod checkpoint;
pub mod command;
pub mod install;
pub mod launch;
pub mod names;
pub mod skypilot;

use super::answer::Answer;
use super::catalog::Catalog;

pub use launch::{base_port, engine_name, Export, Launch};

/// Exports for the pick and each alternative, pick first.
pub fn for_answer(answer: &Answer, catalog: &Catalog) -> Vec<Export> {
    let Some(rec) = &answer.recommendation else { return Vec::new() };
    let ids = std::iter::once((&rec.pick.offer, "pick"))
        .chain(rec.alternatives.iter().map(|a| (&a.offer, "alternative")));
    ids.filter_map(|(id, role)| {
        let offer = answer.offers.iter().find(|o| o.id == *id)?;
        let launch = Launch::new(answer, offer, catalog);
        let (skypilot_yaml, unsupported) = skypilot::task(&launch);
        Some(Export {
            offer: offer.id.clone(),
            role,
            skypilot_yaml,
            command: command::engine(&launch).render(),
            unsupported,
        })
    })
    .collect()
}
