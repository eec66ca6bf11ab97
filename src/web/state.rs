//! The reducer: its state is the link configuration plus what the page
//! must remember between renders (notices, "copied", an imported catalog).

use std::rc::Rc;

use yew::prelude::*;

use super::dom;
use crate::core::catalog::Catalog;
use crate::core::config::{Config, Lang};
use crate::core::hfconfig::KEY as CONFIG_KEY;
use crate::core::link::{self, Notice};
use crate::core::messages::Msg;
use crate::core::ondemand::{apply_hf, read_offers};

/// The reducer's state: the configuration (what the link holds) plus the
/// notices about what was rejected, and the last good answer's inputs.
#[derive(Clone, PartialEq)]
pub struct State {
    pub cfg: Config,
    pub notices: Vec<Notice>,
    pub copied: bool,
    /// An imported offers catalog, replacing the bundled offers.
    pub imported: Option<Imported>,
    /// Counts the language choices, so that choosing Chinese again retries
    /// a failed fetch of its texts (`web::texts`).
    pub lang_tries: u32,
}

/// A validated imported catalog and the file's text (the on-demand module
/// rebuilds the same catalog from it); compared by identity.
#[derive(Clone)]
pub struct Imported(pub Rc<Catalog>, pub Rc<str>);

impl PartialEq for Imported {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

pub enum Action {
    /// An input changed: key and raw value, validated by the link codec.
    Set(&'static str, String),
    Copied,
    /// Offers pasted as CSV or JSON (the text) and the on-demand worker's
    /// parse of them (`core::ondemand::read_offers`), or why there is none:
    /// replaces the catalog only when the whole file is valid; otherwise a
    /// notice names the row and field.
    Import(String, Result<String, String>),
    /// The on-demand worker's reply to a Hugging Face `config.json`
    /// (`core::ondemand::apply_hf`), or why there is none: `model=custom`
    /// and its architecture keys when the file is good; otherwise a notice
    /// naming the field.
    ImportConfig(Result<String, String>),
    /// The user's own hourly price for one offer (`price=` in the link).
    Price(String, String),
    /// The Chinese texts (or failed) or the API prices came in: render again.
    Texts,
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.copied = false;
        match action {
            Action::Set(key, value) => set_key(&mut next, key, &value, true),
            Action::Copied => next.copied = true,
            Action::Texts => {}
            Action::Import(text, reply) => {
                next.notices.retain(|n| n.key != "import");
                let result = reply
                    .map_err(|why| Notice::said("import", Msg::new("notice.import.worker").arg("why", why)))
                    .and_then(|r| read_offers(&r).map_err(|e| Notice::other("import", e)))
                    .and_then(|offers| {
                        Catalog::bundled()
                            .and_then(|b| b.with_offers(offers))
                            .map_err(|e| Notice::other("import", e.to_string()))
                    });
                match result {
                    Ok(c) => next.imported = Some(Imported(Rc::new(c), Rc::from(text.as_str()))),
                    Err(n) => next.notices.push(n),
                }
            }
            Action::ImportConfig(reply) => {
                next.notices.retain(|n| n.key != CONFIG_KEY);
                let result = reply
                    .map_err(|why| Notice::said(CONFIG_KEY, Msg::new("notice.hf.worker").arg("why", why)))
                    .and_then(|r| apply_hf(&self.cfg, &r));
                match result {
                    Ok((cfg, notices)) => {
                        next.notices.retain(|n| !link::is_arch_key(&n.key) && n.key != "model");
                        next.cfg = cfg;
                        next.notices.extend(notices);
                    }
                    // A bad file keeps the last good architecture.
                    Err(n) => next.notices.push(n),
                }
            }
            Action::Price(offer, value) => {
                let mut parts: Vec<String> = self
                    .cfg
                    .prices
                    .iter()
                    .filter(|(o, _)| *o != offer)
                    .map(|(o, v)| format!("{o}:{v}"))
                    .collect();
                if !value.trim().is_empty() {
                    parts.push(format!("{offer}:{}", value.trim()));
                }
                set_key(&mut next, "price", &parts.join(","), false);
            }
        }
        Rc::new(next)
    }
}

/// Sets one key of `next` (a copy of the state before the action) through
/// the link codec: the new configuration with that key's notice cleared, or
/// (bad input) the last good state and the notice saying why, which
/// replaces the key's earlier notice when `replace` is set. One copy for
/// every action that sets a key.
#[inline(never)]
fn set_key(next: &mut State, key: &'static str, value: &str, replace: bool) {
    match link::set(&next.cfg, key, value) {
        Ok(cfg) => {
            next.cfg = cfg;
            next.lang_tries = next.lang_tries.wrapping_add(u32::from(key == "lang"));
            next.notices.retain(|n| n.key != key);
        }
        Err(n) => {
            if replace {
                next.notices.retain(|x| x.key != key);
            }
            next.notices.push(n);
        }
    }
}

/// The page's language: the link's, else the browser's preference.
pub fn lang_of(cfg: &Config) -> Lang {
    cfg.lang.unwrap_or_else(|| if dom::browser_prefers_zh() { Lang::Zh } else { Lang::En })
}
