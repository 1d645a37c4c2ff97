//! # idmodel-md5
//!
//! Reader and writer for Doom 3's MD5 text formats — `.md5mesh`, `.md5anim` and
//! `.md5camera` — read exactly as the engine reads them (docs/formats.md §4).
//!
//! * [`lexer`]: Doom's `idLexer` over bytes: zero-copy tokens, the engine's number
//!   accumulation (`f64`, then `f32`, bit for bit), octal `010`, the `/* */` comment that
//!   swallows the next character (§4.1; [`lexer::CommentRule::Strict`] beside it),
//!   joined md5mesh strings, `-` as a separate token, `+`/`1E5`/`1.#IND`/commas refused.
//! * [`mesh`], [`anim`], [`camera`]: `parse` validates without allocating and returns a
//!   view whose iterators borrow names from the text; `Model`, `Anim`, `Camera` (feature
//!   `alloc`) are the owned forms, with writers through `core::fmt::Write` such that
//!   `parse(write(x)) == x`.
//! * [`cube2`]: Cube 2's `md5.cfg` / `md3.cfg` model configs (skins, bump maps, clips).
//! * [`skinning`]: vertex positions from weights, as Doom's `TransformVerts` computes them.
//! * [`pose`]: frame → parent-relative → model-space joints, Doom's slerp between frames,
//!   `ConvertTimeToFrame`, optional root-motion extraction, and the mesh/anim
//!   compatibility report.
//! * [`normals`]: Doom 3's normals and tangents (§4.6) beside area-weighted
//!   normals.
//! * [`check`]: what Doom accepts but a modder should know (a comment that eats a
//!   digit, frame rate 0, biases that do not add up …), as [`Finding`]s in idmodel-core's
//!   vocabulary ([`Engine`], [`Severity`]) shared by every format.
//!
//! Quaternions are kept in Doom's stored form `(x, y, z)` with `w = +√|1 − x² − y² − z²|`;
//! Doom applies the *conjugate* (§4.5). [`mesh::Joint::standard_quat`] gives the usual
//! `q·v·q⁻¹` form, and both put a vertex at the same place:
//!
//! ```
//! use idmodel_core::quat::{doom_rotate, rotate};
//! let text = b"MD5Version 10 commandline \"\" numJoints 1 numMeshes 0
//!              joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0.70710677 ) }";
//! let file = idmodel_md5::mesh::parse(text)?;
//! let joint = file.joints().next().unwrap();
//! let doom = doom_rotate(joint.quat(), [1.0, 0.0, 0.0]);
//! let usual = rotate(joint.standard_quat(), [1.0, 0.0, 0.0]);
//! assert!((doom[1] + 1.0).abs() < 1e-6 && (usual[1] + 1.0).abs() < 1e-6); // +X → −Y
//! # Ok::<(), idmodel_md5::Md5Error>(())
//! ```
//!
//! ## Contract
//!
//! `#![no_std]`, no `unsafe`, no panics (the workspace lints deny indexing, unchecked
//! arithmetic, `as` casts and `unwrap` in library code), no file I/O, and no allocation
//! on the parsing paths: counts read from a file never size a buffer. Errors carry the
//! byte offset, line and column (computed only when an error is built), what was
//! expected and what was found.
// The unit tests (each module's `mod tests`) may unwrap, index and compare floats: a
// panic there is a failed assertion. The library itself is linted without this.
#![cfg_attr(
    test,
    allow(
        clippy::float_cmp,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unwrap_used
    )
)]
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod anim;
pub mod camera;
pub mod check;
pub mod cube2;
pub mod error;
pub mod lexer;
pub mod mesh;
pub mod normals;
mod parse;
pub mod pose;
pub mod skinning;
mod text;
mod types;
mod whitespace;
pub mod write;

pub use check::{ENGINES, Engine, Finding, FindingKind, Severity};
pub use error::{Expected, Found, Md5Error, Md5ErrorKind};
pub use parse::{MD5_VERSION, ParseOptions};
pub use text::{Chunks, Text};
