//! The virtual file system: a stack of loose folders and archives in each engine's search
//! order (docs/game-data.md §1.4), read through [`Files`].

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::Files;
use crate::pak::Pak;
use crate::path::{in_dir_with_ext, key, lookup_path};
use crate::pk3::Pk3;
use crate::profile::{Limits, Profile, ReadSeek};

/// An open archive of either kind.
#[derive(Debug)]
pub enum Archive {
    /// A `.pak`.
    Pak(Pak),
    /// A `.pk3` or `.pk4`.
    Zip(Pk3),
    /// Files held in memory under a label (a model and the files beside it, dropped on a
    /// web page or handed over by a binding), read like an archive's entries.
    Memory(String, crate::MemFiles),
}

impl Archive {
    /// Opens the archive at `path`, choosing the reader by its first bytes (`PACK` or a zip).
    ///
    /// # Errors
    /// One line naming the file (see [`Pak::new`], [`Pk3::new`]).
    pub fn open(path: &Path, profile: Profile, limits: Limits) -> Result<Archive, String> {
        let label = path.display().to_string();
        let mut file = std::fs::File::open(path).map_err(|e| format!("{label}: {e}"))?;
        let mut magic = [0u8; 4];
        let n = file.read(&mut magic).map_err(|e| format!("{label}: {e}"))?;
        let is_pak = n == 4 && &magic == b"PACK";
        let reader: Box<dyn ReadSeek> = Box::new(std::io::BufReader::new(file));
        if is_pak {
            Pak::new(&label, reader, profile, limits).map(Archive::Pak)
        } else {
            Pk3::new(&label, reader, profile, limits).map(Archive::Zip)
        }
    }

    /// Opens an archive held in memory, named `label` in messages.
    ///
    /// # Errors
    /// As [`Archive::open`].
    pub fn from_bytes(
        label: &str,
        bytes: Vec<u8>,
        profile: Profile,
        limits: Limits,
    ) -> Result<Archive, String> {
        if bytes.starts_with(b"PACK") {
            Pak::from_bytes(label, bytes, profile, limits).map(Archive::Pak)
        } else {
            Pk3::from_bytes(label, bytes, profile, limits).map(Archive::Zip)
        }
    }

    /// Files in memory (game paths and their bytes), named `label` in messages.
    ///
    /// ```
    /// use idmodel_assets::{Archive, MemFiles};
    /// let mut files = MemFiles::default();
    /// files.insert("models/x/Skin.pcx", vec![1, 2]);
    /// let a = Archive::memory("dropped", files);
    /// assert_eq!(a.names(), ["models/x/Skin.pcx"]);
    /// assert_eq!(a.read("MODELS/x/skin.pcx").unwrap(), Some(vec![1, 2]));
    /// ```
    pub fn memory(label: &str, files: crate::MemFiles) -> Archive {
        Archive::Memory(label.to_owned(), files)
    }

    /// The name used in messages.
    pub fn label(&self) -> &str {
        match self {
            Archive::Pak(p) => p.label(),
            Archive::Zip(z) => z.label(),
            Archive::Memory(label, _) => label,
        }
    }

    /// The file entries' names, in directory order.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Archive::Pak(p) => p.names().collect(),
            Archive::Zip(z) => z.names().collect(),
            Archive::Memory(_, m) => m.names().collect(),
        }
    }

    /// One line per refused entry.
    pub fn problems(&self) -> &[String] {
        match self {
            Archive::Pak(p) => p.problems(),
            Archive::Zip(z) => z.problems(),
            Archive::Memory(..) => &[],
        }
    }

    /// The name the entry that `name` finds is stored under (see [`crate::Files::stored_name`]).
    pub fn stored_name(&self, name: &str) -> Option<String> {
        match self {
            Archive::Pak(p) => p.dir.stored_name(name),
            Archive::Zip(z) => z.dir.stored_name(name),
            Archive::Memory(_, m) => crate::Files::stored_name(m, name),
        }
    }

    /// The bytes of the entry `name` by the engine's rule (first in a pak, last in a zip).
    ///
    /// # Errors
    /// The entry's refusal or a read failure, in one line.
    pub fn read(&self, name: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            Archive::Pak(p) => p.read(name),
            Archive::Zip(z) => z.read(name),
            Archive::Memory(_, m) => crate::Files::read(m, name),
        }
    }

    /// The entries directly in `dir` ending with `ext`, in directory order, each once.
    pub fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        match self {
            Archive::Pak(p) => p.list(dir, ext),
            Archive::Zip(z) => z.list(dir, ext),
            Archive::Memory(_, m) => crate::Files::list(m, dir, ext),
        }
    }

    fn contains(&self, name: &str) -> bool {
        match self {
            Archive::Pak(p) => matches!(p.read(name), Ok(Some(_))),
            Archive::Zip(z) => z.contains(name),
            Archive::Memory(_, m) => crate::Files::exists(m, name),
        }
    }
}

