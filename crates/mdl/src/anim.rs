//! Animation timing (which pose of a frame group, which image of a skin group is shown
//! at a given time) and frame-name clips ([`Mdl::animations`]).

use core::iter::FusedIterator;

use idmodel_core::anim::Clips;
use idmodel_core::bytes::Name;

use crate::{Frame, Frames, Mdl, Skin};

/// Which renderer's timing rule to follow (§1.3.7, §1.3.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AnimRule {
    /// WinQuake's software renderer: intervals are cumulative end times, the cycle is the
    /// last interval, and the entity's sync offset (`syncbase`) is added to the time.
    Software,
    /// GLQuake and QuakeSpasm: frame groups use only the first interval for every pose
    /// and ignore `syncbase`; skin groups ignore the intervals and cycle through 4 texture
    /// slots at a fixed 10 Hz.
    #[default]
    Gl,
}

#[allow(clippy::as_conversions)] // float→int `as` saturates (NaN → 0), a defined stand-in for C's (int) cast
fn trunc_i64(x: f64) -> i64 {
    x as i64
}

#[allow(clippy::as_conversions)] // f64→f32 rounds to nearest, as C's assignment to a float does
fn to_f32(x: f64) -> f32 {
    x as f32
}

/// The software renderer's choice among `n` cumulative intervals at `time + sync`:
/// the first `i < n − 1` with `intervals[i] > target`, else the last.
/// `None` when the cycle length (the last interval) is not positive and finite, where
/// the engine would divide by zero (it refuses such files at load time).
fn software_pick(
    intervals: impl ExactSizeIterator<Item = f32> + Clone,
    time: f64,
    sync: f32,
) -> Option<usize> {
    let n = intervals.len();
    let full = intervals.clone().last()?;
    if !(full > 0.0 && full.is_finite()) {
        return None;
    }
    // `time = cl.time + currententity->syncbase;` into a float, as r_alias.c does.
    let t = to_f32(time + f64::from(sync));
    let cycles = trunc_i64(f64::from(t / full));
    #[allow(clippy::as_conversions)] // i64→f32 as C's implicit int→float conversion
    let target = t - (cycles as f32) * full;
    let last = n.checked_sub(1)?;
    Some(
        intervals
            .take(last)
            .position(|i| i > target)
            .unwrap_or(last),
    )
}

/// The entry of an `n`-entry group shown at `time`: 0 for a single entry, else by the
/// rule (the software pick over `intervals`, or the GL one `gl` computes).
fn pick(
    group: bool,
    n: usize,
    rule: AnimRule,
    intervals: impl ExactSizeIterator<Item = f32> + Clone,
    time: f64,
    sync: f32,
    gl: impl FnOnce() -> Option<usize>,
) -> Option<usize> {
    if !group || n <= 1 {
        return Some(0);
    }
    match rule {
        AnimRule::Software => software_pick(intervals, time, sync),
        AnimRule::Gl => gl(),
    }
}

impl Frame<'_> {
    /// The pose of this entry (an index into [`Frame::poses`]) shown at `time` seconds.
    ///
    /// `sync` is the entity's `syncbase` (0 for `ST_SYNC` models, random in [0, 1] for
    /// `ST_RAND`); only [`AnimRule::Software`] uses it. A single frame always gives 0.
    /// `None` where the engine would divide by zero or pick a pose out of range (an
    /// interval that is zero, negative or not finite, or a negative time under the GL rule).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_mdl::{AnimRule, Mdl, Model};
    /// let bytes = Model::example_groups().write().unwrap();
    /// let mdl = Mdl::parse(&bytes).unwrap();
    /// let group = mdl.frame(1).unwrap(); // intervals 0.1, 0.2, 0.3
    /// assert_eq!(group.pose_at(0.15, 0.0, AnimRule::Software), Some(1));
    /// assert_eq!(group.pose_at(0.15, 0.0, AnimRule::Gl), Some(1));
    /// assert_eq!(group.pose_at(0.25, 0.0, AnimRule::Gl), Some(2));
    /// # }
    /// ```
    pub fn pose_at(&self, time: f64, sync: f32, rule: AnimRule) -> Option<usize> {
        let n = self.pose_count();
        let gl = || {
            // pose += (int)(cl.time / interval) % numposes;
            let interval = self.intervals().next()?;
            if !(interval > 0.0 && interval.is_finite()) {
                return None;
            }
            let steps = trunc_i64(time / f64::from(interval));
            let n = i64::try_from(n).ok()?;
            usize::try_from(steps.checked_rem(n)?).ok()
        };
        pick(self.is_group(), n, rule, self.intervals(), time, sync, gl)
    }
}

