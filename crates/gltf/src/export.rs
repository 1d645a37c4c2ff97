//! IR → glTF JSON + binary buffer, and the two containers (`.glb`, `.gltf` + `.bin`).
//!
//! One concept a module: the containers (`container`); the glTF document (`document`) and
//! what it is built from: the binary buffer and its accessors (`buffers`), the node graph
//! (`hierarchy`), mesh primitives (`primitive`), animations (`animation`) and PNG images
//! (`images`).

mod animation;
mod buffers;
mod container;
mod document;
mod hierarchy;
mod images;
mod primitive;
mod quantized;

pub use container::{Glb, GltfFiles, to_glb, to_glb_pieces, to_glb_pieces_reusing, to_gltf};
pub use images::{png_indexed8, png_rgba8};

use crate::ExportError;

type Result<T> = core::result::Result<T, ExportError>;
