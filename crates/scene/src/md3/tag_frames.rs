//! Tag frames: each tag's exact placement in every frame, carried as geometry so that it
//! survives editors that keep meshes and shape keys but resample node animation.
//!
//! An animated MD3's tags are nodes whose translation and rotation are keyed once per
//! frame. An editor that resamples animation on its own frame grid (Blender writes every
//! clip at its scene rate, 24 fps by default) keeps a tag exact only where a sample falls
//! on a frame: a 30 fps clip, the last frame of a clip that is not a whole number of
//! samples long, frames no clip shows and tag axes that are scaled rotations all come back
//! off. What such an editor does keep exactly is a mesh with its morph targets. So the
//! export adds, under the model's node, one small node per tag named
//! [`PREFIX`]` + tag name` (`frames of tag_weapon`), scaled by [`SCALE`] so that it draws
//! as nothing, whose mesh holds the tag's **origin and three axis rows as four vertex
//! positions** (told apart by their texture coordinate `u` = 0, 1, 2, 3, since editors
//! reorder and split vertices; `v` is the tag's index in the file, since editors reorder
//! nodes too) and whose morph target `k` holds frame `k + 1`, as the model's own mesh does.
//! A model of tags alone (a weapon's hand model) has no mesh of its own to key, so its
//! clips key these nodes' weights one frame at a time instead: its frame count and frame
//! times then travel as a surface model's do.
//!
//! The glTF import, when it restores a resampled morph animation (`idmodel-gltf`'s
//! `import::resampled`), checks every sampled key of a tag that has such a node against
//! what a sampler makes of the exact frames (the lerp of the two frames the key's time
//! falls between): when all agree, the tag's restored keys take the exact frames; when
//! one does not, the tag's animation was edited and the frames node is detached. The way
//! back ([`super::from_scene`]) then reads a tag's frames from its node when it has a
//! target per frame and **agrees with the tag's animation on every frame a clip shows**
//! (origin within [`AGREE_ORIGIN`] units, axis directions within [`AGREE_AXIS`]), which
//! also gives the frames no clip shows and the axes' lengths; otherwise the animation
//! wins. Every adapter but MD3's leaves these nodes out ([`is_tag_frames`]).

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::vec::{cross, dot};
use idmodel_md3::Orientation;

pub use crate::scene::{TAG_FRAMES_PREFIX as PREFIX, editor_name, is_tag_frames};
use crate::{Mesh, MorphTarget, Node, Primitive, Scene};

/// The scale of a tag-frames node: its four points are raw values (an origin and three
/// axes), drawn this small so that they show as nothing.
pub const SCALE: f32 = 1e-4;

/// Largest distance, in model units, between a tag's origin from its frames node and from
/// its animation for the frame to count as agreeing.
pub const AGREE_ORIGIN: f32 = 0.05;

/// Largest difference of unit axis directions for a frame to count as agreeing.
pub const AGREE_AXIS: f32 = 0.01;

/// The four points of one placement: origin, then the axis rows.
fn points(o: &Orientation) -> Vec<[f32; 3]> {
    let mut p = Vec::with_capacity(4);
    p.push(o.origin);
    p.extend(o.axis);
    p
}

/// The tag-frames mesh of one tag, the `index`-th of its file: `base` as the mesh,
/// `frames` (frame 1 onwards) as its targets, named by `target_names`.
pub(crate) fn mesh(
    tag: &str,
    index: usize,
    base: &Orientation,
    frames: impl Iterator<Item = Orientation>,
    target_names: Vec<String>,
) -> Mesh {
    let positions = points(base);
    let targets = frames
        .map(|o| MorphTarget::from_absolute(&positions, &points(&o), &[], &[]))
        .collect();
    Mesh {
        name: node_name(tag),
        primitives: vec![Primitive {
            positions,
            uvs: (0..4u8)
                .map(|u| {
                    [
                        f32::from(u),
                        f32::from(u16::try_from(index).unwrap_or(u16::MAX)),
                    ]
                })
                .collect(),
            indices: vec![0, 1, 2, 0, 2, 3],
            targets,
            ..Primitive::default()
        }],
        target_names,
    }
}

/// The node name of `tag`'s frames.
pub(crate) fn node_name(tag: &str) -> String {
    let mut s = PREFIX.to_string();
    s.push_str(tag);
    s
}

/// The node for a tag-frames mesh.
pub(crate) fn node(tag: &str, mesh: usize) -> Node {
    let mut n = Node::new(node_name(tag));
    n.scale = [SCALE; 3];
    n.mesh = Some(mesh);
    n
}

