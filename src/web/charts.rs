//! Inline SVG pictures: cost vs speed with the Pareto front, tick values on both axes, a legend
//! and the pick and alternatives labelled. Colours come from CSS variables
//! so both themes stay readable; each picture has a text alternative and
//! every point an accessible name.

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::chart_axes::{fitting_ticks, linear_ticks, log_ticks, money_tick, place_labels, text_width};
use super::chart_tip::{tip_handlers, Spots, TipHandlers};
use super::svg;

use super::format::{in_currency, money, num, RenderUi};
use crate::core::answer::Answer;
use crate::core::config::Lang;
use crate::core::config::Task;
use crate::core::messages::{ui, Msg};
use crate::core::order::{sort_by, sort_indices};

/// The scatter's drawing width for the width its box has on screen: the
/// box itself, from 300 to 600 units in steps of 20 (so a resize by a few
/// pixels draws nothing new); wider boxes scale the 600-unit drawing up.
fn chart_width(px: f64) -> f64 {
    (px.clamp(300.0, 600.0) / 20.0).floor() * 20.0
}

#[derive(Properties, PartialEq)]
pub struct ScatterProps {
    pub answer: Rc<Answer>,
    pub lang: Lang,
}

/// One offer on the chart.
struct Point<'a> {
    cost: f64,
    speed: f64,
    id: &'a str,
    gpus: String,
}

