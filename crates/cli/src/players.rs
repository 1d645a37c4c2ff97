//! Quake III player folders in `info`, `check`, `render` and batches; what `convert`
//! says it wrote; the batch's progress labels and skip counts.

use std::fmt;
use std::path::{Path, PathBuf};

use idmodel_scene::md3::PLAYER_PARTS;
use idmodel_scene::{Image, Scene};

use crate::formats::{Input, Request, md3};
use crate::{Exit, error_line, out_line};

/// What `convert` and `render` were asked for beyond the files: `--frame`, `--clip`,
/// `--skin`, `--quiet`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Choice<'a> {
    /// `--frame N`.
    pub frame: Option<usize>,
    /// `--clip NAME`.
    pub clip: Option<&'a str>,
    /// `--skin NAME`.
    pub skin: Option<&'a str>,
    /// `--quiet`: no line on success, no progress.
    pub quiet: bool,
    /// `--max-output BYTES`: the budget of an animated scene (`None`: the default).
    pub max_bytes: Option<u64>,
    /// `--no-textures`: no images in the output or the picture.
    pub no_textures: bool,
    /// `--keep-normals`: MD2 normals as the file has them.
    pub keep_normals: bool,
}

impl<'a> Choice<'a> {
    /// The request for a format module, with the `--anim` files `anims`.
    pub fn request<'r>(self, anims: &'r [Input<'r>]) -> Request<'r>
    where
        'a: 'r,
    {
        Request {
            anims,
            frame: self.frame,
            clip: self.clip,
            skin: self.skin,
            max_bytes: self.max_bytes,
            keep_normals: self.keep_normals,
        }
    }
}

/// A byte count as a `u64`.
pub fn len(bytes: &[u8]) -> u64 {
    u64::try_from(bytes.len()).unwrap_or(u64::MAX)
}

/// A size for people: `512 bytes`, `123 KB`, `4.5 MB` (decimal units, rounded).
pub fn size(bytes: u64) -> String {
    let div = |n: u64, d: u64| n.checked_div(d).unwrap_or(0);
    if bytes < 1000 {
        format!("{bytes} bytes")
    } else if bytes < 999_500 {
        format!("{} KB", div(bytes.saturating_add(500), 1000))
    } else {
        let tenths = div(bytes.saturating_add(50_000), 100_000);
        format!(
            "{}.{} MB",
            div(tenths, 10),
            tenths.checked_rem(10).unwrap_or(0)
        )
    }
}

/// What one conversion wrote: the output, its size, and the textures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The output file.
    pub path: PathBuf,
    /// Its size in bytes (without side files).
    pub bytes: u64,
    /// Materials whose image is embedded (OBJ: written beside it as PNG).
    pub embedded: usize,
    /// Materials that name an image file that is not embedded.
    pub missing: usize,
}

impl Written {
    /// Nothing written yet to `path`.
    pub fn new(path: &Path) -> Written {
        Written {
            path: path.to_owned(),
            bytes: 0,
            embedded: 0,
            missing: 0,
        }
    }

    /// Counts the textures of the written scene.
    pub fn count_textures(&mut self, scene: &Scene) {
        for m in &scene.materials {
            match &m.image {
                Some(Image::Rgba8 { .. } | Image::Encoded { .. }) => {
                    self.embedded = self.embedded.saturating_add(1)
                }
                Some(Image::Uri(_)) => self.missing = self.missing.saturating_add(1),
                None => {}
            }
        }
    }

    /// `123 KB, 2 textures embedded, 0 missing`.
    pub fn what(&self) -> String {
        format!(
            "{}, {} texture{} embedded, {} missing",
            size(self.bytes),
            self.embedded,
            if self.embedded == 1 { "" } else { "s" },
            self.missing
        )
    }
}

/// `wrote out.glb (123 KB, 2 textures embedded, 0 missing)`.
impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "wrote {} ({})", self.path.display(), self.what())
    }
}

/// The files a folder conversion leaves out, by why.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// md5anim files: they need a mesh (`convert MESH --anim A`).
    pub md5anim: usize,
    /// Other `.md3` files of a player folder (LODs, extra parts): the folder is
    /// converted as one player from lower, upper and head.
    pub player_md3: usize,
}

