//! The shared vocabulary of the readers: whose rules ([`Profile`]), the resource
//! [`Limits`], and what an archive is read from ([`ReadSeek`]).

use std::io::{Read, Seek};

use idmodel_core::findings::Engine;

/// Whose file system rules apply: search order, archive numbering, name comparison.
///
/// The default is [`Profile::Ioq3`]: ioquake3 is the engine Quake III data is played with
/// today (OpenArena and most standalone games are built on it), and its rule that loose files
/// override the pk3s of the same game folder is what someone editing an unpacked copy expects.
/// [`Profile::Quake3`] gives vanilla 1.32's rule (pk3s override loose files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// Quake (WinQuake, GLQuake, QuakeSpasm): `pak0.pak`, `pak1.pak`, … up to the first
    /// missing number, the highest first, then loose files; names compared exactly.
    Quake,
    /// Quake II: `pak0.pak` … `pak9.pak` with gaps, the highest first, then loose files;
    /// ASCII case-insensitive.
    Quake2,
    /// Quake III 1.32: the pk3s in reverse `FS_PathCmp` order, then loose files (pk3s win);
    /// case-insensitive, `\` = `:` = `/`.
    Quake3,
    /// ioquake3: loose files first, then the pk3s (and `*.pk3dir` folders) in reverse sorted
    /// order; the comparison of Quake III.
    #[default]
    Ioq3,
    /// Doom 3: loose files first, then the pk4s in reverse `Icmp` order (those holding
    /// `addon.conf` left out); the comparison of Quake III.
    Doom3,
}

impl Profile {
    /// The profile of an engine of the findings vocabulary.
    ///
    /// ```
    /// use idmodel_assets::Profile;
    /// use idmodel_core::findings::Engine;
    /// assert_eq!(Profile::from_engine(Engine::QuakeSpasm), Profile::Quake);
    /// assert_eq!(Profile::from_engine(Engine::Quake3), Profile::Quake3);
    /// ```
    pub fn from_engine(engine: Engine) -> Profile {
        match engine {
            Engine::WinQuake | Engine::GlQuake | Engine::QuakeSpasm => Profile::Quake,
            Engine::Quake2 => Profile::Quake2,
            Engine::Quake3 => Profile::Quake3,
            Engine::Ioq3 => Profile::Ioq3,
            Engine::Doom3 => Profile::Doom3,
            // An engine added to the vocabulary later: the default rules.
            _ => Profile::default(),
        }
    }

    /// The archive extension of this engine's game folders.
    pub fn archive_ext(self) -> &'static str {
        match self {
            Profile::Quake | Profile::Quake2 => "pak",
            Profile::Quake3 | Profile::Ioq3 => "pk3",
            Profile::Doom3 => "pk4",
        }
    }

    /// Whether a game path is compared case-insensitively.
    pub fn folds_case(self) -> bool {
        self != Profile::Quake
    }
}

impl From<Engine> for Profile {
    fn from(engine: Engine) -> Profile {
        Profile::from_engine(engine)
    }
}

/// Resource limits of the readers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest entry read, in inflated bytes (default 256 MiB): an entry declaring more
    /// is refused before anything is allocated, and no entry inflates past what it declares.
    pub max_entry_size: u64,
}

/// 256 MiB: larger than any texture or model id's games ship, small enough to allocate.
pub const DEFAULT_MAX_ENTRY_SIZE: u64 = 256 << 20;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_entry_size: DEFAULT_MAX_ENTRY_SIZE,
        }
    }
}

/// What the archive readers read from: a file or bytes in memory.
pub trait ReadSeek: Read + Seek + Send {}
impl<T: Read + Seek + Send> ReadSeek for T {}
