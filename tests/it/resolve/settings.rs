//! Settings decided once: every step after `resolve` takes the resolved
//! [`Settings`], never a raw `Config`, and only `resolve` makes them.
//! Read from the sources, outside each file's `#[cfg(test)]` module.

use std::fs;
use std::path::{Path, PathBuf};

use whichgpu::core::resolve::resolve;

use crate::common::{answer, catalog};

/// The modules before `resolve` or beside the pipeline, which take the
/// user's configuration as it is: the link and the configuration
/// themselves, `resolve`, the form (it edits what the user typed), the
/// config.json import and the worker's request (both produce a
/// configuration), the entry points of `evaluate` (they hand the raw
/// configuration to `resolve`), and the estimators (`estimate/`, which take
/// the inputs they read as a `Config` so that the calibration tools and
/// the tests build them without a catalog; `&Settings` passes as `&Config`).
const BEFORE_RESOLVE: &[&str] = &[
    "config.rs",
    "link/",
    "resolve/",
    "settings.rs",
    "form.rs",
    "hfconfig/",
    "ondemand.rs",
    "evaluate/mod.rs",
    "estimate/",
];

fn core_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("src/core reads") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            core_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Each core file, relative to `src/core/`, with its text up to its test module.
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/core");
    let mut files = Vec::new();
    core_files(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).expect("under src/core").to_string_lossy().replace('\\', "/");
            let text = fs::read_to_string(&p).expect("source reads");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_string();
            (rel, code)
        })
        .collect()
}

/// A parameter or field typed as a borrowed `Config` (`cfg: &Config`, `cfg: &'r Config`).
fn takes_config(line: &str) -> bool {
    let l = line.trim_start();
    if l.starts_with("//") {
        return false;
    }
    l.split(": &").skip(1).any(|rest| {
        let rest = rest.strip_prefix("mut ").unwrap_or(rest);
        let rest = if rest.starts_with('\'') { rest.split_once(' ').map_or("", |x| x.1) } else { rest };
        rest.starts_with("Config") && !rest[6..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn no_step_after_resolve_takes_a_raw_config() {
    let mut found = Vec::new();
    let mut scanned = 0;
    for (file, code) in sources() {
        if BEFORE_RESOLVE.iter().any(|b| file.starts_with(b)) {
            continue;
        }
        scanned += 1;
        for (n, line) in code.lines().enumerate() {
            if takes_config(line) {
                found.push(format!("src/core/{file}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(scanned > 40, "only {scanned} files scanned: is the walk right?");
    assert!(found.is_empty(), "take &Settings after resolve:\n{}", found.join("\n"));
}

#[test]
fn the_scan_sees_the_shapes_it_forbids() {
    assert!(takes_config("pub fn f(cfg: &Config, x: u32) {"));
    assert!(takes_config("    cfg: &'r Config,"));
    assert!(takes_config("fn g(a: u8, c: &mut Config) {"));
    assert!(!takes_config("fn g(c: &ConfigError) {"));
    assert!(!takes_config("fn g(c: &Settings) {"));
    assert!(!takes_config("// cfg: &Config in a comment"));
}

#[test]
fn only_resolve_makes_settings_and_export_decodes_no_link() {
    for (file, code) in sources() {
        if !file.starts_with("resolve/") && file != "settings.rs" {
            assert!(!code.contains("Settings::resolved("), "src/core/{file} makes Settings outside resolve");
            assert!(!code.contains("Settings("), "src/core/{file} builds Settings by hand");
        }
        if file.starts_with("export/") {
            assert!(!code.contains("decode("), "src/core/{file} decodes a link it was given as an answer");
        }
    }
    let cli = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bin/whichgpu/cli.rs"))
        .expect("cli.rs");
    assert!(!cli.contains("decode(&answer.query)"), "the CLI reads the answer's settings, not its link");
}

#[test]
fn the_answer_carries_the_settings_resolve_settled_on() {
    // A GPU pin the catalog lacks is cleared by resolve; the answer's
    // settings are the cleared ones, and the link says the same.
    let q = "task=finetune&model=llama-3.1-8b&gpu=no-such-gpu&trainer=unsloth&zero=2";
    let a = answer(q);
    let (cfg, notices) = whichgpu::core::link::decode(q);
    let r = resolve(&cfg, notices, catalog());
    assert_eq!(a.settings, r.cfg);
    assert_eq!(a.settings.gpu, None);
    assert_eq!(a.settings.zero, Some(0), "Unsloth has no ZeRO: resolve settles it");
    assert_eq!(whichgpu::core::link::decode(&a.query).0, *a.settings.config(), "the link is the settings");
}
