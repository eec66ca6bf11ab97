//! Currencies: the dated rate converts offers priced in yuan to US dollars
//! on load (and an offer without a rate does not load); `price=` overrides
//! are in the offer's own currency; the `cur` key (yuan by default for a
//! Chinese link) sets what the text report shows, with converted prices
//! marked, while the JSON stays in US dollars.

use whichgpu::core::answer::Answer;
use whichgpu::core::catalog::offers::{parse_offers, OFFER_COLUMNS};
use whichgpu::core::catalog::Catalog;
use whichgpu::core::config::{Config, Currency, Lang};
use whichgpu::core::evaluate::evaluate_query;
use whichgpu::core::link::{decode, encode};
use whichgpu::core::report;

use crate::common::{answer, catalog, today};

fn cny_rate() -> f64 {
    catalog().usd_per_unit(Currency::Cny).expect("a CNY rate in rates.csv")
}

/// One offers.csv row: the bundled `runpod-l4-24gb-x1` offer as a CNY
/// offer `id` at `yuan` per hour (spot dropped).
fn cny_row(id: &str, yuan: f64) -> String {
    let o = catalog().offer("runpod-l4-24gb-x1").expect("offer");
    let cells: Vec<String> = OFFER_COLUMNS
        .iter()
        .map(|c| match *c {
            "id" => id.to_string(),
            "provider" => o.provider.to_string(),
            "instance" => "L4 priced in yuan".into(),
            "gpu" => o.gpu.to_string(),
            "gpus" => "1".into(),
            "interconnect" => "single".into(),
            "currency" => "cny".into(),
            "usd_per_hour" => yuan.to_string(),
            "region" => "cn".into(),
            "billing_increment_s" => "1".into(),
            "min_charge_s" => "0".into(),
            "storage_usd_per_gb_month" => "0.5".into(),
            "egress_usd_per_gb" => "0".into(),
            "source" => "test row".into(),
            "as_of" => "2026-11-01".into(),
            _ => String::new(),
        })
        .collect();
    format!("{}\n{}\n", OFFER_COLUMNS.join(","), cells.join(","))
}

fn with_cny_offer(yuan: f64) -> Catalog {
    let offers = parse_offers("import", &cny_row("cn-l4", yuan)).expect("row parses");
    catalog().with_offers(offers).expect("loads with the CNY rate")
}

#[test]
fn the_rate_is_dated_sourced_and_plausible() {
    let c = catalog();
    let row = c.rates.iter().find(|r| r.rate.currency == Currency::Cny).expect("cny row");
    assert!(!row.source.is_empty());
    // The yuan traded between 6 and 8 per dollar through 2015–2026.
    assert!((1.0 / 8.0..1.0 / 6.0).contains(&row.rate.usd_per_unit), "{}", row.rate.usd_per_unit);
    assert_eq!(c.usd_per_unit(Currency::Usd), Some(1.0));
}

#[test]
fn a_cny_offer_is_converted_on_load_and_billed_in_dollars() {
    let c = with_cny_offer(10.0);
    let o = c.offer("cn-l4").expect("imported");
    assert_eq!(o.currency, Currency::Cny);
    assert!((o.usd_per_hour - 10.0 * cny_rate()).abs() < 1e-12, "{}", o.usd_per_hour);
    assert!((o.storage_usd_per_gb_month.expect("storage") - 0.5 * cny_rate()).abs() < 1e-12);
    let a = evaluate_query("gpu=l4-24gb&provider=runpod&store=0", &c, today());
    let r = a.offers.iter().find(|r| &*r.id == "cn-l4").expect("ranked");
    assert_eq!(r.currency, Currency::Cny);
    // Every instance the plan rents, every hour of the month.
    let n = f64::from(r.instances);
    assert!((r.usd_per_hour - n * 10.0 * cny_rate()).abs() < 1e-9, "{}", r.usd_per_hour);
    assert!((r.usd_per_month - n * 10.0 * cny_rate() * 730.0).abs() < 1e-6, "{}", r.usd_per_month);
}

#[test]
fn an_offer_in_a_currency_without_a_rate_does_not_load() {
    let offers = parse_offers("import", &cny_row("cn-l4", 10.0)).expect("row parses");
    let no_rates = Catalog { rates: Vec::new(), ..catalog().clone() };
    let err = no_rates.with_offers(offers).expect_err("no CNY rate").to_string();
    assert!(err.contains("no exchange rate for `cny`"), "{err}");
}

#[test]
fn a_price_override_is_in_the_offer_s_own_currency() {
    let c = with_cny_offer(10.0);
    let a = evaluate_query("gpu=l4-24gb&provider=runpod&store=0&price=cn-l4:7", &c, today());
    let cn = a.offers.iter().find(|r| &*r.id == "cn-l4").expect("cn offer");
    assert!(cn.price_overridden);
    let per_instance = cn.usd_per_hour / f64::from(cn.instances);
    assert!((per_instance - 7.0 * cny_rate()).abs() < 1e-12, "yuan 7 = ${per_instance}");
    // A dollar offer's override is in dollars.
    let a = answer("gpu=l4-24gb&provider=runpod&store=0&price=runpod-l4-24gb-x1:0.3");
    let us = a.offers.iter().find(|r| &*r.id == "runpod-l4-24gb-x1").expect("usd offer");
    assert!((us.usd_per_hour / f64::from(us.instances) - 0.3).abs() < 1e-12);
}

