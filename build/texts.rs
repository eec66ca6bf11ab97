//! Splits the page's texts by language for the Wasm: `core::messages`
//! holds every text in English and Chinese; the page's Wasm compiles in the
//! English column only (`texts.rs`, included by `core::texts`: one text of
//! keys and English texts, and where each ends), and fetches
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

/// Texts the page's first answer does not carry (the API comparison,
/// `core::evaluate::api`): left out of both columns the page carries; the
/// CLI has them compiled in, the page gets them from its on-demand worker,
/// which carries them in its API file ([`api_file`]).
/// `tests/it/guidance/messages.rs` checks that no module the page compiles names one.
pub const NATIVE_ONLY: &[&str] = &["g.api."];

fn in_page(key: &str) -> bool {
    !NATIVE_ONLY.iter().any(|p| key.starts_with(p))
}

fn messages() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    MESSAGES.iter().filter(|r| in_page(r.0))
}

fn ui() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    UI.iter().filter(|r| in_page(r.0))
}

fn rows() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    messages().chain(ui())
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
    let (messages_rows, ui_rows) = (messages().count(), ui().count());
    let count = messages_rows + ui_rows;
    let file = format!("whichgpu-zh {stamp} {count}\n{zh}");
    // The English column as one text and the end of each key and text in
    // it (u16: the whole is under 64 KiB): 4 bytes a row instead of two
    // 8-byte string references.
    let mut en = String::new();
    let mut ends = Vec::new();
    for (key, text, _) in rows() {
        for part in [key, text] {
            en.push_str(part);
            ends.push(u16::try_from(en.len()).map_err(|_| {
                "src/core/messages.rs: the English texts pass 64 KiB; widen ENDS in build/texts.rs"
                    .to_string()
            })?);
        }
    }
    let ends: Vec<String> = ends.iter().map(u16::to_string).collect();
    let wasm = "#[cfg(target_arch = \"wasm32\")]\n";
    let rust = format!(
        "/// Hash of every key and Chinese text; names the Chinese file.\npub const ZH_STAMP: &str = \"{stamp}\";\n\
         {wasm}const EN: &str = {en:?};\n{wasm}const ENDS: &[u16] = &[{}];\n\
         {wasm}pub const MESSAGES: Table = Table {{ start: 0, rows: {} }};\n{wasm}pub const UI: Table = Table {{ start: {}, rows: {} }};\n",
        ends.join(","),
        messages_rows,
        messages_rows,
        ui_rows
    );
    Ok((rust, file))
}

/// The on-demand worker's API file (`core::catalog::api_prices::ApiFile`:
/// the price table and the `NATIVE_ONLY` texts in both languages), under a
/// head `whichgpu-api <hash of the body>`.
pub fn api_file(prices: &[super::core::catalog::api_prices::ApiPrice]) -> Result<String, String> {
    let texts: Vec<(&str, &str, &str)> =
        MESSAGES.iter().chain(UI.iter()).filter(|r| !in_page(r.0)).copied().collect();
    let body = super::core::catalog::api_prices::encode_file(prices, &texts)?;
    Ok(format!("whichgpu-api {:016x}\n{body}", fnv1a(body.bytes())))
}
