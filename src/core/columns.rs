//! The columns of an offer row, one entry each: every view of the offers
//! reads this table — the CSV export (`ondemand::offers_csv`: its header is
//! the CSV columns' ids, its fields their cells), the CLI's text report
//! (`report`: its offers lines are the report columns' cells, laid out as
//! each column says) and the page's offers table (`web::offers`: its
//! headers and cells, in this order). The JSON is `answer::OfferResult`'s
//! serde form, whose field names these ids are (`tests/it/offers/columns.rs`
//! checks the CSV ids against it).
//!
//! Adding a column: a row here (its id, header text key, views and the
//! function that reads its typed cell from the offer), and the code that
//! computes the value. Each view writes a cell by its type ([`Cell`]):
//! nothing else changes. A view may dress a column with its own widget (the
//! page's price input and sort buttons); the order, the headers and the
//! values are this table's.
//!
//! A static slice of plain function pointers (no trait objects, no
//! generics): one compiled copy of each reader, small in the page's Wasm.

use std::borrow::Cow;

use super::answer::OfferResult;
use super::config::Lang;
use super::date::Date;
use super::messages::ui;

/// One offer's value in a column, typed until a view writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    /// Free text (CSV: quoted).
    Text(Cow<'a, str>),
    /// A documented name from a closed set, an enum's string (CSV: as is).
    Name(&'static str),
    /// Names from a closed set (CSV: quoted, joined by `;`).
    Names(Vec<&'static str>),
    Count(u32),
    Flag(bool),
    /// A quantity, written with `digits` decimals in the CSV.
    Number {
        value: f64,
        digits: usize,
    },
    /// Money in US dollars, written with `digits` decimals in the CSV; the
    /// report and the page show it in the display currency.
    Usd {
        usd: f64,
        digits: usize,
    },
    Date(Date),
    /// Not known, never zero, and why (`not estimated`: the plan does not
    /// fit, or has no speed; CSV: empty, report `-`, page `–`).
    Unknown(&'static str),
}

/// The views a column appears in (bits of [`Column::views`]).
pub const CSV: u8 = 1;
pub const REPORT: u8 = 2;
pub const PAGE: u8 = 4;
/// A price per unit of work: shown in the report and on the page only when
/// it is the answer's unit (the cost the offers are ranked on, or the
/// task's), in the place of this flag's first column.
pub const UNIT: u8 = 8;

#[cfg(not(target_arch = "wasm32"))]
/// How the text report lays a column out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportLayout {
    /// Written before the cell.
    pub before: &'static str,
    /// Width; negative: left-aligned.
    pub width: i8,
    /// Decimals of money; `None`: cents below 100, whole units above.
    pub digits: Option<u8>,
    /// Money: the converted-price mark after the amount.
    pub mark: bool,
    /// Money: the unit after the currency symbol (`/h`).
    pub unit: &'static str,
}

#[cfg(not(target_arch = "wasm32"))]
const fn at(before: &'static str, width: i8) -> ReportLayout {
    ReportLayout { before, width, digits: None, mark: false, unit: "" }
}

#[cfg(not(target_arch = "wasm32"))]
const fn money(width: i8, digits: Option<u8>, unit: &'static str) -> ReportLayout {
    ReportLayout { before: " ", width, digits, mark: false, unit }
}

/// What a cell may read beside the offer.
pub struct Ctx<'a> {
    pub lang: Lang,
    /// Where an offer without its source text is listed (the page's copy of
    /// `static/offers.csv`; the Wasm build's bundled catalog has no sources).
    pub sources: &'a str,
}

/// One column of an offer row.
pub struct Column {
    /// The JSON field and CSV column name (a page-only column: its name).
    pub id: &'static str,
    /// The message key of its header on the page ("" where it has none).
    pub header: &'static str,
    /// The views it appears in ([`CSV`], [`REPORT`], [`PAGE`], [`UNIT`]).
    pub views: u8,
    /// The offer's value in it.
    pub cell: for<'a> fn(&'a OfferResult, &Ctx<'a>) -> Cell<'a>,
    /// The text report's layout (the CLI only: not in a Wasm build).
    #[cfg(not(target_arch = "wasm32"))]
    pub report: ReportLayout,
}

/// A row of [`COLUMNS`]: its id, header, views, cell and, outside the
/// Wasm, its report layout (the page never reads it).
macro_rules! col {
    ($id:literal, $header:literal, $views:expr, $cell:expr, $report:expr) => {
        Column {
            id: $id,
            header: $header,
            views: $views,
            cell: $cell,
            #[cfg(not(target_arch = "wasm32"))]
            report: $report,
        }
    };
}

impl Column {
    pub const fn shows(&self, view: u8) -> bool {
        self.views & view != 0
    }
}

fn text(s: &str) -> Cell<'_> {
    Cell::Text(Cow::Borrowed(s))
}

/// A price that may be unknown (no speed, no fit): unknown, never zero.
fn usd(v: Option<f64>, digits: usize) -> Cell<'static> {
    match v.filter(|v| v.is_finite() && *v < f64::MAX) {
        Some(usd) => Cell::Usd { usd, digits },
        None => Cell::Unknown("not estimated"),
    }
}

#[cfg(not(target_arch = "wasm32"))]
const NONE: ReportLayout = at("", 0);

