//! Texture resolution per format over `MemFiles` (docs/game-data.md §5): what each material gets,
//! and the one warning line when nothing is found.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction)]

mod common;

use common::{palette, rgba};
use idmodel_assets::MemFiles;
use idmodel_assets::textures::{Format, ModelRef, Options, Q3Images, resolve};
use idmodel_scene::{AlphaMode, Image, Material, Mime, Primitive, Scene, Wrap};

/// A scene of one triangle per material name, as the adapters name them.
fn scene_of(names: &[&str]) -> Scene {
    let prims = (0..names.len())
        .map(|i| Primitive {
            positions: vec![[0.0; 3], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            uvs: vec![[0.0; 2]; 3],
            indices: vec![0, 1, 2],
            material: Some(i),
            ..Primitive::default()
        })
        .collect();
    let mats = names
        .iter()
        .map(|n| Material::new(*n, Some(Image::Uri((*n).into()))))
        .collect();
    Scene::still("t", prims, mats)
}

fn run(
    scene: &mut Scene,
    format: Format,
    path: &str,
    bytes: &[u8],
    files: &MemFiles,
) -> Vec<String> {
    resolve(
        scene,
        ModelRef {
            format,
            game_path: path,
            bytes,
        },
        files,
        &Options::default(),
    )
}

/// The RGBA of an image that holds pixels (an indexed one expanded).
fn pixels(image: &Option<Image>) -> Vec<u8> {
    match image.as_ref().and_then(Image::rgba8_pixels) {
        Some(px) => px.into_owned(),
        None => panic!("not pixels: {image:?}"),
    }
}

/// A palette where index i is (255 − i, 0, i).
fn other_palette() -> Vec<u8> {
    (0..=255u8).flat_map(|i| [255 - i, 0, i]).collect()
}

#[test]
fn mdl_fullbrights_become_the_emissive_texture_and_palette_lmp_is_used() {
    let mut model = idmodel_mdl::Model::example();
    let mut skin: Vec<u8> = (0u8..14).collect();
    skin.extend([224, 250]);
    model.skins = vec![idmodel_mdl::SkinData::Single(skin.clone())];
    let bytes = model.write().unwrap();
    let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
    let base = idmodel_scene::mdl::scene(&mdl, "x", &Default::default()).unwrap();

    // No gfx/palette.lmp: the bundled palette, warned; fullbrights as emissive.
    let mut scene = base.clone();
    let w = run(
        &mut scene,
        Format::Mdl,
        "progs/x.mdl",
        &bytes,
        &MemFiles::default(),
    );
    assert!(
        w.iter().any(|w| w.contains("gfx/palette.lmp not found")),
        "{w:?}"
    );
    let m = &scene.materials[0];
    assert_eq!(m.image, base.materials[0].image);
    // An MDL's skins stay palette indices: the exporter writes them indexed directly.
    assert!(matches!(m.emissive, Some(Image::Indexed8 { .. })));
    let glow = pixels(&m.emissive);
    assert_eq!(&glow[..4], &[0, 0, 0, 255], "index 0 is not fullbright");
    let q = idmodel_mdl::Palette::QUAKE;
    assert_eq!(&glow[14 * 4..14 * 4 + 3], &q.rgb(224));
    assert_eq!(&glow[15 * 4..15 * 4 + 3], &q.rgb(250));
    assert_eq!(m.emissive_factor, [1.0; 3]);

    // The game's palette.
    let mut files = MemFiles::default();
    files.insert("gfx/palette.lmp", other_palette());
    let mut scene = base.clone();
    let w = run(&mut scene, Format::Mdl, "progs/x.mdl", &bytes, &files);
    assert!(w.is_empty(), "{w:?}");
    let px = pixels(&scene.materials[0].image);
    assert_eq!(&px[4..8], &[254, 0, 1, 255]);
    assert_eq!(
        &pixels(&scene.materials[0].emissive)[14 * 4..14 * 4 + 3],
        &[31, 0, 224]
    );

    // A skin without fullbrights has no emissive texture.
    model.skins = vec![idmodel_mdl::SkinData::Single(vec![1; 16])];
    let bytes = model.write().unwrap();
    let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
    let mut scene = idmodel_scene::mdl::scene(&mdl, "x", &Default::default()).unwrap();
    run(&mut scene, Format::Mdl, "progs/x.mdl", &bytes, &files);
    assert_eq!(scene.materials[0].emissive, None);
}

#[test]
fn md2_pcx_goes_through_the_colormap_palette() {
    let mut files = MemFiles::default();
    files.insert(
        "pics/colormap.pcx",
        common::pcx(1, 1, &[0], &other_palette()),
    );
    files.insert(
        "models/tank/skin.pcx",
        common::pcx(2, 2, &[1, 2, 3, 255], &palette()),
    );
    let mut scene = scene_of(&["models/tank/skin.pcx"]);
    let w = run(&mut scene, Format::Md2, "models/tank/tris.md2", &[], &files);
    assert!(w.is_empty(), "{w:?}");
    let m = &scene.materials[0];
    let px = pixels(&m.image);
    assert_eq!(
        &px[..4],
        &[254, 0, 1, 255],
        "the colormap's index 1, not the skin's"
    );
    assert_eq!(px[15], 0, "index 255 is transparent");
    assert_eq!(m.alpha, AlphaMode::Mask(0.5));
    // Index 255's texels take a neighbour's colour: not a palette image.
    assert!(matches!(m.image, Some(Image::Rgba8 { .. })));

    // Without pics/colormap.pcx: the skin's own palette, warned.
    let mut own = MemFiles::default();
    own.insert(
        "models/tank/skin.pcx",
        common::pcx(2, 2, &[1, 2, 3, 4], &palette()),
    );
    let mut scene = scene_of(&["models/tank/skin.pcx"]);
    let w = run(&mut scene, Format::Md2, "models/tank/tris.md2", &[], &own);
    assert!(w[0].contains("pics/colormap.pcx not found"), "{w:?}");
    assert_eq!(pixels(&scene.materials[0].image), rgba());
    assert_eq!(scene.materials[0].alpha, AlphaMode::Opaque);
    // Without index 255 the skin stays indices (written as an indexed PNG directly).
    assert!(matches!(
        scene.materials[0].image,
        Some(Image::Indexed8 { .. })
    ));
}

#[test]
fn md2_wal_and_tga_skins() {
    let mut files = MemFiles::default();
    files.insert("pics/colormap.pcx", common::pcx(1, 1, &[0], &palette()));
    files.insert("models/a/skin.wal", common::wal(2, 2, &[1, 2, 3, 4]));
    files.insert("models/b/skin.tga", common::tga(2, false, false));
    let mut scene = scene_of(&["models/a/skin.wal", "models/b/skin.tga"]);
    let w = run(&mut scene, Format::Md2, "models/a/tris.md2", &[], &files);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(pixels(&scene.materials[0].image), rgba());
    assert_eq!(pixels(&scene.materials[1].image), rgba());
    // A WAL without any palette is not drawn (warned).
    let mut nopal = MemFiles::default();
    nopal.insert("models/a/skin.wal", common::wal(2, 2, &[1, 2, 3, 4]));
    let mut scene = scene_of(&["models/a/skin.wal"]);
    let w = run(&mut scene, Format::Md2, "models/a/tris.md2", &[], &nopal);
    assert_eq!(scene.materials[0].image, None);
    assert!(w.iter().any(|w| w.contains("without a palette")), "{w:?}");
}

#[test]
fn ufoai_dot_names_are_found_in_the_models_folder_with_the_engines_extensions() {
    let mut files = MemFiles::default();
    let jpg = common::jpeg([10, 200, 10]);
    files.insert("models/aliens/spider/spider.jpg", jpg.clone());
    files.insert("models/aliens/spider/spider2.png", common::png());
    let mut scene = scene_of(&[".spider", ".spider2", ".missing"]);
    let w = run(
        &mut scene,
        Format::Md2,
        "models/aliens/spider/spider.md2",
        &[],
        &files,
    );
    assert_eq!(
        scene.materials[0].image,
        Some(Image::Encoded {
            mime: Mime::Jpeg,
            bytes: jpg
        }),
        "JPEG kept byte for byte"
    );
    assert!(matches!(
        scene.materials[1].image,
        Some(Image::Encoded {
            mime: Mime::Png,
            ..
        })
    ));
    assert_eq!(scene.materials[2].image, None, "never a dangling URI");
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("\".missing\"") && w[0].contains("models/aliens/spider/missing.png"),
        "{w}",
        w = w[0]
    );
}

