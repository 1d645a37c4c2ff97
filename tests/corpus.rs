//! Cross-format corpus test: every file in `$IDMODEL_CORPUS` is recognised by
//! `idmodel::detect` as the format its folder and extension say.
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel::{Format, detect};

fn expected(path: &std::path::Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "mdl" => Some(Format::Mdl),
        "md2" => Some(Format::Md2),
        "md3" => Some(Format::Md3),
        "md5mesh" => Some(Format::Md5Mesh),
        "md5anim" => Some(Format::Md5Anim),
        "md5camera" => Some(Format::Md5Camera),
        _ => None,
    }
}

#[test]
fn every_corpus_model_is_detected() {
    let Some(dir) = common::corpus_dir("every_corpus_model_is_detected") else {
        return;
    };
    let mut checked = 0usize;
    for sub in ["mdl", "md2", "md3", "md5"] {
        for path in common::walk(&dir.join(sub)) {
            let Some(want) = expected(&path) else {
                continue;
            };
            let bytes = std::fs::read(&path).unwrap();
            assert_eq!(detect(&bytes), Some(want), "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} corpus models found");
}

#[test]
fn malformed_half_life_file_is_named() {
    let files = common::corpus_bytes("malformed_half_life_file_is_named", "malformed/mdl", "mdl");
    for (path, bytes) in files.into_iter().flatten() {
        assert_eq!(
            detect(&bytes),
            Some(Format::HalfLifeStudio),
            "{}",
            path.display()
        );
    }
}

#[test]
fn malformed_md3_symlink_stub_is_not_md3() {
    let test = "malformed_md3_symlink_stub_is_not_md3";
    let files = common::corpus_bytes(test, "malformed/md3", "md3");
    for (path, bytes) in files.into_iter().flatten() {
        assert_eq!(detect(&bytes), None, "{}", path.display());
    }
}
