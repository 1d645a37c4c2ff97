//! The `idmodel` binary on Quake MDL files: `info --json` against values read straight
//! from the bytes by the small independent reader below (not `idmodel::mdl`), `check`
//! exit codes, `convert` to `.glb`/`.gltf` (structure checked here, validity by the
//! Khronos validator when Node.js and it are installed) and `.obj`, and `render`.
//!
//! Corpus files come from `$IDMODEL_CORPUS/mdl`; those parts are skipped with a notice
//! when the variable is unset.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::{
    convert, corpus_files, f32_at, i32_at, idmodel, info_json, name_at, render_coverage,
    sample_file, scratch, stderr, stdout, validate,
};

// ---------------------------------------------------------------------------------------
// An independent MDL reader: a few lines of little-endian reading (`common::i32_at`, ...)
// over the layout of `modelgen.h` (84-byte header, skins, stverts, triangles, frames).

/// What the test needs to know about an MDL, read from its bytes.
#[derive(Debug)]
struct Raw {
    skins: usize,
    verts: usize,
    tris: usize,
    /// Every pose (group members counted).
    poses: usize,
    /// Frame entries: (name of the first pose, poses in the entry).
    entries: Vec<(String, usize)>,
    /// Decoded positions of the first pose.
    first_pose: Vec<[f32; 3]>,
    /// (s, t, onseam) per vertex.
    st: Vec<[i32; 3]>,
    /// (facesfront, [v0, v1, v2]) per triangle.
    triangles: Vec<(i32, [usize; 3])>,
    /// Offset just after the last frame.
    end: usize,
}

fn read_raw(b: &[u8]) -> Raw {
    assert_eq!(&b[..4], b"IDPO");
    assert_eq!(i32_at(b, 4), 6);
    let scale = [f32_at(b, 8), f32_at(b, 12), f32_at(b, 16)];
    let origin = [f32_at(b, 20), f32_at(b, 24), f32_at(b, 28)];
    let skins = i32_at(b, 48) as usize;
    let (w, h) = (i32_at(b, 52) as usize, i32_at(b, 56) as usize);
    let verts = i32_at(b, 60) as usize;
    let tris = i32_at(b, 64) as usize;
    let frames = i32_at(b, 68) as usize;
    let mut at = 84;
    for _ in 0..skins {
        let kind = i32_at(b, at);
        at += 4;
        if kind == 0 {
            at += w * h;
        } else {
            let n = i32_at(b, at) as usize;
            at += 4 + 4 * n + n * w * h;
        }
    }
    let st = (0..verts)
        .map(|i| {
            let o = at + 12 * i;
            [i32_at(b, o + 4), i32_at(b, o + 8), i32_at(b, o)]
        })
        .collect();
    at += 12 * verts;
    let triangles = (0..tris)
        .map(|i| {
            let o = at + 16 * i;
            (
                i32_at(b, o),
                [
                    i32_at(b, o + 4) as usize,
                    i32_at(b, o + 8) as usize,
                    i32_at(b, o + 12) as usize,
                ],
            )
        })
        .collect();
    at += 16 * tris;
    let pose_size = 24 + 4 * verts;
    let name_of = |pose: usize| name_at(b, pose + 8, 16);
    let mut entries = Vec::new();
    let mut first_pose_at = None;
    for _ in 0..frames {
        let kind = i32_at(b, at);
        at += 4;
        let n = if kind == 0 {
            1
        } else {
            let n = i32_at(b, at) as usize;
            at += 12 + 4 * n; // numframes, bboxmin, bboxmax, intervals
            n
        };
        first_pose_at.get_or_insert(at);
        entries.push((name_of(at), n));
        at += n * pose_size;
    }
    assert!(at <= b.len(), "frames run past the end");
    let p0 = first_pose_at.unwrap() + 24;
    let first_pose = (0..verts)
        .map(|i| {
            let v = &b[p0 + 4 * i..p0 + 4 * i + 3];
            [0, 1, 2].map(|k| scale[k] * f32::from(v[k]) + origin[k])
        })
        .collect();
    Raw {
        skins,
        verts,
        tris,
        poses: entries.iter().map(|e| e.1).sum(),
        entries,
        first_pose,
        st,
        triangles,
        end: at,
    }
}

/// The animation ranges by name: consecutive entries whose names, without trailing
/// digits, are equal; (base name, poses).
fn ranges(raw: &Raw) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for (name, n) in &raw.entries {
        let base = name
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .to_owned();
        match out.last_mut() {
            Some((b, count)) if *b == base => *count += n,
            _ => out.push((base, *n)),
        }
    }
    out
}