#[test]
fn md2_skin_not_at_its_game_path_is_found_beside_the_model_with_a_warning() {
    let mut files = MemFiles::default();
    files.insert("models/rock/rock_col.png", common::png());
    let mut scene = scene_of(&["rock_col.png", "E:\\art\\rock_col.png"]);
    let w = run(&mut scene, Format::Md2, "models/rock/tris.md2", &[], &files);
    assert!(scene.materials.iter().all(|m| m.image.is_some()));
    assert!(w.iter().any(|w| w.contains("beside the model")), "{w:?}");
}

#[test]
fn unused_materials_are_not_resolved_and_lose_their_uri() {
    let mut files = MemFiles::default();
    files.insert("a.tga", common::tga(2, false, false));
    let mut scene = scene_of(&["a.tga"]);
    scene
        .materials
        .push(Material::new("a.tga", Some(Image::Uri("a.tga".into()))));
    run(&mut scene, Format::Md2, "t.md2", &[], &files);
    assert!(scene.materials[0].image.is_some());
    assert_eq!(scene.materials[1].image, None);
}

const SHADER: &[u8] = b"// player shaders
models/p/hair
{
\tcull disable
\t{
\t\tmap models/p/hair.tga
\t\trgbGen lightingDiffuse
\t\talphaFunc GE128
\t}
}
models/p/visor
{
\t{
\t\tclampmap models/p/visor.tga
\t\tblendFunc GL_SRC_ALPHA GL_ONE_MINUS_SRC_ALPHA
\t}
}
models/p/anim
{
\t{
\t\tanimMap 2 models/p/f1.tga models/p/f2.tga
\t\talphaFunc GT0
\t}
}
";

