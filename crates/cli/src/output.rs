//! Every file the command writes goes through here, so that nothing the user has is lost.
//!
//! - **Inputs** ([`remember`]): the files a conversion read (its report's `inputs`, read
//!   by `idmodel_convert::read`: regular files only, never blocking on a FIFO) are
//!   remembered by identity (`(dev, ino)` on Unix, so symbolic and hard links are both
//!   caught; the canonical path elsewhere), and no output of the run replaces one.
//! - **Writing** ([`Plan`]): every file a conversion writes (the named output and its side
//!   files: `.bin`, `.mtl`, `_N.png`) is collected, with its bytes, before anything is
//!   written, and checked as a whole: no file is an input of the run or a file written
//!   earlier in the run, no two are the same file, only regular files are replaced, a
//!   read-only named output or an existing side file is replaced only with `--force`.
//!   Then every file is written to a temporary file beside its target
//!   (`.NAME.idmodel-tmp-PID-N`), flushed to disk when it replaces a file (a new file
//!   replaces nothing of the user's and is not waited for), and only when all of them
//!   are written are they renamed over their targets. A failed or interrupted run, or a
//!   crash, leaves the old files as they were (at worst a temporary file is left behind
//!   by a kill).
//! - **Batches** ([`check_batch`]): a folder conversion checks all its outputs (and the
//!   side files they would have) before converting anything; an existing file there is
//!   refused without `--force`, and nothing is written.
//!
//! A named output that is a symbolic link is written through: its target is replaced,
//! the link stays.

use std::collections::{HashMap, HashSet};
use std::fs::{Metadata, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex, PoisonError};

use idmodel_convert::read::not_regular;
use idmodel_convert::{MODEL_EXTENSIONS, OutKind};

use crate::Exit;

/// Extensions of the files a batch may read: [`MODEL_EXTENSIONS`] and the Quake III side
/// files. No batch output may be one of these files (through a link).
fn read_by_batch(ext: &str) -> bool {
    MODEL_EXTENSIONS.contains(&ext) || ["skin", "cfg"].contains(&ext)
}

// ---------------------------------------------------------------------------------------
// File identity

/// Which file a path names once links are resolved.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FileId {
    dev: u64,
    ino: u64,
}

/// Which file a path names once links are resolved.
#[cfg(not(unix))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct FileId(PathBuf);

