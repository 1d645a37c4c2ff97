//! Batches: every model under a folder, in an archive or under a folder of an archive,
//! each with its output path in the output folder. The walk and the names are here; a
//! tool runs the items (in parallel if it likes) with [`Batch::convert`] and writes them.

use std::path::{Path, PathBuf};

use crate::archives::{self, is_archive_file, player_folders, virtual_path};
use crate::failure::line;
use crate::options::{Options, OutKind};
use crate::outcome::{Converted, Error};
use crate::players::Skipped;
use crate::{MODEL_EXTENSIONS, formats};

/// Extensions a folder batch picks up (md5anim files need a mesh).
const BATCH_EXTENSIONS: [&str; 5] = ["mdl", "md2", "md3", "md5mesh", "md5camera"];

/// One model of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The model file, Quake III player folder, or archive entry (`ARCHIVE:/entry`).
    pub input: PathBuf,
    /// Its output: `OUT/<path below the batch's root>.<ext>`.
    pub output: PathBuf,
    /// Whether the input is a Quake III player folder (converted as one model).
    pub player: bool,
}

/// Every model of a folder or archive, with its output.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The folder, or the archive's root (`ARCHIVE:`), the items' outputs are named
    /// relative to.
    pub root: PathBuf,
    /// The output folder.
    pub output: PathBuf,
    /// The output format (`Options::to`, GLB by default).
    pub kind: OutKind,
    /// The models, in the folder's order.
    pub items: Vec<Item>,
    /// What the walk left out, and why.
    pub skipped: Skipped,
    /// Files named like models that cannot be read (a FIFO, a folder that cannot be
    /// listed), one line each.
    pub failures: Vec<String>,
    /// The archive's refused entries, one line each.
    pub warnings: Vec<String>,
}

impl Batch {
    /// Converts one item of the batch (its output's name was derived: [`Role::Side`]).
    ///
    /// [`Role::Side`]: crate::Role::Side
    ///
    /// # Errors
    /// The item's failure, in one line.
    pub fn convert(&self, item: &Item, options: &Options) -> Result<Converted, Error> {
        let options = Options {
            anims: Vec::new(),
            ..options.clone()
        };
        crate::model::convert_one(
            &item.input,
            &item.output,
            &options,
            self.kind,
            false,
            item.player,
        )
    }

    /// The progress label of `item`: its path relative to the batch's root.
    pub fn label(&self, item: &Item) -> String {
        let rel = item.input.strip_prefix(&self.root).unwrap_or(&item.input);
        if item.input.is_dir() {
            format!("{}/ (Quake III player)", rel.display())
        } else {
            rel.display().to_string()
        }
    }
}

/// The batch `input → output` makes: `Ok(None)` when the input is one model (a file, a
/// player folder, an archive entry), which [`convert`](crate::convert) converts.
///
/// # Errors
/// A usage error (an option that does not apply to a batch, an output that is a file),
/// or a folder or archive that cannot be read or holds no models.
pub fn batch(input: &Path, output: &Path, options: &Options) -> Result<Option<Batch>, Error> {
    if crate::route(input, output, options)? != crate::Route::Model {
        return Ok(None);
    }
    if is_archive_file(input) {
        return archive_batch(input, String::new(), output, options).map(Some);
    }
    let prepared = archives::prepare(input).map_err(Error::Failed)?;
    if let Some(v) = prepared {
        let Some((archive, entry)) = archives::lookup(&v) else {
            return Ok(None);
        };
        let to_file = output.extension().is_some() && !output.is_dir();
        if archives::is_file(&v)
            || formats::md3::is_player_folder(&v)
            || (to_file && crate::model::md5_folder(&v).is_some())
        {
            return Ok(None);
        }
        return archive_batch(Path::new(archive.label()), entry, output, options).map(Some);
    }
    if !input.is_dir() || formats::md3::is_player_folder(input) {
        return Ok(None);
    }
    // An md5 folder written to a file is one model (its mesh with its md5anims).
    let to_file = output.extension().is_some() && !output.is_dir();
    if to_file && crate::model::md5_folder(input).is_some() {
        return Ok(None);
    }
    if !options.anims.is_empty() {
        return Err(Error::Usage(
            "--anim applies to one md5mesh, not to a folder".into(),
        ));
    }
    output_ok(output)?;
    let mut files = Vec::new();
    let mut failures = Vec::new();
    let mut skipped = Skipped::default();
    walk_in(
        input,
        &BATCH_EXTENSIONS,
        &mut files,
        &mut failures,
        Some(&mut skipped),
    );
    if files.is_empty() {
        let mut lines = vec![line(
            input,
            format!(
                "no model files (.{}) under this folder",
                BATCH_EXTENSIONS.join(", .")
            ),
        )];
        // Say why files named like models were skipped (a FIFO, a device).
        lines.extend(failures);
        return Err(Error::Failed(lines.join("\n")));
    }
    Ok(Some(make(input, output, options, files, skipped, failures)))
}

