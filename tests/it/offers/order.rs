//! `core::order` sorts as the standard library's stable `sort_by` does.

use proptest::prelude::*;
use whichgpu::core::order::{sort_by, sort_indices};

proptest! {
    #[test]
    fn sort_by_is_the_std_stable_sort(v in prop::collection::vec((0u8..5, any::<u16>()), 0..60)) {
        // Ties on the key (the first field) keep their order, as in std's.
        let mut ours = v.clone();
        sort_by(&mut ours, &|a, b| a.0.cmp(&b.0));
        let mut std = v.clone();
        std.sort_by(|a, b| a.0.cmp(&b.0));
        prop_assert_eq!(ours, std);
        let mut idx: Vec<usize> = (0..v.len()).collect();
        sort_indices(&mut idx, &|i, j| v[j].1.cmp(&v[i].1));
        let mut want: Vec<usize> = (0..v.len()).collect();
        want.sort_by(|&i, &j| v[j].1.cmp(&v[i].1));
        prop_assert_eq!(idx, want);
    }
}
