//! One module per model format, each implementing [`ModelFormat`].
//!
//! The conversion does the file handling (reading, detection, output paths); a format
//! module turns bytes into the three answers below. What turns a parsed model into a
//! scene lives in `idmodel_scene` (one module per format); a format module here reads
//! the side files, maps the [`Options`](crate::Options) to `idmodel_scene::Options`, and
//! gives `info` and `check`.

pub mod md2;
pub mod md3;
pub mod md5;
pub mod mdl;

use std::path::Path;

use crate::idmodel::Format;
pub use crate::idmodel::core::{Engine, Severity};
use idmodel_scene::{Options, Scene};

use crate::failure::Failure;
pub use crate::findings::{Finding, Location, engines, findings};
pub use crate::info::{Bounds, Info};

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

pub use crate::info::count;

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
    /// `--quantize`: the scene is for a quantized GLB.
    pub quantize: bool,
}

impl Request<'_> {
    /// The adapter options of this request (`--frame`, `--clip`, `--skin`).
    pub fn options(&self) -> Options {
        Options {
            frame: self.frame,
            clip: self.clip.map(str::to_owned),
            skin: self.skin.map(str::to_owned),
            max_bytes: self.max_bytes,
            quantized: self.quantize,
        }
    }
}

/// What `convert` and `render` were asked for beyond the files: `--frame`, `--clip`,
/// `--skin` and the texture choices.
#[derive(Debug, Clone, Copy, Default)]
pub struct Choice<'a> {
    /// `--frame N`.
    pub frame: Option<usize>,
    /// `--clip NAME`.
    pub clip: Option<&'a str>,
    /// `--skin NAME`.
    pub skin: Option<&'a str>,
    /// `--max-output BYTES`: the budget of an animated scene (`None`: the default).
    pub max_bytes: Option<u64>,
    /// `--no-textures`: no images in the output or the picture.
    pub no_textures: bool,
    /// `--keep-normals`: MD2 normals as the file has them.
    pub keep_normals: bool,
    /// `--quantize`: a quantized GLB is written.
    pub quantize: bool,
    /// `--game`: game folders and archives searched for textures below the model's own
    /// game root.
    pub game: &'a [std::path::PathBuf],
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
            quantize: self.quantize,
        }
    }
}

/// What a format module provides. Every method parses `input.bytes` afresh (the
/// readers are zero-copy, so this is cheap) and must not panic on any input.
pub trait ModelFormat: Sync {
    /// The `info` fields.
    fn info(&self, input: &Input<'_>) -> Result<Info, Failure>;

    /// Engine findings: for `engine`, or for every engine that loads the format when
    /// `None`. `Err` means the file is refused outright (it does not parse).
    fn check(&self, input: &Input<'_>, engine: Option<Engine>) -> Result<Vec<Finding>, Failure>;

    /// The model as the scene `shape` asks for (see [`Shape`]).
    fn build(&self, input: &Input<'_>, request: &Request<'_>, shape: Shape) -> Built;
}

/// What [`ModelFormat::build`] gives: the scene, or why there is none.
pub type Built = Result<Scene, Failure>;

/// Which scene of a model `convert` and `render` want.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The whole model (file axes, id winding; the glTF writer converts).
    Scene,
    /// One posed frame for `.obj` output and `render`: a still scene (one mesh, its
    /// materials, one node, identity transforms; `Scene::still`) with the parts (MDL/MD2:
    /// one; MD3: one per surface; MD5: one per mesh) holding positions, normals, UVs
    /// (`[0, 0]` = top-left of the image) and the file's clockwise winding.
    Frame,
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