#[cfg(unix)]
fn file_id(_path: &Path, meta: &Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt as _;
    Some(FileId {
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

#[cfg(not(unix))]
fn file_id(path: &Path, _meta: &Metadata) -> Option<FileId> {
    std::fs::canonicalize(path).ok().map(FileId)
}

/// The files read in this run (by identity, with the path they were first read by).
static INPUTS: LazyLock<Mutex<HashMap<FileId, PathBuf>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The files written in this run.
static WRITTEN: LazyLock<Mutex<HashSet<FileId>>> = LazyLock::new(|| Mutex::new(HashSet::new()));

/// Numbers the temporary files of this process.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn remember_input(path: &Path, meta: &Metadata) {
    if let Some(id) = file_id(path, meta) {
        INPUTS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id)
            .or_insert_with(|| path.to_owned());
    }
}

/// Remembers the regular file `path` as an input of the run without reading it (an
/// archive read in place, `archives.rs`).
pub fn remember(path: &Path) {
    if let Ok(meta) = std::fs::metadata(path)
        && meta.is_file()
    {
        remember_input(path, &meta);
    }
}

/// The path an input of this run was read by, when `id` is one.
fn input_named(id: &FileId) -> Option<PathBuf> {
    INPUTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(id)
        .cloned()
}

/// Starts a new run: forgets the inputs and outputs of the previous one (a library
/// caller's conversions are each a run of their own).
pub fn new_run() {
    INPUTS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
    WRITTEN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clear();
}

fn written_before(id: &FileId) -> bool {
    WRITTEN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .contains(id)
}

// ---------------------------------------------------------------------------------------
// Reading

/// Remembers every file under `dir` that a batch might read (models, md5anims, `.skin`,
/// `animation.cfg`) as an input, so that no output of the batch replaces one, even
/// through a link. Symbolic links to folders are not followed (as the batch walk).
pub fn protect_inputs(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            protect_inputs(&path);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| read_by_batch(&e.to_ascii_lowercase()))
            && let Ok(meta) = std::fs::metadata(&path)
            && meta.is_file()
        {
            remember_input(&path, &meta);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Writing

/// How a run ends early: a failure (exit 1) or a refusal to write (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The complete line of a failure: a refused input file, a failed conversion or a
    /// write that failed (exit status 1).
    Failed(String),
    /// The complete line of a refusal to write: the output is an input, an existing
    /// side file, a read-only output, not a regular file, … (exit status 2).
    Refused(String),
}

impl Stop {
    /// The exit status for this stop.
    pub fn exit(&self) -> Exit {
        match self {
            Stop::Failed(_) => Exit::Failed,
            Stop::Refused(_) => Exit::Usage,
        }
    }

    /// The line to print.
    pub fn line(&self) -> &str {
        match self {
            Stop::Failed(s) | Stop::Refused(s) => s,
        }
    }

    /// Prints the line on stderr and gives the exit status.
    pub fn report(&self) -> Exit {
        crate::error_line(self.line());
        self.exit()
    }
}

impl From<String> for Stop {
    fn from(line: String) -> Self {
        Stop::Failed(line)
    }
}

impl From<Stop> for String {
    fn from(stop: Stop) -> String {
        match stop {
            Stop::Failed(s) | Stop::Refused(s) => s,
        }
    }
}

/// What the user asked to be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Policy {
    /// `--force`: replace existing side files, batch outputs and read-only outputs (never
    /// an input of the run, never a file that is not a regular file).
    pub force: bool,
    /// The main output is the file the user named with `-o` (replaced when it exists);
    /// false when the command derived it (a batch output, a player written into a
    /// folder), which then is treated like a side file.
    pub named: bool,
}

/// Whether the user named a file to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The `-o` file: replaced when it exists, unless read-only.
    Named,
    /// Anything else (`.bin`, `.mtl`, `_N.png`, batch outputs): an existing file is
    /// replaced only with `--force`.
    Side,
}

/// A file to write: where, its role, its bytes.
struct Planned {
    path: PathBuf,
    role: Role,
    /// The file's bytes, as pieces written one after the other (a GLB's front and its
    /// binary buffer, so the buffer is never moved to join them).
    pieces: Vec<Vec<u8>>,
}

/// Where a planned file's bytes go (a symbolic link's target) and what is there now.
struct Target {
    path: PathBuf,
    existing: Option<Metadata>,
}

/// Resolves `path` to the file written for it (through a symbolic link).
fn target(path: &Path) -> Result<Target, Stop> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Target {
            path: path.to_owned(),
            existing: None,
        }),
        Err(e) => Err(Stop::Failed(line(path, format!("cannot write: {e}")))),
        Ok(m) if m.file_type().is_symlink() => {
            // Written through: the link's target is replaced and the link kept.
            let resolved = std::fs::canonicalize(path).map_err(|e| {
                Stop::Refused(line(
                    path,
                    format!("a symbolic link that cannot be followed ({e}); remove it or name another output"),
                ))
            })?;
            let meta = std::fs::metadata(&resolved)
                .map_err(|e| Stop::Failed(line(path, format!("cannot write: {e}"))))?;
            Ok(Target {
                path: resolved,
                existing: Some(meta),
            })
        }
        Ok(m) => Ok(Target {
            path: path.to_owned(),
            existing: Some(m),
        }),
    }
}

/// `PATH: what`.
fn line(path: &Path, what: impl std::fmt::Display) -> String {
    format!("{}: {what}", path.display())
}

