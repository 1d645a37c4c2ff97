//! Archives as inputs: a `.pak`, `.pk3` or `.pk4` and the models in it.
//!
//! An archive (`.pak`, `.pk3`, `.pk4`) is opened once per run, read in place (nothing is
//! extracted) and registered here; its entries are then named by **virtual paths**
//! `ARCHIVE:/entry` (`kyonshi.pk3:/models/players/kyonshi/upper.md3`: the `/` makes
//! `ARCHIVE:` a path component of its own; the user may leave it out).
//! [`read`] and [`is_file`] serve virtual paths from the archive and everything else from
//! the disk, so the format modules (the Quake III side files, player folders) read
//! archives without knowing it. A real file whose name contains `:` always wins.
//!
//! The archive file itself is noted as an input of the conversion
//! ([`Report::inputs`](crate::Report)), so a tool can refuse to write over it. Archives
//! stay open for the process (keyed by path), so a batch reads each directory once; one
//! that changed on disk (length or modification time) is read again when next opened, and
//! a long-lived caller frees them with [`close`] or [`close_all`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::SystemTime;

use idmodel_assets::{Archive, Limits as ReadLimits, Profile};

use crate::failure::Failure;
use crate::failure::line;

/// Extensions read as archives.
pub const ARCHIVE_EXTENSIONS: [&str; 3] = ["pak", "pk3", "pk4"];

// Model extensions an archive conversion or check picks up.
use crate::MODEL_EXTENSIONS;

/// Extensions counted as side files in `info ARCHIVE`.
const SIDE_EXTENSIONS: [&str; 4] = ["skin", "cfg", "anm", "mtr"];

/// Extensions counted as images in `info ARCHIVE`.
const IMAGE_EXTENSIONS: [&str; 8] = ["tga", "jpg", "jpeg", "png", "pcx", "wal", "bmp", "dds"];

/// An open archive: the path as given, what the file was when opened (`None` for files
/// held in memory), the archive.
struct Opened {
    label: String,
    stamp: Option<Stamp>,
    archive: Arc<Archive>,
}

/// A file's length and modification time: when either changed, the archive is read again.
type Stamp = (u64, Option<SystemTime>);

/// The archives open in this run.
type Registry = Vec<Opened>;

/// See [`Registry`].
static OPEN: LazyLock<Mutex<Registry>> = LazyLock::new(|| Mutex::new(Vec::new()));

/// The file system rules for an archive, by its extension: `.pak` Quake II's (case folded,
/// 4096 entries: reads every Quake pak too), `.pk3` ioquake3's, `.pk4` Doom 3's.
pub fn profile_for(path: &Path) -> Profile {
    match ext(path).as_deref() {
        Some("pak") => Profile::Quake2,
        Some("pk4") => Profile::Doom3,
        _ => Profile::Ioq3,
    }
}

fn ext(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

pub(crate) fn ext_of(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Whether `path` is a regular file named like an archive.
pub fn is_archive_file(path: &Path) -> bool {
    ext(path).is_some_and(|e| ARCHIVE_EXTENSIONS.contains(&e.as_str())) && path.is_file()
}

/// Opens (once per run) and registers the archive at `path`, remembering it as an input.
///
/// # Errors
/// One line naming the archive.
pub fn open(path: &Path) -> Result<Arc<Archive>, String> {
    let label = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| line(path, format!("cannot read: {e}")))?;
    if let Some(why) = crate::read::not_regular(meta.file_type()) {
        return Err(line(path, why));
    }
    crate::read::note(path);
    let stamp = Some((meta.len(), meta.modified().ok()));
    {
        let open = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(o) = open.iter().find(|o| o.label == label && o.stamp == stamp) {
            return Ok(Arc::clone(&o.archive));
        }
    }
    let archive = Arc::new(Archive::open(
        path,
        profile_for(path),
        ReadLimits::default(),
    )?);
    let mut open = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
    open.retain(|o| o.label != label);
    open.push(Opened {
        label,
        stamp,
        archive: Arc::clone(&archive),
    });
    Ok(archive)
}

/// Forgets the archive opened from `path` (as it was given), freeing its directory once
/// no conversion holds it; `false` when none was open. The next conversion naming it
/// opens it again.
pub fn close(path: &Path) -> bool {
    let label = path.display().to_string();
    let mut open = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
    let before = open.len();
    open.retain(|o| o.label != label || o.stamp.is_none());
    open.len() != before
}

/// Forgets every archive opened from a path (see [`close`]); the files a running
/// [`convert_bytes`](crate::convert_bytes) holds in memory stay until it returns.
pub fn close_all() {
    OPEN.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|o| o.stamp.is_none());
}

