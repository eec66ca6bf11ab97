//! Structure-aware property tests ("fuzzing") through the whole pipeline.
//!
//! 1. Links: valid keys from [`KEYS`] (and a few invalid or disguised ones)
//!    with hostile values — huge, negative, NaN and infinite numbers, empty
//!    values, unicode, `%` escapes, markup, very long strings, repeated keys.
//!    Evaluating the whole catalog takes about a millisecond per link in the
//!    test profile (opt-level 2), so 100,000 links a run would take minutes
//!    on two cores: instead 100,000 links a run go through decode → encode →
//!    decode (`links_decode_and_encode`), and 3,000 a run go through the whole
//!    pipeline — decode → `evaluate_query` → `report::text` and
//!    `serde_json::to_string` (`links_through_the_whole_pipeline`). Both use
//!    the same generator. Neither may panic, and every notice must have a
//!    non-empty key and message.
//! 2. Offer catalogs: 1,000 a run, each the bundled `static/offers.csv`
//!    mutated structurally — columns dropped, duplicated, renamed or swapped,
//!    fields swapped or replaced by negative, non-numeric, unknown or
//!    out-of-range values, rows dropped, duplicated or truncated, the text
//!    truncated or sprinkled with random characters — through
//!    `parse_offers("import", …)` and `Catalog::with_offers`. Nothing may
//!    panic; every rejection must say where (a row and field, or a column);
//!    an accepted catalog is evaluated and serialized like a link's answer.
//!
//! `PROPTEST_CASES` overrides the case counts (all three tests).

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use whichgpu::core::catalog::offers::{parse_offers, OFFER_COLUMNS};
use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::link::{decode, encode, Notice, KEYS};
use whichgpu::core::report;

use crate::common::{catalog, today};

const OFFERS_CSV: &str = include_str!("../../static/offers.csv");

fn cases(default: u32) -> ProptestConfig {
    let n = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    // No shrinking budget beyond the default, no forking: a failure is
    // reported with the smallest link or catalog proptest finds.
    ProptestConfig { cases: n, max_shrink_iters: 2000, ..ProptestConfig::default() }
}

fn check_notices(notices: &[Notice], input: &str) -> Result<(), TestCaseError> {
    for n in notices {
        prop_assert!(!n.key.is_empty(), "notice with an empty key for {:?}: {:?}", clip(input), n);
        prop_assert!(
            !n.message.trim().is_empty(),
            "notice with an empty message for {:?}: {:?}",
            clip(input),
            n
        );
    }
    Ok(())
}

fn clip(s: &str) -> String {
    let c: String = s.chars().take(300).collect();
    if c.len() < s.len() {
        format!("{c}… ({} bytes)", s.len())
    } else {
        c
    }
}

// ---------------------------------------------------------------- links

/// Numbers at and beyond every range the link format has, and ones that
/// only look like numbers.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "7",
    "8",
    "16",
    "64",
    "72",
    "73",
    "100",
    "255",
    "256",
    "1000",
    "1024",
    "4096",
    "4097",
    "65535",
    "65536",
    "100000",
    "100001",
    "131072",
    "1048576",
    "1000000",
    "10000000",
    "10000001",
    "20000",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "-2147483648",
    "9223372036854775807",
    "0.01",
    "0.001",
    "0.5",
    "1.5",
    "23.999",
    "24",
    "24.0001",
    "1e15",
    "1e16",
    "1e308",
    "1e309",
    "-1e308",
    "1e-300",
    "1e-400",
    "5e-324",
    "NaN",
    "nan",
    "-NaN",
    "inf",
    "-inf",
    "+inf",
    "infinity",
    "Infinity",
    "0x10",
    "1_000",
    "+5",
    " 5 ",
    "5 ",
    "1,5",
    "1.",
    ".5",
    "1e",
    "e5",
    "--1",
    "0.1e1",
    "00000000000000000000001",
];

