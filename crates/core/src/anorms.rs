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
