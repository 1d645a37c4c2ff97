//! What a caller chooses when a model becomes a scene, the same for every format.

use alloc::string::String;

use crate::Error;

/// The caller's choices for an adapter. Each adapter documents which fields it reads;
/// the default is "everything the file holds": every frame as animation, the default
/// skin, every clip.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// `Some(n)`: only frame `n`, as the base pose, with no morph targets and no
    /// animation. `None`: the whole animation (and frame 0 where one frame is asked for).
    pub frame: Option<usize>,
    /// A clip by name (frame-group name, `animation.cfg` entry, md5anim name): where the
    /// adapter supports it, only this clip, and its first frame where one frame is asked
    /// for.
    pub clip: Option<String>,
    /// A skin by name (Quake III's `default`/`red`/`blue`, an MD2 or MDL skin index in
    /// decimal): where the adapter supports it, the skin used for the materials.
    pub skin: Option<String>,
}

/// The error for a frame past the end: `frame 7 is out of range: the model has 3 frames
/// (0 to 2)`. `what` names the holder ("model", "md5anim"), `unit` the counted thing
/// ("frames", "poses"), and `note` (may be empty) is added inside the brackets.
pub fn frame_out_of_range(n: usize, count: usize, what: &str, unit: &str, note: &str) -> Error {
    Error::new(alloc::format!(
        "frame {n} is out of range: the {what} has {count} {unit} (0 to {}{note})",
        count.saturating_sub(1)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_range_message_names_the_last_frame() {
        let e = frame_out_of_range(7, 3, "model", "frames", "");
        assert_eq!(
            e.message(),
            "frame 7 is out of range: the model has 3 frames (0 to 2)"
        );
        let e = frame_out_of_range(0, 0, "md5anim", "frames", ", none at all");
        assert!(e.message().ends_with("(0 to 0, none at all)"), "{e}");
    }
}
