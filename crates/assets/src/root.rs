//! Finding a model's game root: engines resolve every texture name from the root (the
//! folder their file system is mounted at), never from the model's folder.

use std::path::{Component, Path, PathBuf};

use crate::profile::Profile;
use crate::vfs::{Archive, GameFs, Source};

/// The folder names a game path of a model starts with.
const TOPS: [&str; 3] = ["models", "progs", "players"];

/// Splits `model` into its game root and its game path: the root is the folder above the
/// innermost `models/`, `progs/` or `players/` of the path (ASCII case-insensitive; a
/// `players/` directly inside `models/` counts as that `models/`), else the model's own
/// folder. The game path keeps the case it has on disk, `/`-separated.
///
/// ```
/// use idmodel_assets::root::split_root;
/// use std::path::Path;
/// let (root, game) = split_root(Path::new("/g/baseq3/models/players/kyonshi/upper.md3"));
/// assert_eq!(root, Path::new("/g/baseq3"));
/// assert_eq!(game, "models/players/kyonshi/upper.md3");
/// let (root, game) = split_root(Path::new("/data/models/quake/id1/progs/player.mdl"));
/// assert_eq!((root.as_path(), game.as_str()), (Path::new("/data/models/quake/id1"), "progs/player.mdl"));
/// let (root, game) = split_root(Path::new("x/tris.md2"));
/// assert_eq!((root.as_path(), game.as_str()), (Path::new("x"), "tris.md2"));
/// ```
pub fn split_root(model: &Path) -> (PathBuf, String) {
    let parts: Vec<Component<'_>> = model.components().collect();
    let is = |c: Option<&Component<'_>>, name: &str| matches!(c, Some(Component::Normal(s)) if s.to_str().is_some_and(|s| s.eq_ignore_ascii_case(name)));
    // Folders only: the last component is the file itself.
    let folders = parts.len().saturating_sub(1);
    let mut top = None;
    for i in (0..folders).rev() {
        if TOPS.iter().any(|t| is(parts.get(i), t)) {
            let mut at = i;
            if is(parts.get(i), "players") && i > 0 && is(parts.get(i.saturating_sub(1)), "models")
            {
                at = i.saturating_sub(1);
            }
            top = Some(at);
            break;
        }
    }
    let split = top.unwrap_or(folders);
    let root: PathBuf = parts.iter().take(split).collect();
    let game: Vec<String> = parts
        .iter()
        .skip(split)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let root = if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    };
    (root, game.join("/"))
}

/// `ARCHIVE:entry` (`kyonshi.pk3:models/players/kyonshi/upper.md3`): the archive and the
/// entry's game path, when `path` is not itself a file and the part before its last `:` is
/// a regular file. The entry may start with one `/` (dropped). A real file whose name
/// contains `:` is never split.
///
/// ```
/// use idmodel_assets::root::split_archive_spec;
/// use std::path::Path;
/// assert_eq!(split_archive_spec(Path::new("no-such.pk3:models/a.md3")), None);
/// ```
pub fn split_archive_spec(path: &Path) -> Option<(PathBuf, String)> {
    if std::fs::symlink_metadata(path).is_ok() {
        return None;
    }
    let s = path.to_str()?;
    let (archive, entry) = s.rsplit_once(':')?;
    let entry = entry.strip_prefix('/').unwrap_or(entry);
    let archive = PathBuf::from(archive);
    (!entry.is_empty() && archive.is_file()).then(|| (archive, entry.to_owned()))
}

impl GameFs {
    /// The file system a model at `model` sees, and the model's own game path
    /// (`models/players/kyonshi/upper.md3`).
    ///
    /// The sources, last searched first: each of `extra` (the `--game DIR|ARCHIVE` values,
    /// a later one overriding an earlier, as the engine stacks game folders; a folder is a
    /// game folder with its archives), then on top the model's root ([`split_root`]) as a
    /// game folder with its archives.
    ///
    /// A model inside an archive, named `ARCHIVE:entry` ([`split_archive_spec`]), sees
    /// `extra`, then the archive's folder and on top the archive
    /// ([`GameFs::for_archive_with`]); its game path is the entry.
    ///
    /// # Errors
    /// A folder or archive that cannot be opened, in one line naming it.
    pub fn for_model(
        model: &Path,
        extra: &[PathBuf],
        profile: Profile,
    ) -> Result<(GameFs, String), String> {
        if let Some((archive, entry)) = split_archive_spec(model) {
            let fs = GameFs::for_archive_with(&archive, extra, profile)?;
            return Ok((fs, entry));
        }
        let (root, game) = split_root(model);
        let mut fs = GameFs::new(profile);
        for e in extra {
            fs.add_game(e)?;
        }
        let root_dir = if root.is_dir() {
            root
        } else {
            PathBuf::from(".")
        };
        let dup = extra.iter().any(|e| same_file(e, &root_dir));
        if !dup {
            fs.add_game_dir(&root_dir)?;
        }
        Ok((fs, game))
    }

    /// The file system for models inside the archive at `path`: the archive's folder as a
    /// game folder, with the archive itself on top (whatever its name).
    ///
    /// # Errors
    /// The archive's or its folder's refusal, in one line.
    pub fn for_archive(path: &Path, profile: Profile) -> Result<GameFs, String> {
        GameFs::for_archive_with(path, &[], profile)
    }

    /// [`GameFs::for_archive`] on top of the `--game` values `extra` (stacked as in
    /// [`GameFs::for_model`]).
    ///
    /// # Errors
    /// The refusal of the archive, its folder or one of `extra`, in one line.
    pub fn for_archive_with(
        path: &Path,
        extra: &[PathBuf],
        profile: Profile,
    ) -> Result<GameFs, String> {
        let mut fs = GameFs::new(profile);
        for e in extra {
            fs.add_game(e)?;
        }
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        fs.add_game_dir(dir)?;
        let label = path.display().to_string();
        fs.sources
            .retain(|s| !matches!(s, Source::Archive(a) if same_file(Path::new(a.label()), path) || a.label() == label));
        fs.add_archive(path)?;
        Ok(fs)
    }

    /// Adds a `--game` value: a folder as a game folder, anything else as an archive.
    ///
    /// # Errors
    /// As [`GameFs::add_game_dir`] and [`GameFs::add_archive`].
    pub fn add_game(&mut self, path: &Path) -> Result<(), String> {
        if path.is_dir() {
            self.add_game_dir(path)
        } else {
            self.add_archive(path)
        }
    }

    /// Opens one archive with this file system's rules.
    ///
    /// # Errors
    /// As [`Archive::open`].
    pub fn open_archive(&self, path: &Path) -> Result<Archive, String> {
        Archive::open(path, self.profile(), self.limits())
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
