//! Tests of the LOD simplification.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::arithmetic_side_effects
)]

use super::*;

/// A 16 × 16 grid of quads (512 triangles), two frames.
fn grid() -> Vec<u8> {
    let mut m = Model::example();
    let n = 17u32;
    let s = &mut m.surfaces[0];
    (s.st, s.triangles) = idmodel_test_support::grid(16);
    for (f, frame) in s.frames.iter_mut().enumerate() {
        *frame = (0..n * n)
            .map(|i| crate::idmodel::md3::Vertex {
                xyz: [
                    i16::try_from(i % n).unwrap() * 64,
                    i16::try_from(i / n).unwrap() * 64,
                    i16::try_from(f).unwrap() * 64,
                ],
                normal: 0,
            })
            .collect();
    }
    write(&m).unwrap()
}

#[test]
fn a_flat_grid_loses_triangles_and_keeps_frames_and_tags() {
    let bytes = grid();
    let before = Md3::parse(&bytes).unwrap();
    let lod = simplify(&bytes, ratio(2)).unwrap();
    let after = Md3::parse(&lod).unwrap();
    assert_eq!(after.num_frames(), before.num_frames());
    assert_eq!(after.num_tags(), before.num_tags());
    let tris = |m: &Md3<'_>| m.surfaces().next().unwrap().triangles().len();
    assert!(tris(&after) <= tris(&before) / 4, "{}", tris(&after));
    assert!(tris(&after) >= 1);
    let verts = |m: &Md3<'_>| m.surfaces().next().unwrap().num_verts();
    assert!(verts(&after) < verts(&before));
    // Ratio 1 keeps the model.
    assert_eq!(
        simplify(&bytes, 1.0).unwrap(),
        write(&Model::from(before)).unwrap()
    );
    assert!(simplify(b"not an md3", 0.5).is_err());
}
