//! One mesh primitive as glTF: its checks, its vertex attributes (skin influences packed
//! into two JOINTS/WEIGHTS sets), morph targets and triangles.

use alloc::vec::Vec;

use super::Result;
use super::buffers::{ARRAY_BUFFER, Buffers, finite};
use super::quantized::{Grid, byte_axes, frame_steps};
use crate::error::invalid;
use crate::json::Json;
use crate::{ExportError, ExportOptions};
use idmodel_scene::axes::Axes;
use idmodel_scene::quantize::{BaseNormals, TargetNormals};
use idmodel_scene::{Primitive, unit_or_up};

#[allow(clippy::too_many_arguments)] // one call site; the arguments are the build state
pub(super) fn primitive(
    buf: &mut Buffers,
    j: &mut Json,
    p: &Primitive,
    what: &str,
    axes: Axes,
    options: &ExportOptions,
    (skinned, joint_limit): (Option<bool>, Option<usize>),
    (with_tangents, variants): (bool, Option<usize>),
    grid: Option<&Grid>,
    lead: Option<&[bool]>,
) -> Result<()> {
    let n = p.positions.len();
    let u = u32::try_from(n).map_err(|_| ExportError::TooLarge("a primitive's vertex count"))?;
    let same = |len: usize, attr: &str| {
        if len == 0 || len == n {
            Ok(())
        } else {
            Err(invalid!("{what}: {len} {attr} for {n} positions"))
        }
    };
    same(p.normals.len(), "normals")?;
    same(p.uvs.len(), "texture coordinates")?;
    same(p.influences.len(), "influence lists")?;
    if !p.indices.len().is_multiple_of(3) {
        return Err(invalid!(
            "{what}: {} indices is not a whole number of triangles",
            p.indices.len()
        ));
    }
    if let Some((k, &bad)) = p.indices.iter().enumerate().find(|&(_, &i)| i >= u) {
        return Err(invalid!(
            "{what}: index {k} is {bad}, but there are {n} vertices"
        ));
    }
    finite(&p.positions, &alloc::format!("{what} POSITION"))?;
    finite(&p.uvs, &alloc::format!("{what} TEXCOORD_0"))?;

    // KHR_mesh_quantization: the base's grid steps and byte normals (file axes), which
    // the targets' displacements are taken from.
    let base_steps = grid.map(|g| frame_steps(g, &p.positions, axes, None));
    // The base normals made unit (file axes), once for every target.
    let base_units: Vec<[f32; 3]> = if options.quantize {
        p.normals.iter().map(|&v| unit_or_up(v)).collect()
    } else {
        Vec::new()
    };
    // With `lead` (the mesh takes frame 0 as its first target), the vertices it marks
    // get hidden bases, and the first target brings their frame-0 normals.
    let base_normals = (options.quantize && !p.normals.is_empty()).then(|| {
        let mut b = BaseNormals::new(base_units.iter().copied());
        if let Some(hidden) = lead {
            b.hide(hidden);
        }
        b
    });
    let position = match &base_steps {
        Some(steps) => buf.grid_positions(steps)?,
        None => buf.points(&p.positions, axes, Some(ARRAY_BUFFER), true, None)?,
    };
    let normal = if p.normals.is_empty() {
        None
    } else if let Some(q) = &base_normals {
        let q: Vec<[i8; 3]> = q.bytes().iter().map(|&n| byte_axes(axes, n)).collect();
        Some(buf.byte_normals(&q)?)
    } else {
        Some(buf.floats_map(
            &p.normals,
            |v| axes.point(unit_or_up(v)),
            Some(ARRAY_BUFFER),
            false,
            None,
        )?)
    };
    let texcoord = if p.uvs.is_empty() {
        None
    } else {
        Some(buf.floats(&p.uvs, Some(ARRAY_BUFFER), false)?)
    };
    match (skinned, p.influences.is_empty()) {
        (Some(true), true) => {
            return Err(invalid!(
                "{what}: drawn with a skin but has no joint influences"
            ));
        }
        (Some(false), false) => {
            return Err(invalid!(
                "{what}: has joint influences but no node draws it with a skin"
            ));
        }
        _ => {}
    }
    // JOINTS_0, WEIGHTS_0, and JOINTS_1, WEIGHTS_1 when a vertex needs the second set.
    let mut skin_sets: [Option<(usize, usize)>; 2] = [None, None];
    if !p.influences.is_empty() {
        let mut joints: [Vec<[u16; 4]>; 2] = [Vec::with_capacity(n), Vec::with_capacity(n)];
        let mut weights: [Vec<[f32; 4]>; 2] = [Vec::with_capacity(n), Vec::with_capacity(n)];
        let mut need_second = false;
        for (v, pairs) in p.influences.iter().enumerate() {
            let (j, w) = pack_influences(pairs);
            if let Some(limit) = joint_limit
                && let Some(bad) = j.iter().flatten().find(|&&j| usize::from(j) >= limit)
            {
                return Err(invalid!(
                    "{what}: vertex {v} uses joint {bad}, but the skin has {limit} joints"
                ));
            }
            need_second |= w[1].iter().any(|&x| x > 0.0);
            for (set, (jj, ww)) in j.into_iter().zip(w).enumerate() {
                if let (Some(js), Some(ws)) = (joints.get_mut(set), weights.get_mut(set)) {
                    js.push(jj);
                    ws.push(ww);
                }
            }
        }
        let [j0, j1] = &joints;
        let [w0, w1] = &weights;
        let a = buf.joints(j0)?;
        skin_sets[0] = Some((a, buf.floats(w0, Some(ARRAY_BUFFER), false)?));
        if need_second {
            let a = buf.joints(j1)?;
            skin_sets[1] = Some((a, buf.floats(w1, Some(ARRAY_BUFFER), false)?));
        }
    }

    let mut targets: Vec<(usize, Option<usize>)> =
        Vec::with_capacity(p.targets.len().saturating_add(1));
    if let Some(hidden) = lead {
        // Frame 0 as the first target: no displacement of positions; the hidden
        // vertices' frame-0 normals over their hidden bases.
        let position = buf.grid_displacements(&alloc::vec![[0i32; 3]; n])?;
        let with_normals = p.targets.first().is_some_and(|t| !t.normals.is_empty());
        let normal = match (&base_normals, with_normals) {
            (Some(base), true) => Some(match base.first_target(hidden, &base_units) {
                TargetNormals::Bytes(d) => {
                    let d: Vec<[i8; 3]> = d.iter().map(|&n| byte_axes(axes, n)).collect();
                    buf.byte_normals(&d)?
                }
                TargetNormals::Floats(d) => {
                    buf.points(&d, axes, Some(ARRAY_BUFFER), false, None)?
                }
            }),
            _ => None,
        };
        targets.push((position, normal));
    }
    for (ti, t) in p.targets.iter().enumerate() {
        if t.positions.len() != n || !(t.normals.is_empty() || t.normals.len() == n) {
            return Err(invalid!(
                "{what} morph target {ti}: {} positions and {} normals for {n} vertices",
                t.positions.len(),
                t.normals.len()
            ));
        }
        let position = match (grid, &base_steps) {
            (Some(g), Some(base)) => {
                let mut d = frame_steps(g, &p.positions, axes, Some(&t.positions));
                for (d, b) in d.iter_mut().zip(base) {
                    // Both within 0..=65535: the difference cannot overflow.
                    *d = [
                        d[0].wrapping_sub(b[0]),
                        d[1].wrapping_sub(b[1]),
                        d[2].wrapping_sub(b[2]),
                    ];
                }
                buf.grid_displacements(&d)?
            }
            _ => buf.points(
                &t.positions,
                axes,
                Some(ARRAY_BUFFER),
                true,
                Some(&format_args!("{what} morph target {ti} POSITION")),
            )?,
        };
        let normal = if let (Some(base), false) = (&base_normals, t.normals.is_empty()) {
            finite(
                &t.normals,
                &alloc::format!("{what} morph target {ti} NORMAL"),
            )?;
            // The frame's normal as a reader of the float form sees it: the base made
            // unit plus the displacement, made unit.
            let frames = base_units
                .iter()
                .zip(&t.normals)
                .map(|(&b, &d)| unit_or_up([b[0] + d[0], b[1] + d[1], b[2] + d[2]]));
            Some(match base.target(frames) {
                TargetNormals::Bytes(d) => {
                    let d: Vec<[i8; 3]> = d.iter().map(|&n| byte_axes(axes, n)).collect();
                    buf.byte_normals(&d)?
                }
                TargetNormals::Floats(d) => {
                    buf.points(&d, axes, Some(ARRAY_BUFFER), false, None)?
                }
            })
        } else if !t.normals.is_empty() && !p.normals.is_empty() {
            Some(buf.points(
                &t.normals,
                axes,
                Some(ARRAY_BUFFER),
                false,
                Some(&format_args!("{what} morph target {ti} NORMAL")),
            )?)
        } else {
            finite(
                &t.normals,
                &alloc::format!("{what} morph target {ti} NORMAL"),
            )?;
            None
        };
        targets.push((position, normal));
    }

    let tris: Vec<u32> = p
        .indices
        .chunks_exact(3)
        .flat_map(|t| match t {
            &[a, b, c] => options.winding.triangle([a, b, c]),
            _ => [0, 0, 0], // chunks_exact yields only whole triangles
        })
        .collect();
    let tangent = if with_tangents && !p.normals.is_empty() && !p.uvs.is_empty() {
        let positions: Vec<[f32; 3]> = p.positions.iter().map(|&v| axes.point(v)).collect();
        let normals: Vec<[f32; 3]> = p
            .normals
            .iter()
            .map(|&v| axes.point(unit_or_up(v)))
            .collect();
        let t = tangents(&positions, &normals, &p.uvs, &tris);
        Some(buf.floats(&t, Some(ARRAY_BUFFER), false)?)
    } else {
        None
    };
    let indices = buf.indices(&tris)?;
    drop(tris);

    j.raw(b"{");
    j.key("attributes");
    j.raw(b"{");
    for (set, (joints, _)) in skin_sets.iter().flatten().enumerate() {
        j.key(if set == 0 { "JOINTS_0" } else { "JOINTS_1" });
        j.usize(*joints);
    }
    if let Some(a) = normal {
        j.key_usize("NORMAL", a);
    }
    j.key_usize("POSITION", position);
    if let Some(a) = tangent {
        j.key_usize("TANGENT", a);
    }
    if let Some(a) = texcoord {
        j.key_usize("TEXCOORD_0", a);
    }
    for (set, (_, weights)) in skin_sets.iter().flatten().enumerate() {
        j.key(if set == 0 { "WEIGHTS_0" } else { "WEIGHTS_1" });
        j.usize(*weights);
    }
    j.raw(b"}");
    if let (Some(n), Some(_)) = (variants, p.material) {
        // KHR_materials_variants: variant k is material k (keys in order: after
        // `attributes`).
        j.raw(b",\"extensions\":{\"KHR_materials_variants\":{\"mappings\":[");
        for k in 0..n {
            j.sep();
            j.raw(b"{");
            j.key_usize("material", k);
            j.key("variants");
            j.usizes(&[k]);
            j.raw(b"}");
        }
        j.raw(b"]}}");
    }
    j.key_usize("indices", indices);
    if let Some(m) = p.material {
        j.key_usize("material", m);
    }
    j.raw(b",\"mode\":4");
    if !targets.is_empty() {
        j.key("targets");
        j.raw(b"[");
        for (position, normal) in targets {
            j.sep();
            j.raw(b"{");
            if let Some(a) = normal {
                j.key_usize("NORMAL", a);
            }
            j.key_usize("POSITION", position);
            j.raw(b"}");
        }
        j.raw(b"]");
    }
    j.raw(b"}");
    Ok(())
}

