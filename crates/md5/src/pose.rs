//! Pose evaluation: frame → parent-relative joints → model-space joints, Doom's blending
//! between frames, time → frame, and the mesh/anim compatibility report
//! (docs/formats.md §4.3, §4.5). Nothing here allocates: callers pass slices.
//!
//! ```
//! use idmodel_md5::anim::{BaseJoint, HierarchyJoint, flags};
//! use idmodel_md5::pose::{self, JointPose};
//! use idmodel_core::quat::JointMat;
//! // A root at the origin and a child 8 units up the root's z; the frame moves the root.
//! let hierarchy = [
//!     HierarchyJoint { name: "root", parent: -1, flags: flags::TZ, first_component: 0 },
//!     HierarchyJoint { name: "tip", parent: 0, flags: 0, first_component: 0 },
//! ];
//! let base = [
//!     BaseJoint { position: [0.0; 3], orientation: [0.0; 3] },
//!     BaseJoint { position: [0.0, 0.0, 8.0], orientation: [0.0; 3] },
//! ];
//! let mut local = [JointPose::IDENTITY; 2];
//! pose::frame_local(&hierarchy, &base, &[32.0], &mut local);
//! let mut model = [JointMat::IDENTITY; 2];
//! pose::model_space(&hierarchy, &local, &mut model);
//! assert_eq!(model[1].translation(), [0.0, 0.0, 40.0]);
//! ```

use idmodel_core::quat::{self, JointMat, Quat, Vec3, doom_quat, lerp3, slerp_doom};

use crate::text::Text;
use crate::types::{BaseJoint, HierarchyJoint};

/// A joint transform: position and full Doom-form quaternion (`w ≥ 0` as computed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointPose {
    /// Position (parent-relative or model-space, depending on where it came from).
    pub position: Vec3,
    /// Orientation `[x, y, z, w]` in Doom's form (applied as its conjugate, §4.5).
    pub orientation: Quat,
}

impl JointPose {
    /// No translation, no rotation.
    pub const IDENTITY: Self = Self {
        position: [0.0; 3],
        orientation: quat::IDENTITY,
    };

    /// The joint matrix Doom builds from it (`SetRotation(q.ToMat3())`, `SetTranslation`).
    pub fn matrix(&self) -> JointMat {
        JointMat::from_quat(self.orientation, self.position)
    }
}

/// Whether the root joint's translation is used raw or with Doom's motion extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RootMotion {
    /// The file's values (the default).
    #[default]
    Raw,
    /// As `idMD5Anim::LoadAnim` prepares them: joint 0's animated translation components
    /// have the base frame's root translation subtracted, the base root translation is
    /// zero, and each completed cycle adds the last frame's root delta.
    Extract,
}

/// The pieces of frame `components` applied over `base` for one joint.
fn joint_local<N>(
    h: &HierarchyJoint<N>,
    b: &BaseJoint,
    components: &[f32],
) -> ([f32; 3], [f32; 3]) {
    let mut t = b.position;
    let mut q = b.orientation;
    if h.flags != 0 && !components.is_empty() {
        let mut k = usize::try_from(h.first_component).unwrap_or(usize::MAX);
        for bit in 0..6u8 {
            if h.flags & (1 << bit) == 0 {
                continue;
            }
            if let Some(&v) = components.get(k) {
                let slot = match bit {
                    0..=2 => t.get_mut(usize::from(bit)),
                    _ => q.get_mut(usize::from(bit).saturating_sub(3)),
                };
                if let Some(s) = slot {
                    *s = v;
                }
            }
            k = k.saturating_add(1);
        }
    }
    (t, q)
}

/// A frame's parent-relative pose: each joint's animated components replace the base
/// frame's values, then `w` is recomputed from the mixed `x, y, z` (Doom's `CalcW`).
/// `components` is the frame's `numAnimatedComponents` values (empty: the base frame).
/// Writes `min(hierarchy, base, out)` joints.
pub fn frame_local<N>(
    hierarchy: &[HierarchyJoint<N>],
    base: &[BaseJoint],
    components: &[f32],
    out: &mut [JointPose],
) {
    frame_local_with(hierarchy, base, components, RootMotion::Raw, out);
}

