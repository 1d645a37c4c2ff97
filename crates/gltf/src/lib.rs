//! # idmodel-gltf
//!
//! glTF 2.0 export for the models idmodel reads. (Filled in by the glTF issue.)
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use idmodel;
