//! The `idmodel` binary on Quake II MD2 files: `info --json` against values read straight
//! from the file bytes here (not through idmodel-md2), `check` exit codes, `convert` to
//! `.glb`/`.gltf` (structure checked, and validated by the Khronos validator when Node.js
//! and the validator are installed) and `.obj`, and `render`.
//!
//! Corpus files come from `$IDMODEL_CORPUS/md2` (skipped with a notice when unset).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::*;

fn sample() -> PathBuf {
    sample_file("md2")
}

// ---------------------------------------------------------------------------------------
// Reading the file independently: a few lines of little-endian reading, qfiles.h layout.

/// The header fields of `dmdl_t` the tests use.
#[derive(Debug)]
struct Header {
    framesize: usize,
    num_skins: usize,
    num_xyz: usize,
    num_tris: usize,
    num_frames: usize,
    ofs_skins: usize,
    ofs_tris: usize,
    ofs_frames: usize,
}

fn header(b: &[u8]) -> Header {
    assert_eq!(&b[..4], b"IDP2");
    assert_eq!(i32_at(b, 4), 8);
    let u = |at| usize::try_from(i32_at(b, at)).unwrap();
    Header {
        framesize: u(16),
        num_skins: u(20),
        num_xyz: u(24),
        num_tris: u(32),
        num_frames: u(40),
        ofs_skins: u(44),
        ofs_tris: u(52),
        ofs_frames: u(56),
    }
}

/// Decoded positions of frame `f`: `v · scale + translate`.
fn positions(b: &[u8], h: &Header, f: usize) -> Vec<[f32; 3]> {
    let at = h.ofs_frames + f * h.framesize;
    let scale = [f32_at(b, at), f32_at(b, at + 4), f32_at(b, at + 8)];
    let translate = [f32_at(b, at + 12), f32_at(b, at + 16), f32_at(b, at + 20)];
    (0..h.num_xyz)
        .map(|i| {
            let v = &b[at + 40 + 4 * i..at + 43 + 4 * i];
            [0, 1, 2].map(|k| f32::from(v[k]) * scale[k] + translate[k])
        })
        .collect()
}

fn frame_name(b: &[u8], h: &Header, f: usize) -> String {
    name_at(b, h.ofs_frames + f * h.framesize + 24, 16)
}

fn skin_name(b: &[u8], h: &Header, i: usize) -> String {
    name_at(b, h.ofs_skins + 64 * i, 64)
}

/// `(xyz, st)` index triples of the triangle list.
fn triangles(b: &[u8], h: &Header) -> Vec<([i16; 3], [i16; 3])> {
    (0..h.num_tris)
        .map(|t| {
            let at = h.ofs_tris + 12 * t;
            (
                [0, 1, 2].map(|k| i16_at(b, at + 2 * k)),
                [0, 1, 2].map(|k| i16_at(b, at + 6 + 2 * k)),
            )
        })
        .collect()
}

/// Distinct (xyz, st) corners: the vertex count of the exported triangle-list mesh.
fn corner_count(b: &[u8], h: &Header) -> usize {
    triangles(b, h)
        .iter()
        .flat_map(|(x, s)| (0..3).map(move |k| (x[k], s[k])))
        .collect::<BTreeSet<_>>()
        .len()
}

/// Bounds of the vertices of frame `f` that a triangle uses.
fn used_bounds(b: &[u8], h: &Header, f: usize) -> ([f32; 3], [f32; 3]) {
    let pos = positions(b, h, f);
    let used: BTreeSet<usize> = triangles(b, h)
        .iter()
        .flat_map(|(x, _)| x.map(|i| i as usize))
        .collect();
    bounds(used.into_iter().map(|i| pos[i])).unwrap()
}

/// Animation ranges by frame name, written here from the rule (trailing digits, then one
/// trailing `_`, removed): `(stem, frame count)`.
fn ranges(b: &[u8], h: &Header) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for f in 0..h.num_frames {
        let name = frame_name(b, h, f);
        let mut stem = name
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .to_owned();
        if stem.len() < name.len() && stem.len() > 1 && stem.ends_with('_') {
            stem.pop();
        }
        match out.last_mut() {
            Some((s, n)) if *s == stem => *n += 1,
            _ => out.push((stem, 1)),
        }
    }
    out
}

fn close(a: f64, b: f32) -> bool {
    close_to(a, f64::from(b), 1e-5)
}

fn assert_near3(got: &Value, want: [f32; 3], what: &str) {
    assert_close3(got, want.map(f64::from), 1e-5, what);
}

// ---------------------------------------------------------------------------------------

