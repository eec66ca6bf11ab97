//! `whichgpu '<query string>'` — the estimator on the command line.
//! Prints a readable report, or the JSON of docs/link-format.md with `--json`.
//! Exit status: 0 answered; 2 with `--strict` and a notice, or when nothing
//! in the query was usable, or on a usage error. Never panics on input.

use std::process::ExitCode;

use super::clock::today;
use super::usage::USAGE;

use whichgpu::core::catalog::Catalog;
use whichgpu::core::evaluate::{evaluate, evaluate_query};
use whichgpu::core::export;
use whichgpu::core::hfconfig;
use whichgpu::core::link;
use whichgpu::core::report;
use whichgpu::tools::link_doc;

pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let catalog = match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("whichgpu: the bundled catalog is invalid: {e}");
            return ExitCode::from(1);
        }
    };
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("calibrate") => return super::maintain::calibrate_cmd(rest, catalog),
        Some("refresh") => return super::maintain::refresh_cmd(rest, catalog),
        Some("catalog") => return super::maintain::catalog_cmd(rest),
        Some("skypilot") => return super::maintain::skypilot_cmd(rest, catalog),
        Some("docs") if rest.first().map(String::as_str) == Some("link-format") => {
            print!("{}", link_doc::markdown(catalog, link_doc::date()));
            return ExitCode::SUCCESS;
        }
        Some("docs") if rest.first().map(String::as_str) == Some("engines") => {
            print!("{}", whichgpu::tools::engine_doc::markdown(catalog));
            return ExitCode::SUCCESS;
        }
        Some("keys") => {
            print!("{}", link_doc::keys_text());
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let mut json = false;
    let mut strict = false;
    let mut query: Option<&str> = None;
    let mut today_arg = None;
    let mut emit: Option<Emit> = None;
    let mut config_path: Option<&str> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--strict" => strict = true,
            "--today" => today_arg = it.next().map(String::as_str),
            "--emit" => match it.next().map(String::as_str) {
                Some("skypilot") => emit = Some(Emit::Skypilot),
                Some("command") => emit = Some(Emit::Command),
                other => {
                    eprintln!(
                        "whichgpu: --emit takes `skypilot` or `command`, not `{}`\n{USAGE}",
                        other.unwrap_or("")
                    );
                    return ExitCode::from(2);
                }
            },
            "--config" => match it.next() {
                Some(p) => config_path = Some(p),
                None => {
                    eprintln!("whichgpu: --config needs a FILE\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            q if query.is_none() => query = Some(q),
            other => {
                eprintln!("whichgpu: unexpected argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let answer = match config_path {
        Some(path) => match with_config(query.unwrap_or(""), path) {
            Ok((cfg, notices)) => evaluate(&cfg, notices, catalog, today(today_arg)),
            Err(code) => return code,
        },
        None => evaluate_query(query.unwrap_or(""), catalog, today(today_arg)),
    };
    // The text report carries its notices at the top; JSON, the launch
    // texts and an unusable query (no report) do not, so there they go to
    // stderr (once, not twice).
    if json || emit.is_some() || answer.unusable {
        for n in &answer.notices {
            eprintln!("notice [{}]: {}", n.key, n.message);
        }
    }
    if answer.unusable {
        eprintln!("whichgpu: nothing usable in the query");
        return ExitCode::from(2);
    }
    let exports = if emit.is_some() { export::for_answer(&answer, catalog) } else { Vec::new() };
    if json {
        let value = serde_json::to_value(&answer).map(|mut v| {
            if let (Some(obj), true) = (v.as_object_mut(), emit.is_some()) {
                obj.insert("export".to_string(), serde_json::to_value(&exports).unwrap_or_default());
            }
            v
        });
        match value.and_then(|v| serde_json::to_string_pretty(&v)) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("whichgpu: {e}");
                return ExitCode::from(1);
            }
        }
    } else if let Some(kind) = emit {
        if exports.is_empty() {
            eprintln!("whichgpu: no offer fits, so there is nothing to export");
            return ExitCode::from(2);
        }
        print!("{}", emitted(&exports, kind));
    } else {
        // The sentences in the link's language (`lang=zh`), the tables as they are.
        let lang = answer.settings.lang.unwrap_or(whichgpu::core::config::Lang::En);
        print!("{}", report::text_in(&answer, lang));
    }
    if strict && !answer.notices.is_empty() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

#[derive(Clone, Copy, PartialEq)]
enum Emit {
    Skypilot,
    Command,
}

/// The exports one after another, pick first: SkyPilot tasks as YAML
/// documents separated by `---`, commands under a `# ===` heading each.
fn emitted(exports: &[export::Export], kind: Emit) -> String {
    let mut alt = 0;
    let mut out = String::new();
    for (i, e) in exports.iter().enumerate() {
        let title = if e.role == "pick" {
            format!("pick: {}", e.offer)
        } else {
            alt += 1;
            format!("alternative {alt}: {}", e.offer)
        };
        match kind {
            Emit::Skypilot => {
                if i > 0 {
                    out.push_str("---\n");
                }
                out.push_str(&format!("# {title}\n{}", e.skypilot_yaml));
            }
            Emit::Command => {
                if i > 0 {
                    out.push('\n');
                }
                out.push_str(&format!("# === {title} ===\n{}", e.command));
            }
        }
    }
    out
}

/// The query with a `config.json` imported into it; the normalized query
/// goes to stderr so it can be shared. A file that cannot be read or
/// parsed is a notice naming the field, and the query answers without it,
/// unless the query names no model (then nothing usable: exit 2).
fn with_config(
    query: &str,
    path: &str,
) -> Result<(whichgpu::core::config::Config, Vec<link::Notice>), ExitCode> {
    let (cfg, mut notices) = link::decode(query);
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("whichgpu: cannot read {path}: {e}");
            return Err(ExitCode::from(2));
        }
    };
    match hfconfig::import(&cfg, &text) {
        Ok((imported, more)) => {
            notices.extend(more);
            eprintln!("whichgpu: {path} imported; share this query: {}", link::encode(&imported));
            Ok((imported, notices))
        }
        Err(n) => {
            eprintln!("notice [{}]: {path}: {}", n.key, n.message);
            if cfg.model.is_none() {
                eprintln!("whichgpu: nothing usable: {path} was refused and the query names no model");
                return Err(ExitCode::from(2));
            }
            notices.push(n);
            Ok((cfg, notices))
        }
    }
}
