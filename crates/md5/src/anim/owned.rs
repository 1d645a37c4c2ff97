//! The owned layer of `.md5anim` (feature `alloc`): [`Anim`], built in the parser's one
//! pass, its poses, and the writer that gives the same animation back.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

use super::*;
use crate::pose::{self, FrameBlend, JointPose, RootMotion};
use crate::write::{Dyn, WriteError, as_i32, invalid, write_f32, write_quoted, write_vec};

/// An owned md5anim.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Anim {
    /// The `commandline` text.
    pub commandline: String,
    /// `frameRate` (≥ 0).
    pub frame_rate: i32,
    /// `numAnimatedComponents`.
    pub num_animated_components: u32,
    /// The hierarchy.
    pub hierarchy: Vec<HierarchyJoint<String>>,
    /// Per-frame bounds (one per frame).
    pub bounds: Vec<Bounds>,
    /// The base frame (one per joint).
    pub base_frame: Vec<BaseJoint>,
    /// The frames, each with `num_animated_components` values.
    pub frames: Vec<Vec<f32>>,
}

/// The owned animation, and the frame being read (moved into `frames` at its end).
struct Builder(Anim, Vec<f32>);

impl<'a> Sink<'a> for Builder {
    fn header(&mut self, commandline: Text<'a>, frame_rate: i32, num_animated: u32) {
        self.0.commandline = commandline.to_string_lossy();
        self.0.frame_rate = frame_rate;
        self.0.num_animated_components = num_animated;
    }
    fn joint(&mut self, j: HierarchyJoint<Text<'a>>) {
        self.0.hierarchy.push(j.map_name(|n| n.to_string_lossy()));
    }
    fn bounds(&mut self, b: Bounds) {
        self.0.bounds.push(b);
    }
    fn base(&mut self, b: BaseJoint) {
        self.0.base_frame.push(b);
    }
    fn frame(&mut self) {
        // Sized by the previous frame, whose values have been read (never by a count
        // from the file).
        let seen = self.0.frames.last().map_or(0, Vec::len);
        self.1 = Vec::with_capacity(seen);
    }
    #[inline]
    fn component(&mut self, c: f32) {
        self.1.push(c);
    }
    fn frame_end(&mut self) {
        self.0.frames.push(core::mem::take(&mut self.1));
    }
}

impl Anim {
    /// Parses an md5anim into an owned animation in one pass (no reservation from
    /// file counts).
    pub fn parse(bytes: &[u8]) -> Result<Anim> {
        Self::parse_with(bytes, ParseOptions::default())
    }

    /// [`Anim::parse`] with options.
    pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<Anim> {
        let mut b = Builder(Anim::default(), Vec::new());
        parse_into(bytes, opts, &mut b)?;
        Ok(b.0)
    }

    /// The number of frames.
    pub fn num_frames(&self) -> usize {
        self.frames.len()
    }

    /// Frame `n`'s parent-relative pose into `out` (raw values: no root-motion
    /// extraction). Components replace base-frame values; `w` is recomputed from the
    /// mixed `x, y, z`. Frame numbers past the end are clamped to the last frame.
    pub fn local_pose(&self, n: usize, out: &mut [JointPose]) {
        let frame = self
            .frames
            .get(n)
            .or(self.frames.last())
            .map_or(&[][..], Vec::as_slice);
        pose::frame_local(&self.hierarchy, &self.base_frame, frame, out);
    }

    /// The engine's `ConvertTimeToFrame` for this animation (see [`pose::frame_blend`]).
    pub fn frame_blend(&self, time_ms: i32, cycle_count: i32) -> FrameBlend {
        pose::frame_blend(
            time_ms,
            u32::try_from(self.frames.len()).unwrap_or(u32::MAX),
            self.frame_rate,
            cycle_count,
        )
    }

    /// The parent-relative pose at a time, blended with Doom's slerp, into `out`.
    /// `scratch` must hold as many joints as `out` (no allocation here).
    pub fn local_pose_at(
        &self,
        time_ms: i32,
        root: RootMotion,
        scratch: &mut [JointPose],
        out: &mut [JointPose],
    ) {
        let fb = self.frame_blend(time_ms, 0);
        pose::blended_local(
            &self.hierarchy,
            &self.base_frame,
            self.frames.len(),
            |i| self.frames.get(i).map_or(&[][..], Vec::as_slice),
            fb,
            root,
            scratch,
            out,
        );
    }

    /// `animLength` in ms: `((numFrames − 1)·1000 + frameRate − 1) / frameRate`;
    /// `None` for frame rate 0 (where Doom divides by zero).
    pub fn length_ms(&self) -> Option<i64> {
        pose::anim_length_ms(
            u32::try_from(self.frames.len()).unwrap_or(u32::MAX),
            self.frame_rate,
        )
    }

    /// Findings on the data (see [`AnimFile::check`] for the text's).
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        check_anim(
            self.frame_rate,
            u32::try_from(self.frames.len()).unwrap_or(u32::MAX),
            self.num_animated_components,
            self.hierarchy.iter().cloned(),
            self.base_frame.iter().copied(),
            sink,
        );
    }

    /// [`Anim::check`] into a `Vec`.
    pub fn findings(&self, engine: Engine) -> Vec<Finding> {
        crate::check::collect(|sink| self.check(engine, sink))
    }
}

