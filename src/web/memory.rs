//! The memory card: the total with its spread, and the breakdown chart.

use yew::prelude::*;

use super::charts::MemoryBar;
use super::format::gib;
use crate::core::answer::MemoryJson;
use crate::core::config::Lang;
use crate::core::messages::ui;

/// `usable`: the pick's usable bytes × GPUs, the mark on the bar.
pub fn memory(m: &MemoryJson, usable: Option<f64>, lang: Lang) -> Html {
    let t = |k: &'static str| ui(k, lang);
    html! {
        <section class="card" aria-labelledby="h-mem">
            <h2 id="h-mem">{ t("ui.memory") }</h2>
            <p class="big">
                <span data-testid="memory-total" data-bytes={format!("{:.0}", m.total_bytes)}>
                    { gib(m.total_bytes) }
                </span>
                <small>
                    { format!(" ({} – {}) · {} {} {}× \
                    {}", gib(m.total_bytes_low), gib(m.total_bytes_high), t("ui.memory.on"), "", m.gpus, m.gpu) }
                </small>
            </p>
            <MemoryBar memory={m.clone()} usable_bytes={usable} lang={lang} />
            <p><small>{ format!("{}: {}", t("ui.memory.reserved"), gib(m.reserved_bytes)) }</small></p>
        </section>
    }
}
