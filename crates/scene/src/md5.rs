//! Doom 3 MD5 (`.md5mesh`, `.md5anim`, `.md5camera`, parsed by `idmodel_md5`) →
//! [`Scene`](crate::Scene): [`mesh`], [`anim`] and [`camera`].
//!
//! What the scenes hold:
//!
//! - **md5mesh → a skin** ([`mesh::scene`]). One node per joint, named after it, in file order, forming
//!   the file's hierarchy. Each node's translation and rotation are **parent-relative**,
//!   derived from the model-space bind pose (`t_l = R_p⁻¹·(t − t_p)`, `q_l = q_p⁻¹·q`);
//!   quaternions are converted from Doom's stored form (applied as its conjugate,
//!   docs/formats.md §4.5) to the standard `q·v·q⁻¹` convention with
//!   `idmodel_core::quat::to_standard` and normalised. The inverse bind matrices are the
//!   inverses of the joints' model-space bind transforms. One mesh node (after the joint
//!   nodes) draws one mesh with **one primitive per md5 mesh**: bind-pose positions
//!   computed with Doom's skinning (`Σ bias · (joint ⊗ offset)`, `TransformVerts`), UVs
//!   as stored (`[0, 0]` the top-left of the image), and `JOINTS_0`/`WEIGHTS_0` from the
//!   vertex's weights (joint, bias). The
//!   exporter merges weights on the same joint, drops zero and negative biases, keeps the
//!   **8 largest** (a vertex with more than 4 gets `JOINTS_1`/`WEIGHTS_1`; beyond 8 the
//!   smallest are dropped) and renormalises them to sum to 1 (Doom uses the biases as
//!   they are: `check` reports sums that are not 1). Positions are exact in the bind
//!   pose; animated, glTF's linear blend skinning equals Doom's weighted offsets when the
//!   biases add up to 1.
//! - **Normals**: Doom 3's own smooth normals (`normals::DoomTangents`, docs/formats.md §4.6:
//!   unit face normals summed without weighting, coincident vertices combined by Doom's
//!   rule). To give every vertex Doom's normal, the primitive is the mesh **as Doom 3 draws
//!   it**: a vertex used by triangles of both texture polarities is duplicated (appended
//!   after the file's vertices, same position, UV and weights) and the mirrored triangles
//!   use the copy. So a primitive may have a few more vertices than the file's
//!   `numverts` (the command's `info` reports the file's counts).
//! - **Materials**: one per distinct shader name, named after it, without an image (a
//!   Doom 3 shader is a material declaration, not an image path). An empty shader gets
//!   glTF's default material.
//! - **md5anims for a mesh** (`--anim A.md5anim`, any number, given parsed with their
//!   names): each anim is compared with the mesh by index as Doom's `CheckModelHierarchy`
//!   does ([`mesh::fit`]). A different joint count or different parents refuse the
//!   conversion (naming the first mismatch); different names only give a warning (the
//!   command prints it on stderr) and the anim is applied by index. Each anim becomes one
//!   clip named after its file, with a translation and a rotation channel on every joint node at the
//!   anim's frame rate (key `k` at `k / frameRate` s, LINEAR, which is Doom's lerp/slerp
//!   between frames). A channel whose joint does not animate those components has one key
//!   (the base frame value). Values are the raw parent-relative frames (no root-motion
//!   extraction), rotations in the standard convention with signs kept continuous. A
//!   frame rate of 0 (Doom divides by zero) plays at 24 fps.
//! - **md5anim alone** ([`anim::scene`]): the skeleton as joint nodes (rest pose: frame
//!   0) with one clip as above; no mesh. [`anim::frame`] (for `.obj` and `render`) draws
//!   each bone as a thin tetrahedron from the parent joint to the child joint.
//! - **md5camera → an animated perspective camera** on one node ([`camera::scene`]): vertical field of view
//!   `yfov_from_xfov(fov, 4/3)` (Doom's `fov` is horizontal; 4:3 is Doom 3's default
//!   640×480 view), aspect ratio 4/3, `znear` 3 (Doom's `r_znear`), infinite far plane. The
//!   node's translation and rotation are animated (the IR camera looks along local +X with
//!   +Z up, Doom's forward/left/up rows). Key `k` is at `k / frameRate` s and shows the
//!   frame Doom shows then (`GetViewParms`: every passed cut skips one stored frame). Keys
//!   are LINEAR; at a cut, the frame before the cut is keyed just before the cut's time
//!   (0.1 % of a frame earlier) so the camera never interpolates across a cut. A 60 Hz
//!   camera is stepped every 16 ms without interpolation, as Doom does: STEP keys. A glTF
//!   camera's field of view cannot be animated: the first frame's (or `--frame N`'s) fov
//!   is used (the command's `info` lists the range). A fov outside (0°, 180°) is taken as 90°.
//! - **[`Options::frame`](crate::Options) `N`** (`--frame N`), the only option the MD5
//!   adapters read: md5mesh with anims: the joint nodes hold frame N of the first
//!   anim, no animation; md5mesh alone: only frame 0 (the bind pose); md5anim: frame N;
//!   md5camera: stored frame N. No clips. [`mesh::frame`] poses the mesh with frame N of
//!   the first anim (default 0), or the bind pose without anims, as a still scene.
//! - Everything is in file axes and the file's clockwise winding; the writers convert.
//! - **Extras** (what glTF cannot say, for the way back, [`back`]; the glTF writer puts
//!   them in the glTF scene's `extras`):
//!   - `md5.anims` (with clips: an md5mesh with anims, or an md5anim alone; not with
//!     [`Options::frame`](crate::Options)): one object per clip, in clip order,
//!     `{"bounds": [[minx, miny, minz, maxx, maxy, maxz], …], "commandline": "…",
//!     "frameRate": 24, "frames": 1, "name": "clip"}`: the md5anim's **stored** bounds
//!     (one per frame; the engine culls with them, whatever the mesh does), its
//!     `commandline`, `frameRate` and frame count. A non-finite float is the string
//!     `"bits:XXXXXXXX"` (its `f32` bits in hex). The way back uses a clip's record when
//!     the clip has that name and comes back with that frame count at that rate (see
//!     [`back`]).
//!   - `md5.meshes` (only when a mesh has no vertex or no triangle, which glTF cannot
//!     hold): one `[shader, drawn]` per md5 mesh in file order, `drawn` false for the
//!     meshes the scene's primitive cannot carry through glTF. The way back puts empty
//!     meshes with their shaders back in their places when the scene's other meshes are
//!     still the recorded ones.

