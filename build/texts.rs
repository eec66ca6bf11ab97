//! Splits the page's texts by language for the Wasm: `core::messages`
//! holds every text in English and Chinese; the page's Wasm compiles in the
//! English column only (`texts.rs`, included by `core::texts`), and fetches
//! the Chinese column, as a plain text file (`messages-zh.txt`, copied into
//! the dist by `scripts/messages-zh.sh`), when the page is in Chinese.
//!
//! The file: a first line `whichgpu-zh <stamp> <rows>`, then one Chinese
//! text per line in table order (`MESSAGES`, then `UI`). The stamp is a
//! hash of every key and Chinese text, compiled into the Wasm as well and
//! part of the file name the page fetches, so a page never reads texts of
//! another build.

use super::core::messages::{MESSAGES, UI};

/// FNV-1a, 64 bits (the parameters of
/// http://www.isthe.com/chongo/tech/comp/fnv/index.html, read 2026-12-01).
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn rows() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    MESSAGES.iter().chain(UI.iter())
}

/// The Rust source for `core::texts` (stamp, and the English tables for the Wasm)
/// and the Chinese file; an error names a text the file cannot hold.
pub fn split() -> Result<(String, String), String> {
    let mut zh = String::new();
    for (key, _, text) in rows() {
        if text.contains(['\n', '\r']) {
            return Err(format!("src/core/messages.rs: the Chinese text of {key} has a line break"));
        }
        zh.push_str(text);
        zh.push('\n');
    }
    let stamp = fnv1a(rows().flat_map(|(k, _, z)| k.bytes().chain([0]).chain(z.bytes()).chain([b'\n'])));
    let stamp = format!("{stamp:016x}");
    let count = MESSAGES.len() + UI.len();
    let file = format!("whichgpu-zh {stamp} {count}\n{zh}");
    let table = |name: &str, rows: &[(&str, &str, &str)]| {
        let body: String = rows.iter().map(|(k, en, _)| format!("    ({k:?}, {en:?}),\n")).collect();
        format!("#[cfg(target_arch = \"wasm32\")]\npub const {name}: &[(&str, &str)] = &[\n{body}];\n")
    };
    let rust = format!(
        "/// Hash of every key and Chinese text; names the Chinese file.\npub const ZH_STAMP: &str = \"{stamp}\";\n{}{}",
        table("MESSAGES", MESSAGES),
        table("UI", UI)
    );
    Ok((rust, file))
}
