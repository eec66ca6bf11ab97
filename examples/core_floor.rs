//! The first answer's own code and data, with no page: issue 19's floor.
//!
//! Built for Wasm as a `cdylib` by `scripts/size-floor.sh`, this module links
//! what the page's first answer runs — the link decoder, the bundled
//! catalog, `evaluate_offers`, every recommendation, alternative, guidance,
//! notice and layout sentence rendered in English or Chinese, and the link
//! encoder — and nothing of Yew or the DOM (wasm-bindgen only for the one
//! export). Its gzip size is the least any page built on this core can
//! download for a first answer.
//!
//! The query arrives as a string through wasm-bindgen (the page's own
//! binding generator; its glue is counted by the page, not here).

use wasm_bindgen::prelude::wasm_bindgen;
use whichgpu::core::catalog::{Catalog, Date};
use whichgpu::core::config::Lang;
use whichgpu::core::evaluate::evaluate_offers;
use whichgpu::core::link;

/// Answers the query on the given day and returns the length of everything
/// the first answer shows as text (so none of it is dropped).
#[wasm_bindgen]
pub fn answer(query: &str, year: i32, month: u32, day: u32) -> u32 {
    let (cfg, notices) = link::decode(query);
    let lang = if query.contains("lang=zh") { Lang::Zh } else { Lang::En };
    let Ok(catalog) = Catalog::bundled() else { return 0 };
    let a = evaluate_offers(&cfg, notices, catalog, Date { year, month, day });
    let mut out = String::new();
    for n in &a.notices {
        out.push_str(&n.text(lang));
    }
    if let Some(r) = &a.recommendation {
        out.push_str(&r.pick.offer);
        for alt in std::iter::once(&r.pick).chain(&r.alternatives) {
            out.push_str(alt.why_key());
            for m in &alt.reason_msgs {
                out.push_str(&m.render(lang));
            }
        }
    }
    for g in &a.guidance {
        if let Some(t) = &g.title_msg {
            out.push_str(&t.render(lang));
        }
        out.push_str(&g.msg.render(lang));
    }
    for o in &a.offers {
        out.push_str(&o.layout_msg.render(lang));
        out.push_str(&format!("{} {} {:.2} {:.1}", o.id, o.gpus, o.headroom_bytes, o.need_bytes));
    }
    let m = &a.memory;
    out.push_str(&format!("{:.1} {:.1} {:.1}", m.weights_bytes, m.kv_cache_bytes, m.total_bytes));
    out.push_str(&link::encode(&cfg));
    out.len() as u32
}
