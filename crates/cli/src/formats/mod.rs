//! One module per model format, each implementing [`ModelFormat`].
//!
//! The command does the file handling (reading, detection, output paths, progress,
//! exit codes); a format module only turns bytes into the four answers below. What
//! turns a parsed model into a scene lives in `idmodel_scene` (one module per format);
//! a format module here reads the files, maps the command's arguments to
//! `idmodel_scene::Options`, and writes `info` and `check`.

pub mod md2;
pub mod md3;
pub mod md5;
pub mod mdl;

use std::fmt;
use std::path::Path;

use idmodel::Format;
pub use idmodel::core::{Engine, Severity};
use idmodel_scene::{Options, Scene};
use serde::Serialize;

use crate::failure::Failure;

/// A file given to a format module: its path (for messages and for finding sidecar
/// files such as MD3 `.skin`/`animation.cfg`) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// Where the file was read from.
    pub path: &'a Path,
    /// What `idmodel::detect` found (MD5 modules get all three MD5 kinds).
    pub format: Format,
    /// The whole file.
    pub bytes: &'a [u8],
}

impl Input<'_> {
    /// The model's name: the file name without its extension (the format's id for a
    /// path without a file name).
    pub fn name(&self) -> String {
        self.path.file_stem().map_or_else(
            || self.format.id().to_owned(),
            |s| s.to_string_lossy().into_owned(),
        )
    }
}

/// A count as `Info` holds it (saturating).
pub fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// What a format's `check` answers about the model file: the library findings of each
/// engine of `all` asked (see [`engines`]), in engine order.
pub fn findings<F: idmodel::core::Finding>(
    all: &'static [Engine],
    only: Option<Engine>,
    of: impl FnMut(Engine) -> Vec<F>,
) -> Vec<Finding> {
    engines(all, only)
        .flat_map(of)
        .map(|f| Finding::of(&f, None))
        .collect()
}

/// What `convert` and `render` ask for beyond the file itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    /// `--anim` files (md5anim for an md5mesh), already read.
    pub anims: &'a [Input<'a>],
    /// `--frame N`: for `scene`, export only that frame (no animation); for `frame`, the
    /// frame to pose. `None`: the whole animation / the first frame (md5mesh: bind pose,
    /// or frame 0 of the first `--anim` when one is given).
    pub frame: Option<usize>,
    /// `--clip NAME`: only that clip; for `frame`, its first frame.
    pub clip: Option<&'a str>,
    /// `--skin NAME`: Quake III `<part>_NAME.skin`, an MD2/MDL skin index.
    pub skin: Option<&'a str>,
    /// `--max-output BYTES`: the budget of an animated scene (`None`: the default).
    pub max_bytes: Option<u64>,
    /// `--keep-normals`: MD2 normals as the file has them, even degenerate ones.
    pub keep_normals: bool,
}

impl Request<'_> {
    /// The adapter options of this request (`--frame`, `--clip`, `--skin`).
    pub fn options(&self) -> Options {
        Options {
            frame: self.frame,
            clip: self.clip.map(str::to_owned),
            skin: self.skin.map(str::to_owned),
            max_bytes: self.max_bytes,
        }
    }
}

/// The `info` answer; serialised as the `info --json` object (schema in the crate
/// README). Counts are as stored in the file; fields that do not apply to a format are
/// `None` and left out of the JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Info {
    /// `mdl`, `md2`, `md3`, `md5mesh`, `md5anim` or `md5camera` (`Format::id`).
    pub format: &'static str,
    /// MDL: all poses (each member of a frame group counted); MD2/MD3/md5anim/md5camera:
    /// frames; md5mesh: 0.
    pub frames: u64,
    /// MDL `numverts`, MD2 `num_xyz`, MD3/md5mesh summed over surfaces/meshes; 0 else.
    pub vertices: u64,
    /// MDL `numtris`, MD2 `num_tris`, MD3/md5mesh summed over surfaces/meshes; 0 else.
    pub triangles: u64,
    /// MDL/MD2 skin count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skins: Option<u64>,
    /// MD3 surface count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surfaces: Option<u64>,
    /// MD3 tag count (per frame).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<u64>,
    /// md5mesh mesh count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meshes: Option<u64>,
    /// md5mesh/md5anim joint count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub joints: Option<u64>,
    /// Bounds of the first frame's decoded positions (MDL: first pose; md5mesh: bind
    /// pose), file axes; `null` when the file has no positions.
    pub bounds: Option<Bounds>,
    /// Animation clip names (the names `--clip` takes); left out where the format has
    /// none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clips: Option<Vec<String>>,
    /// Named skins (Quake III: the `NAME` of the `<part>_NAME.skin` files beside the
    /// model, the names `--skin` takes); `skins` stays the MDL/MD2 count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin_names: Option<Vec<String>>,
    /// Shader names (MD3 surfaces' shaders, md5mesh meshes' shaders), each once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shaders: Option<Vec<String>>,
    /// Further human-readable facts (name, frame rate, skin names, …) for the plain
    /// `info` output; not part of the JSON.
    #[serde(skip)]
    pub details: Vec<(String, String)>,
}