/// Values that are valid somewhere, so that links reach deep into the
/// estimator (ids, formats, enums, resolutions, dates, price lists).
const WORDS: &[&str] = &[
    "max",
    "custom",
    "serve",
    "generate",
    "finetune",
    "pretrain",
    "full",
    "lora",
    "qlora",
    "attn",
    "attn-mlp",
    "all",
    "adamw",
    "adamw8bit",
    "adafactor",
    "sgd",
    "sgd-momentum",
    "none",
    "selective",
    "always",
    "hours",
    "jobs",
    "once",
    "cost",
    "token",
    "speed",
    "latency",
    "en",
    "zh",
    "light",
    "dark",
    "auto",
    "true",
    "false",
    "vllm",
    "sglang",
    "trt-llm",
    "llama.cpp",
    "hf",
    "fp32",
    "bf16",
    "fp16",
    "fp8",
    "int8",
    "int8-wo",
    "int8-bnb",
    "int4-awq",
    "int4-gptq",
    "int4-g32",
    "nf4",
    "mxfp4",
    "gguf-q2_k",
    "gguf-q4_k_m",
    "gguf-q8_0",
    "gguf-f16",
    "q8_0",
    "q4_0",
    "fp9",
    "64x64",
    "8192x8192",
    "8193x64",
    "0x0",
    "63x64",
    "1024x",
    "x1024",
    "1024x1024x1024",
    "-64x-64",
    "2026-11-29",
    "2026-02-29",
    "2024-02-29",
    "2026-13-01",
    "0000-00-00",
    "9999-12-31",
    "-001-01-01",
    "2026-1-1",
    "aws,runpod",
    "aws,,",
    ",",
    "AWS",
    "aws-p5.48xlarge:50",
    "aws-p5.48xlarge:NaN",
    "aws-p5.48xlarge:-1",
    "x:1e308",
    ":",
    "a:b:c",
    "::1",
    "nope:1,nope:2",
    "us-east-1",
    "eu",
    "h100-sxm-80gb",
    "rtx-4090-24gb",
    "mi300x-192gb",
    "h900",
    "llama-3.1-405b",
    "deepseek-v3",
    "qwen3-235b-a22b",
    "gpt-oss-120b",
    "llama-3.2-1b",
    "flux.1-dev",
    "sdxl",
    "wan-2.1-14b",
    "musicgen-large",
];

/// Hostile text: empty, whitespace, unicode, escapes, markup, controls.
const HOSTILE: &[&str] = &[
    "",
    " ",
    "   ",
    "\t",
    "+",
    "++",
    "%",
    "%%",
    "%2",
    "%zz",
    "%00",
    "%0A",
    "%FF%FE",
    "%C3%28",
    "%E2%82",
    "%F0%9F%9A%80",
    "%2526",
    "%3D",
    "%26",
    "%25",
    "%3Cscript%3Ealert(1)%3C%2Fscript%3E",
    "<script>alert(1)</script>",
    "\"><img src=x onerror=alert(1)>",
    "javascript:alert(1)",
    "'; DROP TABLE offers; --",
    "ü",
    "模型",
    "🚀",
    "\u{202e}",
    "\u{0}",
    "\u{7f}",
    "\u{feff}",
    "e\u{301}",
    "\u{fffd}",
    "\r\n",
    "a=b",
    "=",
    "&",
    "?",
    "#frag",
    "..",
    "../../etc/passwd",
    "%E4%BD%A0%E5%A5%BD",
    "llama-3.1-8b\u{0}",
    "LLAMA-3.1-8B",
    "-llama",
    ".hidden",
    "_x",
];

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(NUMBERS).prop_map(String::from),
        3 => prop::sample::select(WORDS).prop_map(String::from),
        3 => prop::sample::select(HOSTILE).prop_map(String::from),
        1 => prop::sample::select(catalog().models.iter().map(|m| m.id.clone()).collect::<Vec<_>>()),
        1 => prop::sample::select(whichgpu::core::catalog::media::bundled_media().expect("media models").iter().map(|m| m.id.clone()).collect::<Vec<_>>()),
        1 => prop::sample::select(catalog().gpus.iter().map(|g| g.id.clone()).collect::<Vec<_>>()),
        1 => prop::sample::select(catalog().offers.iter().map(|o| format!("{}:{}", o.id, o.usd_per_hour)).collect::<Vec<_>>()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => any::<u64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| v.to_string()),
        1 => any::<f64>().prop_map(|v| format!("{v:e}")),
        1 => "[a-z0-9._:,x-]{0,16}",
        1 => "\\PC{0,24}",
        1 => any::<String>().prop_map(|s| s.chars().take(24).collect()),
        1 => (any::<u8>(), 1usize..40).prop_map(|(b, n)| format!("%{b:02X}").repeat(n)),
    ]
}

