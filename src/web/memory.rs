//! The memory card: the total with its spread, and the breakdown chart.

use yew::prelude::*;

use super::charts::d1;
use super::format::gib;
use super::svg;
use crate::core::answer::MemoryJson;
use crate::core::config::Lang;
use crate::core::messages::ui;
use crate::core::units::GIB;

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
                    { format!(
                          " ({} – {}) · {} {} {}× {}",
                          gib(m.total_bytes_low),
                          gib(m.total_bytes_high),
                          t("ui.memory.on"),
                          "",
                          m.gpus,
                          m.gpu
                      ) }
                </small>
            </p>
            <MemoryBar memory={m.clone()} usable_bytes={usable} lang={lang} />
            <p><small>{ format!("{}: {}", t("ui.memory.reserved"), gib(m.reserved_bytes)) }</small></p>
        </section>
    }
}

#[derive(Properties, PartialEq)]
pub struct MemoryProps {
    pub memory: MemoryJson,
    /// What the GPUs leave for the job (the pick's usable bytes × GPUs), marked on the bar.
    #[prop_or_default]
    pub usable_bytes: Option<f64>,
    pub lang: Lang,
}

#[function_component(MemoryBar)]
pub fn memory_bar(p: &MemoryProps) -> Html {
    let m = &p.memory;
    let lang = p.lang;
    // Training shows its gradients and optimizer states; serving its KV cache.
    let training = m.gradients_bytes > 0.0 || m.optimizer_bytes > 0.0;
    let parts: Vec<(&'static str, f64, &'static str)> = if training {
        vec![
            ("ui.memory.weights", m.weights_bytes, "var(--c1)"),
            ("ui.memory.grad", m.gradients_bytes, "var(--c2)"),
            ("ui.memory.optim", m.optimizer_bytes, "var(--c5)"),
            ("ui.memory.act", m.activations_bytes, "var(--c3)"),
            ("ui.memory.overhead", m.overhead_bytes, "var(--c4)"),
        ]
    } else {
        vec![
            ("ui.memory.weights", m.weights_bytes, "var(--c1)"),
            ("ui.memory.kv", m.kv_cache_bytes, "var(--c2)"),
            ("ui.memory.act", m.activations_bytes, "var(--c3)"),
            ("ui.memory.overhead", m.overhead_bytes, "var(--c4)"),
        ]
    };
    let scale = m.total_bytes.max(m.capacity_bytes).max(1.0);
    let width = 600.0;
    let mut x = 0.0;
    let desc = parts
        .iter()
        .map(|(k, v, _)| format!("{} {:.1} GiB", ui(k, lang), v / GIB))
        .collect::<Vec<_>>()
        .join(", ");
    // The usable capacity is the mark the breakdown must stay under; the
    // raw capacity closes the bar when the two differ.
    let usable =
        p.usable_bytes.filter(|u| *u > 0.0 && *u <= m.capacity_bytes * 1.001).unwrap_or(m.capacity_bytes);
    let cap_x = m.capacity_bytes / scale * width;
    let use_x = usable / scale * width;
    let use_label = format!("{} {:.1} GiB", ui("ui.memory.usable", lang), usable / GIB);
    let cap_label = format!("{} {:.0} GiB", ui("ui.memory.capacity", lang), m.capacity_bytes / GIB);
    html! {
        <figure data-testid="memory-chart">
            <svg
                viewBox="0 0 600 76"
                role="img"
                aria-labelledby="mem-title \
                mem-desc"
                width="100%"
                class="chart"
            >
                <title id="mem-title">{ ui("ui.memory", lang) }</title>
                <desc id="mem-desc">{ format!("{desc}; {use_label}; {cap_label}") }</desc>
                <rect x="0" y="10" width={d1(cap_x)} height="30" fill="none" stroke="var(--muted)" />
                { for parts.iter().map(|(_, v, color)| {
                    let w = v / scale * width;
                    let rect = html! {
                        <rect x={d1(x)} y="10" width={d1(w.max(0.0))} height="30" fill={*color} />
                    };
                    x += w;
                    rect
                }) }
                <line
                    x1={d1(use_x)}
                    x2={d1(use_x)}
                    y1="2"
                    y2="48"
                    stroke="var(--fg)"
                    stroke-width="2"
                    stroke-dasharray="4 3"
                    data-testid="memory-usable"
                    data-bytes={format!("{usable:.0}")}
                />
                { svg::text(
                      d1(use_x.clamp(4.0, 596.0)).into(),
                      "64".into(),
                      if use_x > 300.0 { "end" } else { "start" },
                      "13",
                      None,
                      if (usable - m.capacity_bytes).abs() > 1.0 {
                          format!("{use_label} ({cap_label})")
                      } else {
                          cap_label.clone()
                      },
                  ) }
            </svg>
            <figcaption class="legend">
                { for parts.iter().map(|(k, v, color)| {
                          svg::legend(
                              None,
                              format!("background:{color}").into(),
                              format!("{} {:.1} GiB", ui(k, lang), v / GIB),
                          )
                      }) }
            </figcaption>
        </figure>
    }
}
