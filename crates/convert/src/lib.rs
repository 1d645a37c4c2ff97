//! # idmodel-convert
//!
//! One call from an id Software model to the files a tool writes, the same call the
//! `idmodel` command, the C API and the browser viewer make:
//!
//! - **Sources**: a model file (`.mdl`, `.md2`, `.md3`, `.md5mesh`, `.md5camera`), a
//!   Quake III player folder (`lower/upper/head.md3` with their `.skin` files and
//!   `animation.cfg`), an md5mesh with its md5anims ([`Options::anims`]), an md5 folder
//!   (one md5mesh and the md5anims that fit it, each a clip), an archive entry
//!   (`pak0.pk3:models/players/sarge`), a glTF/GLB or OBJ on the way back, or bytes with
//!   a name and the files beside them in memory ([`convert_bytes`]).
//! - **Outputs**: GLB, glTF (+ `.bin`), OBJ (+ `.mtl`, PNG skins), MDL, MD2 (+ PCX
//!   skin), MD3 (+ LODs), a Quake III player folder, md5mesh/md5anim/md5camera.
//!   [`render::render_file`] draws PNG pictures of the same scenes.
//! - Side files, textures and game roots are found as the engines find them
//!   ([`idmodel_assets`]).
//!
//! Nothing is written: [`convert`] returns the files ([`OutFile`]: path, role, bytes)
//! and a [`Report`] (what was written, warnings, the inputs read) as values; the tool
//! decides where and how to write. Folders and archives of many models are
//! [`batch::batch`]es whose items convert one by one.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("idmodel-convert-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir).unwrap();
//! # let model = dir.join("sample.md2");
//! # std::fs::write(&model, include_bytes!("../../../samples/sample.md2")).unwrap();
//! use idmodel_convert::{Options, convert};
//!
//! let done = convert(&model, &dir.join("sample.glb"), &Options::default()).unwrap();
//! let glb = done.main_bytes();
//! assert_eq!(&glb[..4], b"glTF");
//! println!("{}", done.report.written); // wrote …/sample.glb (…, 1 texture embedded, 0 missing)
//! # std::fs::remove_dir_all(&dir).unwrap();
//! ```
//!
//! [`scene`] gives the format-independent [`Scene`] of any model in one call
//! (dispatching on [`idmodel::detect`]), with the same [`Options`].

#![forbid(unsafe_code)]
// A std crate: the std paths are the natural ones here.
#![allow(clippy::std_instead_of_core, clippy::std_instead_of_alloc)]
// Unit tests may index, unwrap and compute freely: a panic there is a failed assertion.
#![cfg_attr(test, allow(clippy::restriction))]

pub mod archives;
pub mod batch;
pub mod check;
/// `EXT_meshopt_compression` for GLBs: [`compress::meshopt`] and [`compress::decompress`].
pub mod compress;
mod failure;
mod findings;
pub mod formats;
mod import;
mod info;
mod md5_out;
mod memory;
mod model;
mod options;
mod outcome;
mod players;
pub mod read;
pub mod render;
mod sidefiles;
pub mod target;
mod textures;

use std::path::Path;

pub use idmodel_core::{Engine, Severity};
pub use idmodel_scene::Scene;

pub use crate::failure::Failure;
pub use crate::findings::{Finding, Location};
pub use crate::info::{Bounds, Info};
pub use crate::memory::convert_bytes;
pub use crate::options::{Lods, Options, OutKind};
pub use crate::outcome::{Converted, Error, OutFile, Report, Role, Written, size};
pub use crate::players::Skipped;

/// The format crates under the facade's names (`idmodel::md3`, …): this crate sits below
/// the `idmodel` facade, which re-exports it behind its `convert` feature.
mod idmodel {
    pub use idmodel_core as core;
    pub use idmodel_core::detect::{Format, detect};
    pub use idmodel_core::{Engine, Error};
    pub use idmodel_md2 as md2;
    pub use idmodel_md3 as md3;
    pub use idmodel_md5 as md5;
    pub use idmodel_mdl as mdl;
}

/// Extensions of the model files idmodel reads (md5anims included): what an archive
/// conversion and a folder check pick up.
pub const MODEL_EXTENSIONS: [&str; 6] = ["mdl", "md2", "md3", "md5mesh", "md5anim", "md5camera"];

/// Which way a conversion goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// glTF → md5mesh, md5anim or md5camera.
    Md5,
    /// glTF or OBJ → MD3, MD2, MDL, a player folder; OBJ → GLB.
    Import,
    /// An id model (or a folder or archive of them) → GLB, glTF or OBJ.
    Model,
}