/// A value: usually one atom, sometimes several joined, sometimes very long.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        160 => atom(),
        40 => (prop::collection::vec(atom(), 2..4), prop::sample::select(vec!["", ",", ":", "x", "%", "&", "="]))
            .prop_map(|(parts, sep)| parts.join(sep)),
        4 => (atom(), 50usize..1000).prop_map(|(a, n)| if a.is_empty() { "9".repeat(n) } else { a.repeat(n).chars().take(5_000).collect() }),
        1 => (0usize..2).prop_map(|i| if i == 0 { "a".repeat(70_000) } else { "%41".repeat(30_000) }),
    ]
}

/// A key: almost always a real one, otherwise a disguised or unknown one.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => prop::sample::select(KEYS).prop_map(String::from),
        1 => prop::sample::select(KEYS).prop_map(|k| k.to_uppercase()),
        1 => prop::sample::select(KEYS).prop_map(|k| k.bytes().map(|b| format!("%{b:02x}")).collect::<String>()),
        1 => prop::sample::select(KEYS).prop_map(|k| format!(" {k}")),
        1 => atom(),
    ]
}

/// How one pair is written: `k=v`, `k` alone, `k==v`, or `k=v=w`.
fn pair() -> impl Strategy<Value = String> {
    (key(), value(), 0u8..20).prop_map(|(k, v, shape)| match shape {
        0 => k,
        1 => format!("{k}=={v}"),
        2 => format!("={v}"),
        3 => format!("{k}={v}={v}"),
        _ => format!("{k}={v}"),
    })
}

/// A link: pairs (with deliberate repeats) joined by `&`, sometimes `&&`,
/// sometimes led by `?`, `v=1` or whitespace.
fn link() -> impl Strategy<Value = String> {
    (prop::collection::vec(pair(), 0..14), prop::collection::vec(any::<prop::sample::Index>(), 0..3), 0u8..8)
        .prop_map(|(mut pairs, repeats, lead)| {
            for r in repeats {
                if !pairs.is_empty() {
                    let p = r.get(&pairs).clone();
                    pairs.push(p);
                }
            }
            let sep = if lead == 7 { "&&" } else { "&" };
            let body = pairs.join(sep);
            match lead {
                0 => format!("?{body}"),
                1 => format!("v=1&{body}"),
                2 => format!("  ?{body}  "),
                3 => format!("&{body}&"),
                _ => body,
            }
        })
}