/// Sorted entry names of the folders a [`Loose`] has listed to fold case, by folder.
type Listings = HashMap<PathBuf, Arc<[OsString]>>;

/// A loose folder read as a game directory.
#[derive(Debug, Clone)]
pub struct Loose {
    root: PathBuf,
    profile: Profile,
    /// Each folder listed to match a name's case, listed once: a model's texture search
    /// tries several names and extensions under the same folders (16 listings of one
    /// folder for an MD3 whose textures are missing). Shared by clones. Exact names are
    /// always asked of the file system; a name found only by folding its case is looked
    /// up in the folder as it was when first listed (a file created there later in the
    /// run is found by its exact name only).
    listings: Arc<Mutex<Listings>>,
    /// The folder's canonical path, kept once found (every file read is checked to lie
    /// in it).
    root_canonical: Arc<OnceLock<PathBuf>>,
}

impl Loose {
    /// The folder `root`, its names compared as `profile`'s engine does.
    pub fn new(root: &Path, profile: Profile) -> Loose {
        Loose {
            root: root.to_path_buf(),
            profile,
            listings: Arc::default(),
            root_canonical: Arc::default(),
        }
    }

    /// The folder's canonical path: kept once found; a failure is not kept, so the next
    /// read tries again.
    fn root_canonical(&self) -> Option<&Path> {
        if let Some(r) = self.root_canonical.get() {
            return Some(r);
        }
        let r = std::fs::canonicalize(&self.root).ok()?;
        Some(self.root_canonical.get_or_init(|| r))
    }

    /// The listing of folder `dir` if it was listed already.
    fn cached_listing(&self, dir: &Path) -> Option<Arc<[OsString]>> {
        self.listings.lock().ok().and_then(|m| m.get(dir).cloned())
    }

    /// The entry names of folder `dir`, sorted, listed once per [`Loose`] (`None` when it
    /// cannot be read).
    fn listing(&self, dir: &Path) -> Option<Arc<[OsString]>> {
        if let Some(names) = self.cached_listing(dir) {
            return Some(names);
        }
        let mut names: Vec<OsString> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        names.sort();
        let names: Arc<[OsString]> = names.into();
        if let Ok(mut m) = self.listings.lock() {
            m.insert(dir.to_path_buf(), Arc::clone(&names));
        }
        Some(names)
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The host path of game path `path` (already checked safe): each component as named,
    /// or, where the engine folds case, the first entry of the folder matching it ASCII
    /// case-insensitively (sorted, so the choice is stable).
    fn resolve(&self, path: &str) -> Option<PathBuf> {
        let mut at = self.root.clone();
        let parts: Vec<&str> = if self.profile.folds_case() && self.profile != Profile::Quake2 {
            path.split(['/', '\\']).filter(|c| !c.is_empty()).collect()
        } else {
            path.split('/').filter(|c| !c.is_empty()).collect()
        };
        for part in parts {
            if part == "." {
                continue;
            }
            // The exact name first, asked of the file system (which knows its own
            // separators and name equivalences), so a correctly named file never needs
            // its folder listed.
            let exact = at.join(part);
            if std::fs::symlink_metadata(&exact).is_ok() {
                at = exact;
                continue;
            }
            if !self.profile.folds_case() {
                return None;
            }
            // The first match in sorted order, so the choice is stable.
            let names = self.listing(&at)?;
            let name = names
                .iter()
                .find(|n| n.to_str().is_some_and(|n| n.eq_ignore_ascii_case(part)))?;
            at = at.join(name);
        }
        Some(at)
    }

    /// The bytes of the regular file at game path `path` inside the folder, if any. A file
    /// reached through a link that leaves the folder is refused.
    ///
    /// # Errors
    /// An unsafe path, a link out of the folder, or an I/O error, in one line.
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let path = lookup_path(path)?;
        let Some(host) = self.resolve(path) else {
            return Ok(None);
        };
        let Ok(meta) = std::fs::metadata(&host) else {
            return Ok(None);
        };
        if !meta.is_file() {
            return Ok(None);
        }
        let inside = match (std::fs::canonicalize(&host), self.root_canonical()) {
            (Ok(h), Some(r)) => h.starts_with(r),
            _ => false,
        };
        if !inside {
            return Err(format!(
                "{}: refused: it leads out of {}",
                host.display(),
                self.root.display()
            ));
        }
        std::fs::read(&host)
            .map(Some)
            .map_err(|e| format!("{}: {e}", host.display()))
    }

