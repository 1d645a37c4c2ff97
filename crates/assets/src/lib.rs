//! # idmodel-assets
//!
//! Game data as id's engines find it (docs/game-data.md): game roots on disk and
//! the archives beside them (`.pak`, `.pk3`, `.pk4`) as one virtual file system in each
//! engine's search order, the images the engines read, and the resolution of a model's
//! texture and material names to pixels.
//!
//! This is a `std` crate (it reads files, inflates zip entries and decodes images); the
//! model crates and `idmodel-scene` stay `no_std` and do no I/O.
//!
//! Everything reads through the [`Files`] trait, so the texture code works the same over a
//! folder, an archive, a stack of both, or memory ([`MemFiles`]).
//!
//! ## Archives and game file systems
//!
//! - [`pak::Pak`]: Quake / Quake II `.pak` (§1.1); [`pk3::Pk3`]: Quake III `.pk3` and
//!   Doom 3 `.pk4` (zip, §1.2–1.3). Both are **safe readers** (§1.5): every header field is
//!   checked against the real file before it is used, names that escape the game root are
//!   refused ([`path::unsafe_reason`]), no entry is read past [`Limits::max_entry_size`]
//!   (256 MiB by default) or past the size its directory declares, and nothing is ever
//!   written to disk. Errors are one line naming the archive and the entry or offset.
//!   Refusals of the whole archive come back from `new`; a refused entry is left out of the
//!   index, listed by `problems()`, and reading its name gives its one-line refusal.
//! - [`Archive`] opens either kind by its first bytes; [`Loose`] is a folder.
//! - [`GameFs`] stacks them in each engine's search order (§1.4) under a [`Profile`]
//!   (`Profile::from_engine` maps the findings vocabulary's engines). Quake III's
//!   loose-file priority is the one difference between [`Profile::Quake3`] (vanilla: pk3s
//!   override loose files) and [`Profile::Ioq3`] (ioquake3: loose files override pk3s,
//!   the default, because ioquake3-based engines are what Quake III data runs on today).
//! - [`GameFs::for_model`] finds a model's game root (the folder above `models/`, `progs/`
//!   or `players/`, [`root::split_root`]) and returns the file system with the `--game`
//!   values below it, and the model's game path; `ARCHIVE:entry` paths are models inside
//!   an archive ([`GameFs::for_archive`]).
//!
//! ```
//! use idmodel_assets::{pak, Archive, Files, GameFs, Limits, Profile};
//! let bytes = pak::write(&[("progs/player.mdl", b"IDPO..."), ("gfx/palette.lmp", &[0; 768])]).unwrap();
//! let archive = Archive::from_bytes("pak0.pak", bytes, Profile::Quake, Limits::default()).unwrap();
//! assert_eq!(archive.names(), ["progs/player.mdl", "gfx/palette.lmp"]);
//! let mut fs = GameFs::new(Profile::Quake);
//! fs.push_archive(archive);
//! assert_eq!(fs.read("gfx/palette.lmp").unwrap().map(|p| p.len()), Some(768));
//! assert!(fs.read("../etc/passwd").is_err());
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]
// A std crate: the std paths are the natural ones here.
#![allow(clippy::std_instead_of_core, clippy::std_instead_of_alloc)]

use std::collections::BTreeMap;

pub mod images;
mod listing;
pub mod pak;
pub mod path;
pub mod pk3;
pub mod profile;
pub mod root;
pub mod textures;
pub mod vfs;

pub use profile::{DEFAULT_MAX_ENTRY_SIZE, Limits, Profile, ReadSeek};
pub use vfs::{Archive, GameFs, Loose, Source};

/// A source of game files, addressed by **game path**: `/`-separated, relative to the game
/// root (`models/players/kyonshi/upper.md3`), compared as the engine compares names.
pub trait Files {
    /// The bytes of the file at `path`, `Ok(None)` when no source holds it, or an error
    /// (a refused archive entry, an I/O failure) in one line naming the file.
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String>;

    /// The game paths of the files in folder `dir` (no trailing `/`; not recursive) whose
    /// names end with `ext` (for example `.shader`; ASCII case-insensitive), each once, in
    /// the order the engine would list them.
    fn list(&self, dir: &str, ext: &str) -> Vec<String>;

    /// Whether a file exists at `path` (by default: whether [`Files::read`] finds it).
    fn exists(&self, path: &str) -> bool {
        matches!(self.read(path), Ok(Some(_)))
    }

    /// The name the file at `path` is stored under, where a source that compares names
    /// without case keeps its own (an archive: `Bluesuit.tga` found for `bluesuit.tga`);
    /// `None` where it is not known (by default, and for folders, whose names are the
    /// operating system's).
    fn stored_name(&self, path: &str) -> Option<String> {
        let _ = path;
        None
    }
}

