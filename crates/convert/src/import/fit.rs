//! `--fit`: a model made elsewhere brought within its target engine's vertex and
//! triangle limits, by meshoptimizer's simplifier (`meshopt::simplify_decoder`, the one
//! the generated MD3 LODs use) on each primitive's base positions. The triangles kept
//! use a subset of the vertices, and every per-vertex array follows them: normals,
//! texture coordinates, skin influences and every morph target, so each frame keeps its
//! pose and UV seams stay where they were (a seam is an open border to the simplifier).
//!
//! The counts that matter are the written file's (an MD2 counts distinct positions, an
//! MDL welded vertices plus seams), so the fitter writes, counts and simplifies again
//! until the file fits, a few rounds at most.

use idmodel_scene::Scene;

/// The most simplify-and-count rounds before giving up.
const ROUNDS: usize = 8;

/// What a written file holds and what its engine loads: `(vertices, triangles)` each.
pub(crate) type Counts = (usize, usize);

/// What fitting did: one line for the report, and the fitted scene.
pub(crate) struct Fitted {
    /// The scene within the limits (the input's when it already was).
    pub(crate) scene: Scene,
    /// `None` when nothing had to change.
    pub(crate) line: Option<String>,
}

/// `scene` simplified until `measure` (the written file's counts) is within `limits`;
/// `engine` names the limits in the report. `Err` when `measure` fails or the limits are
/// out of reach (one line).
pub(crate) fn fit_counts(
    scene: &Scene,
    limits: Counts,
    engine: &str,
    measure: impl Fn(&Scene) -> Result<Counts, String>,
) -> Result<Fitted, String> {
    let first = measure(scene)?;
    if within(first, limits) {
        return Ok(Fitted {
            scene: scene.clone(),
            line: None,
        });
    }
    let mut ratio = 1.0f32;
    let mut counts = first;
    for _ in 0..ROUNDS {
        ratio *= shrink(counts, limits);
        let (fitted, moved) = simplify(scene, ratio);
        counts = measure(&fitted)?;
        if within(counts, limits) {
            let line = format!(
                "fitted for {engine}: {} → {} vertices, {} → {} triangles ({}); largest position change {moved:.3} units",
                first.0,
                counts.0,
                first.1,
                counts.1,
                allowed(limits)
            );
            return Ok(Fitted {
                scene: fitted,
                line: Some(line),
            });
        }
    }
    Err(format!(
        "--fit could not bring {} vertices and {} triangles within {engine}'s limits ({}; reached {} and {})",
        first.0,
        first.1,
        allowed(limits),
        counts.0,
        counts.1
    ))
}

/// The limits in words: `at most 2000 vertices and 4096 triangles`, without a limit the
/// engine does not have.
fn allowed(limits: Counts) -> String {
    match limits {
        (v, usize::MAX) => format!("at most {v} vertices"),
        (usize::MAX, t) => format!("at most {t} triangles"),
        (v, t) => format!("at most {v} vertices and {t} triangles"),
    }
}

fn within(c: Counts, limits: Counts) -> bool {
    c.0 <= limits.0 && c.1 <= limits.1
}

/// The factor that brings `counts` under `limits` (with a margin, as the simplifier lands
/// near its target and the file's count is not the scene's).
fn shrink(counts: Counts, limits: Counts) -> f32 {
    let share = |have: usize, max: usize| {
        if have <= max {
            1.0
        } else {
            ratio_of(max, have)
        }
    };
    (share(counts.0, limits.0).min(share(counts.1, limits.1)) * 0.97).clamp(0.01, 0.97)
}

/// `a / b` as f32 for counts (1 when `b` is 0).
fn ratio_of(a: usize, b: usize) -> f32 {
    let f = |v: usize| super::lod::f32_of(u32::try_from(v).unwrap_or(u32::MAX));
    if b == 0 { 1.0 } else { f(a) / f(b) }
}

/// `scene` with every primitive simplified to about `ratio` of its triangles, without
/// the extras that would rebuild the original; and the largest position change the
/// simplifier reports, in model units.
pub(crate) fn simplify(scene: &Scene, ratio: f32) -> (Scene, f32) {
    let mut out = scene.clone();
    out.extras = idmodel_scene::Extras::default();
    let mut moved = 0.0f32;
    for p in out.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        let verts = p.positions.len();
        let valid = |i: &u32| usize::try_from(*i).is_ok_and(|i| i < verts);
        let indices: Vec<u32> = p
            .indices
            .chunks_exact(3)
            .filter(|t| t.iter().all(valid))
            .flatten()
            .copied()
            .collect();
        let triangles = indices.len() / 3;
        let keep = super::lod::target_triangles(triangles, ratio);
        if triangles == 0 || keep >= triangles {
            continue;
        }
        let (kept, error) = simplify_indices(&indices, &p.positions, keep.saturating_mul(3));
        if kept.is_empty() || kept.len() >= indices.len() {
            continue;
        }
        moved = moved.max(error);
        compact(p, &kept);
    }
    (out, moved)
}

/// Keeps the vertices `indices` use, in their order, and the triangles of `indices`.
fn compact(p: &mut idmodel_scene::Primitive, indices: &[u32]) {
    let (remap, kept) = super::lod::used_vertices(indices, p.positions.len());
    p.indices = indices
        .iter()
        .map(|&i| {
            usize::try_from(i)
                .ok()
                .and_then(|i| remap.get(i).copied().flatten())
                .unwrap_or(0)
        })
        .collect();
    fn pick<T: Clone>(v: &[T], kept: &[usize]) -> Vec<T> {
        if v.is_empty() {
            return Vec::new();
        }
        kept.iter().filter_map(|&i| v.get(i).cloned()).collect()
    }
    p.positions = pick(&p.positions, &kept);
    p.normals = pick(&p.normals, &kept);
    p.uvs = pick(&p.uvs, &kept);
    p.influences = pick(&p.influences, &kept);
    for t in &mut p.targets {
        t.positions = pick(&t.positions, &kept);
        t.normals = pick(&t.normals, &kept);
    }
}

