//! [`Scene`] → md5 (the way back; also reachable as `md5::from_scene`, its earlier
//! name): a skin becomes an md5mesh ([`mesh`]), each animation an md5anim
//! ([`anim`]), each animated camera an md5camera ([`cameras`]); [`convert`] does all
//! three. The results are the md5 crate's owned models,
//! written with its writers (`idmodel_md5::{mesh, anim, camera}::write`), whose numbers
//! read back through Doom's lexer as the same `f32`s (`idmodel_md5::write::write_f32`).
//!
//! One file because it is one conversion: the skeleton, the meshes, the clips and the
//! cameras are recovered from the same scene walk and checked against each other.
//!
//! What is written, and why:
//!
//! - **Joints** ([`skeleton`]): the joint nodes of every skin that a mesh node uses (the
//!   first skin's order first), plus each unskinned mesh node that has no joint above it.
//!   A scene without skins (a bare skeleton, rigid parts on nodes) makes every node that
//!   holds no camera a joint. A joint's parent is its nearest ancestor node that is a
//!   joint. Parents come before children: a joint listed before its parent is moved after
//!   it (the file order is kept otherwise). When that leaves more than one root and the
//!   scene animates them, a joint `origin` at the identity is added first as their parent
//!   (md5anim allows one root; an md5mesh alone keeps its roots).
//! - **Bind pose** (model space = the scene's world space): the inverse of the joint's
//!   inverse bind matrix, because that is what glTF skinning multiplies by: with it the
//!   md5 skinning `Σ bias·(joint ⊗ offset)` equals glTF's `Σ w·joint·IBM·v` in *every*
//!   pose, not only at rest. The rest pose (the joint node's world transform) is used
//!   instead when the skin has no matrices or a matrix is not a rotation plus translation
//!   (scale, shear, mirror or non-finite: md5 joints cannot hold it); then the offsets are
//!   taken from the rest-pose skinned positions, exact at rest. Orientations are stored as
//!   the unit quaternion's `x, y, z` in Doom's form on the `w ≥ 0` hemisphere
//!   (`idmodel_core::quat::from_standard`).
//! - **Meshes**: one md5 mesh per primitive (in node order), shader = the material's name,
//!   else its image URI, else empty (`"` and line breaks become `_`). UVs as they are (both
//!   put `[0, 0]` at the top-left). Influences: pairs on the same joint merged, zero,
//!   negative and non-finite weights dropped, at most [`MAX_WEIGHTS`] kept (the smallest
//!   dropped), the rest divided by their sum unless it is exactly 1; a vertex left without
//!   weight is bound to the skin's joint 0. Weight offsets are `M⁻¹·(p − t)` with `M`, `t`
//!   the joint matrix **Doom rebuilds** from the stored `x, y, z` (its `w` from `CalcW`),
//!   so Doom's `TransformVerts` lands on the bind position `p`. An unskinned primitive is
//!   bound to its node's nearest ancestor-or-self joint with weight 1 (its positions moved
//!   by the node's rest world transform). Vertices equal in position, UV and weights are
//!   welded (the forward adapter's mirrored-vertex copies, which Doom makes itself at load,
//!   merge back). Normals and morph targets are not written: Doom derives its own normals,
//!   and md5 has no morphs. Meshes without a vertex or a triangle, which glTF cannot hold,
//!   come back from the scene's `md5.meshes` extras (see the [md5 module docs](super)):
//!   empty, with their shaders, in their places, when the scene's meshes are still the
//!   recorded drawn ones (as many, same shaders, same order).
//! - **md5anim per animation that keys a joint** (or a node above one), one-frame clips
//!   included (a clip whose channels hold one key each is one frame: every Doom 3 view
//!   weapon's idle pose): every frame samples the scene's channels (glTF
//!   semantics: clamped ends, LINEAR lerp/slerp, STEP held) and takes each joint's
//!   transform relative to its parent joint (a node's own translation and rotation when
//!   the parent joint is its scene parent, else `parent_world⁻¹·world`); scale is dropped.
//!   **Frame rate**: [`Md5Options::fps`] when given (resampling); else the clip's recorded
//!   `frameRate` (`md5.anims` extras) when every key time is a frame at it and the frame
//!   count is the recorded one; else [`DEFAULT_FPS`] for a clip without a key past its
//!   first (one frame); else the smallest whole
//!   rate up to [`MAX_FPS`] that puts every key time within 1/100 of a frame of its grid
//!   (the keys then are frames, and nothing is lost); else the keys are irregular and are
//!   **resampled at [`DEFAULT_FPS`]**: frames at `k/fps` s from 0 to the last key (the last
//!   frame at or after it), each sampled as above. The base frame is frame 0; a joint's
//!   flags name only the components (`Tx … Qz`) whose stored value differs from frame 0 in
//!   some frame by more than 1e-6 of its size (smaller differences are rounding: Doom's `w`
//!   is recomputed from `x, y, z`, so a joint animating `Qx Qy` moves `Qz` in its last
//!   bits); an unanimated component keeps frame 0's value. **Bounds**: the md5anim's
//!   stored bounds (the engine culls with them) from the scene's `md5.anims` extras when
//!   the clip there has the animation's name and comes back with the recorded frame count
//!   at the recorded rate (the stored `frameRate`, 0 included, and `commandline` come
//!   back with them); else each frame's model-space bounds of the mesh as Doom skins it
//!   with the frame's joints (of the joint positions without a mesh). Quaternions are on
//!   Doom's `w ≥ 0` hemisphere in every frame (the only form md5 stores); Doom's `Slerp`
//!   flips the target of a negative dot product, so playback stays on the short way
//!   across a sign change, as the scene's continuous keys do. STEP keys in an anim become a
//!   one-frame ramp (Doom always interpolates between frames).
//! - **md5camera per animated camera node**: position and orientation are the node's
//!   world transform (the scene's camera looks along +X with +Z up, as Doom's does); the
//!   fov is the camera's static `yfov` turned horizontal with its aspect ratio (4/3 when
//!   unknown): the scene has no fov channel. A jump — a STEP key, or two LINEAR keys closer
//!   than 1/100 of a frame, which is how the forward adapter keys a cut — inside a frame
//!   becomes a cut: the value just before the jump is stored as the frame before the cut,
//!   and Doom never interpolates across it. All-STEP cameras on a 16 ms grid are written at
//!   60 Hz (Doom's `USERCMD_HZ`, stepped without interpolation).
//! - **Not done**: byte-identical text through `extras` (numbers are exact to the `f32`
//!   they carry, the text layout is the writer's); mesh names and the md5mesh's
//!   `commandline` are empty. Two md5 meshes with one shader that an editor merged into
//!   one primitive (Blender keeps one per material) stay merged.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_core::quat::{self, JointMat, Quat, Vec3};
use idmodel_core::vec::{quat_dot, quat_from_axes, quat_unit};
use idmodel_md5::anim::{Anim, BaseJoint, HierarchyJoint};
use idmodel_md5::camera::{Camera as Md5Camera, CameraFrame, USERCMD_HZ};
use idmodel_md5::mesh::{Joint, Mesh as Md5Mesh, Model, Vertex, Weight};
use idmodel_md5::{pose, skinning};

use super::camera::CAMERA_ASPECT;
use super::{AnimRecord, seconds};
use crate::{Animation, Channel, ChannelValues, Error, Interpolation, Result, Scene};

/// The most weights a vertex keeps (the largest; the glTF writer keeps as many).
pub const MAX_WEIGHTS: usize = 8;
/// The frame rate irregular keys are resampled at when no rate is asked for.
pub const DEFAULT_FPS: u32 = 24;
/// The highest frame rate tried when looking for the rate of the key times.
pub const MAX_FPS: u32 = 240;
/// Name of the joint added as the common parent of several roots.
pub const ORIGIN_JOINT: &str = "origin";

/// The caller's choices for the way back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Md5Options {
    /// Frame rate of every md5anim and md5camera (`--fps`): the animation is resampled
    /// at it. `None`: the rate of the key times (see the module docs).
    pub fps: Option<u32>,
    /// The most bytes the sampled frames may take (`None`:
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES)); checked before any frame is made.
    pub max_bytes: Option<u64>,
}

impl Md5Options {
    fn check_budget(&self, need: u64) -> Result<()> {
        crate::Options {
            max_bytes: self.max_bytes,
            ..crate::Options::default()
        }
        .check_budget(need)
    }
}

/// The md5 files of a scene ([`convert`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Md5Files {
    /// The md5mesh, when the scene has a mesh.
    pub mesh: Option<Model>,
    /// One md5anim per animation that keys a joint (one-frame clips included), with the
    /// animation's name.
    pub anims: Vec<(String, Anim)>,
    /// One md5camera per camera node (and animation moving it), with its name.
    pub cameras: Vec<(String, Md5Camera)>,
}

