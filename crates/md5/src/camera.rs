//! `.md5camera`: a cinematic camera path with cuts (docs/formats.md §4.4).
//!
//! Checks: `MD5Version 10`; `numFrames ≥ 1`; `frameRate ≥ 1` (stricter than md5anim);
//! `0 ≤ numCuts ≤ numFrames`; every cut in `1..numFrames` (ordering is not checked by
//! Doom: [`crate::FindingKind::CutsOutOfOrder`] reports it).
//!
//! A cut value `c` means stored frames `c` and `c + 1` are on opposite sides of a cut:
//! frame `c` ends the old shot and is only ever an interpolation target. [`sample`]
//! follows `idCameraAnim::GetViewParms`, so it never blends frame `c` with `c + 1`.
//!
//! ```
//! let text = b"MD5Version 10 commandline \"\"
//! numFrames 4 frameRate 10 numCuts 1 cuts { 1 }
//! camera {
//!   ( 0 0 0 ) ( 0 0 0 ) 90
//!   ( 10 0 0 ) ( 0 0 0 ) 90
//!   ( 500 0 0 ) ( 0 0 0 ) 60
//!   ( 600 0 0 ) ( 0 0 0 ) 60
//! }";
//! let cam = idmodel_md5::camera::Camera::parse(text)?;
//! let s = cam.sample(50); // half way through the first shot
//! assert_eq!((s.frame, s.next), (0, 1));
//! assert_eq!(s.position, [5.0, 0.0, 0.0]);
//! let s = cam.sample(150); // past the cut: frame 1 is skipped, 2 → 3
//! assert_eq!((s.frame, s.next), (2, 3));
//! assert_eq!(s.position, [550.0, 0.0, 0.0]);
//! # Ok::<(), idmodel_md5::Md5Error>(())
//! ```

use idmodel_core::quat::{Quat, Vec3, doom_quat, slerp_doom, to_standard};

use crate::check::{
    ENGINES, Engine, Finding, FindingKind, Severity, lex_findings, long_quaternion,
};
use crate::error::{Md5ErrorKind, Result};
use crate::lexer::{CommentRule, LexNotes, Parser};
use crate::parse::{self, ParseOptions, element_iter, to_usize};
use crate::text::Text;

/// Doom's tick rate (`USERCMD_HZ`): a camera at this rate is stepped without lerp.
pub const USERCMD_HZ: u32 = 60;
/// Doom's tick length in ms (`USERCMD_MSEC`).
pub const USERCMD_MSEC: i64 = 16;

/// One camera frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CameraFrame {
    /// World-space position.
    pub position: Vec3,
    /// Orientation `(x, y, z)` in Doom's form; the view axis is `q.ToMat3()`, whose rows
    /// are forward, left and up.
    pub orientation: Vec3,
    /// Horizontal field of view in degrees.
    pub fov: f32,
}

impl CameraFrame {
    /// Doom's quaternion `(x, y, z, w ≥ 0)`.
    pub fn quat(&self) -> Quat {
        doom_quat(self.orientation)
    }
}

trait Sink<'a> {
    fn header(&mut self, _commandline: Text<'a>, _frame_rate: u32) {}
    fn cut(&mut self, _c: u32) {}
    fn frame(&mut self, _f: CameraFrame) {}
}

struct NoSink;
impl Sink<'_> for NoSink {}

/// A validated md5camera, borrowing the text.
#[derive(Debug, Clone, Copy)]
pub struct CameraFile<'a> {
    src: &'a [u8],
    rule: CommentRule,
    commandline: Text<'a>,
    num_frames: u32,
    frame_rate: u32,
    num_cuts: u32,
    cuts_at: usize,
    frames_at: usize,
    notes: LexNotes,
}

/// Parses and validates an md5camera. Does not allocate.
pub fn parse(bytes: &[u8]) -> Result<CameraFile<'_>> {
    parse_with(bytes, ParseOptions::default())
}

/// [`parse`] with options.
pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<CameraFile<'_>> {
    parse_into(bytes, opts, &mut NoSink)
}

fn read_cut(p: &mut Parser<'_>, num_frames: u32) -> Result<u32> {
    let (c, at) = p.parse_int_at()?;
    match u32::try_from(c) {
        Ok(v) if v >= 1 && v < num_frames => Ok(v),
        _ => Err(p.error(Md5ErrorKind::BadCameraCut { cut: c, num_frames }, at)),
    }
}