#[test]
fn md3_shader_scripts_give_image_alpha_clamp_and_culling() {
    let mut files = MemFiles::default();
    files.insert("scripts/player.shader", SHADER.to_vec());
    files.insert("models/p/hair.tga", common::tga(2, true, false));
    files.insert("models/p/visor.tga", common::tga(2, false, false));
    files.insert("models/p/f1.tga", common::tga(3, false, false));
    let mut scene = scene_of(&["models/p/hair.tga", "models/p/visor", "models/p/anim"]);
    let w = run(&mut scene, Format::Md3, "models/p/upper.md3", &[], &files);
    assert!(w.is_empty(), "{w:?}");
    let [hair, visor, anim] = &scene.materials[..] else {
        panic!()
    };
    assert_eq!(hair.alpha, AlphaMode::Mask(0.5));
    assert!(hair.double_sided);
    assert_eq!(pixels(&hair.image)[7], 128, "the TGA's alpha is kept");
    assert_eq!(
        (visor.alpha, visor.wrap, visor.double_sided),
        (AlphaMode::Blend, Wrap::Clamp, false)
    );
    assert_eq!(anim.alpha, AlphaMode::Mask(0.5 / 255.0));
    assert!(anim.image.is_some(), "animMap's first frame");
}

#[test]
fn md3_implicit_images_follow_the_engines_extension_fallback() {
    let mut files = MemFiles::default();
    files.insert("models/w/gun.png", common::png());
    files.insert("models/w/grip.jpg", common::jpeg([1, 2, 3]));
    let names = ["models/w/gun.tga", "models/w/grip"];
    // ioq3: any known extension.
    let mut scene = scene_of(&names);
    let w = run(&mut scene, Format::Md3, "models/w/w.md3", &[], &files);
    assert!(w.is_empty(), "{w:?}");
    assert!(scene.materials.iter().all(|m| m.image.is_some()));
    assert_eq!(scene.materials[0].alpha, AlphaMode::Opaque);
    // Vanilla: .tga, then .jpg only.
    let mut scene = scene_of(&names);
    let w = resolve(
        &mut scene,
        ModelRef {
            format: Format::Md3,
            game_path: "models/w/w.md3",
            bytes: &[],
        },
        &files,
        &Options {
            q3: Q3Images::Vanilla,
            ..Options::default()
        },
    );
    assert_eq!(scene.materials[0].image, None);
    assert!(
        scene.materials[1].image.is_some(),
        "grip → grip.tga → grip.jpg"
    );
    assert_eq!(w.len(), 1);
    assert!(
        w[0].contains("models/w/gun.tga, models/w/gun.jpg"),
        "{}",
        w[0]
    );
}

const MTR: &[u8] = b"
models/m/body
{
    qer_editorimage models/m/body_d.tga
    twoSided
    diffusemap models/m/body_d.tga
    bumpmap addnormals( models/m/body_local.tga, heightmap( models/m/body_h.tga, 4 ) )
    specularmap models/m/body_s.tga
}
models/m/fence
{
    {
        blend diffusemap
        map models/m/fence.tga
        alphaTest 0.5
    }
}
";

