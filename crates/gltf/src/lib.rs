//! # idmodel-gltf
//!
//! glTF 2.0 export and import of an [`idmodel_scene::Scene`], the format-independent
//! scene the adapters of `idmodel-scene` build from each id format and write back. This
//! crate knows nothing of the formats: Scene → glTF/GLB (export), and glTF/GLB (and
//! OBJ) → Scene for the way back (import).
//!
//! ```text
//! format crate ──idmodel-scene adapter──▶ Scene (file axes, id winding) ──to_glb / to_gltf──▶ glTF 2.0
//! glTF 2.0 / GLB / OBJ ──import──▶ Scene ──idmodel-scene way back──▶ format crate writer
//! ```
//!
//! The exporter does every glTF-specific step, so adapters stay short:
//! - **axes**: Z-up id files become Y-up glTF, `(x, y, z) → (y, z, x)`, or are kept
//!   ([`idmodel_scene::axes::Axes`]); applied to positions, normals, morph displacements, node transforms,
//!   animation values and inverse bind matrices;
//! - **winding**: the id games' clockwise front faces become glTF's counter-clockwise ones
//!   ([`idmodel_scene::axes::Winding`]);
//! - **validity**: unit normals and quaternions, normalised joint weights (at most 8 per
//!   vertex, in `JOINTS_0/WEIGHTS_0` and `_1`), `POSITION` and key-time `min`/`max`,
//!   bufferView targets, 16-bit indices where they fit, 4-byte alignment, PNG encoding of
//!   embedded images, a common root for skin joints, cameras turned to look down −Z;
//!   anything the Khronos validator would reject (a non-finite float, an index out of
//!   range, decreasing key times, …) is an [`ExportError`] instead of a file.
//! - **morph weights, linear in the frames**: the morph adapters (MDL, MD2, MD3) key one
//!   target per frame (`ChannelValues::SparseWeights`), and the exporter stores such a
//!   channel's output as a glTF **sparse accessor** (core glTF 2.0, "Sparse Accessors":
//!   no buffer view, only the non-zero weights and their indices), so a file of `F`
//!   frames holds `O(F)` weight bytes instead of the `F × (F − 1)` floats of the plain
//!   form. Clients that read sparse accessors include three.js (`GLTFLoader`), Babylon.js,
//!   Blender's glTF importer and the Khronos validator; they expand the weights to the
//!   dense form in memory when they load. [`ExportOptions::dense_weights`] (the command's
//!   `--dense-weights`) writes the plain form for other clients, refused over
//!   [`ExportOptions::max_bytes`];
//! - **compact meshes on request**: [`ExportOptions::quantize`] writes
//!   `KHR_mesh_quantization` (integer positions on one grid per mesh, exact on a
//!   power-of-two grid such as MD3's; byte normals by the rule of
//!   [`idmodel_scene::quantize`]), which the importer reads back into the same scene;
//! - **finite numbers only**: no NaN or infinity reaches a file. The adapters replace the
//!   non-finite values they read (0 for positions, displacements and texture
//!   coordinates; the up axis for normals), the formats' `check` reports them, and any
//!   that reach the exporter anyway are refused, as the OBJ writer refuses them;
//!
//! ```
//! use idmodel_gltf::{ExportOptions, to_glb};
//! use idmodel_scene::{Mesh, Node, Primitive, Scene};
//! let tri = Primitive {
//!     positions: vec![[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
//!     indices: vec![0, 1, 2],
//!     ..Primitive::default()
//! };
//! let mut node = Node::new("triangle");
//! node.mesh = Some(0);
//! let scene = Scene {
//!     meshes: vec![Mesh { name: "triangle".into(), primitives: vec![tri], ..Mesh::default() }],
//!     nodes: vec![node],
//!     ..Scene::default()
//! };
//! let glb = to_glb(&scene, &ExportOptions::default())?;
//! assert_eq!(&glb[..4], b"glTF");
//! # Ok::<(), idmodel_gltf::ExportError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

mod axes;
mod error;
mod export;
pub mod extras;
mod graph;
mod json;
mod png;

pub use axes::ExportOptions;
pub use error::ExportError;
pub use export::{
    Glb, GltfFiles, png_indexed8, png_rgba8, to_glb, to_glb_pieces, to_glb_pieces_reusing, to_gltf,
};
pub mod import;