/// The whole scene as md5 files: the mesh and the anims on one [`skeleton`] (so every anim
/// fits the mesh), and the cameras.
///
/// ```
/// use idmodel_md5::mesh::Model;
/// let text = "MD5Version 10\ncommandline \"\"\nnumJoints 1\nnumMeshes 1\n\
///     joints {\n\"root\" -1 ( 0 0 1 ) ( 0 0 0.5 )\n}\n\
///     mesh {\nshader \"skin\"\nnumverts 3\n\
///     vert 0 ( 0 0 ) 0 1\nvert 1 ( 1 0 ) 1 1\nvert 2 ( 0 1 ) 2 1\n\
///     numtris 1\ntri 0 0 1 2\nnumweights 3\n\
///     weight 0 0 1 ( 0 0 0 )\nweight 1 0 1 ( 0 1 0 )\nweight 2 0 1 ( 0 0 1 )\n}\n";
/// let model = Model::parse(text.as_bytes())?;
/// let scene = idmodel_scene::md5::mesh::scene(&model, "tri", &Default::default())?;
/// let back = idmodel_scene::md5::from_scene::convert(&scene, &Default::default())?;
/// let mesh = back.mesh.unwrap();
/// assert_eq!(mesh.joints[0].name, "root");
/// assert_eq!(mesh.meshes[0].shader, "skin");
/// assert_eq!(mesh.meshes[0].triangles, vec![[0, 1, 2]]);
/// let written = idmodel_md5::mesh::write(&mesh)?;
/// assert_eq!(Model::parse(&written)?, mesh);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn convert(scene: &Scene, options: &Md5Options) -> Result<Md5Files> {
    let graph = Graph::new(scene)?;
    let has_mesh = scene.nodes.iter().any(|n| n.mesh.is_some());
    let has_joints = has_mesh || scene.nodes.iter().any(|n| n.camera.is_none());
    let mut out = Md5Files::default();
    if has_joints {
        let skel = skeleton_of(scene, &graph)?;
        let model = if has_mesh {
            Some(mesh_of(scene, &graph, &skel)?)
        } else {
            None
        };
        for (i, a) in scene.animations.iter().enumerate() {
            // Every clip that keys a joint (or a node above one), one-frame clips too.
            if !keys_any(a, &graph, skel.nodes.iter().flatten().copied(), 1) {
                continue;
            }
            let name = clip_name(a, i);
            out.anims.push((
                name,
                anim_of(scene, &graph, &skel, (i, a), model.as_ref(), options)?,
            ));
        }
        out.mesh = model;
    }
    out.cameras = cameras_of(scene, &graph, options)?;
    Ok(out)
}

/// The md5 joints of a scene: which node each is, its parent and name, and its
/// model-space bind pose (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    /// The scene node of each joint (`None` for the added [`ORIGIN_JOINT`]).
    pub nodes: Vec<Option<usize>>,
    /// The md5 joints in their bind pose (name, parent, position, orientation); the
    /// md5mesh's `joints`.
    pub joints: Vec<Joint<String>>,
    /// Per joint: the bind position of a point given in the skin's bind space (identity
    /// when the inverse bind matrix is used, `rest · IBM` when the rest pose is).
    to_bind: Vec<Affine>,
    /// Per joint: its rest world transform.
    rest: Vec<Affine>,
}

/// The [`Skeleton`] of `scene`.
pub fn skeleton(scene: &Scene) -> Result<Skeleton> {
    skeleton_of(scene, &Graph::new(scene)?)
}

/// The md5mesh of `scene` (see the module docs).
pub fn mesh(scene: &Scene) -> Result<Model> {
    let graph = Graph::new(scene)?;
    let skel = skeleton_of(scene, &graph)?;
    mesh_of(scene, &graph, &skel)
}

/// The md5anim of `scene.animations[index]` on `skel` (bounds from `mesh` when given).
pub fn anim(
    scene: &Scene,
    skel: &Skeleton,
    index: usize,
    mesh: Option<&Model>,
    options: &Md5Options,
) -> Result<Anim> {
    let graph = Graph::new(scene)?;
    let a = scene
        .animations
        .get(index)
        .ok_or_else(|| Error::new(format!("animation {index} is not in the scene")))?;
    anim_of(scene, &graph, skel, (index, a), mesh, options)
}

/// The md5cameras of `scene` (see the module docs).
pub fn cameras(scene: &Scene, options: &Md5Options) -> Result<Vec<(String, Md5Camera)>> {
    cameras_of(scene, &Graph::new(scene)?, options)
}

fn clip_name(a: &Animation, i: usize) -> String {
    if a.name.is_empty() {
        format!("anim{i}")
    } else {
        a.name.clone()
    }
}

/// `"`, line breaks and NUL (which md5 strings cannot hold) as `_`.
fn md5_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if matches!(c, '"' | '\n' | '\r' | '\0') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Affine maths (f32, row-major 3×4: `r` as applied, then `t`).

#[derive(Debug, Clone, Copy, PartialEq)]
struct Affine {
    r: [[f32; 3]; 3],
    t: Vec3,
}

impl Affine {
    const IDENTITY: Self = Self {
        r: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        t: [0.0; 3],
    };

    fn from_trs(t: Vec3, q: Quat, s: Vec3) -> Self {
        let m = quat::to_mat3(quat_unit(q));
        Self {
            r: m.map(|row| [row[0] * s[0], row[1] * s[1], row[2] * s[2]]),
            t,
        }
    }

    fn rigid(t: Vec3, q: Quat) -> Self {
        Self::from_trs(t, q, [1.0; 3])
    }

    /// Column-major 4×4 (its last row ignored).
    fn from_cols(m: &[f32; 16]) -> Self {
        let [a, b, c, _, d, e, f, _, g, h, i, _, x, y, z, _] = *m;
        Self {
            r: [[a, d, g], [b, e, h], [c, f, i]],
            t: [x, y, z],
        }
    }

    fn apply(&self, p: Vec3) -> Vec3 {
        let row = |r: [f32; 3], t: f32| r[0] * p[0] + r[1] * p[1] + r[2] * p[2] + t;
        [
            row(self.r[0], self.t[0]),
            row(self.r[1], self.t[1]),
            row(self.r[2], self.t[2]),
        ]
    }

    /// `self ∘ b`.
    fn mul(&self, b: &Self) -> Self {
        let a = &self.r;
        let col = |c: usize| {
            [
                b.r[0].get(c).copied().unwrap_or(0.0),
                b.r[1].get(c).copied().unwrap_or(0.0),
                b.r[2].get(c).copied().unwrap_or(0.0),
            ]
        };
        let dot = |r: [f32; 3], v: [f32; 3]| r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
        let (c0, c1, c2) = (col(0), col(1), col(2));
        Self {
            r: a.map(|row| [dot(row, c0), dot(row, c1), dot(row, c2)]),
            t: self.apply(b.t),
        }
    }

    fn inverse(&self) -> Option<Self> {
        let r = inverse3(&self.r)?;
        let t = mat3_apply(&r, self.t).map(|x| -x);
        Some(Self { r, t })
    }

    fn cols(&self) -> [[f32; 3]; 3] {
        let [[a, b, c], [d, e, f], [g, h, i]] = self.r;
        [[a, d, g], [b, e, h], [c, f, i]]
    }

    /// Whether the 3×3 part is a rotation (orthonormal within 1e-3, not mirrored) and
    /// everything is finite.
    fn is_rigid(&self) -> bool {
        let c = self.cols();
        let d = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let near = |x: f32, y: f32| (x - y).abs() <= 1e-3;
        let [x, y, z] = c;
        self.t
            .iter()
            .chain(c.iter().flatten())
            .all(|v| v.is_finite())
            && near(d(x, x), 1.0)
            && near(d(y, y), 1.0)
            && near(d(z, z), 1.0)
            && near(d(x, y), 0.0)
            && near(d(y, z), 0.0)
            && near(d(x, z), 0.0)
            && det3(&self.r) > 0.0
    }

    /// The rotation (standard convention, `w ≥ 0`) and translation, scale removed.
    fn rotation_translation(&self) -> (Quat, Vec3) {
        (quat_from_axes(&self.cols()), self.t)
    }
}

fn mat3_apply(m: &[[f32; 3]; 3], v: Vec3) -> Vec3 {
    m.map(|r| r[0] * v[0] + r[1] * v[1] + r[2] * v[2])
}

fn det3(m: &[[f32; 3]; 3]) -> f32 {
    let [[a, b, c], [d, e, f], [g, h, i]] = *m;
    a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
}

