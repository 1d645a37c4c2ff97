//! Corpus tests for UFO:AI `.anm` clip tables: every `.anm` under
//! `$IDMODEL_CORPUS/assets` parses, every clip is one the engine loads for the MD2 beside
//! it, and the bloodspider's table reads as its text says.
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_md2::{Anm, Md2};

#[test]
fn every_corpus_anm_parses_and_fits_its_model() {
    let Some(files) = common::corpus_ext_files(
        "every_corpus_anm_parses_and_fits_its_model",
        "assets",
        "anm",
    ) else {
        return;
    };
    assert!(
        files.len() >= 6,
        "expected the UFO:AI .anm files, found {}",
        files.len()
    );
    let mut clips = 0;
    for path in &files {
        let text = std::fs::read(path).unwrap();
        let anm = Anm::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!anm.is_empty(), "{}", path.display());
        assert_eq!(anm.ignored(), 0, "{}", path.display());
        let model = std::fs::read(path.with_extension("md2")).unwrap();
        let md2 = Md2::parse(&model).unwrap();
        for e in anm.entries() {
            assert_eq!(
                e.check(md2.frames().len()),
                None,
                "{}: {e:?}",
                path.display()
            );
            let clip = e.clip().unwrap();
            assert!(clip.frames.end <= md2.frames().len() + 1);
            assert!(e.rate() > 0.0 && e.rate().is_finite());
            clips += 1;
        }
    }
    assert!(clips > 50, "{clips} clips");
}

#[test]
fn bloodspider_table() {
    let Some(dir) = common::corpus_dir("bloodspider_table") else {
        return;
    };
    let path = dir.join("assets/ufoai/base/models/aliens/bloodspider/bloodspider.anm");
    let text = std::fs::read(path).unwrap();
    let anm = Anm::parse(&text).unwrap();
    // 108 words outside comments: 27 clips.
    assert_eq!(anm.len(), 27);
    let first = anm.entries().next().unwrap();
    assert_eq!(first.name, "walk0");
    assert_eq!(
        (first.first, first.last, first.fps, first.line),
        (0, 32, 50.0, 9)
    );
    assert_eq!(first.clip().unwrap().frames, 0..33);
    let dead = anm.entries().find(|e| e.name == "dead1").unwrap();
    assert_eq!(dead.clip().unwrap().frames, 83..84);
    assert_eq!(dead.frame_time_ms(), 100_000);
}
