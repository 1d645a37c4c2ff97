//! Generated LODs: an MD3 with fewer triangles per surface, simplified with
//! meshoptimizer (`meshopt::simplify_decoder`) on frame 0's positions; every frame keeps
//! the vertices the simplified triangles use, so the LOD has the frames, tags, names and
//! shaders of the model, and each level can be checked like any MD3.

use crate::idmodel::md3::{Md3, Model, write};

/// The share of triangles LOD `level` keeps: ½ for `_1`, ¼ for `_2`.
pub(crate) fn ratio(level: u8) -> f32 {
    match level {
        0 => 1.0,
        1 => 0.5,
        _ => 0.25,
    }
}

/// The largest relative error meshoptimizer may introduce (a share of the surface's
/// extent); it stops earlier when the triangle target is reached.
#[cfg(not(target_arch = "wasm32"))]
const TARGET_ERROR: f32 = 0.05;

/// The MD3 in `bytes` with each surface simplified to about `ratio` of its triangles (at
/// least one). A surface meshoptimizer cannot reduce is kept as it is.
pub(crate) fn simplify(bytes: &[u8], ratio: f32) -> Result<Vec<u8>, String> {
    let md3 = Md3::parse(bytes).map_err(|e| e.to_string())?;
    let mut model = Model::from(md3);
    for s in &mut model.surfaces {
        let Some(base) = s.frames.first() else {
            continue;
        };
        let verts = base.len();
        let positions: Vec<[f32; 3]> = base
            .iter()
            .map(|v| v.xyz.map(|c| f32::from(c) / 64.0))
            .collect();
        let valid = |i: &u32| usize::try_from(*i).is_ok_and(|i| i < verts);
        let indices: Vec<u32> = s
            .triangles
            .iter()
            .filter(|t| t.iter().all(valid))
            .flatten()
            .copied()
            .collect();
        let triangles = indices.len() / 3;
        let target = target_triangles(triangles, ratio);
        if triangles == 0 || target >= triangles {
            continue;
        }
        let out = simplify_indices(&indices, &positions, target.saturating_mul(3));
        if out.is_empty() || out.len() >= indices.len() {
            continue;
        }
        let (remap, kept) = used_vertices(&out, verts);
        let new_index = |i: u32| {
            usize::try_from(i)
                .ok()
                .and_then(|i| remap.get(i).copied().flatten())
                .unwrap_or(0)
        };
        s.triangles = out
            .chunks_exact(3)
            .filter_map(|t| match *t {
                [a, b, c] => Some([new_index(a), new_index(b), new_index(c)]),
                _ => None,
            })
            .collect();
        s.st = kept
            .iter()
            .map(|&v| s.st.get(v).copied().unwrap_or([0.0; 2]))
            .collect();
        for frame in &mut s.frames {
            *frame = kept.iter().filter_map(|&v| frame.get(v).copied()).collect();
        }
    }
    write(&model).map_err(|e| e.to_string())
}

/// The vertices (of `count`) that `indices` use, in their order: each vertex's new index
/// (`None` when unused) and the kept vertices' old indices.
pub(super) fn used_vertices(indices: &[u32], count: usize) -> (Vec<Option<u32>>, Vec<usize>) {
    let mut remap: Vec<Option<u32>> = vec![None; count];
    for &i in indices {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| remap.get_mut(i)) {
            *slot = Some(0);
        }
    }
    let mut next = 0u32;
    let mut kept = Vec::new();
    for (v, slot) in remap.iter_mut().enumerate() {
        if slot.is_some() {
            *slot = Some(next);
            next = next.saturating_add(1);
            kept.push(v);
        }
    }
    (remap, kept)
}

/// `ratio` of `triangles`, at least one.
pub(super) fn target_triangles(triangles: usize, ratio: f32) -> usize {
    // Exact for any triangle count an MD3 surface holds (below 2^24).
    let t = u32::try_from(triangles).unwrap_or(u32::MAX);
    let keep = libm::floorf(f32_of(t) * ratio.clamp(0.0, 1.0));
    usize::try_from(u32_of(keep)).unwrap_or(usize::MAX).max(1)
}

pub(super) fn f32_of(v: u32) -> f32 {
    let hi = u16::try_from(v >> 16).unwrap_or(u16::MAX);
    let lo = u16::try_from(v & 0xFFFF).unwrap_or(0);
    f32::from(hi) * 65536.0 + f32::from(lo)
}

#[allow(clippy::as_conversions)] // a non-negative whole number below 2^32, checked first
fn u32_of(v: f32) -> u32 {
    if v.is_finite() && (0.0..4_294_967_040.0).contains(&v) {
        v as u32
    } else {
        0
    }
}

/// meshoptimizer's simplification of `indices` towards `target` indices.
#[cfg(not(target_arch = "wasm32"))]
fn simplify_indices(indices: &[u32], positions: &[[f32; 3]], target: usize) -> Vec<u32> {
    meshopt::simplify_decoder(
        indices,
        positions,
        target,
        TARGET_ERROR,
        meshopt::SimplifyOptions::None,
        None,
    )
}

/// The wasm build has no meshoptimizer (C++): the surface is kept as it is.
#[cfg(target_arch = "wasm32")]
fn simplify_indices(indices: &[u32], _positions: &[[f32; 3]], _target: usize) -> Vec<u32> {
    indices.to_vec()
}

#[cfg(test)]
mod tests;