/// About one case in a hundred is a long run of pairs (past the decoder's
/// caps of 100 distinct keys and 200 pairs).
fn long_link() -> impl Strategy<Value = String> {
    prop_oneof![
        99 => link(),
        1 => (prop::collection::vec((key(), atom()), 150..260)).prop_map(|p| p.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&")),
    ]
}

proptest! {
    #![proptest_config(cases(100_000))]

    /// 100,000 links a run: decode, then the canonical link of what was
    /// accepted decodes to the same configuration without notices.
    #[test]
    fn links_decode_and_encode(q in long_link()) {
        let (cfg, notices) = decode(&q);
        check_notices(&notices, &q)?;
        let canonical = encode(&cfg);
        let (again, notices) = decode(&canonical);
        prop_assert!(notices.is_empty(), "{:?} → {canonical}: {:?}", clip(&q), notices);
        prop_assert_eq!(&again, &cfg, "{:?} → {}", clip(&q), canonical);
        prop_assert_eq!(encode(&again), canonical);
    }
}

proptest! {
    #![proptest_config(cases(3_000))]

    /// 3,000 links a run through the whole pipeline: the answer, its text
    /// report and its JSON.
    #[test]
    fn links_through_the_whole_pipeline(q in long_link()) {
        let answer = evaluate_query(&q, catalog(), today());
        check_notices(&answer.notices, &q)?;
        let text = report::text(&answer);
        prop_assert!(!text.is_empty());
        // (Parsing the ~300 KB back would triple the time of a case.)
        let json = serde_json::to_string(&answer);
        prop_assert!(json.as_ref().is_ok_and(|j| j.starts_with('{')), "{:?}: {:?}", clip(&q), json.err());
        // The answer's own link is canonical: it decodes without notices.
        let (_, again) = decode(&answer.query);
        prop_assert!(again.is_empty(), "{:?} → {}: {:?}", clip(&q), answer.query, again);
    }
}

// ---------------------------------------------------------------- offer catalogs

/// Replacement field values: wrong types, wrong signs, out of range,
/// unknown references, bad dates, hostile text.
const FIELDS: &[&str] = &[
    "",
    " ",
    "-1",
    "-0",
    "0",
    "0.0",
    "-0.0001",
    "1e-320",
    "1e308",
    "1e309",
    "-1e309",
    "NaN",
    "inf",
    "-inf",
    "abc",
    "1,5",
    "1.2.3",
    "0x10",
    "4294967295",
    "4294967296",
    "2147483648",
    "65536",
    "1024",
    "72",
    "99999999999999999999",
    "18446744073709551616",
    "h900",
    "H100-SXM-80GB",
    "h100-sxm-80gb",
    "rtx-4090-24gb",
    "mi300x-192gb",
    "gaudi3-128gb",
    "nope",
    "aws",
    "runpod",
    "AWS",
    "single",
    "pcie",
    "nvlink",
    "nvswitch",
    "xgmi",
    "nvl72",
    "infiniband",
    "2026-13-01",
    "2026-02-30",
    "2026-02-29",
    "2024-02-29",
    "0000-00-00",
    "9999-12-31",
    "1970-01-01",
    "2026-1-1",
    "26-01-01",
    "-2026-01-01",
    "\"",
    "\"\"",
    "a\"b",
    "\"quoted, with comma\"",
    "<script>alert(1)</script>",
    "ü",
    "模型",
    "🚀",
    "\u{feff}",
    "\u{0}",
    "\t",
    "x,y",
    "true",
    "yes",
    "Id",
    " id",
    "id ",
];

/// The numeric columns, and numbers that parse but strain the estimator:
/// zero, tiny, huge, GPU counts past any node, prices near `f64::MAX`.
const NUMERIC_COLUMNS: &[&str] = &[
    "gpus",
    "vcpus",
    "ram_gb",
    "inter_node_gbps",
    "usd_per_hour",
    "spot_usd_per_hour",
    "billing_increment_s",
    "min_charge_s",
    "storage_usd_per_gb_month",
    "egress_usd_per_gb",
];
const NUMBERS_IN_CATALOGS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "9",
    "16",
    "72",
    "128",
    "1000",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "0.0001",
    "1e-300",
    "5e-324",
    "1e15",
    "1e300",
    "1.7976931348623157e308",
    "",
    "-1",
    "NaN",
];

const COLUMN_NAMES: &[&str] = &[
    "",
    " ",
    "ID",
    "Id",
    "\u{feff}id",
    "id ",
    " gpu",
    "usd_per_hour2",
    "color",
    "provider",
    "gpu",
    "as_of",
    "notes",
    "模型",
    "\"id\"",
];

