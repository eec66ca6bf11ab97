//! The order of the offers: tiers (meets everything on a current price,
//! meets otherwise, the rest), the objective with its near-ties broken by
//! cost, a sturdy offer preferred within a margin of a fragile cheapest one.

use super::super::answer::OfferResult;
use super::super::kinds::Objective;

/// Orders the offers: those that meet everything first, and among them
/// those whose price is current (dated within [`STALE_AFTER_DAYS`]) and in
/// the reader's reach before the rest — a price nobody has confirmed for
/// half a year may be gone, and a yuan price on a China-region platform
/// shown to a reader of dollars is a different market (`cur=cny` or
/// `lang=zh` ranks it on price alone); such offers are shown, marked, and
/// named as the cheapest alternative where they are, but not picked while
/// another offer meets everything (so too an offer on a thin memory margin,
/// [`super::thin_margin`], and one whose CPU memory offloaded training states need
/// is unpublished); then by the
/// objective; near-ties (within 5 %) of a speed objective are broken by
/// cost; then by monthly cost and id.
pub(super) fn rank(out: Vec<OfferResult>, objective: Objective, cost: Objective) -> Vec<OfferResult> {
    // Sort small keys, then move each result once: results are large.
    // The tier: 0 meets on a current price in reach, 1 meets otherwise, 2 the rest.
    let tier = |r: &OfferResult| {
        if !r.meets {
            2u8
        } else {
            u8::from(r.stale || r.foreign || r.thin || r.unverified)
        }
    };
    let keys: Vec<(u8, f64, f64, f64)> =
        out.iter().map(|r| (tier(r), objective.key(r), cost.key(r), r.usd_per_month)).collect();
    // The same keys as integers that order as `f64::total_cmp` does, worked
    // out once rather than in every comparison.
    let sort_keys: Vec<(u8, i64, i64, i64)> =
        keys.iter().map(|k| (k.0, total_order(k.1), total_order(k.2), total_order(k.3))).collect();
    let mut order: Vec<usize> = (0..out.len()).collect();
    // Ids are unique, so the order is total and a stable sort gives the same.
    super::super::order::sort_indices(&mut order, &|i, j| match (sort_keys.get(i), sort_keys.get(j)) {
        (Some(a), Some(b)) => {
            a.cmp(b).then_with(|| out.get(i).map(|r| &r.id).cmp(&out.get(j).map(|r| &r.id)))
        }
        _ => i.cmp(&j),
    });
    if !objective.is_cost() {
        // Runs of offers within 5 % of the run's best on the objective are
        // ordered by cost: a few percent of speed is not worth paying for.
        let mut start = 0;
        while start < order.len() {
            let first = order.get(start).and_then(|&i| keys.get(i)).copied();
            let end = match first {
                Some(f) => {
                    let within = |k: &(u8, f64, f64, f64)| {
                        k.0 == f.0 && (k.1 - f.1).abs() <= super::super::thresholds::NEAR_TIE * f.1.abs()
                    };
                    start
                        + order
                            .iter()
                            .skip(start)
                            .take_while(|&&i| keys.get(i).is_some_and(within))
                            .count()
                            .max(1)
                }
                None => start + 1,
            };
            if let Some(run) = order.get_mut(start..end) {
                super::super::order::sort_indices(run, &|i, j| match (sort_keys.get(i), sort_keys.get(j)) {
                    (Some(a), Some(b)) => (a.2, a.3).cmp(&(b.2, b.3)),
                    _ => i.cmp(&j),
                });
            }
            start = end;
        }
    } else {
        prefer_sturdy(&mut order, &out, &keys);
    }
    in_order(out, order)
}

/// How much more per unit of work a sturdy offer may cost and still be
/// picked over a fragile cheapest one: a quarter (issue 42).
pub const STURDY_MARGIN: f64 = 1.25;

/// On a cost ranking: where the cheapest offer that meets everything is
/// fragile ([`super::fragility`]) and a sturdy one of the same tier costs at most
/// [`STURDY_MARGIN`] times as much per unit, that one comes first (the
/// pick); the fragile one stays next in line, and the recommendation names
/// it as the cheapest alternative with what it saves and what it risks.
fn prefer_sturdy(order: &mut [usize], out: &[OfferResult], keys: &[(u8, f64, f64, f64)]) {
    let at = |k: usize| order.get(k).and_then(|&i| Some((out.get(i)?, keys.get(i)?)));
    let Some((first, fk)) = at(0) else { return };
    if fk.0 != 0 || !first.fragile || fk.1 >= f64::MAX {
        return;
    }
    let sturdy = (1..order.len())
        .find(|&k| at(k).is_some_and(|(r, rk)| rk.0 == 0 && !r.fragile && rk.1 <= STURDY_MARGIN * fk.1));
    if let Some(k) = sturdy {
        if let Some(run) = order.get_mut(..=k) {
            run.rotate_right(1);
        }
    }
}

/// An integer that orders as [`f64::total_cmp`] orders its float (the
/// same bit flip the standard library makes: negative values' magnitude
/// bits inverted).
fn total_order(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// The results in `order` (position k takes the result at `order[k]`),
/// rearranged in place by swaps along each cycle of the permutation:
/// results are large, and each is moved once or twice instead of into a
/// list of slots and out again.
fn in_order<T>(mut out: Vec<T>, mut order: Vec<usize>) -> Vec<T> {
    for start in 0..order.len() {
        let mut k = start;
        // A visited position is marked by pointing at itself.
        while let Some(next) = order.get_mut(k).map(|p| std::mem::replace(p, k)) {
            if next == start || next == k {
                break;
            }
            out.swap(k, next);
            k = next;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{in_order, total_order};

    #[test]
    fn total_order_orders_as_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            1e-310,
            0.5,
            3.0,
            1e300,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::MAX,
            f64::MIN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(total_order(a).cmp(&total_order(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn in_order_takes_each_position_from_its_index() {
        // Every permutation of five items: position k holds item order[k].
        let mut order: Vec<usize> = (0..5).collect();
        let mut seen = 0;
        loop {
            let items: Vec<String> = (0..5).map(|i| format!("r{i}")).collect();
            let want: Vec<String> = order.iter().map(|&i| format!("r{i}")).collect();
            assert_eq!(in_order(items, order.clone()), want, "{order:?}");
            seen += 1;
            // The next permutation in lexicographic order.
            let Some(i) = (0..4).rev().find(|&i| order[i] < order[i + 1]) else { break };
            let j = (i + 1..5).rev().find(|&j| order[j] > order[i]).unwrap();
            order.swap(i, j);
            order[i + 1..].reverse();
        }
        assert_eq!(seen, 120);
    }
}
