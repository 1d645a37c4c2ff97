//! # idmodel
//!
//! Zero-copy, `no_std` readers and writers for id Software's classic model formats:
//! Quake MDL, Quake II MD2, Quake III MD3 and Doom 3 MD5 (`.md5mesh`, `.md5anim`,
//! `.md5camera`).
//!
//! This facade re-exports one crate per format, each behind a feature of the same name
//! (all on by default), plus the shared [`core`] crate, and offers [`detect`] to tell
//! what a buffer holds, including the common files that share an extension with these
//! formats but are something else (Half-Life `.mdl`, 3D GameStudio `.mdl`, …).
//!
//! ```
//! use idmodel::{detect, Format};
//! assert_eq!(detect(b"IDP3\x0f\x00\x00\x00"), Some(Format::Md3));
//! assert_eq!(detect(b"IDST\x0a\x00\x00\x00"), Some(Format::HalfLifeStudio));
//! assert!(!Format::HalfLifeStudio.is_supported());
//! assert_eq!(detect(b"MD5Version 10\ncommandline \"\"\nnumFrames 3\nnumJoints 2"),
//!            Some(Format::Md5Anim));
//! assert_eq!(detect(b"hello"), None);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use idmodel_core as core;
#[cfg(feature = "md2")]
pub use idmodel_md2 as md2;
#[cfg(feature = "md3")]
pub use idmodel_md3 as md3;
#[cfg(feature = "md5")]
pub use idmodel_md5 as md5;
#[cfg(feature = "mdl")]
pub use idmodel_mdl as mdl;

pub use idmodel_core::detect::{Format, detect};
pub use idmodel_core::{Error, ErrorKind};

/// The README's code examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
