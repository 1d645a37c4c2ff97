//! # idmodel-md2
//!
//! Reader and writer for Quake II MD2 (IDP2 version 8). (This crate is being filled in by its format issue;
//! until then it only re-exports the shared core.)
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

pub use idmodel_core::{Error, ErrorKind, Result};
