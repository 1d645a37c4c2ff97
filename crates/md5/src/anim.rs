//! `.md5anim`: a skeleton's animation as per-frame component overrides of a base frame
//! (docs/formats.md §4.3).
//!
//! [`parse`] validates without allocating and returns an [`AnimFile`] view; [`Anim`]
//! (feature `alloc`) is the owned form, with pose evaluation at a frame or a time.
//!
//! Checks: `MD5Version 10`; `numFrames ≥ 1`, `numJoints ≥ 1`, `frameRate ≥ 0` (0 is
//! accepted as Doom accepts it, and reported: Doom then divides by zero);
//! `0 ≤ numAnimatedComponents ≤ 6·numJoints`; each parent comes before its joint and only
//! joint 0 is a root; flags within `0..=63`; when there are animated components, each
//! joint's `firstComponent` lies in `0..numAnimatedComponents` (Doom's check) **and** its
//! components do too (Doom reads past the end there); frames numbered 0, 1, 2, … in order.
//!
//! ```
//! let text = b"MD5Version 10 commandline \"\"
//! numFrames 2 numJoints 1 frameRate 24 numAnimatedComponents 1
//! hierarchy { \"root\" -1 4 0 }
//! bounds { ( 0 0 0 ) ( 1 1 1 ) ( 0 0 0 ) ( 1 1 1 ) }
//! baseframe { ( 0 0 0 ) ( 0 0 0 ) }
//! frame 0 { 0 } frame 1 { 10 }";
//! let anim = idmodel_md5::anim::Anim::parse(text)?;
//! let mut pose = [idmodel_md5::pose::JointPose::IDENTITY];
//! anim.local_pose(1, &mut pose);
//! assert_eq!(pose[0].position, [0.0, 0.0, 10.0]); // flag 4 = Tz
//! # Ok::<(), idmodel_md5::Md5Error>(())
//! ```

use crate::check::{
    ENGINES, Engine, Finding, FindingKind, Severity, lex_findings, long_quaternion,
};
use crate::error::{Expected, Md5ErrorKind, Result};
use crate::lexer::{CommentRule, LexNotes, Parser};
use crate::parse::{self, ParseOptions, element_iter, to_usize};
use crate::text::Text;
pub use crate::types::{BaseJoint, Bounds, HierarchyJoint, flags};

trait Sink<'a> {
    fn header(&mut self, _commandline: Text<'a>, _frame_rate: i32, _num_animated: u32) {}
    fn joint(&mut self, _j: HierarchyJoint<Text<'a>>) {}
    fn bounds(&mut self, _b: Bounds) {}
    fn base(&mut self, _b: BaseJoint) {}
    fn frame(&mut self) {}
    fn component(&mut self, _c: f32) {}
    fn frame_end(&mut self) {}
}

struct NoSink;
impl Sink<'_> for NoSink {}

/// A validated md5anim, borrowing the text. See the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct AnimFile<'a> {
    src: &'a [u8],
    rule: CommentRule,
    commandline: Text<'a>,
    num_frames: u32,
    num_joints: u32,
    frame_rate: i32,
    num_animated: u32,
    hierarchy_at: usize,
    bounds_at: usize,
    base_at: usize,
    frames_at: usize,
    notes: LexNotes,
}

/// Parses and validates an md5anim with Doom's lexer rules. Does not allocate.
pub fn parse(bytes: &[u8]) -> Result<AnimFile<'_>> {
    parse_with(bytes, ParseOptions::default())
}

/// [`parse`] with options.
pub fn parse_with(bytes: &[u8], opts: ParseOptions) -> Result<AnimFile<'_>> {
    parse_into(bytes, opts, &mut NoSink)
}

fn read_hierarchy_joint<'a>(
    p: &mut Parser<'a>,
    i: u32,
    num_animated: u32,
) -> Result<HierarchyJoint<Text<'a>>> {
    let name = p.read(Expected::Token)?.text;
    let (parent, at) = p.parse_int_at()?;
    if u32::try_from(parent).is_ok_and(|pi| pi >= i) {
        return Err(p.error(Md5ErrorKind::BadParent { joint: i, parent }, at));
    }
    if i != 0 && parent < 0 {
        return Err(p.error(Md5ErrorKind::SecondRoot { joint: i }, at));
    }
    let (fl, at) = p.parse_int_at()?;
    let flags = match u8::try_from(fl) {
        Ok(f) if f <= flags::ALL => f,
        _ => {
            return Err(p.error(
                Md5ErrorKind::BadAnimBits {
                    joint: i,
                    flags: fl,
                },
                at,
            ));
        }
    };
    let (first, at) = p.parse_int_at()?;
    let count = flags.count_ones();
    if num_animated > 0 {
        let end = i64::from(first).saturating_add(i64::from(if flags == 0 { 1 } else { count }));
        if first < 0 || end > i64::from(num_animated) {
            return Err(p.error(
                Md5ErrorKind::BadComponentRange {
                    joint: i,
                    first,
                    count,
                    num_animated,
                },
                at,
            ));
        }
    }
    Ok(HierarchyJoint {
        name,
        parent,
        flags,
        first_component: first,
    })
}

