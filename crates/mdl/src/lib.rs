//! # idmodel-mdl
//!
//! Zero-copy, `no_std` reader and writer for Quake MDL (`IDPO`, version 6), the model
//! format of Quake, its source ports and the QuakeC tools.
//!
//! * [`raw`]: the wire structs of `modelgen.h`, borrowed straight from the file.
//! * [`Mdl`]: the validated view built by [`Mdl::parse`]: skins (single or group),
//!   texture coordinates, triangles, frames (single or group) and their poses, and any
//!   trailing editor block, as slices and iterators.
//! * Decoding: positions and normals ([`Pose::positions`], [`Pose::normals`]), texture
//!   coordinates by either renderer's seam rule ([`SeamRule`]), QuakeSpasm's welded
//!   mesh ([`Mdl::weld_into`]), skins to RGBA through any palette ([`skin_to_rgba`],
//!   [`Palette`]), animation timing ([`Frame::pose_at`], [`Skin::image_at`]), flags
//!   ([`Flags`]) and frame-name animations ([`Mdl::animations`]).
//! * Engine findings: [`Mdl::check`] reports what WinQuake, GLQuake and QuakeSpasm
//!   ([`ENGINES`]) would do (limits, out-of-bounds reads) as [`Finding`]s, without
//!   refusing; [`Engine`] and [`Severity`] are idmodel-core's, shared by every format.
//! * Writing (feature `alloc`): [`Model`], [`write()`], [`write_into`], [`written_size`]
//!   and [`Quantizer`].
//!
//! ## Contract
//!
//! `parse` never panics and never allocates; it refuses only what cannot be read
//! safely, with an error naming the byte offset and the value. Every accessor after it
//! is infallible. All float maths uses plain `f32` operations or `libm`.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use idmodel_mdl::{Engine, Mdl, Model, SeamRule};
//! let bytes = Model::example_groups().write().unwrap();
//! let mdl = Mdl::parse(&bytes).unwrap();
//! assert_eq!(mdl.skin_count(), 2);
//! assert!(mdl.has_frame_groups());
//! assert_eq!(mdl.pose_count(), 4);
//! let mesh = mdl.welded_mesh(SeamRule::Gl);
//! assert_eq!(mesh.indices.len(), 6);
//! assert_eq!(mesh.vertices.len(), 5); // vertex 0 is used on both sides of the seam
//! assert!(mdl.findings(Engine::QuakeSpasm).is_empty());
//! # }
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod anim;
mod check;
mod decode;
mod flags;
#[cfg(feature = "alloc")]
mod owned;
mod palette;
pub mod raw;
mod view;

pub use anim::{AnimRule, Animation, Animations, gl_skin_slot_image, split_frame_name};
pub use check::ENGINES;
pub use check::{
    Finding, FindingKind, GLQUAKE_COMMANDS_RISK_TRIS, GroupKind, MAX_POSES_GLQUAKE,
    MAX_POSES_QUAKESPASM, MAX_SKIN_HEIGHT, MAX_SKINS, MAX_TRIS_GLQUAKE, MAX_TRIS_QUAKESPASM,
    MAX_VERTS_GLQUAKE, MAX_VERTS_SOFTWARE,
};
#[cfg(feature = "alloc")]
pub use decode::WeldedMesh;
pub use decode::{SeamRule, WeldSizes, WeldTargets, WeldedVertex};
pub use flags::{Flags, Trail};
/// The engine and severity of every finding: idmodel-core's, shared by all formats.
pub use idmodel_core::findings::{Engine, Severity};
#[cfg(feature = "alloc")]
pub use owned::{
    FrameData, Model, PoseData, Quantizer, SkinData, TexCoord, Tri, write, write_into, written_size,
};
#[cfg(feature = "alloc")]
pub use palette::skin_to_rgba_vec;
pub use palette::{
    FIRST_FULLBRIGHT, Palette, QUAKE_PALETTE, SkinOptions, TRANSPARENT_INDEX, fullbright_mask,
    has_fullbrights, is_fullbright, skin_to_rgba,
};
pub use view::{AllPoses, Frame, Frames, Mdl, Pose, Poses, Skin, Skins};

pub use idmodel_core::trivertx::decode_position;
pub use idmodel_core::{Error, ErrorKind, Result};
