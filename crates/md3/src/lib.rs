//! # idmodel-md3
//!
//! Zero-copy, `no_std` reader and writer for Quake III MD3 models (`IDP3`, version 15),
//! and parsers for the two text files beside a Quake III player: `.skin` and
//! `animation.cfg`.
//!
//! ## Layers
//!
//! * [`raw`]: the wire structs of `qfiles.h`, field for field, with size checks.
//! * [`Md3`]: the validated view. [`Md3::parse`] checks every count, offset and index
//!   once; accessors then return slices and exact-size iterators and cannot fail.
//! * Decoding: positions ×1/64, normals engine-exact ([`NormalDecode::Exact`]) or ideal,
//!   frame interpolation as the renderer does it ([`Surface::lerp_into`]), tags
//!   ([`Md3::lerp_tag`]) and placement on tags ([`position_on_tag`]).
//! * Findings: [`Md3::check`] reports, per [`Engine`] (of [`ENGINES`]), what Quake III
//!   1.32 and ioquake3 would do with the file. Engine limits are findings, never
//!   refusals; [`Engine`] and [`Severity`] are idmodel-core's, shared by every format.
//!   [`check_lod_frames`] reports the LODs of a model (`_1`, `_2`) with fewer frames than
//!   LOD 0. Per-surface limits: [`max_verts`] / [`max_triangles`] (what both engines
//!   draw: 999 / 1999), [`max_loaded_verts`] / [`max_loaded_triangles`] (what each loads).
//! * Names only, no I/O: LOD file names ([`lod_name`]), the engine's surface names
//!   ([`EngineName`]).
//! * Text: [`Skin`] and [`AnimationCfg`], zero-copy, following the engine tokenizers;
//!   [`shader`]: `.shader` scripts, with the glTF view of a shader.
//! * Behind the `alloc` feature (on by default): the owned `Model` and the writer
//!   (`written_size`, `write_into`, `write`).
//!
//! ## Contract
//!
//! No `unsafe`, no panics (the workspace lints deny indexing, unchecked arithmetic, `as`
//! casts and `unwrap` in this crate), no allocation outside the `alloc` items, no file
//! I/O. Hostile input gives an [`Error`] with the byte offset and the bad value (or a
//! [`TextError`] with line and column).
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use idmodel_md3::{Engine, Md3, Model, NormalDecode};
//! let bytes = idmodel_md3::write(&Model::example()).unwrap();
//! let md3 = Md3::parse(&bytes).unwrap();
//! let body = md3.surface(0).unwrap();
//! let mut pos = vec![[0.0; 3]; body.num_verts()];
//! let mut nrm = vec![[0.0; 3]; body.num_verts()];
//! body.lerp_into(0, 1, 0.5, NormalDecode::Exact, &mut pos, &mut nrm).unwrap();
//! assert_eq!(pos[0], [-8.0, 0.0, 1.0]); // halfway between z = 0 and z = 2
//! assert!(md3.findings(Engine::Ioq3).iter().all(|f| f.severity != idmodel_md3::Severity::Refused));
//! assert_eq!(Model::from(md3), Model::example());
//! # }
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

mod animcfg;
mod check;
mod decode;
mod lod;
#[cfg(feature = "alloc")]
mod owned;
pub mod raw;
pub mod shader;
mod skin;
mod text;
mod view;

pub use animcfg::{
    AnimFinding, AnimFindingKind, AnimId, Animation, AnimationCfg, BodyPart, Footsteps, Gender,
    MAX_ANIMATIONS, MAX_FILE_LEN, MAX_TOTAL_ANIMATIONS, Q3Animations, REQUIRED_ANIMATIONS, RawAnim,
    RawAnims, atof, atoi,
};
#[cfg(feature = "alloc")]
pub use check::lod_frame_findings;
pub use check::{
    DRAW_MAX_TRIANGLES, DRAW_MAX_VERTS, DUPLICATE_CHECK_LIMIT, Finding, FindingKind,
    IOQ3_MAX_TRIANGLES, IOQ3_MAX_VERTS, MAX_FRAMES, MAX_LODS, MAX_SHADERS, MAX_SURFACES, MAX_TAGS,
    MAX_TRIANGLES, MAX_VERTS, ORTHONORMAL_TOLERANCE, QUAKE3_LOAD_MAX_TRIANGLES,
    QUAKE3_LOAD_MAX_VERTS, SHADER_MAX_INDEXES, SHADER_MAX_VERTEXES,
};
pub use check::{
    ENGINES, check_lod_frames, max_loaded_triangles, max_loaded_verts, max_triangles, max_verts,
};
pub use decode::{
    DecodeError, EngineName, NormalDecode, Orientation, matrix_multiply, position_on_tag,
    position_rotated_on_tag, q_rsqrt, vector_normalize,
};
/// The engine and severity of every finding: idmodel-core's, shared by all formats.
pub use idmodel_core::findings::{Engine, Severity};
pub use idmodel_core::{Error, ErrorKind, Name, Result};
pub use lod::{LodName, LodRule, LodSet, lod_name};
#[cfg(feature = "alloc")]
pub use owned::{
    FrameInfo, Model, ShaderInfo, SurfaceData, SurfaceLayout, TagInfo, Vertex, WriteError, write,
    write_into, written_size,
};
pub use raw::XYZ_SCALE;
pub use skin::{
    EntryKind, MAX_SKIN_SURFACES_IOQ3, MAX_SKIN_SURFACES_QUAKE3, MAX_SURFACE_NAME, Skin,
    SkinEntries, SkinEntry, SkinFinding, SkinFindingKind,
};
pub use text::{TextError, TextErrorKind};
pub use view::{Md3, Surface, Surfaces};
