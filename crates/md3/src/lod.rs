//! LOD file names (`_1`, `_2`) under the ioq3 and Quake III 1.32 rules (docs/formats.md §3.2).
//! No file I/O: names come back for the caller to resolve; once it has parsed them,
//! [`check_lod_frames`](crate::check_lod_frames) compares their frame counts with LOD 0's.

use core::fmt;

/// How an engine derives LOD file names from a model path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LodRule {
    /// ioq3 `R_RegisterMD3`: split at the **first** `.`; keep the original extension
    /// (`md3` when there is none): `models/a.b/c.md3` → `models/a_1.b/c.md3`.
    Ioq3,
    /// Quake III 1.32 `RE_RegisterModel`: cut at the **last** `.` and append `_N.md3`.
    Quake3,
}

impl LodRule {
    /// The rule `engine` follows (`None` for an engine that does not load MD3).
    ///
    /// ```
    /// use idmodel_md3::{Engine, LodRule};
    /// assert_eq!(LodRule::of(Engine::Quake3), Some(LodRule::Quake3));
    /// assert_eq!(LodRule::of(Engine::Doom3), None);
    /// ```
    pub const fn of(engine: idmodel_core::Engine) -> Option<Self> {
        match engine {
            idmodel_core::Engine::Ioq3 => Some(Self::Ioq3),
            idmodel_core::Engine::Quake3 => Some(Self::Quake3),
            _ => None,
        }
    }
}

/// A LOD file name, borrowed from the model path (format it with `Display`, compare it
/// with `==` against a `&str`, or copy it with [`LodName::write_to`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LodName<'a> {
    base: &'a str,
    lod: u8,
    ext: &'a str,
}

/// The file name of LOD `lod` (0, 1 or 2) of `path` under `rule`. LOD 0 is the path as
/// given under Quake III, and `base.ext` under ioq3 (the same, except that ioq3 adds
/// `.md3` to a path without a dot).
///
/// ```
/// use idmodel_md3::{LodRule, lod_name};
/// let p = "models/players/sarge/upper.md3";
/// assert_eq!(lod_name(p, 1, LodRule::Ioq3), "models/players/sarge/upper_1.md3");
/// assert_eq!(lod_name(p, 2, LodRule::Quake3), "models/players/sarge/upper_2.md3");
/// // The rules differ when a folder has a dot in its name:
/// let p = "models/v1.2/gun.md3";
/// assert_eq!(lod_name(p, 1, LodRule::Ioq3), "models/v1_1.2/gun.md3");
/// assert_eq!(lod_name(p, 1, LodRule::Quake3), "models/v1.2/gun_1.md3");
/// ```
pub fn lod_name(path: &str, lod: u8, rule: LodRule) -> LodName<'_> {
    match rule {
        LodRule::Ioq3 => {
            let (base, ext) = path.split_once('.').unwrap_or((path, "md3"));
            LodName { base, lod, ext }
        }
        LodRule::Quake3 => {
            if lod == 0 {
                return LodName {
                    base: path,
                    lod,
                    ext: "",
                };
            }
            let base = path.rsplit_once('.').map_or(path, |(b, _)| b);
            LodName {
                base,
                lod,
                ext: "md3",
            }
        }
    }
}

impl LodName<'_> {
    /// Which LOD this names.
    pub fn lod(&self) -> u8 {
        self.lod
    }

    fn parts(&self) -> [&str; 4] {
        let suffix = match self.lod {
            0 => "",
            1 => "_1",
            2 => "_2",
            _ => "_?",
        };
        let dot = if self.ext.is_empty() { "" } else { "." };
        [self.base, suffix, dot, self.ext]
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.parts()
            .iter()
            .fold(0usize, |n, p| n.saturating_add(p.len()))
    }

    /// True for an empty name.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies the name into `buf`; returns its length, or `None` when `buf` is too small.
    pub fn write_to(&self, buf: &mut [u8]) -> Option<usize> {
        let mut at = 0usize;
        for p in self.parts() {
            let end = at.checked_add(p.len())?;
            buf.get_mut(at..end)?.copy_from_slice(p.as_bytes());
            at = end;
        }
        Some(at)
    }
}

impl fmt::Display for LodName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.parts().iter().try_for_each(|p| f.write_str(p))
    }
}

impl PartialEq<str> for LodName<'_> {
    fn eq(&self, other: &str) -> bool {
        let mut rest = other;
        for p in self.parts() {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        }
        rest.is_empty()
    }
}

impl PartialEq<&str> for LodName<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

/// Which LOD files exist, as the caller found them, and what the engine makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LodSet {
    /// `_1` exists and loads.
    pub lod1: bool,
    /// `_2` exists and loads.
    pub lod2: bool,
}

impl LodSet {
    /// True when `_2` exists without `_1`: both engines then leave LOD slot 1 empty while
    /// counting two LODs, and the renderer can crash when it picks LOD 1.
    ///
    /// ```
    /// use idmodel_md3::LodSet;
    /// assert!(LodSet { lod1: false, lod2: true }.has_gap());
    /// assert!(!LodSet { lod1: true, lod2: false }.has_gap());
    /// ```
    pub fn has_gap(&self) -> bool {
        self.lod2 && !self.lod1
    }

    /// `numLods` as the engine counts it (LOD 0 is assumed to load).
    pub fn engine_lod_count(&self) -> usize {
        match (self.lod1, self.lod2) {
            (_, true) => 3usize.saturating_sub(usize::from(!self.lod1)),
            (true, false) => 2,
            (false, false) => 1,
        }
    }
}