#[derive(Debug, Clone)]
enum Mutation {
    DropColumn(prop::sample::Index),
    DuplicateColumn(prop::sample::Index),
    RenameColumn(prop::sample::Index, String),
    SwapHeaders(prop::sample::Index, prop::sample::Index),
    SwapColumns(prop::sample::Index, prop::sample::Index),
    AddColumn(String),
    SetField(prop::sample::Index, prop::sample::Index, String),
    SetNamed(prop::sample::Index, &'static str, String),
    SetColumn(prop::sample::Index, String),
    SwapFields(prop::sample::Index, prop::sample::Index, prop::sample::Index),
    CopyIdFrom(prop::sample::Index, prop::sample::Index),
    DropRow(prop::sample::Index),
    DuplicateRow(prop::sample::Index),
    TruncateRow(prop::sample::Index, prop::sample::Index),
    ExtraField(prop::sample::Index, String),
    KeepRows(usize),
    ReverseRows,
    HeaderOnly,
}

/// Text-level damage after the table is written back.
#[derive(Debug, Clone)]
enum Damage {
    Truncate(prop::sample::Index),
    Insert(prop::sample::Index, String),
    Delete(prop::sample::Index, usize),
    CrLf,
    LoneCr,
    Empty,
}

fn field_value() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(FIELDS).prop_map(String::from),
        1 => any::<f64>().prop_map(|v| v.to_string()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => "\\PC{0,12}",
        1 => (1usize..20_000).prop_map(|n| "9".repeat(n)),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    use Mutation::*;
    let i = || any::<prop::sample::Index>();
    prop_oneof![
        2 => i().prop_map(DropColumn),
        1 => i().prop_map(DuplicateColumn),
        2 => (i(), prop::sample::select(COLUMN_NAMES).prop_map(String::from)).prop_map(|(a, b)| RenameColumn(a, b)),
        2 => (i(), i()).prop_map(|(a, b)| SwapHeaders(a, b)),
        1 => (i(), i()).prop_map(|(a, b)| SwapColumns(a, b)),
        1 => prop::sample::select(COLUMN_NAMES).prop_map(|s| AddColumn(s.to_string())),
        8 => (i(), i(), field_value()).prop_map(|(a, b, c)| SetField(a, b, c)),
        8 => (i(), prop::sample::select(NUMERIC_COLUMNS), prop::sample::select(NUMBERS_IN_CATALOGS))
            .prop_map(|(a, b, c)| SetNamed(a, b, c.to_string())),
        2 => (i(), prop::sample::select(&["gpu", "provider", "interconnect", "as_of", "region", "id"][..]), field_value())
            .prop_map(|(a, b, c)| SetNamed(a, b, c)),
        3 => (i(), prop::sample::select(&["2147483648", "4294967295", "1073741824", "65536", "72", "3"][..]))
            .prop_map(|(a, b)| SetNamed(a, "gpus", b.to_string())),
        2 => (i(), field_value()).prop_map(|(a, b)| SetColumn(a, b)),
        3 => (i(), i(), i()).prop_map(|(a, b, c)| SwapFields(a, b, c)),
        1 => (i(), i()).prop_map(|(a, b)| CopyIdFrom(a, b)),
        1 => i().prop_map(DropRow),
        1 => i().prop_map(DuplicateRow),
        2 => (i(), i()).prop_map(|(a, b)| TruncateRow(a, b)),
        1 => (i(), field_value()).prop_map(|(a, b)| ExtraField(a, b)),
        1 => (0usize..4).prop_map(KeepRows),
        1 => Just(ReverseRows),
        1 => Just(HeaderOnly),
    ]
}

fn damage() -> impl Strategy<Value = Damage> {
    use Damage::*;
    let i = || any::<prop::sample::Index>();
    prop_oneof![
        3 => i().prop_map(Truncate),
        4 => (i(), prop_oneof![
            Just("\"".to_string()), Just(",".to_string()), Just("\n".to_string()), Just("\r".to_string()),
            Just("\u{0}".to_string()), Just("\u{feff}".to_string()), Just(",,,,".to_string()), Just("\n\n".to_string()),
            "\\PC{1,8}", any::<char>().prop_map(String::from),
        ]).prop_map(|(a, b)| Insert(a, b)),
        2 => (i(), 1usize..400).prop_map(|(a, b)| Delete(a, b)),
        1 => Just(CrLf),
        1 => Just(LoneCr),
        1 => Just(Empty),
    ]
}

fn read_grid(text: &str) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
    r.records().map(|rec| rec.expect("bundled CSV").iter().map(String::from).collect()).collect()
}

fn write_grid(grid: &[Vec<String>]) -> String {
    let mut w = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    for row in grid {
        w.write_record(row).expect("write to memory");
    }
    String::from_utf8(w.into_inner().expect("flush to memory")).expect("UTF-8 in, UTF-8 out")
}