pub mod anim;
pub mod back;
pub mod camera;
pub mod mesh;

/// The way back under its earlier name ([`back`]): `idmodel_scene::md5::from_scene::convert`
/// and the rest stay where other crates call them.
pub use back as from_scene;

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::quat::{self, Quat, Vec3};
use idmodel_core::vec::{finite_or_zero, quat_conj, quat_continuous, quat_unit, sub};
use idmodel_md5::anim::{Anim, flags};
use idmodel_md5::pose::{self, JointPose};

use crate::{Animation, Channel, ChannelValues, Extras, Interpolation, Node, Value};

/// Playback rate of an md5anim whose `frameRate` is 0 (Doom divides by zero).
pub const ZERO_RATE_FPS: f64 = 24.0;

/// `k / per_second` seconds.
#[allow(clippy::as_conversions)] // usize → f64 is exact below 2^53; f64 → f32 rounds
fn seconds(k: usize, per_second: f64) -> f32 {
    (k as f64 / per_second) as f32
}

/// Doom's stored quaternion as a unit quaternion in the standard convention.
fn standard(doom: Quat) -> Quat {
    quat_unit(quat::to_standard(doom))
}

/// A joint in model space: standard unit rotation and translation.
#[derive(Debug, Clone)]
struct Bone {
    name: String,
    parent: Option<usize>,
    translation: Vec3,
    rotation: Quat,
}

/// The joint nodes of `bones` (model space), parent-relative, children linked.
fn joint_nodes(bones: &[Bone]) -> Vec<Node> {
    let mut nodes: Vec<Node> = bones
        .iter()
        .map(|b| {
            let mut n = Node::new(b.name.clone());
            match b.parent.and_then(|p| bones.get(p)) {
                Some(p) => {
                    let inv = quat_conj(p.rotation);
                    n.translation =
                        finite_or_zero(quat::rotate(inv, sub(b.translation, p.translation)));
                    n.rotation = quat_unit(quat::mul(inv, b.rotation));
                }
                None => {
                    n.translation = b.translation;
                    n.rotation = b.rotation;
                }
            }
            n
        })
        .collect();
    link_children(&mut nodes, bones.iter().map(|b| b.parent));
    nodes
}

