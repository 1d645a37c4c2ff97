//! The edge-value test of the branch-free triangle index checks (MD3 and MDL views).

/// Checks `in_range(triangles, n)`, a test that every index of `triangles` lies in `0..n`,
/// against the plain test on the edge values of `n` and of the indices (two triangles
/// `[a, 0, b]` and `[b, a, 0]` for every pair), and on no triangles at all.
///
/// # Panics
///
/// At the first disagreement, naming `n`, `a` and `b`.
#[allow(clippy::as_conversions, clippy::arithmetic_side_effects)] // edge values of i32 and usize
pub fn check_index_range_test(in_range: impl Fn(&[[i32; 3]], usize) -> bool) {
    for n in [0usize, 1, 2, 3, 100, i32::MAX as usize] {
        let last = i64::from(i32::try_from(n).unwrap_or(i32::MAX)) - 1;
        let values = [
            i32::MIN,
            -1,
            0,
            1,
            last.max(0) as i32,
            last as i32,
            (last + 1).min(i64::from(i32::MAX)) as i32,
            i32::MAX,
        ];
        for a in values {
            for b in values {
                let tris = [[a, 0, b], [b, a, 0]];
                let plain = tris
                    .iter()
                    .flatten()
                    .all(|&i| usize::try_from(i).is_ok_and(|i| i < n));
                assert_eq!(in_range(&tris, n), plain, "n={n} a={a} b={b}");
            }
        }
        assert!(in_range(&[], n));
    }
}
