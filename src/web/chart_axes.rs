//! The cost chart's geometry: tick values on a log or linear axis, money
//! tick labels, text widths, and labels placed clear of each other and of
//! the points.

/// A log axis from `lo` to `hi` (both > 0): the whole decades around them,
/// ticked at each decade, or at 1, 2 and 5 when they span one decade.
pub fn log_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let a = lo.max(1e-9).log10().floor();
    let b = hi.max(1e-9).log10().ceil().max(a + 1.0);
    let mut ticks = Vec::new();
    for k in (a as i32)..=(b as i32) {
        let d = 10f64.powi(k);
        ticks.push(d);
        if b - a < 2.0 && f64::from(k) < b {
            ticks.extend([2.0 * d, 5.0 * d]);
        }
    }
    (10f64.powf(a), 10f64.powf(b), ticks)
}

/// A linear axis from 0 to at least `hi`: three to five ticks at a 1-2-5 step.
pub fn linear_ticks(hi: f64) -> (f64, Vec<f64>, usize) {
    let raw = hi.max(1e-9) / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step =
        [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw * 0.999).unwrap_or(10.0 * mag);
    let n = (hi / step - 1e-9).ceil().max(2.0) as usize;
    let digits = (-step.log10().floor()).max(0.0) as usize;
    (n as f64 * step, (0..=n).map(|i| i as f64 * step).collect(), digits)
}

/// Money on a tick: $10, $100, $1k, $10k, $1M (or ¥ in yuan).
pub fn money_tick(v: f64, symbol: &str) -> String {
    let (x, unit) = if v >= 1e6 {
        (v / 1e6, "M")
    } else if v >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let x = if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        format!("{}", (x * 1000.0).round() / 1000.0)
    };
    format!("{symbol}{x}{unit}")
}

/// The width a label of `font` px takes, estimated: CJK characters are
/// square, Latin ones a little over half as wide (system-ui at 12–13 px).
pub fn text_width(text: &str, font: f64) -> f64 {
    text.chars()
        .map(|c| {
            if c >= '\u{2E80}' {
                1.0
            } else if c.is_ascii_uppercase() || c == '$' {
                0.68
            } else {
                0.58
            }
        })
        .sum::<f64>()
        * font
}

/// A label's box: left, top, right, bottom.
type Boxed = (f64, f64, f64, f64);

fn overlap(a: Boxed, b: Boxed) -> f64 {
    let w = (a.2.min(b.2) - a.0.max(b.0)).max(0.0);
    let h = (a.3.min(b.3) - a.1.max(b.1)).max(0.0);
    w * h
}

/// Where each point's label goes: of twelve places around the point
/// (right, left, above, below, the corners, then a line further out), the
/// first that overlaps least, weighing a label's overlap with the labels
/// placed before it above its overlap with the marked points, and its
/// reach outside the plot `area` (a little) and outside the picture
/// `frame` (a lot). Points come in priority order (the pick first; then
/// unlabelled points with width 0, which only reserve their place).
/// Returns (x, baseline y, text-anchor) per point; anchor `none` for a
/// label left out because no place was clear of the others.
pub fn place_labels(
    points: &[(f64, f64, f64, f64)],
    font: f64,
    area: Boxed,
    frame: Boxed,
) -> Vec<(f64, f64, &'static str)> {
    let dots: Vec<Boxed> = points.iter().map(|&(x, y, r, _)| (x - r, y - r, x + r, y + r)).collect();
    let mut labels: Vec<Boxed> = Vec::new();
    let mut out = Vec::with_capacity(points.len());
    for &(x, y, r, lw) in points {
        let (up, down, mid) = (y - r - 4.0, y + r + font + 1.0, y + font * 0.35);
        let places = [
            (x + r + 4.0, mid, "start"),
            (x - r - 4.0, mid, "end"),
            (x, up, "middle"),
            (x, down, "middle"),
            (x + r + 1.0, up, "start"),
            (x - r - 1.0, up, "end"),
            (x + r + 1.0, down, "start"),
            (x - r - 1.0, down, "end"),
            (x + r + 1.0, up - font, "start"),
            (x - r - 1.0, up - font, "end"),
            (x + r + 1.0, down + font, "start"),
            (x - r - 1.0, down + font, "end"),
        ];
        // The box a browser gives a line of text: about 0.95 em above the baseline, 0.3 below.
        let boxed = |(lx, ly, anchor): (f64, f64, &str)| {
            let left = match anchor {
                "start" => lx,
                "end" => lx - lw,
                _ => lx - lw / 2.0,
            };
            (left - 1.0, ly - font * 0.95, left + lw + 1.0, ly + font * 0.3)
        };
        let outside = |b: Boxed, a: Boxed| (b.2 - b.0) * (b.3 - b.1) - overlap(b, a);
        let cost = |b: Boxed| {
            outside(b, frame) * 100.0
                + outside(b, area) * 2.0
                + labels.iter().map(|l| overlap(b, *l)).sum::<f64>() * 4.0
                + dots.iter().map(|d| overlap(b, *d)).sum::<f64>()
        };
        let mut best = ((x + r + 4.0, mid, "start"), f64::MAX);
        for p in places {
            let c = cost(boxed(p));
            if c < best.1 {
                best = (p, c);
            }
        }
        // A label that cannot be placed clear of those already placed is
        // left out (anchor "none"): the point keeps its name, the legend
        // and the tooltip; the pick is placed first, so it always shows.
        if lw > 0.0 && labels.iter().any(|l| overlap(boxed(best.0), *l) > 0.0) {
            out.push((best.0 .0, best.0 .1, "none"));
            continue;
        }
        if lw > 0.0 {
            labels.push(boxed(best.0));
        }
        out.push(best.0);
    }
    out
}

/// Which tick labels fit side by side: decades first, then the 2 and 5
/// ticks between them where they leave a gap; (x, label width) per tick.
pub fn fitting_ticks(ticks: &[(f64, f64, bool)], gap: f64) -> Vec<bool> {
    let mut keep = vec![false; ticks.len()];
    for decades in [true, false] {
        for (i, &(x, w, decade)) in ticks.iter().enumerate() {
            if decade != decades {
                continue;
            }
            let clear = ticks
                .iter()
                .zip(&keep)
                .all(|(&(ox, ow, _), &k)| !k || (x - ox).abs() >= (w + ow) / 2.0 + gap);
            if clear {
                if let Some(k) = keep.get_mut(i) {
                    *k = true;
                }
            }
        }
    }
    keep
}