/// Registers files held in memory as an archive named `label` (replacing one of that
/// name), so that `label:/entry` paths read them.
pub(crate) fn register_memory(label: &str, files: idmodel_assets::MemFiles) {
    let mut open = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
    open.retain(|o| o.label != label);
    open.push(Opened {
        label: label.to_owned(),
        stamp: None,
        archive: Arc::new(Archive::memory(label, files)),
    });
}

/// Forgets the archive registered as `label`.
pub(crate) fn unregister(label: &str) {
    OPEN.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|o| o.label != label);
}

/// The files in memory and the entry a virtual path of a memory archive names.
pub(crate) fn memory_of(path: &Path) -> Option<(String, idmodel_assets::MemFiles, String)> {
    let (a, entry) = lookup(path)?;
    match &*a {
        Archive::Memory(label, files) => Some((label.clone(), files.clone(), entry)),
        _ => None,
    }
}

/// The virtual path of `entry` in the archive at `archive`: `ARCHIVE:/entry`, so that
/// `ARCHIVE:` is a path component of its own (the batch's root) and every folder of the
/// entry is one too.
pub fn virtual_path(archive: &Path, entry: &str) -> PathBuf {
    PathBuf::from(format!("{}:/{entry}", archive.display()))
}

/// The registered archive and entry a virtual path names (the longest archive path that
/// prefixes it), `None` for any other path.
pub(crate) fn lookup(path: &Path) -> Option<(Arc<Archive>, String)> {
    let s = path.to_str()?;
    let open = OPEN.lock().unwrap_or_else(PoisonError::into_inner);
    open.iter()
        .filter_map(|o| {
            let rest = s.strip_prefix(o.label.as_str())?.strip_prefix(':')?;
            Some((
                o.label.len(),
                &o.archive,
                rest.strip_prefix('/').unwrap_or(rest),
            ))
        })
        .max_by_key(|(n, _, _)| *n)
        .map(|(_, a, e)| (Arc::clone(a), e.to_owned()))
}

/// Whether the virtual folder `dir` holds any entry (at any depth); `None` when `dir` is
/// not virtual.
pub fn holds_any(dir: &Path) -> Option<bool> {
    let (a, entry) = lookup(dir)?;
    let prefix = format!("{}/", entry.trim_end_matches('/').to_ascii_lowercase());
    Some(
        entry.is_empty()
            || a.names()
                .iter()
                .any(|n| n.to_ascii_lowercase().starts_with(&prefix)),
    )
}

/// Whether `path` is a virtual path of an open archive.
pub fn is_virtual(path: &Path) -> bool {
    lookup(path).is_some()
}

/// Opens the archive of `ARCHIVE:entry` when `path` is one (and no real file), so that
/// virtual reads find it. `Ok(None)`: not such a path.
///
/// # Errors
/// The archive's refusal, in one line.
pub fn prepare(path: &Path) -> Result<Option<PathBuf>, String> {
    let Some((archive, entry)) = idmodel_assets::root::split_archive_spec(path) else {
        return Ok(None);
    };
    open(&archive)?;
    Ok(Some(virtual_path(&archive, &entry)))
}

/// Files larger than this are refused before reading (no id model comes near it).
const MAX_FILE: u64 = 1 << 30;

