//! A bare md5anim → its skeleton as joint nodes with one clip ([`scene`]), or its bones
//! drawn as thin tetrahedra ([`frame`]). See the [parent module](super).

use alloc::borrow::ToOwned;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::quat::{self, JointMat};
use idmodel_core::vec::{add, cross, dot, finite_or_zero, length, scale, sub};
use idmodel_md5::anim::Anim;
use idmodel_md5::pose;

use super::{Bone, anim_local, clip, link_children, node_pose, record_anims};
use crate::{Error, Node, Options, Primitive, Result, Scene, frame_out_of_range};

/// The frame [`Options::frame`] asks for (default 0), checked against the frame count.
fn frame_of(anim: &Anim, options: &Options) -> Result<usize> {
    let n = options.frame.unwrap_or(0);
    if n >= anim.frames.len() {
        return Err(frame_out_of_range(
            n,
            anim.frames.len(),
            "animation",
            "frames",
            "",
        ));
    }
    Ok(n)
}

/// The anim's joints as bones in model space at frame `frame`.
fn anim_bones(anim: &Anim, frame: usize) -> Vec<Bone> {
    let local = anim_local(anim, frame);
    let mut world = vec![JointMat::IDENTITY; local.len()];
    pose::model_space(&anim.hierarchy, &local, &mut world);
    anim.hierarchy
        .iter()
        .zip(&world)
        .enumerate()
        .map(|(i, (h, w))| Bone {
            name: h.name.clone(),
            parent: h.parent_index().filter(|&p| p < i),
            translation: finite_or_zero(w.translation()),
            rotation: quat::IDENTITY,
        })
        .collect()
}

/// The skeleton of `anim` as a scene named `name`: joint nodes in frame
/// [`Options::frame`] (default 0) and, without a frame, one clip named `name` (with its
/// `md5.anims` record in the extras, see the parent module).
pub fn scene(anim: &Anim, name: &str, options: &Options) -> Result<Scene> {
    let n = frame_of(anim, options)?;
    let mut nodes: Vec<Node> = anim
        .hierarchy
        .iter()
        .zip(anim_local(anim, n))
        .map(|(h, p)| {
            let mut node = Node::new(h.name.clone());
            (node.translation, node.rotation) = node_pose(&p);
            node
        })
        .collect();
    link_children(&mut nodes, anim.hierarchy.iter().map(|h| h.parent_index()));
    let mut extras = crate::Extras::default();
    let animations = if options.frame.is_none() {
        record_anims(&mut extras, core::iter::once((name, anim)));
        vec![clip(name.to_owned(), anim, 0)]
    } else {
        Vec::new()
    };
    Ok(Scene {
        name: name.to_owned(),
        nodes,
        animations,
        extras,
        ..Scene::default()
    })
}

/// The bones of `bones` as thin tetrahedra (parent joint → child joint), flat-shaded,
/// clockwise front faces.
fn bone_primitive(bones: &[Bone]) -> Primitive {
    let mut p = Primitive::default();
    for b in bones {
        let Some(parent) = b.parent.and_then(|i| bones.get(i)) else {
            continue;
        };
        let (a, tip) = (parent.translation, b.translation);
        let axis = sub(tip, a);
        let len = length(axis);
        if !(len.is_finite() && len > 1e-4) {
            continue;
        }
        let dir = scale(axis, 1.0 / len);
        let helper = if dir[2].abs() < 0.9 {
            [0.0, 0.0, 1.0]
        } else {
            [1.0, 0.0, 0.0]
        };
        let u = cross(dir, helper);
        let u = scale(u, 1.0 / length(u));
        let v = cross(dir, u);
        let r = len * 0.1;
        let ring = |k: f32| {
            let angle = k * core::f32::consts::TAU / 3.0;
            add(
                a,
                add(
                    scale(u, r * libm::cosf(angle)),
                    scale(v, r * libm::sinf(angle)),
                ),
            )
        };
        let corners = [ring(0.0), ring(1.0), ring(2.0), tip];
        let [c0, c1, c2, c3] = corners;
        let centre = scale(add(add(c0, c1), add(c2, c3)), 0.25);
        for [i, j, k] in [[0usize, 1, 2], [0, 1, 3], [1, 2, 3], [2, 0, 3]] {
            let (Some(&x), Some(&y), Some(&z)) = (corners.get(i), corners.get(j), corners.get(k))
            else {
                continue;
            };
            // Doom's face normal is (c − a) × (b − a); make it point away from the centre.
            let mut face = [x, y, z];
            let n = cross(sub(z, x), sub(y, x));
            let out = sub(scale(add(add(x, y), z), 1.0 / 3.0), centre);
            let n = if dot(n, out) < 0.0 {
                face = [x, z, y];
                scale(n, -1.0)
            } else {
                n
            };
            let base = u32::try_from(p.positions.len()).unwrap_or(u32::MAX);
            for (off, corner) in (0u32..).zip(face) {
                p.positions.push(corner);
                p.normals.push(n);
                p.uvs.push([0.0; 2]);
                p.indices.push(base.saturating_add(off));
            }
        }
    }
    p
}

/// The skeleton of `anim` in frame [`Options::frame`] (default 0) as a still scene named
/// `name`: each bone a thin tetrahedron from the parent joint to the child joint.
pub fn frame(anim: &Anim, name: &str, options: &Options) -> Result<Scene> {
    let n = frame_of(anim, options)?;
    let bones = bone_primitive(&anim_bones(anim, n));
    if bones.indices.is_empty() {
        return Err(Error::new(
            "nothing to draw: the skeleton has no bones of non-zero length in this frame",
        ));
    }
    Ok(Scene::still(name.to_owned(), vec![bones], Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANIM: &str = include_str!("../../../../samples/sample.md5anim");

    #[test]
    fn bones_are_tetrahedra_facing_outwards() {
        let anim = Anim::parse(ANIM.as_bytes()).unwrap();
        let s = frame(&anim, "bend", &Options::default()).unwrap();
        let p = &s.meshes[0].primitives[0];
        // Four faces of three corners per bone of non-zero length.
        assert!(!p.indices.is_empty() && p.indices.len().is_multiple_of(12));
        for tet in p.positions.chunks(12) {
            let mut centre = [0.0f32; 3];
            for v in tet {
                centre = add(centre, scale(*v, 1.0 / 12.0));
            }
            for (face, normals) in tet.chunks(3).zip(p.normals[..].chunks(3)) {
                let mid = scale(add(add(face[0], face[1]), face[2]), 1.0 / 3.0);
                assert!(dot(normals[0], sub(mid, centre)) > 0.0);
            }
        }
        let e = frame(
            &anim,
            "bend",
            &Options {
                frame: Some(9),
                ..Options::default()
            },
        )
        .unwrap_err();
        assert_eq!(
            e.message(),
            "frame 9 is out of range: the animation has 5 frames (0 to 4)"
        );
    }

    #[test]
    fn the_skeleton_scene_has_one_clip_unless_a_frame_is_asked_for() {
        let anim = Anim::parse(ANIM.as_bytes()).unwrap();
        let s = scene(&anim, "bend", &Options::default()).unwrap();
        assert_eq!(s.nodes.len(), anim.hierarchy.len());
        assert_eq!(s.animations.len(), 1);
        assert!(s.meshes.is_empty());
        let one = Options {
            frame: Some(2),
            ..Options::default()
        };
        assert!(scene(&anim, "bend", &one).unwrap().animations.is_empty());
    }
}
