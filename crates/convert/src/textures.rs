//! Textures of a conversion or a picture: the model's game file system found from its
//! path (and the `game` folders and archives), the scene's materials resolved through
//! `idmodel_assets::textures`, one warning line per texture not found, and for pictures
//! the PNG and JPEG images decoded.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use crate::idmodel::core::detect::Format;
use idmodel_assets::textures::{self, ModelRef, Options};
use idmodel_assets::{GameFs, Profile};
use idmodel_scene::Scene;

/// What the command asks of textures.
#[derive(Debug, Clone, Copy)]
pub struct TextureChoice<'a> {
    /// `--no-textures`: no images at all.
    pub off: bool,
    /// `--game DIR`: more game roots, searched after the model's own.
    pub game: &'a [PathBuf],
}

impl<'a> crate::formats::Choice<'a> {
    /// The texture part of the command's choices.
    pub fn textures(self) -> TextureChoice<'a> {
        TextureChoice {
            off: self.no_textures,
            game: self.game,
        }
    }
}

/// The textures module's format for a detected one (`None`: no textures to resolve).
fn format_of(format: Format) -> Option<textures::Format> {
    match format {
        Format::Mdl => Some(textures::Format::Mdl),
        Format::Md2 => Some(textures::Format::Md2),
        Format::Md3 => Some(textures::Format::Md3),
        Format::Md5Mesh => Some(textures::Format::Md5),
        _ => None,
    }
}

/// Warning lines held until the conversion knows it succeeded (a refusal is one line
/// only), then handed to the report.
#[derive(Debug, Default)]
pub struct Pending(RefCell<Vec<String>>);

impl Pending {
    /// How many textures were not found (the `N missing` of the command's line).
    pub fn not_found(&self) -> usize {
        self.0
            .borrow()
            .iter()
            .filter(|l| l.contains("warning: texture not found"))
            .count()
    }

    /// The lines held, in the order they came.
    pub fn into_lines(self) -> Vec<String> {
        self.0.into_inner()
    }
}

/// Resolves the textures of `scene`, built from the model file `model` (`bytes`,
/// `format`), keeping the warning lines in `pending`. With `--no-textures` every image
/// is removed.
pub fn apply(
    scene: &mut Scene,
    model: &Path,
    format: Format,
    bytes: &[u8],
    choice: TextureChoice<'_>,
    pending: &Pending,
) {
    if choice.off {
        strip(scene);
        return;
    }
    let Some(format) = format_of(format) else {
        strip_uris(scene);
        return;
    };
    let profile = match format {
        textures::Format::Mdl => Profile::Quake,
        textures::Format::Md2 => Profile::Quake2,
        textures::Format::Md3 => Profile::Ioq3,
        textures::Format::Md5 => Profile::Doom3,
    };
    let mut warnings = Vec::new();
    let game_fs = match crate::archives::memory_of(model) {
        // Files held in memory: they are the whole game data, seen from the model's
        // game root (the folder above its `models/`, `progs/` or `players/`).
        Some((label, files, entry)) => {
            let (root, game_path) = idmodel_assets::root::split_root(Path::new(&entry));
            let files = match root.to_str() {
                Some(r) if r != "." => files.rooted_at(r),
                _ => files,
            };
            let mut fs = GameFs::new(profile);
            fs.push_archive(idmodel_assets::Archive::memory(&label, files));
            Ok((fs, game_path))
        }
        None => GameFs::for_model(model, choice.game, profile),
    };
    match game_fs {
        Ok((files, game_path)) => {
            warnings.extend(files.warnings().iter().cloned());
            warnings.extend(textures::resolve(
                scene,
                ModelRef {
                    format,
                    game_path: &game_path,
                    bytes,
                },
                &files,
                &Options::default(),
            ));
        }
        Err(e) => {
            strip_uris(scene);
            warnings.push(format!("no textures: {e}"));
        }
    }
    pending.0.borrow_mut().extend(
        warnings
            .into_iter()
            .map(|w| format!("{}: warning: {w}", model.display())),
    );
}

/// Resolves the textures of a Quake III player assembled from the folder `dir`
/// (its parts' materials are MD3 shaders).
pub fn apply_player(scene: &mut Scene, dir: &Path, choice: TextureChoice<'_>, pending: &Pending) {
    let model = dir.join("upper.md3");
    apply(scene, &model, Format::Md3, &[], choice, pending);
}

/// For `render`: every PNG/JPEG decoded (warned when one does not decode).
pub fn decode_for_render(scene: &mut Scene, model: &Path, pending: &Pending) {
    pending.0.borrow_mut().extend(
        idmodel_assets::images::decode_scene(scene)
            .into_iter()
            .map(|w| format!("{}: warning: {w}", model.display())),
    );
}

/// Removes every image (`--no-textures`).
fn strip(scene: &mut Scene) {
    for m in &mut scene.materials {
        m.image = None;
        m.emissive = None;
        m.normal = None;
    }
}

/// Removes image references to files (never written).
fn strip_uris(scene: &mut Scene) {
    for m in &mut scene.materials {
        if matches!(m.image, Some(idmodel_scene::Image::Uri(_))) {
            m.image = None;
        }
    }
}
