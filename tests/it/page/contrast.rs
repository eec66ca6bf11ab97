//! WCAG AA contrast of the page's colours in both themes, read from the
//! stylesheet: 4.5:1 for text, 3:1 for chart marks and focus rings
//! (WCAG 2.1, 1.4.3 and 1.4.11; relative luminance per its definition).

fn vars(css: &str, selector: &str) -> Vec<(String, String)> {
    let start = css.find(selector).expect("theme block");
    let block = &css[start..];
    let body = &block[block.find('{').expect("{") + 1..block.find('}').expect("}")];
    body.split(';')
        .filter_map(|d| d.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, _)| k.starts_with("--"))
        .collect()
}

fn luminance(hex: &str) -> f64 {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| {
        let v = f64::from(u8::from_str_radix(&h[i..i + 2], 16).expect("hex")) / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * c(0) + 0.7152 * c(2) + 0.0722 * c(4)
}

fn ratio(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn both_themes_meet_aa() {
    let css = include_str!("../../../static/style.css");
    for theme in [":root, [data-theme=\"light\"]", "[data-theme=\"dark\"]"] {
        let v = vars(css, theme);
        let get = |k: &str| v.iter().find(|(n, _)| n == k).map(|(_, c)| c.clone()).expect(k);
        for bg in ["--bg", "--card", "--notice"] {
            for fg in ["--fg", "--muted", "--link"] {
                let r = ratio(&get(fg), &get(bg));
                assert!(r >= 4.5, "{theme}: {fg} on {bg} is {r:.2}:1");
            }
        }
        for mark in ["--c1", "--c2", "--c3", "--c4", "--c5", "--accent", "--focus"] {
            let r = ratio(&get(mark), &get("--card"));
            assert!(r >= 3.0, "{theme}: {mark} on --card is {r:.2}:1");
        }
    }
}
