//! Textured output from real game data (`$IDMODEL_CORPUS/assets/`, laid out as the games
//! ship it): every surface whose texture exists is textured, every GLB passes the Khronos
//! validator with 0 errors and 0 warnings, `.gltf` images are written beside it, and
//! `render` draws the textures' colours. Prints the count the README quotes.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use std::path::{Path, PathBuf};

use common::{corpus_dir, corpus_subdir, glb_json, idmodel, scratch_dir, stderr, validate};
use serde_json::Value;

/// (textured primitives, primitives) of a glTF document.
fn textured(json: &Value) -> (usize, usize) {
    let mats = json["materials"].as_array().cloned().unwrap_or_default();
    let mut n = (0, 0);
    for mesh in json["meshes"].as_array().cloned().unwrap_or_default() {
        // The MD3 tag-frames meshes carry tags, not surfaces.
        if mesh["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("frames of "))
        {
            continue;
        }
        for p in mesh["primitives"].as_array().unwrap() {
            n.1 += 1;
            let tex = p["material"]
                .as_u64()
                .and_then(|m| mats.get(m as usize))
                .is_some_and(|m| m["pbrMetallicRoughness"].get("baseColorTexture").is_some());
            n.0 += usize::from(tex);
        }
    }
    n
}

/// Converts `model` to `out`, which must succeed; returns the warnings printed.
fn convert(model: &Path, out: &Path) -> String {
    let o = idmodel(&[&"convert", &model, &"-o", &out]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}: {}",
        model.display(),
        stderr(&o)
    );
    stderr(&o)
}

#[test]
fn corpus_assets_are_textured_and_validate() {
    let Some(assets) = corpus_subdir("corpus_assets_are_textured_and_validate", "assets") else {
        return;
    };
    let dir = scratch_dir("textures", "corpus");
    let mut written: Vec<PathBuf> = Vec::new();
    let mut total = (0usize, 0usize);
    let mut report = String::new();
    let mut missing: Vec<String> = Vec::new();
    let mut case = |name: &str, model: &Path, expect_all: bool| {
        let out = dir.join(format!("{name}.glb"));
        let warnings = convert(model, &out);
        let (t, n) = textured(&glb_json(&out));
        report.push_str(&format!("{name}: {t}/{n}\n"));
        if expect_all {
            assert_eq!(
                t, n,
                "{name}: every surface textured; warnings:\n{warnings}"
            );
        } else {
            // A surface left untextured is one whose texture the data does not hold: said.
            assert!(
                t == n || warnings.contains("texture not found"),
                "{name}: {warnings}"
            );
        }
        if t < n {
            missing.push(name.to_owned());
        }
        total.0 += t;
        total.1 += n;
        written.push(out);
    };
    // OpenArena: the kyonshi player, and each part alone.
    let kyonshi = assets.join("openarena/baseoa/models/players/kyonshi");
    case("kyonshi", &kyonshi, true);
    for part in ["head", "upper", "lower"] {
        case(
            &format!("kyonshi_{part}"),
            &kyonshi.join(format!("{part}.md3")),
            true,
        );
    }
    // UFO:AI: every MD2 (`.name` skins, JPEG and PNG beside the model).
    for folder in [
        "ufoai/base/models/aliens/bloodspider",
        "ufoai/base/models/civilians/female",
    ] {
        let mut md2: Vec<PathBuf> = std::fs::read_dir(assets.join(folder))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "md2"))
            .collect();
        md2.sort();
        for m in md2 {
            let name = format!("ufoai_{}", m.file_stem().unwrap().to_string_lossy());
            case(&name, &m, false);
        }
    }
    // Cube 2: the md5meshes of the corpus in their md5.cfg folders (copied to a scratch
    // game folder: the corpus keeps meshes and folders apart).
    let md5 = corpus_dir("corpus_assets_are_textured_and_validate")
        .unwrap()
        .join("md5");
    for model in ["ffpit", "ffflag"] {
        let src = assets.join(format!("cube2/packages/models/{model}"));
        let game = dir.join(format!("cube2/packages/models/{model}"));
        std::fs::create_dir_all(&game).unwrap();
        for e in std::fs::read_dir(&src).unwrap().flatten() {
            std::fs::copy(e.path(), game.join(e.file_name())).unwrap();
        }
        let mesh = game.join(format!("{model}.md5mesh"));
        std::fs::copy(md5.join(format!("{model}.md5mesh")), &mesh).unwrap();
        case(&format!("cube2_{model}"), &mesh, true);
        let (json, _) = common::glb(&dir.join(format!("cube2_{model}.glb")));
        assert!(
            json["materials"][0].get("normalTexture").is_some(),
            "{model}: md5bumpmap"
        );
    }
    eprintln!("{report}textured surfaces: {}/{}", total.0, total.1);
    // Only UFO:AI models whose folder lacks the skin they name stay untextured.
    eprintln!("untextured (texture not in the data): {missing:?}");
    for m in &missing {
        assert!(m.starts_with("ufoai_"), "{m}");
    }
    // .gltf: the images beside it, named by relative URIs that exist.
    let gltf = dir.join("kyonshi.gltf");
    convert(&kyonshi, &gltf);
    let g: Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    for img in g["images"].as_array().unwrap() {
        let uri = img["uri"].as_str().unwrap();
        assert!(dir.join(uri).is_file(), "{uri}");
    }
    written.push(gltf);
    validate(&written);
}