fn inverse3(m: &[[f32; 3]; 3]) -> Option<[[f32; 3]; 3]> {
    let [[a, b, c], [d, e, f], [g, h, i]] = *m;
    let det = det3(m);
    if !(det.is_finite() && det.abs() > 1e-30) {
        return None;
    }
    let k = 1.0 / det;
    let out = [
        [
            (e * i - f * h) * k,
            (c * h - b * i) * k,
            (b * f - c * e) * k,
        ],
        [
            (f * g - d * i) * k,
            (a * i - c * g) * k,
            (c * d - a * f) * k,
        ],
        [
            (d * h - e * g) * k,
            (b * g - a * h) * k,
            (a * e - b * d) * k,
        ],
    ];
    out.iter().flatten().all(|x| x.is_finite()).then_some(out)
}

/// The matrix Doom builds for a stored joint (`w` from `CalcW`), as an [`Affine`].
fn doom_affine(position: Vec3, orientation: Vec3) -> Affine {
    let m = JointMat::from_quat(quat::doom_quat(orientation), position).m;
    let [r0, r1, r2] = m;
    Affine {
        r: [
            [r0[0], r0[1], r0[2]],
            [r1[0], r1[1], r1[2]],
            [r2[0], r2[1], r2[2]],
        ],
        t: [r0[3], r1[3], r2[3]],
    }
}

/// A standard unit quaternion as Doom's stored `x, y, z` (`w ≥ 0`).
///
/// Doom recomputes `w = √|1 − x² − y² − z²|`, which is ill-conditioned near `w = 0` (a
/// half-turn): rounding `x, y, z` to `f32` can move `w` from 0.0005 to 0.0014. When the
/// plain rounding rebuilds the quaternion worse than 1e-6, `x, y, z` are scaled (in
/// `f64`) so that their squares leave exactly `w²`, and the largest is moved by up to
/// four ulps either way: the candidate whose rebuilt quaternion is nearest is stored.
fn doom_xyz(q: Quat) -> Vec3 {
    let target = quat::from_standard(quat_unit(q));
    let [x, y, z, w] = target;
    let err = |c: Vec3| {
        let r = quat::doom_quat(c);
        (0..4)
            .map(|i| {
                (r.get(i).copied().unwrap_or(0.0) - target.get(i).copied().unwrap_or(0.0)).abs()
            })
            .fold(0.0f32, f32::max)
    };
    let tidy = |c: Vec3| c.map(|v| if v == 0.0 { 0.0 } else { v });
    let plain = tidy([x, y, z]);
    let plain_err = err(plain);
    if plain_err <= 1e-6 {
        return plain;
    }
    let (xd, yd, zd, wd) = (f64::from(x), f64::from(y), f64::from(z), f64::from(w));
    let len2 = xd * xd + yd * yd + zd * zd;
    let scale = if len2 > 0.0 {
        libm::sqrt((1.0 - wd * wd).max(0.0) / len2)
    } else {
        1.0
    };
    let scaled = [xd * scale, yd * scale, zd * scale].map(narrow);
    let big = (0..3)
        .max_by(|&a, &b| {
            let m = |i: usize| scaled.get(i).copied().unwrap_or(0.0).abs();
            m(a).total_cmp(&m(b))
        })
        .unwrap_or(0);
    let mut best = (plain_err, plain);
    for step in -4i32..=4 {
        let mut c = scaled;
        if let Some(v) = c.get_mut(big) {
            *v = ulp_step(*v, step);
        }
        let c = tidy(c);
        let e = err(c);
        if e < best.0 {
            best = (e, c);
        }
    }
    best.1
}

/// `f64` → `f32` (nearest).
#[allow(clippy::as_conversions)] // rounding to the nearest f32 is the point
fn narrow(x: f64) -> f32 {
    x as f32
}

/// `v` moved by `steps` ulps (towards larger magnitude for positive steps).
fn ulp_step(v: f32, steps: i32) -> f32 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    let bits = v.to_bits();
    let moved = if steps >= 0 {
        bits.checked_add(steps.unsigned_abs())
    } else {
        bits.checked_sub(steps.unsigned_abs())
    };
    let r = moved.map_or(v, f32::from_bits);
    // Stay on the same side of zero and finite.
    if r.is_finite() && r.is_sign_negative() == v.is_sign_negative() {
        r
    } else {
        v
    }
}

// ---------------------------------------------------------------------------------------
// The node graph.

struct Graph {
    parent: Vec<Option<usize>>,
}

impl Graph {
    /// Parents from the children lists; refuses indices out of range, two parents and
    /// cycles.
    fn new(scene: &Scene) -> Result<Self> {
        let n = scene.nodes.len();
        let mut parent: Vec<Option<usize>> = vec![None; n];
        for (p, node) in scene.nodes.iter().enumerate() {
            for &c in &node.children {
                let slot = parent.get_mut(c).ok_or_else(|| {
                    Error::new(format!("node {p}: child {c} is not a node ({n} nodes)"))
                })?;
                if slot.is_some() || c == p {
                    return Err(Error::new(format!("node {c} has more than one parent")));
                }
                *slot = Some(p);
            }
        }
        let g = Self { parent };
        // Walk up from each node until a node already known to reach a root: linear in
        // the nodes, however deep the tree.
        let mut state = vec![0u8; n]; // 0 unseen, 1 on the current walk, 2 reaches a root
        for i in 0..n {
            let mut path = Vec::new();
            let mut at = Some(i);
            while let Some(c) = at {
                match state.get(c).copied() {
                    Some(2) | None => break,
                    Some(1) => {
                        return Err(Error::new(format!("node {c} is in a cycle of children")));
                    }
                    _ => {}
                }
                if let Some(s) = state.get_mut(c) {
                    *s = 1;
                }
                path.push(c);
                at = g.parent_of(c);
            }
            for c in path {
                if let Some(s) = state.get_mut(c) {
                    *s = 2;
                }
            }
        }
        Ok(g)
    }

    /// For every node, the nearest of itself and its ancestors that is `flagged`; linear
    /// in the nodes.
    fn nearest(&self, flagged: &[bool]) -> Vec<Option<usize>> {
        let n = self.parent.len();
        let mut out: Vec<Option<Option<usize>>> = vec![None; n];
        for i in 0..n {
            let mut path = Vec::new();
            let mut at = Some(i);
            let mut found: Option<usize> = None;
            while let Some(c) = at {
                if let Some(known) = out.get(c).copied().flatten() {
                    found = known;
                    break;
                }
                if flagged.get(c) == Some(&true) {
                    found = Some(c);
                    if let Some(slot) = out.get_mut(c) {
                        *slot = Some(Some(c));
                    }
                    break;
                }
                path.push(c);
                at = self.parent_of(c);
            }
            for c in path {
                if let Some(slot) = out.get_mut(c) {
                    *slot = Some(found);
                }
            }
        }
        out.into_iter().map(Option::flatten).collect()
    }

    fn parent_of(&self, i: usize) -> Option<usize> {
        self.parent.get(i).copied().flatten()
    }

    /// `i` and its ancestors, nearest first.
    fn chain(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        core::iter::successors(Some(i), |&c| self.parent_of(c))
    }

    /// Every node's world transform, from the nodes' local transforms.
    fn worlds(&self, local: &[Affine]) -> Vec<Affine> {
        let mut world: Vec<Option<Affine>> = vec![None; local.len()];
        for i in 0..local.len() {
            // Walk up to a known ancestor, then down.
            let mut path = Vec::new();
            let mut at = Some(i);
            while let Some(c) = at {
                if world.get(c).copied().flatten().is_some() {
                    break;
                }
                path.push(c);
                at = self.parent_of(c);
            }
            let mut acc = at
                .and_then(|a| world.get(a).copied().flatten())
                .unwrap_or(Affine::IDENTITY);
            for &c in path.iter().rev() {
                acc = acc.mul(local.get(c).unwrap_or(&Affine::IDENTITY));
                if let Some(slot) = world.get_mut(c) {
                    *slot = Some(acc);
                }
            }
        }
        world
            .into_iter()
            .map(|w| w.unwrap_or(Affine::IDENTITY))
            .collect()
    }
}

/// The nodes' own transforms (translation, rotation, scale).
type Trs = (Vec3, Quat, Vec3);

fn rest_trs(scene: &Scene) -> Vec<Trs> {
    scene
        .nodes
        .iter()
        .map(|n| (n.translation, n.rotation, n.scale))
        .collect()
}