/// Packs one vertex's influences into two JOINTS/WEIGHTS sets (see
/// [`Primitive::influences`]).
fn pack_influences(pairs: &[(u16, f32)]) -> ([[u16; 4]; 2], [[f32; 4]; 2]) {
    let mut merged: Vec<(u16, f32)> = Vec::with_capacity(pairs.len());
    for &(j, w) in pairs {
        if !(w.is_finite() && w > 0.0) {
            continue;
        }
        match merged.iter_mut().find(|(mj, _)| *mj == j) {
            Some((_, mw)) => *mw += w,
            None => merged.push((j, w)),
        }
    }
    // Largest first; equal weights keep the lower joint first, so output is deterministic.
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(8);
    if merged.is_empty() {
        merged.push((0, 1.0));
    }
    let sum: f64 = merged.iter().map(|&(_, w)| f64::from(w)).sum();
    let mut joints = [[0u16; 4]; 2];
    let mut weights = [[0f32; 4]; 2];
    let slots = joints
        .iter_mut()
        .flatten()
        .zip(weights.iter_mut().flatten());
    for ((js, ws), &(j, w)) in slots.zip(&merged) {
        *js = j;
        // Narrowing a weight in [0, 1] to f32 is the intent here.
        *ws = narrow(f64::from(w) / sum);
    }
    (joints, weights)
}

