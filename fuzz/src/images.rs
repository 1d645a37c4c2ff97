//! The image decoders (PCX, WAL, TGA both origins, PNG, JPEG) on any bytes, with their
//! limits: never a panic, a decoded image is `width × height × 4` bytes within
//! `MAX_SIDE`; and the texture resolution with the bytes as every kind of side file
//! (skin image, `.shader`, `.mtr`, `md5.cfg`, `colormap.pcx`, `palette.lmp`), and the GLB
//! writer on what that gives and on the bytes as an embedded PNG or JPEG. (Without the
//! `cli` feature, as when `tests/sweeps.rs` includes this file, it does nothing.)

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    #[cfg(feature = "cli")]
    run_assets(data);
    #[cfg(not(feature = "cli"))]
    let _ = data;
}

#[cfg(feature = "cli")]
fn run_assets(data: &[u8]) {
    use idmodel_assets::MemFiles;
    use idmodel_assets::images::{self, MAX_SIDE, Rgba, TgaOrigin};
    use idmodel_assets::textures::{Format, ModelRef, Options, resolve};
    use idmodel_scene::{Material, Primitive, Scene};

    let sane = |r: &Rgba| {
        assert!(r.width >= 1 && r.width <= MAX_SIDE && r.height >= 1 && r.height <= MAX_SIDE);
        assert_eq!(
            r.pixels.len() as u64,
            u64::from(r.width) * u64::from(r.height) * 4
        );
    };
    if let Ok((img, _)) = images::pcx(data) {
        assert_eq!(
            img.indices.len() as u64,
            u64::from(img.width) * u64::from(img.height)
        );
        sane(&img.to_rgba(&[[1, 2, 3]; 256]).0);
    }
    if let Ok(img) = images::wal(data) {
        sane(&img.to_rgba(&[[1, 2, 3]; 256]).0);
    }
    for origin in [TgaOrigin::Ignored, TgaOrigin::Honoured] {
        if let Ok((r, _)) = images::tga(data, origin) {
            sane(&r);
        }
    }
    if let Ok(r) = images::png(data) {
        sane(&r);
    }
    if let Ok(r) = images::jpeg(data) {
        sane(&r);
    }
    // Resolution with the bytes as each side file.
    let tri = |m: usize| Primitive {
        positions: vec![[0.0; 3]; 3],
        uvs: vec![[0.0; 2]; 3],
        indices: vec![0, 1, 2],
        material: Some(m),
        ..Primitive::default()
    };
    let names = [
        "models/x/a.pcx",
        "models/x/a",
        ".a",
        "07 - Default",
        "a.png",
    ];
    let scene = Scene::still(
        "x",
        (0..names.len()).map(tri).collect(),
        names.iter().map(|n| Material::new(*n, None)).collect(),
    );
    let mut files = MemFiles::default();
    for path in [
        "models/x/a.pcx",
        "models/x/a.tga",
        "models/x/a.wal",
        "models/x/a.png",
        "models/x/a.jpg",
        "scripts/x.shader",
        "materials/x.mtr",
        "models/x/md5.cfg",
        "pics/colormap.pcx",
        "gfx/palette.lmp",
    ] {
        files.insert(path, data.to_vec());
    }
    for format in [Format::Mdl, Format::Md2, Format::Md3, Format::Md5] {
        let mut s = scene.clone();
        let model = ModelRef {
            format,
            game_path: "models/x/x.mdl",
            bytes: data,
        };
        for w in resolve(&mut s, model, &files, &Options::default()) {
            assert!(!w.contains('\n'), "a warning is one line: {w:?}");
        }
        assert_eq!(s.materials.len(), names.len());
        glb(&s);
    }
    // The bytes as an embedded PNG or JPEG, straight to the GLB writer (which drops a
    // PNG's unsupported chunks and writes tangents for a normal map).
    for mime in [idmodel_scene::Mime::Png, idmodel_scene::Mime::Jpeg] {
        let image = idmodel_scene::Image::Encoded {
            mime,
            bytes: data.to_vec(),
        };
        let mut m = Material::new("m", Some(image.clone()));
        m.normal = Some(image);
        let mut p = tri(0);
        p.normals = vec![[0.0, 0.0, 1.0]; 3];
        glb(&Scene::still("x", vec![p], vec![m]));
    }
}

/// The GLB of `scene`, when the writer takes it: a GLB container, never a panic.
#[cfg(feature = "cli")]
fn glb(scene: &idmodel_scene::Scene) {
    if let Ok(bytes) = idmodel_gltf::to_glb(scene, &idmodel_gltf::ExportOptions::default()) {
        assert_eq!(bytes.get(..4), Some(&b"glTF"[..]), "not a GLB");
    }
}
