//! Sorting through one compiled copy of the standard library's stable sort.
//!
//! Each `sort_by` with its own closure or element type compiles a copy of
//! the sort (2–4 KB of Wasm each). The core and the page sort a handful of
//! small lists, so they all sort indices with a comparator behind a `&dyn`
//! reference: one copy in the build. The order is that of `sort_by` on the
//! elements themselves (stable: equal elements keep their order).

use std::cmp::Ordering;

/// Sorts `order` (indices) stably by `cmp`.
pub fn sort_indices(order: &mut [usize], cmp: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&i, &j| cmp(i, j));
}

/// Sorts `items` stably by `cmp`, as `items.sort_by(cmp)` does.
pub fn sort_by<T>(items: &mut Vec<T>, cmp: &dyn Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    sort_indices(&mut order, &|i, j| match (items.get(i), items.get(j)) {
        (Some(a), Some(b)) => cmp(a, b),
        _ => i.cmp(&j),
    });
    let mut slots: Vec<Option<T>> = std::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.into_iter().filter_map(|i| slots.get_mut(i).and_then(Option::take)));
}