/// Checks one file to write; the target to write when it may be written.
fn check_one(path: &Path, role: Role, force: bool) -> Result<Target, Stop> {
    let target = target(path)?;
    let Some(meta) = &target.existing else {
        return Ok(target);
    };
    if let Some(why) = not_regular(meta.file_type()) {
        return Err(Stop::Refused(line(
            path,
            format!("{why}; idmodel writes only regular files, name another output"),
        )));
    }
    let id = file_id(&target.path, meta);
    if let Some(input) = id.as_ref().and_then(input_named) {
        return Err(Stop::Refused(line(
            path,
            format!(
                "refusing to write over the input {} (the same file); name another output",
                input.display()
            ),
        )));
    }
    if id.as_ref().is_some_and(written_before) {
        return Err(Stop::Refused(line(
            path,
            "refusing to replace a file written earlier in this run (two inputs would write the same file)",
        )));
    }
    match role {
        Role::Named if meta.permissions().readonly() && !force => Err(Stop::Refused(line(
            path,
            "is read-only; use --force to replace it",
        ))),
        Role::Side if !force => Err(Stop::Refused(line(
            path,
            "already exists and is not the file named by -o; refusing to replace it (--force replaces it)",
        ))),
        Role::Named | Role::Side => Ok(target),
    }
}

/// Whether two planned targets are the same file: by identity when both exist, else by
/// path with the folder resolved.
fn same_file(a: &Target, b: &Target) -> bool {
    match (&a.existing, &b.existing) {
        (Some(ma), Some(mb)) => {
            file_id(&a.path, ma).is_some_and(|x| file_id(&b.path, mb).is_some_and(|y| x == y))
        }
        (None, None) => resolved_dir(&a.path) == resolved_dir(&b.path),
        _ => false,
    }
}

/// `path` with its folder made canonical (the file itself need not exist).
fn resolved_dir(path: &Path) -> PathBuf {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    let dir = dir.map_or_else(|| std::fs::canonicalize("."), std::fs::canonicalize);
    match (dir, path.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => path.to_owned(),
    }
}

/// The files one conversion or render writes, checked together before any is written
/// and then written together (see the module docs).
pub struct Plan {
    policy: Policy,
    files: Vec<Planned>,
}

impl Plan {
    /// An empty plan.
    pub fn new(policy: Policy) -> Plan {
        Plan {
            policy,
            files: Vec::new(),
        }
    }

    /// Adds the main output (`-o`, or the output a batch derived).
    #[cfg(test)]
    pub fn output(&mut self, path: &Path, bytes: Vec<u8>) {
        self.output_pieces(path, vec![bytes]);
    }

    /// [`Plan::output`] of a file given as pieces, written one after the other.
    #[cfg(test)]
    pub fn output_pieces(&mut self, path: &Path, pieces: Vec<Vec<u8>>) {
        let role = if self.policy.named {
            Role::Named
        } else {
            Role::Side
        };
        self.files.push(Planned {
            path: path.to_owned(),
            role,
            pieces,
        });
    }

    /// Adds the files of a conversion, in its order: the one the caller named as the
    /// output, the others as side files (see [`Plan::output`], [`Plan::side`]).
    pub fn files(&mut self, files: Vec<idmodel_convert::OutFile>) {
        for f in files {
            let role = match f.role {
                idmodel_convert::Role::Named if self.policy.named => Role::Named,
                _ => Role::Side,
            };
            self.files.push(Planned {
                path: f.path,
                role,
                pieces: f.pieces,
            });
        }
    }

    /// Adds a side file the user did not name (`.bin`, `.mtl`, `_N.png`).
    #[cfg(test)]
    pub fn side(&mut self, path: &Path, bytes: Vec<u8>) {
        self.files.push(Planned {
            path: path.to_owned(),
            role: Role::Side,
            pieces: vec![bytes],
        });
    }

