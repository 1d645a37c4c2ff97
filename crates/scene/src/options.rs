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
    /// The most bytes the animated output (morph targets and keys) may take, checked by
    /// the morph adapters (MDL, MD2, MD3) before they allocate; `None`:
    /// [`DEFAULT_MAX_BYTES`]. Over it, the adapter refuses with [`over_budget`]'s line.
    pub max_bytes: Option<u64>,
    /// The scene is for a quantized glTF (`idmodel_gltf::ExportOptions::quantize`): the
    /// MD3 adapter then gives each normal at the centre of its latitude/longitude cell
    /// (not on the cell's corner, where the engine's decoding puts it: a fraction of a
    /// degree apart) and records the normals the byte form does not bring back, so the
    /// way back from the quantized file is still byte for byte.
    pub quantized: bool,
}

/// The default of [`Options::max_bytes`]: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

impl Options {
    /// The output budget in bytes: [`Options::max_bytes`] or [`DEFAULT_MAX_BYTES`].
    pub fn budget(&self) -> u64 {
        self.max_bytes.unwrap_or(DEFAULT_MAX_BYTES)
    }

    /// `Ok` when `need` bytes fit the budget, else the [`over_budget`] error.
    pub fn check_budget(&self, need: u64) -> Result<(), Error> {
        if need > self.budget() {
            return Err(over_budget(need, self.budget()));
        }
        Ok(())
    }
}

/// A byte count for people: whole GiB or MiB (limits such as `1 GiB`, `512 MiB`) print
/// in those binary units, anything else in decimal units with one decimal place
/// (`3.2 GB`, `65.5 KB`), below 1000 as `N bytes`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 2] = [(1 << 30, "GiB"), (1 << 20, "MiB")];
    for (size, unit) in UNITS {
        if n >= size && n.checked_rem(size) == Some(0) {
            return alloc::format!("{} {unit}", n.checked_div(size).unwrap_or(0));
        }
    }
    const DECIMAL: [(u64, &str); 3] = [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")];
    for (size, unit) in DECIMAL {
        if n >= size {
            let tenths = n
                .checked_div(size.checked_div(10).unwrap_or(1))
                .unwrap_or(0);
            return alloc::format!(
                "{}.{} {unit}",
                tenths.checked_div(10).unwrap_or(0),
                tenths.checked_rem(10).unwrap_or(0)
            );
        }
    }
    alloc::format!("{n} bytes")
}

/// The refusal of an animated scene over the budget: `the animated output would need
/// 3.2 GB, over the 1 GiB limit (--max-output raises it; --frame N exports one frame)`.
pub fn over_budget(need: u64, limit: u64) -> Error {
    Error::new(alloc::format!(
        "the animated output would need {}, over the {} limit (--max-output raises it; --frame N exports one frame)",
        human_bytes(need),
        human_bytes(limit)
    ))
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
    fn the_budget_message_names_need_and_limit() {
        let o = Options::default();
        assert_eq!(o.budget(), 1 << 30);
        assert!(o.check_budget(1 << 30).is_ok());
        let e = o.check_budget(3_200_000_000).unwrap_err();
        assert_eq!(
            e.message(),
            "the animated output would need 3.2 GB, over the 1 GiB limit (--max-output raises it; --frame N exports one frame)"
        );
        let small = Options {
            max_bytes: Some(1000),
            ..Options::default()
        };
        assert!(small.check_budget(1001).is_err());
        assert_eq!(human_bytes(999), "999 bytes");
        assert_eq!(human_bytes(16 << 20), "16 MiB");
    }

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