/// The batch of the archive `archive` (every model, or those under the folder `inside`).
fn archive_batch(
    archive: &Path,
    inside: String,
    output: &Path,
    options: &Options,
) -> Result<Batch, Error> {
    if !options.anims.is_empty() {
        return Err(Error::Usage(
            "--anim applies to one md5mesh, not to an archive".into(),
        ));
    }
    output_ok(output)?;
    let a = archives::open(archive).map_err(Error::Failed)?;
    let names = a.names();
    let prefix = if inside.is_empty() {
        String::new()
    } else {
        format!("{}/", inside.trim_end_matches('/').to_ascii_lowercase())
    };
    let under: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.to_ascii_lowercase().starts_with(&prefix))
        .collect();
    let players = player_folders(&under);
    let mut skipped = Skipped::default();
    let mut files: Vec<PathBuf> = players.iter().map(|p| virtual_path(archive, p)).collect();
    for n in &under {
        let e = archives::ext_of(n);
        if !MODEL_EXTENSIONS.contains(&e.as_str()) {
            continue;
        }
        let dir = n.rsplit_once('/').map_or("", |(d, _)| d);
        let in_player = players.iter().any(|p| p.eq_ignore_ascii_case(dir));
        if !skipped.skips(Path::new(n), in_player) {
            files.push(virtual_path(archive, n));
        }
    }
    let root = if inside.is_empty() {
        PathBuf::from(format!("{}:", archive.display()))
    } else {
        virtual_path(archive, inside.trim_end_matches('/'))
    };
    // The batch names outputs by the path below `root`: every virtual path has it.
    // Every output inside the output folder, or nothing is written.
    for f in &files {
        let rel = f.strip_prefix(&root).ok();
        if rel.is_none_or(|r| r.is_absolute() || r.as_os_str().is_empty()) {
            return Err(Error::Failed(line(
                f,
                "internal error: not inside the archive's root",
            )));
        }
    }
    if files.is_empty() {
        let mut lines = a.problems().to_vec();
        lines.push(line(
            &root,
            format!(
                "no model files (.{}) in this archive",
                MODEL_EXTENSIONS.join(", .")
            ),
        ));
        return Err(Error::Failed(lines.join("\n")));
    }
    let mut batch = make(&root, output, options, files, skipped, Vec::new());
    batch.warnings = a.problems().to_vec();
    Ok(batch)
}

fn make(
    root: &Path,
    output: &Path,
    options: &Options,
    files: Vec<PathBuf>,
    skipped: Skipped,
    failures: Vec<String>,
) -> Batch {
    let kind = options.to.unwrap_or(OutKind::Glb);
    let outputs = outputs(root, output, &files, kind);
    let items = files
        .into_iter()
        .zip(outputs)
        .map(|(input, output)| {
            let player = is_player_entry(&input);
            Item {
                input,
                output,
                player,
            }
        })
        .collect();
    Batch {
        root: root.to_owned(),
        output: output.to_owned(),
        kind,
        items,
        skipped,
        failures,
        warnings: Vec::new(),
    }
}