fn affines(trs: &[Trs]) -> Vec<Affine> {
    trs.iter()
        .map(|&(t, q, s)| Affine::from_trs(t, q, s))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Skeleton.

/// Whether an animation keys a node that is not a camera's (so md5anims will be written,
/// one-frame clips included).
fn animates_joints(scene: &Scene) -> bool {
    scene.animations.iter().any(|a| {
        a.channels.iter().any(|c| {
            is_motion(c)
                && !c.times.is_empty()
                && scene.nodes.get(c.node).is_some_and(|n| n.camera.is_none())
        })
    })
}

fn skeleton_of(scene: &Scene, graph: &Graph) -> Result<Skeleton> {
    let n = scene.nodes.len();
    // Skins used by mesh nodes, first use first; then the others.
    let mut skins: Vec<usize> = Vec::new();
    for node in &scene.nodes {
        if let Some(s) = node.skin.filter(|_| node.mesh.is_some())
            && !skins.contains(&s)
        {
            skins.push(s);
        }
    }
    let mut candidates: Vec<usize> = Vec::new();
    let mut is_joint = vec![false; n];
    let mut ibm: Vec<Option<[f32; 16]>> = vec![None; n];
    for &s in &skins {
        let skin = scene
            .skins
            .get(s)
            .ok_or_else(|| Error::new(format!("skin {s} is not in the scene")))?;
        if !skin.inverse_bind_matrices.is_empty()
            && skin.inverse_bind_matrices.len() != skin.joints.len()
        {
            return Err(Error::new(format!(
                "skin {s}: {} inverse bind matrices for {} joints",
                skin.inverse_bind_matrices.len(),
                skin.joints.len()
            )));
        }
        for (k, &j) in skin.joints.iter().enumerate() {
            let flag = is_joint.get_mut(j).ok_or_else(|| {
                Error::new(format!("skin {s}: joint {k} is node {j}, not a node"))
            })?;
            if !*flag {
                *flag = true;
                candidates.push(j);
                if let Some(slot) = ibm.get_mut(j) {
                    *slot = skin.inverse_bind_matrices.get(k).copied();
                }
            }
        }
    }
    if skins.is_empty() {
        for (i, node) in scene.nodes.iter().enumerate() {
            if node.camera.is_none() {
                candidates.push(i);
                if let Some(f) = is_joint.get_mut(i) {
                    *f = true;
                }
            }
        }
    } else {
        let skin_joint_at = graph.nearest(&is_joint);
        for (i, node) in scene.nodes.iter().enumerate() {
            let unskinned = node.mesh.is_some() && node.skin.is_none();
            if unskinned && skin_joint_at.get(i).copied().flatten().is_none() {
                candidates.push(i);
                if let Some(f) = is_joint.get_mut(i) {
                    *f = true;
                }
            }
        }
    }
    let joint_at = graph.nearest(&is_joint);
    let joint_parent = |i: usize| {
        graph
            .parent_of(i)
            .and_then(|p| joint_at.get(p).copied().flatten())
    };
    // Parents before children, file order otherwise.
    let mut order: Vec<usize> = Vec::with_capacity(candidates.len());
    let mut placed = vec![false; n];
    for &c in &candidates {
        let mut pending = Vec::new();
        let mut at = Some(c);
        while let Some(j) = at {
            if placed.get(j) == Some(&true) {
                break;
            }
            pending.push(j);
            at = joint_parent(j);
        }
        for &j in pending.iter().rev() {
            if let Some(p) = placed.get_mut(j) {
                *p = true;
            }
            order.push(j);
        }
    }
    let roots = order.iter().filter(|&&j| joint_parent(j).is_none()).count();
    // md5anim allows one root; an md5mesh alone may have several.
    let origin = order.is_empty() || (roots != 1 && animates_joints(scene));
    let mut nodes: Vec<Option<usize>> = Vec::with_capacity(order.len().saturating_add(1));
    if origin {
        nodes.push(None);
    }
    nodes.extend(order.iter().map(|&j| Some(j)));
    let mut joint_index: Vec<Option<usize>> = vec![None; n];
    for (k, node) in nodes.iter().enumerate() {
        if let Some(slot) = node.and_then(|node| joint_index.get_mut(node)) {
            *slot = Some(k);
        }
    }
    let index_of = |node: usize| joint_index.get(node).copied().flatten();
    let rest_world = graph.worlds(&affines(&rest_trs(scene)));
    let mut joints = Vec::with_capacity(nodes.len());
    let mut to_bind = Vec::with_capacity(nodes.len());
    let mut rest = Vec::with_capacity(nodes.len());
    for (k, &node) in nodes.iter().enumerate() {
        let Some(node) = node else {
            joints.push(Joint {
                name: ORIGIN_JOINT.into(),
                parent: -1,
                position: [0.0; 3],
                orientation: [0.0; 3],
            });
            to_bind.push(Affine::IDENTITY);
            rest.push(Affine::IDENTITY);
            continue;
        };
        let parent = match joint_parent(node).and_then(index_of) {
            Some(p) => i32::try_from(p).map_err(|_| Error::new("too many joints"))?,
            None if origin => 0,
            None => -1,
        };
        let w = rest_world.get(node).copied().unwrap_or(Affine::IDENTITY);
        let bind_from_ibm = ibm
            .get(node)
            .copied()
            .flatten()
            .map(|m| Affine::from_cols(&m))
            .filter(Affine::is_rigid)
            .and_then(|m| m.inverse());
        let used_ibm = ibm.get(node).copied().flatten();
        let (bind, tb) = match (bind_from_ibm, used_ibm) {
            (Some(b), _) => (b, Affine::IDENTITY),
            (None, Some(m)) => (w, w.mul(&Affine::from_cols(&m))),
            (None, None) => (w, Affine::IDENTITY),
        };
        let (q, t) = bind.rotation_translation();
        let name = scene
            .nodes
            .get(node)
            .map(|n| md5_text(&n.name))
            .unwrap_or_default();
        let name = if name.is_empty() {
            format!("joint{k}")
        } else {
            name
        };
        joints.push(Joint {
            name,
            parent,
            position: t,
            orientation: doom_xyz(q),
        });
        to_bind.push(tb);
        rest.push(w);
    }
    Ok(Skeleton {
        nodes,
        joints,
        to_bind,
        rest,
    })
}

// ---------------------------------------------------------------------------------------
// md5mesh.

/// One vertex being built: its UV and `(joint, bias, bind position)` weights.
struct BuiltVertex {
    uv: [f32; 2],
    weights: Vec<(u32, f32, Vec3)>,
}

/// Influences merged by joint, cleaned, at most [`MAX_WEIGHTS`], normalised.
fn clean_influences(list: &[(u16, f32)]) -> Vec<(u16, f32)> {
    let mut out: Vec<(u16, f32)> = Vec::with_capacity(list.len());
    for &(j, w) in list {
        if !(w.is_finite() && w > 0.0) {
            continue;
        }
        match out.iter_mut().find(|(k, _)| *k == j) {
            Some(e) => e.1 += w,
            None => out.push((j, w)),
        }
    }
    while out.len() > MAX_WEIGHTS {
        let smallest = out
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.1.total_cmp(&b.1.1))
            .map(|(i, _)| i);
        if let Some(i) = smallest {
            out.remove(i);
        }
    }
    let sum: f32 = out.iter().map(|e| e.1).sum();
    if sum != 1.0 && sum.is_finite() && sum > 0.0 {
        for e in &mut out {
            e.1 /= sum;
        }
    }
    out
}

