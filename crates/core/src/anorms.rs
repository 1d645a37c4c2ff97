//! The 162-entry vertex normal table of Quake MDL and Quake II MD2, and a
//! nearest-entry encoder.

#[path = "anorms_table.rs"]
mod table;

pub use table::{ANORMS, NUM_VERTEX_NORMALS};

/// The table entry for `index`, or `None` when `index >= 162`.
///
/// The engines index the table without a check; a file with an index of 162..=255
/// reads past it. Format crates report such indices and decode them with
/// [`anorm_or_up`].
///
/// ```
/// use idmodel_core::anorms::anorm;
/// assert_eq!(anorm(0), Some([-0.525731, 0.0, 0.850651]));
/// assert_eq!(anorm(162), None);
/// ```
pub fn anorm(index: u8) -> Option<[f32; 3]> {
    ANORMS.get(usize::from(index)).copied()
}

/// The table entry for `index`, with the documented fallback `(0, 0, 1)` (straight up)
/// for indices the table does not have.
pub fn anorm_or_up(index: u8) -> [f32; 3] {
    anorm(index).unwrap_or([0.0, 0.0, 1.0])
}

/// The index of the table entry closest in direction to `n` (largest dot product).
///
/// `n` need not be unit length. Ties go to the lowest index. A zero or non-finite
/// vector gives index 0.
///
/// ```
/// use idmodel_core::anorms::{nearest_anorm, ANORMS};
/// for (i, n) in ANORMS.iter().enumerate() {
///     assert_eq!(usize::from(nearest_anorm(*n)), i);
/// }
/// ```
pub fn nearest_anorm(n: [f32; 3]) -> u8 {
    let mut best = 0u8;
    let mut best_dot = f32::NEG_INFINITY;
    let mut i = 0u8;
    for t in ANORMS.iter() {
        let d = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
        if d > best_dot {
            best_dot = d;
            best = i;
        }
        i = i.wrapping_add(1);
    }
    best
}

/// How far (Euclidean) a vector may lie from a table entry for [`confirm_nearest_anorm`]
/// to vouch for that entry: 10⁻³. Every entry `c` beats every other `k` by
/// `t_c·t_c − t_c·t_k ≥ 0.032` (the closest pair; a unit test computes it), and
/// moving the input by `e` changes that difference by at most `|e| · |t_c − t_k| ≤ 2.01 |e|`,
/// so within this radius the entry wins by more than 0.03, far above `f32` rounding.
pub const CONFIRM_RADIUS: f32 = 1e-3;

