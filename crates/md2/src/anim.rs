//! Frame-name clips: the animations an MD2 holds only as frame names ([`Md2::animations`]).

use core::iter::FusedIterator;

use idmodel_core::anim::Clips;
use idmodel_core::bytes::Name;

use crate::view::{Frame, Frames, Md2};

/// A run of frames sharing a name stem (`stand01` … `stand40` → `stand`): `name` and
/// `frames`, the frame numbers. The one clip shape of every format crate,
/// [`idmodel_core::anim::Clip`].
pub use idmodel_core::anim::Clip as Animation;

impl<'a> Md2<'a> {
    /// Animation ranges from the frame names, as Quake II's tools, the games and three.js
    /// group them: a run of consecutive frames whose names are equal after removing the
    /// trailing digits (and then one trailing `_`) is one animation: `stand01`…`stand40`
    /// → `stand`, `stand_1` → `stand`. A name without trailing digits is its own stem.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use idmodel_md2::{Md2, Model};
    /// let bytes = idmodel_md2::write(&Model::example())?;
    /// let anims: Vec<_> = Md2::parse(&bytes)?.animations().collect();
    /// assert_eq!(anims.len(), 1);
    /// assert_eq!(anims[0].name, "stand");
    /// assert_eq!(anims[0].frames, 0..2);
    /// # Ok(()) }
    /// ```
    pub fn animations(&self) -> Animations<'a> {
        let name: fn(Frame<'a>) -> Name<'a> = frame_name;
        Animations {
            clips: Clips::new(self.frames().map(name), frame_name_stem),
        }
    }
}

/// The stem of a frame name: trailing ASCII digits removed, then one trailing `_` unless
/// it is all that is left.
///
/// ```
/// use idmodel_md2::frame_name_stem;
/// assert_eq!(frame_name_stem(b"stand01"), b"stand");
/// assert_eq!(frame_name_stem(b"pain_12"), b"pain");
/// assert_eq!(frame_name_stem(b"_1"), b"_");
/// ```
pub fn frame_name_stem(name: &[u8]) -> &[u8] {
    let mut end = name.len();
    while end > 0
        && name
            .get(end.saturating_sub(1))
            .is_some_and(u8::is_ascii_digit)
    {
        end = end.saturating_sub(1);
    }
    if end < name.len() && end > 1 && name.get(end.saturating_sub(1)) == Some(&b'_') {
        end = end.saturating_sub(1);
    }
    name.get(..end).unwrap_or(name)
}

/// The names of a model's frames, in order.
type FrameNames<'a> = core::iter::Map<Frames<'a>, fn(Frame<'a>) -> Name<'a>>;

fn frame_name(frame: Frame<'_>) -> Name<'_> {
    frame.name()
}

/// Iterator over [`Md2::animations`].
#[derive(Debug, Clone)]
pub struct Animations<'a> {
    clips: Clips<'a, FrameNames<'a>>,
}

impl<'a> Iterator for Animations<'a> {
    type Item = Animation<'a>;

    fn next(&mut self) -> Option<Animation<'a>> {
        self.clips.next()
    }
}

impl FusedIterator for Animations<'_> {}
