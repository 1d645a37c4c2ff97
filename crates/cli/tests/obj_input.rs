//! OBJ as a static source: `idmodel convert x.obj -o x.md3|.md2|.mdl|.glb` and `info x.obj`.
//! An OBJ the command writes from an MD3 comes back as that MD3's frame 0 (positions within
//! the 1/64 step, the same texture coordinates, triangles and shaders); a hand-written OBJ
//! with quads, negative indices and a PNG texture converts to every target.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use common::{code, idmodel, info_json, scratch_dir, stderr, stdout};
use idmodel::md3::Md3;

fn run_ok(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let o = idmodel(args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    stdout(&o)
}

/// Surfaces of an MD3's frame 0: (shader, positions, texture coordinates, triangles).
type Surface = (Vec<u8>, Vec<[f32; 3]>, Vec<[f32; 2]>, Vec<[u32; 3]>);

fn surfaces(bytes: &[u8]) -> Vec<Surface> {
    let m = Md3::parse(bytes).unwrap();
    m.surfaces()
        .map(|s| {
            let shader = s
                .shaders()
                .first()
                .map(|x| x.name.split(|&b| b == 0).next().unwrap().to_vec())
                .unwrap_or_default();
            (
                shader,
                s.positions(0).unwrap().collect(),
                s.tex_coords().collect(),
                s.indices().collect(),
            )
        })
        .collect()
}

#[test]
fn md3_through_obj_comes_back_within_the_step() {
    let dir = scratch_dir("idmodel-obj-input", "md3_through_obj");
    let files = common::sample_and_corpus("md3_through_obj", "md3", 10);
    let mut checked = 0;
    for (i, f) in files.iter().enumerate() {
        let obj = dir.join(format!("{i}.obj"));
        let back = dir.join(format!("{i}.md3"));
        run_ok(&[&"convert", f, &"-o", &obj, &"--force", &"-q"]);
        run_ok(&[&"convert", &obj, &"-o", &back, &"--force", &"-q"]);
        let a = surfaces(&std::fs::read(f).unwrap());
        let b = surfaces(&std::fs::read(&back).unwrap());
        // The writer leaves out surfaces without triangles, the reader vertices no
        // triangle uses: compare the files where neither happens.
        let used = |s: &Surface| {
            let mut u = vec![false; s.1.len()];
            s.3.iter().flatten().for_each(|&v| u[v as usize] = true);
            u.iter().all(|&x| x)
        };
        if a.is_empty() || !a.iter().all(|s| !s.3.is_empty() && used(s)) {
            continue;
        }
        assert_eq!(a.len(), b.len(), "{}", f.display());
        for (sa, sb) in a.iter().zip(&b) {
            // A surface without a shader takes its material's name (from a `.skin`).
            if !sa.0.is_empty() {
                assert_eq!(sa.0, sb.0, "{}: shader", f.display());
            }
            assert_eq!(sa.1.len(), sb.1.len(), "{}: vertices", f.display());
            for (p, q) in sa.1.iter().zip(&sb.1) {
                for k in 0..3 {
                    assert!(
                        (p[k] - q[k]).abs() <= 1.0 / 64.0,
                        "{}: {p:?} {q:?}",
                        f.display()
                    );
                }
            }
            for (p, q) in sa.2.iter().zip(&sb.2) {
                for k in 0..2 {
                    assert!(
                        (p[k] - q[k]).abs() <= 1e-6,
                        "{}: uv {p:?} {q:?}",
                        f.display()
                    );
                }
            }
            assert_eq!(sa.3, sb.3, "{}: triangles", f.display());
        }
        checked += 1;
    }
    assert!(checked >= 1);
}

/// A 2 × 2 RGBA PNG.
fn png_file() -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, 2, 2);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().unwrap();
    w.write_image_data(&[
        255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255,
    ])
    .unwrap();
    drop(w);
    out
}

/// The pixels of a PNG file as RGBA (palette and RGB expanded).
fn rgba(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let image = idmodel_assets::images::png(png_bytes).unwrap();
    (image.width, image.height, image.pixels)
}

