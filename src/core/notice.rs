//! Diagnostics: what the answer tells the user about their input (a key
//! that was ignored, a value replaced by its default, a choice that could
//! not be honoured). Findings about the job itself ("does not fit") are
//! not notices; they are part of the answer.

use super::config::Lang;
use super::messages::Msg;
use super::table::clip;

/// A problem with one key of a link. `message` is English (the JSON's);
/// the page renders `msg` in its own language ([`Notice::text`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Notice {
    pub key: String,
    pub message: String,
    #[serde(skip)]
    pub kind: NoticeKind,
    /// The same sentence by message key; `None` only for text that has no
    /// translation (an imported file's parse error). Boxed: notices travel
    /// in `Result`s, and this keeps them small.
    #[serde(skip)]
    pub msg: Option<Box<Msg>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NoticeKind {
    UnknownKey,
    BadValue { value: String, expected: String },
    UnknownVersion { value: String },
    Duplicate,
    Other,
}

impl Notice {
    fn of(key: &str, kind: NoticeKind, msg: Msg) -> Notice {
        Notice { key: key.into(), message: msg.render(Lang::En), kind, msg: Some(Box::new(msg)) }
    }

    pub fn unknown_key(key: &str) -> Notice {
        if key.is_empty() {
            return Notice::of("(empty)", NoticeKind::UnknownKey, Msg::new("notice.empty_key"));
        }
        Notice::of(&clip(key), NoticeKind::UnknownKey, Msg::new("notice.unknown_key").arg("key", clip(key)))
    }

    /// A bad value; `expected` is shown as it is (a list of names, a pattern).
    pub fn bad(key: &str, value: &str, expected: &str) -> Notice {
        let msg = Msg::new("notice.bad").arg("value", clip(value)).arg("key", key).arg("expected", expected);
        Notice::of(key, NoticeKind::BadValue { value: clip(value), expected: expected.into() }, msg)
    }

    /// A bad value whose expectation is a sentence of its own (`expect.*`).
    pub fn bad_msg(key: &str, value: &str, expected: Msg) -> Notice {
        let expected_en = expected.render(Lang::En);
        let msg = Msg::new("notice.bad").arg("value", clip(value)).arg("key", key).sub("expected", expected);
        Notice::of(key, NoticeKind::BadValue { value: clip(value), expected: expected_en }, msg)
    }

    pub fn unknown_version(value: &str) -> Notice {
        Notice::of(
            "v",
            NoticeKind::UnknownVersion { value: clip(value) },
            Msg::new("notice.version").arg("value", clip(value)),
        )
    }

    pub fn duplicate(label: &str) -> Notice {
        Notice::of(label, NoticeKind::Duplicate, Msg::new("notice.duplicate").arg("key", label))
    }

    /// A notice whose text has no message key (shown as it is in every language).
    pub fn other(key: &str, message: String) -> Notice {
        Notice { key: key.into(), message, kind: NoticeKind::Other, msg: None }
    }

    /// A notice about a choice that could not be honoured, by message key.
    pub fn said(key: &str, msg: Msg) -> Notice {
        Notice::of(key, NoticeKind::Other, msg)
    }

    /// The notice in the reader's language.
    pub fn text(&self, lang: Lang) -> String {
        self.msg.as_ref().map_or_else(|| self.message.clone(), |m| m.render(lang))
    }
}
