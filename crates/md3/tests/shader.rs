//! Corpus tests for Quake III `.shader` scripts: every script under
//! `$IDMODEL_CORPUS/assets` loads in ioq3, every definition parses without an engine
//! failure, and the OpenArena kyonshi shaders map to glTF as docs/game-data.md §3.9 says.
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

mod common;

use idmodel_md3::shader::{AlphaMode, Cull, ShaderText, StageImage};

#[test]
fn every_corpus_shader_parses() {
    let Some(files) = common::corpus_ext_files("every_corpus_shader_parses", "assets", "shader")
    else {
        return;
    };
    assert!(!files.is_empty());
    let mut n = 0;
    for path in &files {
        let text = std::fs::read(path).unwrap();
        let script = ShaderText::new(&text);
        script
            .validate_ioq3()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for def in script.entries() {
            let shader = def.unwrap().parse().unwrap();
            assert_eq!(shader.failure, None, "{}", path.display());
            assert!(shader.num_stages() > 0);
            n += 1;
        }
    }
    assert!(n >= 30, "{n} shaders");
}

#[test]
fn kyonshi_shaders_to_gltf() {
    let Some(dir) = common::corpus_dir("kyonshi_shaders_to_gltf") else {
        return;
    };
    let text =
        std::fs::read(dir.join("assets/openarena/baseoa/scripts/player_kyonshi.shader")).unwrap();
    let script = ShaderText::new(&text);
    let shader = |name: &[u8]| script.find(name).unwrap().parse().unwrap();
    let hair = shader(b"models/players/kyonshi/hair");
    assert_eq!(hair.cull, Cull::TwoSided);
    let g = hair.gltf();
    assert_eq!(g.image, Some(&b"models/players/kyonshi/hair.tga"[..]));
    assert_eq!(g.alpha, AlphaMode::Mask { cutoff: 0.5 });
    assert!(g.double_sided);

    // Torso: the opaque first stage is the base; the environment stage is skipped.
    let torso = shader(b"MODELS/PLAYERS/KYONSHI/TORSO");
    assert_eq!(torso.num_stages(), 3);
    let g = torso.gltf();
    assert_eq!(
        (g.stage, g.alpha, g.double_sided),
        (Some(0), AlphaMode::Opaque, false)
    );

    // `$whiteimage` first: the base is the second stage, whose dst-colour blend has no
    // glTF form.
    let crap = shader(b"models/players/kyonshi/skincrap");
    assert_eq!(crap.stages()[0].image, Some(StageImage::White));
    let g = crap.gltf();
    assert_eq!(g.stage, Some(1));
    assert!(g.approximate);

    // A blended sleeve.
    let sleeve = shader(b"models/players/kyonshi/sleeve");
    let g = sleeve.gltf();
    assert_eq!((g.alpha, g.double_sided), (AlphaMode::Blend, true));
    assert_eq!(sleeve.stages()[0].alpha_gen, Some(&b"wave"[..]));
}
