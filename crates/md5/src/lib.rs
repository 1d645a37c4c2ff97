//! # idmodel-md5
//!
//! Reader and writer for Doom 3 MD5 (md5mesh, md5anim, md5camera). (This crate is being filled in by its format issue;
//! until then it only re-exports the shared core.)
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub use idmodel_core::{Error, ErrorKind, Result};
