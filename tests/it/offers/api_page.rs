//! Issue 46 on the page: the hosted API prices and their texts are not in
//! the page's first download. The on-demand worker carries a copy
//! (`OUT_DIR/api-prices.txt`, `ondemand::api_file`) and adds the API's
//! line and answer to its reply to the launch card (`ondemand::handle`,
//! kind `export`), which the page reads with `evaluate::api::read_reply`.
//! Run here natively: the copy is the table of `static/api_prices.csv`,
//! and the page's path gives the CLI's `Api` and the CLI's answer, in
//! both languages.

use crate::common::{catalog, today};
use whichgpu::core::catalog::api_prices::parse_api_prices;
use whichgpu::core::config::Lang;
use whichgpu::core::evaluate::api::{page_api, read_reply, source_href};
use whichgpu::core::evaluate::{evaluate, evaluate_offers};
use whichgpu::core::link;
use whichgpu::core::ondemand::{api_file, handle, request, split_exports};

const TABLE: &str = include_str!("../../../static/api_prices.csv");

#[test]
fn the_workers_api_file_is_the_table_and_the_api_texts() {
    let f = api_file().expect("build.rs wrote a file the worker reads");
    assert_eq!(
        f.prices,
        parse_api_prices(TABLE, &catalog().models).expect("the table parses"),
        "the same rows, field for field"
    );
    let keys: Vec<&str> = f.texts.iter().map(|t| t.0.as_str()).collect();
    for key in ["g.api.title", "g.api.rent", "g.api.call", "g.api.job", "g.api.line", "g.api.line_job"] {
        assert!(keys.contains(&key), "{key} is in the file");
    }
    for (key, en, zh) in &f.texts {
        assert!(key.starts_with("g.api."), "only the API's texts: {key}");
        assert_eq!(Some(en.as_str()), whichgpu::core::messages::template(key, Lang::En));
        assert_eq!(Some(zh.as_str()), whichgpu::core::messages::template(key, Lang::Zh));
    }
    // A text that is not one gives nothing (the page then shows no line).
    assert_eq!(whichgpu::core::catalog::api_prices::parse_file("<html>404</html>"), None);
}

/// The page's path (the worker's reply for the page's answer, as the launch
/// card asks for it) against the CLI's (`evaluate`, the bundled table).
#[test]
fn the_page_shows_what_the_cli_says() {
    let f = api_file().expect("the worker's copy");
    let queries = [
        "model=llama-3.1-8b",
        "model=llama-3.1-70b&rps=3&in=1500&out=300",
        "model=qwen2.5-7b&use=hours&hpd=6",
        "model=llama-3.1-8b&use=jobs&per_job=100000&jobs=4",
        "model=llama-3.1-70b&cur=eur&rps=20",
        "model=deepseek-r1",
        "model=llama-3.1-8b&rps=0.05&out=200",
    ];
    let mut shown = 0;
    for q in queries {
        let (cfg, notices) = link::decode(q);
        let cli = evaluate(&cfg, notices.clone(), catalog(), today());
        let page = evaluate_offers(&cfg, notices, catalog(), today());
        let api = cli.api.as_ref().expect("a priced model");
        assert_eq!(page_api(&page, &f.prices).map(|p| p.api).as_ref(), Some(api), "{q}: the same `api`");
        let reply = handle(&request("export", today(), &link::encode(&cfg), "offers.csv", ""));
        // The launch texts are as before: the API's record is not one of them.
        assert!(
            !split_exports(&reply).is_empty()
                && split_exports(&reply).iter().all(|e| !e.offer.starts_with("api")),
            "{q}"
        );
        let g = cli.guidance.iter().find(|g| g.id == "api").expect("the CLI's answer");
        for lang in [Lang::En, Lang::Zh] {
            let [line, title, answer] = read_reply(&reply, lang).expect("the reply has the API's record");
            shown += 1;
            assert_eq!(answer, g.msg.render(lang), "{q}: the same guidance answer");
            assert_eq!(Some(title.to_string()), g.title_msg.as_ref().map(|m| m.render(lang)), "{q}");
            assert!(
                line.contains(&cli.display.format(api.usd_per_month))
                    && line.contains(&api.host)
                    && line.contains(&api.as_of.to_string()),
                "{q}: {line}"
            );
            let href = source_href(&api.source).expect("a web address for the source");
            assert!(line.contains(&href), "{q}: {line}");
            let even = if lang == Lang::En { "renting is cheaper above" } else { "租 GPU 更便宜" };
            assert_eq!(api.breakeven_requests_per_s.is_some(), line.contains(even), "{q}: {line}");
        }
    }
    assert!(shown >= 14, "only {shown} answers compared");
    // No price, or not serving: no record, nothing on the page.
    for q in ["model=gpt-2-124m", "task=finetune&model=llama-3.1-8b"] {
        let (cfg, _) = link::decode(q);
        let reply = handle(&request("export", today(), &link::encode(&cfg), "offers.csv", ""));
        assert_eq!(read_reply(&reply, Lang::En), None, "{q}");
    }
    // A reply the page cannot read shows nothing.
    assert_eq!(read_reply("", Lang::En), None);
    assert_eq!(read_reply("api\u{1f}only", Lang::Zh), None);
}

#[test]
fn a_sources_web_address() {
    let sha = "8442b939a6ead479f7995b5d74d8dce488bd0966";
    assert_eq!(
        source_href(&format!(
            "LiteLLM json as copied by github.com/RoCry/llm-api-price at commit {sha} (2026-07-24), key `x`"
        ))
        .as_deref(),
        Some(format!("https://github.com/RoCry/llm-api-price/tree/{sha}").as_str())
    );
    assert_eq!(
        source_href("price page https://example.org/pricing, read 2026-11-01").as_deref(),
        Some("https://example.org/pricing")
    );
    assert_eq!(source_href("github.com/a/b").as_deref(), Some("https://github.com/a/b"));
    assert_eq!(source_href("the host's price page"), None);
}