fn mesh_of(scene: &Scene, graph: &Graph, skel: &Skeleton) -> Result<Model> {
    let rest_world = graph.worlds(&affines(&rest_trs(scene)));
    let mut joint_index: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    let mut is_joint = vec![false; scene.nodes.len()];
    for (k, node) in skel.nodes.iter().enumerate() {
        if let Some(node) = *node
            && let (Some(slot), Some(f)) = (joint_index.get_mut(node), is_joint.get_mut(node))
        {
            *slot = Some(k);
            *f = true;
        }
    }
    let joint_of_node = |node: usize| joint_index.get(node).copied().flatten();
    let joint_at = graph.nearest(&is_joint);
    let doom: Vec<Affine> = skel
        .joints
        .iter()
        .map(|j| doom_affine(j.position, j.orientation))
        .collect();
    let doom_inv: Vec<Option<Affine>> = doom.iter().map(Affine::inverse).collect();
    let mut meshes = Vec::new();
    for (ni, node) in scene.nodes.iter().enumerate() {
        let Some(mi) = node.mesh.filter(|_| !crate::scene::is_tag_frames(node)) else {
            continue;
        };
        let mesh = scene
            .meshes
            .get(mi)
            .ok_or_else(|| Error::new(format!("node {ni}: mesh {mi} is not in the scene")))?;
        let skin =
            match node.skin {
                Some(s) => Some(scene.skins.get(s).ok_or_else(|| {
                    Error::new(format!("node {ni}: skin {s} is not in the scene"))
                })?),
                None => None,
            };
        // The joint an unskinned primitive of this node is bound to, and how its
        // positions reach that joint's bind pose.
        let rigid_joint = joint_at
            .get(ni)
            .copied()
            .flatten()
            .and_then(joint_of_node)
            .unwrap_or(0);
        let node_world = rest_world.get(ni).copied().unwrap_or(Affine::IDENTITY);
        let rigid_place = {
            let jr = skel
                .rest
                .get(rigid_joint)
                .copied()
                .unwrap_or(Affine::IDENTITY);
            let (q, t) = jr.rotation_translation();
            let jr_rigid_inv = Affine::rigid(t, q).inverse().unwrap_or(Affine::IDENTITY);
            let j = skel.joints.get(rigid_joint);
            let bind = j.map_or(Affine::IDENTITY, |j| {
                Affine::rigid(
                    j.position,
                    quat::to_standard(quat::doom_quat(j.orientation)),
                )
            });
            bind.mul(&jr_rigid_inv).mul(&node_world)
        };
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let at = |v: usize| format!("node {ni} mesh {mi} primitive {pi} vertex {v}");
            if let Some(v) = p
                .positions
                .iter()
                .position(|x| !x.iter().all(|c| c.is_finite()))
            {
                return Err(Error::new(format!("{}: position is not finite", at(v))));
            }
            let skinned = skin.is_some() && !p.influences.is_empty();
            if skinned && p.influences.len() != p.positions.len() {
                return Err(Error::new(format!(
                    "node {ni} mesh {mi} primitive {pi}: {} influences for {} vertices",
                    p.influences.len(),
                    p.positions.len()
                )));
            }
            let mut built: Vec<BuiltVertex> = Vec::with_capacity(p.positions.len());
            for (v, &pos) in p.positions.iter().enumerate() {
                let uv = p.uvs.get(v).copied().unwrap_or([0.0; 2]);
                let uv = uv.map(|c| if c.is_finite() { c } else { 0.0 });
                let weights = match (skin, skinned) {
                    (Some(skin), true) => {
                        let list = p.influences.get(v).map_or(&[][..], Vec::as_slice);
                        let mut clean = clean_influences(list);
                        if clean.is_empty() {
                            clean.push((0, 1.0));
                        }
                        let mut ws = Vec::with_capacity(clean.len());
                        for (j, w) in clean {
                            let node_j =
                                skin.joints.get(usize::from(j)).copied().ok_or_else(|| {
                                    Error::new(format!(
                                        "{}: joint {j} is not in the skin ({} joints)",
                                        at(v),
                                        skin.joints.len()
                                    ))
                                })?;
                            let k = joint_of_node(node_j).unwrap_or(0);
                            let tb = skel.to_bind.get(k).copied().unwrap_or(Affine::IDENTITY);
                            let u = u32::try_from(k).map_err(|_| Error::new("too many joints"))?;
                            ws.push((u, w, tb.apply(pos)));
                        }
                        ws
                    }
                    _ => {
                        let u = u32::try_from(rigid_joint)
                            .map_err(|_| Error::new("too many joints"))?;
                        vec![(u, 1.0, rigid_place.apply(pos))]
                    }
                };
                built.push(BuiltVertex { uv, weights });
            }
            meshes.push(weld_mesh(
                &built,
                &p.indices,
                &doom,
                &doom_inv,
                shader_of(scene, p.material),
                &format!("node {ni} mesh {mi} primitive {pi}"),
            )?);
        }
    }
    Ok(Model {
        commandline: String::new(),
        joints: skel.joints.clone(),
        meshes: with_recorded_meshes(meshes, &scene.extras),
    })
}

/// `meshes` with the meshes glTF could not hold put back in their places from the
/// `md5.meshes` record (see the [md5 module docs](super)), when the others are still the
/// recorded ones (as many, with the recorded shaders, in order); else `meshes` as given.
fn with_recorded_meshes(meshes: Vec<Md5Mesh>, extras: &crate::Extras) -> Vec<Md5Mesh> {
    let Some(record) = super::mesh_record(extras) else {
        return meshes;
    };
    let drawn: Vec<&str> = record
        .iter()
        .filter(|(_, d)| *d)
        .map(|(s, _)| s.as_str())
        .collect();
    let fits = record.len() != meshes.len()
        && drawn.len() == meshes.len()
        && drawn
            .iter()
            .zip(&meshes)
            .all(|(&s, m)| md5_text(s) == m.shader);
    if !fits {
        return meshes;
    }
    let mut given = meshes.into_iter();
    record
        .iter()
        .filter_map(|(shader, d)| {
            if *d {
                given.next()
            } else {
                Some(Md5Mesh {
                    shader: md5_text(shader),
                    ..Md5Mesh::default()
                })
            }
        })
        .collect()
}

fn shader_of(scene: &Scene, material: Option<usize>) -> String {
    let Some(m) = material.and_then(|m| scene.materials.get(m)) else {
        return String::new();
    };
    if !m.name.is_empty() {
        return md5_text(&m.name);
    }
    match &m.image {
        Some(crate::Image::Uri(u)) => md5_text(u),
        _ => String::new(),
    }
}

/// Welds equal vertices, writes the weights in joint space as Doom rebuilds them.
fn weld_mesh(
    built: &[BuiltVertex],
    indices: &[u32],
    doom: &[Affine],
    doom_inv: &[Option<Affine>],
    shader: String,
    what: &str,
) -> Result<Md5Mesh> {
    let key = |b: &BuiltVertex| {
        let mut k: Vec<u32> =
            Vec::with_capacity(b.weights.len().saturating_mul(5).saturating_add(2));
        k.extend(b.uv.map(f32::to_bits));
        for &(j, w, p) in &b.weights {
            k.push(j);
            k.push(w.to_bits());
            k.extend(p.map(f32::to_bits));
        }
        k
    };
    // Sorted keys → first vertex with that key.
    let mut keyed: Vec<(Vec<u32>, usize)> =
        built.iter().enumerate().map(|(i, b)| (key(b), i)).collect();
    keyed.sort();
    // Texture polarity of the triangles using each vertex (Doom's
    // `R_FaceNegativePolarity`): bit 1 positive, bit 2 negative.
    let mut polarity = vec![0u8; built.len()];
    for tri in indices.chunks_exact(3) {
        let at = |k: usize| {
            tri.get(k)
                .and_then(|&x| usize::try_from(x).ok())
                .filter(|&x| x < built.len())
        };
        let (Some(a), Some(b), Some(c)) = (at(0), at(1), at(2)) else {
            continue;
        };
        let uv = |i: usize| built.get(i).map_or([0.0; 2], |v| v.uv);
        let (ua, ub, uc) = (uv(a), uv(b), uv(c));
        let d1 = [ub[0] - ua[0], ub[1] - ua[1]];
        let d2 = [uc[0] - ua[0], uc[1] - ua[1]];
        let bit = if d1[0] * d2[1] - d1[1] * d2[0] < 0.0 {
            2
        } else {
            1
        };
        for v in [a, b, c] {
            if let Some(p) = polarity.get_mut(v) {
                *p |= bit;
            }
        }
    }
    // Within a group of equal vertices, a vertex used only by negative triangles merges
    // into an earlier one used only by positive triangles: the copy Doom makes itself at
    // load (`R_DuplicateMirroredVertexes`), which the scene holds as a vertex of its own.
    // Other equal vertices stay apart, as the file had them.
    let mut remap = vec![0u32; built.len()];
    let mut first_of: Vec<usize> = (0..built.len()).collect();
    let mut paired = vec![false; built.len()];
    let mut i = 0usize;
    while let Some((k, _)) = keyed.get(i) {
        let mut end = i;
        while keyed.get(end).is_some_and(|(k2, _)| k2 == k) {
            end = end.saturating_add(1);
        }
        let group: Vec<usize> = keyed
            .get(i..end)
            .unwrap_or(&[])
            .iter()
            .map(|(_, v)| *v)
            .collect();
        for (gi, &v) in group.iter().enumerate() {
            if polarity.get(v) != Some(&2) {
                continue;
            }
            let partner = group
                .get(..gi)
                .unwrap_or(&[])
                .iter()
                .copied()
                .find(|&u| polarity.get(u) == Some(&1) && paired.get(u) == Some(&false));
            if let Some(u) = partner {
                if let Some(p) = paired.get_mut(u) {
                    *p = true;
                }
                if let Some(f) = first_of.get_mut(v) {
                    *f = u;
                }
            }
        }
        i = end;
    }
    let mut vertices = Vec::new();
    let mut weights = Vec::new();
    for (v, b) in built.iter().enumerate() {
        if first_of.get(v) != Some(&v) {
            continue;
        }
        let n = u32::try_from(vertices.len())
            .map_err(|_| Error::new(format!("{what}: too many vertices")))?;
        if let Some(slot) = remap.get_mut(v) {
            *slot = n;
        }
        let first_weight = u32::try_from(weights.len())
            .map_err(|_| Error::new(format!("{what}: too many weights")))?;
        for &(j, bias, p) in &b.weights {
            let ju = usize::try_from(j).unwrap_or(usize::MAX);
            let offset = match (doom.get(ju), doom_inv.get(ju).copied().flatten()) {
                (Some(_), Some(inv)) => inv.apply(p),
                _ => p,
            };
            weights.push(Weight {
                joint: j,
                bias,
                position: offset.map(|c| if c.is_finite() { c } else { 0.0 }),
            });
        }
        vertices.push(Vertex {
            uv: b.uv,
            first_weight,
            weight_count: u32::try_from(b.weights.len()).unwrap_or(1),
        });
    }
    for (v, f) in first_of.iter().enumerate() {
        if *f != v {
            let target = remap.get(*f).copied().unwrap_or(0);
            if let Some(slot) = remap.get_mut(v) {
                *slot = target;
            }
        }
    }
    if !indices.len().is_multiple_of(3) {
        return Err(Error::new(format!(
            "{what}: {} indices is not a whole number of triangles",
            indices.len()
        )));
    }
    let mut triangles = Vec::with_capacity(indices.len() / 3);
    for (t, tri) in indices.chunks_exact(3).enumerate() {
        let mut out = [0u32; 3];
        for (o, &x) in out.iter_mut().zip(tri) {
            *o = usize::try_from(x)
                .ok()
                .and_then(|x| remap.get(x).copied())
                .ok_or_else(|| {
                    Error::new(format!(
                        "{what}: triangle {t} uses vertex {x} of {}",
                        built.len()
                    ))
                })?;
        }
        triangles.push(out);
    }
    Ok(Md5Mesh {
        name: None,
        shader,
        vertices,
        triangles,
        weights,
    })
}