#[test]
fn info_json_matches_the_header_and_the_raw_vertices() {
    let keys = "format frames vertices triangles skins bounds clips";
    each_info("md2", keys, |file, bytes, j, what| {
        let h = header(bytes);
        assert_eq!(j["frames"], h.num_frames, "{what}");
        assert_eq!(j["vertices"], h.num_xyz, "{what}");
        assert_eq!(j["triangles"], h.num_tris, "{what}");
        assert_eq!(j["skins"], h.num_skins, "{what}");
        let (lo, hi) = bounds(positions(bytes, &h, 0)).unwrap();
        assert_near3(&j["bounds"]["min"], lo, what);
        assert_near3(&j["bounds"]["max"], hi, what);

        // The plain form: the same counts and the MD2 details.
        let rows = ["GL commands", "animations", "frame names", "skin size"];
        let plain = info_plain(file, "Quake II MD2", &rows);
        for i in 0..h.num_skins {
            assert!(plain.contains(&skin_name(bytes, &h, i)), "{plain}");
        }
        for (stem, _) in ranges(bytes, &h).iter().take(5) {
            assert!(plain.contains(stem.as_str()), "{what}: {stem} in\n{plain}");
        }
    });
}

/// A copy of the sample with the i32 header field at `at` set to `value`.
fn patched_sample(dir: &Path, name: &str, at: usize, value: i32) -> PathBuf {
    let mut b = std::fs::read(sample()).unwrap();
    b[at..at + 4].copy_from_slice(&value.to_le_bytes());
    let p = dir.join(name);
    std::fs::write(&p, b).unwrap();
    p
}

#[test]
fn check_exit_codes() {
    let dir = scratch("check");
    let s = sample();
    assert_check_ok(&s, "quake2", "quake2", "ioq3");

    // A skin taller than 480 (skinheight at byte 12): Quake II refuses it.
    let tall = patched_sample(&dir, "tall.md2", 12, 481);
    let o = idmodel(&[&"check", &tall]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with(&format!(
            "{}: quake2: refused: skin height 481",
            tall.display()
        )),
        "{out}"
    );
    // No GL commands (num_glcmds at byte 36): a hazard for ref_gl.
    let nogl = patched_sample(&dir, "nogl.md2", 36, 0);
    let o = idmodel(&[&"check", &nogl, &"--engine", &"quake2"]);
    assert_eq!(code(&o), 1);
    common::assert_contains(&stdout(&o), "quake2: hazard: no GL commands");
    // ... which the plain info mentions too.
    let o = idmodel(&[&"info", &nogl]);
    common::assert_contains(&stdout(&o), "none (num_glcmds = 0)");

    // Refused: truncated inside the frames, and a bad count.
    let mut b = std::fs::read(&s).unwrap();
    b.truncate(b.len() - 200);
    let cut = dir.join("cut.md2");
    std::fs::write(&cut, &b).unwrap();
    let zero = patched_sample(&dir, "zero.md2", 24, 0);
    for (file, what) in [
        (&cut, "truncated"),
        (&zero, "invalid num_xyz 0 (at byte 24)"),
    ] {
        assert_refused_with_offset(&dir, file, what);
    }
}

