//! Shared helpers for the integration tests: finding the corpus (`corpus_dir`, `walk`,
//! `files_with_ext`), from the workspace's `idmodel-test-support` crate.
#![allow(unused_imports, dead_code)] // each test binary uses a different subset

pub use idmodel_test_support::*;

/// Writes one `md3Frame_t` named `name`: bounds -1..1 on every axis, origin 0, radius 2.
pub fn unit_frame(b: &mut LeBuffer, name: &str) {
    b.f32(-1.0)
        .f32(-1.0)
        .f32(-1.0) // bounds[0] (mins)
        .f32(1.0)
        .f32(1.0)
        .f32(1.0) // bounds[1] (maxs)
        .f32(0.0)
        .f32(0.0)
        .f32(0.0) // localOrigin
        .f32(2.0) // radius
        .name(name, 16); // name
}
