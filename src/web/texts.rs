//! The page's Chinese texts: the Wasm carries English only (`core::texts`)
//! and fetches the Chinese column (same origin, once) when the page is in
//! Chinese. A page opened in Chinese waits for it before its first render
//! ([`super::start`]); a switch to Chinese renders in English until it is
//! in, then in Chinese (`app`). A failure leaves the page in English with
//! a notice, and the next switch to Chinese retries.

use std::cell::RefCell;

use super::dom;
use crate::core::messages::Msg;
use crate::core::notice::Notice;
use crate::core::texts;

thread_local! {
    /// Why the last fetch failed; cleared by a good one.
    static FAILED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Fetches and installs the Chinese texts, unless they are in already.
pub async fn load_zh() {
    if texts::zh_loaded() {
        return;
    }
    let result = dom::fetch_text(&texts::zh_file()).await.and_then(texts::install_zh);
    FAILED.with(|f| *f.borrow_mut() = result.err());
}

/// The notice for a failed fetch, if the last one failed.
pub fn failure() -> Option<Notice> {
    let error = FAILED.with(|f| f.borrow().clone())?;
    Some(Notice::said("lang", Msg::new("notice.zh_texts").arg("file", texts::zh_file()).arg("error", error)))
}