fn read_frame(p: &mut Parser<'_>) -> Result<CameraFrame> {
    let position = p.parse_vec::<3>()?;
    let orientation = p.parse_vec::<3>()?;
    let fov = p.parse_float()?;
    Ok(CameraFrame {
        position,
        orientation,
        fov,
    })
}

fn parse_into<'a>(
    src: &'a [u8],
    opts: ParseOptions,
    sink: &mut dyn Sink<'a>,
) -> Result<CameraFile<'a>> {
    let mut p = parse::parser(src, false, opts);
    let commandline = parse::header(&mut p)?;
    let num_frames = parse::named_count(&mut p, "numFrames", 1)?;
    let frame_rate = parse::named_count(&mut p, "frameRate", 1)?;
    sink.header(commandline, frame_rate);
    let num_cuts = parse::bounded_count(&mut p, "numCuts", u64::from(num_frames))?;
    let cuts_at = parse::block(&mut p, "cuts", num_cuts, |p, _| {
        read_cut(p, num_frames).map(|x| sink.cut(x))
    })?;
    let frames_at = parse::block(&mut p, "camera", num_frames, |p, _| {
        read_frame(p).map(|x| sink.frame(x))
    })?;
    Ok(CameraFile {
        src,
        rule: opts.comments,
        commandline,
        num_frames,
        frame_rate,
        num_cuts,
        cuts_at,
        frames_at,
        notes: p.notes(),
    })
}

impl<'a> CameraFile<'a> {
    /// The `commandline` token.
    pub fn commandline(&self) -> Text<'a> {
        self.commandline
    }

    /// `numFrames` (at least 1).
    pub fn num_frames(&self) -> usize {
        to_usize(self.num_frames)
    }

    /// `frameRate` (at least 1).
    pub fn frame_rate(&self) -> u32 {
        self.frame_rate
    }

    /// `numCuts`.
    pub fn num_cuts(&self) -> usize {
        to_usize(self.num_cuts)
    }

    /// The lexer's warnings.
    pub fn notes(&self) -> LexNotes {
        self.notes
    }

    /// The cuts, in file order; each is in `1..numFrames`.
    pub fn cuts(&self) -> Cuts<'a> {
        Cuts::new(
            parse::parser_at(self.src, false, self.rule, self.cuts_at),
            self.num_cuts,
            self.num_frames,
        )
    }

    /// The frames, in order.
    pub fn frames(&self) -> CameraFrames<'a> {
        CameraFrames::new(
            parse::parser_at(self.src, false, self.rule, self.frames_at),
            self.num_frames,
            0,
        )
    }

    /// Fills `out` with the frames; returns how many.
    pub fn fill_frames(&self, out: &mut [CameraFrame]) -> usize {
        parse::fill(self.frames(), out)
    }

    /// Fills `out` with the cuts; returns how many.
    pub fn fill_cuts(&self, out: &mut [u32]) -> usize {
        parse::fill(self.cuts(), out)
    }

    /// Reports findings. Does not allocate.
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        lex_findings(self.src, &self.notes, sink);
        check_camera(self.frame_rate, self.cuts(), self.frames(), sink);
    }

    /// [`CameraFile::check`] into a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn findings(&self, engine: Engine) -> alloc::vec::Vec<Finding> {
        crate::check::collect(|sink| self.check(engine, sink))
    }
}

fn check_camera(
    frame_rate: u32,
    cuts: impl Iterator<Item = u32>,
    frames: impl Iterator<Item = CameraFrame>,
    sink: &mut dyn FnMut(Finding),
) {
    if frame_rate == USERCMD_HZ {
        sink(Finding::new(
            FindingKind::SixtyHertzCamera,
            Severity::Warning,
        ));
    }
    let mut prev = 0u32;
    for (i, c) in cuts.enumerate() {
        if c < prev {
            sink(Finding::new(
                FindingKind::CutsOutOfOrder {
                    cut: u32::try_from(i).unwrap_or(u32::MAX),
                },
                Severity::Hazard,
            ));
            break;
        }
        prev = c;
    }
    let mut non_finite = false;
    for (i, f) in frames.enumerate() {
        let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
        let ok = finite(&f.position) && finite(&f.orientation) && f.fov.is_finite();
        if !non_finite && !ok {
            non_finite = true;
            sink(Finding::new(
                FindingKind::NonFinite {
                    what: "camera frame",
                    index: u32::try_from(i).unwrap_or(u32::MAX),
                },
                Severity::Hazard,
            ));
        }
        long_quaternion(f.orientation, i, sink);
    }
}

