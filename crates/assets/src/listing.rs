//! What the `.pak` and `.pk3` readers share: the accepted entries of an archive's
//! directory, the name index built with the profile's comparison (which duplicate wins is
//! the reader's engine rule), the refused entries, and the look-ups over them.

use std::collections::HashMap;

use crate::path::{in_dir_with_ext, key};
use crate::profile::{Profile, ReadSeek};

/// An entry of a directory: its name, and whether it is a file (zip folders are not).
pub(crate) trait Named {
    /// The name as stored.
    fn name(&self) -> &str;
    /// Whether reading it gives bytes (`false` for a zip folder entry).
    fn is_file(&self) -> bool;
}

/// Which of two entries of one name the index keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wins {
    /// The first in directory order (`.pak`: `COM_FindFile`).
    First,
    /// The last in directory order (`.pk3`: `FS_LoadZipFile`).
    Last,
}

/// An archive's directory, validated.
pub(crate) struct Listing<E> {
    /// The name used in messages.
    pub(crate) label: String,
    profile: Profile,
    wins: Wins,
    /// The accepted entries, in directory order.
    pub(crate) entries: Vec<E>,
    /// key → index into `entries`, or the refusal of the entry of that name.
    index: HashMap<String, Result<usize, String>>,
    /// One line per refused entry, in directory order.
    pub(crate) problems: Vec<String>,
}

impl<E: Named> Listing<E> {
    /// An empty directory of the archive named `label`.
    pub(crate) fn new(label: &str, profile: Profile, wins: Wins) -> Listing<E> {
        Listing {
            label: label.to_owned(),
            profile,
            wins,
            entries: Vec::new(),
            index: HashMap::new(),
            problems: Vec::new(),
        }
    }

    /// Adds the next directory entry, named `name`: accepted, or its one-line refusal.
    pub(crate) fn add(&mut self, name: &str, entry: Result<E, String>) {
        let k = key(self.profile, name);
        let value = match entry {
            Ok(entry) => {
                let idx = self.entries.len();
                self.entries.push(entry);
                Ok(idx)
            }
            Err(msg) => {
                self.problems.push(msg.clone());
                Err(msg)
            }
        };
        match self.wins {
            Wins::First => {
                self.index.entry(k).or_insert(value);
            }
            Wins::Last => {
                self.index.insert(k, value);
            }
        }
    }

    /// The file entry `name` names (compared as the profile's engine does), `Ok(None)` if
    /// there is none.
    ///
    /// # Errors
    /// The refusal of the entry of that name.
    pub(crate) fn find(&self, name: &str) -> Result<Option<&E>, String> {
        let Some(found) = self.index.get(&key(self.profile, name)) else {
            return Ok(None);
        };
        let idx = found.as_ref().map_err(Clone::clone)?;
        Ok(self.entries.get(*idx).filter(|e| e.is_file()))
    }

    /// The names of the file entries directly in `dir` ending with `ext`, each once (the
    /// first in directory order), in directory order.
    /// The name the entry `name` finds is stored under (`None` when none is, or it is
    /// refused).
    pub(crate) fn stored_name(&self, name: &str) -> Option<String> {
        self.find(name).ok().flatten().map(|e| e.name().to_owned())
    }

    pub(crate) fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let kd = key(self.profile, dir);
        let ext = ext.to_ascii_lowercase();
        let mut seen = std::collections::HashSet::new();
        self.entries
            .iter()
            .filter(|e| {
                let k = key(self.profile, e.name());
                e.is_file() && in_dir_with_ext(&k, &kd, &ext) && seen.insert(k)
            })
            .map(|e| e.name().to_owned())
            .collect()
    }

    /// The `Debug` form of the archive type `kind` holding this directory.
    pub(crate) fn debug(&self, kind: &str, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct(kind)
            .field("label", &self.label)
            .field("entries", &self.entries.len())
            .finish_non_exhaustive()
    }
}

/// A reader over bytes in memory (the archives' `from_bytes`).
pub(crate) fn in_memory(bytes: Vec<u8>) -> Box<dyn ReadSeek> {
    Box::new(std::io::Cursor::new(bytes))
}
