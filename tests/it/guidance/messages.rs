//! Both languages carry every message key, with the same placeholders.

use whichgpu::core::messages::{MESSAGES, UI};

/// A template's placeholder names; an English plural ending `{name:s}`
/// counts as `name`, which the template must also show as a value.
fn placeholders(s: &str) -> Vec<String> {
    let mut out: Vec<String> =
        s.split('{').skip(1).filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string())).collect();
    for n in out.iter().filter_map(|n| n.strip_suffix(":s")) {
        assert!(s.contains(&format!("{{{n}}}")), "{s}: `{{{n}:s}}` without `{{{n}}}`");
    }
    out = out.into_iter().map(|n| n.strip_suffix(":s").map_or(n.clone(), str::to_string)).collect();
    out.sort();
    out.dedup();
    out
}

/// `{name:s}` reads as the English plural of the count beside it.
#[test]
fn plural_endings_follow_the_count() {
    use whichgpu::core::config::Lang;
    use whichgpu::core::messages::Msg;
    let fits =
        |gpus: f64| Msg::new("reason.fits").num("gpus", gpus, 0).num("headroom", 2.0, 1).render(Lang::En);
    assert_eq!(fits(1.0), "fits on 1 GPU with 2.0 GiB to spare");
    assert_eq!(fits(8.0), "fits on 8 GPUs with 2.0 GiB to spare");
    let zh = Msg::new("reason.fits").num("gpus", 1.0, 0).num("headroom", 2.0, 1).render(Lang::Zh);
    assert!(!zh.contains('{') && !zh.contains(":s"), "{zh}");
    // No English text keeps the old "(s)" endings.
    for (key, en, _) in whichgpu::core::messages::MESSAGES.iter().chain(whichgpu::core::messages::UI.iter()) {
        assert!(!en.contains("(s) ") && !en.contains("(s),") && !en.contains("(s)."), "{key}: {en}");
    }
}

#[test]
fn every_key_has_both_languages_with_the_same_placeholders() {
    let mut keys = std::collections::HashSet::new();
    for (key, en, zh) in MESSAGES.iter().chain(UI.iter()) {
        assert!(keys.insert(*key), "duplicate key {key}");
        assert!(!en.trim().is_empty(), "{key}: English missing");
        assert!(!zh.trim().is_empty(), "{key}: Chinese missing");
        assert_eq!(placeholders(en), placeholders(zh), "{key}: placeholders differ");
    }
}

/// The page's Wasm compiles in the English column only and fetches the
/// Chinese one from the file `build.rs` wrote (`core::texts`): that file
/// holds every key's Chinese text, in table order, under this build's stamp.
#[test]
fn the_pages_chinese_file_has_every_text() {
    use whichgpu::core::texts::{parse_zh, zh_file, ZH_STAMP};
    let file = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/messages-zh.txt"))
        .expect("build.rs wrote messages-zh.txt");
    // Every text but those only native code shows (`NATIVE_ONLY` in build/texts.rs).
    let rows: Vec<_> = MESSAGES.iter().chain(UI.iter()).filter(|r| !r.0.starts_with("g.api.")).collect();
    let texts = parse_zh(&file, rows.len()).expect("the file parses");
    for ((key, _, zh), got) in rows.iter().zip(&texts) {
        assert_eq!(zh, got, "{key}");
    }
    assert_eq!(zh_file(), format!("messages-zh-{ZH_STAMP}.txt"));
    // A file of another build (other stamp, or a row more or less) is refused.
    assert!(parse_zh(&file.replacen(ZH_STAMP, "0000000000000000", 1), rows.len()).is_err());
    assert!(parse_zh(&file, rows.len() + 1).is_err());
    assert!(parse_zh(&format!("{file}extra\n"), rows.len()).is_err());
}

#[test]
fn chinese_text_is_chinese() {
    for (key, en, zh) in MESSAGES.iter().chain(UI.iter()) {
        if key.starts_with("g.") || key.starts_with("reason.") {
            assert_ne!(en, zh, "{key} is not translated");
            assert!(
                zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{key}: no Chinese characters"
            );
        }
    }
}