/// Reads a model file or `ARCHIVE:entry`, refusing anything but a regular file (without
/// blocking on a FIFO) and absurd sizes.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    read(path, MAX_FILE)
}

/// Reads `path` (at most `max` bytes): an entry for a virtual path, else the regular file
/// ([`crate::read::read_regular`]). The failure does not name the file; the caller does.
pub fn read(path: &Path, max: u64) -> Result<Vec<u8>, Failure> {
    let Some((a, entry)) = lookup(path) else {
        return crate::read::read_regular(path, max);
    };
    match a.read(&entry) {
        Ok(Some(b)) if crate::outcome::len(&b) <= max => Ok(b),
        Ok(Some(b)) => Err(Failure::new(format!(
            "{} bytes is larger than any model this tool reads ({max} max)",
            b.len()
        ))),
        Ok(None) => Err(Failure::new(format!("not in {}", a.label()))),
        Err(e) => Err(Failure::new(e)),
    }
}

/// Whether `path` is a regular file, or a virtual path naming a file entry.
pub fn is_file(path: &Path) -> bool {
    match lookup(path) {
        Some((a, entry)) => matches!(a.read(&entry), Ok(Some(_))) && !entry.ends_with('/'),
        None => path.is_file(),
    }
}

/// The file names directly in virtual folder `dir`, `None` when `dir` is not virtual.
pub fn file_names(dir: &Path) -> Option<Vec<String>> {
    let (a, entry) = lookup(dir)?;
    let prefix = if entry.is_empty() {
        String::new()
    } else {
        format!("{}/", entry.trim_end_matches('/').to_ascii_lowercase())
    };
    Some(
        a.names()
            .into_iter()
            .filter_map(|n| {
                let lower = n.to_ascii_lowercase();
                let rest = lower.strip_prefix(&prefix)?;
                (!rest.contains('/') && !rest.is_empty())
                    .then(|| n.get(prefix.len()..).unwrap_or(n).to_owned())
            })
            .collect(),
    )
}

/// What an archive holds, as `info` shows it.
#[derive(Debug, Default, serde::Serialize)]
struct Contents {
    /// `archive`.
    format: &'static str,
    /// `pak`, `pk3` or `pk4`.
    kind: String,
    /// File entries.
    entries: usize,
    /// Model entries, in directory order.
    models: Vec<String>,
    /// Quake III player folders (lower, upper and head.md3).
    players: Vec<String>,
    /// `.skin`, `animation.cfg`, `.anm`, `.mtr` files.
    side_files: usize,
    /// Images.
    images: usize,
    /// `.shader` scripts.
    shader_scripts: usize,
    /// Everything else.
    other: usize,
    /// One line per refused entry.
    refused: Vec<String>,
}

/// The player folders of `names`: folders holding lower.md3, upper.md3 and head.md3.
pub(crate) fn player_folders(names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let lower = n.to_ascii_lowercase();
        let Some(dir) = lower.strip_suffix("/lower.md3") else {
            continue;
        };
        let has = |part: &str| {
            names
                .iter()
                .any(|m| m.eq_ignore_ascii_case(&format!("{dir}/{part}.md3")))
        };
        if has("upper") && has("head") {
            let shown = n.get(..dir.len()).unwrap_or(dir).to_owned();
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&shown)) {
                out.push(shown);
            }
        }
    }
    out
}

fn contents(path: &Path, a: &Archive) -> Contents {
    let names = a.names();
    let mut c = Contents {
        format: "archive",
        kind: ext(path).unwrap_or_default(),
        entries: names.len(),
        players: player_folders(&names),
        refused: a.problems().to_vec(),
        ..Contents::default()
    };
    for n in &names {
        let e = ext_of(n);
        if MODEL_EXTENSIONS.contains(&e.as_str()) {
            c.models.push((*n).to_owned());
        } else if SIDE_EXTENSIONS.contains(&e.as_str()) {
            c.side_files = c.side_files.saturating_add(1);
        } else if IMAGE_EXTENSIONS.contains(&e.as_str()) {
            c.images = c.images.saturating_add(1);
        } else if e == "shader" {
            c.shader_scripts = c.shader_scripts.saturating_add(1);
        } else {
            c.other = c.other.saturating_add(1);
        }
    }
    c
}

