//! Files written for an engine are checked against it: a model over the target's limits
//! is not written (exit 1, one line naming the engine, the limit and the ways out), and
//! `--unchecked` writes it anyway. The target is `--engine`, else the format's usual
//! engine (QuakeSpasm for MDL, Quake II for MD2, ioquake3 for MD3).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};

use common::{code, idmodel, scratch_dir, stderr};

/// An OBJ grid of `n` × `n` vertices (one UV each) and 2 (n - 1)² triangles.
fn grid(dir: &Path, n: usize) -> PathBuf {
    let mut obj = String::from("o grid\n");
    for y in 0..n {
        for x in 0..n {
            obj.push_str(&format!("v {x} {y} {}\n", (x * y) % 7));
            obj.push_str(&format!(
                "vt {} {}\n",
                x as f32 / (n - 1) as f32,
                y as f32 / (n - 1) as f32
            ));
        }
    }
    for y in 0..n - 1 {
        for x in 0..n - 1 {
            let a = y * n + x + 1;
            let (b, c, d) = (a + 1, a + n, a + n + 1);
            obj.push_str(&format!(
                "f {a}/{a} {b}/{b} {d}/{d}\nf {a}/{a} {d}/{d} {c}/{c}\n"
            ));
        }
    }
    let path = dir.join(format!("grid{n}.obj"));
    std::fs::write(&path, obj).unwrap();
    path
}

fn convert(args: &[&dyn AsRef<std::ffi::OsStr>]) -> (i32, String) {
    let o = idmodel(args);
    (code(&o), stderr(&o))
}