/// [`frame_local`] with a choice of root motion.
pub fn frame_local_with<N>(
    hierarchy: &[HierarchyJoint<N>],
    base: &[BaseJoint],
    components: &[f32],
    root: RootMotion,
    out: &mut [JointPose],
) {
    for (i, ((h, b), o)) in hierarchy.iter().zip(base).zip(out.iter_mut()).enumerate() {
        let (mut t, q) = joint_local(h, b, components);
        if i == 0 && root == RootMotion::Extract {
            t = extracted_root(h, b, components);
        }
        *o = JointPose {
            position: t,
            orientation: doom_quat(q),
        };
    }
}

/// Joint 0's translation after Doom's load-time extraction.
fn extracted_root<N>(h: &HierarchyJoint<N>, b: &BaseJoint, components: &[f32]) -> Vec3 {
    let (t, _) = joint_local(h, b, components);
    let mut out = [0.0f32; 3];
    if components.is_empty() {
        return out;
    }
    for (axis, o) in out.iter_mut().enumerate() {
        if h.flags & (1u8 << axis) != 0 {
            *o = t.get(axis).copied().unwrap_or(0.0) - b.position.get(axis).copied().unwrap_or(0.0);
        }
    }
    out
}

/// `idMD5Anim::totaldelta`: the last frame's extracted root translation.
pub fn total_delta<N>(
    hierarchy: &[HierarchyJoint<N>],
    base: &[BaseJoint],
    last_frame: &[f32],
) -> Vec3 {
    match (hierarchy.first(), base.first()) {
        (Some(h), Some(b)) => extracted_root(h, b, last_frame),
        _ => [0.0; 3],
    }
}

/// Doom's `BlendJoints`: for every animated joint, `q = Slerp(a.q, b.q, t)` with
/// [`slerp_doom`] and `p = Lerp(a.p, b.p, t)`; other joints keep `a`. Writes into `a`.
pub fn blend<N>(hierarchy: &[HierarchyJoint<N>], a: &mut [JointPose], b: &[JointPose], t: f32) {
    for ((h, x), y) in hierarchy.iter().zip(a.iter_mut()).zip(b) {
        if h.flags == 0 {
            continue;
        }
        x.orientation = slerp_doom(x.orientation, y.orientation, t);
        x.position = lerp3(x.position, y.position, t);
    }
}

/// Frames and blend factor for a time (`idMD5Anim::ConvertTimeToFrame`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameBlend {
    /// The first frame.
    pub frame1: usize,
    /// The frame blended towards.
    pub frame2: usize,
    /// The weight of `frame2` (Doom's `backlerp`), in `[0, 1)`.
    pub blend: f32,
    /// Completed cycles (for root-motion accumulation).
    pub cycle_count: i64,
}

/// `ConvertTimeToFrame`: `time_ms` at `frame_rate` over `num_frames`.
///
/// One frame or fewer → frame 0; `time ≤ 0` → frames 0/1 with blend 0; otherwise
/// `ft = time·rate`, `frame = ft/1000`, `cycle = frame/(n−1)`, `frame1 = frame % (n−1)`,
/// `frame2 = frame1 + 1`, `blend = (ft % 1000)·0.001`. With `cycle_limit > 0`, playing
/// past that many cycles holds the last frame. Integer maths is 64-bit (Doom's 32-bit
/// product overflows after about 24 days at 1000 fps); a frame rate of 0 is safe and
/// always gives frame 0.
///
/// ```
/// use idmodel_md5::pose::frame_blend;
/// let f = frame_blend(1050, 11, 20, 0); // 20 fps: 21 frames in → frame 1 of cycle 2
/// assert_eq!((f.frame1, f.frame2, f.cycle_count), (1, 2, 2));
/// assert!(f.blend.abs() < 1e-6);
/// ```
pub fn frame_blend(time_ms: i32, num_frames: u32, frame_rate: i32, cycle_limit: i32) -> FrameBlend {
    let hold = |frame1: usize, frame2: usize| FrameBlend {
        frame1,
        frame2,
        blend: 0.0,
        cycle_count: 0,
    };
    if num_frames <= 1 {
        return hold(0, 0);
    }
    if time_ms <= 0 {
        return hold(0, 1);
    }
    let n = i64::from(num_frames);
    let span = n.saturating_sub(1);
    let ft = i64::from(time_ms).saturating_mul(i64::from(frame_rate));
    let frame = ft.checked_div(1000).unwrap_or(0);
    let cycle = frame.checked_div(span).unwrap_or(0);
    if cycle_limit > 0 && cycle >= i64::from(cycle_limit) {
        let last = usize::try_from(span).unwrap_or(0);
        return FrameBlend {
            frame1: last,
            frame2: last,
            blend: 0.0,
            cycle_count: i64::from(cycle_limit).saturating_sub(1),
        };
    }
    let f1 = frame.checked_rem(span).unwrap_or(0);
    let mut f2 = f1.saturating_add(1);
    if f2 >= n {
        f2 = 0;
    }
    let rem = ft.checked_rem(1000).unwrap_or(0);
    FrameBlend {
        frame1: usize::try_from(f1).unwrap_or(0),
        frame2: usize::try_from(f2).unwrap_or(0),
        blend: small_to_f32(rem) * 0.001,
        cycle_count: cycle,
    }
}

