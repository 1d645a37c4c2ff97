//! Whether two scenes draw the same geometry ([`same_geometry`]): what decides that the
//! extras still describe a scene.

use crate::Scene;

fn close(a: f32, b: f32, tol: f32) -> bool {
    let d = a - b;
    let scale = 1.0 + a.abs().max(b.abs());
    (d.abs() <= tol * scale) || (a == b)
}

fn close3(a: &[[f32; 3]], b: &[[f32; 3]], tol: f32, slack: f32) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(p, q)| {
            p.iter()
                .zip(q)
                .all(|(x, y)| close(*x, *y, tol) || (x - y).abs() <= slack)
        })
}

/// How far a position or displacement of `p` may move and still be the same geometry,
/// besides `tol` relative to its own value: `8 × tol` of the model's reach (its largest
/// coordinate plus its largest displacement). A quantized glTF puts positions on a grid
/// of 32,767 steps across the model, moving each by at most `3.1 × 10⁻⁵` of that reach
/// (a displacement by twice that), far below any format's own step.
fn slack(p: &crate::Primitive, tol: f32) -> f32 {
    let big = |v: &[[f32; 3]]| v.iter().flatten().fold(0.0f32, |m, c| m.max(c.abs()));
    let reach = big(&p.positions)
        + p.targets
            .iter()
            .fold(0.0f32, |m, t| m.max(big(&t.positions)));
    8.0 * tol * (1.0 + reach)
}

/// Whether `a` and `b` draw the same single-mesh geometry: one mesh of one primitive,
/// the same triangles corner by corner (an editor may renumber and split vertices, so
/// indices are not compared, the vertices they name are), with positions, UVs and morph
/// displacements within `tol` (relative to `1 + |value|`; positions and displacements
/// also within eight times `tol` of the model's reach, what a quantized glTF moves them).
/// Normals are not compared (glTF writers renormalise them).
pub fn same_geometry(a: &Scene, b: &Scene, tol: f32) -> bool {
    let (Some(ma), Some(mb)) = (a.meshes.first(), b.meshes.first()) else {
        return false;
    };
    if a.meshes.len() != 1 || b.meshes.len() != 1 {
        return false;
    }
    let (Some(pa), Some(pb)) = (ma.primitives.first(), mb.primitives.first()) else {
        return false;
    };
    if ma.primitives.len() != 1 || mb.primitives.len() != 1 {
        return false;
    }
    if pa.indices.len() != pb.indices.len()
        || pa.targets.len() != pb.targets.len()
        || pa.uvs.is_empty() != pb.uvs.is_empty()
    {
        return false;
    }
    let slack = slack(pa, tol);
    let same3 = |p: Option<&[f32; 3]>, q: Option<&[f32; 3]>| match (p, q) {
        (Some(p), Some(q)) => p
            .iter()
            .zip(q)
            .all(|(x, y)| close(*x, *y, tol) || (x - y).abs() <= slack),
        (None, None) => true,
        _ => false,
    };
    let at = |i: u32| usize::try_from(i).unwrap_or(usize::MAX);
    if pa.indices == pb.indices {
        // The common case (no editor in between): compare the vertex lists whole.
        return close3(&pa.positions, &pb.positions, tol, slack)
            && pa.uvs.len() == pb.uvs.len()
            && pa
                .uvs
                .iter()
                .zip(&pb.uvs)
                .all(|(p, q)| close(p[0], q[0], tol) && close(p[1], q[1], tol))
            && pa
                .targets
                .iter()
                .zip(&pb.targets)
                .all(|(x, y)| close3(&x.positions, &y.positions, tol, slack));
    }
    pa.indices.iter().zip(&pb.indices).all(|(&i, &j)| {
        let (i, j) = (at(i), at(j));
        same3(pa.positions.get(i), pb.positions.get(j))
            && (pa.uvs.is_empty()
                || match (pa.uvs.get(i), pb.uvs.get(j)) {
                    (Some(p), Some(q)) => close(p[0], q[0], tol) && close(p[1], q[1], tol),
                    _ => false,
                })
            && pa
                .targets
                .iter()
                .zip(&pb.targets)
                .all(|(x, y)| same3(x.positions.get(i), y.positions.get(j)))
    })
}
