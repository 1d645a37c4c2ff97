//! The scene's drawn mesh as one triangle list ([`Merged`], [`merge`]) and its vertices
//! posed by morph weights ([`pose`], one [`SampledFrame`]).

use alloc::string::String;
use alloc::vec::Vec;

use crate::Scene;

/// One frame to write: its name and the absolute positions and normals of every vertex
/// of the merged mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct SampledFrame {
    /// The frame name (a target name, or the clip name and a 1-based number: `run1`).
    pub name: String,
    /// The key time in seconds (0.1 s apart for the frames of a scene without animation).
    pub time: f32,
    /// Positions, one per vertex of [`Merged`].
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, one per vertex (the posed triangles' smooth normal where the scene
    /// has none).
    pub normals: Vec<[f32; 3]>,
}

/// The scene's drawn geometry as one triangle list: every primitive of every node's mesh
/// (node transforms are not applied: id models are one mesh at the origin; see the module
/// docs of the adapters), with the morph targets of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Merged {
    /// Base positions.
    pub positions: Vec<[f32; 3]>,
    /// Base normals (zero where a primitive has none).
    pub normals: Vec<[f32; 3]>,
    /// UVs (zero where a primitive has none), glTF convention.
    pub uvs: Vec<[f32; 2]>,
    /// Triangle list into the vertices.
    pub indices: Vec<u32>,
    /// The material of the first primitive.
    pub material: Option<usize>,
    /// Per morph target, per vertex: (position, normal) displacement.
    pub targets: Vec<Vec<([f32; 3], [f32; 3])>>,
    /// The target names of the first mesh.
    pub target_names: Vec<String>,
    /// Per vertex, the skin joints and weights (empty where a primitive has none).
    pub influences: Vec<Vec<(u16, f32)>>,
}

/// Merges the first mesh's primitives (id models have one mesh; other meshes are left
/// out). `None` when the scene has no triangles.
pub fn merge(scene: &Scene) -> Option<Merged> {
    // The first mesh that is not a tag's frames (`md3::is_tag_frames`).
    let helper = |m: usize| {
        scene
            .nodes
            .iter()
            .any(|n| n.mesh == Some(m) && crate::scene::is_tag_frames(n))
    };
    let mesh = (0..scene.meshes.len())
        .find(|&m| !helper(m))
        .and_then(|m| scene.meshes.get(m))?;
    let targets = mesh
        .primitives
        .iter()
        .map(|p| p.targets.len())
        .max()
        .unwrap_or(0);
    // Sized up front: growing these by doubling would reallocate for every large model.
    let vertices: usize = mesh.primitives.iter().map(|p| p.positions.len()).sum();
    let indices: usize = mesh.primitives.iter().map(|p| p.indices.len()).sum();
    let mut m = Merged {
        positions: Vec::with_capacity(vertices),
        normals: Vec::with_capacity(vertices),
        uvs: Vec::with_capacity(vertices),
        indices: Vec::with_capacity(indices),
        targets: (0..targets).map(|_| Vec::with_capacity(vertices)).collect(),
        target_names: mesh.target_names.clone(),
        material: mesh.primitives.first().and_then(|p| p.material),
        influences: Vec::new(),
    };
    let skinned = mesh.primitives.iter().any(|p| !p.influences.is_empty());
    for p in &mesh.primitives {
        let base = u32::try_from(m.positions.len()).ok()?;
        let n = p.positions.len();
        for &i in &p.indices {
            if usize::try_from(i).ok()? >= n {
                return None;
            }
            m.indices.push(base.checked_add(i)?);
        }
        m.positions.extend(
            p.positions
                .iter()
                .map(|&v| idmodel_core::vec::finite_or_zero(v)),
        );
        if skinned {
            m.influences
                .extend((0..n).map(|k| p.influences.get(k).cloned().unwrap_or_default()));
        }
        // Each list whole where it has an entry per vertex (one pass the compiler can
        // widen), else entry by entry with zeros for the missing.
        match p.normals.get(..n) {
            Some(normals) => m.normals.extend(
                normals
                    .iter()
                    .map(|&v| idmodel_core::vec::finite_or_zero(v)),
            ),
            None => m.normals.extend((0..n).map(|k| {
                p.normals
                    .get(k)
                    .copied()
                    .map_or([0.0; 3], idmodel_core::vec::finite_or_zero)
            })),
        }
        match p.uvs.get(..n) {
            Some(uvs) => m
                .uvs
                .extend(uvs.iter().map(|&v| idmodel_core::vec::finite_or_zero(v))),
            None => m.uvs.extend((0..n).map(|k| {
                p.uvs
                    .get(k)
                    .copied()
                    .map_or([0.0; 2], idmodel_core::vec::finite_or_zero)
            })),
        }
        for (t, out) in m.targets.iter_mut().enumerate() {
            let target = p.targets.get(t);
            if let Some((dps, dns)) =
                target.and_then(|t| Some((t.positions.get(..n)?, t.normals.get(..n)?)))
            {
                out.extend(dps.iter().zip(dns).map(|(&dp, &dn)| {
                    (
                        idmodel_core::vec::finite_or_zero(dp),
                        idmodel_core::vec::finite_or_zero(dn),
                    )
                }));
                continue;
            }
            for k in 0..n {
                let dp = target
                    .and_then(|t| t.positions.get(k))
                    .copied()
                    .unwrap_or([0.0; 3]);
                let dn = target
                    .and_then(|t| t.normals.get(k))
                    .copied()
                    .unwrap_or([0.0; 3]);
                out.push((
                    idmodel_core::vec::finite_or_zero(dp),
                    idmodel_core::vec::finite_or_zero(dn),
                ));
            }
        }
    }
    (!m.indices.is_empty()).then_some(m)
}

/// The posed vertices of `merged` with morph `weights` (missing weights are 0).
pub fn pose(merged: &Merged, weights: &[f32], name: String, time: f32) -> SampledFrame {
    let mut positions = merged.positions.clone();
    let mut normals = merged.normals.clone();
    for (t, w) in merged.targets.iter().zip(weights) {
        if *w == 0.0 || !w.is_finite() {
            continue;
        }
        for ((p, n), (dp, dn)) in positions.iter_mut().zip(normals.iter_mut()).zip(t) {
            for a in 0..3 {
                if let (Some(pa), Some(na), Some(d), Some(e)) =
                    (p.get_mut(a), n.get_mut(a), dp.get(a), dn.get(a))
                {
                    *pa += w * d;
                    *na += w * e;
                }
            }
        }
    }
    let positions: Vec<[f32; 3]> = positions
        .into_iter()
        .map(idmodel_core::vec::finite_or_zero)
        .collect();
    // Vertices of primitives without normals (zero here) get the smooth normal of the
    // posed triangles, area-weighted, as the MD2 adapter computes them: "up" for every
    // such vertex would light the model as a flat sheet.
    let missing = |n: &[f32; 3]| n.iter().all(|c| *c == 0.0);
    if normals.iter().any(missing) {
        let triangles: Vec<[usize; 3]> = merged
            .indices
            .chunks_exact(3)
            .filter_map(|t| match *t {
                [a, b, c] => Some([a, b, c].map(|i| usize::try_from(i).unwrap_or(usize::MAX))),
                _ => None,
            })
            .collect();
        let smooth = crate::scene::smooth_normals(&positions, &triangles);
        for (n, s) in normals.iter_mut().zip(smooth) {
            if missing(n) {
                *n = s;
            }
        }
    }
    SampledFrame {
        name,
        time,
        positions,
        normals: normals.into_iter().map(crate::unit_or_up).collect(),
    }
}