/// A value in `-1000..1000` as f32 (exact).
fn small_to_f32(v: i64) -> f32 {
    i16::try_from(v).map_or(0.0, f32::from)
}

/// `animLength` in ms: `((numFrames − 1)·1000 + frameRate − 1) / frameRate` (integer),
/// `None` when the frame rate is 0 (Doom divides by zero there) or negative.
pub fn anim_length_ms(num_frames: u32, frame_rate: i32) -> Option<i64> {
    if frame_rate <= 0 {
        return None;
    }
    let r = i64::from(frame_rate);
    i64::from(num_frames)
        .saturating_sub(1)
        .saturating_mul(1000)
        .saturating_add(r)
        .saturating_sub(1)
        .checked_div(r)
}

/// The parent-relative pose for a [`FrameBlend`], as `GetInterpolatedFrame` computes it:
/// both frames from the base frame and their components, blended with Doom's slerp, and
/// with [`RootMotion::Extract`] the completed cycles' root delta added. `frame(i)` gives
/// frame `i`'s components (of `num_frames`); `scratch` must be as long as `out`.
#[allow(clippy::too_many_arguments)] // mirrors the engine's inputs one for one
pub fn blended_local<'f, N>(
    hierarchy: &[HierarchyJoint<N>],
    base: &[BaseJoint],
    num_frames: usize,
    frame: impl Fn(usize) -> &'f [f32],
    fb: FrameBlend,
    root: RootMotion,
    scratch: &mut [JointPose],
    out: &mut [JointPose],
) {
    let a = frame(fb.frame1);
    frame_local_with(hierarchy, base, a, root, out);
    if a.is_empty() {
        return; // no animated components: the base frame, as Doom returns early
    }
    frame_local_with(hierarchy, base, frame(fb.frame2), root, scratch);
    blend(hierarchy, out, scratch, fb.blend);
    if root == RootMotion::Extract && fb.cycle_count != 0 {
        let delta = total_delta(hierarchy, base, frame(num_frames.saturating_sub(1)));
        add_cycles(out, delta, fb.cycle_count);
    }
}

/// Adds `cycles × delta` to the root (Doom: `joints[0].t += totaldelta * cycleCount`).
pub fn add_cycles(out: &mut [JointPose], delta: Vec3, cycles: i64) {
    if let Some(r) = out.first_mut() {
        #[allow(clippy::as_conversions)] // int → float, as Doom's `( float )frame.cycleCount`
        let c = cycles as f32;
        for (p, d) in r.position.iter_mut().zip(delta) {
            *p += d * c;
        }
    }
}

/// Model-space joint matrices from parent-relative poses: `world_i = world_parent ∘
/// local_i` (`TransformJoints`). Parents must come first (the parsers guarantee it); a
/// parent that does not is treated as a root.
pub fn model_space<N>(hierarchy: &[HierarchyJoint<N>], local: &[JointPose], out: &mut [JointMat]) {
    model_space_by_parents(hierarchy.iter().map(|h| h.parent), local, out);
}

/// [`model_space`] with the parents given directly (for example an md5mesh's, when an
/// anim is applied by index).
pub fn model_space_by_parents(
    parents: impl IntoIterator<Item = i32>,
    local: &[JointPose],
    out: &mut [JointMat],
) {
    for (i, (parent, l)) in parents.into_iter().zip(local).enumerate() {
        let m = l.matrix();
        let world = match usize::try_from(parent).ok().filter(|&p| p < i) {
            Some(p) => match out.get(p) {
                Some(pm) => JointMat::compose(pm, &m),
                None => m,
            },
            None => m,
        };
        match out.get_mut(i) {
            Some(slot) => *slot = world,
            None => break,
        }
    }
}