/// The way `input → output` goes, or the usage error of an option that does not apply
/// to it.
pub(crate) fn route(input: &Path, output: &Path, options: &Options) -> Result<Route, Error> {
    let usage = |m: &str| Err(Error::Usage(m.to_owned()));
    let md5_out = output
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| {
            ["md5mesh", "md5anim", "md5camera"]
                .iter()
                .any(|k| e.eq_ignore_ascii_case(k))
        });
    if md5_out {
        return Ok(Route::Md5);
    }
    if !options.anim_out.is_empty() {
        return usage("--anim-out applies to md5 outputs (.md5mesh)");
    }
    if import::is_target(input, output, options.to) || info::is_obj(input) {
        return Ok(Route::Import);
    }
    if options.lods.any() {
        return usage(
            "--lods, --lod1 and --lod2 apply to conversions to MD3 (.md3 or a player folder)",
        );
    }
    if options.fps.is_some() {
        return usage(
            "--fps applies to conversions to id formats (.md3, .md2, .mdl, .md5mesh, .md5anim, .md5camera)",
        );
    }
    if options.skin_name.is_some() || options.palette.is_some() || options.groups {
        return usage(
            "--skin-name, --palette and --groups apply to glTF conversions to .md2 / .mdl",
        );
    }
    Ok(Route::Model)
}

/// Converts one source to `output`: an id model (a file, a Quake III player folder, an
/// `ARCHIVE:entry`) to GLB, glTF or OBJ; a glTF/GLB or OBJ to MD3, MD2, MDL, a player
/// folder or md5 files; an OBJ to GLB. The output format comes from `output`'s
/// extension and [`Options::to`]. Nothing is written: the files come back with the
/// report. A folder or archive of many models is a [`batch::batch`].
///
/// # Errors
/// One line naming the file: a usage error (an option that does not apply, an output
/// format that cannot be told), a refused input, a failed conversion.
pub fn convert(input: &Path, output: &Path, options: &Options) -> Result<Converted, Error> {
    let (result, inputs) = read::collecting(|| convert_uncollected(input, output, options));
    let mut done = result?;
    done.report.inputs = inputs;
    Ok(done)
}

fn convert_uncollected(input: &Path, output: &Path, options: &Options) -> Result<Converted, Error> {
    match route(input, output, options)? {
        Route::Md5 => md5_out::convert(input, output, options),
        Route::Import => import::convert(&import::ImportArgs::new(input, output, options)),
        Route::Model => {
            let prepared = archives::prepare(input).map_err(Error::Failed)?;
            let path = prepared.as_deref().unwrap_or(input);
            let folder = path.is_dir() || (archives::is_virtual(path) && !archives::is_file(path));
            if folder && formats::md3::is_player_folder(path) {
                model::convert_player(path, output, options)
            } else if let Some(md5) = folder.then(|| model::md5_folder(path)).flatten() {
                model::convert_md5_folder(path, md5, output, options)
            } else if folder && archives::holds_any(path) == Some(false) {
                Err(Error::Failed(failure::line(path, "no such file or folder")))
            } else if folder {
                Err(Error::Usage(format!(
                    "{} is a folder of models: convert it as a batch (batch::batch)",
                    input.display()
                )))
            } else {
                model::convert_file(path, output, options)
            }
        }
    }
}

/// The [`Scene`] of any model (a file, a Quake III player folder, an `ARCHIVE:entry`,
/// an md5mesh with [`Options::anims`]) as a conversion to GLB builds it: the whole
/// model, or the frame or clip [`Options`] asks for, textures resolved. The report
/// holds the texture warnings and the inputs read.
///
/// # Errors
/// One line naming the file.
pub fn scene(path: &Path, options: &Options) -> Result<(Scene, Report), Error> {
    let (result, inputs) = read::collecting(|| model::scene(path, options));
    let (scene, mut report) = result?;
    report.inputs = inputs;
    Ok((scene, report))
}

/// Reads a model file or `ARCHIVE:entry` (regular files only, at most 1 GiB): the bytes
/// `check` and `info` look at.
///
/// # Errors
/// The one line naming the file.
pub fn read_model(path: &Path) -> Result<Vec<u8>, String> {
    archives::read_file(path).map_err(|f| failure::line(path, f))
}

/// What `idmodel info` says of `path` (a model, a side file, an OBJ, a Quake III player
/// folder, an archive, `ARCHIVE:entry`): the text, or with `json` the one-line JSON
/// object, and lines for stderr (an archive's refused entries).
///
/// # Errors
/// The one line naming the file.
pub fn info(path: &Path, json: bool) -> Result<(String, Vec<String>), String> {
    if let Some(answer) = archives::info(path, json) {
        return answer;
    }
    let prepared = archives::prepare(path)?;
    let path = prepared.as_deref().unwrap_or(path);
    if let Some(answer) = players::info_folder(path, json) {
        return answer.map(|t| (t, Vec::new()));
    }
    let bytes = read_model(path)?;
    info_report(path, &bytes, json).map(|t| (t, Vec::new()))
}

/// What `idmodel info [--json]` prints for a file named `path` holding `bytes`: the
/// text report, or with `json` the one-line JSON object. `Err` is the one-line message
/// for a refused file. `path` is used in messages and to find Quake III side files
/// (`.skin`, `animation.cfg`) beside an MD3; nothing is written.
///
/// ```
/// let text = idmodel_convert::info_report(std::path::Path::new("x.md3"), b"IDP3 too short", false);
/// assert!(text.unwrap_err().starts_with("x.md3: "));
/// ```
///
/// # Errors
/// The one line naming the file.
pub fn info_report(path: &Path, bytes: &[u8], json: bool) -> Result<String, String> {
    model::info_report(path, bytes, json)
}