impl From<&AnimFile<'_>> for Anim {
    fn from(f: &AnimFile<'_>) -> Anim {
        Anim {
            commandline: f.commandline().to_string_lossy(),
            frame_rate: f.frame_rate(),
            num_animated_components: f.num_animated,
            hierarchy: f
                .hierarchy()
                .map(|j| j.map_name(|n| n.to_string_lossy()))
                .collect(),
            bounds: f.bounds().collect(),
            base_frame: f.base_frame().collect(),
            frames: f.frames().map(|fr| fr.components().collect()).collect(),
        }
    }
}

impl From<AnimFile<'_>> for Anim {
    fn from(f: AnimFile<'_>) -> Anim {
        Anim::from(&f)
    }
}

fn len64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn validate(a: &Anim) -> core::result::Result<(), WriteError> {
    let nj = a.hierarchy.len();
    let nf = a.frames.len();
    if nj == 0 {
        return Err(invalid("numJoints", 0, 0));
    }
    if nf == 0 {
        return Err(invalid("numFrames", 0, 0));
    }
    as_i32(nj, "numJoints", 0)?;
    as_i32(nf, "numFrames", 0)?;
    if a.frame_rate < 0 {
        return Err(invalid("frameRate", 0, i64::from(a.frame_rate)));
    }
    let na = a.num_animated_components;
    if i32::try_from(na).is_err()
        || u64::from(na) > u64::try_from(nj).unwrap_or(0).saturating_mul(6)
    {
        return Err(invalid("numAnimatedComponents", 0, i64::from(na)));
    }
    if a.bounds.len() != nf {
        return Err(invalid("bounds count", 0, len64(a.bounds.len())));
    }
    if a.base_frame.len() != nj {
        return Err(invalid("baseframe count", 0, len64(a.base_frame.len())));
    }
    for (i, j) in a.hierarchy.iter().enumerate() {
        let bad_parent =
            usize::try_from(j.parent).is_ok_and(|p| p >= i) || (i != 0 && j.parent < 0);
        if bad_parent {
            return Err(invalid("joint parent", i, i64::from(j.parent)));
        }
        if j.flags > flags::ALL {
            return Err(invalid("joint flags", i, i64::from(j.flags)));
        }
        if na > 0 {
            let n = if j.flags == 0 { 1 } else { j.component_count() };
            let end = i64::from(j.first_component).saturating_add(i64::from(n));
            if j.first_component < 0 || end > i64::from(na) {
                return Err(invalid("first component", i, i64::from(j.first_component)));
            }
        }
    }
    for (i, f) in a.frames.iter().enumerate() {
        if f.len() != usize::try_from(na).unwrap_or(0) {
            return Err(invalid("frame component count", i, len64(f.len())));
        }
    }
    Ok(())
}

/// Writes `a` as md5anim text through `core::fmt::Write`; refuses what the reader
/// would refuse; `Anim::parse(written) == a` bit for bit.
pub fn write_fmt<W: Write + ?Sized>(a: &Anim, w: &mut W) -> core::result::Result<(), WriteError> {
    validate(a)?;
    let mut w = Dyn(w);
    crate::write::write_header(&mut w, &a.commandline)?;
    write!(
        w,
        "\n\nnumFrames {}\nnumJoints {}\nframeRate {}\nnumAnimatedComponents {}\n\nhierarchy {{\n",
        a.frames.len(),
        a.hierarchy.len(),
        a.frame_rate,
        a.num_animated_components
    )?;
    for j in &a.hierarchy {
        w.write_char('\t')?;
        write_quoted(&mut w, &j.name, "joint name")?;
        writeln!(w, "\t{} {} {}", j.parent, j.flags, j.first_component)?;
    }
    w.write_str("}\n\nbounds {\n")?;
    for b in &a.bounds {
        w.write_char('\t')?;
        write_vec(&mut w, &b[0], "bounds")?;
        w.write_char(' ')?;
        write_vec(&mut w, &b[1], "bounds")?;
        w.write_char('\n')?;
    }
    w.write_str("}\n\nbaseframe {\n")?;
    for b in &a.base_frame {
        w.write_char('\t')?;
        write_vec(&mut w, &b.position, "baseframe position")?;
        w.write_char(' ')?;
        write_vec(&mut w, &b.orientation, "baseframe orientation")?;
        w.write_char('\n')?;
    }
    w.write_str("}\n")?;
    for (i, f) in a.frames.iter().enumerate() {
        write!(w, "\nframe {i} {{\n")?;
        for row in f.chunks(6) {
            w.write_char('\t')?;
            for (k, &c) in row.iter().enumerate() {
                if k > 0 {
                    w.write_char(' ')?;
                }
                write_f32(&mut w, c, "frame component")?;
            }
            w.write_char('\n')?;
        }
        w.write_str("}\n")?;
    }
    Ok(())
}

crate::write::entry_points!(Anim);