/// The offer row's columns, in the order every view writes them.
pub static COLUMNS: &[Column] = &[
    col!("id", "", CSV | REPORT, |o, _| text(&o.id), at("  ", -40)),
    col!(
        "offer",
        "ui.col.offer",
        PAGE,
        |o, _| Cell::Text(Cow::Owned(format!("{} · {}", o.provider, o.instance))),
        NONE
    ),
    col!("provider", "", CSV, |o, _| text(&o.provider), NONE),
    col!("instance", "", CSV, |o, _| text(&o.instance), NONE),
    col!("total_gpus", "", REPORT, |o, _| Cell::Count(o.gpus.saturating_mul(o.instances)), at(" ", 2)),
    col!("gpu", "ui.col.gpu", CSV | REPORT | PAGE, |o, _| text(&o.gpu), at("×", -18)),
    col!("gpus", "", CSV, |o, _| Cell::Count(o.gpus), NONE),
    col!("instances", "", CSV, |o, _| Cell::Count(o.instances), NONE),
    col!("layout", "ui.col.layout", PAGE, |o, _| Cell::Count(o.replicas), NONE),
    col!("fits", "", CSV, |o, _| Cell::Flag(o.fits), NONE),
    col!("status", "ui.col.fits", PAGE, status, NONE),
    // The export has always written 0 where the speed is unknown.
    col!(
        "decode_tokens_per_s_per_seq",
        "",
        CSV,
        |o, _| Cell::Number { value: o.speeds.decode_tokens_per_s_per_seq().unwrap_or(0.0), digits: 2 },
        NONE
    ),
    col!("speed", "ui.col.speed", PAGE, |o, _| Cell::Number { value: o.speed_score, digits: 1 }, NONE),
    col!(
        "usd_per_hour",
        "ui.col.hour",
        CSV | REPORT | PAGE,
        |o, _| Cell::Usd { usd: o.usd_per_hour, digits: 4 },
        ReportLayout { mark: true, ..money(9, Some(2), "/h") }
    ),
    col!(
        "usd_per_month",
        "ui.col.month",
        CSV | REPORT | PAGE,
        |o, _| Cell::Usd { usd: o.usd_per_month, digits: 2 },
        money(11, None, "/mo")
    ),
    col!(
        "usd_per_million_output_tokens",
        "ui.col.mtok",
        CSV | UNIT,
        |o, _| usd(o.usd_per_million_output_tokens, 4),
        money(8, Some(3), "/Mtok")
    ),
    col!(
        "usd_per_1000_images",
        "ui.col.kimg",
        UNIT,
        |o, _| usd(o.usd_per_1000_images, 4),
        money(8, Some(3), "/1k img")
    ),
    col!("usd_per_clip", "ui.col.clip", UNIT, |o, _| usd(o.usd_per_clip, 4), money(8, Some(3), "/clip")),
    col!(
        "usd_per_audio_hour",
        "ui.col.audioh",
        UNIT,
        |o, _| usd(o.usd_per_audio_hour, 4),
        money(8, Some(3), "/audio h")
    ),
    col!("usd_per_job", "ui.col.job", REPORT | UNIT, |o, _| usd(o.usd_per_job, 4), money(9, None, "/job")),
    col!(
        "extras",
        "ui.col.extra",
        PAGE,
        |o, _| Cell::Names(o.unknown_costs.iter().map(|p| p.as_str()).collect()),
        NONE
    ),
    col!("price_as_of", "ui.col.date", CSV | PAGE, |o, _| Cell::Date(o.price_as_of), NONE),
    col!("stale", "", CSV, |o, _| Cell::Flag(o.stale), NONE),
    col!("source", "", CSV, |o, c| text(if o.source.is_empty() { c.sources } else { &o.source }), NONE),
    col!("replicas", "", CSV, |o, _| Cell::Count(o.replicas), NONE),
    col!("commitment", "", CSV, |o, _| Cell::Name(o.commitment.as_str()), NONE),
    col!(
        "unknown_costs",
        "",
        CSV,
        |o, _| Cell::Names(o.unknown_costs.iter().map(|p| p.as_str()).collect()),
        NONE
    ),
];

/// The page's status cell: fits and meets, fits but misses a limit, or not.
fn status<'a>(o: &'a OfferResult, c: &Ctx<'a>) -> Cell<'a> {
    let key = match (o.fits, o.meets) {
        (true, true) => "ui.yes",
        (true, false) => "ui.fits.misses",
        _ => "ui.no",
    };
    text(ui(key, c.lang))
}

/// The columns a view shows, in order; `unit` is the id of the answer's
/// price per unit ([`UNIT`] columns other than it are left out).
pub fn of_view(view: u8, unit: Option<&'static str>) -> impl Iterator<Item = &'static Column> {
    COLUMNS.iter().filter(move |c| c.shows(view) || (c.shows(UNIT) && Some(c.id) == unit))
}

/// A column by its id.
pub fn by_id(id: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.id == id)
}

/// The CSV export: the header (the CSV columns' ids), then one line per offer.
pub fn csv(offers: &[OfferResult], sources: &str) -> String {
    let cols: Vec<&Column> = of_view(CSV, None).collect();
    let mut out = cols.iter().map(|c| c.id).collect::<Vec<_>>().join(",");
    out.push('\n');
    let ctx = Ctx { lang: Lang::En, sources };
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    for o in offers {
        let fields: Vec<String> = cols
            .iter()
            .map(|c| match (c.cell)(o, &ctx) {
                Cell::Text(s) => q(&s),
                Cell::Names(n) => q(&n.join(";")),
                Cell::Name(s) => s.to_string(),
                Cell::Count(n) => n.to_string(),
                Cell::Flag(b) => b.to_string(),
                Cell::Number { value, digits } => format!("{value:.digits$}"),
                Cell::Usd { usd, digits } => format!("{usd:.digits$}"),
                Cell::Date(d) => d.to_string(),
                Cell::Unknown(_) => String::new(),
            })
            .collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}
