//! Texture resolution on real game data read through the game file system: the Quake
//! `pak0.pak`'s MDLs (skins through the pak's `gfx/palette.lmp`, fullbrights as emissive)
//! and the OpenArena `.pk3` (the kyonshi's shaders and TGAs from inside the archive).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

use idmodel_assets::textures::{Format, ModelRef, Options, resolve};
use idmodel_assets::{Files, GameFs, Profile};
use idmodel_scene::Scene;
use idmodel_test_support::corpus_dir;

/// (textured primitives, primitives) of a scene.
fn count(scene: &Scene) -> (usize, usize) {
    // The MD3 tag-frames meshes carry tags, not surfaces.
    let prims: Vec<_> = scene
        .meshes
        .iter()
        .filter(|m| !m.name.starts_with(idmodel_scene::TAG_FRAMES_PREFIX))
        .flat_map(|m| &m.primitives)
        .collect();
    let t = prims
        .iter()
        .filter(|p| {
            p.material
                .and_then(|m| scene.materials.get(m))
                .is_some_and(|m| m.image.is_some())
        })
        .count();
    (t, prims.len())
}

#[test]
fn quake_pak_mdls_use_the_paks_palette_and_get_fullbright_emissives() {
    let Some(corpus) =
        corpus_dir("quake_pak_mdls_use_the_paks_palette_and_get_fullbright_emissives")
    else {
        return;
    };
    let fs =
        GameFs::for_archive(&corpus.join("assets/quake/id1/pak0.pak"), Profile::Quake).unwrap();
    let mdls: Vec<String> = fs
        .list("progs", ".mdl")
        .into_iter()
        .filter(|p| p.to_ascii_lowercase().ends_with(".mdl"))
        .collect();
    assert!(mdls.len() >= 20, "{mdls:?}");
    let (mut textured, mut total, mut glowing) = (0, 0, 0);
    for path in &mdls {
        let bytes = fs.read(path).unwrap().unwrap();
        let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
        let mut scene = idmodel_scene::mdl::scene(&mdl, path, &Default::default()).unwrap();
        let model = ModelRef {
            format: Format::Mdl,
            game_path: path,
            bytes: &bytes,
        };
        let w = resolve(&mut scene, model, &fs, &Options::default());
        assert!(w.is_empty(), "{path}: the pak holds gfx/palette.lmp: {w:?}");
        let (t, n) = count(&scene);
        textured += t;
        total += n;
        let fullbright = mdl
            .skins()
            .next()
            .and_then(|s| s.image(0))
            .is_some_and(idmodel_mdl::has_fullbrights);
        let emissive = scene
            .materials
            .first()
            .is_some_and(|m| m.emissive.is_some());
        assert_eq!(fullbright, emissive, "{path}");
        glowing += usize::from(emissive);
    }
    eprintln!(
        "pak0.pak: {} MDLs, textured surfaces {textured}/{total}, {glowing} with fullbrights",
        mdls.len()
    );
    assert_eq!(textured, total);
}

#[test]
fn openarena_pk3_kyonshi_parts_are_textured_from_the_archive() {
    let Some(corpus) = corpus_dir("openarena_pk3_kyonshi_parts_are_textured_from_the_archive")
    else {
        return;
    };
    let fs =
        GameFs::for_archive(&corpus.join("assets/openarena/kyonshi.pk3"), Profile::Ioq3).unwrap();
    let mut total = (0, 0);
    for part in ["head", "upper", "lower"] {
        let path = format!("models/players/kyonshi/{part}.md3");
        let bytes = fs.read(&path).unwrap().unwrap();
        let md3 = idmodel_md3::Md3::parse(&bytes).unwrap();
        let skin_text = fs
            .read(&format!("models/players/kyonshi/{part}_default.skin"))
            .unwrap()
            .unwrap();
        let skin = idmodel_md3::Skin::parse(&skin_text).unwrap();
        let sidecars = idmodel_scene::md3::Sidecars {
            part,
            skin: Some(skin),
            animation_cfg: None,
        };
        let mut scene =
            idmodel_scene::md3::scene_with(&md3, part, &Default::default(), &sidecars).unwrap();
        let model = ModelRef {
            format: Format::Md3,
            game_path: &path,
            bytes: &bytes,
        };
        let w = resolve(&mut scene, model, &fs, &Options::default());
        let (t, n) = count(&scene);
        assert_eq!(t, n, "{part}: {w:?}");
        total.0 += t;
        total.1 += n;
    }
    eprintln!("kyonshi.pk3: textured surfaces {}/{}", total.0, total.1);
}