/// Adds each node to its parent's children (parents come first).
fn link_children(nodes: &mut [Node], parents: impl Iterator<Item = Option<usize>>) {
    for (i, p) in parents.enumerate() {
        if let Some(parent) = p.filter(|&p| p < i).and_then(|p| nodes.get_mut(p)) {
            parent.children.push(i);
        }
    }
}

/// The parent-relative pose of frame `frame` of `anim` for joints with flags, or the base
/// frame for the others; one entry per hierarchy joint.
fn anim_local(anim: &Anim, frame: usize) -> Vec<JointPose> {
    let mut out = vec![JointPose::IDENTITY; anim.hierarchy.len()];
    anim.local_pose(frame, &mut out);
    out
}

/// One parent-relative pose as node translation and standard rotation.
fn node_pose(p: &JointPose) -> (Vec3, Quat) {
    (finite_or_zero(p.position), standard(p.orientation))
}

/// The anim frame rate in frames per second (0 → [`ZERO_RATE_FPS`]).
pub fn anim_fps(anim: &Anim) -> f64 {
    if anim.frame_rate > 0 {
        f64::from(anim.frame_rate)
    } else {
        ZERO_RATE_FPS
    }
}

/// A clip named `name` of `anim` on the joint nodes `first_node..`: translation and
/// rotation channels for every joint (one key when the joint does not animate those
/// components).
pub fn clip(name: String, anim: &Anim, first_node: usize) -> Animation {
    let fps = anim_fps(anim);
    let frames = anim.frames.len().max(1);
    let times: Vec<f32> = (0..frames).map(|k| seconds(k, fps)).collect();
    let mut channels = Vec::new();
    let t_bits = flags::TX | flags::TY | flags::TZ;
    let q_bits = flags::QX | flags::QY | flags::QZ;
    for (j, (h, b)) in anim.hierarchy.iter().zip(&anim.base_frame).enumerate() {
        let node = first_node.saturating_add(j);
        let one_h = core::slice::from_ref(h);
        let one_b = core::slice::from_ref(b);
        let pose_of = |components: &[f32]| {
            let mut out = [JointPose::IDENTITY];
            pose::frame_local(one_h, one_b, components, &mut out);
            let [p] = out;
            node_pose(&p)
        };
        let animated = h.flags != 0;
        let poses: Vec<(Vec3, Quat)> = if animated {
            if anim.frames.is_empty() {
                vec![pose_of(&[])]
            } else {
                anim.frames.iter().map(|f| pose_of(f)).collect()
            }
        } else {
            vec![pose_of(anim.frames.first().map_or(&[][..], Vec::as_slice))]
        };
        let first = poses.first().copied().unwrap_or(([0.0; 3], quat::IDENTITY));
        let (ts, tt): (Vec<Vec3>, Vec<f32>) = if h.flags & t_bits != 0 {
            (poses.iter().map(|p| p.0).collect(), times.clone())
        } else {
            (vec![first.0], vec![0.0])
        };
        let (mut qs, qt): (Vec<Quat>, Vec<f32>) = if h.flags & q_bits != 0 {
            (poses.iter().map(|p| p.1).collect(), times.clone())
        } else {
            (vec![first.1], vec![0.0])
        };
        quat_continuous(&mut qs);
        channels.push(Channel {
            node,
            times: tt,
            interpolation: Interpolation::Linear,
            values: ChannelValues::Translation(ts),
        });
        channels.push(Channel {
            node,
            times: qt,
            interpolation: Interpolation::Linear,
            values: ChannelValues::Rotation(qs),
        });
    }
    Animation { name, channels }
}

/// An `f32` exactly as an extras value: a number when finite, else `"bits:XXXXXXXX"`.
fn f_value(f: f32) -> Value {
    if f.is_finite() {
        Value::Float(f)
    } else {
        Value::Str(alloc::format!("bits:{:08x}", f.to_bits()))
    }
}

/// The `f32` of [`f_value`] (a whole number read back as an integer too).
fn value_f(v: &Value) -> Option<f32> {
    match v {
        Value::Float(f) => Some(*f),
        Value::Int(i) => i32::try_from(*i)
            .ok()
            .filter(|i| i.unsigned_abs() <= 1 << 24)
            .map(|i| narrow(f64::from(i))),
        Value::Str(s) => s
            .strip_prefix("bits:")
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .map(f32::from_bits),
        _ => None,
    }
}