/// The first primitive of node `node`'s mesh (a tag-frames mesh has one).
fn first_primitive(scene: &Scene, node: usize) -> Option<&Primitive> {
    let mesh = scene.nodes.get(node)?.mesh?;
    scene.meshes.get(mesh)?.primitives.first()
}

/// Tag `tag`'s index in the file it came from, from its frames node's `v`; `None` when
/// it has no frames node or that holds no whole number below 255 there (the export
/// writes 255 for every index from 255 on: such files keep the scene's order).
pub(crate) fn index(scene: &Scene, tag: &str) -> Option<usize> {
    let prim = first_primitive(scene, find(scene, tag)?)?;
    let v = prim.uvs.first()?[1];
    let index = (0..u8::MAX).find(|&i| libm::fabsf(v - f32::from(i)) <= 1e-3)?;
    prim.uvs
        .iter()
        .all(|uv| libm::fabsf(uv[1] - v) <= 1e-3)
        .then_some(usize::from(index))
}

/// Tag `tag`'s placement in each of `frames` frames from its frames node, or `None` when
/// the scene has none for it or it does not hold `frames` frames.
pub(crate) fn read(scene: &Scene, tag: &str, frames: usize) -> Option<Vec<Orientation>> {
    let prim = first_primitive(scene, find(scene, tag)?)?;
    if prim.targets.len().checked_add(1) != Some(frames) || prim.uvs.len() != prim.positions.len() {
        return None;
    }
    // Which vertex holds each of the four points (the first with its `u`).
    let at: Vec<usize> = [0.0f32, 1.0, 2.0, 3.0]
        .iter()
        .map(|&role| prim.uvs.iter().position(|uv| (uv[0] - role).abs() < 1e-3))
        .collect::<Option<Vec<_>>>()?;
    let point = |f: usize, role: usize| -> Option<[f32; 3]> {
        let v = *at.get(role)?;
        let base = *prim.positions.get(v)?;
        let d = match f.checked_sub(1) {
            Some(k) => *prim.targets.get(k)?.positions.get(v)?,
            None => [0.0; 3],
        };
        Some([base[0] + d[0], base[1] + d[1], base[2] + d[2]])
    };
    (0..frames)
        .map(|f| {
            Some(Orientation {
                origin: point(f, 0)?,
                axis: [point(f, 1)?, point(f, 2)?, point(f, 3)?],
            })
        })
        .collect()
}

/// A tag node's exact transform in each frame, from its tag-frames node: `(frames node,
/// [(translation, rotation, scale)] per frame)`, the rotations in one hemisphere (as the
/// export keys them). `None` when `tag` is not a node, or no tag-frames node of its name
/// holds a frame list. The glTF import checks a resampled tag animation against these
/// and detaches the frames node when they disagree (the animation was edited).
///
/// ```
/// use idmodel_md3::{Md3, Model, write};
/// use idmodel_scene::{Options, md3};
/// let bytes = write(&Model::example())?;
/// let scene = md3::scene(&Md3::parse(&bytes)?, "m", &Options::default())?;
/// let tag = scene.nodes.iter().position(|n| n.name == "tag_weapon").unwrap();
/// let (_, frames) = md3::tag_frames_trs(&scene, tag).unwrap();
/// assert_eq!(frames.len(), 3);
/// assert_eq!(frames[0].0, scene.nodes[tag].translation);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[allow(clippy::type_complexity)]
pub fn tag_frames_trs(
    scene: &Scene,
    tag: usize,
) -> Option<(usize, Vec<([f32; 3], [f32; 4], [f32; 3])>)> {
    let name = &scene.nodes.get(tag)?.name;
    let helper = find(scene, name)?;
    let frames = first_primitive(scene, helper)?
        .targets
        .len()
        .saturating_add(1);
    let placements = read(scene, name, frames)?;
    let mut rotations: Vec<[f32; 4]> = placements
        .iter()
        .map(|o| idmodel_core::vec::quat_from_axes(&o.axis))
        .collect();
    idmodel_core::vec::quat_continuous(&mut rotations);
    let trs = placements
        .iter()
        .zip(rotations)
        .map(|(o, q)| (o.origin, q, tag_scale(o)))
        .collect();
    Some((helper, trs))
}

