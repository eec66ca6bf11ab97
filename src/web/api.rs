//! The hosted API's price under the pick's cost, and the answer "rent a
//! GPU or call an API?". The price table and its texts are not in this
//! module's Wasm: the on-demand worker's reply to the launch card's
//! request (`super::export`: once the card is in view, or opened in an
//! embedded view, so a reader who never gets there downloads no worker)
//! carries it (`core::ondemand`: the CLI's comparison,
//! `core::evaluate::api`, on the worker's copy of the table), and the page
//! shows it while the answer is the one asked about.
//! No reply (the worker did not load, the model has no price) shows
//! nothing. A leaf: of the shell it imports only `ondemand`.

use std::cell::RefCell;

use std::rc::Rc;

use super::ondemand::Job;
use crate::core::answer::GuidanceItem;
use crate::core::config::Lang;
use crate::core::evaluate::api::read_reply;
use crate::core::messages::Msg;

thread_local! {
    /// The last reply and the answer (its job) it is about.
    static LAST: RefCell<Option<(Rc<Job>, String)>> = const { RefCell::new(None) };
}

/// Keeps the API's part of the worker's reply to `job`'s `export` request;
/// `true` when it has a price (render again).
pub fn keep(job: &Rc<Job>, reply: &Result<String, String>) -> bool {
    let reply = reply.as_deref().unwrap_or_default();
    LAST.with(|l| *l.borrow_mut() = Some((job.clone(), reply.to_string())));
    read_reply(reply, Lang::En).is_some()
}

/// The line and the guidance answer for `job`'s answer in `lang`, once its reply is in.
pub fn shown(job: &Job, lang: Lang) -> Option<(Msg, GuidanceItem)> {
    LAST.with(|l| {
        let l = l.borrow();
        let (_, reply) = l.as_ref().filter(|(asked, _)| **asked == *job)?;
        let [line, title, answer] = read_reply(reply, lang)?;
        Some((
            Msg::text(line),
            GuidanceItem { id: "api", title_msg: Some(Msg::text(title)), msg: Msg::text(answer) },
        ))
    })
}