#[test]
fn a_model_over_the_target_engine_s_limits_is_not_written() {
    let dir = scratch_dir("idmodel-engine-targets", "over");
    let big = grid(&dir, 50); // 2,500 vertices: over QuakeSpasm's 2,000 and Quake II's 2,048
    for (ext, engine) in [("mdl", "quakespasm"), ("md2", "quake2")] {
        let out = dir.join(format!("big.{ext}"));
        let (c, err) = convert(&[&"convert", &big, &"-o", &out]);
        assert_eq!(c, 1, "{ext}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("{engine}: refused")), "{err}");
        assert!(err.contains("--unchecked"), "{err}");
        assert!(!out.exists(), "{ext}: written although refused");
        // Written anyway on request; `check` says what the engine would do.
        let (c, err) = convert(&[&"convert", &big, &"-o", &out, &"--unchecked"]);
        assert_eq!(c, 0, "{ext}: {err}");
        let o = idmodel(&[&"check", &"--engine", &engine, &out]);
        assert_eq!(code(&o), 1, "{ext}: check should refuse it too");
    }
    // MD3 surfaces over the engines' 999 vertices are split for the default target, and
    // the written file passes its check.
    let out = dir.join("big.md3");
    let (c, err) = convert(&[&"convert", &big, &"-o", &out]);
    assert_eq!(c, 0, "{err}");
    let o = idmodel(&[&"check", &"--engine", &"ioq3", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn the_named_engine_is_the_target() {
    let dir = scratch_dir("idmodel-engine-targets", "named");
    let mid = grid(&dir, 35); // 1,225 vertices: within QuakeSpasm's 2,000, over GLQuake's 1,024
    let out = dir.join("mid.mdl");
    let (c, err) = convert(&[&"convert", &mid, &"-o", &out]);
    assert_eq!(c, 0, "{err}");
    let out2 = dir.join("mid-gl.mdl");
    let (c, err) = convert(&[&"convert", &mid, &"-o", &out2, &"--engine", &"glquake"]);
    assert_eq!(c, 1, "{err}");
    assert!(err.contains("glquake: refused"), "{err}");
    assert!(!out2.exists());
}

#[test]
fn check_catches_a_lod_with_fewer_frames_than_lod_0() {
    let dir = scratch_dir("idmodel-engine-targets", "lods");
    let full = idmodel::md3::Model::example();
    let mut short = full.clone();
    for s in &mut short.surfaces {
        s.frames.truncate(2);
    }
    short.frames.truncate(2);
    short
        .tags
        .truncate(2 * full.tags.len() / full.frames.len().max(1));
    assert!(
        full.frames.len() > 2,
        "the example needs more than 2 frames"
    );
    std::fs::write(dir.join("x.md3"), idmodel::md3::write(&full).unwrap()).unwrap();
    std::fs::write(dir.join("x_1.md3"), idmodel::md3::write(&full).unwrap()).unwrap();
    let o = idmodel(&[&"check", &dir.join("x.md3")]);
    assert_eq!(code(&o), 0, "{}", common::stdout(&o));
    std::fs::write(dir.join("x_2.md3"), idmodel::md3::write(&short).unwrap()).unwrap();
    let o = idmodel(&[&"check", &dir.join("x.md3")]);
    let out = common::stdout(&o);
    assert_eq!(code(&o), 1, "{out}");
    assert!(
        out.contains("quake3, ioq3: hazard: LOD 2 has 2 frames but LOD 0 has 3"),
        "{out}"
    );
}

#[test]
fn pictures_are_png_and_an_empty_check_fails() {
    let dir = scratch_dir("idmodel-engine-targets", "pictures");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/sample.md2");
    let jpg = dir.join("x.jpg");
    let o = idmodel(&[&"render", &sample, &"-o", &jpg]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("name the output .png"),
        "{}",
        stderr(&o)
    );
    assert!(!jpg.exists());
    // A check of a folder without models fails: a CI gate pointed at the wrong folder.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), b"no models here").unwrap();
    let o = idmodel(&[&"check", &empty]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing was checked"), "{}", stderr(&o));
    // -o x.fbx names every output there is.
    let o = idmodel(&[&"convert", &sample, &"-o", &dir.join("x.fbx")]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(".md3, .md2, .mdl, .md5mesh"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_md2_without_gl_commands_gets_them_when_written_for_quake2() {
    let dir = scratch_dir("idmodel-engine-targets", "glcmds");
    let model = idmodel::md2::Model {
        gl_commands: false,
        ..idmodel::md2::Model::example()
    };
    let original = dir.join("bare.md2");
    std::fs::write(&original, idmodel::md2::write(&model).unwrap()).unwrap();
    let glb = dir.join("bare.glb");
    let (c, err) = convert(&[&"convert", &original, &"-o", &glb]);
    assert_eq!(c, 0, "{err}");
    // The default target: the exact file, and the hazard with its way out.
    let same = dir.join("same.md2");
    let (c, err) = convert(&[&"convert", &glb, &"-o", &same]);
    assert_eq!(c, 0, "{err}");
    assert!(
        err.contains("no GL commands") && err.contains("--engine quake2 writes one"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&same).unwrap(),
        std::fs::read(&original).unwrap()
    );
    // Written for Quake II: a list, and nothing the engine minds.
    let fixed = dir.join("fixed.md2");
    let (c, err) = convert(&[&"convert", &glb, &"-o", &fixed, &"--engine", &"quake2"]);
    assert_eq!(c, 0, "{err}");
    assert!(!err.contains("GL commands"), "{err}");
    let o = idmodel(&[&"check", &"--engine", &"quake2", &fixed]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let bytes = std::fs::read(&fixed).unwrap();
    assert!(idmodel::md2::Md2::parse(&bytes).unwrap().has_gl_commands());
}

#[test]
fn an_md3_from_a_textured_gltf_brings_its_texture_where_the_game_finds_it() {
    let dir = scratch_dir("idmodel-engine-targets", "md3-textures");
    let glb = dir.join("sample.glb");
    let (c, err) = convert(&[&"convert", &common::sample_file("mdl"), &"-o", &glb]);
    assert_eq!(c, 0, "{err}");
    let folder = dir.join("baseq3/models/thing");
    std::fs::create_dir_all(&folder).unwrap();
    let md3 = folder.join("thing.md3");
    let (c, err) = convert(&[&"convert", &glb, &"-o", &md3]);
    assert_eq!(c, 0, "{err}");
    let bytes = std::fs::read(&md3).unwrap();
    let model = idmodel::md3::Md3::parse(&bytes).unwrap();
    let shaders: Vec<String> = model
        .surfaces()
        .flat_map(|s| {
            s.shaders()
                .iter()
                .map(|sh| sh.name().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!shaders.is_empty());
    for shader in &shaders {
        assert!(
            shader.starts_with("models/thing/thing_") && shader.ends_with(".png"),
            "{shader}"
        );
        let file = dir.join("baseq3").join(shader);
        assert!(file.is_file(), "{} not written", file.display());
    }
    // Read back from its game folder, the MD3 is textured by the images written for it.
    let back = dir.join("back.glb");
    let (c, err) = convert(&[&"convert", &md3, &"-o", &back]);
    assert_eq!(c, 0, "{err}");
    assert!(!err.contains("texture not found"), "{err}");
}

#[test]
fn fit_brings_a_model_within_every_target_engine() {
    let dir = scratch_dir("idmodel-engine-targets", "fit");
    let big = grid(&dir, 50); // 2,500 vertices, 4,802 triangles: over every Quake engine
    for (ext, engine) in [
        ("mdl", "winquake"),
        ("mdl", "glquake"),
        ("mdl", "quakespasm"),
        ("md2", "quake2"),
    ] {
        let out = dir.join(format!("fit-{engine}.{ext}"));
        let (c, err) = convert(&[
            &"convert",
            &big,
            &"-o",
            &out,
            &"--fit",
            &"--engine",
            &engine,
        ]);
        assert_eq!(c, 0, "{engine}: {err}");
        assert!(
            err.contains(&format!("fitted for {engine}: 2500 → ")),
            "{err}"
        );
        assert!(err.contains("largest position change"), "{err}");
        let o = idmodel(&[&"check", &"--engine", &engine, &out]);
        assert_eq!(code(&o), 0, "{engine}: {}", stderr(&o));
    }
    // Without --engine, the format's usual engine; a model within it is left alone.
    let out = dir.join("fit.md2");
    let (c, err) = convert(&[&"convert", &big, &"-o", &out, &"--fit"]);
    assert_eq!(c, 0, "{err}");
    assert!(err.contains("fitted for quake2"), "{err}");
    let small = grid(&dir, 10);
    let out = dir.join("small.md2");
    let (c, err) = convert(&[&"convert", &small, &"-o", &out, &"--fit"]);
    assert_eq!(c, 0, "{err}");
    assert!(!err.contains("fitted"), "{err}");
}

#[test]
fn fit_thins_frames_to_the_engine_s_limit() {
    let dir = scratch_dir("idmodel-engine-targets", "fit-frames");
    // 600 frames: over Quake II's 512 (a hazard: its loader does not check).
    let mut model = idmodel::md2::Model::example();
    let base = model.frames[0].clone();
    model.frames = (0..600)
        .map(|i| {
            let mut f = base.clone();
            f.name = format!("run{i}").into_bytes();
            f.translate[2] = i as f32 * 0.01;
            f
        })
        .collect();
    let original = dir.join("long.md2");
    std::fs::write(&original, idmodel::md2::write(&model).unwrap()).unwrap();
    let glb = dir.join("long.glb");
    let (c, err) = convert(&[&"convert", &original, &"-o", &glb]);
    assert_eq!(c, 0, "{err}");
    let out = dir.join("fit.md2");
    let (c, err) = convert(&[&"convert", &glb, &"-o", &out, &"--fit"]);
    assert_eq!(c, 0, "{err}");
    assert!(err.contains("fitted for quake2: 600 → 512 frames"), "{err}");
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(idmodel::md2::Md2::parse(&bytes).unwrap().frame_count(), 512);
    let o = idmodel(&[&"check", &"--engine", &"quake2", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn textures_written_beside_an_md3_never_replace_a_user_file_or_an_input() {
    let dir = scratch_dir("idmodel-engine-targets", "md3-textures-safe");
    let glb = dir.join("s.glb");
    let (c, err) = convert(&[&"convert", &common::sample_file("mdl"), &"-o", &glb]);
    assert_eq!(c, 0, "{err}");
    // A file of the texture's name the user has: refused, untouched, nothing written.
    std::fs::write(dir.join("thing_skin_0.png"), b"mine").unwrap();
    let (c, err) = convert(&[&"convert", &glb, &"-o", &dir.join("thing.md3")]);
    assert_eq!(c, 2, "{err}");
    assert!(err.contains("thing_skin_0.png: already exists"), "{err}");
    assert_eq!(
        std::fs::read(dir.join("thing_skin_0.png")).unwrap(),
        b"mine"
    );
    assert!(!dir.join("thing.md3").exists());
    // The OBJ's own texture where the MD3's would go: an input, never written over,
    // --force or not.
    let obj = dir.join("b.obj");
    std::fs::write(
        &obj,
        "mtllib b.mtl\no b\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl crate\nf 1/1 2/2 3/3\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.mtl"), "newmtl crate\nmap_Kd b_crate.png\n").unwrap();
    let png =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sample-mdl.png"))
            .unwrap();
    std::fs::write(dir.join("b_crate.png"), &png).unwrap();
    let (c, err) = convert(&[&"convert", &obj, &"-o", &dir.join("b.md3"), &"--force"]);
    assert_eq!(c, 2, "{err}");
    assert!(err.contains("refusing to write over the input"), "{err}");
    assert_eq!(std::fs::read(dir.join("b_crate.png")).unwrap(), png);
}