#[test]
fn cur_follows_the_language_unless_set() {
    let cur = |q: &str| decode(q).0.display_currency();
    assert_eq!(cur(""), Currency::Usd);
    assert_eq!(cur("lang=en"), Currency::Usd);
    assert_eq!(cur("lang=zh"), Currency::Cny);
    assert_eq!(cur("lang=zh&cur=usd"), Currency::Usd);
    assert_eq!(cur("cur=cny"), Currency::Cny);
    // Set explicitly, it round-trips; left to the language, it stays out.
    let cfg = Config { cur: Some(Currency::Usd), lang: Some(Lang::Zh), ..Config::default() };
    let link = encode(&cfg);
    assert!(link.contains("cur=usd"), "{link}");
    assert_eq!(decode(&link).0.cur, Some(Currency::Usd));
    assert!(!encode(&decode("lang=zh").0).contains("cur="));
    // A bad value is a notice naming the key; the default stays.
    let (cfg, notices) = decode("cur=eur");
    assert_eq!(cfg.cur, None);
    assert!(notices.iter().any(|n| n.key == "cur" && n.message.contains("usd")), "{notices:?}");
}

fn top_offer_lines(a: &Answer) -> Vec<String> {
    let text = report::text(a);
    text.lines()
        .skip_while(|l| !l.starts_with("Top offers"))
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.trim_start().starts_with('*'))
        .map(String::from)
        .collect()
}

#[test]
fn a_chinese_link_shows_yuan_in_the_text_report_and_says_it_converted() {
    let zh = answer("lang=zh&use=jobs&jobs=30&jobmin=3");
    let en = answer("use=jobs&jobs=30&jobmin=3");
    assert_eq!(zh.display.currency, Currency::Cny);
    let text = report::text(&zh);
    assert!(text.contains("Top offers (prices in CNY):"), "{text}");
    let lines = top_offer_lines(&zh);
    assert!(!lines.is_empty());
    for l in &lines {
        assert!(l.contains("¥/h") && l.contains("¥/mo") && !l.contains('$'), "{l}");
    }
    // A price shown in another currency than its own is converted and
    // marked; the note gives the rate and its date.
    let currency_of = |a: &Answer, l: &str| {
        let id = l.split_whitespace().next().unwrap_or("");
        a.offers.iter().find(|o| &*o.id == id).map(|o| o.currency).expect("a listed offer")
    };
    for l in &lines {
        assert_eq!(l.contains("* ¥/h"), currency_of(&zh, l) == Currency::Usd, "{l}");
    }
    let rate = zh.display.rates.iter().find(|r| r.currency == Currency::Cny).expect("rate");
    let note = format!("* converted at 1 USD = {:.4} CNY ({})", 1.0 / rate.usd_per_unit, rate.as_of);
    // The note comes with the marks: only when a shown price is converted.
    assert_eq!(text.contains(&note), lines.iter().any(|l| l.contains('*')), "{text}");
    // The same offer: the yuan figure is the dollar figure over the rate,
    // and the JSON stays in US dollars whatever the display.
    let pz = zh.pick().expect("pick");
    let mark = if pz.currency == Currency::Usd { "*" } else { "" };
    let shown = format!("{:.2}{mark} ¥/h", pz.usd_per_hour / rate.usd_per_unit);
    assert!(lines.iter().any(|l| l.contains(&shown)), "{shown} in {lines:?}");
    let pe = en.offers.iter().find(|o| o.id == pz.id).expect("the same offer in English");
    assert_eq!(pz.usd_per_month, pe.usd_per_month);
    let json = serde_json::to_value(&zh).expect("json");
    assert_eq!(json["display"]["currency"], "cny");
    assert_eq!(json["offers"][0]["usd_per_hour"].as_f64(), Some(zh.offers[0].usd_per_hour));
    // An English link shows dollars; only yuan prices carry the mark.
    let en_lines = top_offer_lines(&en);
    for l in &en_lines {
        assert!(l.contains(" $/h") || l.contains("* $/h"), "{l}");
        assert_eq!(l.contains('*'), currency_of(&en, l) == Currency::Cny, "{l}");
    }
    assert!(top_offer_lines(&answer("lang=zh&cur=usd")).iter().all(|l| l.contains(" $/h")));
}

#[test]
fn a_cny_offer_shown_in_dollars_is_marked() {
    let c = with_cny_offer(2.0);
    let a = evaluate_query("gpu=l4-24gb&provider=runpod&store=0", &c, today());
    let text = report::text(&a);
    let line = text.lines().find(|l| l.starts_with("  cn-l4")).expect("cn-l4 shown");
    assert!(line.contains("* $/h"), "{line}");
    assert!(text.contains("converted at 1 USD = "), "{text}");
    // Shown in yuan, the yuan offer is not converted and carries no mark.
    let a = evaluate_query("gpu=l4-24gb&provider=runpod&store=0&cur=cny", &c, today());
    let text = report::text(&a);
    let line = text.lines().find(|l| l.starts_with("  cn-l4")).expect("cn-l4 shown");
    let o = a.offers.iter().find(|o| &*o.id == "cn-l4").expect("offer");
    assert!(line.contains(&format!(" {:.2} ¥/h", 2.0 * f64::from(o.instances))), "{line}");
}
