//! # idmodel-md3
//!
//! Reader and writer for Quake III MD3 (IDP3 version 15). (This crate is being filled in by its format issue;
//! until then it only re-exports the shared core.)
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub use idmodel_core::{Error, ErrorKind, Result};