    /// Checks every file, then writes them all: each to a temporary file beside it,
    /// flushed, and once all are written, each renamed over its target in the order
    /// added. Nothing is written when a check fails; when a write fails, no target is
    /// touched and the temporary files are removed.
    pub fn commit(self) -> Result<(), Stop> {
        let mut targets: Vec<Target> = Vec::with_capacity(self.files.len());
        for f in &self.files {
            let t = check_one(&f.path, f.role, self.policy.force)?;
            if let Some((other, _)) = self
                .files
                .iter()
                .zip(&targets)
                .find(|(_, seen)| same_file(seen, &t))
            {
                return Err(Stop::Refused(line(
                    &f.path,
                    format!(
                        "would be written twice (it is the same file as {})",
                        other.path.display()
                    ),
                )));
            }
            targets.push(t);
        }
        let mut staged: Vec<(PathBuf, &Target)> = Vec::with_capacity(targets.len());
        for (f, t) in self.files.iter().zip(&targets) {
            match stage(&f.path, t, &f.pieces) {
                Ok(temp) => staged.push((temp, t)),
                Err(e) => {
                    remove_all(staged.iter().map(|(temp, _)| temp));
                    return Err(Stop::Failed(e));
                }
            }
        }
        for (i, (temp, t)) in staged.iter().enumerate() {
            if let Err(e) = std::fs::rename(temp, &t.path) {
                remove_all(staged.iter().skip(i).map(|(temp, _)| temp));
                return Err(Stop::Failed(line(&t.path, format!("cannot write: {e}"))));
            }
            if let Ok(meta) = std::fs::metadata(&t.path)
                && let Some(id) = file_id(&t.path, &meta)
            {
                WRITTEN
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(id);
            }
        }
        Ok(())
    }
}

fn remove_all<'a>(temps: impl Iterator<Item = &'a PathBuf>) {
    for temp in temps {
        let _ = std::fs::remove_file(temp);
    }
}

/// Writes `pieces`, one after the other, to a new temporary file beside `target`
/// (creating its folder), with the permissions of the file it replaces and flushed to
/// disk when it replaces one; the temporary file's path. The error is the complete line,
/// naming `shown`.
fn stage(shown: &Path, target: &Target, pieces: &[Vec<u8>]) -> Result<PathBuf, String> {
    // Folders are created only once there is something to write into them.
    let dir = target.path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| line(dir, format!("cannot create folder: {e}")))?;
    }
    let name = target
        .path
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp_name = format!(".{name}.idmodel-tmp-{}-{n}", std::process::id());
    let temp = dir.map_or_else(|| PathBuf::from(&temp_name), |d| d.join(&temp_name));
    let cannot = |e: std::io::Error| line(shown, format!("cannot write: {e}"));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(cannot)?;
    // A file that replaces one of the user's is flushed to disk before the rename, so a
    // crash leaves either the old file or the whole new one. A new file replaces nothing
    // and is not flushed: at worst a crash loses that output, never a file the user had
    // (and a batch into a fresh folder does not wait for the disk once per file).
    let written = pieces
        .iter()
        .try_for_each(|piece| file.write_all(piece))
        .and_then(|()| match &target.existing {
            Some(old) => file
                .set_permissions(old.permissions())
                .and_then(|()| file.sync_all()),
            None => Ok(()),
        });
    if let Err(e) = written {
        drop(file);
        let _ = std::fs::remove_file(&temp);
        return Err(cannot(e));
    }
    Ok(temp)
}

// ---------------------------------------------------------------------------------------
// Batches

/// The side files a batch output of `kind` may have: `STEM.bin` for `.gltf`; `STEM.mtl`
/// and every existing `STEM_<n>.png` for `.obj`.
fn side_files(output: &Path, kind: OutKind) -> Vec<PathBuf> {
    let Some(stem) = output.file_stem().and_then(|s| s.to_str()) else {
        return Vec::new();
    };
    let dir = output.parent().unwrap_or(Path::new(""));
    match kind {
        OutKind::Glb | OutKind::Md3 | OutKind::Md2 | OutKind::Mdl | OutKind::Md5mesh => Vec::new(),
        OutKind::Player => Vec::new(),
        OutKind::Gltf => vec![dir.join(format!("{stem}.bin"))],
        OutKind::Obj => {
            let mut files = vec![dir.join(format!("{stem}.mtl"))];
            let prefix = format!("{stem}_");
            let list = if dir.as_os_str().is_empty() {
                std::fs::read_dir(".")
            } else {
                std::fs::read_dir(dir)
            };
            if let Ok(entries) = list {
                for e in entries.flatten() {
                    let name = e.file_name();
                    let is_texture = name
                        .to_str()
                        .and_then(|n| n.strip_prefix(&prefix))
                        .and_then(|n| n.strip_suffix(".png"))
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
                    if is_texture {
                        files.push(dir.join(name));
                    }
                }
            }
            files
        }
    }
}

