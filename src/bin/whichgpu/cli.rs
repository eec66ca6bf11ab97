//! `whichgpu '<query string>'` — the estimator on the command line.
//! Prints a readable report, or the JSON of LINK-FORMAT.md with `--json`.
//! Exit status: 0 answered; 2 with `--strict` and a notice, or when nothing
//! in the query was usable, or on a usage error. Never panics on input.

use std::process::ExitCode;

use whichgpu::core::catalog::offers::parse_offers;
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::report;
use whichgpu::tools::{calibrate, catalog_check, skypilot};

const USAGE: &str = "usage:
  whichgpu [--json] [--strict] [--today YYYY-MM-DD] '<query string>'
  whichgpu calibrate FILE [--fit]     predicted vs measured for task=serve rows
  whichgpu catalog check [--today YYYY-MM-DD]
                                      exit 1 when a catalog row lacks its source, date,
                                      currency or unit; lists rows older than six months
  whichgpu skypilot PROVIDER FILE --as-of YYYY-MM-DD --source TEXT
                                      a SkyPilot catalog CSV as offers.csv rows on stdout;
                                      skipped rows on stderr; exit 2 when none converts";

fn today(arg: Option<&str>) -> Date {
    // The core reads no clock; the CLI passes today's date in.
    if let Some(d) = arg.and_then(Date::parse) {
        return d;
    }
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // civil_from_days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = (yoe + era * 400 + i64::from(m <= 2)) as i32;
    Date { year: y, month: m, day: d }
}

pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let catalog = match Catalog::bundled() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("whichgpu: the bundled catalog is invalid: {e}");
            return ExitCode::from(1);
        }
    };
    if args.first().map(String::as_str) == Some("calibrate") {
        return calibrate_cmd(&args[1..], catalog);
    }
    if args.first().map(String::as_str) == Some("catalog") {
        return catalog_cmd(args.get(1..).unwrap_or_default());
    }
    if args.first().map(String::as_str) == Some("skypilot") {
        return skypilot_cmd(args.get(1..).unwrap_or_default(), catalog);
    }
    let mut json = false;
    let mut strict = false;
    let mut query: Option<&str> = None;
    let mut today_arg = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--json" => json = true,
            "--strict" => strict = true,
            "--today" => today_arg = it.next().map(String::as_str),
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
    let answer = evaluate_query(query.unwrap_or(""), catalog, today(today_arg));
    for n in &answer.notices {
        eprintln!("notice [{}]: {}", n.key, n.message);
    }
    if answer.unusable {
        eprintln!("whichgpu: nothing usable in the query");
        return ExitCode::from(2);
    }
    if json {
        match serde_json::to_string_pretty(&answer) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("whichgpu: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        print!("{}", report::text(&answer));
    }
    if strict && !answer.notices.is_empty() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

fn calibrate_cmd(args: &[String], catalog: &Catalog) -> ExitCode {
    let Some(path) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("whichgpu: cannot read {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match calibrate::run(&text, catalog, args.iter().any(|a| a == "--fit")) {
        Ok(report) => {
            print!("{}", report.text);
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