#[test]
fn md5_doom3_materials_diffuse_bump_with_green_flip_alpha_test() {
    let mut files = MemFiles::default();
    files.insert("materials/m.mtr", MTR.to_vec());
    files.insert("models/m/body_d.tga", common::tga(2, false, false));
    files.insert("models/m/body_local.tga", common::tga(2, false, false));
    files.insert("models/m/fence.jpg", common::jpeg([9, 9, 9]));
    let mut scene = scene_of(&["models/m/body", "models/m/fence"]);
    let w = run(&mut scene, Format::Md5, "models/m/m.md5mesh", &[], &files);
    assert!(w.is_empty(), "{w:?}");
    let body = &scene.materials[0];
    assert_eq!(pixels(&body.image), rgba());
    let n = pixels(&body.normal);
    let flipped: Vec<u8> = rgba()
        .chunks(4)
        .flat_map(|p| [p[0], 255 - p[1], p[2], p[3]])
        .collect();
    assert_eq!(n, flipped, "green inverted");
    assert!(body.double_sided);
    let fence = &scene.materials[1];
    assert!(fence.image.is_some(), "fence.tga missing: fence.jpg");
    assert_eq!(fence.alpha, AlphaMode::Mask(127.5 / 255.0));
}

#[test]
fn md5_image_file_shaders_cube2_cfg_and_the_implicit_material() {
    let mut files = MemFiles::default();
    files.insert("models/bob/guard1_body.png", common::png());
    files.insert(
        "packages/models/pit/md5.cfg",
        b"md5dir \"pit\"\nmd5load \"pit.md5mesh\"\nmd5skin pit \"<dds>pit_cc.png\" \"<dds>pit_sc.png\"\nmd5bumpmap pit \"<dds>pit_nm.png\"\n"
            .to_vec(),
    );
    files.insert("packages/models/pit/pit_cc.png", common::png());
    files.insert("packages/models/pit/pit_nm.png", common::png());
    files.insert("models/q/decal.tga", common::tga(2, false, false));

    let mut bob = scene_of(&["guard1_body.png"]);
    let w = run(&mut bob, Format::Md5, "models/bob/bob.md5mesh", &[], &files);
    assert!(w.is_empty(), "{w:?}");
    assert!(matches!(
        bob.materials[0].image,
        Some(Image::Encoded { .. })
    ));

    let mesh = b"MD5Version 10\nmesh {\n\t// meshes: pit\n\tshader \"07 - Default\"\n}\n";
    let mut pit = scene_of(&["07 - Default"]);
    let w = run(
        &mut pit,
        Format::Md5,
        "packages/models/pit/pit.md5mesh",
        mesh,
        &files,
    );
    assert!(w.is_empty(), "{w:?}");
    assert!(pit.materials[0].image.is_some());
    assert!(pit.materials[0].normal.is_some(), "md5bumpmap");

    let mut implicit = scene_of(&["models/q/decal", "models/q/none"]);
    let w = run(
        &mut implicit,
        Format::Md5,
        "models/q/q.md5mesh",
        &[],
        &files,
    );
    let m = &implicit.materials[0];
    assert_eq!(
        (m.alpha, m.wrap),
        (AlphaMode::Blend, Wrap::Clamp),
        "Doom 3's implicit material"
    );
    assert_eq!(implicit.materials[1].image, None);
    assert_eq!(w.len(), 1);
    assert!(w[0].contains("models/q/none.tga"), "{}", w[0]);
}

#[test]
fn a_texture_matched_only_without_case_is_found_and_warned_of() {
    let mut files = MemFiles::default();
    files.insert("models/b/Skin.TGA", common::tga(2, false, false));
    files.insert("models/c/skin.tga", common::tga(2, false, false));
    let mut scene = scene_of(&["models/b/skin.tga", "models/c/skin.tga"]);
    let w = run(&mut scene, Format::Md2, "models/b/tris.md2", &[], &files);
    assert_eq!(
        pixels(&scene.materials[0].image),
        rgba(),
        "found, as the engine finds it"
    );
    assert_eq!(pixels(&scene.materials[1].image), rgba());
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with(
            "models/b/skin.tga: found as models/b/Skin.TGA, a match only without case"
        ),
        "{w:?}"
    );
}