/// Checks the outputs of a folder conversion before anything is converted: remembers
/// the files under `input` as inputs, then refuses outputs (and the side files they
/// would have) that are inputs, that exist (without `--force`), that are not regular
/// files, or that two inputs share. `Err` holds one line per refused file.
pub fn check_batch(
    input: &Path,
    outputs: &[PathBuf],
    kind: OutKind,
    force: bool,
) -> Result<(), Vec<String>> {
    protect_inputs(input);
    let mut refused = Vec::new();
    for (i, out) in outputs.iter().enumerate() {
        if outputs.iter().take(i).any(|o| o == out) {
            refused.push(line(out, "two inputs would write this same file"));
        }
        for path in core::iter::once(out.clone()).chain(side_files(out, kind)) {
            if let Err(stop) = check_one(&path, Role::Side, force) {
                refused.push(String::from(stop));
            }
        }
    }
    if refused.is_empty() {
        Ok(())
    } else {
        Err(refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> idmodel_test_support::Scratch {
        idmodel_test_support::Scratch::new(&format!("output-{name}"))
    }

    fn named() -> Policy {
        Policy {
            force: false,
            named: true,
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_failed_write_leaves_the_old_files_and_no_temporary_file() {
        let dir = scratch("failed");
        let first = dir.join("a.bin");
        std::fs::write(&first, b"old bin").unwrap();
        // Passes the checks (it does not exist) but its folder cannot be created.
        let blocked = Path::new("/proc/idmodel-no-such-folder/b.gltf");
        let mut plan = Plan::new(Policy {
            force: true,
            named: true,
        });
        plan.side(&first, b"new bin".to_vec());
        plan.output(blocked, b"new json".to_vec());
        let stop = plan.commit().unwrap_err();
        assert_eq!(stop.exit(), Exit::Failed, "{stop:?}");
        assert!(stop.line().contains("cannot create folder"), "{stop:?}");
        assert_eq!(std::fs::read(&first).unwrap(), b"old bin");
        // The staged temporary file of a.bin is gone.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn a_folder_in_the_way_is_refused_before_anything_is_written() {
        let dir = scratch("folder");
        let first = dir.join("a.bin");
        std::fs::write(&first, b"old bin").unwrap();
        let blocked = dir.join("b.gltf");
        std::fs::create_dir(&blocked).unwrap();
        let mut plan = Plan::new(Policy {
            force: true,
            named: true,
        });
        plan.side(&first, b"new bin".to_vec());
        plan.output(&blocked, b"new json".to_vec());
        let stop = plan.commit().unwrap_err();
        assert_eq!(stop.exit(), Exit::Usage, "{stop:?}");
        assert!(stop.line().contains("not a regular file (a directory)"));
        assert_eq!(std::fs::read(&first).unwrap(), b"old bin");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_plan_writes_everything_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = scratch("perms");
        let out = dir.join("m.glb");
        std::fs::write(&out, b"old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
        let mut plan = Plan::new(named());
        plan.output(&out, b"new".to_vec());
        plan.commit().unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"new");
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn the_same_file_twice_in_a_plan_is_refused() {
        let dir = scratch("twice");
        let mut plan = Plan::new(named());
        plan.side(&dir.join("x.mtl"), b"1".to_vec());
        plan.output(&dir.join(".").join("x.mtl"), b"2".to_vec());
        let stop = plan.commit().unwrap_err();
        assert!(stop.line().contains("written twice"), "{stop:?}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }

    #[test]
    fn obj_side_files_of_a_batch_output() {
        let dir = scratch("sides");
        for n in ["m_0.png", "m_12.png", "m_x.png", "mm_0.png"] {
            std::fs::write(dir.join(n), b"").unwrap();
        }
        let mut sides = side_files(&dir.join("m.obj"), OutKind::Obj);
        sides.sort();
        assert_eq!(
            sides,
            [dir.join("m.mtl"), dir.join("m_0.png"), dir.join("m_12.png")]
        );
        assert_eq!(
            side_files(&dir.join("m.gltf"), OutKind::Gltf),
            [dir.join("m.bin")]
        );
        assert!(side_files(&dir.join("m.glb"), OutKind::Glb).is_empty());
    }
}