/// `f64` → the nearest `f32`.
#[allow(clippy::as_conversions)] // rounding to the nearest f32 is the point
fn narrow(x: f64) -> f32 {
    x as f32
}

/// The `md5.anims` record of one clip (see the module docs).
fn anim_record(name: &str, anim: &Anim) -> Value {
    let bounds = anim
        .bounds
        .iter()
        .map(|[lo, hi]| Value::List(lo.iter().chain(hi).map(|&c| f_value(c)).collect()))
        .collect();
    Value::Object(vec![
        ("bounds".into(), Value::List(bounds)),
        ("commandline".into(), Value::Str(anim.commandline.clone())),
        ("frameRate".into(), Value::Int(i64::from(anim.frame_rate))),
        (
            "frames".into(),
            Value::Int(i64::try_from(anim.frames.len()).unwrap_or(i64::MAX)),
        ),
        ("name".into(), Value::Str(name.into())),
    ])
}

/// Stores the `md5.anims` record of `clips` (`(clip name, anim)`) in `extras`.
fn record_anims<'a>(extras: &mut Extras, clips: impl Iterator<Item = (&'a str, &'a Anim)>) {
    let list: Vec<Value> = clips.map(|(n, a)| anim_record(n, a)).collect();
    if !list.is_empty() {
        extras.set("md5.anims", Value::List(list));
    }
}

/// One clip's `md5.anims` record, read back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnimRecord {
    /// The stored bounds, one per frame.
    pub bounds: Vec<[Vec3; 2]>,
    /// The `commandline`.
    pub commandline: String,
    /// The stored `frameRate`.
    pub frame_rate: i32,
    /// The frame count.
    pub frames: usize,
    /// The clip's name.
    pub name: String,
}

/// The `md5.anims` records of `extras` (the well-formed ones, in order; `None` for a
/// malformed entry).
pub(crate) fn anim_records(extras: &Extras) -> Vec<Option<AnimRecord>> {
    let Some(list) = extras.get("md5.anims").and_then(Value::as_list) else {
        return Vec::new();
    };
    list.iter()
        .map(|v| {
            let Value::Object(o) = v else { return None };
            let get = |k: &str| o.iter().find(|(key, _)| key == k).map(|(_, v)| v);
            let bounds = get("bounds")?
                .as_list()?
                .iter()
                .map(|b| {
                    let c: Vec<f32> = b.as_list()?.iter().map(value_f).collect::<Option<_>>()?;
                    match c.as_slice() {
                        &[a, b, c, d, e, f] => Some([[a, b, c], [d, e, f]]),
                        _ => None,
                    }
                })
                .collect::<Option<Vec<_>>>()?;
            let frames = usize::try_from(get("frames")?.as_int()?).ok()?;
            (bounds.len() == frames).then_some(())?;
            Some(AnimRecord {
                bounds,
                commandline: get("commandline")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .into(),
                frame_rate: i32::try_from(get("frameRate")?.as_int()?).ok()?,
                frames,
                name: get("name")?.as_str()?.into(),
            })
        })
        .collect()
}

/// Stores the `md5.meshes` record of `model` when one of its meshes cannot go through
/// glTF (no vertex or no triangle).
fn record_meshes(extras: &mut Extras, model: &idmodel_md5::mesh::Model) {
    let drawn = |m: &idmodel_md5::mesh::Mesh| !m.vertices.is_empty() && !m.triangles.is_empty();
    if model.meshes.iter().all(drawn) {
        return;
    }
    let list = model
        .meshes
        .iter()
        .map(|m| Value::List(vec![Value::Str(m.shader.clone()), Value::Bool(drawn(m))]))
        .collect();
    extras.set("md5.meshes", Value::List(list));
}

/// The `md5.meshes` record: `(shader, drawn)` per md5 mesh, or `None`.
pub(crate) fn mesh_record(extras: &Extras) -> Option<Vec<(String, bool)>> {
    extras
        .get("md5.meshes")?
        .as_list()?
        .iter()
        .map(|v| match v.as_list()? {
            [s, d] => Some((s.as_str()?.into(), d.as_bool()?)),
            _ => None,
        })
        .collect()
}
