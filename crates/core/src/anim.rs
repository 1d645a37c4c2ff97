//! Frame-name clips: the animations that MDL and MD2 files hold only as frame names.
//!
//! Neither format stores its animations; id's tools and the games name the frames
//! `run1` … `run6` or `stand01` … `stand40`, and a run of consecutive frames whose names
//! share a stem is one animation. [`Clip`] is that run, the same shape in every format
//! crate; [`Clips`] groups any sequence of names by a format's stem rule (MDL:
//! `idmodel_mdl::split_frame_name`, MD2: `idmodel_md2::frame_name_stem`).
//!
//! ```
//! use idmodel_core::anim::{Clip, Clips};
//! use idmodel_core::bytes::Name;
//! fn digits_off(name: &[u8]) -> &[u8] {
//!     let end = name.iter().rposition(|b| !b.is_ascii_digit()).map_or(0, |i| i + 1);
//!     &name[..end]
//! }
//! let names = [&b"run1"[..], b"run2", b"pain1", b"run3"].map(Name::from_field);
//! let clips: Vec<Clip<'_>> = Clips::new(names.into_iter(), digits_off).collect();
//! assert_eq!(clips.len(), 3);
//! assert_eq!((clips[0].name.to_str(), clips[0].frames.clone()), (Some("run"), 0..2));
//! assert_eq!((clips[2].name.to_str(), clips[2].frames.clone()), (Some("run"), 3..4));
//! ```

use core::iter::{Fuse, FusedIterator};
use core::ops::Range;

use crate::bytes::Name;

/// A run of consecutive frames whose names share a stem (`run1` … `run6` → `run`).
///
/// For MDL the frames are frame entries (a frame group counts once); for MD2 they are
/// the frames.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Clip<'a> {
    /// The shared stem (`run`), borrowed from the first frame's name.
    pub name: Name<'a>,
    /// The frame numbers, `first..first + count` (never empty).
    pub frames: Range<usize>,
}

/// Groups a sequence of frame names into [`Clip`]s: consecutive names with equal stems
/// form one clip. A stem rule is a function from a name to its stem (a prefix of it).
#[derive(Debug, Clone)]
pub struct Clips<'a, I> {
    names: Fuse<I>,
    stem: fn(&[u8]) -> &[u8],
    index: usize,
    pending: Option<Clip<'a>>,
}

impl<'a, I: Iterator<Item = Name<'a>>> Clips<'a, I> {
    /// Clips of `names` (frame 0 first) under the stem rule `stem`.
    pub fn new(names: I, stem: fn(&[u8]) -> &[u8]) -> Self {
        Clips {
            names: names.fuse(),
            stem,
            index: 0,
            pending: None,
        }
    }
}

impl<'a, I: Iterator<Item = Name<'a>>> Iterator for Clips<'a, I> {
    type Item = Clip<'a>;

    fn next(&mut self) -> Option<Clip<'a>> {
        loop {
            let Some(name) = self.names.next() else {
                return self.pending.take();
            };
            let i = self.index;
            self.index = self.index.saturating_add(1);
            let stem = Name::from_field((self.stem)(name.as_bytes()));
            match &mut self.pending {
                Some(clip) if clip.name == stem => clip.frames.end = self.index,
                _ => {
                    let done = self.pending.replace(Clip {
                        name: stem,
                        frames: i..self.index,
                    });
                    if done.is_some() {
                        return done;
                    }
                }
            }
        }
    }
}

impl<'a, I: Iterator<Item = Name<'a>>> FusedIterator for Clips<'a, I> {}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // test code: a panic is a failed assertion
mod tests {
    use super::*;

    /// One clip as plain data.
    type Row<'a> = (&'a [u8], Range<usize>);

    fn whole(name: &[u8]) -> &[u8] {
        name
    }

    fn first_byte(name: &[u8]) -> &[u8] {
        name.get(..1).unwrap_or(name)
    }

    /// The first four clips of `names` (core has no `Vec`) and how many there are.
    fn clips<'a>(names: &[&'a [u8]], stem: fn(&[u8]) -> &[u8]) -> ([Row<'a>; 4], usize) {
        let mut out: [Row<'a>; 4] = Default::default();
        let mut n = 0;
        for c in Clips::new(names.iter().map(|b| Name::from_field(b)), stem) {
            if let Some(slot) = out.get_mut(n) {
                *slot = (c.name.as_bytes(), c.frames);
            }
            n += 1;
        }
        (out, n)
    }

    #[test]
    fn consecutive_equal_stems_form_one_clip() {
        let (c, n) = clips(&[b"ab", b"ac", b"b", b"a"], first_byte);
        assert_eq!(n, 3);
        assert_eq!(c[0], (&b"a"[..], 0..2));
        assert_eq!(c[1], (&b"b"[..], 2..3));
        assert_eq!(c[2], (&b"a"[..], 3..4));
    }

    #[test]
    fn no_names_no_clips_and_fused() {
        let mut it = Clips::new(core::iter::empty(), whole);
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
        let mut one = Clips::new([Name::from_field(b"x\0junk")].into_iter(), whole);
        assert_eq!(
            one.next(),
            Some(Clip {
                name: Name::from_field(b"x"),
                frames: 0..1
            })
        );
        assert_eq!(one.next(), None);
        assert_eq!(one.next(), None);
    }
}
