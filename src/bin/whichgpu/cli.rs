//! `whichgpu '<query string>'` — the estimator on the command line.
//! Prints a readable report, or the JSON of docs/link-format.md with `--json`.
//! Exit status: 0 answered; 2 with `--strict` and a notice, or when nothing
//! in the query was usable, or on a usage error. Never panics on input.

use std::process::ExitCode;

use super::clock::today;

use whichgpu::core::catalog::offers::parse_offers;
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::evaluate::{evaluate, evaluate_query};
use whichgpu::core::export;
use whichgpu::core::hfconfig;
use whichgpu::core::link;
use whichgpu::core::report;
use whichgpu::tools::{accuracy, calibrate, catalog_check, link_doc, media_fit, ocp, silybench, skypilot, train_fit};

const USAGE: &str = "usage:
  whichgpu [--json] [--strict] [--today YYYY-MM-DD] [--emit skypilot|command] [--config FILE] '<query string>'
                                      --emit: the pick's and each alternative's SkyPilot task
                                      (YAML documents, pick first) or engine command instead of
                                      the report; with --json, an `export` array in the JSON
                                      --config: a Hugging Face config.json; sets model=custom
                                      and its architecture keys, prints the query to share
  whichgpu calibrate FILE... [--fit]  predicted vs measured for task=serve rows (fit on split=fit);
                                      tests/data/training_measurements.csv or media_measurements.csv: fits their constants
  whichgpu calibrate FILE --holdout FILE2 --summary OUT
                                      writes the page's accuracy summary (static/accuracy.csv)
                                      from FILE (the fit rows) and FILE2's split=holdout rows
  whichgpu catalog check [--today YYYY-MM-DD]
                                      exit 1 when a catalog row lacks its source, date,
                                      currency or unit; lists rows older than six months
  whichgpu skypilot PROVIDER FILE --as-of YYYY-MM-DD --source TEXT
                                      a SkyPilot catalog CSV as offers.csv rows on stdout;
                                      skipped rows on stderr; exit 2 when none converts
  whichgpu refresh ocp FILE --provider ID --source TEXT [--as-of YYYY-MM-DD]
                                      an OpenComputePrices CSV (data/<source>.csv) as offers.csv
                                      rows of one provider; as-of defaults to each row's snapshot_date
  whichgpu refresh silybench FILE --source TEXT
                                      silybench's derived/csv/gpu_prices.csv as offers.csv rows
                                      (every provider of providers.csv, each row with its date)
  whichgpu docs link-format           the link and JSON contract (docs/link-format.md), generated
                                      from the key registry and the answers' JSON
  whichgpu docs engines               the engine table (docs/engines.md), generated
                                      from src/core/engines/ and static/support.csv
  whichgpu keys                       every link key: values, default, meaning";

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
        Some("calibrate") => return calibrate_cmd(rest, catalog),
        Some("refresh") => return refresh_cmd(rest, catalog),
        Some("catalog") => return catalog_cmd(rest),
        Some("skypilot") => return skypilot_cmd(rest, catalog),
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
                    eprintln!("whichgpu: --emit takes `skypilot` or `command`, not `{}`\n{USAGE}", other.unwrap_or(""));
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
fn with_config(query: &str, path: &str) -> Result<(whichgpu::core::config::Config, Vec<link::Notice>), ExitCode> {
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

fn calibrate_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
    // The files: every argument that is not a flag or a flag's value.
    let mut paths: Vec<&String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--holdout" | "--summary" => {
                it.next();
            }
            f if f.starts_with("--") => {}
            _ => paths.push(a),
        }
    }
    if paths.is_empty() {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let mut texts = Vec::new();
    for path in &paths {
        match std::fs::read_to_string(path) {
            Ok(t) => texts.push(t),
            Err(e) => {
                eprintln!("whichgpu: cannot read {path}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let fit = args.iter().any(|a| a == "--fit");
    if let [t] = texts.as_slice() {
        if train_fit::is_training_file(t) {
            return printed(Ok(train_fit::run(t, catalog, fit)));
        }
        if media_fit::is_media_file(t) {
            return printed(media_fit::run_bundled(t, catalog, fit));
        }
    }
    let text = match calibrate::join(&texts) {
        Ok(t) => t,
        Err(e) => return printed(Err(e)),
    };
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    if let Some(out) = flag("--summary") {
        let Some(holdout) = flag("--holdout") else {
            eprintln!("whichgpu calibrate: --summary needs --holdout FILE2\n{USAGE}");
            return ExitCode::from(2);
        };
        let holdout_text = match std::fs::read_to_string(holdout) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("whichgpu: cannot read {holdout}: {e}");
                return ExitCode::from(2);
            }
        };
        let first = paths.first().map_or("", |p| p.as_str());
        let written = accuracy::summary(catalog, (first, &text), (holdout, &holdout_text))
            .map_err(|e| e.to_string())
            .and_then(|s| std::fs::write(out, s).map_err(|e| format!("cannot write {out}: {e}")));
        return match written {
            Ok(()) => {
                eprintln!("whichgpu: wrote {out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("whichgpu: {e}");
                ExitCode::from(2)
            }
        };
    }
    printed(calibrate::run(&text, catalog, fit).map(|r| r.text).map_err(|e| e.to_string()))
}

/// A report on stdout, or the error on stderr with exit status 2.
fn printed(report: Result<String, String>) -> ExitCode {
    match report {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("whichgpu: {e}");
            ExitCode::from(2)
        }
    }
}

fn skypilot_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
    let usage = |why: &str| {
        eprintln!("whichgpu skypilot: {why}\n{USAGE}");
        ExitCode::from(2)
    };
    let mut positional = Vec::new();
    let mut as_of = None;
    let mut source = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--as-of" => as_of = it.next(),
            "--source" => source = it.next(),
            _ => positional.push(a),
        }
    }
    let [provider, path] = positional.as_slice() else {
        return usage("give PROVIDER and FILE");
    };
    let Some(as_of) = as_of.and_then(|d| Date::parse(d)) else {
        return usage("--as-of YYYY-MM-DD is required (the date the catalog was fetched)");
    };
    let Some(source) = source.map(|s| s.trim()).filter(|s| !s.is_empty()) else {
        return usage("--source TEXT is required (where the catalog file came from)");
    };
    if catalog.provider(provider).is_none() {
        let ids: Vec<&str> = catalog.providers.iter().map(|p| p.id.as_str()).collect();
        return usage(&format!("unknown provider `{provider}` (providers.csv has: {})", ids.join(", ")));
    }
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("whichgpu: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let conversion = match skypilot::convert(provider, &text, as_of, source, &catalog.gpus) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("whichgpu: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    print!("{}", conversion.offers_csv);
    for (row, reason) in &conversion.skipped {
        eprintln!("skipped row {row}: {reason}");
    }
    eprintln!("whichgpu: converted {} offers, skipped {} rows", conversion.converted, conversion.skipped.len());
    if conversion.converted == 0 {
        return ExitCode::from(2);
    }
    // What still needs a hand before the rows can go into static/offers.csv
    // (e.g. inter_node_gbps, which SkyPilot does not carry).
    let check =
        parse_offers("converted", &conversion.offers_csv).map_err(|e| e.to_string()).and_then(|offers| catalog.with_offers(offers).map_err(|e| e.to_string()));
    if let Err(e) = check {
        eprintln!("whichgpu: note: the rows do not load into the catalog as they are: {e}");
    }
    ExitCode::SUCCESS
}

