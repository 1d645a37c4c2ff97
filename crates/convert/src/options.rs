//! The one options type of every conversion, and the output kinds.

use std::path::PathBuf;

use crate::idmodel::Engine;
use idmodel_scene::axes::Axes;

/// The output formats of a conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutKind {
    /// Binary glTF, one file.
    Glb,
    /// glTF JSON with a `.bin` beside it.
    Gltf,
    /// Wavefront OBJ (one frame) with `.mtl` and PNG skins beside it.
    Obj,
    /// Quake III MD3 (from glTF or OBJ).
    Md3,
    /// Quake II MD2 (from glTF or OBJ).
    Md2,
    /// Quake MDL (from glTF or OBJ).
    Mdl,
    /// Doom 3 md5mesh, with an md5anim per clip (from glTF).
    Md5mesh,
    /// A Quake III player folder: lower/upper/head.md3, `animation.cfg`, skins (from a
    /// player glTF).
    Player,
}

impl OutKind {
    /// Every kind, in the order above.
    pub const ALL: [OutKind; 8] = [
        OutKind::Glb,
        OutKind::Gltf,
        OutKind::Obj,
        OutKind::Md3,
        OutKind::Md2,
        OutKind::Mdl,
        OutKind::Md5mesh,
        OutKind::Player,
    ];

    /// The file extension (`md3` for a player's files).
    pub fn ext(self) -> &'static str {
        match self {
            OutKind::Glb => "glb",
            OutKind::Gltf => "gltf",
            OutKind::Obj => "obj",
            OutKind::Md3 => "md3",
            OutKind::Md2 => "md2",
            OutKind::Mdl => "mdl",
            OutKind::Md5mesh => "md5mesh",
            OutKind::Player => "md3",
        }
    }

    /// The kind an output file's extension names (ASCII case ignored), `None` for a
    /// name without one of ours (a player folder has none).
    pub fn from_path(path: &std::path::Path) -> Option<OutKind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "glb" => Some(OutKind::Glb),
            "gltf" => Some(OutKind::Gltf),
            "obj" => Some(OutKind::Obj),
            "md3" => Some(OutKind::Md3),
            "md2" => Some(OutKind::Md2),
            "mdl" => Some(OutKind::Mdl),
            "md5mesh" => Some(OutKind::Md5mesh),
            _ => None,
        }
    }
}

/// The LODs of an MD3 output (Quake III loads `x_1.md3` and `x_2.md3` beside `x.md3`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lods {
    /// Generate this many lower-detail models (1 or 2): `x_1.md3` with half the
    /// triangles, `x_2.md3` with a quarter (meshoptimizer's simplifier), unless `lod1` /
    /// `lod2` gives one.
    pub count: Option<u8>,
    /// LOD 1 from this glTF, used as given.
    pub lod1: Option<PathBuf>,
    /// LOD 2 from this glTF, used as given.
    pub lod2: Option<PathBuf>,
}

impl Lods {
    /// Whether any LOD is asked for.
    pub fn any(&self) -> bool {
        self.count.is_some() || self.lod1.is_some() || self.lod2.is_some()
    }
}

/// Everything a conversion can be asked beside its input and output; the default is a
/// whole model, every frame and clip, textures resolved, glTF's Y-up axes.
///
/// Options that do not apply to the input and output make [`convert`](crate::convert)
/// answer [`Error::Usage`](crate::Error::Usage), never a silent choice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// md5anim files to add as clips to an md5mesh.
    pub anims: Vec<PathBuf>,
    /// Only this frame (no animation); for OBJ, the frame to write.
    pub frame: Option<usize>,
    /// Only this clip; for OBJ, its first frame.
    pub clip: Option<String>,
    /// The skin: Quake III `<part>_NAME.skin` (default `default`); MD2/MDL: skin index.
    pub skin: Option<String>,
    /// Keep the file's Z-up axes instead of glTF's Y-up.
    pub keep_axes: bool,
    /// The output format; `None`: from the output's extension (GLB for a batch).
    pub to: Option<OutKind>,
    /// The most bytes an animated model's morph targets and keys may take (`None`: 1 GiB).
    pub max_output: Option<u64>,
    /// Morph weights as plain keys × targets floats instead of sparse accessors.
    pub dense_weights: bool,
    /// Compact GLB meshes with `KHR_mesh_quantization` (integer positions on the model's
    /// grid, byte normals): about half the size of an animated model's every-frame GLB,
    /// lossless for MD3 positions, within a fraction of the stored step for MDL and MD2.
    /// Blender, three.js, Babylon.js and the Khronos validator read it; Godot 4 and
    /// Assimp do not. GLB and glTF output only.
    pub quantize: bool,
    /// Compress the GLB's geometry and animation with `EXT_meshopt_compression`
    /// ([`crate::compress::meshopt`]): for delivery to three.js, Babylon.js and other
    /// meshoptimizer readers; Blender and Assimp cannot read it. GLB output only; every
    /// byte comes back through [`crate::compress::decompress`], which the way back
    /// applies. Not in the wasm build (meshoptimizer is C++).
    pub meshopt: bool,
    /// No images: materials keep their names and factors only.
    pub no_textures: bool,
    /// MD2: keep the file's normals even when every vertex uses one normal index.
    pub keep_normals: bool,
    /// Game folders or archives to find the model's files in, below the model's own game
    /// root; a later one overrides an earlier.
    pub game: Vec<PathBuf>,
    /// md5mesh output: where to write the md5anims, one per animation in order.
    pub anim_out: Vec<PathBuf>,
    /// glTF → id: the frame rate of the written frames.
    pub fps: Option<u32>,
    /// glTF → id: keep to this engine's limits.
    pub engine: Option<Engine>,
    /// glTF → MD3: put this in front of every shader name made from a material.
    pub shader_prefix: String,
    /// glTF → id: refuse a surface over the engine's limits instead of splitting it.
    pub no_split: bool,
    /// glTF → MD2: reference this skin instead of writing the material's image as PCX.
    pub skin_name: Option<String>,
    /// glTF → MD2: Quake II's palette (`pics/colormap.pcx`, or 768 bytes of RGB).
    pub palette: Option<PathBuf>,
    /// glTF → MDL: make every clip one frame group.
    pub groups: bool,
    /// glTF → MD3: the LODs.
    pub lods: Lods,
    /// glTF → id: write a file even when its target engine would refuse it (the target
    /// is [`Options::engine`], else the format's usual engine: QuakeSpasm for MDL, Quake
    /// II for MD2, ioquake3 for MD3, Doom 3 for md5).
    pub unchecked: bool,
    /// glTF → MDL / MD2: a model over its target engine's vertex or triangle limits is
    /// simplified until it fits (meshoptimizer on every primitive; every frame, UV and
    /// skin weight follows), and the report says what changed.
    pub fit: bool,
}

impl Options {
    /// The axes of glTF outputs and inputs.
    pub fn axes(&self) -> Axes {
        if self.keep_axes {
            Axes::Keep
        } else {
            Axes::YUp
        }
    }
}
