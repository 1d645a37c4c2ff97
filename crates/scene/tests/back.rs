//! The way back (issue #15 items 2 and 3 for MD2 and MDL): file → scene (the export
//! adapters, which record `md2.*` / `mdl.*` extras) → file is byte-identical for every
//! corpus model; scenes without extras (or whose geometry no longer fits them) are
//! written from the geometry, within the quantisation step; engine limits refuse.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::as_conversions,
    clippy::std_instead_of_core,
    missing_docs
)]

use std::path::PathBuf;

use idmodel_md2::Md2;
use idmodel_scene::back::BackOptions;
use idmodel_scene::{Options, Scene};

fn corpus_files(test: &str, sub: &str, ext: &str) -> Vec<PathBuf> {
    let Some(dir) = idmodel_test_support::corpus_dir(test) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = idmodel_test_support::walk(&dir.join(sub))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext)))
        .collect();
    files.extend(
        idmodel_test_support::walk(&dir.join("assets"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))),
    );
    files.sort();
    files
}

fn md2_scene(bytes: &[u8]) -> Scene {
    idmodel_scene::md2::scene(&Md2::parse(bytes).unwrap(), "m", &Options::default()).unwrap()
}

#[test]
fn every_corpus_md2_comes_back_byte_identical() {
    let files = corpus_files("every_corpus_md2_comes_back_byte_identical", "md2", "md2");
    let mut same = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let scene = md2_scene(&bytes);
        let out = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(out == bytes, "{} is not byte-identical", path.display());
        same += 1;
    }
    println!("{same} MD2 files byte-identical");
    assert!(files.is_empty() || same >= 19, "{same}");
}

fn mdl_scene(bytes: &[u8]) -> Scene {
    idmodel_scene::mdl::scene(
        &idmodel_mdl::Mdl::parse(bytes).unwrap(),
        "m",
        &Options::default(),
    )
    .unwrap()
}

/// The `.mdl` entries of a Quake `.pak` (`PACK`, directory offset and length, 64-byte
/// entries of a 56-byte name, position and length).
fn pak_models(pak: &[u8]) -> Vec<(String, Vec<u8>)> {
    let word = |at: usize| i32::from_le_bytes(pak[at..at + 4].try_into().unwrap()) as usize;
    assert_eq!(&pak[..4], b"PACK");
    let (dir, len) = (word(4), word(8));
    let mut out = Vec::new();
    for e in pak[dir..dir + len].chunks_exact(64) {
        let name = String::from_utf8_lossy(&e[..56]);
        let name = name.trim_end_matches('\0').to_owned();
        let (pos, n) = (
            i32::from_le_bytes(e[56..60].try_into().unwrap()) as usize,
            i32::from_le_bytes(e[60..64].try_into().unwrap()) as usize,
        );
        if name.ends_with(".mdl") {
            out.push((name, pak[pos..pos + n].to_vec()));
        }
    }
    out
}

fn corpus_mdls(test: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = corpus_files(test, "mdl", "mdl")
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    if let Some(dir) = idmodel_test_support::corpus_dir(test) {
        for pak in idmodel_test_support::walk(&dir.join("assets"))
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pak")))
        {
            out.extend(pak_models(&std::fs::read(pak).unwrap()));
        }
    }
    out
}

#[test]
fn every_corpus_mdl_comes_back_byte_identical() {
    let files = corpus_mdls("every_corpus_mdl_comes_back_byte_identical");
    let mut same = 0;
    for (name, bytes) in &files {
        let scene = mdl_scene(bytes);
        let out = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(out == *bytes, "{name} is not byte-identical");
        same += 1;
    }
    println!("{same} MDL files byte-identical");
    assert!(files.is_empty() || same >= 24, "{same}");
}
