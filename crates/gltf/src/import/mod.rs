//! glTF 2.0 / GLB → [`Scene`]: the exact inverse of the exporter ([`crate::to_glb`],
//! [`crate::to_gltf`]).
//!
//! ```
//! use idmodel_gltf::import::{ImportOptions, from_glb, no_files};
//! use idmodel_gltf::{ExportOptions, to_glb};
//! use idmodel_scene::{Mesh, Node, Primitive, Scene};
//! let mut node = Node::new("triangle");
//! node.mesh = Some(0);
//! let scene = Scene {
//!     meshes: vec![Mesh {
//!         name: "triangle".into(),
//!         primitives: vec![Primitive {
//!             positions: vec![[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
//!             indices: vec![0, 1, 2],
//!             ..Primitive::default()
//!         }],
//!         ..Mesh::default()
//!     }],
//!     nodes: vec![node],
//!     ..Scene::default()
//! };
//! let glb = to_glb(&scene, &ExportOptions::default())?;
//! let back = from_glb(&glb, &ImportOptions::default(), &mut no_files)?;
//! assert_eq!(back, scene);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What is read, and how it comes back into the scene's (id) conventions:
//!
//! - **Axes and winding**: the inverse of the export's: glTF `(x, y, z)` becomes file
//!   `(z, x, y)` ([`Axes::YUp`]), or is kept with [`ImportOptions::keep_axes`]; every
//!   triangle `(a, b, c)` is stored `(a, c, b)` (glTF's counter-clockwise front faces
//!   become id's clockwise ones), unless [`ImportOptions::winding`] is
//!   [`Winding::CounterClockwise`]. Both are permutations, so an exported scene comes
//!   back bit for bit (normals and quaternions as the exporter normalised them).
//! - **Primitives**: mode 4 (triangles); strips (5) and fans (6) are triangulated;
//!   points and lines are refused naming the mesh. `POSITION`, `NORMAL`, `TEXCOORD_0`,
//!   `JOINTS_0/1` + `WEIGHTS_0/1` (zero weights dropped), morph targets (`POSITION`,
//!   `NORMAL`), `extras.targetNames`. Integer and normalised attributes are converted to
//!   floats. Sparse accessors are applied.
//! - **Nodes**: names, children, TRS or a `matrix` (decomposed into translation, rotation
//!   and scale; a shear is lost), mesh, skin, camera. The nodes the exporter adds (a
//!   camera's child turned to look down −Z, a common root for skin joints) are recognised
//!   and folded back; a camera from another tool becomes the IR's +X-looking camera on its
//!   own node. A cycle or a node with two parents is an error.
//! - **Animations**: translation, rotation, scale and weights; LINEAR and STEP are kept;
//!   **CUBICSPLINE keeps its key values and drops the tangents** (read as LINEAR).
//!   Sparse weight outputs (the exporter's form) come back as
//!   [`ChannelValues::SparseWeights`], linear in the keys; dense ones as
//!   [`ChannelValues::Weights`].
//! - **Materials and images**: name, base colour factor and texture, alpha mode and
//!   cutoff, double-sided. Embedded PNG images (a buffer view or a `data:` URI) are
//!   decoded to [`Image::Rgba8`]; an image file named by URI stays [`Image::Uri`] (what the
//!   exporter wrote), or with [`ImportOptions::read_images`] is fetched through the
//!   caller's resolver and decoded. Other embedded image types are refused.
//! - **Cameras**: perspective ones; an orthographic camera is refused.
//! - **Extras**: `scenes[0].extras` become [`Scene::extras`] ([`crate::extras::from_json`]).
//! - **Files**: no I/O. A buffer or image named by a URI other than `data:` is asked of the
//!   caller's resolver, which returns the bytes or `None` (refused): it decides what may be
//!   read ([`no_files`] allows nothing).
//!
//! **Hostile input**: errors, never panics. Every accessor is checked against its buffer
//! view (count × stride) before anything is allocated for it, indices against the vertex
//! count, node links for cycles. Decoded data is charged against a budget,
//! [`ImportOptions::max_bytes`], by default [`DEFAULT_RATIO`] × the input's size (the
//! file plus the buffers the resolver gave) + [`DEFAULT_FLOOR`]; an input needing more is
//! refused with [`ImportError::OverBudget`]. Parsing the JSON itself takes at most about
//! 32 bytes per byte of JSON (serde_json values).

mod doc;
mod image;
mod lead;
pub mod obj;
mod resampled;
mod scene;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use idmodel_scene::Scene;
#[allow(unused_imports)] // doc links
use idmodel_scene::{
    ChannelValues, Image,
    axes::{Axes, Winding},
};