/// The output of a batch must be a folder (or not exist yet): a usage error otherwise.
fn output_ok(output: &Path) -> Result<(), Error> {
    if output.exists() && !output.is_dir() {
        return Err(Error::Usage(format!(
            "the output of a folder conversion must be a folder; '{}' is a file",
            output.display()
        )));
    }
    if !output.is_dir() && crate::model::kind_of(output, None).is_ok() {
        return Err(Error::Usage(format!(
            "the output of a folder conversion is a folder, not a .{} file: name a folder and choose the format with --to",
            output
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default()
        )));
    }
    Ok(())
}

/// Whether a batch entry is a Quake III player folder (on disk or in an archive).
fn is_player_entry(file: &Path) -> bool {
    file.is_dir()
        || (archives::is_virtual(file)
            && !archives::is_file(file)
            && formats::md3::is_player_folder(file))
}

/// Every file under `dir` with one of the extensions `exts` (lowercase), sorted; with
/// `skipped`, a Quake III player folder is one entry (the folder itself) and what is not
/// converted is counted there. Symbolic links to folders are not followed (no loops).
pub fn walk_in(
    dir: &Path,
    exts: &[&str],
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
    mut skipped: Option<&mut Skipped>,
) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(line(dir, format!("cannot list folder: {e}")));
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let player = skipped.is_some() && formats::md3::is_player_folder(dir);
    if player {
        out.push(dir.to_path_buf());
    }
    for p in paths {
        let is_dir = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir());
        if is_dir {
            walk_in(&p, exts, out, errors, skipped.as_deref_mut());
        } else if skipped.as_deref_mut().is_some_and(|s| s.skips(&p, player)) {
            // Counted: an md5anim (needs a mesh), another model of a player folder.
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e.to_ascii_lowercase().as_str()))
        {
            // A FIFO or device named like a model is skipped, never opened.
            match std::fs::metadata(&p).map(|m| crate::read::not_regular(m.file_type())) {
                Ok(Some(why)) => errors.push(line(&p, format!("skipped: {why}"))),
                _ => out.push(p),
            }
        }
    }
}

/// Every model file under `dir` as a contact sheet or a batch sees it (players as one
/// entry each), sorted, with the skips counted.
pub fn walk_models(dir: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<String>) -> Skipped {
    let mut skipped = Skipped::default();
    walk_in(dir, &BATCH_EXTENSIONS, out, errors, Some(&mut skipped));
    skipped
}

/// Output paths for a batch: `OUT/<relative dir>/<stem>.<ext>`; when two inputs would
/// share an output (`ogre.md2` and `ogre.mdl`), both keep their extension
/// (`ogre.md2.glb`, `ogre.mdl.glb`).
fn outputs(input: &Path, output: &Path, files: &[PathBuf], kind: OutKind) -> Vec<PathBuf> {
    let rel = |f: &Path| {
        f.strip_prefix(input)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| f.to_path_buf())
    };
    let short: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            if is_player_entry(f) {
                // A player folder: `OUT/<relative folder>.<ext>`.
                let mut name = rel(f).into_os_string();
                name.push(".");
                name.push(kind.ext());
                output.join(name)
            } else {
                output.join(rel(f)).with_extension(kind.ext())
            }
        })
        .collect();
    short
        .iter()
        .zip(files)
        .map(|(s, f)| {
            if short.iter().filter(|o| *o == s).count() > 1 {
                let mut name = rel(f).into_os_string();
                name.push(".");
                name.push(kind.ext());
                output.join(name)
            } else {
                s.clone()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clashing_outputs_keep_their_extension() {
        let files = [
            PathBuf::from("in/a/ogre.md2"),
            PathBuf::from("in/a/ogre.mdl"),
            PathBuf::from("in/b.md3"),
        ];
        let out = outputs(Path::new("in"), Path::new("out"), &files, OutKind::Glb);
        assert_eq!(
            out,
            [
                PathBuf::from("out/a/ogre.md2.glb"),
                PathBuf::from("out/a/ogre.mdl.glb"),
                PathBuf::from("out/b.glb"),
            ]
        );
    }
}
