//! A project-made Doom 3 `.mtr` (the corpus holds none) with the features models use:
//! a `table` decl skipped, the `material` type word and its absence, `qer_editorimage`,
//! the `diffusemap`/`bumpmap`/`specularmap` shorthands, nested image programs
//! (`addnormals`, `heightmap`), a stage with `alphaTest` and `clamp`, `translucent` with a
//! `blend blend` stage, unmodelled keywords (`noShadows`, `rgb`) and a second definition
//! that loses to the first.
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

use idmodel_assets::textures::mtr::{AlphaMode, DeclType, MaterialText, Node, Op};

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
