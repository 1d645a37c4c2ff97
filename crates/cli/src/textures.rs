//! Textures for `convert` and `render`: the model's game file system found from its
//! path, the scene's materials resolved through `idmodel_assets::textures`, one warning
//! line per texture not found (stderr; `--quiet` silences), and for `render` the PNG and
//! JPEG images decoded.

use std::path::{Path, PathBuf};

use idmodel::core::detect::Format;
use idmodel_assets::Files;
use idmodel_assets::textures::{self, ModelRef, Options};
use idmodel_scene::Scene;

use crate::error_line;

/// What the command asks of textures.
#[derive(Debug, Clone, Copy)]
pub struct TextureChoice<'a> {
    /// `--no-textures`: no images at all.
    pub off: bool,
    /// `--quiet`: no warning lines.
    pub quiet: bool,
    /// `--game DIR`: more game roots, searched after the model's own.
    pub game: &'a [PathBuf],
}

impl TextureChoice<'_> {
    /// The same, with the warnings printed (`render` has no `--quiet`).
    pub fn loud(self) -> Self {
        Self {
            quiet: false,
            ..self
        }
    }
}

impl<'a> crate::players::Choice<'a> {
    /// The texture part of the command's choices.
    pub fn textures(self) -> TextureChoice<'a> {
        TextureChoice {
            off: self.no_textures,
            quiet: self.quiet,
            game: &[],
        }
    }
}

/// Loose game folders, searched in order, names compared ASCII case-insensitively (each
/// path component matched against the folder's entries), never leaving the root.
pub struct LooseFiles {
    roots: Vec<PathBuf>,
}

impl LooseFiles {
    /// The folders `roots`, first searched first.
    pub fn new(roots: Vec<PathBuf>) -> Self {
        Self { roots }
    }

    /// The host path of game path `path` under `root`, if a file is there.
    fn find(root: &Path, path: &str) -> Option<PathBuf> {
        let mut at = root.to_path_buf();
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
        for part in &parts {
            if *part == "." || *part == ".." || part.contains(':') {
                return None;
            }
            let exact = at.join(part);
            if exact.exists() {
                at = exact;
                continue;
            }
            let lower = part.to_ascii_lowercase();
            let hit = std::fs::read_dir(&at)
                .ok()?
                .flatten()
                .find(|e| e.file_name().to_string_lossy().to_ascii_lowercase() == lower)?;
            at = hit.path();
        }
        (!parts.is_empty() && at.is_file()).then_some(at)
    }
}

impl Files for LooseFiles {
    fn read(&self, path: &str) -> Result<Option<Vec<u8>>, String> {
        for root in &self.roots {
            if let Some(p) = Self::find(root, path) {
                return std::fs::read(&p)
                    .map(Some)
                    .map_err(|e| format!("{}: {e}", p.display()));
            }
        }
        Ok(None)
    }

    fn list(&self, dir: &str, ext: &str) -> Vec<String> {
        let ext = ext.to_ascii_lowercase();
        let mut out: Vec<String> = Vec::new();
        for root in &self.roots {
            let folder = if dir.is_empty() {
                Some(root.clone())
            } else {
                let mut at = root.clone();
                let mut ok = true;
                for part in dir.split('/') {
                    let lower = part.to_ascii_lowercase();
                    match std::fs::read_dir(&at).ok().and_then(|rd| {
                        rd.flatten()
                            .find(|e| e.file_name().to_string_lossy().to_ascii_lowercase() == lower)
                    }) {
                        Some(e) => at = e.path(),
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                ok.then_some(at)
            };
            let Some(folder) = folder else { continue };
            let Ok(rd) = std::fs::read_dir(&folder) else {
                continue;
            };
            let mut names: Vec<String> = rd
                .flatten()
                .filter(|e| e.path().is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.to_ascii_lowercase().ends_with(&ext))
                .collect();
            names.sort();
            for n in names {
                let p = if dir.is_empty() {
                    n
                } else {
                    format!("{dir}/{n}")
                };
                if !out.iter().any(|o| o.eq_ignore_ascii_case(&p)) {
                    out.push(p);
                }
            }
        }
        out
    }
}

/// The game root of a model file and its game path: the folder above the last `models/`
/// or `progs/` folder in the model's path (else the last `players/`, Quake II's),
/// case-insensitive; else the model's own folder.
pub fn root_of(model: &Path) -> (PathBuf, String) {
    let abs = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
    let parts: Vec<String> = abs
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let named = |names: &[&str]| {
        parts
            .iter()
            .rposition(|p| names.contains(&p.to_ascii_lowercase().as_str()))
    };
    // `models/players/x` is under `models`; Quake II's `players/x` under `players`.
    let marker = named(&["models", "progs"]).or_else(|| named(&["players"]));
    match marker {
        Some(i) if i > 0 => {
            let root: PathBuf = parts.iter().take(i).collect();
            let game = parts.get(i..).unwrap_or_default().join("/");
            (root, game)
        }
        _ => {
            let root = abs
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let name = abs
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (root, name)
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

/// Resolves the textures of `scene`, built from the model file `model` (`bytes`,
/// `format`), printing the warnings unless quiet. With `--no-textures` every image is
/// removed.
pub fn apply(
    scene: &mut Scene,
    model: &Path,
    format: Format,
    bytes: &[u8],
    choice: TextureChoice<'_>,
) {
    if choice.off {
        strip(scene);
        return;
    }
    let Some(format) = format_of(format) else {
        strip_uris(scene);
        return;
    };
    let (root, game_path) = root_of(model);
    let mut roots = vec![root];
    roots.extend(choice.game.iter().cloned());
    let files = LooseFiles::new(roots);
    let warnings = textures::resolve(
        scene,
        ModelRef {
            format,
            game_path: &game_path,
            bytes,
        },
        &files,
        &Options::default(),
    );
    if !choice.quiet {
        for w in warnings {
            error_line(format_args!("{}: warning: {w}", model.display()));
        }
    }
}

/// Resolves the textures of a Quake III player assembled from the folder `dir`
/// (its parts' materials are MD3 shaders).
pub fn apply_player(scene: &mut Scene, dir: &Path, choice: TextureChoice<'_>) {
    let model = dir.join("upper.md3");
    apply(scene, &model, Format::Md3, &[], choice);
}

/// For `render`: every PNG/JPEG decoded (warned when one does not decode).
pub fn decode_for_render(scene: &mut Scene, model: &Path, quiet: bool) {
    for w in idmodel_assets::images::decode_scene(scene) {
        if !quiet {
            error_line(format_args!("{}: warning: {w}", model.display()));
        }
    }
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