impl Skin<'_> {
    /// The image of this skin (an index into [`Skin::images`]) shown at `time` seconds.
    ///
    /// Software: cumulative intervals plus `sync`, as for frame groups. GL/QuakeSpasm:
    /// `slot = (int)(time · 10) & 3`, and the image that `Mod_LoadAllSkins` left in that
    /// slot: image `j` goes to slot `j & 3` (later images overwrite earlier ones), and
    /// empty slots repeat the first ones (slot `j` = slot `j − n`). `None` where the
    /// software renderer would divide by zero.
    pub fn image_at(&self, time: f64, sync: f32, rule: AnimRule) -> Option<usize> {
        let n = self.image_count();
        let gl = || {
            let slot = usize::try_from(trunc_i64(time * 10.0) & 3).ok()?;
            Some(gl_skin_slot_image(n, slot))
        };
        pick(self.is_group(), n, rule, self.intervals(), time, sync, gl)
    }
}

/// Which image of an `n`-image skin group GLQuake/QuakeSpasm keep in texture slot
/// `slot` (0..4).
pub fn gl_skin_slot_image(n: usize, slot: usize) -> usize {
    let slot = slot & 3;
    if n == 0 {
        return 0;
    }
    if n >= 4 {
        // The last j < n with j & 3 == slot.
        let last = n.saturating_sub(1);
        let back = last.saturating_sub(slot) & !3;
        slot.saturating_add(back)
    } else {
        slot.checked_rem(n).unwrap_or(0)
    }
}

/// Splits a frame name into its base and trailing number: `run12` → (`run`, `Some(12)`),
/// `base` → (`base`, `None`). The number saturates at `u32::MAX`.
///
/// ```
/// use idmodel_mdl::split_frame_name;
/// assert_eq!(split_frame_name(b"run12"), (&b"run"[..], Some(12)));
/// assert_eq!(split_frame_name(b"stand"), (&b"stand"[..], None));
/// ```
pub fn split_frame_name(name: &[u8]) -> (&[u8], Option<u32>) {
    let digits = name.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let split = name.len().saturating_sub(digits);
    let (base, num) = name.split_at(split);
    if num.is_empty() {
        return (base, None);
    }
    let value = num.iter().fold(0u32, |acc, &d| {
        acc.saturating_mul(10)
            .saturating_add(u32::from(d.wrapping_sub(b'0')))
    });
    (base, Some(value))
}

/// A run of consecutive frame entries whose names share a base (`run1` … `run6` →
/// `run`): `name` and `frames`, the entry numbers (a frame group counts once). The one
/// clip shape of every format crate, [`idmodel_core::anim::Clip`].
pub use idmodel_core::anim::Clip as Animation;

/// The stem rule of MDL frame names: [`split_frame_name`]'s base.
fn frame_name_base(name: &[u8]) -> &[u8] {
    split_frame_name(name).0
}

/// Iterator over the [`Animation`]s of a model, from [`Mdl::animations`].
#[derive(Debug, Clone)]
pub struct Animations<'a> {
    clips: Clips<'a, FrameNames<'a>>,
}

/// The names of a model's frame entries, in order.
type FrameNames<'a> = core::iter::Map<Frames<'a>, fn(Frame<'a>) -> Name<'a>>;

fn frame_name(frame: Frame<'_>) -> Name<'_> {
    frame.name()
}

impl<'a> Iterator for Animations<'a> {
    type Item = Animation<'a>;

    fn next(&mut self) -> Option<Animation<'a>> {
        self.clips.next()
    }
}

impl FusedIterator for Animations<'_> {}

impl<'a> Mdl<'a> {
    /// Frame entries grouped into animations by name (`run1` … `run6` → `run`, 6 frames).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_mdl::{Mdl, Model};
    /// let bytes = Model::example_groups().write().unwrap();
    /// let mdl = Mdl::parse(&bytes).unwrap();
    /// let anims: Vec<_> = mdl.animations().collect();
    /// assert_eq!(anims[0].name, "stand");
    /// assert_eq!(anims[0].frames, 0..2); // stand1, then a group starting with stand2
    /// # }
    /// ```
    pub fn animations(&self) -> Animations<'a> {
        let name: fn(Frame<'a>) -> Name<'a> = frame_name;
        Animations {
            clips: Clips::new(self.frames().map(name), frame_name_base),
        }
    }
}