/// A joint name for [`compare`]: anything that yields bytes.
pub trait JointName {
    /// The name's bytes.
    fn name_bytes(&self) -> impl Iterator<Item = u8> + '_;
}

impl JointName for Text<'_> {
    fn name_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.bytes()
    }
}

impl JointName for &str {
    fn name_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.bytes()
    }
}

#[cfg(feature = "alloc")]
impl JointName for alloc::string::String {
    fn name_bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.bytes()
    }
}

/// One difference between a mesh's skeleton and an anim's hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mismatch {
    /// Different joint counts.
    JointCount {
        /// The mesh's.
        mesh: usize,
        /// The anim's.
        anim: usize,
    },
    /// Joint `joint` has different names (case-sensitive, by index).
    Name {
        /// The joint index.
        joint: usize,
    },
    /// Joint `joint` has different parents (a mesh root counts as −1, as in Doom).
    Parent {
        /// The joint index.
        joint: usize,
        /// The mesh's parent.
        mesh: i32,
        /// The anim's parent.
        anim: i32,
    },
}

/// The outcome of [`compare`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Compatibility {
    /// The mesh's joint count.
    pub mesh_joints: usize,
    /// The anim's joint count.
    pub anim_joints: usize,
    /// Joints whose names differ.
    pub name_mismatches: usize,
    /// Joints whose parents differ.
    pub parent_mismatches: usize,
}

impl Compatibility {
    /// Doom's `CheckModelHierarchy` passes: same count, names and parents.
    pub fn engine_accepts(&self) -> bool {
        self.mesh_joints == self.anim_joints
            && self.name_mismatches == 0
            && self.parent_mismatches == 0
    }

    /// The anim can drive the mesh by index (same count and parents), even if names differ.
    pub fn usable_by_index(&self) -> bool {
        self.mesh_joints == self.anim_joints && self.parent_mismatches == 0
    }
}

/// Compares a mesh skeleton with an anim hierarchy by index, as Doom's
/// `CheckModelHierarchy` does, reporting every mismatch to `sink` (no allocation).
///
/// ```
/// use idmodel_md5::pose::{compare, Mismatch};
/// let mesh = [("origin", -1), ("head_tag", 0)];
/// let anim = [("origin", -1), ("tag_head", 0)];
/// let mut seen = vec![];
/// let c = compare(mesh, anim, &mut |m| seen.push(m));
/// assert_eq!(seen, [Mismatch::Name { joint: 1 }]);
/// assert!(!c.engine_accepts() && c.usable_by_index());
/// ```
pub fn compare<A: JointName, B: JointName>(
    mesh: impl IntoIterator<Item = (A, i32)>,
    anim: impl IntoIterator<Item = (B, i32)>,
    sink: &mut dyn FnMut(Mismatch),
) -> Compatibility {
    let mut c = Compatibility::default();
    let mut mesh = mesh.into_iter();
    let mut anim = anim.into_iter();
    let mut joint = 0usize;
    loop {
        match (mesh.next(), anim.next()) {
            (Some((mn, mp)), Some((an, ap))) => {
                c.mesh_joints = c.mesh_joints.saturating_add(1);
                c.anim_joints = c.anim_joints.saturating_add(1);
                if !mn.name_bytes().eq(an.name_bytes()) {
                    c.name_mismatches = c.name_mismatches.saturating_add(1);
                    sink(Mismatch::Name { joint });
                }
                let mp = if mp < 0 { -1 } else { mp };
                if mp != ap {
                    c.parent_mismatches = c.parent_mismatches.saturating_add(1);
                    sink(Mismatch::Parent {
                        joint,
                        mesh: mp,
                        anim: ap,
                    });
                }
            }
            (Some(_), None) => c.mesh_joints = c.mesh_joints.saturating_add(1),
            (None, Some(_)) => c.anim_joints = c.anim_joints.saturating_add(1),
            (None, None) => break,
        }
        joint = joint.saturating_add(1);
    }
    if c.mesh_joints != c.anim_joints {
        sink(Mismatch::JointCount {
            mesh: c.mesh_joints,
            anim: c.anim_joints,
        });
    }
    c
}