// ---------------------------------------------------------------------------------------
// Sampling channels.

/// Validates a channel's keys: one value per time, times finite and increasing.
fn check_channel(c: &Channel, scene: &Scene, what: &str) -> Result<()> {
    if c.node >= scene.nodes.len() {
        return Err(Error::new(format!(
            "{what}: node {} is not in the scene",
            c.node
        )));
    }
    let n = match &c.values {
        ChannelValues::Translation(v) | ChannelValues::Scale(v) => v.len(),
        ChannelValues::Rotation(v) => v.len(),
        _ => return Ok(()),
    };
    if n != c.times.len() || n == 0 {
        return Err(Error::new(format!(
            "{what}: {} keys for {} values",
            c.times.len(),
            n
        )));
    }
    let ok = c.times.iter().all(|t| t.is_finite() && *t >= 0.0)
        && c.times.windows(2).all(|w| matches!(w, [a, b] if a < b));
    if !ok {
        return Err(Error::new(format!(
            "{what}: key times are not finite, non-negative and increasing"
        )));
    }
    Ok(())
}

/// The key index pair and fraction at time `t` (`left`: a STEP key exactly at `t` is not
/// reached yet).
fn locate(times: &[f32], t: f32, step: bool, left: bool) -> (usize, usize, f32) {
    let last = times.len().saturating_sub(1);
    let after = times.partition_point(|&x| x <= t);
    if after == 0 {
        return (0, 0, 0.0);
    }
    let i = after.saturating_sub(1);
    let ti = times.get(i).copied().unwrap_or(0.0);
    if step {
        if left && ti == t && i > 0 {
            let p = i.saturating_sub(1);
            return (p, p, 0.0);
        }
        return (i, i, 0.0);
    }
    if ti == t || i >= last {
        return (i, i, 0.0);
    }
    let tn = times.get(after).copied().unwrap_or(ti);
    let f = if tn > ti { (t - ti) / (tn - ti) } else { 0.0 };
    (i, after, f)
}

fn lerp3(a: Vec3, b: Vec3, f: f32) -> Vec3 {
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
    ]
}

/// Shortest-way spherical interpolation of unit quaternions.
fn slerp(a: Quat, b: Quat, f: f32) -> Quat {
    let mut d = quat_dot(a, b);
    let b = if d < 0.0 {
        d = -d;
        b.map(|x| -x)
    } else {
        b
    };
    let (wa, wb) = if d > 0.9995 {
        (1.0 - f, f)
    } else {
        let th = libm::acosf(d.min(1.0));
        let s = libm::sinf(th);
        (libm::sinf((1.0 - f) * th) / s, libm::sinf(f * th) / s)
    };
    quat_unit([
        a[0] * wa + b[0] * wb,
        a[1] * wa + b[1] * wb,
        a[2] * wa + b[2] * wb,
        a[3] * wa + b[3] * wb,
    ])
}

