//! The cost chart's one live tooltip: which point is highlighted (one small
//! state, an offer id and whether the keyboard chose it) and the handlers
//! that move it — the pointer picks the nearest point, the arrow keys step
//! through the points in x order, Escape clears.

use std::rc::Rc;

use yew::prelude::*;

/// The highlighted offer and whether the keyboard chose it.
pub type Lit = UseStateHandle<Option<(String, bool)>>;

/// Every point in x order: chart x, chart y, offer id.
pub type Spots = Rc<Vec<(f64, f64, String)>>;

pub struct TipHandlers {
    pub onkeydown: Callback<KeyboardEvent>,
    pub onpointermove: Callback<PointerEvent>,
    pub onpointerleave: Callback<PointerEvent>,
    pub onblur: Callback<FocusEvent>,
}

/// The handlers for a chart `w` × `h` in chart units drawn in `chart_box`.
pub fn tip_handlers(lit: &Lit, xs: &Spots, chart_box: &NodeRef, w: f64, h: f64) -> TipHandlers {
    let onkeydown = {
        let (lit, xs) = (lit.clone(), xs.clone());
        Callback::from(move |e: KeyboardEvent| {
            let last = xs.len().saturating_sub(1);
            let at = lit.as_ref().and_then(|(id, _)| xs.iter().position(|(_, _, i)| i == id));
            let next = match e.key().as_str() {
                "ArrowRight" | "ArrowUp" => at.map_or(0, |i| (i + 1).min(last)),
                "ArrowLeft" | "ArrowDown" => at.map_or(last, |i| i.saturating_sub(1)),
                "Home" => 0,
                "End" => last,
                "Escape" => {
                    if lit.is_some() {
                        e.prevent_default();
                        lit.set(None);
                    }
                    return;
                }
                _ => return,
            };
            e.prevent_default();
            if let Some((_, _, id)) = xs.get(next) {
                lit.set(Some((id.clone(), true)));
            }
        })
    };
    let onpointermove = {
        // Yew delegates events, so `current_target` is its root, not the chart: measure the box itself.
        let (lit, xs, chart_box) = (lit.clone(), xs.clone(), chart_box.clone());
        Callback::from(move |e: PointerEvent| {
            let Some(el) = chart_box.cast::<web_sys::Element>() else { return };
            let r = el.get_bounding_client_rect();
            // The viewBox is scaled to fit and centred (preserveAspectRatio's default).
            let k = (r.width() / w).min(r.height() / h);
            if k <= 0.0 {
                return;
            }
            let vx = (f64::from(e.client_x()) - r.left() - (r.width() - w * k) / 2.0) / k;
            let vy = (f64::from(e.client_y()) - r.top() - (r.height() - h * k) / 2.0) / k;
            let near = xs
                .iter()
                .map(|(x, y, id)| ((x - vx).powi(2) + (y - vy).powi(2), id))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match near {
                // Within 40 chart units of a point.
                Some((d, id)) if d <= 1600.0 => {
                    if lit.as_ref().map(|(i, _)| i) != Some(id) {
                        lit.set(Some((id.clone(), false)));
                    }
                }
                _ => {
                    if matches!(*lit, Some((_, false))) {
                        lit.set(None);
                    }
                }
            }
        })
    };
    let onpointerleave = {
        let lit = lit.clone();
        Callback::from(move |_: PointerEvent| {
            if matches!(*lit, Some((_, false))) {
                lit.set(None);
            }
        })
    };
    let onblur = {
        let lit = lit.clone();
        Callback::from(move |_: FocusEvent| {
            if matches!(*lit, Some((_, true))) {
                lit.set(None);
            }
        })
    };
    TipHandlers { onkeydown, onpointermove, onpointerleave, onblur }
}