/// An axis-aligned box.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bounds {
    /// Smallest x, y, z.
    pub min: [f32; 3],
    /// Largest x, y, z.
    pub max: [f32; 3],
}

impl Bounds {
    /// The bounds of `points`, `None` for no points.
    pub fn of(points: impl IntoIterator<Item = [f32; 3]>) -> Option<Bounds> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(
            Bounds {
                min: first,
                max: first,
            },
            |mut b, p| {
                for ((lo, hi), v) in b.min.iter_mut().zip(b.max.iter_mut()).zip(p) {
                    *lo = lo.min(v);
                    *hi = hi.max(v);
                }
                b
            },
        ))
    }
}

/// One engine finding of `check`: something the engine refuses, mishandles or warns
/// about. The message says where (`(at byte N)`, `(line L, column C)`) when it can.
///
/// Displayed as `engine: severity: message`, the shape of every library finding
/// (`idmodel::core::findings::display`), with the side file between engine and severity
/// when the finding is about one (`ioq3: lower_default.skin: warning: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The engine that has the problem.
    pub engine: Engine,
    /// The side file it is about (an MD3 `.skin` or `animation.cfg`), `None` for the
    /// model file itself.
    pub file: Option<String>,
    /// How bad it is.
    pub severity: Severity,
    /// The library's stable code for the kind of finding (`idmodel::core::Finding::code`).
    pub code: &'static str,
    /// Where in the file (or the side file) it is, when the finding says.
    pub location: Option<Location>,
    /// One line: what the engine does with this file and why.
    pub message: String,
}

/// Where a finding is: a byte offset and/or a 1-based line and column. Fields the
/// finding does not carry are `None` (and left out of `check --json`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Byte offset in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// 1-based line (text files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 1-based column in bytes (text files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

impl Location {
    /// The place a message names, in the shapes the libraries write: a leading
    /// `line N: ` (the Quake III `.skin` and `animation.cfg` findings), a trailing
    /// `(line L, column C)` or `(at byte N)`. `None` when it names none.
    pub fn in_message(message: &str) -> Option<Location> {
        let number = |s: &str| s.trim().parse::<u64>().ok();
        if let Some(rest) = message.strip_prefix("line ") {
            if let Some(line) = rest.split_once(':').and_then(|(n, _)| number(n)) {
                return Some(Location {
                    line: Some(line),
                    ..Location::default()
                });
            }
        }
        let inner = message.strip_suffix(')')?;
        let (_, last) = inner.rsplit_once('(')?;
        if let Some(n) = last.strip_prefix("at byte ") {
            return Some(Location {
                offset: Some(number(n)?),
                ..Location::default()
            });
        }
        let (l, c) = last.strip_prefix("line ")?.split_once(", column ")?;
        Some(Location {
            line: Some(number(l)?),
            column: Some(number(c)?),
            ..Location::default()
        })
    }
}

impl Finding {
    /// A library finding of any format, about the model or the side file `file`.
    /// The location is the one the message names ([`Location::in_message`]).
    pub fn of(f: &impl idmodel::core::Finding, file: Option<&str>) -> Finding {
        let message = f.message().to_string();
        Finding {
            engine: f.engine(),
            file: file.map(str::to_owned),
            severity: f.severity(),
            code: f.code(),
            location: Location::in_message(&message),
            message,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.engine)?;
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        write!(f, "{}: {}", self.severity, self.message)
    }
}

/// The engines of `all` (a format crate's `ENGINES`) to check: all of them, or only
/// `only` when it is one of them.
pub fn engines(all: &'static [Engine], only: Option<Engine>) -> impl Iterator<Item = Engine> {
    all.iter()
        .copied()
        .filter(move |e| only.is_none_or(|o| o == *e))
}

/// What a format module provides. Every method parses `input.bytes` afresh (the
/// readers are zero-copy, so this is cheap) and must not panic on any input.
pub trait ModelFormat: Sync {
    /// The `info` fields.
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure>;

    /// Engine findings: for `engine`, or for every engine that loads the format when
    /// `None`. `Err` means the file is refused outright (it does not parse).
    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure>;

    /// The whole model as a scene (file axes, id winding; the glTF writer converts).
    fn scene(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure>;

    /// One posed frame for `.obj` output and `render`: a still scene (one mesh, its
    /// materials, one node, identity transforms; `Scene::still`) with the parts (MDL/MD2:
    /// one; MD3: one per surface; MD5: one per mesh) holding positions, normals, UVs
    /// (`[0, 0]` = top-left of the image) and the file's clockwise winding.
    fn frame(&self, input: &Input<'_>, request: &Request<'_>) -> Result<Scene, Failure>;
}

/// The module for `format`, `None` for the files idmodel does not read.
pub fn module(format: Format) -> Option<&'static dyn ModelFormat> {
    match format {
        Format::Mdl => Some(&mdl::Mdl),
        Format::Md2 => Some(&md2::Md2),
        Format::Md3 => Some(&md3::Md3),
        Format::Md5Mesh | Format::Md5Anim | Format::Md5Camera => Some(&md5::Md5),
        _ => None,
    }
}