/// meshoptimizer's simplification of `indices` towards `target` indices, and the error
/// it reports in model units. The error bound is loose: the triangle count is the goal.
#[cfg(not(target_arch = "wasm32"))]
fn simplify_indices(indices: &[u32], positions: &[[f32; 3]], target: usize) -> (Vec<u32>, f32) {
    let mut error = 0.0f32;
    let kept = meshopt::simplify_decoder(
        indices,
        positions,
        target,
        1.0,
        meshopt::SimplifyOptions::None,
        Some(&mut error),
    );
    (kept, error * meshopt::simplify_scale_decoder(positions))
}

/// The wasm build has no meshoptimizer (C++): nothing is simplified.
#[cfg(target_arch = "wasm32")]
fn simplify_indices(indices: &[u32], _positions: &[[f32; 3]], _target: usize) -> (Vec<u32>, f32) {
    (indices.to_vec(), 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use idmodel_scene::{Mesh, MorphTarget, Primitive};

    /// An `n` × `n` grid with UVs, normals and one morph target lifting every vertex.
    pub(crate) fn grid(n: u32) -> Scene {
        let mut p = Primitive::default();
        for y in 0..n {
            for x in 0..n {
                p.positions.push([x as f32, y as f32, ((x * y) % 7) as f32]);
                p.uvs
                    .push([x as f32 / (n - 1) as f32, y as f32 / (n - 1) as f32]);
                p.normals.push([0.0, 0.0, 1.0]);
            }
        }
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let a = y * n + x;
                p.indices.extend([a, a + 1, a + n + 1, a, a + n + 1, a + n]);
            }
        }
        let lift = vec![[0.0, 0.0, 1.0]; p.positions.len()];
        p.targets.push(MorphTarget {
            positions: lift,
            normals: Vec::new(),
        });
        Scene {
            meshes: vec![Mesh {
                name: "grid".into(),
                primitives: vec![p],
                ..Mesh::default()
            }],
            ..Scene::default()
        }
    }

    fn counts(s: &Scene) -> Counts {
        let p = &s.meshes[0].primitives[0];
        (p.positions.len(), p.indices.len() / 3)
    }

    #[test]
    fn a_scene_over_the_limits_is_simplified_until_it_fits() {
        let scene = grid(50); // 2,500 vertices, 4,802 triangles
        let fitted = fit_counts(&scene, (2000, 4096), "test", |s| Ok(counts(s))).unwrap();
        let (v, t) = counts(&fitted.scene);
        assert!(v <= 2000 && t <= 4096, "{v} {t}");
        assert!(v > 1000, "simplified far more than needed: {v}");
        let line = fitted.line.unwrap();
        assert!(line.starts_with("fitted for test: 2500 → "), "{line}");
        // Every per-vertex array follows the kept vertices.
        let p = &fitted.scene.meshes[0].primitives[0];
        assert_eq!(p.uvs.len(), v);
        assert_eq!(p.normals.len(), v);
        assert_eq!(p.targets[0].positions.len(), v);
        assert!(p.indices.iter().all(|&i| (i as usize) < v));
        // Kept vertices are original ones, with their own UVs.
        let original = &scene.meshes[0].primitives[0];
        for (pos, uv) in p.positions.iter().zip(&p.uvs) {
            let at = original.positions.iter().position(|q| q == pos).unwrap();
            assert_eq!(original.uvs[at], *uv);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// For any grid and limits: the fitted scene is within them or the fitter says it
        /// could not; every per-vertex array keeps one entry per kept vertex, every index
        /// names one, and each kept vertex is one of the input's with its own UV.
        #[test]
        fn fitted_scenes_are_within_the_limits_and_consistent(
            side in 2u32..40,
            max_v in 1usize..1600,
            max_t in 1usize..3200,
        ) {
            let scene = grid(side);
            match fit_counts(&scene, (max_v, max_t), "test", |s| Ok(counts(s))) {
                Ok(fitted) => {
                    let (v, t) = counts(&fitted.scene);
                    proptest::prop_assert!(v <= max_v && t <= max_t);
                    let p = &fitted.scene.meshes[0].primitives[0];
                    proptest::prop_assert_eq!(p.uvs.len(), v);
                    proptest::prop_assert_eq!(p.normals.len(), v);
                    proptest::prop_assert_eq!(p.targets[0].positions.len(), v);
                    proptest::prop_assert!(p.indices.iter().all(|&i| (i as usize) < v));
                    let original = &scene.meshes[0].primitives[0];
                    for (pos, uv) in p.positions.iter().zip(&p.uvs) {
                        let at = original.positions.iter().position(|q| q == pos);
                        proptest::prop_assert!(at.is_some_and(|a| original.uvs[a] == *uv));
                    }
                }
                Err(e) => proptest::prop_assert!(e.starts_with("--fit could not bring")),
            }
        }
    }

    #[test]
    fn a_scene_within_the_limits_is_kept_and_an_unreachable_limit_is_an_error() {
        let scene = grid(10);
        let fitted = fit_counts(&scene, (2000, 4096), "test", |s| Ok(counts(s))).unwrap();
        assert!(fitted.line.is_none());
        assert_eq!(fitted.scene, scene);
        let e = fit_counts(&scene, (0, 0), "test", |s| Ok(counts(s)))
            .err()
            .unwrap();
        assert!(e.starts_with("--fit could not bring 100 vertices and 162 triangles within test's limits (at most 0 vertices and 0 triangles"), "{e}");
    }
}
