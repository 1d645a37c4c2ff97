//! # idmodel-core
//!
//! The small shared core of [idmodel](https://docs.rs/idmodel): everything the format
//! crates (`idmodel-mdl`, `idmodel-md2`, `idmodel-md3`, `idmodel-md5`) have in common.
//!
//! * [`error`]: the positioned, `Copy` error type of the binary readers.
//! * [`bytes`]: bounds-checked little-endian reading over zerocopy wire structs, file
//!   counts, NUL-padded names.
//! * [`anorms`]: the 162-entry vertex normal table of MDL and MD2, and its encoder.
//! * [`trivertx`]: id's packed vertex of MDL and MD2 and its decode.
//! * [`anim`]: frame-name clips, the one animation shape of the MDL and MD2 crates.
//! * [`number`]: C's `atof` for the decimal forms of the engines' text side files.
//! * [`md3_normal`]: the MD3 lat/long normal codec, engine-exact and ideal.
//! * [`quat`]: Doom 3's quaternion and joint maths, operation for operation.
//! * [`vec`]: small vector and quaternion helpers (axes to quaternion, rigid matrices).
//! * [`shading`]: the GL blend factors and glTF alpha mode of Quake III shaders and
//!   Doom 3 materials.
//! * [`detect`]: what a buffer holds (the four formats and their common impostors).
//! * [`findings`]: the one vocabulary of engine findings ([`Severity`], [`Engine`], the
//!   [`Finding`] trait and its one display shape), and a fixed-capacity collector.
//!
//! ## Contract
//!
//! `#![no_std]`, no allocation, no `unsafe`, and no panics: the workspace denies
//! indexing, unchecked arithmetic, `as` casts and `unwrap` in library code. All float
//! maths goes through `libm`, so every build (with or without `std`, on any target)
//! gives the same bits.
//!
//! ```
//! use idmodel_core::{anorms, md3_normal};
//! let up = md3_normal::decode_exact(0);
//! assert!(up[2] > 0.999998); // the engine's table never quite reaches 1
//! assert_eq!(anorms::anorm(0), Some([-0.525731, 0.0, 0.850651]));
//! assert_eq!(anorms::ANORMS.len(), 162);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod anim;
pub mod anorms;
pub mod bytes;
pub mod detect;
pub mod error;
pub mod findings;
pub mod md3_normal;
pub mod number;
pub mod quat;
pub mod shading;
pub mod trivertx;
pub mod vec;

pub use bytes::{Cursor, Name};
pub use error::{Error, ErrorKind, Result};
pub use findings::{Engine, Finding, Severity};
