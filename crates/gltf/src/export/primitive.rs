//! One mesh primitive as glTF: its checks, its vertex attributes (skin influences packed
//! into two JOINTS/WEIGHTS sets), morph targets and triangles.

use alloc::vec::Vec;

use super::Result;
use super::buffers::{ARRAY_BUFFER, Buffers, finite};
use crate::error::invalid;
use crate::json::Json;
use crate::{ExportError, ExportOptions};
use idmodel_scene::axes::Axes;
use idmodel_scene::{Primitive, unit_or_up};

#[allow(clippy::too_many_arguments)] // one call site; the arguments are the build state
pub(super) fn primitive(
    buf: &mut Buffers,
    j: &mut Json,
    p: &Primitive,
    what: &str,
    axes: Axes,
    options: &ExportOptions,
    skinned: Option<bool>,
    joint_limit: Option<usize>,
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

    let position = buf.points(&p.positions, axes, Some(ARRAY_BUFFER), true, None)?;
    let normal = if p.normals.is_empty() {
        None
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

    let mut targets: Vec<(usize, Option<usize>)> = Vec::with_capacity(p.targets.len());
    for (ti, t) in p.targets.iter().enumerate() {
        if t.positions.len() != n || !(t.normals.is_empty() || t.normals.len() == n) {
            return Err(invalid!(
                "{what} morph target {ti}: {} positions and {} normals for {n} vertices",
                t.positions.len(),
                t.normals.len()
            ));
        }
        let position = buf.points(
            &t.positions,
            axes,
            Some(ARRAY_BUFFER),
            true,
            Some(&format_args!("{what} morph target {ti} POSITION")),
        )?;
        let normal = if !t.normals.is_empty() && !p.normals.is_empty() {
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
    if let Some(a) = texcoord {
        j.key_usize("TEXCOORD_0", a);
    }
    for (set, (_, weights)) in skin_sets.iter().flatten().enumerate() {
        j.key(if set == 0 { "WEIGHTS_0" } else { "WEIGHTS_1" });
        j.usize(*weights);
    }
    j.raw(b"}");
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

#[cfg(test)]
mod tests {
    use super::*;

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
