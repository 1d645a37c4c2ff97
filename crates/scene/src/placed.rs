//! What the consumers of a whole scene draw (the renderer, the OBJ writer): every
//! primitive of every node's mesh, in node order, with its positions and normals moved by
//! the node's world transform (its own and its ancestors' translation, rotation, scale).
//!
//! Base positions only: morph targets and skins are not applied. A node whose whole chain
//! has the identity transform lends its primitive's lists unchanged, so a still scene
//! (one node, identity transform) is drawn from exactly the bits the adapter wrote.

use alloc::borrow::Cow;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::quat::{self, Vec3};
use idmodel_core::vec::{add, cross, dot, quat_unit, scale};

use crate::{Node, Primitive, Scene};

/// An affine transform: three linear columns and the translation.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Affine {
    cols: [Vec3; 3],
    t: Vec3,
}

impl Affine {
    /// The node's `T · R · S`, `None` for the identity.
    fn of(node: &Node) -> Option<Affine> {
        if node.translation == [0.0; 3]
            && node.rotation == [0.0, 0.0, 0.0, 1.0]
            && node.scale == [1.0; 3]
        {
            return None;
        }
        let q = quat_unit(node.rotation);
        let [sx, sy, sz] = node.scale;
        Some(Affine {
            cols: [
                scale(quat::rotate(q, [1.0, 0.0, 0.0]), sx),
                scale(quat::rotate(q, [0.0, 1.0, 0.0]), sy),
                scale(quat::rotate(q, [0.0, 0.0, 1.0]), sz),
            ],
            t: node.translation,
        })
    }

    fn linear(&self, [x, y, z]: Vec3) -> Vec3 {
        let [c0, c1, c2] = self.cols;
        add(add(scale(c0, x), scale(c1, y)), scale(c2, z))
    }

    fn point(&self, p: Vec3) -> Vec3 {
        add(self.linear(p), self.t)
    }

    /// A normal through the cofactor matrix (the inverse transpose times the
    /// determinant), sign-corrected; consumers normalise it.
    fn normal(&self, [x, y, z]: Vec3) -> Vec3 {
        let [c0, c1, c2] = self.cols;
        let (a, b, c) = (cross(c1, c2), cross(c2, c0), cross(c0, c1));
        let n = add(add(scale(a, x), scale(b, y)), scale(c, z));
        if dot(c0, a) < 0.0 { scale(n, -1.0) } else { n }
    }

    /// `self · local`.
    fn then(&self, local: &Affine) -> Affine {
        Affine {
            cols: local.cols.map(|c| self.linear(c)),
            t: self.point(local.t),
        }
    }
}

/// The world transform of every node (`None`: identity). A node is the child of the first
/// node listing it; a chain longer than the node count (a cycle) stops there.
fn world_transforms(nodes: &[Node]) -> Vec<Option<Affine>> {
    let mut parent: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for &c in &n.children {
            if let Some(p) = parent.get_mut(c).filter(|p| p.is_none() && c != i) {
                *p = Some(i);
            }
        }
    }
    (0..nodes.len())
        .map(|i| {
            let mut chain = Vec::new();
            let mut at = Some(i);
            while let Some(n) = at {
                if chain.len() >= nodes.len() {
                    break;
                }
                chain.push(n);
                at = parent.get(n).copied().flatten();
            }
            chain.iter().rev().fold(None, |world: Option<Affine>, &n| {
                let local = nodes.get(n).and_then(Affine::of);
                match (world, local) {
                    (None, l) => l,
                    (w, None) => w,
                    (Some(w), Some(l)) => Some(w.then(&l)),
                }
            })
        })
        .collect()
}

/// One primitive as drawn: world positions and normals, the rest as stored.
#[derive(Debug, Clone)]
pub(crate) struct Placed<'a> {
    /// The primitive (UVs, indices, material).
    pub prim: &'a Primitive,
    /// Positions in world space.
    pub positions: Cow<'a, [Vec3]>,
    /// Normals in world space (not normalised), as many as the primitive has.
    pub normals: Cow<'a, [Vec3]>,
}

/// Every primitive the scene draws, in node order (see the module docs).
pub(crate) fn placed(scene: &Scene) -> Vec<Placed<'_>> {
    let worlds = world_transforms(&scene.nodes);
    let mut out = Vec::new();
    for (node, world) in scene.nodes.iter().zip(worlds) {
        let Some(mesh) = node.mesh.and_then(|m| scene.meshes.get(m)) else {
            continue;
        };
        if crate::scene::is_tag_frames(node) {
            continue;
        }
        for prim in &mesh.primitives {
            let (positions, normals) = match world {
                None => (
                    Cow::Borrowed(prim.positions.as_slice()),
                    Cow::Borrowed(prim.normals.as_slice()),
                ),
                Some(w) => (
                    Cow::Owned(prim.positions.iter().map(|&p| w.point(p)).collect()),
                    Cow::Owned(prim.normals.iter().map(|&n| w.normal(n)).collect()),
                ),
            };
            out.push(Placed {
                prim,
                positions,
                normals,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mesh;

    /// One mesh of one [`tri`], drawn by `nodes`.
    fn tri_scene(nodes: Vec<Node>) -> Scene {
        Scene {
            meshes: vec![Mesh {
                primitives: vec![tri()],
                ..Mesh::default()
            }],
            nodes,
            ..Scene::default()
        }
    }

    fn tri() -> Primitive {
        Primitive {
            positions: vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-0.0, 0.0, 1.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        }
    }

    #[test]
    fn identity_chains_lend_the_stored_bits() {
        let mut node = Node::new("n");
        node.mesh = Some(0);
        let scene = tri_scene(vec![node]);
        let p = placed(&scene);
        assert_eq!(p.len(), 1);
        assert!(matches!(p[0].positions, Cow::Borrowed(_)));
        // The negative zero survives (an identity transform would turn it into +0).
        assert!(p[0].positions[2][0].is_sign_negative());
    }

    #[test]
    fn children_move_with_their_parents() {
        let mut root = Node::new("root");
        root.translation = [10.0, 0.0, 0.0];
        root.scale = [2.0; 3];
        root.children = vec![1];
        let mut child = Node::new("child");
        // 90° about Z.
        let h = core::f32::consts::FRAC_1_SQRT_2;
        child.rotation = [0.0, 0.0, h, h];
        child.translation = [0.0, 1.0, 0.0];
        child.mesh = Some(0);
        let scene = tri_scene(vec![root, child]);
        let p = placed(&scene);
        assert_eq!(p.len(), 1);
        // (1, 0, 0) → rotated (0, 1, 0) → + (0, 1, 0) → scaled (0, 4, 0) → + (10, 0, 0).
        let v = p[0].positions[0];
        assert!(
            (v[0] - 10.0).abs() < 1e-5 && (v[1] - 4.0).abs() < 1e-5,
            "{v:?}"
        );
        let n = p[0].normals[0];
        assert!(
            n[2] > 0.0 && n[0].abs() < 1e-5 && n[1].abs() < 1e-5,
            "{n:?}"
        );
    }

    #[test]
    fn cycles_do_not_hang() {
        let mut a = Node::new("a");
        a.children = vec![1];
        a.translation = [1.0, 0.0, 0.0];
        a.mesh = Some(0);
        let mut b = Node::new("b");
        b.children = vec![0];
        let scene = tri_scene(vec![a, b]);
        assert_eq!(placed(&scene).len(), 1);
    }
}