/// Every node's transform at time `t` of `anim` (the rest pose where nothing animates).
fn sample(rest: &[Trs], anim: &Animation, t: f32, left: bool) -> Vec<Trs> {
    let mut out = rest.to_vec();
    for c in &anim.channels {
        let Some(slot) = out.get_mut(c.node) else {
            continue;
        };
        let step = c.interpolation == Interpolation::Step;
        let (i, j, f) = locate(&c.times, t, step, left);
        match &c.values {
            ChannelValues::Translation(v) => {
                if let (Some(&a), Some(&b)) = (v.get(i), v.get(j)) {
                    slot.0 = if i == j { a } else { lerp3(a, b, f) };
                }
            }
            ChannelValues::Rotation(v) => {
                if let (Some(&a), Some(&b)) = (v.get(i), v.get(j)) {
                    slot.1 = if i == j {
                        a
                    } else {
                        slerp(quat_unit(a), quat_unit(b), f)
                    };
                }
            }
            ChannelValues::Scale(v) => {
                if let (Some(&a), Some(&b)) = (v.get(i), v.get(j)) {
                    slot.2 = if i == j { a } else { lerp3(a, b, f) };
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `anim` has a channel of more than one key on one of `nodes` or their
/// ancestors.
fn moves_any(anim: &Animation, graph: &Graph, nodes: impl Iterator<Item = usize>) -> bool {
    keys_any(anim, graph, nodes, 2)
}

/// Whether `anim` has a motion channel of at least `min_keys` keys on one of `nodes` or
/// their ancestors.
fn keys_any(
    anim: &Animation,
    graph: &Graph,
    nodes: impl Iterator<Item = usize>,
    min_keys: usize,
) -> bool {
    let mut moving = vec![false; graph.parent.len()];
    for c in anim
        .channels
        .iter()
        .filter(|c| is_motion(c) && c.times.len() >= min_keys.max(1))
    {
        if let Some(m) = moving.get_mut(c.node) {
            *m = true;
        }
    }
    let moved = graph.nearest(&moving);
    let mut nodes = nodes;
    nodes.any(|n| moved.get(n).copied().flatten().is_some())
}

/// Whether `c` is the zoom (`ChannelValues::CameraYfov`) of camera `camera`.
fn is_fov_of(c: &Channel, camera: Option<usize>) -> bool {
    matches!(c.values, ChannelValues::CameraYfov { camera: k, .. } if Some(k) == camera)
}

/// The vertical fov of camera `camera` at `t` in `anim` (its zoom channel interpolated as
/// [`sample`] interpolates the others), or `None` when `anim` does not zoom it.
fn yfov_at(anim: &Animation, camera: Option<usize>, t: f32, left: bool) -> Option<f32> {
    let c = anim.channels.iter().find(|c| is_fov_of(c, camera))?;
    let ChannelValues::CameraYfov { yfov, .. } = &c.values else {
        return None;
    };
    let (i, j, f) = locate(&c.times, t, c.interpolation == Interpolation::Step, left);
    let (a, b) = (*yfov.get(i)?, *yfov.get(j)?);
    Some(if i == j { a } else { a + (b - a) * f })
}

fn is_motion(c: &Channel) -> bool {
    matches!(
        c.values,
        ChannelValues::Translation(_) | ChannelValues::Rotation(_) | ChannelValues::Scale(_)
    )
}

/// `t · fps` as a float (exact enough for grid tests).
#[allow(clippy::as_conversions)] // u32 → f64 exact; f64 → f32 rounds
fn frames_at(t: f32, fps: f64) -> f64 {
    f64::from(t) * fps
}

/// The smallest whole rate in `1..=MAX_FPS` that puts every time of `times` (sorted)
/// within 1/100 frame of its grid; with `pairs`, a time followed within 1/100 frame by
/// the next is the left end of a jump and is not tested.
fn grid_fps(times: &[f32], pairs: bool) -> Option<u32> {
    (1..=MAX_FPS).find(|&fps| {
        let f = f64::from(fps);
        times.iter().enumerate().all(|(i, &t)| {
            let x = frames_at(t, f);
            let on = (x - libm::round(x)).abs() <= 0.01;
            let left_of_pair = pairs
                && times
                    .get(i.saturating_add(1))
                    .is_some_and(|&n| frames_at(n, f) - x < 0.01);
            on || left_of_pair
        })
    })
}

/// The sorted distinct key times of the motion channels of more than one key.
fn key_times<'a>(channels: impl Iterator<Item = &'a Channel>) -> Vec<f32> {
    let mut times: Vec<f32> = channels
        .filter(|c| is_motion(c) && c.times.len() > 1)
        .flat_map(|c| c.times.iter().copied())
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}

/// The number of frames `0..=ceil(last · per_second)` (a last key within 1/100 frame of
/// the grid counts as on it).
#[allow(clippy::as_conversions)] // a checked, bounded f64 → usize
fn frame_count(last: f32, per_second: f64) -> Result<usize> {
    let x = libm::ceil(frames_at(last, per_second) - 0.01).max(0.0);
    if x.is_nan() || x >= 1e9 {
        return Err(Error::new(format!(
            "the animation lasts {last} s: too many frames at {per_second} per second"
        )));
    }
    Ok((x as usize).saturating_add(1))
}

// ---------------------------------------------------------------------------------------
// md5anim.

/// The md5anim of `scene.animations[index]` (`(index, anim)`).
fn anim_of(
    scene: &Scene,
    graph: &Graph,
    skel: &Skeleton,
    (index, anim): (usize, &Animation),
    mesh: Option<&Model>,
    options: &Md5Options,
) -> Result<Anim> {
    for (i, c) in anim.channels.iter().enumerate() {
        check_channel(c, scene, &format!("animation {:?} channel {i}", anim.name))?;
    }
    let times = key_times(anim.channels.iter());
    let last = times.last().copied().unwrap_or(0.0);
    let record = anim_record_of(scene, index, anim);
    let fps = match options.fps {
        Some(0) => return Err(Error::new("a frame rate of 0 fps")),
        Some(f) => f,
        None => match record.as_ref().and_then(|r| recorded_rate(r, &times, last)) {
            Some(f) => f,
            // A one-frame clip has no key times to measure: Doom 3's usual rate.
            None if times.is_empty() => DEFAULT_FPS,
            None => grid_fps(&times, false).unwrap_or(DEFAULT_FPS),
        },
    };
    let frames = frame_count(last, f64::from(fps))?;
    // The record still describes the clip: same frame count at the recorded rate.
    let record = record.filter(|r| r.frames == frames && played_at(r.frame_rate) == Some(fps));
    let joints = skel.joints.len();
    let need = u64::try_from(frames)
        .unwrap_or(u64::MAX)
        .saturating_mul(u64::try_from(joints).unwrap_or(u64::MAX))
        .saturating_mul(6 * 4 * 2);
    options.check_budget(need)?;
    let rest = rest_trs(scene);
    // Joints whose md5 parent is their scene parent (or which are roots without a scene
    // parent) read their own transform; the others need world transforms.
    let direct: Vec<bool> = skel
        .nodes
        .iter()
        .zip(&skel.joints)
        .map(|(&node, j)| {
            let Some(node) = node else { return true };
            let md5_parent = usize::try_from(j.parent)
                .ok()
                .and_then(|p| skel.nodes.get(p).copied().flatten());
            md5_parent == graph.parent_of(node)
        })
        .collect();
    let need_world = direct.iter().any(|d| !d);
    let fps_f = f64::from(fps);
    let mut per_frame: Vec<Vec<[f32; 6]>> = Vec::with_capacity(frames);
    for k in 0..frames {
        let t = seconds(k, fps_f);
        let trs = sample(&rest, anim, t, false);
        let world = if need_world {
            graph.worlds(&affines(&trs))
        } else {
            Vec::new()
        };
        let mut row = Vec::with_capacity(joints);
        for (ji, (&node, j)) in skel.nodes.iter().zip(&skel.joints).enumerate() {
            let (tr, q) = match node {
                None => ([0.0; 3], quat::IDENTITY),
                Some(node) if direct.get(ji) == Some(&true) => {
                    let (tr, q, _) =
                        trs.get(node)
                            .copied()
                            .unwrap_or(([0.0; 3], quat::IDENTITY, [1.0; 3]));
                    (tr, q)
                }
                Some(node) => {
                    let w = world.get(node).copied().unwrap_or(Affine::IDENTITY);
                    let pw = usize::try_from(j.parent)
                        .ok()
                        .and_then(|p| skel.nodes.get(p).copied().flatten())
                        .and_then(|p| world.get(p).copied())
                        .unwrap_or(Affine::IDENTITY);
                    let (pq, pt) = pw.rotation_translation();
                    let (wq, wt) = w.rotation_translation();
                    let rel = Affine::rigid(pt, pq)
                        .inverse()
                        .unwrap_or(Affine::IDENTITY)
                        .mul(&Affine::rigid(wt, wq));
                    let (q, t) = rel.rotation_translation();
                    (t, q)
                }
            };
            let tr = tr.map(|c| if c.is_finite() { c } else { 0.0 });
            let [x, y, z] = doom_xyz(q);
            row.push([tr[0], tr[1], tr[2], x, y, z]);
        }
        per_frame.push(row);
    }
    let base = per_frame.first().cloned().unwrap_or_default();
    let mut hierarchy = Vec::with_capacity(joints);
    let mut base_frame = Vec::with_capacity(joints);
    let mut first = 0u32;
    for (ji, j) in skel.joints.iter().enumerate() {
        let b = base.get(ji).copied().unwrap_or([0.0; 6]);
        let mut flags = 0u8;
        for (bit, &v) in b.iter().enumerate() {
            let changes = per_frame.iter().any(|f| {
                f.get(ji)
                    .and_then(|c| c.get(bit))
                    .is_some_and(|&x| changed(x, v))
            });
            if changes {
                flags |= 1u8 << bit;
            }
        }
        hierarchy.push(HierarchyJoint {
            name: j.name.clone(),
            parent: j.parent,
            flags,
            // Doom checks every joint's first component against the count, animated
            // or not: a joint without flags points at 0.
            first_component: if flags == 0 {
                0
            } else {
                i32::try_from(first).map_err(|_| Error::new("too many components"))?
            },
        });
        first = first.saturating_add(u32::from(flags).count_ones());
        base_frame.push(BaseJoint {
            position: [b[0], b[1], b[2]],
            orientation: [b[3], b[4], b[5]],
        });
    }
    let frames_out: Vec<Vec<f32>> = per_frame
        .iter()
        .map(|f| {
            let mut out = Vec::with_capacity(usize::try_from(first).unwrap_or(0));
            for (h, c) in hierarchy.iter().zip(f) {
                for (bit, &v) in c.iter().enumerate() {
                    if h.flags & (1u8 << bit) != 0 {
                        out.push(v);
                    }
                }
            }
            out
        })
        .collect();
    let mut a = Anim {
        commandline: String::new(),
        frame_rate: i32::try_from(fps).map_err(|_| Error::new("frame rate too high"))?,
        num_animated_components: first,
        hierarchy,
        bounds: Vec::new(),
        base_frame,
        frames: frames_out,
    };
    match record {
        Some(r) => {
            a.bounds = r.bounds;
            a.frame_rate = r.frame_rate;
            a.commandline = md5_text(&r.commandline);
        }
        None => a.bounds = bounds(&a, mesh),
    }
    Ok(a)
}

/// The `md5.anims` record of `anim` (see the [md5 module docs](super)): the one at its
/// index when it has the clip's name, else the first with that name.
fn anim_record_of(scene: &Scene, index: usize, anim: &Animation) -> Option<AnimRecord> {
    let name = clip_name(anim, index);
    let mut records = super::anim_records(&scene.extras);
    let at = records
        .get(index)
        .and_then(Option::as_ref)
        .is_some_and(|r| r.name == name);
    if at {
        return records.get_mut(index).and_then(Option::take);
    }
    records.into_iter().flatten().find(|r| r.name == name)
}

/// The rate a stored `frameRate` plays at (0: [`ZERO_RATE_FPS`](super::ZERO_RATE_FPS),
/// as the forward adapter plays it), or `None` for a negative one.
fn played_at(frame_rate: i32) -> Option<u32> {
    match u32::try_from(frame_rate) {
        Ok(0) => Some(DEFAULT_FPS),
        Ok(r) => Some(r),
        Err(_) => None,
    }
}

/// The rate of a record when the clip's keys are frames at it and its frame count is the
/// recorded one: a one-frame clip keeps its rate, and a clip whose keys fit a smaller
/// rate too keeps the stored one.
fn recorded_rate(r: &AnimRecord, times: &[f32], last: f32) -> Option<u32> {
    let fps = played_at(r.frame_rate)?;
    let f = f64::from(fps);
    let on_grid = times.iter().all(|&t| {
        let x = frames_at(t, f);
        (x - libm::round(x)).abs() <= 0.01
    });
    (on_grid && frame_count(last, f).ok() == Some(r.frames)).then_some(fps)
}

/// Whether a component moved: by more than 1e-6 of its size (at least 1). Smaller
/// differences are the rounding of `w`'s recomputation and renormalisation (a rotation
/// whose `x, y` animate changes `z` in its last bits), not motion.
fn changed(x: f32, base: f32) -> bool {
    (x - base).abs() > 1e-6 * x.abs().max(base.abs()).max(1.0)
}

/// Each frame's model-space bounds: of the mesh as Doom skins it, or of the joints.
fn bounds(a: &Anim, mesh: Option<&Model>) -> Vec<[Vec3; 2]> {
    let n = a.hierarchy.len();
    let mut local = vec![pose::JointPose::IDENTITY; n];
    let mut world = vec![JointMat::IDENTITY; n];
    let mut scratch: Vec<Vec3> = Vec::new();
    (0..a.frames.len())
        .map(|k| {
            a.local_pose(k, &mut local);
            pose::model_space(&a.hierarchy, &local, &mut world);
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            let mut add = |p: Vec3| {
                for ((l, h), c) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
                    if c.is_finite() {
                        *l = l.min(c);
                        *h = h.max(c);
                    }
                }
            };
            match mesh.filter(|m| m.meshes.iter().any(|x| !x.vertices.is_empty())) {
                Some(m) => {
                    for x in &m.meshes {
                        scratch.clear();
                        scratch.resize(x.vertices.len(), [0.0; 3]);
                        skinning::skin(&x.vertices, &x.weights, &world, &mut scratch);
                        scratch.iter().for_each(|&p| add(p));
                    }
                }
                None => world.iter().for_each(|w| add(w.translation())),
            }
            if lo.iter().any(|x| !x.is_finite()) {
                [[0.0; 3]; 2]
            } else {
                [lo, hi]
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// md5camera.

/// The horizontal fov in degrees of a vertical `yfov` (radians) on an `aspect` screen.
fn xfov_degrees(yfov: f32, aspect: f32) -> f32 {
    (2.0 * libm::atanf(libm::tanf(yfov * 0.5) * aspect)).to_degrees()
}

fn cameras_of(
    scene: &Scene,
    graph: &Graph,
    options: &Md5Options,
) -> Result<Vec<(String, Md5Camera)>> {
    let camera_nodes: Vec<usize> = scene
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.camera.is_some())
        .map(|(i, _)| i)
        .collect();
    let rest = rest_trs(scene);
    let mut out = Vec::new();
    for &cn in &camera_nodes {
        let Some(cam) = scene
            .nodes
            .get(cn)
            .and_then(|n| n.camera)
            .and_then(|c| scene.cameras.get(c))
        else {
            return Err(Error::new(format!(
                "node {cn}: its camera is not in the scene"
            )));
        };
        let aspect = cam
            .aspect_ratio
            .filter(|a| a.is_finite() && *a > 0.0)
            .unwrap_or(CAMERA_ASPECT);
        let fov = xfov_degrees(cam.yfov, aspect);
        let fov = if fov.is_finite() && fov > 0.0 && fov < 180.0 {
            fov
        } else {
            90.0
        };
        let node_name = scene
            .nodes
            .get(cn)
            .map(|n| n.name.clone())
            .unwrap_or_default();
        let cam_index = scene.nodes.get(cn).and_then(|n| n.camera);
        let moving: Vec<(usize, &Animation)> = scene
            .animations
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                moves_any(a, graph, core::iter::once(cn))
                    || a.channels
                        .iter()
                        .any(|c| is_fov_of(c, cam_index) && c.times.len() > 1)
            })
            .collect();
        let pose_at = |trs: &[Trs]| -> CameraFrame {
            let (t, q) = if graph.parent_of(cn).is_none() {
                let (t, q, _) =
                    trs.get(cn)
                        .copied()
                        .unwrap_or(([0.0; 3], quat::IDENTITY, [1.0; 3]));
                (t, q)
            } else {
                // The camera's chain only, root first.
                let chain: Vec<usize> = graph.chain(cn).collect();
                let w = chain.iter().rev().fold(Affine::IDENTITY, |acc, &c| {
                    let (t, q, s) =
                        trs.get(c)
                            .copied()
                            .unwrap_or(([0.0; 3], quat::IDENTITY, [1.0; 3]));
                    acc.mul(&Affine::from_trs(t, q, s))
                });
                let (q, t) = w.rotation_translation();
                (t, q)
            };
            CameraFrame {
                position: t.map(|c| if c.is_finite() { c } else { 0.0 }),
                orientation: doom_xyz(q),
                fov,
            }
        };
        if moving.is_empty() {
            let name = if node_name.is_empty() {
                format!("camera{cn}")
            } else {
                node_name.clone()
            };
            out.push((
                name,
                Md5Camera {
                    commandline: String::new(),
                    frame_rate: options.fps.unwrap_or(DEFAULT_FPS).max(1),
                    cuts: Vec::new(),
                    frames: vec![pose_at(&rest)],
                },
            ));
            continue;
        }
        for (ai, a) in moving {
            for (i, c) in a.channels.iter().enumerate() {
                check_channel(c, scene, &format!("animation {:?} channel {i}", a.name))?;
            }
            let mut on_chain = vec![false; scene.nodes.len()];
            for c in graph.chain(cn) {
                if let Some(f) = on_chain.get_mut(c) {
                    *f = true;
                }
            }
            let relevant: Vec<&Channel> = a
                .channels
                .iter()
                .filter(|c| {
                    c.times.len() > 1
                        && ((is_motion(c) && on_chain.get(c.node) == Some(&true))
                            || is_fov_of(c, cam_index))
                })
                .collect();
            // A frame of the camera at `t`: its pose, and its zoom where `a` has one.
            let frame_at = |t: f32, left: bool| {
                let mut f = pose_at(&sample(&rest, a, t, left));
                if let Some(y) = yfov_at(a, cam_index, t, left) {
                    let d = xfov_degrees(y, aspect);
                    if d.is_finite() && d > 0.0 && d < 180.0 {
                        f.fov = d;
                    }
                }
                f
            };
            let times = key_times(relevant.iter().copied());
            let last = times.last().copied().unwrap_or(0.0);
            let all_step = relevant
                .iter()
                .all(|c| c.interpolation == Interpolation::Step);
            let on_ticks = times.iter().all(|&t| {
                let x = frames_at(t, 62.5);
                (x - libm::round(x)).abs() <= 0.01
            });
            let name = if camera_nodes.len() == 1 {
                clip_name(a, ai)
            } else {
                format!("{node_name}_{}", clip_name(a, ai))
            };
            let mut frames = Vec::new();
            let mut cuts = Vec::new();
            let rate;
            if options.fps.is_none() && all_step && on_ticks {
                // Doom steps a 60 Hz camera every 16 ms without interpolation.
                rate = USERCMD_HZ;
                let ticks = frame_count(last, 62.5)?;
                options
                    .check_budget(u64::try_from(ticks).unwrap_or(u64::MAX).saturating_mul(64))?;
                for k in 0..ticks {
                    frames.push(frame_at(seconds(k, 62.5), false));
                }
            } else {
                let fps = match options.fps {
                    Some(0) => return Err(Error::new("a frame rate of 0 fps")),
                    Some(f) => f,
                    None => grid_fps(&times, true).unwrap_or(DEFAULT_FPS),
                };
                rate = fps;
                let ticks = frame_count(last, f64::from(fps))?;
                options.check_budget(
                    u64::try_from(ticks)
                        .unwrap_or(u64::MAX)
                        .saturating_mul(2 * 64),
                )?;
                let per = f64::from(fps);
                frames.push(frame_at(0.0, false));
                for k in 1..ticks {
                    let t0 = seconds(k.saturating_sub(1), per);
                    let t1 = seconds(k, per);
                    if let Some(left) = jump_in(&relevant, t0, t1, per) {
                        frames.push(frame_at(left, true));
                        cuts.push(
                            u32::try_from(frames.len().saturating_sub(1)).unwrap_or(u32::MAX),
                        );
                    }
                    frames.push(frame_at(t1, false));
                }
            }
            out.push((
                name,
                Md5Camera {
                    commandline: String::new(),
                    frame_rate: rate,
                    cuts,
                    frames,
                },
            ));
        }
    }
    Ok(out)
}

/// The time whose (left) value is the frame before a jump inside `(t0, t1]`, if any: a
/// STEP key in it, or two LINEAR keys in `[t0, t1]` closer than 1/100 of a frame.
fn jump_in(channels: &[&Channel], t0: f32, t1: f32, fps: f64) -> Option<f32> {
    let mut best: Option<f32> = None;
    for c in channels {
        let found = if c.interpolation == Interpolation::Step {
            c.times.iter().copied().find(|&b| b > t0 && b <= t1)
        } else {
            c.times.windows(2).find_map(|w| match *w {
                [a, b] if a >= t0 && b <= t1 && frames_at(b, fps) - frames_at(a, fps) < 0.01 => {
                    Some(a)
                }
                _ => None,
            })
        };
        if let Some(f) = found {
            best = Some(best.map_or(f, |b: f32| b.min(f)));
        }
    }
    best
}