fn read_base(p: &mut Parser<'_>) -> Result<BaseJoint> {
    let position = p.parse_vec::<3>()?;
    let orientation = p.parse_vec::<3>()?;
    Ok(BaseJoint {
        position,
        orientation,
    })
}

fn read_bounds(p: &mut Parser<'_>) -> Result<Bounds> {
    Ok([p.parse_vec::<3>()?, p.parse_vec::<3>()?])
}

fn read_frame_header(p: &mut Parser<'_>, i: u32) -> Result<()> {
    p.expect("frame")?;
    let (n, at) = p.parse_int_at()?;
    if u32::try_from(n).ok() != Some(i) {
        return Err(p.error(
            Md5ErrorKind::FrameNumber {
                expected: i,
                found: n,
            },
            at,
        ));
    }
    p.expect("{")?;
    Ok(())
}

/// Frame `i`'s header and components: the view of one frame.
fn read_frame_view<'a>(p: &mut Parser<'a>, i: u32, num_animated: u32) -> Result<FrameView<'a>> {
    read_frame_header(p, i)?;
    let at = p.pos();
    p.parse_floats(num_animated, |_| {})?;
    p.expect("}")?;
    Ok(FrameView {
        p: p.clone(),
        at,
        index: i,
        len: num_animated,
    })
}

fn parse_into<'a>(
    src: &'a [u8],
    opts: ParseOptions,
    sink: &mut impl Sink<'a>,
) -> Result<AnimFile<'a>> {
    let mut p = parse::parser(src, false, opts);
    let commandline = parse::header(&mut p)?;
    let num_frames = parse::named_count(&mut p, "numFrames", 1)?;
    let num_joints = parse::named_count(&mut p, "numJoints", 1)?;
    let frame_rate = i32::try_from(parse::named_count(&mut p, "frameRate", 0)?).unwrap_or(i32::MAX);
    let max_animated = u64::from(num_joints).saturating_mul(6);
    let num_animated = parse::bounded_count(&mut p, "numAnimatedComponents", max_animated)?;
    sink.header(commandline, frame_rate, num_animated);
    let hierarchy_at = parse::block(&mut p, "hierarchy", num_joints, |p, i| {
        read_hierarchy_joint(p, i, num_animated).map(|x| sink.joint(x))
    })?;
    let bounds_at = parse::block(&mut p, "bounds", num_frames, |p, _| {
        read_bounds(p).map(|x| sink.bounds(x))
    })?;
    let base_at = parse::block(&mut p, "baseframe", num_joints, |p, _| {
        read_base(p).map(|x| sink.base(x))
    })?;
    let frames_at = p.pos();
    for i in 0..num_frames {
        read_frame_header(&mut p, i)?;
        sink.frame();
        p.parse_floats(num_animated, |c| sink.component(c))?;
        sink.frame_end();
        p.expect("}")?;
    }
    Ok(AnimFile {
        src,
        rule: opts.comments,
        commandline,
        num_frames,
        num_joints,
        frame_rate,
        num_animated,
        hierarchy_at,
        bounds_at,
        base_at,
        frames_at,
        notes: p.notes(),
    })
}

