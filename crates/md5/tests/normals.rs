//! Doom 3 normals and tangents (docs/formats.md §4.6) beside area-weighted normals.
#![allow(clippy::restriction)] // test code: grid builders count freely; a failure should stop the test loudly

use idmodel_md5::normals::{DoomTangents, area_weighted_normals, negative_polarity};

fn close(a: [f32; 3], b: [f32; 3], eps: f32) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= eps)
}

const X: [f32; 3] = [1.0, 0.0, 0.0];
const Y: [f32; 3] = [0.0, 1.0, 0.0];
const Z: [f32; 3] = [0.0, 0.0, 1.0];
const P: [f32; 3] = [0.0, 0.0, 0.0];

/// The worked case of docs/formats.md §4.6: first f = +x, duplicates d1 = +y, d2 = +z give
/// F = (1,0,1), D1 = (1,1,0), D2 = (1,0,1) before normalising.
#[test]
fn coincident_vertices_combine_asymmetrically() {
    // Three vertices at P, each in one triangle whose unit normal is x, y or z
    // (n = (c − a) × (b − a)).
    let positions = [P, P, P, Z, Y, X, Z, Y, X];
    let uv = [[0.0; 2]; 9];
    let tris = [[0, 3, 4], [1, 5, 6], [2, 7, 8]];
    let setup = DoomTangents::new(&positions, &uv, &tris);
    assert!(setup.mirrored().is_empty());
    assert!(setup.dup_verts().contains(&(1, 0)));
    assert!(setup.dup_verts().contains(&(2, 0)));
    let out = setup.derive(&positions);
    let h = core::f32::consts::FRAC_1_SQRT_2;
    assert!(
        close(out.normals[0], [h, 0.0, h], 3e-3),
        "{:?}",
        out.normals[0]
    );
    assert!(
        close(out.normals[1], [h, h, 0.0], 3e-3),
        "{:?}",
        out.normals[1]
    );
    assert!(
        close(out.normals[2], [h, 0.0, h], 3e-3),
        "{:?}",
        out.normals[2]
    );
}

#[test]
fn exactly_two_coincident_vertices_share_one_normal() {
    let positions = [P, P, Z, Y, X, Z];
    let tris = [[0, 2, 3], [1, 4, 5]];
    let out = DoomTangents::new(&positions, &[[0.0; 2]; 6], &tris).derive(&positions);
    assert_eq!(out.normals[0], out.normals[1]);
    let h = core::f32::consts::FRAC_1_SQRT_2;
    assert!(
        close(out.normals[0], [h, h, 0.0], 3e-3),
        "{:?}",
        out.normals[0]
    );
}

#[test]
fn plus_and_minus_zero_positions_are_coincident() {
    let positions = [P, [-0.0, 0.0, -0.0], Z, Y, X, Z];
    let setup = DoomTangents::new(&positions, &[[0.0; 2]; 6], &[[0, 2, 3], [1, 4, 5]]);
    assert!(setup.dup_verts().contains(&(1, 0)));
}

#[test]
fn unit_face_normals_are_not_area_weighted() {
    // Vertex 0 is in a big triangle facing +z and a small one facing +x: Doom sums unit
    // normals (45°), area weighting leans to +z.
    let positions = [
        P,
        [0.0, 10.0, 0.0],
        [10.0, 0.0, 0.0],
        [0.0, 0.0, 0.1],
        [0.0, 0.1, 0.0],
    ];
    let tris = [[0, 1, 2], [0, 3, 4]];
    let doom = DoomTangents::new(&positions, &[[0.0; 2]; 5], &tris).derive(&positions);
    let h = core::f32::consts::FRAC_1_SQRT_2;
    assert!(
        close(doom.normals[0], [h, 0.0, h], 3e-3),
        "{:?}",
        doom.normals[0]
    );
    let mut area = [[0.0; 3]; 5];
    area_weighted_normals(&positions, &tris, &mut area);
    assert!(area[0][2] > 0.999, "{:?}", area[0]);
}

#[test]
fn mirrored_uv_vertices_are_split() {
    // A quad whose two triangles have opposite texture polarity: the shared vertices 1
    // and 2 get copies, and the negative triangle is re-pointed to them.
    let positions = [P, Y, X, [1.0, 1.0, 0.0]];
    let uv = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
    let tris = [[0, 1, 2], [2, 1, 3]];
    assert!(negative_polarity([uv[0], uv[1], uv[2]]));
    assert!(!negative_polarity([uv[2], uv[1], uv[3]]));
    let setup = DoomTangents::new(&positions, &uv, &tris);
    assert_eq!(setup.mirrored(), [1, 2]);
    assert_eq!(setup.num_vertices(), 6);
    assert_eq!(setup.triangles()[0], [0, 4, 5]);
    assert_eq!(setup.triangles()[1], [2, 1, 3]);
    // Copies and originals share positions: dup pairs (copy, original).
    assert!(setup.dup_verts().contains(&(4, 1)));
    assert!(setup.dup_verts().contains(&(5, 2)));
    let out = setup.derive(&positions);
    assert_eq!(out.normals.len(), 6);
    // Tangents are not shared across the split: each side keeps its own.
    let t_pos = out.tangents[1][0];
    let t_neg = out.tangents[4][0];
    assert!(!close(t_pos, t_neg, 1e-3), "{t_pos:?} {t_neg:?}");
    // Every normal is unit length to RSqrt precision and faces −z or +z consistently.
    for n in &out.normals {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 3e-3, "{n:?}");
    }
}

#[test]
fn doom_and_area_weighted_agree_on_a_flat_grid() {
    let mut positions = vec![];
    let mut uv = vec![];
    for y in 0..4 {
        for x in 0..4 {
            positions.push([x as f32, y as f32, 0.0]);
            uv.push([x as f32 / 3.0, y as f32 / 3.0]);
        }
    }
    let mut tris = vec![];
    for y in 0..3u32 {
        for x in 0..3u32 {
            let i = y * 4 + x;
            tris.push([i, i + 4, i + 1]);
            tris.push([i + 1, i + 4, i + 5]);
        }
    }
    let doom = DoomTangents::new(&positions, &uv, &tris).derive(&positions);
    let mut area = vec![[0.0; 3]; positions.len()];
    area_weighted_normals(&positions, &tris, &mut area);
    for (d, a) in doom.normals.iter().zip(&area) {
        assert!(close(*d, *a, 3e-3), "{d:?} {a:?}");
        assert!(close(*a, [0.0, 0.0, 1.0], 1e-6), "{a:?}");
    }
    // Tangents follow +s (x) and +t (y).
    assert!(
        close(doom.tangents[5][0], X, 3e-3),
        "{:?}",
        doom.tangents[5][0]
    );
    assert!(
        close(doom.tangents[5][1], Y, 3e-3),
        "{:?}",
        doom.tangents[5][1]
    );
}

#[test]
fn degenerate_triangles_stay_zero() {
    let positions = [P, P, P];
    let out = DoomTangents::new(&positions, &[[0.0; 2]; 3], &[[0, 1, 2]]).derive(&positions);
    for n in &out.normals {
        assert_eq!(*n, [0.0; 3]);
    }
}