/// Files held in memory, keyed by game path, compared ASCII case-insensitively: for tests,
/// fuzzing and callers that have their data in memory already.
///
/// ```
/// use idmodel_assets::{Files, MemFiles};
/// let mut files = MemFiles::default();
/// files.insert("scripts/a.shader", b"textures/x { }".to_vec());
/// assert_eq!(files.read("Scripts/A.shader").unwrap().as_deref(), Some(&b"textures/x { }"[..]));
/// assert_eq!(files.list("scripts", ".SHADER"), vec!["scripts/a.shader".to_string()]);
/// assert!(!files.exists("scripts/b.shader"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemFiles {
    files: BTreeMap<String, (String, Vec<u8>)>,
    /// Whether a path that is not there is looked for by its file name.
    by_name: bool,
}

impl MemFiles {
    /// Adds (or replaces) the file at `path`.
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        self.files
            .insert(path.to_ascii_lowercase(), (path.to_owned(), bytes));
    }

    /// Files dropped without their folders (on a web page, handed over by a binding): an
    /// image path (`.tga`, `.jpg`, `.jpeg`, `.png`, `.pcx`, `.wal`, `.bmp`, `.dds`) that
    /// is not there is found by its file name alone (ASCII case ignored; the first such
    /// file in case-folded path order), as a person expects
    /// `models/players/sarge/band.tga` to find a dropped `band.tga`. Models and side files
    /// are only found at their paths.
    ///
    /// ```
    /// use idmodel_assets::{Files, MemFiles};
    /// let mut files = MemFiles::default();
    /// files.insert("band.TGA", vec![7]);
    /// assert_eq!(files.read("models/players/sarge/band.tga").unwrap(), None);
    /// let files = files.by_file_name();
    /// assert_eq!(files.read("models/players/sarge/band.tga").unwrap(), Some(vec![7]));
    /// ```
    pub fn by_file_name(mut self) -> Self {
        self.by_name = true;
        self
    }

    /// The same files seen from the game root `dir` (a folder of theirs): those below it
    /// lose the `dir/` in front of their paths, the others keep theirs.
    ///
    /// ```
    /// use idmodel_assets::{Files, MemFiles};
    /// let mut files = MemFiles::default();
    /// files.insert("baseq3/scripts/a.shader", vec![1]);
    /// files.insert("notes.txt", vec![2]);
    /// let rooted = files.rooted_at("baseq3");
    /// assert_eq!(rooted.read("scripts/a.shader").unwrap(), Some(vec![1]));
    /// assert_eq!(rooted.read("notes.txt").unwrap(), Some(vec![2]));
    /// ```
    pub fn rooted_at(&self, dir: &str) -> MemFiles {
        let prefix = format!("{}/", dir.trim_end_matches('/').to_ascii_lowercase());
        let mut out = MemFiles {
            files: BTreeMap::new(),
            by_name: self.by_name,
        };
        for (key, (name, bytes)) in &self.files {
            match (key.strip_prefix(&prefix), name.get(prefix.len()..)) {
                (Some(k), Some(n)) if !k.is_empty() => {
                    out.files
                        .insert(k.to_owned(), (n.to_owned(), bytes.clone()));
                }
                _ => {
                    out.files.insert(key.clone(), (name.clone(), bytes.clone()));
                }
            }
        }
        out
    }

    /// The paths of the files, as inserted, in case-folded order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.files.values().map(|(name, _)| name.as_str())
    }
}

impl Files for MemFiles {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let key = path.to_ascii_lowercase();
        if let Some((_, b)) = self.files.get(&key) {
            return Ok(Some(b.clone()));
        }
        let name = key.rsplit('/').next().unwrap_or(&key);
        let image = name.rsplit_once('.').is_some_and(|(_, e)| {
            ["tga", "jpg", "jpeg", "png", "pcx", "wal", "bmp", "dds"].contains(&e)
        });
        if !self.by_name || !image {
            return Ok(None);
        }
        Ok(self
            .files
            .iter()
            .find(|(k, _)| k.rsplit('/').next() == Some(name))
            .map(|(_, (_, b))| b.clone()))
    }

    fn stored_name(&self, path: &str) -> Option<String> {
        let (name, _) = self.files.get(&path.to_ascii_lowercase())?;
        Some(name.clone())
    }

    fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let prefix = format!("{}/", dir.to_ascii_lowercase());
        let ext = ext.to_ascii_lowercase();
        self.files
            .iter()
            .filter(|(k, _)| {
                k.strip_prefix(&prefix)
                    .is_some_and(|rest| !rest.contains('/') && rest.ends_with(&ext))
            })
            .map(|(_, (name, _))| name.clone())
            .collect()
    }
}