/// The vertices of GLQuake's seam rule: one per (vertex, back side of the seam).
fn welded_count(raw: &Raw) -> usize {
    let mut seen = HashSet::new();
    for (front, vs) in &raw.triangles {
        for &v in vs {
            seen.insert((v, *front == 0 && raw.st[v][2] != 0));
        }
    }
    seen.len()
}

// ---------------------------------------------------------------------------------------

fn sample() -> PathBuf {
    sample_file("mdl")
}

/// The corpus MDL files, or `None` (with a notice) when `IDMODEL_CORPUS` is unset.
fn corpus(what: &str) -> Option<Vec<PathBuf>> {
    corpus_files(what, "mdl", &["mdl"])
}

fn close(a: f64, b: f32) -> bool {
    (a - f64::from(b)).abs() <= 1e-5 * f64::from(b.abs()).max(1.0)
}

/// `info --json` on `file` agrees with the bytes.
fn check_info(file: &Path) {
    let bytes = std::fs::read(file).unwrap();
    let raw = read_raw(&bytes);
    let v = info_json(file);
    let what = file.display();
    assert_eq!(v["format"], "mdl", "{what}");
    assert_eq!(v["frames"], raw.poses, "{what}: frames = every pose");
    assert_eq!(v["vertices"], raw.verts, "{what}");
    assert_eq!(v["triangles"], raw.tris, "{what}");
    assert_eq!(v["skins"], raw.skins, "{what}");
    for absent in ["surfaces", "tags", "meshes", "joints"] {
        assert!(
            v.get(absent).is_none(),
            "{what}: {absent} is not an MDL field"
        );
    }
    for k in 0..3 {
        let lo = raw
            .first_pose
            .iter()
            .map(|p| p[k])
            .fold(f32::INFINITY, f32::min);
        let hi = raw
            .first_pose
            .iter()
            .map(|p| p[k])
            .fold(f32::NEG_INFINITY, f32::max);
        let min = v["bounds"]["min"][k].as_f64().unwrap();
        let max = v["bounds"]["max"][k].as_f64().unwrap();
        assert!(close(min, lo), "{what}: min[{k}] {min} vs {lo}");
        assert!(close(max, hi), "{what}: max[{k}] {max} vs {hi}");
    }
}

