//! The maintainers' subcommands: `calibrate`, `skypilot`, `refresh` and
//! `catalog` (the catalog's checks and conversions, the estimators' fits).

use std::process::ExitCode;

use super::clock::today;
use super::usage::USAGE;

use whichgpu::core::catalog::offers::parse_offers;
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::tools::{accuracy, calibrate, catalog_check, media_fit, ocp, silybench, skypilot, train_fit};

pub fn calibrate_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
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

pub fn skypilot_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
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
    eprintln!(
        "whichgpu: converted {} offers, skipped {} rows",
        conversion.converted,
        conversion.skipped.len()
    );
    if conversion.converted == 0 {
        return ExitCode::from(2);
    }
    // What still needs a hand before the rows can go into static/offers.csv
    // (e.g. inter_node_gbps, which SkyPilot does not carry).
    let check = parse_offers("converted", &conversion.offers_csv)
        .map_err(|e| e.to_string())
        .and_then(|offers| catalog.with_offers(offers).map_err(|e| e.to_string()));
    if let Err(e) = check {
        eprintln!("whichgpu: note: the rows do not load into the catalog as they are: {e}");
    }
    ExitCode::SUCCESS
}

pub fn refresh_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
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
            ocp::convert(provider, &text, as_of, source, &catalog.gpus)
                .map(|c| (c.offers_csv, c.converted, c.skipped, c.unknown_gpus))
        }
        "silybench" => {
            if as_of.is_some() || provider.is_some() {
                return usage(
                    "silybench rows carry their provider and date: --provider and --as-of do not apply",
                );
            }
            let ids: Vec<&str> = catalog.providers.iter().map(|p| p.id.as_str()).collect();
            silybench::convert(&text, source, &ids, &catalog.gpus)
                .map(|c| (c.offers_csv, c.converted, c.skipped, Vec::new()))
        }
        other => {
            return usage(&format!(
            "unknown source family `{other}` (known: ocp, silybench; SkyPilot catalogs: whichgpu skypilot)"
        ))
        }
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
    let check = parse_offers("converted", &offers_csv)
        .map_err(|e| e.to_string())
        .and_then(|offers| catalog.with_offers(offers).map_err(|e| e.to_string()));
    if let Err(e) = check {
        eprintln!("whichgpu: note: the rows do not load into the catalog as they are: {e}");
    }
    ExitCode::SUCCESS
}

/// `whichgpu catalog check [--today YYYY-MM-DD]`: 1 when a row lacks a fact,
/// 0 otherwise (stale rows are listed, not failed); 2 on a usage error.
pub fn catalog_cmd(args: &[String]) -> ExitCode {
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