#[function_component(Scatter)]
pub fn scatter(p: &ScatterProps) -> Html {
    // The highlighted point: one small state, so the drawing stays a few nodes and one path.
    let lit = use_state(|| None::<(String, bool)>);
    let chart_box = use_node_ref();
    let a = &p.answer;
    let lang = p.lang;
    // The drawing follows its box's width, so that text keeps its size on
    // a phone instead of shrinking with the picture.
    let fig = use_node_ref();
    let width = use_state_eq(|| 600.0_f64);
    {
        let (fig, width) = (fig.clone(), width.clone());
        use_effect_with((), move |_| {
            let observer = fig.cast::<web_sys::Element>().and_then(|el| {
                width.set(chart_width(f64::from(el.client_width())));
                let on_resize = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                    if let Ok(e) = entries.get(0).dyn_into::<web_sys::ResizeObserverEntry>() {
                        let px = f64::from(e.target().client_width());
                        if px > 0.0 {
                            width.set(chart_width(px));
                        }
                    }
                });
                let observer = web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok()?;
                observer.observe(&el);
                Some((observer, on_resize))
            });
            move || {
                if let Some((observer, _on_resize)) = observer {
                    observer.disconnect();
                }
            }
        });
    }
    let pts: Vec<Point> = a
        .offers
        .iter()
        .filter(|o| o.fits && o.usd_per_month > 0.0 && o.speed_score > 0.0)
        .map(|o| Point {
            cost: o.usd_per_job.unwrap_or(o.usd_per_month),
            speed: o.speed_score,
            id: &o.id,
            gpus: format!("{}× {}", o.gpus, o.gpu),
        })
        .collect();
    if pts.is_empty() {
        // Offers fit but none has a speed (image fine-tuning bills a run length).
        let key = if a.offers.iter().any(|o| o.fits) { "ui.scatter.nospeed" } else { "ui.none" };
        return html! { <p ref={fig}>{ ui(key, lang) }</p> };
    }
    let pick = a.recommendation.as_ref().map(|r| &*r.pick.offer);
    let alts: Vec<(&str, &'static str)> = a
        .recommendation
        .iter()
        .flat_map(|r| r.alternatives.iter())
        .map(|alt| (&*alt.offer, alt.why_key()))
        .collect();
    let role_of = |id: &str| {
        if Some(id) == pick {
            Some("ui.scatter.pick")
        } else {
            alts.iter().find(|(o, _)| *o == id).map(|(_, k)| *k)
        }
    };
    // The axes say what the points are, with units: cost per job where the
    // task has jobs (else per month), and the task's own speed.
    let x_key = if a.offers.iter().any(|o| o.usd_per_job.is_some()) { "ui.col.job" } else { "ui.col.month" };
    let y_key = match a.task {
        Task::Finetune | Task::Pretrain => "ui.col.train",
        Task::Generate => "ui.col.items",
        Task::Serve => "ui.col.speed",
    };
    let w = *width;
    let (h, left, right, top, bottom) = ((w * 0.5).max(260.0), 58.0, 20.0, 14.0, 46.0);
    // Costs are US dollars; the axis and its ticks are in the display
    // currency (`k` display units per dollar), so ticks fall on its decades.
    let k = a.display.amount(1.0);
    let (lo, hi, xticks) = log_ticks(
        pts.iter().map(|p| p.cost * k).fold(f64::MAX, f64::min),
        pts.iter().map(|p| p.cost * k).fold(0.0, f64::max),
    );
    let (ymax, yticks, ydigits) = linear_ticks(pts.iter().map(|p| p.speed).fold(0.0, f64::max));
    let sx = |c: f64| left + ((c * k).ln() - lo.ln()) / (hi.ln() - lo.ln()).max(1e-9) * (w - left - right);
    let sy = |s: f64| h - bottom - s / ymax * (h - top - bottom);
    // Pareto front: no other offer is both cheaper and faster.
    let mut order: Vec<usize> = (0..pts.len()).collect();
    sort_indices(&mut order, &|i, j| {
        pts.get(i).map(|p| p.cost).unwrap_or(0.0).total_cmp(&pts.get(j).map(|p| p.cost).unwrap_or(0.0))
    });
    let mut front: Vec<&Point> = Vec::new();
    let mut best = -1.0;
    for p in order.iter().filter_map(|&i| pts.get(i)) {
        if p.speed > best {
            best = p.speed;
            front.push(p);
        }
    }
    let on_front = |id: &str| front.iter().any(|f| f.id == id);
    let name = |p: &Point| {
        format!(
            "{}, {}: {}, {} {}",
            p.id,
            p.gpus,
            money(p.cost, &a.display, lang),
            num(p.speed, 1),
            ui(y_key, lang)
        )
    };
    // Offers off the front, neither pick nor alternative: one path of dots
    // (zero-length segments with round caps), one DOM node to update
    // instead of a hundred and more; its name summarises them.
    let others: Vec<&Point> = pts.iter().filter(|p| !on_front(p.id) && role_of(p.id).is_none()).collect();
    let dots: String = others.iter().map(|p| format!("M{:.1} {:.1}h0", sx(p.cost), sy(p.speed))).collect();
    let others_name = match (
        others.iter().map(|p| p.cost).reduce(f64::min),
        others.iter().map(|p| p.cost).reduce(f64::max),
    ) {
        (Some(l), Some(u)) => Msg::new("ui.scatter.others")
            .num("n", others.len() as f64, 0)
            .arg("lo", money(l, &a.display, lang))
            .arg("hi", money(u, &a.display, lang))
            .render_ui(lang),
        _ => String::new(),
    };
    let path =
        front.iter().map(|p| format!("{:.1},{:.1}", sx(p.cost), sy(p.speed))).collect::<Vec<_>>().join(" ");
    let mut marked: Vec<(&Point, Option<&'static str>)> = pts
        .iter()
        .filter(|p| on_front(p.id) || role_of(p.id).is_some())
        .map(|p| (p, role_of(p.id)))
        .collect();
    // The pick last, so it is drawn on top.
    sort_by(&mut marked, &|(p, r), (q, s)| {
        (r.is_some(), Some(p.id) == pick).cmp(&(s.is_some(), Some(q.id) == pick))
    });
    // Labels placed pick first, then the alternatives, clear of each other
    // and of the marked points.
    let radius = |p: &Point, role: Option<&str>| {
        if Some(p.id) == pick {
            7.0
        } else if role.is_some() {
            5.5
        } else {
            4.0
        }
    };
    let mut labelled: Vec<(usize, f64, f64, f64, f64)> = marked
        .iter()
        .enumerate()
        .filter_map(|(i, (p, role))| {
            role.map(|k| {
                (
                    i,
                    sx(p.cost),
                    sy(p.speed),
                    radius(p, *role),
                    text_width(ui(k, lang), 12.0) * if Some(p.id) == pick { 1.08 } else { 1.0 },
                )
            })
        })
        .collect();
    sort_by(&mut labelled, &|(i, ..), (j, ..)| j.cmp(i));
    let unlabelled: Vec<(f64, f64, f64, f64)> = marked
        .iter()
        .filter(|(_, role)| role.is_none())
        .map(|(p, role)| (sx(p.cost), sy(p.speed), radius(p, *role), 0.0))
        .collect();
    let spots = place_labels(
        &labelled.iter().map(|&(_, x, y, r, lw)| (x, y, r, lw)).chain(unlabelled).collect::<Vec<_>>(),
        12.0,
        (left + 2.0, 0.0, w - 2.0, h - bottom + 6.0),
        // Never into the x tick values' row below the plot.
        (0.0, 0.0, w, h - bottom + 6.0),
    );
    let spot_of = |i: usize| labelled.iter().position(|l| l.0 == i).and_then(|k| spots.get(k)).copied();
    // Tick values that fit side by side (a phone keeps the decades).
    let x_labels: Vec<String> = xticks.iter().map(|&v| money_tick(v, a.display.symbol())).collect();
    let keep_x = fitting_ticks(
        &xticks
            .iter()
            .zip(&x_labels)
            .map(|(&v, l)| (sx(v / k), text_width(l, 12.0), (v.log10() - v.log10().round()).abs() < 1e-9))
            .collect::<Vec<_>>(),
        8.0,
    );
    let y_label = ui(y_key, lang);
    let desc = format!(
        "{} {} {}",
        ui("ui.scatter.alt", lang),
        front.iter().map(|p| name(p)).collect::<Vec<_>>().join("; "),
        ui("ui.scatter.keys", lang)
    );
    let full_name = |p: &Point| match role_of(p.id) {
        Some(k) => format!("{}: {}", ui(k, lang), name(p)),
        None if on_front(p.id) => format!("{}: {}", ui("ui.scatter.front", lang), name(p)),
        None => name(p),
    };
    // Every point in x order (cheapest first), for the pointer and the arrow keys.
    let xs: Spots = Rc::new(
        order
            .iter()
            .filter_map(|&i| pts.get(i))
            .map(|p| (sx(p.cost), sy(p.speed), p.id.to_string()))
            .collect(),
    );
    let cur = lit.as_ref().and_then(|(id, kb)| {
        let (x, y, _) = xs.iter().find(|(_, _, i)| i == id)?;
        let p = pts.iter().find(|p| p.id == id)?;
        Some((*x, *y, id.clone(), full_name(p), *kb))
    });
    let TipHandlers { onkeydown, onpointermove, onpointerleave, onblur } =
        tip_handlers(&lit, &xs, &chart_box, w, h);
    html! {
        <figure data-testid="scatter" ref={fig}>
            <div class="chart-box" ref={chart_box} {onpointermove} {onpointerleave}>
                <svg
                    viewBox={format!("0 0 {w} \
                {h}")}
                    role="group"
                    aria-labelledby="sc-title"
                    aria-describedby="sc-desc"
                    width="100%"
                    data-testid="cost-chart"
                    class="chart"
                    tabindex="0"
                    {onkeydown}
                    {onblur}
                >
                    <title id="sc-title">{ ui("ui.scatter", lang) }</title>
                    <desc id="sc-desc">{ desc }</desc>
                    <g aria-hidden="true">
                        { for xticks.iter().zip(&x_labels).zip(&keep_x).map(|((&v, label), &shown)| {
                          let x = sx(v / k);
                          html! {
                        <g class="tick-x" data-value={v.to_string()}>
                            { svg::line(
                                  d1(x).into(),
                                  top.to_string().into(),
                                  d1(x).into(),
                                  (h - bottom).to_string().into(),
                                  "var(--line)",
                              ) }
                            if shown {
                                { svg::text(
                                      d1(x).into(),
                                      (h - bottom + 20.0).to_string().into(),
                                      "middle",
                                      "12",
                                      None,
                                      label.clone(),
                                  ) }
                            }
                        </g>
                    } }) }
                        { for yticks.iter().map(|&v| { let y = sy(v); html! {
                        <g class="tick-y" data-value={v.to_string()}>
                            { svg::line(
                                  left.to_string().into(),
                                  d1(y).into(),
                                  (w - right).to_string().into(),
                                  d1(y).into(),
                                  "var(--line)",
                              ) }
                            { svg::text(
                                  (left - 5.0).to_string().into(),
                                  d1(y + 4.0).into(),
                                  "end",
                                  "12",
                                  None,
                                  num(v, ydigits),
                              ) }
                        </g>
                    } }) }
                        { svg::line(
                              left.to_string().into(),
                              (h - bottom).to_string().into(),
                              (w - right).to_string().into(),
                              (h - bottom).to_string().into(),
                              "var(--muted)",
                          ) }
                        { svg::line(
                              left.to_string().into(),
                              top.to_string().into(),
                              left.to_string().into(),
                              (h - bottom).to_string().into(),
                              "var(--muted)",
                          ) }
                        { svg::text(
                              ((w + left - right) / 2.0).to_string().into(),
                              (h - 8.0).to_string().into(),
                              "middle",
                              "13",
                              None,
                              format!(
                                  "{} ({})",
                                  in_currency(ui(x_key, lang), &a.display),
                                  ui("ui.scatter.log", lang)
                              ),
                          ) }
                        { svg::text(
                              "13".into(),
                              ((h - bottom + top) / 2.0).to_string().into(),
                              "middle",
                              "13",
                              Some(format!("rotate(-90 13 {})", (h - bottom + top) / 2.0).into()),
                              y_label.to_string(),
                          ) }
                        <polyline points={path} fill="none" stroke="var(--c2)" stroke-width="2" />
                    </g>
                    if !others.is_empty() {
                        <path
                            class="pt dots"
                            d={dots}
                            fill="none"
                            stroke="var(--c1)"
                            stroke-opacity="0.55"
                            stroke-width="7"
                            stroke-linecap="round"
                            role="img"
                            aria-label={others_name.clone()}
                        >
                            <title>{ others_name }</title>
                        </path>
                    }
                    { for marked.iter().enumerate().map(|(i, (p, role))| {
                    let (x, y) = (sx(p.cost), sy(p.speed));
                    let is_pick = Some(p.id) == pick;
                    let label = role.map(|k| ui(k, lang));
                    let full = match label { Some(l) => format!("{l}: {}", name(p)), None => format!("{}: \
                        {}", ui("ui.scatter.front", lang), name(p)) };
                    let r = radius(p, *role).to_string();
                    let fill = if is_pick {
                        "var(--accent)"
                    } else if role.is_some() {
                        "var(--c4)"
                    } else {
                        "var(--c2)"
                    };
                    html! { <g>
                        <circle class="pt" cx={d1(x)} cy={d1(y)} {r} fill={fill} stroke="var(--fg)"
                            stroke-width={ if is_pick { "1.5" } else { "0.75" } }
                            role="img" aria-label={full} data-offer={p.id.to_string()} />
                        if let (Some(l), Some((lx, ly, anchor @ ("start" | "middle" | "end"))))
                            = (label, spot_of(i)) {
                            <text class="pt-label" x={d1(lx)} y={d1(ly)} text-anchor={anchor} fill="var(--fg)"
                                font-size="12" font-weight={ if is_pick { "700" } else { "400" } }
                                stroke="var(--card)" stroke-width="3" paint-order="stroke" aria-hidden="true">
                                { l }
                            </text>
                        }
                    </g> }
                }) }
                    if let Some((x, y, _, _, _)) = &cur {
                        <circle
                            class="pt-hi"
                            cx={d1(*x)}
                            cy={d1(*y)}
                            r="10"
                            fill="none"
                            stroke="var(--accent)"
                            stroke-width="3"
                            aria-hidden="true"
                            pointer-events="none"
                        />
                    }
                </svg>
                if let Some((x, y, id, text, _)) = &cur {
                    // In percent of the box, which the SVG fills; to the left of points in the right half.
                    <div
                        class={classes!("chart-tip", (*x > w / 2.0).then_some("flip"))}
                        data-testid="cost-tip"
                        data-offer={id.clone()}
                        aria-hidden="true"
                        style={format!("left:{:.2}%;top:{:.2}%", x / w * 100.0, y / h * 100.0)}
                    >
                        { text.clone() }
                    </div>
                }
            </div>
            <p class="sr-only" aria-live="polite" data-testid="cost-live">
                { cur.as_ref().filter(|c| c.4).map(|c| c.3.clone()).unwrap_or_default() }
            </p>
            <figcaption class="legend" data-testid="cost-legend">
                { svg::legend(
                      Some("dot"),
                      "background:var(--accent)".into(),
                      ui("ui.scatter.pick", lang).to_string(),
                  ) }
                { svg::legend(
                      Some("dot"),
                      "background:var(--c4)".into(),
                      ui("ui.scatter.alts", lang).to_string(),
                  ) }
                { svg::legend(
                      Some("line"),
                      "background:var(--c2)".into(),
                      ui("ui.scatter.front", lang).to_string(),
                  ) }
                { svg::legend(
                      Some("dot"),
                      "background:var(--c1)".into(),
                      ui("ui.scatter.other", lang).to_string(),
                  ) }
            </figcaption>
        </figure>
    }
}

/// A coordinate with one decimal, as the charts write them (one copy of the
/// formatting code for every attribute that needs it).
#[inline(never)]
pub(super) fn d1(v: f64) -> String {
    format!("{v:.1}")
}