/// `Some(hint)` when table entry `hint` is certainly the one [`nearest_anorm`] returns for
/// `n`, because `n` lies within [`CONFIRM_RADIUS`] of it; `None` when that is not shown
/// (`n` farther away, non-finite, or `hint ≥ 162`), in which case call [`nearest_anorm`].
///
/// Ten instructions instead of 162 dot products: a converter that re-encodes normals
/// decoded from the table (nearly all of a model's, frame after frame) guesses the entry
/// from a cheap lookup and confirms it here.
///
/// ```
/// use idmodel_core::anorms::{confirm_nearest_anorm, nearest_anorm, ANORMS};
/// let n = ANORMS[17];
/// let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
/// let unit = n.map(|x| x / len);
/// assert_eq!(confirm_nearest_anorm(unit, 17), Some(17));
/// assert_eq!(nearest_anorm(unit), 17);
/// // Not a claim that 18 is wrong, only that it is not shown.
/// assert_eq!(confirm_nearest_anorm(unit, 18), None);
/// ```
pub fn confirm_nearest_anorm(n: [f32; 3], hint: u8) -> Option<u8> {
    let t = ANORMS.get(usize::from(hint))?;
    let e = [n[0] - t[0], n[1] - t[1], n[2] - t[2]];
    let d2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    // `<` is false for NaN, so a non-finite input is never confirmed.
    (d2 < CONFIRM_RADIUS * CONFIRM_RADIUS).then_some(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_vectors_are_unit_length() {
        for (i, n) in ANORMS.iter().enumerate() {
            let len = libm::sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            assert!((len - 1.0).abs() < 1e-4, "entry {i} has length {len}");
        }
    }

    #[test]
    fn first_and_last_entries_match_the_spec() {
        assert_eq!(ANORMS[0], [-0.525731, 0.000000, 0.850651]);
        assert_eq!(ANORMS[161], [-0.688191, -0.587785, -0.425325]);
    }

    #[test]
    fn encode_decode_round_trips_every_entry() {
        for i in 0..=161u8 {
            assert_eq!(nearest_anorm(anorm(i).unwrap()), i);
        }
    }

    #[test]
    fn out_of_table_indices_fall_back() {
        assert_eq!(anorm_or_up(200), [0.0, 0.0, 1.0]);
        assert_eq!(anorm_or_up(5), ANORMS[5]);
    }

    #[test]
    fn nearest_handles_degenerate_input() {
        assert_eq!(nearest_anorm([0.0, 0.0, 0.0]), 0);
        assert_eq!(nearest_anorm([f32::NAN, 0.0, 0.0]), 0);
        // Scaled vectors pick the same entry.
        let n = ANORMS[42];
        assert_eq!(nearest_anorm([n[0] * 9.0, n[1] * 9.0, n[2] * 9.0]), 42);
    }

    #[test]
    fn the_confirm_radius_is_inside_every_entrys_margin() {
        // The margin argument of `CONFIRM_RADIUS`, computed in f64 over every pair.
        let mut min = f64::INFINITY;
        let mut max_diff = 0.0f64;
        for (c, tc) in ANORMS.iter().enumerate() {
            let tc = tc.map(f64::from);
            let cc = tc[0] * tc[0] + tc[1] * tc[1] + tc[2] * tc[2];
            for (k, tk) in ANORMS.iter().enumerate() {
                if k == c {
                    continue;
                }
                let tk = tk.map(f64::from);
                let ck = tc[0] * tk[0] + tc[1] * tk[1] + tc[2] * tk[2];
                min = min.min(cc - ck);
                let d = [tc[0] - tk[0], tc[1] - tk[1], tc[2] - tk[2]];
                max_diff = max_diff.max((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt());
            }
        }
        assert!(min >= 0.032, "closest pair margin {min}");
        assert!(max_diff <= 2.01, "largest difference {max_diff}");
        let r = f64::from(CONFIRM_RADIUS) * 1.0001;
        assert!(min - max_diff * r > 0.03, "{min} {max_diff}");
    }

    #[test]
    fn confirm_refuses_what_it_cannot_show() {
        assert_eq!(confirm_nearest_anorm(ANORMS[3], 3), Some(3));
        assert_eq!(confirm_nearest_anorm(ANORMS[3], 162), None);
        assert_eq!(confirm_nearest_anorm([f32::NAN, 0.0, 0.0], 0), None);
        assert_eq!(confirm_nearest_anorm([f32::INFINITY, 0.0, 0.0], 0), None);
        assert_eq!(confirm_nearest_anorm([0.0; 3], 0), None);
    }

    proptest::proptest! {
        #[test]
        fn a_confirmed_entry_is_the_nearest(
            i in 0u8..162,
            dx in -2e-3f32..2e-3,
            dy in -2e-3f32..2e-3,
            dz in -2e-3f32..2e-3,
            scale in 0.999f32..1.001,
        ) {
            let t = ANORMS[usize::from(i)];
            let n = [t[0] * scale + dx, t[1] * scale + dy, t[2] * scale + dz];
            if let Some(c) = confirm_nearest_anorm(n, i) {
                proptest::prop_assert_eq!(c, nearest_anorm(n));
            }
            // Any hint: a confirmation is always the search's answer.
            let h = i.wrapping_add(1) % 162;
            if let Some(c) = confirm_nearest_anorm(n, h) {
                proptest::prop_assert_eq!(c, nearest_anorm(n));
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn nearest_is_really_nearest(x in -1.0f32..1.0, y in -1.0f32..1.0, z in -1.0f32..1.0) {
            let i = usize::from(nearest_anorm([x, y, z]));
            let dot = |t: &[f32; 3]| t[0] * x + t[1] * y + t[2] * z;
            let best = dot(&ANORMS[i]);
            for t in ANORMS.iter() {
                proptest::prop_assert!(dot(t) <= best);
            }
        }
    }
}
