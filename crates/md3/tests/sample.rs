//! `samples/sample.md3` is made by the writer from `Model::example()`: this test keeps the
//! committed file byte-identical (set `IDMODEL_BLESS=1` to regenerate it).
// Test code: a panic is a failed assertion.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use idmodel_md3::{Md3, Model, write};

#[test]
fn sample_is_written_by_the_writer() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.md3");
    let bytes = write(&Model::example()).unwrap();
    if std::env::var_os("IDMODEL_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &bytes).unwrap();
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with IDMODEL_BLESS=1)", path.display()));
    assert!(
        committed == bytes,
        "samples/sample.md3 differs from the writer's output"
    );
    let m = Md3::parse(&committed).unwrap();
    assert_eq!((m.num_surfaces(), m.num_tags(), m.num_frames()), (2, 1, 3));
}