/// f64 → f32, the nearest value (a named helper because `as` is linted).
fn narrow(x: f64) -> f32 {
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    // Rounding to the nearest f32 is exactly what is wanted; the cast cannot panic.
    let y = x as f32;
    y
}

/// Per-vertex tangents (`TANGENT`: xyz unit, w ±1 the bitangent's side) of a mesh in
/// glTF's frame: `positions` and unit `normals` already in glTF axes, `uvs` with `v` down,
/// `triangles` in glTF's winding. Each triangle adds the direction in which `u` grows and
/// the one in which `v` grows upwards (Lengyel's method); each vertex's sum is made
/// perpendicular to its normal. A vertex without a usable direction (degenerate UVs) takes
/// any unit vector perpendicular to its normal.
fn tangents(
    positions: &[[f32; 3]],
    normals: &[[f32; 3]],
    uvs: &[[f32; 2]],
    triangles: &[u32],
) -> Vec<[f32; 4]> {
    let sub = |a: [f32; 3], b: [f32; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let n = positions.len();
    let mut tan = alloc::vec![[0.0f32; 3]; n];
    let mut bit = alloc::vec![[0.0f32; 3]; n];
    let at = |i: u32| usize::try_from(i).ok().filter(|&i| i < n);
    for t in triangles.chunks_exact(3) {
        let &[ta, tb, tc] = t else {
            continue;
        };
        let (Some(a), Some(b), Some(c)) = (at(ta), at(tb), at(tc)) else {
            continue;
        };
        let (Some(&pa), Some(&pb), Some(&pc)) =
            (positions.get(a), positions.get(b), positions.get(c))
        else {
            continue;
        };
        let (Some(&ua), Some(&ub), Some(&uc)) = (uvs.get(a), uvs.get(b), uvs.get(c)) else {
            continue;
        };
        let (e1, e2) = (sub(pb, pa), sub(pc, pa));
        // `v` grows downwards in glTF; a normal map's green channel points up.
        let (du1, dv1) = (ub[0] - ua[0], ua[1] - ub[1]);
        let (du2, dv2) = (uc[0] - ua[0], ua[1] - uc[1]);
        let det = du1 * dv2 - du2 * dv1;
        if det == 0.0 || !det.is_finite() {
            continue;
        }
        let r = 1.0 / det;
        let s_dir = [
            (e1[0] * dv2 - e2[0] * dv1) * r,
            (e1[1] * dv2 - e2[1] * dv1) * r,
            (e1[2] * dv2 - e2[2] * dv1) * r,
        ];
        let t_dir = [
            (e2[0] * du1 - e1[0] * du2) * r,
            (e2[1] * du1 - e1[1] * du2) * r,
            (e2[2] * du1 - e1[2] * du2) * r,
        ];
        if !s_dir.iter().chain(&t_dir).all(|x| x.is_finite()) {
            continue;
        }
        for v in [a, b, c] {
            if let (Some(ts), Some(bs)) = (tan.get_mut(v), bit.get_mut(v)) {
                ts.iter_mut().zip(s_dir).for_each(|(x, d)| *x += d);
                bs.iter_mut().zip(t_dir).for_each(|(x, d)| *x += d);
            }
        }
    }
    let unit = |v: [f32; 3]| {
        let len = libm::sqrtf(dot(v, v));
        (len > 1e-12 && len.is_finite()).then(|| v.map(|x| x / len))
    };
    normals
        .iter()
        .zip(tan.iter().zip(&bit))
        .map(|(&nv, (&t, &b))| {
            // Gram-Schmidt: the tangent perpendicular to the normal.
            let d = dot(nv, t);
            let t = unit([t[0] - nv[0] * d, t[1] - nv[1] * d, t[2] - nv[2] * d])
                .or_else(|| unit(cross(nv, [0.0, 0.0, 1.0])))
                .or_else(|| unit(cross(nv, [1.0, 0.0, 0.0])))
                .unwrap_or([1.0, 0.0, 0.0]);
            let w = if dot(cross(nv, t), b) < 0.0 {
                -1.0
            } else {
                1.0
            };
            [t[0], t[1], t[2], w]
        })
        .collect()
}

/// The vertices of `p` whose normal some morph target turns where no byte displacement
/// from the vertex's byte base reaches (`KHR_mesh_quantization`), marked; empty when none
/// is. A mesh with such vertices takes frame 0 as its first target and gives them hidden
/// bases ([`idmodel_scene::quantize`]).
pub(super) fn unreachable_normals(p: &Primitive) -> Vec<bool> {
    let n = p.normals.len();
    if n == 0 || p.targets.is_empty() {
        return Vec::new();
    }
    let units: Vec<[f32; 3]> = p.normals.iter().map(|&v| unit_or_up(v)).collect();
    let base = BaseNormals::new(units.iter().copied());
    let mut hidden = alloc::vec![false; n];
    let mut any = false;
    for t in p.targets.iter().filter(|t| t.normals.len() == n) {
        for (v, ((&b, &d), h)) in units.iter().zip(&t.normals).zip(&mut hidden).enumerate() {
            if !*h && !base.reaches(v, unit_or_up([b[0] + d[0], b[1] + d[1], b[2] + d[2]])) {
                *h = true;
                any = true;
            }
        }
    }
    if any { hidden } else { Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tangents_follow_u_and_are_perpendicular_unit_vectors() {
        // A quad facing +Z, u along +X, v down along -Y (glTF's image convention).
        let positions = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let normals = [[0.0, 0.0, 1.0]; 4];
        let uvs = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]];
        let t = tangents(&positions, &normals, &uvs, &[0, 1, 2, 0, 2, 3]);
        for v in &t {
            assert!(
                (v[0] - 1.0).abs() < 1e-6 && v[1].abs() < 1e-6 && v[2].abs() < 1e-6,
                "{v:?}"
            );
            assert_eq!(v[3], 1.0, "v grows up along +Y: a right-handed frame");
        }
        // Degenerate UVs: still unit and perpendicular to the normal.
        let t = tangents(&positions, &normals, &[[0.5, 0.5]; 4], &[0, 1, 2]);
        for v in &t {
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-6 && v[2].abs() < 1e-6 && v[3].abs() == 1.0);
        }
    }

    #[test]
    fn influences_merge_sort_truncate_normalise() {
        let (j, w) = pack_influences(&[(3, 0.25), (1, 0.5), (3, 0.25), (7, 0.0)]);
        assert_eq!(j, [[1, 3, 0, 0], [0; 4]]);
        assert_eq!(w, [[0.5, 0.5, 0.0, 0.0], [0.0; 4]]);
        let many: Vec<(u16, f32)> = (0..10u16).map(|i| (i, f32::from(i) + 1.0)).collect();
        let (j, w) = pack_influences(&many);
        assert_eq!(j, [[9, 8, 7, 6], [5, 4, 3, 2]]);
        let sum: f32 = w.iter().flatten().sum();
        assert!((sum - 1.0).abs() < 1e-6);
        assert_eq!(
            pack_influences(&[]),
            ([[0; 4]; 2], [[1.0, 0.0, 0.0, 0.0], [0.0; 4]])
        );
    }
}