/// The parts of a converted scene this test checks, from the glTF JSON.
fn check_scene(j: &Value, bytes: &[u8], what: &str, frame: Option<usize>) {
    let h = header(bytes);
    let meshes = j["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 1, "{what}");
    let prims = meshes[0]["primitives"].as_array().unwrap();
    assert_eq!(prims.len(), 1, "{what}: one primitive");
    let p = &prims[0];
    let accessor = |i: &Value| accessor(j, i);
    let pos = accessor(&p["attributes"]["POSITION"]);
    assert_eq!(pos["count"], corner_count(bytes, &h), "{what}: vertices");
    assert_eq!(accessor(&p["indices"])["count"], 3 * h.num_tris, "{what}");
    for attr in ["NORMAL", "TEXCOORD_0"] {
        assert!(p["attributes"].get(attr).is_some(), "{what}: {attr}");
    }
    let animated = frame.is_none() && h.num_frames > 1;
    let targets = p.get("targets").map_or(0, |t| t.as_array().unwrap().len());
    let anims = j
        .get("animations")
        .map_or(0, |a| a.as_array().unwrap().len());
    if animated {
        assert_eq!(targets, h.num_frames - 1, "{what}: targets");
        let names: Vec<String> = (1..h.num_frames)
            .map(|f| frame_name(bytes, &h, f))
            .collect();
        assert_target_names(&meshes[0], &names, what);
        let want = ranges(bytes, &h);
        assert_eq!(anims, want.len(), "{what}: one clip per frame-name range");
        for (a, (stem, n)) in j["animations"].as_array().unwrap().iter().zip(&want) {
            if stem.is_ascii() {
                assert_eq!(a["name"], stem.as_str(), "{what}");
            }
            let sampler = &a["samplers"][0];
            let input = accessor(&sampler["input"]);
            assert_eq!(input["count"], *n, "{what}: keys of {stem}");
            // 10 fps: the last key is at (n - 1) / 10 s.
            let max = input["max"][0].as_f64().unwrap();
            assert!(close(max, (*n as f32 - 1.0) / 10.0), "{what}: {max}");
            assert_eq!(
                accessor(&sampler["output"])["count"],
                n * (h.num_frames - 1)
            );
            assert_eq!(a["channels"][0]["target"]["path"], "weights");
        }
    } else {
        assert_eq!((targets, anims), (0, 0), "{what}: a still frame");
    }
    // Skins: material names; the primitive uses skin 0. A skin file the game data does
    // not hold (none is beside these files) gives no image: never a URI to a missing file.
    let mats = j
        .get("materials")
        .map_or(0, |m| m.as_array().unwrap().len());
    assert_eq!(mats, h.num_skins, "{what}: one material per skin");
    if h.num_skins > 0 {
        assert_eq!(p["material"], 0, "{what}");
        let name = skin_name(bytes, &h, 0);
        if name.is_ascii() {
            assert_eq!(j["materials"][0]["name"], name.as_str(), "{what}");
        }
        for img in j["images"].as_array().map_or(&[][..], Vec::as_slice) {
            assert!(img.get("uri").is_none(), "{what}: a URI in a GLB: {img}");
        }
        assert!(
            j["materials"][0]["pbrMetallicRoughness"]
                .get("baseColorTexture")
                .is_none(),
            "{what}: skin {name} is in no game data here, yet textured"
        );
    }
}

#[test]
fn convert_to_glb_and_gltf_validates() {
    let dir = scratch("convert");
    let (s, bytes, h) = read_with(sample(), header);
    // Out of range: one line, exit 1, nothing written.
    assert_frame_out_of_range(&s, &dir.join("bad.glb"), 5);
    each_glb_and_gltf(&s, &dir, &["--frame", "3"], |name, out, j| {
        let frame = (name == "frame").then_some(3);
        check_scene(
            j,
            &bytes,
            &out.file_name().unwrap().to_string_lossy(),
            frame,
        );
        // POSITION min/max: the used vertices of the base frame, Y-up unless kept.
        let (lo, hi) = used_bounds(&bytes, &h, frame.unwrap_or(0));
        let yup = |p: [f32; 3]| {
            if name == "keep" {
                p
            } else {
                [p[1], p[2], p[0]]
            }
        };
        let prim = &j["meshes"][0]["primitives"][0];
        let pos = &j["accessors"][prim["attributes"]["POSITION"].as_u64().unwrap() as usize];
        assert_near3(&pos["min"], yup(lo), name);
        assert_near3(&pos["max"], yup(hi), name);
    });
}

/// The corpus files (all but the largest, which the corpus test converts) keep their
/// structure through `convert`: vertex, target, clip and material counts.
#[test]
fn corpus_scenes_have_the_md2_structure() {
    let converted = convert_corpus_to_glb("scene structure", "md2", 1 << 20, |file, bytes, j| {
        check_scene(j, bytes, &file.display().to_string(), None);
    });
    assert_ne!(converted, Some(0));
}

#[test]
fn convert_to_obj() {
    let (s, bytes, h) = read_with(sample(), header);
    each_obj(&s, &scratch("obj"), |frame, keep, out, text| {
        assert_obj_counts(text, corner_count(&bytes, &h), h.num_tris);
        let (lo, hi) = bounds(obj_vertices(text)).unwrap();
        let (wlo, whi) = used_bounds(&bytes, &h, frame.unwrap_or(0));
        let yup = |p: [f32; 3]| if keep { p } else { [p[1], p[2], p[0]] };
        for k in 0..3 {
            assert!(close(f64::from(lo[k]), yup(wlo)[k]), "{lo:?} {wlo:?}");
            assert!(close(f64::from(hi[k]), yup(whi)[k]), "{hi:?} {whi:?}");
        }
        // The skin is the material, named by its game path; the skin file is not in the
        // game data, so no map_Kd names it (every map_Kd is a file written beside).
        let mtl = mtl_beside(out);
        let skin = skin_name(&bytes, &h, 0);
        assert!(
            mtl.contains(&format!("newmtl {}", skin.replace(' ', "_"))),
            "{mtl}"
        );
        assert!(text.contains("usemtl "), "{text}");
    });
}

#[test]
fn render_draws_a_plausible_area() {
    let dir = scratch("render");
    let s = sample();
    assert_frames_render(&s, &dir, &["0", "4"]);
}

/// A 320 KB file whose animation would need over a gigabyte of morph targets is refused
/// in one line (pointing at `--frame`), and still converts one frame.
#[test]
fn morph_amplification_is_refused() {
    let dir = scratch("amplify");
    let (num_xyz, num_st, num_tris, num_frames) = (1usize, 32_766usize, 10_922usize, 1_400usize);
    let framesize = 40 + 4 * num_xyz;
    let ofs_st = 68;
    let ofs_tris = ofs_st + 4 * num_st;
    let ofs_frames = ofs_tris + 12 * num_tris;
    let ofs_end = ofs_frames + framesize * num_frames;
    let mut b = Vec::new();
    b.extend(b"IDP2");
    for v in [
        8, 64, 64, framesize, 0, num_xyz, num_st, num_tris, 0, num_frames, ofs_st, ofs_st,
        ofs_tris, ofs_frames, ofs_end, ofs_end,
    ] {
        b.extend((v as i32).to_le_bytes());
    }
    for i in 0..num_st {
        b.extend(((i % 64) as i16).to_le_bytes());
        b.extend(((i / 64 % 64) as i16).to_le_bytes());
    }
    for t in 0..num_tris {
        b.extend([0i16; 3].iter().flat_map(|x| x.to_le_bytes()));
        for k in 0..3 {
            b.extend(((3 * t + k) as i16).to_le_bytes());
        }
    }
    for _ in 0..num_frames {
        b.extend(
            [1.0f32, 1.0, 1.0, 0.0, 0.0, 0.0]
                .iter()
                .flat_map(|x| x.to_le_bytes()),
        );
        b.extend(b"frame\0\0\0\0\0\0\0\0\0\0\0");
        b.extend([1u8, 2, 3, 0]);
    }
    assert_eq!(b.len(), ofs_end);
    let file = dir.join("amplify.md2");
    std::fs::write(&file, &b).unwrap();
    let out = dir.join("a.glb");
    let o = idmodel(&[&"convert", &file, &"-o", &out]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--frame N"), "{err}");
    convert(&file, &out, &["--frame", "7"]);
}

/// The `vn` lines of an OBJ.
fn obj_normals(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("vn "))
        .map(str::to_owned)
        .collect()
}

/// UFO:AI's side of an MD2: the `.anm` beside the model names the clips at their own
/// rates, and a model whose vertices all use one normal index gets smooth normals (`info`
/// and `check` say so; `--keep-normals` keeps the file's).
#[test]
fn anm_clips_and_degenerate_normals() {
    let dir = scratch("anm");
    let mut bytes = std::fs::read(sample()).unwrap();
    let h = header(&bytes);
    for f in 0..h.num_frames {
        for v in 0..h.num_xyz {
            bytes[h.ofs_frames + f * h.framesize + 40 + v * 4 + 3] = 0;
        }
    }
    let model = dir.join("alien.md2");
    std::fs::write(&model, &bytes).unwrap();
    std::fs::write(
        dir.join("alien.anm"),
        "// name start end fps\nwalk 0 3 20\ndead 4 4 0\n",
    )
    .unwrap();

    let j = info_json(&model);
    assert_eq!(j["clips"], serde_json::json!(["walk", "dead"]));
    let o = idmodel(&[&"info", &model]);
    let text = stdout(&o);
    assert!(
        text.contains("2 from") && text.contains("at 20 fps"),
        "{text}"
    );
    assert!(text.contains("every vertex uses normal index 0"), "{text}");
    let o = idmodel(&[&"check", &model]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    common::assert_contains(&stdout(&o), "warning: every vertex uses normal index 0");

    let glb = dir.join("alien.glb");
    convert(&model, &glb, &[]);
    let g = glb_json(&glb);
    let names = name_list(&g["animations"]);
    assert_eq!(names, ["walk", "dead"]);
    validate(&[glb]);

    // Smooth normals vary over the model; the file's are one direction.
    let smooth = obj_normals(&convert_to_text(&model, &dir.join("s.obj"), None, false));
    assert!(smooth.iter().collect::<BTreeSet<_>>().len() > 1);
    let kept = dir.join("k.obj");
    convert(&model, &kept, &["--keep-normals"]);
    let kept = obj_normals(&std::fs::read_to_string(&kept).unwrap());
    assert_eq!(kept.iter().collect::<BTreeSet<_>>().len(), 1, "{kept:?}");

    // An `.anm` the engine refuses is an error naming it.
    std::fs::write(dir.join("alien.anm"), "walk 0 3\n").unwrap();
    let out = dir.join("bad.glb");
    let o = idmodel(&[&"convert", &model, &"-o", &out]);
    assert_eq!(code(&o), 1);
    common::assert_contains(&stderr(&o), "alien.anm: invalid syntax");
    assert!(!out.exists());
}