impl Skipped {
    /// True when the batch leaves `path` out (counting it, unless it is one of the three
    /// parts of the player folder it is in, `in_player`, which the player conversion
    /// reads).
    pub fn skips(&mut self, path: &Path, in_player: bool) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("md5anim") => {
                self.md5anim = self.md5anim.saturating_add(1);
                true
            }
            Some("md3") if in_player => {
                let stem = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .map(str::to_ascii_lowercase);
                if !stem.is_some_and(|s| PLAYER_PARTS.contains(&s.as_str())) {
                    self.player_md3 = self.player_md3.saturating_add(1);
                }
                true
            }
            _ => false,
        }
    }

    /// How many.
    pub fn total(&self) -> usize {
        self.md5anim.saturating_add(self.player_md3)
    }
}

/// `skipped 3 (2 md5anim: need a mesh, 1 other md3 in player folders)`, `skipped 0`.
impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skipped {}", self.total())?;
        let mut why = Vec::new();
        if self.md5anim > 0 {
            why.push(format!("{} md5anim: need a mesh", self.md5anim));
        }
        if self.player_md3 > 0 {
            why.push(format!(
                "{} other md3 in player folders: converted as players",
                self.player_md3
            ));
        }
        if !why.is_empty() {
            write!(f, " ({})", why.join(", "))?;
        }
        Ok(())
    }
}

/// The progress label of `file` (a model, or a player folder) in a batch of `input`:
/// its path relative to the input folder.
pub fn progress_label(input: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(input).unwrap_or(file);
    if file.is_dir() {
        format!("{}/ (Quake III player)", rel.display())
    } else {
        rel.display().to_string()
    }
}

/// True when `path` is a Quake III player folder.
fn player_folder(path: &Path) -> bool {
    (path.is_dir() || crate::archives::is_virtual(path)) && md3::is_player_folder(path)
}

/// `info` of a player folder; `None` when `path` is not one.
pub fn info_folder(path: &Path, json: bool) -> Option<Exit> {
    if !player_folder(path) {
        return None;
    }
    let info = match md3::player_info(path) {
        Ok(i) => i,
        Err(e) => {
            error_line(format_args!("{}: {e}", path.display()));
            return Some(Exit::Failed);
        }
    };
    if json {
        match serde_json::to_string(&info) {
            Ok(j) => out_line(j),
            Err(e) => {
                error_line(format_args!("{}: cannot write JSON: {e}", path.display()));
                return Some(Exit::Failed);
            }
        }
    } else {
        let mut out = format!("{}: Quake III player '{}'", path.display(), info.name);
        let width = info.details.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in &info.details {
            out.push_str(&format!("\n  {k:<width$}  {v}"));
        }
        out_line(out);
    }
    Some(Exit::Ok)
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(1000), "1 KB");
        assert_eq!(size(123_456), "123 KB");
        assert_eq!(size(999_499), "999 KB");
        assert_eq!(size(999_500), "1.0 MB");
        assert_eq!(size(4_560_000), "4.6 MB");
    }

    #[test]
    fn skips_are_counted_with_why() {
        let mut s = Skipped::default();
        assert_eq!(s.to_string(), "skipped 0");
        assert!(s.skips(Path::new("a/walk.MD5ANIM"), false));
        assert!(!s.skips(Path::new("a/ogre.md3"), false));
        assert!(s.skips(Path::new("p/lower.md3"), true));
        assert!(s.skips(Path::new("p/lower_1.md3"), true));
        assert!(!s.skips(Path::new("p/gun.md2"), true));
        assert_eq!(
            s.to_string(),
            "skipped 2 (1 md5anim: need a mesh, 1 other md3 in player folders: converted as players)"
        );
    }

    #[test]
    fn progress_labels_are_relative_to_the_input() {
        let label = progress_label(
            Path::new("in"),
            Path::new("in/models/players/a_very_long_folder_name/weapon.md3"),
        );
        assert_eq!(label, "models/players/a_very_long_folder_name/weapon.md3");
        assert_eq!(
            progress_label(Path::new("x"), Path::new("y/z.md2")),
            "y/z.md2"
        );
    }

    #[test]
    fn written_lines_name_the_textures() {
        let mut w = Written::new(Path::new("out.glb"));
        w.bytes = 123_000;
        let mut scene = Scene::default();
        scene.materials.push(idmodel_scene::Material::new(
            "a",
            Some(Image::Uri("a.tga".into())),
        ));
        scene
            .materials
            .push(idmodel_scene::Material::new("b", None));
        w.count_textures(&scene);
        assert_eq!(
            w.to_string(),
            "wrote out.glb (123 KB, 0 textures embedded, 1 missing)"
        );
    }
}