/// The tag-frames node of the tag called `tag`: of that name, else one an editor renamed
/// (`….001`).
fn find(scene: &Scene, tag: &str) -> Option<usize> {
    let of = |n: &Node| n.name.strip_prefix(PREFIX) == Some(tag);
    let renamed = |n: &Node| editor_name(&n.name).strip_prefix(PREFIX) == Some(editor_name(tag));
    let helpers = || {
        scene
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| is_tag_frames(n))
    };
    helpers()
        .find(|(_, n)| of(n))
        .or_else(|| helpers().find(|(_, n)| renamed(n)))
        .map(|(i, _)| i)
}

/// Whether two placements agree (see the module docs).
pub(crate) fn agree(a: &Orientation, b: &Orientation) -> bool {
    let d = |p: [f32; 3], q: [f32; 3]| {
        let s = [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
        libm::sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2])
    };
    let unit = |v: [f32; 3]| idmodel_core::vec::unit(v, 1e-6).unwrap_or([0.0; 3]);
    d(a.origin, b.origin) <= AGREE_ORIGIN
        && a.axis
            .iter()
            .zip(&b.axis)
            .all(|(x, y)| d(unit(*x), unit(*y)) <= AGREE_AXIS)
}

/// The scale a tag node carries beside its rotation: the lengths of the axis rows (1
/// where within 10⁻⁴ of it), the third negative when the axes are left-handed, so
/// that rotation × scale gives back axes that are scaled rotations (trem's are 1.56
/// long). An axis of zero length keeps scale 1 (the rotation cannot say it anyway).
pub(crate) fn tag_scale(o: &Orientation) -> [f32; 3] {
    let len = |v: [f32; 3]| {
        let l = libm::sqrtf(dot(v, v));
        if !l.is_finite() || l < 1e-6 || (l - 1.0).abs() <= 1e-4 {
            1.0
        } else {
            l
        }
    };
    let [fwd, left, up] = o.axis;
    let mut s = [len(fwd), len(left), len(up)];
    if dot(cross(fwd, left), up) < 0.0 {
        s[2] = -s[2];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(x: f32) -> Orientation {
        Orientation {
            origin: [x, 2.0, 3.0],
            axis: [[0.0, 1.56, 0.0], [-1.56, 0.0, 0.0], [0.0, 0.0, 1.56]],
        }
    }

    #[test]
    fn frames_come_back_from_the_mesh_whatever_the_vertex_order() {
        let mut scene = Scene::default();
        let mut m = mesh(
            "tag_a",
            3,
            &o(1.0),
            [o(5.0), o(-7.5)].into_iter(),
            Vec::new(),
        );
        // An editor's reorder: reverse the vertices.
        let p = &mut m.primitives[0];
        p.positions.reverse();
        p.uvs.reverse();
        for t in &mut p.targets {
            t.positions.reverse();
        }
        scene.meshes.push(m);
        scene.nodes.push(node("tag_a.001", 0));
        // A tag really named `tag_a.001` finds it too, by its exact name.
        assert_eq!(
            read(&scene, "tag_a.001", 3).unwrap()[1].origin,
            [5.0, 2.0, 3.0]
        );
        let got = read(&scene, "tag_a", 3).unwrap();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].origin, [1.0, 2.0, 3.0]);
        assert_eq!(got[1].origin, [5.0, 2.0, 3.0]);
        assert_eq!(got[2].origin, [-7.5, 2.0, 3.0]);
        assert_eq!(got[2].axis, o(0.0).axis);
        // Its index in the file, from `v`.
        assert_eq!(index(&scene, "tag_a"), Some(3));
        scene.meshes[0].primitives[0].uvs[1][1] = 2.5;
        assert_eq!(index(&scene, "tag_a"), None);
        // A frame count it does not hold, or another tag: nothing.
        assert!(read(&scene, "tag_a", 4).is_none());
        assert!(read(&scene, "tag_b", 3).is_none());
    }

    #[test]
    fn agreement_ignores_axis_length_but_not_direction() {
        let unit = Orientation {
            origin: [1.0, 2.0, 3.0],
            axis: [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        };
        assert!(agree(&o(1.0), &unit));
        assert!(!agree(&o(1.2), &unit));
        let mut turned = unit;
        turned.axis[0] = [0.1, 1.0, 0.0];
        assert!(!agree(&o(1.0), &turned));
    }

    #[test]
    fn editor_suffixes_come_off() {
        assert_eq!(editor_name("tag_torso.001"), "tag_torso");
        assert_eq!(editor_name("tag_torso.12"), "tag_torso.12");
        assert_eq!(editor_name("tag_torso"), "tag_torso");
        assert_eq!(editor_name("a.b.0042"), "a.b");
    }
}