/// `info ARCHIVE`: the models it holds (and player folders), side files, images and
/// shader scripts by count, and the refused entries (one line each, for stderr). `None`
/// when `path` is no archive.
pub fn info(path: &Path, json: bool) -> Option<Result<(String, Vec<String>), String>> {
    if !is_archive_file(path) {
        return None;
    }
    let a = match open(path) {
        Ok(a) => a,
        Err(e) => return Some(Err(e)),
    };
    let c = contents(path, &a);
    if json {
        return Some(crate::info::json(path, &c).map(|j| (j, Vec::new())));
    }
    let mut out = format!(
        "{}: {} archive, {} files",
        path.display(),
        c.kind,
        c.entries
    );
    let rows = [
        ("models", c.models.len()),
        ("player folders", c.players.len()),
        ("side files", c.side_files),
        ("images", c.images),
        ("shader scripts", c.shader_scripts),
        ("other files", c.other),
        ("refused entries", c.refused.len()),
    ];
    for (k, v) in rows {
        out.push_str(&format!("\n  {k:<15}  {v}"));
    }
    for p in &c.players {
        out.push_str(&format!("\n  player  {}", virtual_path(path, p).display()));
    }
    for m in &c.models {
        out.push_str(&format!("\n  model   {}", virtual_path(path, m).display()));
    }
    Some(Ok((out, c.refused)))
}

/// An archive's models (virtual paths) and its refused entries (one line each).
pub type Listed = (Vec<PathBuf>, Vec<String>);

/// The models `check ARCHIVE` checks, as virtual paths, and the archive's refused
/// entries (one line each); `None` when `path` is no archive.
///
/// # Errors
/// The archive's refusal, in one line.
pub fn check_paths(path: &Path) -> Option<Result<Listed, String>> {
    if !is_archive_file(path) {
        return None;
    }
    Some(open(path).map(|a| {
        let models = a
            .names()
            .into_iter()
            .filter(|n| MODEL_EXTENSIONS.contains(&ext_of(n).as_str()))
            .map(|n| virtual_path(path, n))
            .collect();
        (models, a.problems().to_vec())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_archive_is_read_again_and_close_forgets_it() {
        let dir = idmodel_test_support::Scratch::new("archives");
        let path = dir.join("game.pak");
        let pak = |files: &[(&str, &[u8])]| idmodel_assets::pak::write(files).unwrap();
        std::fs::write(&path, pak(&[("progs/a.mdl", b"IDPO")])).unwrap();
        assert_eq!(open(&path).unwrap().names(), ["progs/a.mdl"]);
        // Opened once: the same archive again.
        let again = open(&path).unwrap();
        assert!(Arc::ptr_eq(&again, &open(&path).unwrap()));
        std::fs::write(
            &path,
            pak(&[("progs/a.mdl", b"IDPO"), ("progs/b.mdl", b"IDPO")]),
        )
        .unwrap();
        assert_eq!(open(&path).unwrap().names(), ["progs/a.mdl", "progs/b.mdl"]);
        assert!(is_virtual(&virtual_path(&path, "progs/b.mdl")));
        assert!(close(&path));
        assert!(!close(&path));
        assert!(!is_virtual(&virtual_path(&path, "progs/b.mdl")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn close_all_keeps_the_files_a_running_conversion_holds_in_memory() {
        let label = format!("memory-{}", std::process::id());
        register_memory(&label, idmodel_assets::MemFiles::default());
        close_all();
        assert!(is_virtual(&PathBuf::from(format!("{label}:/x.mdl"))));
        assert!(!close(Path::new(&label)));
        unregister(&label);
        assert!(!is_virtual(&PathBuf::from(format!("{label}:/x.mdl"))));
    }
}