#[test]
fn info_json_matches_the_bytes() {
    check_info(&sample());
    // The sample has a frame group and a skin group: frames counts every pose.
    let raw = read_raw(&std::fs::read(sample()).unwrap());
    assert!(raw.poses > raw.entries.len());
    let o = idmodel(&[&"info", &sample()]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for line in [
        "frames",
        "skin 1",
        "group of 3 images",
        "spin",
        "idle",
        "welded",
    ] {
        assert!(text.contains(line), "plain info lacks {line:?}:\n{text}");
    }
    if let Some(files) = corpus("info_json_matches_the_bytes") {
        for f in &files {
            check_info(f);
        }
        eprintln!("checked info --json of {} corpus MDL files", files.len());
    }
}

#[test]
fn check_exit_codes() {
    let dir = scratch("check");
    // Clean sample: 0 and an "ok" line naming the three profiles.
    let o = idmodel(&[&"check", &sample()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    common::assert_contains(&stdout(&o), "ok (winquake, glquake, quakespasm)");
    let o = idmodel(&[&"check", &sample(), &"--engine", &"glquake"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("ok (glquake)"), "{}", stdout(&o));

    // Findings: bytes after the last frame (every profile) and unknown flag bits.
    let bytes = std::fs::read(sample()).unwrap();
    let mut found = bytes.clone();
    found.extend_from_slice(b"QMEX trailing editor data");
    found[76..80].copy_from_slice(&0x0010_0000i32.to_le_bytes());
    let file = dir.join("findings.mdl");
    std::fs::write(&file, &found).unwrap();
    // Warnings: exit 0 by default, 1 with --fail-on warning; each printed once for
    // the three engines.
    let o = idmodel(&[&"check", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = idmodel(&[&"check", &file, &"--fail-on", &"warning"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // The trailing bytes are one line for all three; the flag bits differ in wording
    // (WinQuake and GLQuake ignore them, QuakeSpasm drops them): two lines.
    let merged = stdout(&o);
    assert_eq!(merged.lines().count(), 3, "{merged}");
    assert!(
        merged.lines().any(|l| l
            .contains(": winquake, glquake, quakespasm: warning: 25 bytes follow the last frame")),
        "{merged}"
    );
    let flags = ": winquake, glquake: warning: flag bits 0x100000";
    assert!(common::has_line(&merged, &[flags]), "{merged}");
    for engine in ["winquake", "glquake", "quakespasm"] {
        let o = idmodel(&[
            &"check",
            &file,
            &"--engine",
            &engine,
            &"--fail-on",
            &"warning",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let out = stdout(&o);
        let lines: Vec<&str> = out
            .lines()
            .filter(|l| l.contains(&format!(": {engine}: ")))
            .collect();
        assert_eq!(lines.len(), 2, "{engine}: {out}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("25 bytes follow the last frame"))
        );
        assert!(lines.iter().any(|l| l.contains("0x100000")));
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with(&file.display().to_string()))
        );
    }
    let o = idmodel(&[
        &"check",
        &file,
        &"--engine",
        &"winquake",
        &"--fail-on",
        &"warning",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));

    // Refused: truncated in the frames, and a wrong version. One line, exit 1, where.
    let raw = read_raw(&bytes);
    for (name, data, at) in [
        ("truncated.mdl", bytes[..raw.end - 10].to_vec(), "(at byte "),
        (
            "version.mdl",
            {
                let mut b = bytes.clone();
                b[4] = 7;
                b
            },
            "(at byte 4)",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, data).unwrap();
        let o = idmodel(&[&"check", &file]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert!(err.contains("refused") && err.contains(at), "{name}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }

    // Corpus files: exit 0 or 1, nothing on stderr, every finding line names an engine;
    // a file with bytes after its last frame (found by the reader above) exits 1.
    if let Some(files) = corpus("check_exit_codes") {
        for f in &files {
            // Trailing bytes are a warning: --fail-on warning exits 1 on it.
            let o = idmodel(&[&"check", f, &"--fail-on", &"warning"]);
            let code = o.status.code();
            assert!(
                matches!(code, Some(0 | 1)),
                "{}: {}",
                f.display(),
                stderr(&o)
            );
            assert!(stderr(&o).is_empty(), "{}", stderr(&o));
            let raw = read_raw(&std::fs::read(f).unwrap());
            let trailing = raw.end < std::fs::metadata(f).unwrap().len() as usize;
            if trailing {
                assert_eq!(
                    code,
                    Some(1),
                    "{}: trailing bytes are a finding",
                    f.display()
                );
            }
            if code == Some(1) {
                // `file: engine[, engine…]: severity: message`, every engine an MDL one.
                let prefix = format!("{}: ", f.display());
                for l in stdout(&o).lines() {
                    let engines = l
                        .strip_prefix(&prefix)
                        .and_then(|rest| rest.split_once(": "))
                        .map(|(engines, _)| engines)
                        .unwrap_or_else(|| panic!("{l}"));
                    assert!(
                        engines
                            .split(", ")
                            .all(|e| ["winquake", "glquake", "quakespasm"].contains(&e)),
                        "{l}"
                    );
                }
            }
        }
    }
}

/// Converts `file` to `.gltf` and checks the structure against the bytes.
fn check_gltf(file: &Path, out: &Path) {
    let raw = read_raw(&std::fs::read(file).unwrap());
    convert(file, out, &[]);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    let what = file.display();
    let prims = g["meshes"][0]["primitives"].as_array().unwrap();
    assert_eq!(prims.len(), 1, "{what}: one primitive");
    let p = &prims[0];
    let targets = p
        .get("targets")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    assert_eq!(
        targets,
        raw.poses - 1,
        "{what}: a target per pose after the first"
    );
    let accessor = |i: &Value| &g["accessors"][i.as_u64().unwrap() as usize];
    assert_eq!(
        accessor(&p["indices"])["count"],
        3 * raw.tris,
        "{what}: indices"
    );
    assert_eq!(
        accessor(&p["attributes"]["POSITION"])["count"],
        welded_count(&raw),
        "{what}: welded vertices"
    );
    assert!(p["attributes"].get("NORMAL").is_some());
    assert!(p["attributes"].get("TEXCOORD_0").is_some());
    assert_eq!(
        g["materials"].as_array().unwrap().len(),
        raw.skins,
        "{what}"
    );
    // One image per skin, and one more per skin with fullbright texels (the emissive
    // texture).
    let emissive = g["materials"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m.get("emissiveTexture").is_some())
        .count();
    assert_eq!(
        g["images"].as_array().unwrap().len(),
        raw.skins + emissive,
        "{what}"
    );
    assert_eq!(p["material"], 0);
    let anims = g
        .get("animations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if raw.poses == 1 {
        assert!(anims.is_empty(), "{what}: nothing to animate");
        return;
    }
    let expect = ranges(&raw);
    assert_eq!(anims.len(), expect.len(), "{what}: one clip per range");
    for (a, (name, poses)) in anims.iter().zip(&expect) {
        assert_eq!(a["name"], name.as_str(), "{what}");
        let sampler = &a["samplers"][0];
        assert_eq!(sampler["interpolation"], "LINEAR");
        assert_eq!(
            accessor(&sampler["input"])["count"],
            *poses,
            "{what}: {name}"
        );
        assert_eq!(
            accessor(&sampler["output"])["count"],
            poses * targets,
            "{what}: {name}"
        );
        assert_eq!(a["channels"][0]["target"]["path"], "weights");
    }
}

#[test]
fn convert_to_gltf_and_glb_validates() {
    let dir = scratch("convert");
    let mut written = Vec::new();
    let mut files = vec![sample()];
    files.extend(corpus("convert_to_gltf_and_glb_validates").unwrap_or_default());
    for (i, f) in files.iter().enumerate() {
        let gltf = dir.join(format!("{i}.gltf"));
        check_gltf(f, &gltf);
        written.push(gltf);
        let glb = dir.join(format!("{i}.glb"));
        let o = idmodel(&[&"convert", f, &"-o", &glb]);
        assert_eq!(o.status.code(), Some(0), "{}: {}", f.display(), stderr(&o));
        assert_eq!(&std::fs::read(&glb).unwrap()[..4], b"glTF");
        written.push(glb);
    }
    // One pose alone: no targets, no animation; file axes kept.
    let one = dir.join("pose3.gltf");
    let o = idmodel(&[
        &"convert",
        &sample(),
        &"-o",
        &one,
        &"--frame",
        &"3",
        &"--keep-axes",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let g: Value = serde_json::from_str(&std::fs::read_to_string(&one).unwrap()).unwrap();
    assert!(g["meshes"][0]["primitives"][0].get("targets").is_none());
    assert!(
        g.get("animations")
            .is_none_or(|a| a.as_array().unwrap().is_empty())
    );
    written.push(one);
    // MF_HOLEY (0x4000): palette index 255 is transparent, the skins are alpha-masked.
    let mut holey = std::fs::read(sample()).unwrap();
    holey[76..80].copy_from_slice(&0x4000i32.to_le_bytes());
    let holey_mdl = dir.join("holey.mdl");
    std::fs::write(&holey_mdl, holey).unwrap();
    let holey_gltf = dir.join("holey.gltf");
    check_gltf(&holey_mdl, &holey_gltf);
    let g: Value = serde_json::from_str(&std::fs::read_to_string(&holey_gltf).unwrap()).unwrap();
    for m in g["materials"].as_array().unwrap() {
        assert_eq!(m["alphaMode"], "MASK", "{m}");
    }
    written.push(holey_gltf);
    validate(&written);

    // A pose past the end: one line, exit 1.
    let bad = dir.join("bad.glb");
    let o = idmodel(&[&"convert", &sample(), &"-o", &bad, &"--frame", &"5"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
}

#[test]
fn convert_to_obj() {
    let dir = scratch("obj");
    let raw = read_raw(&std::fs::read(sample()).unwrap());
    let obj = dir.join("s.obj");
    let o = idmodel(&[&"convert", &sample(), &"-o", &obj]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&obj).unwrap();
    let count = |p: &str| text.lines().filter(|l| l.starts_with(p)).count();
    assert_eq!(count("v "), welded_count(&raw));
    assert_eq!(count("vt "), welded_count(&raw));
    assert_eq!(count("vn "), welded_count(&raw));
    assert_eq!(count("f "), raw.tris);
    assert!(text.contains("mtllib s.mtl"));
    // Every skin is written as a PNG of the skin's size.
    for i in 0..raw.skins {
        let png = std::fs::read(dir.join(format!("s_{i}.png"))).unwrap();
        let reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        assert_eq!((reader.info().width, reader.info().height), (16, 8));
    }
    // Another pose: same topology, other positions.
    let obj4 = dir.join("s4.obj");
    let o = idmodel(&[&"convert", &sample(), &"-o", &obj4, &"--frame", &"4"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text4 = std::fs::read_to_string(&obj4).unwrap();
    let verts = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.starts_with("v "))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(verts(&text4).len(), verts(&text).len());
    assert_ne!(verts(&text4), verts(&text));
}

#[test]
fn render_draws_a_plausible_area() {
    let dir = scratch("render");
    let f = render_coverage(&sample(), &dir.join("s.png"), &[]);
    assert!((0.02..=0.9).contains(&f), "sample: {f}");
    let f = render_coverage(&sample(), &dir.join("s4.png"), &["--frame", "4"]);
    assert!((0.02..=0.9).contains(&f), "sample pose 4: {f}");
    if let Some(files) = corpus("render_draws_a_plausible_area") {
        for (i, file) in files.iter().enumerate() {
            let f = render_coverage(file, &dir.join(format!("{i}.png")), &[]);
            assert!((0.002..=0.9).contains(&f), "{}: {f}", file.display());
        }
    }
}
