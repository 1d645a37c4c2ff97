//! Side files of md5 models: Cube 2 `md5.cfg` under `$IDMODEL_CORPUS/assets` (every
//! statement read, the skin and bump map lines named), and a project-made Doom 3 `.mtr`
//! with the features ASSETS.md §4.3 lists (the corpus holds no `.mtr`).
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_md5::cube2::{Cfg, Command, texture_file};
use idmodel_md5::material::{AlphaMode, DeclType, MaterialText, Node, Op};

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

const MTR: &[u8] = b"// Doom 3 style materials, made for this test.
table flicker { { 1, 0.5, 1 } }
material models/props/crate/crate
{
    qer_editorimage models/props/crate/crate_d.tga
    noShadows
    diffusemap  models/props/crate/crate_d.tga
    bumpmap     addnormals(models/props/crate/crate_local.tga, heightmap(models/props/crate/crate_h.tga, 4))
    specularmap models/props/crate/crate_s.tga
}
models/props/fence
{
    twoSided
    {
        blend diffusemap
        map models/props/fence_d.tga
        alphaTest 0.5
        clamp
    }
}
textures/glass/clear
{
    translucent
    { blend blend map textures/glass/clear.tga rgb flicker[time * 2] }
}
models/props/crate/crate { diffusemap models/props/crate/second.tga }
";

#[test]
fn project_mtr() {
    let text = MaterialText::new(MTR);
    let decls: Vec<_> = text.decls().map(Result::unwrap).collect();
    assert_eq!(decls.len(), 5);
    assert_eq!(decls[0].kind, DeclType::Table);
    // First definition wins; names compare canonically.
    let crate_ = text.find(b"Models\\Props\\Crate\\Crate.tga").unwrap();
    assert_eq!(crate_.offset, decls[1].offset);
    let m = crate_.material().unwrap();
    assert_eq!(m.failure, None);
    let g = m.gltf();
    assert_eq!(
        g.base_color.unwrap().text(),
        b"models/props/crate/crate_d.tga"
    );
    let normal = g.normal.unwrap();
    let Node::Call { op, args } = normal.node() else {
        panic!()
    };
    assert_eq!(op, Op::AddNormals);
    assert_eq!(args.count(), 2);
    assert_eq!(normal.first_image(), b"models/props/crate/crate_local.tga");
    assert_eq!(
        g.specular.unwrap().text(),
        b"models/props/crate/crate_s.tga"
    );
    assert_eq!(g.alpha, AlphaMode::Opaque);

    let fence = text
        .find(b"models/props/fence")
        .unwrap()
        .material()
        .unwrap()
        .gltf();
    assert!(fence.double_sided && fence.clamp);
    assert_eq!(
        fence.alpha,
        AlphaMode::Mask {
            cutoff: 127.5 / 255.0
        }
    );

    let glass = text
        .find(b"textures/glass/clear")
        .unwrap()
        .material()
        .unwrap();
    assert_eq!(glass.failure, None);
    assert_eq!(glass.gltf().alpha, AlphaMode::Blend);
    assert_eq!(
        glass.gltf().base_color.unwrap().text(),
        b"textures/glass/clear.tga"
    );
}
