//! `samples/sample.md3` is made by the writer from `Model::example()`: this test keeps the
//! committed file byte-identical (set `IDMODEL_BLESS=1` to regenerate it).
// Test code: a panic is a failed assertion.
#![allow(clippy::unwrap_used, clippy::panic)]

use idmodel_md3::{Md3, Model, write};

#[test]
fn sample_is_written_by_the_writer() {
    let bytes = write(&Model::example()).unwrap();
    let committed = idmodel_test_support::assert_sample("sample.md3", &bytes);
    let m = Md3::parse(&committed).unwrap();
    assert_eq!((m.num_surfaces(), m.num_tags(), m.num_frames()), (2, 1, 3));
}
