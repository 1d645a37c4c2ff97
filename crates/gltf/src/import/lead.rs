//! Meshes whose base is never shown: their first morph target stands in for it.
//!
//! A glTF mesh whose own `weights` (the default of every node drawing it) are
//! `[1, 0, …, 0]` rests at its first target, not at its base: the quantized form idmodel
//! writes when some normals need a hidden base ([`idmodel_scene::quantize`]), or any
//! tool's mesh made that way. When every row of weights its nodes show (their rest
//! weights and every animation key) sums to 1, no pose shows the base alone, and the
//! first target is folded into it: positions added, normals by [`fold_base`] and
//! [`fold_target`]; the first target, its name and its weight column are dropped. Every
//! pose shown is the same, and the scene's base is frame 0 again, as everywhere else. Any
//! other mesh is left as it is.

use alloc::vec::Vec;

use idmodel_scene::quantize::{fold_base, fold_target};
use idmodel_scene::{ChannelValues, Scene};

/// How far a key's first weight may be from what its others leave of 1 (an editor's
/// resampled keys sum to 1 within float rounding).
const SLACK: f32 = 1e-4;

/// Whether each glTF mesh of `root` has the default weights `[1, 0, …, 0]`.
pub(super) fn first_at_rest(root: &serde_json::Value) -> Vec<bool> {
    root.get("meshes")
        .and_then(serde_json::Value::as_array)
        .map(|meshes| {
            meshes
                .iter()
                .map(|m| {
                    m.get("weights")
                        .and_then(serde_json::Value::as_array)
                        .and_then(|w| w.split_first())
                        .is_some_and(|(first, rest)| {
                            first.as_f64() == Some(1.0)
                                && rest.iter().all(|x| x.as_f64() == Some(0.0))
                        })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Folds every mesh of `scene` that `first` marks ([`first_at_rest`], by mesh) and whose
/// rows of weights all sum to 1 (see the module docs).
pub(super) fn fold(scene: &mut Scene, first: &[bool]) {
    for m in 0..scene.meshes.len() {
        if first.get(m).copied().unwrap_or(false) && leads(scene, m) {
            fold_mesh(scene, m);
        }
    }
}

/// Whether every row of weights shown on mesh `m` sums to 1.
fn leads(scene: &Scene, m: usize) -> bool {
    let Some(mesh) = scene.meshes.get(m) else {
        return false;
    };
    let targets = mesh.primitives.first().map_or(0, |p| p.targets.len());
    if targets == 0 || mesh.primitives.iter().any(|p| p.targets.len() != targets) {
        return false;
    }
    let nodes: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| scene.nodes.get(i).is_some_and(|n| n.mesh == Some(m)))
        .collect();
    let whole = |w: &[f32]| w.len() == targets && (w.iter().sum::<f32>() - 1.0).abs() <= SLACK;
    if nodes.is_empty()
        || !nodes
            .iter()
            .all(|&i| scene.nodes.get(i).is_some_and(|n| whole(&n.weights)))
    {
        return false;
    }
    scene
        .animations
        .iter()
        .flat_map(|a| &a.channels)
        .filter(|c| nodes.contains(&c.node))
        .all(|c| match &c.values {
            ChannelValues::Weights(w) => {
                w.len() == c.times.len().saturating_mul(targets)
                    && w.chunks_exact(targets).all(whole)
            }
            ChannelValues::SparseWeights {
                targets: n,
                nonzero,
            } => *n == targets && sparse_rows_sum_to_one(nonzero, c.times.len()),
            _ => true,
        })
}

/// Whether every key of sparse weights over `keys` keys sums to 1 (a key without entries
/// sums to 0).
fn sparse_rows_sum_to_one(nonzero: &[(usize, usize, f32)], keys: usize) -> bool {
    let mut at = 0usize;
    for k in 0..keys {
        let mut sum = 0.0f32;
        while let Some(&(_, _, w)) = nonzero.get(at).filter(|e| e.0 == k) {
            sum += w;
            at = at.saturating_add(1);
        }
        if (sum - 1.0).abs() > SLACK {
            return false;
        }
    }
    at == nonzero.len()
}

fn fold_mesh(scene: &mut Scene, m: usize) {
    let Some(mesh) = scene.meshes.get_mut(m) else {
        return;
    };
    for p in &mut mesh.primitives {
        if p.targets.is_empty() {
            continue;
        }
        let first = p.targets.remove(0);
        for (b, d) in p.positions.iter_mut().zip(&first.positions) {
            *b = [b[0] + d[0], b[1] + d[1], b[2] + d[2]];
        }
        for t in &mut p.targets {
            for (x, d) in t.positions.iter_mut().zip(&first.positions) {
                *x = [x[0] - d[0], x[1] - d[1], x[2] - d[2]];
            }
        }
        if first.normals.len() == p.normals.len() {
            for (v, (b, &d0)) in p.normals.iter_mut().zip(&first.normals).enumerate() {
                let read = *b;
                let folded = fold_base(read, d0);
                for t in &mut p.targets {
                    if let Some(d) = t.normals.get_mut(v) {
                        *d = fold_target(read, d0, folded, *d);
                    }
                }
                *b = folded;
            }
        }
    }
    if !mesh.target_names.is_empty() {
        mesh.target_names.remove(0);
    }
    let nodes: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| scene.nodes.get(i).is_some_and(|n| n.mesh == Some(m)))
        .collect();
    for &i in &nodes {
        if let Some(n) = scene.nodes.get_mut(i) {
            n.weights.remove(0);
            if n.weights.iter().all(|&w| w == 0.0) {
                n.weights.clear();
            }
        }
    }
    for c in scene
        .animations
        .iter_mut()
        .flat_map(|a| &mut a.channels)
        .filter(|c| nodes.contains(&c.node))
    {
        match &mut c.values {
            ChannelValues::Weights(w) => {
                let targets = w.len().checked_div(c.times.len()).unwrap_or(0);
                let kept: Vec<f32> = w
                    .chunks_exact(targets.max(1))
                    .flat_map(|row| row.iter().skip(1).copied())
                    .collect();
                *w = kept;
            }
            ChannelValues::SparseWeights { targets, nonzero } => {
                *targets = targets.saturating_sub(1);
                nonzero.retain(|e| e.1 != 0);
                for e in nonzero.iter_mut() {
                    e.1 = e.1.saturating_sub(1);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use idmodel_scene::{Animation, Channel, Interpolation, Mesh, MorphTarget, Node, Primitive};

    fn scene(values: ChannelValues, keys: usize, rest: Vec<f32>) -> Scene {
        let target = |x: f32| MorphTarget {
            positions: vec![[x, 0.0, 0.0]; 2],
            normals: vec![[0.0; 3]; 2],
        };
        let mut node = Node::new("n");
        node.mesh = Some(0);
        node.weights = rest;
        Scene {
            meshes: vec![Mesh {
                name: "m".into(),
                primitives: vec![Primitive {
                    positions: vec![[0.0; 3]; 2],
                    normals: vec![[0.0, 0.0, 1.0]; 2],
                    indices: vec![0, 1, 0],
                    targets: vec![target(0.5), target(2.0)],
                    ..Primitive::default()
                }],
                target_names: vec!["frame0".into(), "one".into()],
            }],
            nodes: vec![node],
            animations: vec![Animation {
                name: "a".into(),
                channels: vec![Channel {
                    node: 0,
                    times: [0.0, 1.0, 2.0].into_iter().take(keys).collect(),
                    interpolation: Interpolation::Linear,
                    values,
                }],
            }],
            ..Scene::default()
        }
    }

    #[test]
    fn only_whole_rows_on_a_marked_mesh_fold() {
        // Frame 0 (target 0) then frame 1 (target 1): folded, target 0 into the base.
        let mut s = scene(
            ChannelValues::one_hot(2, [Some(0), Some(1)]),
            2,
            vec![1.0, 0.0],
        );
        fold(&mut s, &[true]);
        let p = &s.meshes[0].primitives[0];
        assert_eq!(p.positions, vec![[0.5, 0.0, 0.0]; 2]);
        assert_eq!(p.targets.len(), 1);
        assert_eq!(p.targets[0].positions, vec![[1.5, 0.0, 0.0]; 2]);
        assert_eq!(s.meshes[0].target_names, ["one"]);
        assert!(s.nodes[0].weights.is_empty());
        assert_eq!(
            s.animations[0].channels[0].values,
            ChannelValues::one_hot(1, [None, Some(0)])
        );
        // Not marked, a row showing the base alone, rows of the wrong size, sparse keys
        // past the channel: left as they are.
        for (values, keys, first) in [
            (ChannelValues::one_hot(2, [Some(0), Some(1)]), 2, false),
            (ChannelValues::one_hot(2, [None, Some(1)]), 2, true),
            (ChannelValues::Weights(vec![1.0, 0.0, 0.0]), 2, true),
            (
                ChannelValues::one_hot(2, [Some(0), Some(1), Some(1)]),
                2,
                true,
            ),
        ] {
            let mut s = scene(values, keys, vec![1.0, 0.0]);
            let before = s.clone();
            fold(&mut s, &[first]);
            assert_eq!(s, before);
        }
    }
}
