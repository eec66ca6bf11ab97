//! Diagnostics: what the answer tells the user about their input (a key
//! that was ignored, a value replaced by its default, a choice that could
//! not be honoured). Findings about the job itself ("does not fit") are
//! not notices; they are part of the answer.

use super::table::clip;

/// A problem with one key of a link. `message` is English; the page
/// translates by [`NoticeKind`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Notice {
    pub key: String,
    pub message: String,
    #[serde(skip)]
    pub kind: NoticeKind,
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
    pub fn unknown_key(key: &str) -> Notice {
        if key.is_empty() {
            return Notice { key: "(empty)".into(), message: "a value without a key, ignored".into(), kind: NoticeKind::UnknownKey };
        }
        Notice { key: clip(key), message: format!("unknown key `{}`, ignored", clip(key)), kind: NoticeKind::UnknownKey }
    }

    pub fn bad(key: &str, value: &str, expected: &str) -> Notice {
        Notice {
            key: key.into(),
            message: format!("`{}` is not valid for `{key}` (expected {expected}); using the default", clip(value)),
            kind: NoticeKind::BadValue { value: clip(value), expected: expected.into() },
        }
    }

    pub fn other(key: &str, message: String) -> Notice {
        Notice { key: key.into(), message, kind: NoticeKind::Other }
    }
}