fn apply(grid: &mut Vec<Vec<String>>, m: &Mutation) {
    use Mutation::*;
    let width = grid.first().map_or(0, Vec::len);
    let data = grid.len().saturating_sub(1);
    // Indices into columns and data rows (row 0 is the header).
    let col = |i: &prop::sample::Index| (width > 0).then(|| i.index(width));
    let row = |i: &prop::sample::Index| (data > 0).then(|| 1 + i.index(data));
    match m {
        DropColumn(c) => {
            if let Some(c) = col(c) {
                grid.iter_mut().filter(|r| c < r.len()).for_each(|r| {
                    r.remove(c);
                });
            }
        }
        DuplicateColumn(c) => {
            if let Some(c) = col(c) {
                grid.iter_mut().filter(|r| c < r.len()).for_each(|r| {
                    let v = r[c].clone();
                    r.push(v);
                });
            }
        }
        RenameColumn(c, name) => {
            if let (Some(c), Some(h)) = (col(c), grid.first_mut()) {
                if let Some(x) = h.get_mut(c) {
                    *x = name.clone();
                }
            }
        }
        SwapHeaders(a, b) => {
            if let (Some(a), Some(b), Some(h)) = (col(a), col(b), grid.first_mut()) {
                if a < h.len() && b < h.len() {
                    h.swap(a, b);
                }
            }
        }
        SwapColumns(a, b) => {
            if let (Some(a), Some(b)) = (col(a), col(b)) {
                grid.iter_mut().skip(1).filter(|r| a < r.len() && b < r.len()).for_each(|r| r.swap(a, b));
            }
        }
        AddColumn(name) => {
            for (i, r) in grid.iter_mut().enumerate() {
                r.push(if i == 0 { name.clone() } else { "1".into() });
            }
        }
        SetField(r, c, v) => {
            if let (Some(r), Some(c)) = (row(r), col(c)) {
                if let Some(x) = grid[r].get_mut(c) {
                    *x = v.clone();
                }
            }
        }
        SetNamed(r, name, v) => {
            let c = grid.first().and_then(|h| h.iter().position(|x| x == name));
            if let (Some(r), Some(c)) = (row(r), c) {
                if let Some(x) = grid[r].get_mut(c) {
                    *x = v.clone();
                }
            }
        }
        SetColumn(c, v) => {
            if let Some(c) = col(c) {
                grid.iter_mut().skip(1).filter_map(|r| r.get_mut(c)).for_each(|x| *x = v.clone());
            }
        }
        SwapFields(r, a, b) => {
            if let (Some(r), Some(a), Some(b)) = (row(r), col(a), col(b)) {
                if a < grid[r].len() && b < grid[r].len() {
                    grid[r].swap(a, b);
                }
            }
        }
        CopyIdFrom(to, from) => {
            if let (Some(to), Some(from)) = (row(to), row(from)) {
                if let Some(id) = grid[from].first().cloned() {
                    if let Some(x) = grid[to].first_mut() {
                        *x = id;
                    }
                }
            }
        }
        DropRow(r) => {
            if let Some(r) = row(r) {
                grid.remove(r);
            }
        }
        DuplicateRow(r) => {
            if let Some(r) = row(r) {
                let copy = grid[r].clone();
                grid.insert(r, copy);
            }
        }
        TruncateRow(r, keep) => {
            if let Some(r) = row(r) {
                let n = grid[r].len();
                if n > 0 {
                    grid[r].truncate(keep.index(n));
                }
            }
        }
        ExtraField(r, v) => {
            if let Some(r) = row(r) {
                grid[r].push(v.clone());
            }
        }
        KeepRows(n) => grid.truncate(1 + n),
        ReverseRows => {
            if grid.len() > 1 {
                grid[1..].reverse();
            }
        }
        HeaderOnly => grid.truncate(1),
    }
}

