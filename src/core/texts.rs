//! The texts' second language in the page's Wasm. Native builds compile
//! every text of `messages` in both languages; the Wasm compiles in the
//! English column only (the tables `build.rs` writes to `OUT_DIR/texts.rs`,
//! from the same `messages.rs`) and reads the Chinese column from the file
//! `build.rs` writes beside them (`messages-zh.txt`, served next to the page
//! as [`zh_file`]) once the page has fetched it ([`install_zh`]). Until
//! then, and if it cannot be read, the Wasm answers Chinese lookups in
//! English. The file's format is in `build/texts.rs`.

include!(concat!(env!("OUT_DIR"), "/texts.rs"));

/// A table of `messages` in the Wasm: rows `start..start + rows` of the
/// English column `build.rs` compiled (`EN`, cut at `ENDS`).
#[cfg(target_arch = "wasm32")]
pub struct Table {
    start: usize,
    rows: usize,
}

#[cfg(target_arch = "wasm32")]
impl Table {
    pub(crate) const fn len(&self) -> usize {
        self.rows
    }

    /// (key, English) of each row.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'static str, &'static str)> {
        (self.start..self.start + self.rows).map(|i| {
            let end = |j: usize| ENDS.get(j).map_or(0, |e| usize::from(*e));
            let (key_start, key_end, text_end) =
                (if i == 0 { 0 } else { end(2 * i - 1) }, end(2 * i), end(2 * i + 1));
            (EN.get(key_start..key_end).unwrap_or_default(), EN.get(key_end..text_end).unwrap_or_default())
        })
    }
}

/// The name the page fetches the Chinese texts under (next to index.html).
pub fn zh_file() -> String {
    format!("messages-zh-{ZH_STAMP}.txt")
}

/// The Chinese texts of a file `build.rs` wrote, in table order
/// (`MESSAGES`, then `UI`), checked against this build's stamp and row count.
pub fn parse_zh(text: &str, rows: usize) -> Result<Vec<&str>, String> {
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let want = format!("whichgpu-zh {ZH_STAMP} {rows}");
    if head != want {
        // Quoted by hand: `{:?}` of a str would link in the Unicode printable tables.
        return Err(format!(
            "its first line is \"{}\", not \"{want}\" (a file of another build)",
            head.get(..60).unwrap_or(head)
        ));
    }
    let texts: Vec<&str> = lines.collect();
    if texts.len() != rows {
        return Err(format!("it has {} texts, not {rows}", texts.len()));
    }
    Ok(texts)
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    static ZH: std::cell::Cell<Option<&'static [&'static str]>> = const { std::cell::Cell::new(None) };
}

/// Installs the Chinese texts the page fetched (kept for the page's lifetime).
#[cfg(target_arch = "wasm32")]
pub fn install_zh(text: String) -> Result<(), String> {
    let text: &'static str = Box::leak(text.into_boxed_str());
    let texts = parse_zh(text, MESSAGES.len() + UI.len())?;
    let texts: &'static [&'static str] = Box::leak(texts.into_boxed_slice());
    ZH.with(|z| z.set(Some(texts)));
    Ok(())
}

/// Whether Chinese lookups answer in Chinese.
#[cfg(target_arch = "wasm32")]
pub fn zh_loaded() -> bool {
    ZH.with(|z| z.get().is_some())
}

/// Native builds have every text compiled in.
#[cfg(not(target_arch = "wasm32"))]
pub fn zh_loaded() -> bool {
    true
}

/// A row's text in `lang`, `index` its place in `MESSAGES` then `UI`: the
/// Chinese text once installed, English until then.
#[cfg(target_arch = "wasm32")]
pub(super) fn pick(
    row: (&'static str, &'static str),
    index: usize,
    lang: super::config::Lang,
) -> &'static str {
    match lang {
        super::config::Lang::En => row.1,
        super::config::Lang::Zh => ZH.with(|z| z.get()).and_then(|t| t.get(index).copied()).unwrap_or(row.1),
    }
}
