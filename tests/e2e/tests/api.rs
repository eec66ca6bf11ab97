//! End-to-end, issue 46: a serving answer shows the hosted API's price
//! first under the pick's cost, and the answer "Rent a GPU or call an
//! API?" in the guidance card, once the on-demand worker has replied (it is
//! asked when the launch card comes into view), in English and Chinese;
//! a model without a price shows neither; and `measured` on the page.
//! Build `dist/` first
//! (`scripts/test.sh` does).

mod common;

use common::{browser, dist, serve, wait_for};
use fantoccini::Client;

async fn shown(c: &Client, css: &str) -> String {
    wait_for(c, css).await.text().await.unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_line_and_answer_follow_the_worker() {
    let port = serve(dist());
    let (c, _driver) = browser(1280, 2400).await;
    for (lang, head, title) in
        [("en", "API: ", "Rent a GPU or call an API?"), ("zh", "API：", "租 GPU 还是调用 API？")]
    {
        c.goto(&format!("http://127.0.0.1:{port}/?model=llama-3.1-8b&lang={lang}")).await.expect("goto");
        wait_for(&c, "[data-testid=export]").await;
        c.execute("document.querySelector('[data-testid=export]').scrollIntoView()", vec![])
            .await
            .expect("scroll");
        let line = shown(&c, "[data-testid=api-line]").await;
        assert!(line.starts_with(head) && line.contains("https://github.com/"), "{line}");
        let faq = shown(&c, "[data-testid=guidance] [data-rule=api] h3").await;
        assert_eq!(faq, title);
    }
    // No price: no line (the launch texts are in, so the reply came).
    c.goto(&format!("http://127.0.0.1:{port}/?model=gpt-2-124m&lang=en")).await.expect("goto");
    wait_for(&c, "[data-testid=export]").await;
    c.execute("document.querySelector('[data-testid=export]').scrollIntoView()", vec![])
        .await
        .expect("scroll");
    wait_for(&c, "[data-testid=text-command-pick]").await;
    let none = c
        .execute("return document.querySelectorAll('[data-testid=api-line], [data-rule=api]').length", vec![])
        .await
        .expect("count");
    assert_eq!(none.as_u64(), Some(0));
    let _ = c.close().await;
}

/// Your measurement on the page: `measured` stays in the address, the
/// pick's speed is the measured one, and the notice names the key; a bad
/// value gets a notice naming its key and leaves the estimate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn measured_follows_the_link() {
    let port = serve(dist());
    let (c, _driver) = browser(1280, 2000).await;
    let base = format!("http://127.0.0.1:{port}/?lang=en&model=llama-3.1-8b&gpu=a100-pcie-40gb");
    c.goto(&base).await.expect("goto");
    let estimate = shown(&c, "[data-testid=pick-speed]").await;
    c.goto(&format!("{base}&measured=28")).await.expect("goto");
    assert_eq!(shown(&c, "[data-testid=pick-speed]").await, "28.0 tok/s", "the estimate was {estimate}");
    let notice = shown(&c, "[data-testid=notice]").await;
    assert!(notice.contains("measured") && notice.contains("×0.50"), "{notice}");
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert!(c.current_url().await.expect("url").as_str().contains("measured=28"));
    c.goto(&format!("{base}&measured=fast")).await.expect("goto");
    let notice = shown(&c, "[data-testid=notice]").await;
    assert!(notice.contains("measured") && notice.contains("fast"), "{notice}");
    assert_eq!(shown(&c, "[data-testid=pick-speed]").await, estimate);
    let _ = c.close().await;
}