    /// The files of folder `dir` ending with `ext`, sorted by name.
    pub fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let dir = if dir.is_empty() {
            ""
        } else {
            match lookup_path(dir) {
                Ok(d) => d,
                Err(_) => return Vec::new(),
            }
        };
        let host = if dir.is_empty() {
            Some(self.root.clone())
        } else {
            self.resolve(dir)
        };
        let Some(host) = host else {
            return Vec::new();
        };
        let Ok(rd) = std::fs::read_dir(&host) else {
            return Vec::new();
        };
        let ext = ext.to_ascii_lowercase();
        let mut names: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.to_ascii_lowercase().ends_with(&ext))
            .collect();
        names.sort();
        names
            .into_iter()
            .map(|n| {
                if dir.is_empty() {
                    n
                } else {
                    format!("{dir}/{n}")
                }
            })
            .collect()
    }
}

/// One source of a [`GameFs`].
#[derive(Debug)]
pub enum Source {
    /// A loose folder.
    Loose(Loose),
    /// An archive.
    Archive(Archive),
}

impl Source {
    /// The folder or archive, for messages.
    pub fn label(&self) -> String {
        match self {
            Source::Loose(l) => l.root().display().to_string(),
            Source::Archive(a) => a.label().to_owned(),
        }
    }

    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        match self {
            Source::Loose(l) => l.read(path),
            Source::Archive(a) => a.read(path),
        }
    }

    fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        match self {
            Source::Loose(l) => l.list(dir, ext),
            Source::Archive(a) => a.list(dir, ext),
        }
    }

    /// An archive's stored name for `path` (a folder's files are the OS's business).
    fn stored_name(&self, path: &str) -> Option<String> {
        match self {
            Source::Loose(_) => None,
            Source::Archive(a) => a.stored_name(path),
        }
    }
}

/// A game's file system: sources searched first to last, the first that holds a name wins.
///
/// ```
/// use idmodel_assets::{Files, GameFs, Profile};
/// let dir = std::env::temp_dir().join(format!("idmodel-doc-gamefs-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("scripts")).unwrap();
/// std::fs::write(dir.join("scripts/a.shader"), b"x { }").unwrap();
/// let mut fs = GameFs::new(Profile::Ioq3);
/// fs.add_game_dir(&dir).unwrap();
/// assert_eq!(fs.read("SCRIPTS/A.shader").unwrap().as_deref(), Some(&b"x { }"[..]));
/// assert_eq!(fs.list("scripts", ".shader"), ["scripts/a.shader"]);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug)]
pub struct GameFs {
    profile: Profile,
    limits: Limits,
    pub(crate) sources: Vec<Source>,
    warnings: Vec<String>,
}

/// `FS_PathCmp`'s key (Quake III): letters folded to upper case, `\` and `:` read as `/`.
fn q3_sort_key(name: &str) -> Vec<u8> {
    name.bytes()
        .map(|b| match b {
            b'\\' | b':' => b'/',
            b => b.to_ascii_uppercase(),
        })
        .collect()
}

/// `idStr::Icmp`'s key (Doom 3): letters folded to lower case.
fn d3_sort_key(name: &str) -> Vec<u8> {
    name.bytes().map(|b| b.to_ascii_lowercase()).collect()
}

impl GameFs {
    /// An empty file system with `profile`'s rules and the default [`Limits`].
    pub fn new(profile: Profile) -> GameFs {
        GameFs::with_limits(profile, Limits::default())
    }