/// The default budget of decoded bytes per byte of input ([`ImportOptions::max_bytes`]).
pub const DEFAULT_RATIO: u64 = 16;
/// The budget's allowance on top of [`DEFAULT_RATIO`] × the input (16 MiB).
pub const DEFAULT_FLOOR: u64 = 16 << 20;

/// A caller's file access: the bytes of the file a URI names (relative to the glTF), or
/// `None` to refuse it.
pub type Resolver<'r> = dyn FnMut(&str) -> Option<Vec<u8>> + 'r;

/// A resolver that allows no file.
pub fn no_files(_uri: &str) -> Option<Vec<u8>> {
    None
}

/// Options of the glTF → scene step.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ImportOptions {
    /// The file's axes are the scene's (the export's `Axes::Keep`, the command's
    /// `--keep-axes`); default: glTF's Y-up axes converted back to id's Z-up ones.
    pub keep_axes: bool,
    /// The winding the scene should hold (default clockwise, as every id format).
    pub winding: Winding,
    /// The most bytes of decoded data; `None`: [`DEFAULT_RATIO`] × the input +
    /// [`DEFAULT_FLOOR`].
    pub max_bytes: Option<u64>,
    /// Fetch image files named by URI through the resolver and decode them (PNG) instead
    /// of keeping them as [`Image::Uri`].
    pub read_images: bool,
}

/// Why a glTF could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportError {
    /// The file breaks a rule of glTF (a bad container, an index out of range, an
    /// accessor past its buffer view, a cycle in the node tree, …); the message says
    /// where.
    Invalid(String),
    /// A valid glTF feature this reader does not take (points or lines, an orthographic
    /// camera, a JPEG image, a file the resolver refused).
    Unsupported(String),
    /// Decoding would take more memory than the budget ([`ImportOptions::max_bytes`]).
    OverBudget {
        /// What was being read.
        what: String,
        /// Bytes it would take (with everything before it).
        need: u64,
        /// The limit.
        limit: u64,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(m) => write!(f, "invalid glTF: {m}"),
            Self::Unsupported(m) => write!(f, "unsupported glTF: {m}"),
            Self::OverBudget { what, need, limit } => write!(
                f,
                "glTF too large: {what} would bring the decoded data to {}, over the {} limit",
                idmodel_scene::human_bytes(*need),
                idmodel_scene::human_bytes(*limit)
            ),
        }
    }
}

impl core::error::Error for ImportError {}

fn budget(options: &ImportOptions, input: usize) -> doc::Budget {
    let input = u64::try_from(input).unwrap_or(u64::MAX);
    doc::Budget {
        limit: options.max_bytes.unwrap_or_else(|| {
            input
                .saturating_mul(DEFAULT_RATIO)
                .saturating_add(DEFAULT_FLOOR)
        }),
        used: 0,
    }
}

/// Reads a binary glTF (`.glb`) into a scene. Buffers and images it names by URI are
/// asked of `resolve` (see the module docs).
pub fn from_glb(
    bytes: &[u8],
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Scene, ImportError> {
    let (json, bin) = doc::split_glb(bytes)?;
    read(json, bin, bytes.len(), options, resolve)
}

/// Reads a `.gltf` JSON document into a scene; its buffers (`model.bin`) and images are
/// asked of `resolve` (see the module docs).
pub fn from_gltf(
    json: &[u8],
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Scene, ImportError> {
    read(json, None, json.len(), options, resolve)
}

/// Reads a glTF or GLB by its first bytes (`glTF` magic or JSON).
pub fn from_bytes(
    bytes: &[u8],
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Scene, ImportError> {
    if bytes.starts_with(b"glTF") {
        from_glb(bytes, options, resolve)
    } else {
        from_gltf(bytes, options, resolve)
    }
}

fn read(
    json: &[u8],
    bin: Option<&[u8]>,
    input: usize,
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Scene, ImportError> {
    // Resolved buffers count as input for the budget.
    let mut extra = 0usize;
    let mut counting = |uri: &str| {
        let got = resolve(uri);
        if let Some(b) = &got {
            extra = extra.saturating_add(b.len());
        }
        got
    };
    let mut d = doc::Doc::new(json, bin, &mut counting, budget(options, input))?;
    d.budget.limit = budget(options, input.saturating_add(extra)).limit;
    if options.max_bytes.is_some() {
        d.budget.limit = budget(options, 0).limit;
    }
    let first = lead::first_at_rest(&d.root);
    let mut scene = scene::build(&mut d, options, resolve)?;
    resampled::restore(&mut scene);
    lead::fold(&mut scene, &first);
    Ok(scene)
}
