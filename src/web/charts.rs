//! Inline SVG pictures: the memory breakdown against the GPU capacity, and
//! cost vs speed with the Pareto front. Colours come from CSS variables so
//! both themes stay readable; each picture has a text alternative.

use std::rc::Rc;

use yew::prelude::*;

use super::format::{num, usd};
use crate::core::answer::{Answer, MemoryJson};
use crate::core::config::Lang;
use crate::core::messages::ui;
use crate::core::units::GIB;

#[derive(Properties, PartialEq)]
pub struct MemoryProps {
    pub memory: MemoryJson,
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
    let desc = parts.iter().map(|(k, v, _)| format!("{} {:.1} GiB", ui(k, lang), v / GIB)).collect::<Vec<_>>().join(", ");
    let cap_x = m.capacity_bytes / scale * width;
    html! {
        <figure data-testid="memory-chart">
            <svg viewBox="0 0 600 70" role="img" aria-labelledby="mem-title mem-desc" width="100%">
                <title id="mem-title">{ ui("ui.memory", lang) }</title>
                <desc id="mem-desc">{ format!("{desc}; {} {:.1} GiB", ui("ui.memory.capacity", lang), m.capacity_bytes / GIB) }</desc>
                { for parts.iter().map(|(_, v, color)| {
                    let w = v / scale * width;
                    let rect = html! { <rect x={format!("{x:.1}")} y="10" width={format!("{:.1}", w.max(0.0))} height="30" fill={*color} /> };
                    x += w;
                    rect
                }) }
                <line x1={format!("{cap_x:.1}")} x2={format!("{cap_x:.1}")} y1="4" y2="46" stroke="var(--fg)" stroke-width="2" stroke-dasharray="4 3" />
                <text x={format!("{:.1}", cap_x.min(590.0))} y="62" text-anchor="end" fill="var(--fg)" font-size="12">{ format!("{} {:.0} GiB", ui("ui.memory.capacity", lang), m.capacity_bytes / GIB) }</text>
            </svg>
            <figcaption class="legend">
                { for parts.iter().map(|(k, v, color)| html! { <span><i style={format!("background:{color}")}></i>{ format!("{} {:.1} GiB", ui(k, lang), v / GIB) }</span> }) }
            </figcaption>
        </figure>
    }
}

#[derive(Properties, PartialEq)]
pub struct ScatterProps {
    pub answer: Rc<Answer>,
    pub lang: Lang,
}

#[function_component(Scatter)]
pub fn scatter(p: &ScatterProps) -> Html {
    let a = &p.answer;
    let lang = p.lang;
    let pts: Vec<(f64, f64, &str)> = a
        .offers
        .iter()
        .filter(|o| o.fits && o.usd_per_month > 0.0)
        .filter(|o| o.speed_score > 0.0)
        .map(|o| (o.usd_per_job.unwrap_or(o.usd_per_month), o.speed_score, &*o.id))
        .collect();
    if pts.is_empty() {
        // Offers fit but none has a speed (image fine-tuning bills a run length).
        let key = if a.offers.iter().any(|o| o.fits) { "ui.scatter.nospeed" } else { "ui.none" };
        return html! { <p>{ ui(key, lang) }</p> };
    }
    let pick = a.recommendation.as_ref().map(|r| &*r.pick.offer);
    // The axes say what the points are: cost per job where the task has
    // jobs, and the task's own speed.
    let x_key = if a.offers.iter().any(|o| o.usd_per_job.is_some()) { "ui.col.job" } else { "ui.col.month" };
    let y_key = match a.task {
        crate::core::config::Task::Finetune | crate::core::config::Task::Pretrain => "ui.col.train",
        crate::core::config::Task::Generate => "ui.col.items",
        crate::core::config::Task::Serve => "ui.col.speed",
    };
    let (w, h, pad) = (600.0, 260.0, 40.0);
    let max_cost = pts.iter().map(|p| p.0).fold(1.0, f64::max).ln();
    let min_cost = pts.iter().map(|p| p.0).fold(f64::MAX, f64::min).ln();
    let max_speed = pts.iter().map(|p| p.1).fold(1.0, f64::max);
    let sx = |c: f64| pad + (c.ln() - min_cost) / (max_cost - min_cost).max(1e-9) * (w - 2.0 * pad);
    let sy = |s: f64| h - pad - s / max_speed * (h - 2.0 * pad);
    // Pareto front: no other offer is both cheaper and faster.
    let mut sorted = pts.clone();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut front = Vec::new();
    let mut best = -1.0;
    for p in &sorted {
        if p.1 > best {
            best = p.1;
            front.push(*p);
        }
    }
    let dots: String = pts.iter().map(|p| format!("M{:.1} {:.1}h0", sx(p.0), sy(p.1))).collect();
    let path = front.iter().map(|p| format!("{:.1},{:.1}", sx(p.0), sy(p.1))).collect::<Vec<_>>().join(" ");
    html! {
        <figure data-testid="scatter">
            <svg viewBox="0 0 600 260" role="img" aria-labelledby="sc-title sc-desc" width="100%">
                <title id="sc-title">{ ui("ui.scatter", lang) }</title>
                <desc id="sc-desc">{ format!("{} {}", ui("ui.scatter.alt", lang), front.iter().map(|p| format!("{}: {} , {} tok/s", p.2, usd(p.0, lang), num(p.1, 1))).collect::<Vec<_>>().join("; ")) }</desc>
                <line x1={pad.to_string()} y1={(h - pad).to_string()} x2={(w - pad).to_string()} y2={(h - pad).to_string()} stroke="var(--muted)" />
                <line x1={pad.to_string()} y1={pad.to_string()} x2={pad.to_string()} y2={(h - pad).to_string()} stroke="var(--muted)" />
                <text x={(w / 2.0).to_string()} y={(h - 8.0).to_string()} text-anchor="middle" fill="var(--fg)" font-size="12">{ format!("{} (log)", ui(x_key, lang)) }</text>
                <text x="12" y={(h / 2.0).to_string()} transform={format!("rotate(-90 12 {})", h / 2.0)} text-anchor="middle" fill="var(--fg)" font-size="12">{ ui(y_key, lang) }</text>
                <polyline points={path} fill="none" stroke="var(--c2)" stroke-width="2" />
                // Offers off the front are one path of dots (zero-length
                // segments with round caps): one DOM node to update instead
                // of a hundred and more.
                <path d={dots} fill="none" stroke="var(--c1)" stroke-width="7" stroke-linecap="round" />
                // The Pareto front and the recommendation are circles with a
                // tooltip (the front is also in the text alternative).
                { for pts.iter().filter(|p| Some(p.2) == pick || front.iter().any(|f| f.2 == p.2)).map(|p| {
                    let is_pick = Some(p.2) == pick;
                    html! { <circle cx={format!("{:.1}", sx(p.0))} cy={format!("{:.1}", sy(p.1))} r={ if is_pick { "7" } else { "4" } }
                        fill={ if is_pick { "var(--accent)" } else { "var(--c1)" } } stroke="var(--fg)" stroke-width={ if is_pick { "1.5" } else { "0.5" } }>
                        <title>{ format!("{}: {} / {} tok/s", p.2, usd(p.0, lang), num(p.1, 1)) }</title>
                        </circle> }
                }) }
            </svg>
        </figure>
    }
}
