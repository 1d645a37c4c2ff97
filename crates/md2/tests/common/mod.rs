//! Shared helpers for the integration tests: finding the corpus (`corpus_dir`, `walk`,
//! `files_with_ext`), from the workspace's `idmodel-test-support` crate, and looking a
//! finding up.
#![allow(unused_imports, dead_code)] // each test binary uses a different subset

pub use idmodel_test_support::*;

use idmodel_md2::{Finding, FindingKind, Md2, Severity};

/// Whether `found` holds the finding `kind` at `severity`.
pub fn has(found: &[Finding], kind: FindingKind, severity: Severity) -> bool {
    found
        .iter()
        .any(|f| f.kind == kind && f.severity == severity)
}

/// The GL mesh draws what `gl_triangles()` lists (`GlCommand::triangle`, the strip and
/// fan order), triangle by triangle: the same command vertices at each corner. Returns
/// how many triangles were compared.
pub fn gl_mesh_draws_gl_triangles(md2: &Md2<'_>) -> usize {
    let gl = md2.gl_mesh();
    let corner = |v: &idmodel_md2::raw::GlVertex| {
        (
            u32::try_from(v.index_xyz.get()).unwrap(),
            [v.s.get().to_bits(), v.t.get().to_bits()],
        )
    };
    let expected: Vec<_> = md2.gl_triangles().map(|t| t.map(corner)).collect();
    let drawn: Vec<_> = gl
        .indices
        .chunks_exact(3)
        .map(|t| {
            [0, 1, 2].map(|k| {
                let v = &gl.vertices[usize::try_from(t[k]).unwrap()];
                (v.xyz, v.uv.map(f32::to_bits))
            })
        })
        .collect();
    assert_eq!(drawn, expected);
    drawn.len()
}
