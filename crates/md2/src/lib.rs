//! # idmodel-md2
//!
//! Zero-copy, `no_std` reader and writer for Quake II MD2 models (`IDP2`, version 8),
//! following the engine's loader (`Mod_LoadAliasModel`) and renderers (`ref_gl`,
//! `ref_soft`); see docs/formats.md §2.
//!
//! * [`raw`]: the wire structs, field for field as in `qfiles.h`.
//! * [`Md2`]: the validated view. [`Md2::parse`] checks every count, offset and index
//!   once; the accessors then borrow and cannot fail.
//! * Decoding: per-frame positions (`v · scale + translate`), normals from the shared
//!   162-entry table, interpolation exactly as `GL_LerpVerts` ([`lerp_positions`]), both
//!   topologies (the software renderer's triangles + st: [`Md2::soft_mesh_into`]; the GL
//!   renderer's command list: [`Md2::gl_mesh_into`]), animation ranges from frame names
//!   ([`Md2::animations`]).
//! * Findings: [`Md2::check`] reports what Quake II ([`ENGINES`]) would refuse, overflow or render
//!   differently, without refusing to read it.
//! * Writing (feature `alloc`, on by default): [`Model`], [`write()`], [`write_into`],
//!   [`written_size`]; GL commands are generated from the triangles as Quake II's tools
//!   did ([`build_gl_commands`]).
//!
//! ## Contract
//!
//! No `unsafe`, no panics, no file I/O, and no allocation outside the `alloc`
//! conveniences: a hostile file gives an [`Error`] with a byte offset and the bad value.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use idmodel_md2::{Engine, Md2, Model};
//! let bytes = idmodel_md2::write(&Model::example())?;
//! let md2 = Md2::parse(&bytes)?;
//! assert_eq!(md2.frame_count(), 2);
//! assert_eq!(md2.skin(0).unwrap(), "models/example/skin.pcx");
//! let anims: Vec<_> = md2.animations().collect();
//! assert_eq!((anims[0].name.to_str(), anims[0].frames.clone()), (Some("stand"), 0..2));
//! assert!(md2.findings(Engine::Quake2).is_empty());
//! let gl = md2.gl_mesh();
//! assert_eq!(gl.indices.len(), 3 * md2.triangles().len());
//! # Ok(()) }
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod anim;
pub mod anm;
mod check;
mod decode;
#[cfg(feature = "alloc")]
mod owned;
pub mod raw;
mod view;

pub use anim::{Animation, Animations, frame_name_stem};
pub use anm::{Anm, AnmEntries, AnmEntry, AnmError, AnmErrorKind, AnmProblem};
pub use check::ENGINES;
pub use check::{
    Finding, FindingKind, MAX_FRAMES, MAX_LBM_HEIGHT, MAX_MD2SKINS, MAX_TRIANGLES, MAX_VERTS,
    MODEL_HUNK_SIZE,
};
#[cfg(feature = "alloc")]
pub use decode::Mesh;
pub use decode::{
    MeshSizes, MeshVertex, SizeError, lerp_positions, lerp_positions_into, lerp_positions_moving,
};
pub use idmodel_core::bytes::Name;
/// The engine and severity of every finding: idmodel-core's, shared by all formats.
pub use idmodel_core::findings::{Engine, Severity};
pub use idmodel_core::trivertx::decode_position;
pub use idmodel_core::{Error, ErrorKind, Result};
#[cfg(feature = "alloc")]
pub use owned::{FrameData, Model, WriteError, build_gl_commands, write, write_into, written_size};
pub use view::{
    FRAME_HEADER_SIZE, Frame, Frames, GlCommand, GlCommands, GlKind, HEADER_SIZE, Md2, Triangle,
};