/// Every notice the link and resolve produce renders by message key: in
/// English exactly the JSON's `message`, in Chinese Chinese text.
#[test]
fn notices_render_in_either_language() {
    use whichgpu::core::catalog::{Catalog, Date};
    use whichgpu::core::config::Lang;
    use whichgpu::core::evaluate::evaluate_query;
    let catalog = Catalog::bundled().expect("catalog");
    let today = Date { year: 2026, month: 1, day: 1 };
    let queries = [
        "lang=zh&task=nope&batch=-1",
        "v=9&frobnicate=1&=3&in=1&in=2&spot=maybe&gpu=NOPE&region=",
        "model=nope&gpu=nope-gpu&provider=nope&price=nope:1&cat=2020-01-01&res=3x3",
        "task=generate&model=musicgen-small&seconds=600&w=int4-awq",
        "model=custom&kv_heads=7&heads=8&gpus=3",
        "model=sdxl",
    ];
    let mut seen = 0;
    for q in queries {
        for n in evaluate_query(q, catalog, today).notices {
            let msg = n.msg.as_ref().unwrap_or_else(|| panic!("{q}: `{}` has no message key", n.key));
            assert_eq!(n.text(Lang::En), n.message, "{q}: {}", msg.key);
            let zh = n.text(Lang::Zh);
            assert!(zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)), "{q}: {zh}");
            seen += 1;
        }
    }
    assert!(seen >= 15, "only {seen} notices");
    let zh: Vec<String> = evaluate_query("lang=zh&task=nope&batch=-1", catalog, today)
        .notices
        .iter()
        .map(|n| n.text(Lang::Zh))
        .collect();
    assert!(zh.iter().any(|t| t.contains("1 到 100000 之间的整数")), "{zh:?}");
}

/// Every text is used: the page's Wasm carries the whole English column, so
/// a key no code names is download size for nothing. A key is named where
/// its literal appears in the code outside the tables' rows, or it belongs to
/// a family the code builds by name (`ui.<key>.<value>` select labels).
#[test]
fn every_text_is_used() {
    fn sources(dir: &std::path::Path, out: &mut String) {
        for e in std::fs::read_dir(dir).expect("src").flatten() {
            let p = e.path();
            if p.is_dir() {
                sources(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                // The tables' own rows do not count as a use.
                let text = std::fs::read_to_string(&p).expect("read");
                let table = p.ends_with("messages.rs") || p.ends_with("ui_texts.rs");
                out.extend(
                    text.lines()
                        .filter(|l| !(table && l.trim_start().starts_with("(\"")))
                        .flat_map(|l| [l, "\n"]),
                );
            }
        }
    }
    let mut code = String::new();
    sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut code);
    // Families built with format!("ui.{key}.{name}") (web/options.rs, web/offers.rs),
    // and with concat!(prefix, name) by `keyed!` (core/kinds.rs).
    let families = [
        "ui.task.",
        "ui.use.",
        "ui.sort.",
        "ui.commit.",
        "ui.method.",
        "ui.gen.",
        "ui.optim.",
        "ui.gc.",
        "ui.zero.",
        "ui.cur.",
        "obj.",
        "ui.unknown.",
        "part.",
    ];
    let unused: Vec<&str> = MESSAGES
        .iter()
        .chain(UI.iter())
        .map(|(k, _, _)| *k)
        .filter(|k| !code.contains(&format!("\"{k}\"")) && !families.iter().any(|f| k.starts_with(f)))
        .collect();
    assert!(unused.is_empty(), "texts no code uses: {unused:?}");
}

/// The texts left out of the page (`NATIVE_ONLY` in build/texts.rs) are
/// named only by modules whose texts the page's Wasm never looks up: the
/// CLI, its tools and report, and the API comparison (the page reads its
/// texts from the on-demand worker's reply, already written).
#[test]
fn texts_left_out_of_the_page_are_named_only_natively() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let build = std::fs::read_to_string(root.join("build/texts.rs")).expect("build/texts.rs");
    assert!(
        build.contains(r#"pub const NATIVE_ONLY: &[&str] = &["g.api."];"#),
        "the list this test checks changed: update it here"
    );
    let native = [
        "src/tools/",
        "src/bin/",
        "src/core/report.rs",
        "src/core/evaluate/api.rs",
        "src/core/catalog/api_prices.rs",
        "src/core/messages.rs",
        "src/core/ui_texts.rs",
    ];
    let mut stack = vec![root.join("src")];
    let mut named = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("dir") {
            let p = e.expect("entry").path();
            let rel = p.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
            if p.is_dir() {
                stack.push(p);
            } else if rel.ends_with(".rs")
                && !native.iter().any(|n| rel.starts_with(n))
                && std::fs::read_to_string(&p).expect("source").contains("\"g.api.")
            {
                named.push(rel);
            }
        }
    }
    assert!(named.is_empty(), "the page compiles modules that show native-only texts: {named:?}");
}