/// The validator's full report must hold no warning either (`validate` checks errors).
#[test]
fn textured_glbs_have_no_validator_warnings() {
    let Some(assets) = corpus_subdir("textured_glbs_have_no_validator_warnings", "assets") else {
        return;
    };
    let Some(script) = common::validator() else {
        idmodel_test_support::skipped(
            "textured_glbs_have_no_validator_warnings",
            "node or the glTF validator is missing",
        );
        return;
    };
    let dir = scratch_dir("textures", "warnings");
    let models = [
        assets.join("openarena/baseoa/models/players/kyonshi"),
        assets.join("ufoai/base/models/aliens/bloodspider/bloodspider.md2"),
        assets.join("ufoai/base/models/civilians/female/body01.md2"),
    ];
    // A Cube 2 md5 model in its package folder (md5.cfg, PNG maps whose colour-space and
    // aspect chunks the validator reports, a normal map that needs tangents).
    let package = dir.join("packages/models/ffflag");
    std::fs::create_dir_all(&package).unwrap();
    let cube = assets.join("cube2/packages/models/ffflag");
    for f in std::fs::read_dir(&cube).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, package.join(f.file_name().unwrap())).unwrap();
    }
    let corpus = assets.parent().unwrap();
    std::fs::copy(
        corpus.join("md5/ffflag.md5mesh"),
        package.join("ffflag.md5mesh"),
    )
    .unwrap();
    let models = [models.as_slice(), &[package.join("ffflag.md5mesh")]].concat();
    let mut files = Vec::new();
    for (i, m) in models.iter().enumerate() {
        for ext in ["glb", "gltf"] {
            let out = dir.join(format!("{i}.{ext}"));
            convert(m, &out);
            files.push(out);
        }
    }
    let o = common::run_validator(&script, &files);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{report}");
    let summaries: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("errors:"))
        .collect();
    assert_eq!(summaries.len(), files.len(), "{report}");
    for l in summaries {
        assert!(l.starts_with("errors: 0 warnings: 0 "), "{l}");
    }
}

/// `render` draws the skins' colours: the kyonshi player's teal robe, gold and red shoes;
/// the untextured picture (`--no-textures`) is grey only.
#[test]
fn render_draws_the_texture_colours() {
    let Some(assets) = corpus_subdir("render_draws_the_texture_colours", "assets") else {
        return;
    };
    let dir = scratch_dir("textures", "render");
    let model = assets.join("openarena/baseoa/models/players/kyonshi");
    let tex = dir.join("tex.png");
    let plain = dir.join("plain.png");
    for (out, extra) in [(&tex, None), (&plain, Some("--no-textures"))] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&"render", &model, &"-o", out, &"--size", &"256x256"];
        if let Some(e) = &extra {
            args.push(e);
        }
        let o = idmodel(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    // Pixels that are clearly coloured (not grey): the kyonshi's teal robe and red shoes.
    let coloured = |png: &Path| {
        let mut decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
        // Palette pictures (the encoder writes ≤ 256 colours indexed) expanded to RGB.
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        // RGB or RGBA (the encoder drops alpha when the picture is opaque).
        let channels = info.line_size / info.width as usize;
        assert!(channels >= 3, "{channels} channels");
        buf[..info.buffer_size()]
            .chunks(channels)
            .filter(|p| {
                let (mx, mn) = (p[0].max(p[1]).max(p[2]), p[0].min(p[1]).min(p[2]));
                mx as i32 - mn as i32 > 40
            })
            .count()
    };
    assert!(
        coloured(&tex) > 500,
        "textured: {} coloured pixels",
        coloured(&tex)
    );
    assert_eq!(coloured(&plain), 0, "untextured is grey");
}
