//! `idmodel convert model.glb -o model.md2`: the material's image written as `model.pcx`
//! in Quake II's palette (`--palette`, or `pics/colormap.pcx` of the output's game root)
//! and referenced by its game path; `--skin-name` references a name instead; without a
//! palette, a warning and no PCX. `--fps` and `--groups` reach the MD2 / MDL writers.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use common::{code, idmodel, sample_file, scratch_dir, stderr};

/// A made-up palette (the project ships no Quake II palette): a colour ramp.
fn palette() -> Vec<u8> {
    (0..=255u8).flat_map(|i| [i, 255 - i, i / 2]).collect()
}

/// The sample MDL (its skin is in the file) as a GLB with an embedded image.
fn glb(dir: &std::path::Path) -> std::path::PathBuf {
    let glb = dir.join("m.glb");
    let o = idmodel(&[&"convert", &sample_file("mdl"), &"-o", &glb, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    glb
}

/// `idmodel convert GLB -o OUT ARGS…`.
fn convert(
    glb: &std::path::Path,
    out: &std::path::Path,
    args: &[&dyn AsRef<std::ffi::OsStr>],
) -> std::process::Output {
    let mut all: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"convert", &glb, &"-o", &out];
    all.extend_from_slice(args);
    idmodel(&all)
}

fn skins(md2: &std::path::Path) -> Vec<String> {
    let bytes = std::fs::read(md2).unwrap();
    let m = ::idmodel::md2::Md2::parse(&bytes).unwrap();
    m.skins()
        .map(|s| s.to_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn the_skin_is_written_as_a_pcx_in_the_given_palette_and_referenced() {
    let dir = scratch_dir("idmodel-md2-skin", "pcx");
    let glb = glb(&dir);
    let game = dir.join("baseq2");
    let folder = game.join("models/thing");
    std::fs::create_dir_all(&folder).unwrap();
    let pal = dir.join("q2.lmp");
    std::fs::write(&pal, palette()).unwrap();
    let out = folder.join("tris.md2");
    let o = convert(&glb, &out, &[&"--palette", &pal, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(skins(&out), ["models/thing/tris.pcx"]);
    let pcx = std::fs::read(folder.join("tris.pcx")).unwrap();
    assert_eq!(&pcx[..4], &[0x0A, 5, 1, 8]);
    assert_eq!(&pcx[pcx.len() - 768..], palette().as_slice());
    let md2 = std::fs::read(&out).unwrap();
    let m = ::idmodel::md2::Md2::parse(&md2).unwrap();
    let w = u16::from_le_bytes([pcx[8], pcx[9]]) + 1;
    let h = u16::from_le_bytes([pcx[10], pcx[11]]) + 1;
    assert_eq!(
        (i32::from(w), i32::from(h)),
        (m.skin_width(), m.skin_height())
    );

    // The game root's pics/colormap.pcx serves when no --palette is given.
    std::fs::create_dir_all(game.join("pics")).unwrap();
    std::fs::copy(folder.join("tris.pcx"), game.join("pics/colormap.pcx")).unwrap();
    std::fs::remove_file(folder.join("tris.pcx")).unwrap();
    let o = convert(&glb, &out, &[&"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(std::fs::read(folder.join("tris.pcx")).unwrap(), pcx);
}

#[test]
fn a_skin_name_is_referenced_and_no_palette_means_no_pcx() {
    let dir = scratch_dir("idmodel-md2-skin", "names");
    let glb = glb(&dir);
    let out = dir.join("named.md2");
    let o = convert(
        &glb,
        &out,
        &[&"--skin-name", &"models/x/skin.pcx", &"--force"],
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(skins(&out), ["models/x/skin.pcx"]);
    assert!(!dir.join("named.pcx").exists());
    let out = dir.join("plain.md2");
    let o = convert(&glb, &out, &[&"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("no Quake II palette"), "{}", stderr(&o));
    assert!(!dir.join("plain.pcx").exists());
    // A named palette that is not one is an error naming it.
    let bad = dir.join("bad.pal");
    std::fs::write(&bad, b"nope").unwrap();
    let o = convert(&glb, &out, &[&"--palette", &bad, &"--force"]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("bad.pal"), "{}", stderr(&o));
    // The MD2 options are refused elsewhere.
    let o = convert(&glb, &dir.join("x.mdl"), &[&"--skin-name", &"a"]);
    assert_eq!(code(&o), 2);
    let o = convert(&glb, &dir.join("x.md2"), &[&"--groups"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn fps_and_groups_reach_the_quake_writers() {
    let dir = scratch_dir("idmodel-md2-skin", "fps");
    let glb = glb(&dir);
    for ext in ["md2", "mdl"] {
        let out = dir.join(format!("f.{ext}"));
        let o = convert(&glb, &out, &[&"--fps", &"10", &"--force"]);
        assert_eq!(code(&o), 0, "{ext}: {}", stderr(&o));
    }
    let out = dir.join("g.mdl");
    let o = convert(&glb, &out, &[&"--groups", &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(::idmodel::mdl::Mdl::parse(&std::fs::read(&out).unwrap()).is_ok());
}

#[test]
fn a_pcx_the_user_has_beside_the_output_is_not_replaced() {
    let dir = scratch_dir("idmodel-md2-skin", "keep-pcx");
    let glb = glb(&dir);
    let pal = dir.join("q2.lmp");
    std::fs::write(&pal, palette()).unwrap();
    let out = dir.join("tris.md2");
    let theirs = dir.join("tris.pcx");
    std::fs::write(&theirs, b"the user's own skin").unwrap();
    // The side file is not named by -o: refused in one line, nothing written.
    // (exit 2, as every refusal to replace a file: README, exit codes)
    let o = convert(&glb, &out, &[&"--palette", &pal]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("tris.pcx"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&theirs).unwrap(), b"the user's own skin");
    assert!(!out.exists(), "the MD2 was written without its skin");
    // --force replaces it with the written skin.
    let o = convert(&glb, &out, &[&"--palette", &pal, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(&std::fs::read(&theirs).unwrap()[..4], &[0x0A, 5, 1, 8]);
}

#[test]
fn skins_no_primitive_draws_travel_as_material_variants() {
    let dir = scratch_dir("idmodel-md2-skin", "variants");
    // The sample MDL has two skins; the primitive draws the first.
    let gltf = dir.join("m.gltf");
    let o = idmodel(&[&"convert", &sample_file("mdl"), &"-o", &gltf, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&gltf).unwrap()).unwrap();
    assert_eq!(
        json["extensionsUsed"],
        serde_json::json!(["KHR_materials_variants"])
    );
    let variants = &json["extensions"]["KHR_materials_variants"]["variants"];
    assert_eq!(variants.as_array().unwrap().len(), 2);
    let mappings =
        &json["meshes"][0]["primitives"][0]["extensions"]["KHR_materials_variants"]["mappings"];
    assert_eq!(
        mappings[1],
        serde_json::json!({"material": 1, "variants": [1]})
    );
    // One skin, drawn: no variants.
    let one = dir.join("one.gltf");
    let o = idmodel(&[&"convert", &sample_file("md3"), &"-o", &one, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(&one).unwrap()).unwrap();
    assert!(json.get("extensions").is_none(), "{json}");
}

#[test]
fn a_glb_with_embedded_jpeg_skins_comes_back_byte_identical() {
    let Some(corpus) = idmodel_test_support::corpus_dir("a_glb_with_embedded_jpeg_skins") else {
        return;
    };
    let dir = scratch_dir("idmodel-md2-skin", "jpeg");
    let original = corpus.join("assets/ufoai/base/models/aliens/bloodspider/bloodspider.md2");
    let glb = dir.join("b.glb");
    let o = idmodel(&[&"convert", &original, &"-o", &glb, &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // UFO:AI's skins are JPEGs; its 1,023-texel skin height is over Quake II's.
    let back = dir.join("b.md2");
    let o = idmodel(&[&"convert", &glb, &"-o", &back, &"--unchecked", &"--force"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read(&back).unwrap() == std::fs::read(&original).unwrap());
}
