//! Side files of md5 models: Cube 2 `md5.cfg` under `$IDMODEL_CORPUS/assets` (every
//! statement read, the skin and bump map lines named). Doom 3 `.mtr` materials are
//! tested with their reader in idmodel-assets (`tests/mtr.rs`).
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_md5::cube2::{Cfg, Command, texture_file};

#[test]
fn every_corpus_cube2_cfg_reads() {
    let Some(dir) = common::corpus_dir("every_corpus_cube2_cfg_reads") else {
        return;
    };
    let files: Vec<_> = common::walk(&dir.join("assets"))
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n == "md5.cfg" || n == "md3.cfg")
        })
        .collect();
    assert!(files.len() >= 2);
    for path in &files {
        let text = std::fs::read(path).unwrap();
        let folder = path.parent().unwrap();
        let mut skins = 0;
        for c in Cfg::new(&text).commands() {
            match c.unwrap_or_else(|e| panic!("{}: {e}", path.display())) {
                Command::Skin { diffuse, masks, .. } => {
                    // The textures are beside the cfg, under their load commands.
                    let d = std::str::from_utf8(texture_file(diffuse.raw)).unwrap();
                    assert!(folder.join(d).is_file(), "{}: {d}", path.display());
                    let m = std::str::from_utf8(texture_file(masks.unwrap().raw)).unwrap();
                    assert!(folder.join(m).is_file(), "{}: {m}", path.display());
                    skins += 1;
                }
                Command::Bumpmap { normal, .. } => {
                    let n = std::str::from_utf8(texture_file(normal.raw)).unwrap();
                    assert!(folder.join(n).is_file(), "{}: {n}", path.display());
                }
                Command::Dir { dir, .. } => {
                    assert_eq!(dir.raw, folder.file_name().unwrap().as_encoded_bytes());
                }
                _ => {}
            }
        }
        assert_eq!(skins, 1, "{}", path.display());
    }
}