const QUADS: &str = "# a box without its bottom, written by hand
mtllib box.mtl
o box
v -8 0 -8
v 8 0 -8
v 8 0 8
v -8 0 8
v -8 16 -8
v 8 16 -8
v 8 16 8
v -8 16 8
vt 0 0
vt 1 0
vt 1 1
vt 0 1
usemtl crate
f -4/1 -3/2 -2/3 -1/4
f 1/1 2/2 6/3 5/4
f 2/1 3/2 7/3 6/4
usemtl metal
f 3/1 4/2 8/3 7/4
f 4/1 1/2 5/3 8/4
";

#[test]
fn hand_written_obj_with_quads_and_negative_indices() {
    let dir = scratch_dir("idmodel-obj-input", "hand_written");
    let obj = dir.join("box.obj");
    std::fs::write(&obj, QUADS).unwrap();
    std::fs::write(dir.join("box.mtl"), "newmtl crate\nmap_Kd tex/crate.png\n").unwrap();
    std::fs::create_dir_all(dir.join("tex")).unwrap();
    std::fs::write(dir.join("tex/crate.png"), png_file()).unwrap();

    let info = run_ok(&[&"info", &obj]);
    assert!(info.contains("Wavefront OBJ"), "{info}");
    let j = info_json(&obj);
    assert_eq!(j["format"], "obj");
    assert_eq!(j["triangles"], 10);
    assert_eq!(j["shaders"], serde_json::json!(["crate", "metal"]));

    // MD3: one surface per material, quads as two triangles each, id axes. The texture
    // goes beside the MD3, named by the shader; the material without one keeps its name.
    let md3 = dir.join("box.md3");
    run_ok(&[&"convert", &obj, &"-o", &md3, &"-q"]);
    let s = surfaces(&std::fs::read(&md3).unwrap());
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].0, b"box_crate.png");
    assert_eq!(s[1].0, b"metal");
    assert_eq!(
        rgba(&std::fs::read(dir.join("box_crate.png")).unwrap()),
        rgba(&png_file())
    );
    assert_eq!((s[0].3.len(), s[1].3.len()), (6, 4));
    // OBJ (x, y, z) = (-8, 16, -8) is id (z, x, y) = (-8, -8, 16).
    assert!(s[0].1.contains(&[-8.0, -8.0, 16.0]), "{:?}", s[0].1);
    assert!(s.iter().flat_map(|s| &s.1).all(|p| p[2] >= 0.0));
    // OBJ's vt (u, v) is the scene's (u, 1 − v).
    assert!(s[0].2.contains(&[1.0, 0.0]) && s[0].2.contains(&[0.0, 1.0]));

    // GLB with the texture embedded; MD2 and MDL (the skin from the PNG).
    let glb = dir.join("box.glb");
    run_ok(&[&"convert", &obj, &"-o", &glb, &"-q"]);
    let (json, _) = common::glb(&glb);
    assert_eq!(json["images"].as_array().map(Vec::len), Some(1), "{json}");
    for ext in ["md2", "mdl"] {
        let out = dir.join(format!("box.{ext}"));
        run_ok(&[&"convert", &obj, &"-o", &out, &"-q"]);
        let j = info_json(&out);
        assert_eq!(j["triangles"], 10, "{ext}: {j}");
        assert_eq!(j["frames"], 1, "{ext}: {j}");
    }
    let o = idmodel(&[&"check", &dir.join("box.mdl")]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
}

#[test]
fn bad_obj_is_one_line_naming_line_and_column() {
    let dir = scratch_dir("idmodel-obj-input", "bad");
    let obj = dir.join("bad.obj");
    std::fs::write(&obj, "v 0 0 0\nv 1 0 0\nf 1 2 3\n").unwrap();
    for args in [
        vec!["convert", "bad.obj", "-o", "bad.md3"],
        vec!["info", "bad.obj"],
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_idmodel"))
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(code(&o), 1, "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains("bad.obj: OBJ line 3, column 7: position index 3 out of range"),
            "{e}"
        );
    }
    assert!(!dir.join("bad.md3").exists());
    // A missing texture is a warning, not a failure.
    std::fs::write(
        &obj,
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("m.mtl"),
        "newmtl a\nmap_Kd ../../../../../../etc/passwd\n",
    )
    .unwrap();
    let o = idmodel(&[&"convert", &obj, &"-o", &dir.join("ok.glb")]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: texture"), "{}", stderr(&o));
}
