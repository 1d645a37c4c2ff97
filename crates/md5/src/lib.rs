//! # idmodel-md5
//!
//! Reader and writer for Doom 3 MD5 (md5mesh, md5anim, md5camera).
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod anim;
pub mod camera;
mod common;
pub mod error;
pub mod findings;
pub mod lexer;
pub mod mesh;
pub mod normals;
pub mod pose;
pub mod skin;
mod text;
pub mod write;

pub use common::{MD5_VERSION, ParseOptions};
pub use error::{Expected, Found, Md5Error, Md5ErrorKind};
pub use findings::{Finding, FindingKind, Profile, Severity};
pub use text::{Chunks, Text};