impl<'a> AnimFile<'a> {
    /// The whole input.
    pub fn source(&self) -> &'a [u8] {
        self.src
    }

    /// The `commandline` token.
    pub fn commandline(&self) -> Text<'a> {
        self.commandline
    }

    /// `numFrames` (at least 1).
    pub fn num_frames(&self) -> usize {
        to_usize(self.num_frames)
    }

    /// `numJoints` (at least 1).
    pub fn num_joints(&self) -> usize {
        to_usize(self.num_joints)
    }

    /// `frameRate` (0 is possible: see [`FindingKind::ZeroFrameRate`]).
    pub fn frame_rate(&self) -> i32 {
        self.frame_rate
    }

    /// `numAnimatedComponents`: values per frame.
    pub fn num_animated_components(&self) -> usize {
        to_usize(self.num_animated)
    }

    /// The lexer's warnings.
    pub fn notes(&self) -> LexNotes {
        self.notes
    }

    fn at(&self, pos: usize) -> Parser<'a> {
        parse::parser_at(self.src, false, self.rule, pos)
    }

    /// The hierarchy, in order.
    pub fn hierarchy(&self) -> Hierarchy<'a> {
        Hierarchy::new(
            self.at(self.hierarchy_at),
            self.num_joints,
            self.num_animated,
        )
    }

    /// The per-frame bounds, in order.
    pub fn bounds(&self) -> BoundsIter<'a> {
        BoundsIter::new(self.at(self.bounds_at), self.num_frames, 0)
    }

    /// The base frame, one entry per joint.
    pub fn base_frame(&self) -> BaseFrame<'a> {
        BaseFrame::new(self.at(self.base_at), self.num_joints, 0)
    }

    /// The frames, in order; each yields its components.
    pub fn frames(&self) -> Frames<'a> {
        Frames::new(self.at(self.frames_at), self.num_frames, self.num_animated)
    }

    /// Fills `out` with frame `n`'s components; returns how many were written (0 when
    /// `n` is out of range). Walks the text up to that frame.
    pub fn fill_frame(&self, n: usize, out: &mut [f32]) -> usize {
        match self.frames().nth(n) {
            Some(f) => {
                let mut k = 0usize;
                for (slot, c) in out.iter_mut().zip(f.components()) {
                    *slot = c;
                    k = k.saturating_add(1);
                }
                k
            }
            None => 0,
        }
    }

    /// Reports what Doom 3 accepts but a modder may want to know. Does not allocate.
    pub fn check(&self, engine: Engine, sink: &mut dyn FnMut(Finding)) {
        if !ENGINES.contains(&engine) {
            return;
        }
        lex_findings(self.src, &self.notes, sink);
        check_anim(
            self.frame_rate,
            self.num_frames,
            self.num_animated,
            self.hierarchy(),
            self.base_frame(),
            sink,
        );
        let finite = |v: &[f32]| v.iter().all(|x| x.is_finite());
        let non_finite = |what, index: Option<usize>| {
            index.map(|i| {
                Finding::new(
                    FindingKind::NonFinite {
                        what,
                        index: u32::try_from(i).unwrap_or(u32::MAX),
                    },
                    Severity::Hazard,
                )
            })
        };
        let base = self
            .base_frame()
            .position(|b| !(finite(&b.position) && finite(&b.orientation)));
        let bounds = self
            .bounds()
            .position(|b| !(finite(&b[0]) && finite(&b[1])));
        let frame = self
            .frames()
            .position(|f| !f.components().all(f32::is_finite));
        for f in [
            non_finite("base frame joint", base),
            non_finite("frame bounds", bounds),
            non_finite("frame", frame),
        ]
        .into_iter()
        .flatten()
        {
            sink(f);
        }
    }

    /// [`AnimFile::check`] into a `Vec`.
    #[cfg(feature = "alloc")]
    pub fn findings(&self, engine: Engine) -> alloc::vec::Vec<Finding> {
        crate::check::collect(|sink| self.check(engine, sink))
    }
}

fn check_anim<N>(
    frame_rate: i32,
    num_frames: u32,
    num_animated: u32,
    hierarchy: impl Iterator<Item = HierarchyJoint<N>>,
    base: impl Iterator<Item = BaseJoint>,
    sink: &mut dyn FnMut(Finding),
) {
    if frame_rate == 0 {
        sink(Finding::new(FindingKind::ZeroFrameRate, Severity::Hazard));
    }
    if num_frames == 1 {
        sink(Finding::new(
            FindingKind::SingleFrameAnim,
            Severity::Warning,
        ));
    }
    let used: u32 = if num_animated == 0 {
        0
    } else {
        hierarchy.map(|j| j.component_count()).sum()
    };
    if used != num_animated {
        sink(Finding::new(
            FindingKind::ComponentUse {
                used,
                declared: num_animated,
            },
            Severity::Warning,
        ));
    }
    for (i, b) in base.enumerate() {
        long_quaternion(b.orientation, i, sink);
    }
}

element_iter!(
    'a,
    BoundsIter,
    Bounds,
    "Iterator over per-frame bounds.",
    |p, _i, _c| read_bounds(p)
);
element_iter!(
    'a,
    BaseFrame,
    BaseJoint,
    "Iterator over the base frame.",
    |p, _i, _c| read_base(p)
);
element_iter!(
    'a,
    Hierarchy,
    HierarchyJoint<Text<'a>>,
    "Iterator over the hierarchy (see [`AnimFile::hierarchy`]).",
    |p, i, num_animated| read_hierarchy_joint(p, i, num_animated)
);
element_iter!(
    'a,
    Frames,
    FrameView<'a>,
    "Iterator over the frames (see [`AnimFile::frames`]).",
    |p, i, num_animated| read_frame_view(p, i, num_animated)
);

/// One frame of an md5anim.
#[derive(Debug, Clone)]
pub struct FrameView<'a> {
    p: Parser<'a>,
    at: usize,
    index: u32,
    len: u32,
}

impl<'a> FrameView<'a> {
    /// The frame number.
    pub fn index(&self) -> usize {
        to_usize(self.index)
    }

    /// The frame's `numAnimatedComponents` values.
    pub fn components(&self) -> Components<'a> {
        let mut p = self.p.clone();
        p.set_pos(self.at);
        Components::new(p, self.len, 0)
    }
}

element_iter!(
    'a,
    Components,
    f32,
    "Iterator over a frame's components.",
    |p, _i, _c| p.parse_float()
);

#[cfg(feature = "alloc")]
pub use owned::*;

#[cfg(feature = "alloc")]
mod owned;