    /// An empty file system with `profile`'s rules and `limits`.
    pub fn with_limits(profile: Profile, limits: Limits) -> GameFs {
        GameFs {
            profile,
            limits,
            sources: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The rules in use.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// One line per archive of a game folder that was refused and left out (the engines
    /// skip a pk3 they cannot open, too).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The reader limits in use.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The sources, first searched first.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Adds game folder `dir` on top of everything added before (a later game folder
    /// overrides an earlier one, as `fs_game` overrides `baseq3`): its archives in the
    /// engine's order and its loose files, with the engine's loose-file priority.
    ///
    /// An archive of the folder that is refused is left out, with a line in
    /// [`GameFs::warnings`].
    ///
    /// # Errors
    /// A folder that cannot be listed, in one line.
    pub fn add_game_dir(&mut self, dir: &Path) -> Result<(), String> {
        let group = self.game_dir_sources(dir)?;
        let mut rest = core::mem::take(&mut self.sources);
        self.sources = group;
        self.sources.append(&mut rest);
        Ok(())
    }

    /// Adds one archive on top of everything added before.
    ///
    /// # Errors
    /// The archive's refusal, in one line.
    pub fn add_archive(&mut self, path: &Path) -> Result<(), String> {
        let a = Archive::open(path, self.profile, self.limits)?;
        self.sources.insert(0, Source::Archive(a));
        Ok(())
    }

    /// Adds an archive already open (from memory, say) on top.
    pub fn push_archive(&mut self, archive: Archive) {
        self.sources.insert(0, Source::Archive(archive));
    }

    /// The sources of one game folder, first searched first.
    fn game_dir_sources(&mut self, dir: &Path) -> Result<Vec<Source>, String> {
        let p = self.profile;
        let loose = Source::Loose(Loose::new(dir, p));
        let listing: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        let limits = self.limits;
        let warnings = &mut self.warnings;
        let mut open = |name: &str| match Archive::open(&dir.join(name), p, limits) {
            Ok(a) => Some(a),
            Err(e) => {
                warnings.push(format!("{e} (left out)"));
                None
            }
        };
        let mut out = Vec::new();
        match p {
            Profile::Quake | Profile::Quake2 => {
                let mut paks = Vec::new();
                for n in 0u32.. {
                    if p == Profile::Quake2 && n > 9 {
                        break;
                    }
                    let name = format!("pak{n}.pak");
                    // The engine opens the name as given; the OS decides its case.
                    if dir.join(&name).is_file() {
                        paks.extend(open(&name).map(Source::Archive));
                    } else if p == Profile::Quake {
                        break;
                    }
                }
                paks.reverse();
                out.extend(paks);
                out.push(loose);
            }
            Profile::Quake3 | Profile::Ioq3 => {
                let mut names: Vec<&String> = listing
                    .iter()
                    .filter(|n| {
                        let l = n.to_ascii_lowercase();
                        (l.ends_with(".pk3") && dir.join(n).is_file())
                            || (p == Profile::Ioq3
                                && l.ends_with(".pk3dir")
                                && dir.join(n).is_dir())
                    })
                    .collect();
                names.sort_by_key(|n| q3_sort_key(n));
                if p == Profile::Quake3 {
                    // MAX_PAKFILES: vanilla keeps the first 1024 of the sorted list.
                    names.truncate(1024);
                }
                let mut group = Vec::new();
                for n in names.into_iter().rev() {
                    if n.to_ascii_lowercase().ends_with(".pk3dir") {
                        group.push(Source::Loose(Loose::new(&dir.join(n), p)));
                    } else {
                        group.extend(open(n).map(Source::Archive));
                    }
                }
                if p == Profile::Ioq3 {
                    out.push(loose);
                    out.extend(group);
                } else {
                    out.extend(group);
                    out.push(loose);
                }
            }
            Profile::Doom3 => {
                let mut names: Vec<&String> = listing
                    .iter()
                    .filter(|n| n.to_ascii_lowercase().ends_with(".pk4") && dir.join(n).is_file())
                    .collect();
                names.sort_by_key(|n| d3_sort_key(n));
                out.push(loose);
                for n in names.into_iter().rev() {
                    if let Some(a) = open(n).filter(|a| !a.contains("addon.conf")) {
                        out.push(Source::Archive(a));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The label of the first source holding `path` (for messages: where a file came from).
    pub fn origin(&self, path: &str) -> Option<String> {
        self.sources
            .iter()
            .find(|s| matches!(s.read(path), Ok(Some(_))))
            .map(Source::label)
    }
}

impl Files for GameFs {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let path = lookup_path(path)?;
        if path.contains("::") {
            return Ok(None);
        }
        for s in &self.sources {
            if let Some(bytes) = s.read(path)? {
                return Ok(Some(bytes));
            }
        }
        Ok(None)
    }

    /// The stored name in the first source that holds `path`, when that is an archive.
    fn stored_name(&self, path: &str) -> Option<String> {
        let path = lookup_path(path).ok()?;
        let s = self
            .sources
            .iter()
            .find(|s| matches!(s.read(path), Ok(Some(_))))?;
        s.stored_name(path)
    }

    /// Quake III's order (search order, then each source's own order, names once) for
    /// every profile but Doom 3, whose `RegisterDeclFolder` sorts the whole list with
    /// `IcmpPath` (case-insensitive, `\` = `/`).
    fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        let kd = key(self.profile, dir);
        let ext_l = ext.to_ascii_lowercase();
        for s in &self.sources {
            for name in s.list(dir, ext) {
                let k = key(self.profile, &name);
                if in_dir_with_ext(&k, &kd, &ext_l) && seen.insert(k) {
                    out.push(name);
                }
            }
        }
        if self.profile == Profile::Doom3 {
            out.sort_by_key(|n| key(Profile::Doom3, n));
        }
        out
    }
}