element_iter!(
    'a,
    Cuts,
    u32,
    "Iterator over camera cuts.",
    |p, _i, num_frames| read_cut(p, num_frames)
);
element_iter!(
    'a,
    CameraFrames,
    CameraFrame,
    "Iterator over camera frames.",
    |p, _i, _c| read_frame(p)
);

/// The camera at a moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraSample {
    /// Position.
    pub position: Vec3,
    /// Orientation, Doom form (`w ≥ 0` for stored frames; slerped otherwise).
    pub orientation: Quat,
    /// Horizontal field of view in degrees.
    pub fov: f32,
    /// The stored frame used.
    pub frame: usize,
    /// The stored frame blended towards (equal to `frame` when not blending).
    pub next: usize,
    /// The weight of `next`.
    pub lerp: f32,
    /// True once the time is past the last frame (Doom stops or restarts there).
    pub finished: bool,
}

impl CameraSample {
    /// The orientation in the `q·v·q⁻¹` convention.
    pub fn standard_quat(&self) -> Quat {
        to_standard(self.orientation)
    }
}

/// The camera at `time_ms` after its start, as `idCameraAnim::GetViewParms` computes it:
///
/// * `ft = time·frameRate`, `frame = ft / 1000`, `lerp = (ft % 1000)·0.001` (at 60 Hz:
///   `frame = time / 16`, no lerp);
/// * walking the cuts in file order, each cut `≤` the current frame adds one (the
///   comparison uses the already-advanced frame), so a cut's frame is skipped;
/// * before the start → frame 0; at or past the last frame → the last frame, with
///   `finished` set (Doom then stops, or restarts when looping: pass
///   `time % duration` to loop);
/// * otherwise `slerp(q[frame], q[frame+1], lerp)` with Doom's slerp, and
///   `p = p0·(1−lerp) + p1·lerp`, likewise for the fov.
///
/// `frames` must not be empty (a parsed camera never is); an empty slice gives a zero
/// sample. Cuts outside `frames` are harmless.
pub fn sample(frames: &[CameraFrame], cuts: &[u32], frame_rate: u32, time_ms: i64) -> CameraSample {
    let (mut frame, lerp) = if frame_rate == USERCMD_HZ {
        (time_ms.checked_div(USERCMD_MSEC).unwrap_or(0), 0.0f32)
    } else {
        let ft = time_ms.saturating_mul(i64::from(frame_rate));
        let rem = ft.checked_rem(1000).unwrap_or(0);
        (
            ft.checked_div(1000).unwrap_or(0),
            i16::try_from(rem).map_or(0.0, f32::from) * 0.001,
        )
    };
    for &c in cuts {
        if frame < i64::from(c) {
            break;
        }
        frame = frame.saturating_add(1);
    }
    let n = frames.len();
    let still = |i: usize, finished: bool| {
        let f = frames.get(i).copied().unwrap_or_default();
        CameraSample {
            position: f.position,
            orientation: f.quat(),
            fov: f.fov,
            frame: i,
            next: i,
            lerp: 0.0,
            finished,
        }
    };
    let last = n.saturating_sub(1);
    let Ok(fi) = usize::try_from(frame) else {
        return still(0, false); // before the start
    };
    if fi >= last {
        return still(last, true);
    }
    if lerp == 0.0 {
        return still(fi, false);
    }
    let next = fi.saturating_add(1);
    let (Some(a), Some(b)) = (frames.get(fi), frames.get(next)) else {
        return still(fi, false);
    };
    let inv = 1.0 - lerp;
    let mix = |x: f32, y: f32| x * inv + y * lerp;
    CameraSample {
        position: [
            mix(a.position[0], b.position[0]),
            mix(a.position[1], b.position[1]),
            mix(a.position[2], b.position[2]),
        ],
        orientation: slerp_doom(a.quat(), b.quat(), lerp),
        fov: mix(a.fov, b.fov),
        frame: fi,
        next,
        lerp,
        finished: false,
    }
}

/// The playing time in ms: the stored frames minus one per cut, at the frame rate
/// (`(frames − cuts − 1)·1000 / rate`).
pub fn duration_ms(num_frames: usize, num_cuts: usize, frame_rate: u32) -> i64 {
    let shots = i64::try_from(num_frames.saturating_sub(num_cuts).saturating_sub(1)).unwrap_or(0);
    if frame_rate == USERCMD_HZ {
        return shots.saturating_mul(USERCMD_MSEC);
    }
    shots
        .saturating_mul(1000)
        .checked_div(i64::from(frame_rate))
        .unwrap_or(0)
}

#[cfg(feature = "alloc")]
pub use owned::*;

#[cfg(feature = "alloc")]
mod owned;