fn boundary(s: &str, i: &prop::sample::Index) -> usize {
    let mut at = i.index(s.len() + 1);
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn damage_text(text: &mut String, d: &Damage) {
    match d {
        Damage::Truncate(i) => {
            let at = boundary(text, i);
            text.truncate(at);
        }
        Damage::Insert(i, s) => {
            let at = boundary(text, i);
            text.insert_str(at, s);
        }
        Damage::Delete(i, n) => {
            let at = boundary(text, i);
            let mut end = (at + n).min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.replace_range(at..end, "");
        }
        Damage::CrLf => *text = text.replace('\n', "\r\n"),
        Damage::LoneCr => *text = text.replace('\n', "\r"),
        Damage::Empty => text.clear(),
    }
}

/// What an accepted catalog is asked: the default, a model that needs
/// several GPUs, llama.cpp, batch jobs on spot with the largest batch,
/// fine-tuning, pre-training to a deadline, and image generation.
const IMPORT_QUERIES: &[&str] = &[
    "v=1",
    "v=1&model=llama-3.1-405b&w=fp8",
    "v=1&engine=llama.cpp&w=gguf-q4_k_m&model=qwen2.5-72b",
    "v=1&batch=max&spot=1&use=jobs&sort=token&model=deepseek-v3",
    "v=1&task=finetune&model=llama-3.1-70b&method=full&zero=3&tokens=100000000",
    "v=1&task=pretrain&model=llama-3.1-8b&days=14&zero=3&spot=1",
    "v=1&task=generate&model=flux.1-dev&use=jobs&jobs=100&jobmin=10",
    "v=1&task=finetune&model=sdxl&method=full&res=2048x2048&mb=4",
];

proptest! {
    #![proptest_config(cases(1_000))]

    /// 1,000 damaged catalogs a run: rejected with a message that says
    /// where, or accepted and then usable for a whole answer.
    #[test]
    fn malformed_offer_catalogs(
        mutations in prop::collection::vec(mutation(), 1..4),
        damages in prop::collection::vec(damage(), 0..3),
        query in prop::sample::select(IMPORT_QUERIES),
    ) {
        let mut grid = read_grid(OFFERS_CSV);
        for m in &mutations {
            apply(&mut grid, m);
        }
        let mut text = write_grid(&grid);
        for d in &damages {
            damage_text(&mut text, d);
        }
        let result = parse_offers("import", &text)
            .map_err(|e| e.to_string())
            .and_then(|offers| catalog().with_offers(offers).map_err(|e| e.to_string()));
        match result {
            Err(msg) => {
                prop_assert!(msg.starts_with("import: "), "{msg}");
                prop_assert!(msg.contains("row") || msg.contains("column"), "rejection without a place: {msg}");
                if let Some(rest) = msg.split("field `").nth(1) {
                    let field = rest.split('`').next().unwrap_or_default();
                    prop_assert!(OFFER_COLUMNS.contains(&field), "unknown field named: {msg}");
                }
            }
            Ok(imported) => {
                let answer = evaluate_query(query, &imported, today());
                check_notices(&answer.notices, query)?;
                prop_assert!(!report::text(&answer).is_empty());
                prop_assert!(serde_json::to_string(&answer).is_ok());
            }
        }
    }
}

/// The generators reach both outcomes: a sample of damaged catalogs has
/// acceptances and rejections of several kinds.
#[test]
fn catalog_mutations_reach_both_outcomes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (prop::collection::vec(mutation(), 1..4), prop::collection::vec(damage(), 0..3));
    let (mut ok, mut kinds) = (0, std::collections::BTreeSet::new());
    for _ in 0..300 {
        let (mutations, damages) = strategy.new_tree(&mut runner).expect("tree").current();
        let mut grid = read_grid(OFFERS_CSV);
        mutations.iter().for_each(|m| apply(&mut grid, m));
        let mut text = write_grid(&grid);
        damages.iter().for_each(|d| damage_text(&mut text, d));
        match parse_offers("import", &text)
            .map_err(|e| e.to_string())
            .and_then(|o| catalog().with_offers(o).map_err(|e| e.to_string()))
        {
            Ok(_) => ok += 1,
            Err(m) => {
                let kind = if m.contains("unknown column") {
                    "unknown column"
                } else if m.contains("missing column") {
                    "missing column"
                } else if m.contains("field `") {
                    "field"
                } else {
                    "row"
                };
                kinds.insert(kind);
            }
        }
    }
    assert!(ok >= 10, "only {ok} of 300 damaged catalogs were accepted");
    assert!(kinds.len() >= 3, "rejections of kinds {kinds:?} only");
}