fn refresh_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
    let usage = |why: &str| {
        eprintln!("whichgpu refresh: {why}\n{USAGE}");
        ExitCode::from(2)
    };
    let mut positional = Vec::new();
    let (mut as_of, mut source, mut provider) = (None, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--as-of" => as_of = it.next(),
            "--source" => source = it.next(),
            "--provider" => provider = it.next(),
            _ => positional.push(a),
        }
    }
    let [family, path] = positional.as_slice() else {
        return usage("give the source family (ocp, silybench) and FILE");
    };
    let Some(source) = source.map(|s| s.trim()).filter(|s| !s.is_empty()) else {
        return usage("--source TEXT is required (where the file came from: repository, path, commit)");
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("whichgpu: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let result = match family.as_str() {
        "ocp" => {
            let as_of = match as_of {
                Some(d) => match Date::parse(d) {
                    Some(d) => Some(d),
                    None => return usage("--as-of takes YYYY-MM-DD"),
                },
                None => None,
            };
            let Some(provider) = provider.filter(|p| catalog.provider(p).is_some()) else {
                let ids: Vec<&str> = catalog.providers.iter().map(|p| p.id.as_str()).collect();
                return usage(&format!("--provider takes a providers.csv id ({})", ids.join(", ")));
            };
            ocp::convert(provider, &text, as_of, source, &catalog.gpus).map(|c| (c.offers_csv, c.converted, c.skipped, c.unknown_gpus))
        }
        "silybench" => {
            if as_of.is_some() || provider.is_some() {
                return usage("silybench rows carry their provider and date: --provider and --as-of do not apply");
            }
            let ids: Vec<&str> = catalog.providers.iter().map(|p| p.id.as_str()).collect();
            silybench::convert(&text, source, &ids, &catalog.gpus).map(|c| (c.offers_csv, c.converted, c.skipped, Vec::new()))
        }
        other => return usage(&format!("unknown source family `{other}` (known: ocp, silybench; SkyPilot catalogs: whichgpu skypilot)")),
    };
    let (offers_csv, converted, skipped, unknown) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("whichgpu: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    print!("{offers_csv}");
    for (row, reason) in &skipped {
        eprintln!("skipped row {row}: {reason}");
    }
    if !unknown.is_empty() {
        eprintln!("whichgpu: GPU names not in the name table: {}", unknown.join(", "));
    }
    eprintln!("whichgpu: converted {converted} offers, skipped {} rows", skipped.len());
    if converted == 0 {
        return ExitCode::from(2);
    }
    let check = parse_offers("converted", &offers_csv).map_err(|e| e.to_string()).and_then(|offers| catalog.with_offers(offers).map_err(|e| e.to_string()));
    if let Err(e) = check {
        eprintln!("whichgpu: note: the rows do not load into the catalog as they are: {e}");
    }
    ExitCode::SUCCESS
}

/// `whichgpu catalog check [--today YYYY-MM-DD]`: 1 when a row lacks a fact,
/// 0 otherwise (stale rows are listed, not failed); 2 on a usage error.
fn catalog_cmd(args: &[String]) -> ExitCode {
    let mut today_arg = None;
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("check") => {}
        _ => {
            eprintln!("whichgpu: catalog needs `check`\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    while let Some(a) = it.next() {
        match a.as_str() {
            "--today" => match it.next().map(String::as_str).and_then(Date::parse) {
                Some(d) => today_arg = Some(d),
                None => {
                    eprintln!("whichgpu: --today needs a YYYY-MM-DD date\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            other => {
                eprintln!("whichgpu: unexpected argument `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let today = today_arg.unwrap_or_else(|| today(None));
    match catalog_check::check(&whichgpu::core::catalog::bundled_tables(), today) {
        Ok(r) => {
            print!("{}", catalog_check::text(&r, today));
            if r.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("whichgpu: {e}");
            ExitCode::from(1)
        }
    }
}
