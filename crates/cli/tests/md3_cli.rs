//! The `idmodel` binary on Quake III MD3 files: `info --json` against values read straight
//! from the file bytes here (not through idmodel-md3), `check` exit codes, `convert` to
//! `.glb`/`.gltf` (structure checked, and validated by the Khronos validator when Node.js
//! and the validator are installed) and `.obj`, `render`, and the assembly of a player
//! folder (`lower.md3`, `upper.md3`, `head.md3`).
//!
//! Corpus files come from `$IDMODEL_CORPUS/md3` (skipped with a notice when unset).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use common::*;

fn sample() -> PathBuf {
    sample_file("md3")
}

/// `$IDMODEL_CORPUS/md3`, or `None` (with a notice) when unset.
fn corpus_dir(test: &str) -> Option<PathBuf> {
    corpus_subdir(test, "md3")
}

// ---------------------------------------------------------------------------------------
// Reading the file independently: a few lines of little-endian reading, qfiles.h layout.

/// One surface of `md3Surface_t`, with its absolute offsets.
#[derive(Debug)]
struct Surf {
    at: usize,
    name: String,
    num_frames: usize,
    num_verts: usize,
    num_tris: usize,
    shader: Option<String>,
    ofs_xyz: usize,
}

/// The header fields of `md3Header_t` the tests use, and the surface chain.
#[derive(Debug)]
struct Header {
    num_frames: usize,
    num_tags: usize,
    ofs_frames: usize,
    ofs_tags: usize,
    surfaces: Vec<Surf>,
}

fn header(b: &[u8]) -> Header {
    assert_eq!(&b[..4], b"IDP3");
    assert_eq!(i32_at(b, 4), 15);
    let u = |at| usize::try_from(i32_at(b, at)).unwrap();
    let mut surfaces = Vec::new();
    let mut pos = u(100);
    for _ in 0..u(84) {
        let s = |rel| usize::try_from(i32_at(b, pos + rel)).unwrap();
        let num_shaders = s(76);
        surfaces.push(Surf {
            at: pos,
            name: name_at(b, pos + 4, 64),
            num_frames: s(72),
            num_verts: s(80),
            num_tris: s(84),
            shader: (num_shaders > 0).then(|| name_at(b, pos + s(92), 64)),
            ofs_xyz: pos + s(100),
        });
        pos += s(104);
    }
    Header {
        num_frames: u(76),
        num_tags: u(80),
        ofs_frames: u(92),
        ofs_tags: u(96),
        surfaces,
    }
}

/// Positions of surface `s` in frame `f`: `xyz / 64`.
fn positions(b: &[u8], s: &Surf, f: usize) -> Vec<[f32; 3]> {
    (0..s.num_verts)
        .map(|v| {
            let at = s.ofs_xyz + 8 * (f * s.num_verts + v);
            [0, 1, 2].map(|k| f32::from(i16_at(b, at + 2 * k)) / 64.0)
        })
        .collect()
}

/// `(name, origin, axis rows)` of tag `t` in frame `f`.
fn tag(b: &[u8], h: &Header, f: usize, t: usize) -> (String, [f32; 3], [[f32; 3]; 3]) {
    let at = h.ofs_tags + 112 * (f * h.num_tags + t);
    let v = |o: usize| [0, 1, 2].map(|k| f32_at(b, at + o + 4 * k));
    (name_at(b, at, 64), v(64), [v(76), v(88), v(100)])
}

fn frame_name(b: &[u8], h: &Header, f: usize) -> String {
    name_at(b, h.ofs_frames + 56 * f + 40, 16)
}

fn close(a: f64, b: f32) -> bool {
    close_to(a, f64::from(b), 1e-4)
}

fn assert_near3(got: &Value, want: [f32; 3], what: &str) {
    assert_close3(got, want.map(f64::from), 1e-4, what);
}

/// `q · v · q⁻¹` for a glTF (unit) quaternion `[x, y, z, w]`.
fn rotate(q: &[f64], v: [f64; 3]) -> [f64; 3] {
    let m = idmodel_test_support::rotation_matrix([q[0], q[1], q[2], q[3]]);
    m.map(|row| row[0] * v[0] + row[1] * v[1] + row[2] * v[2])
}

/// Node index by name, and each node's parent.
fn node_graph(j: &Value) -> (BTreeMap<String, usize>, BTreeMap<usize, usize>) {
    let mut names = BTreeMap::new();
    for (i, n) in j["nodes"].as_array().unwrap().iter().enumerate() {
        if let Some(name) = n["name"].as_str() {
            names.entry(name.to_owned()).or_insert(i);
        }
    }
    (names, node_parents(j))
}

// ---------------------------------------------------------------------------------------

#[test]
fn info_json_matches_the_header_and_the_raw_vertices() {
    let keys = "format frames vertices triangles surfaces tags bounds clips skin_names shaders";
    each_info("md3", keys, |file, bytes, j, what| {
        let h = header(bytes);
        let verts: usize = h.surfaces.iter().map(|s| s.num_verts).sum();
        let tris: usize = h.surfaces.iter().map(|s| s.num_tris).sum();
        assert_eq!(j["frames"], h.num_frames, "{what}");
        assert_eq!(j["surfaces"], h.surfaces.len(), "{what}");
        assert_eq!(j["tags"], h.num_tags, "{what}");
        assert_eq!(j["vertices"], verts, "{what}");
        assert_eq!(j["triangles"], tris, "{what}");
        let b = bounds(
            h.surfaces
                .iter()
                .filter(|s| s.num_frames > 0)
                .flat_map(|s| positions(bytes, s, 0)),
        );
        match b {
            Some((lo, hi)) => {
                assert_near3(&j["bounds"]["min"], lo, what);
                assert_near3(&j["bounds"]["max"], hi, what);
            }
            None => assert!(j["bounds"].is_null(), "{what}"),
        }

        // The plain form: the counts and the MD3 details.
        let rows = ["skin file", "animations", "frame names", "findings"];
        let plain = info_plain(file, "Quake III MD3", &rows);
        for s in &h.surfaces {
            if s.name.is_ascii() {
                assert!(plain.contains(&format!("'{}'", s.name)), "{plain}");
            }
        }
        for t in 0..h.num_tags {
            let name = tag(bytes, &h, 0, t).0;
            assert!(plain.contains(&name), "{what}: tag {name} in\n{plain}");
        }
    });
}

#[test]
fn info_reads_the_player_side_files() {
    let Some(dir) = corpus_dir("side files") else {
        return;
    };
    let lower = dir.join("oa_kyonshi/lower.md3");
    let o = idmodel(&[&"info", &lower]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let plain = stdout(&o);
    // The legs entries move back by LEGS_WALKCR − TORSO_GESTURE = 155 − 95 = 60
    // (LEGS_WALK is written 260).
    assert!(plain.contains("legs frames moved back by 60"), "{plain}");
    let walk = ["LEGS_WALK ", "frames 200-206 (7)"];
    assert!(common::has_line(&plain, &walk), "{plain}");
    assert!(
        plain.contains("lower_default.skin (3 surface entries)"),
        "{plain}"
    );
    assert!(
        plain.contains("skin: 'models/players/kyonshi/dress.tga'"),
        "{plain}"
    );
    assert!(!plain.contains("TORSO_STAND"), "legs only:\n{plain}");
    // Tremulous's 37-entry file is not Quake III's layout.
    let upper = dir.join("trem_human_base/upper.md3");
    let plain = stdout(&idmodel(&[&"info", &upper]));
    assert!(plain.contains("37 entries"), "{plain}");
    assert!(plain.contains("15 fps"), "{plain}");
}

/// The offset of surface `i`'s name field in `bytes`.
fn surface_name_at(bytes: &[u8], i: usize) -> usize {
    header(bytes).surfaces[i].at + 4
}

/// The sample with surface 1 renamed `arml` (the engine cuts `arm_l` to `arm`, a
/// finding): a clean file.
fn clean_sample() -> Vec<u8> {
    let mut b = std::fs::read(sample()).unwrap();
    let at = surface_name_at(&b, 1);
    b[at..at + 64].fill(0);
    b[at..at + 4].copy_from_slice(b"arml");
    b
}

#[test]
fn check_exit_codes() {
    let dir = scratch("check");
    let clean = dir.join("clean.md3");
    std::fs::write(&clean, clean_sample()).unwrap();
    assert_check_ok(&clean, "quake3, ioq3", "ioq3", "quake2");

    // The sample itself: 'arm_l' is renamed by both engines, a warning: printed once
    // for both, exit 0 by default (--fail-on hazard) and 1 with --fail-on warning.
    let s = sample();
    let o = idmodel(&[&"check", &s]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let merged = format!(
        "{}: quake3, ioq3: warning: surface 1 'arm_l' is renamed 'arm'",
        s.display()
    );
    assert!(stdout(&o).starts_with(&merged), "{}", stdout(&o));
    let o = idmodel(&[&"check", &s, &"--fail-on", &"warning"]);
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o).lines().count(), 1, "{}", stdout(&o));
    assert!(stdout(&o).starts_with(&merged), "{}", stdout(&o));
    // Engine by engine, each says it.
    let mut lines = 0;
    for engine in ["quake3", "ioq3"] {
        let o = idmodel(&[&"check", &s, &"--engine", &engine, &"--fail-on", &"warning"]);
        assert_eq!(code(&o), 1);
        let out = stdout(&o);
        lines += out.lines().count();
        assert!(
            out.contains(&format!(
                "{}: {engine}: warning: surface 1 'arm_l' is renamed 'arm'",
                s.display()
            )),
            "{out}"
        );
    }
    assert_eq!(lines, 2);
    let o = idmodel(&[
        &"check",
        &s,
        &"--engine",
        &"quake3",
        &"--fail-on",
        &"warning",
    ]);
    assert_eq!((code(&o), stdout(&o).lines().count()), (1, 1));

    // A skin beside the model is checked against it.
    let skinned = dir.join("skinned");
    std::fs::create_dir_all(&skinned).unwrap();
    let lower = skinned.join("lower.md3");
    std::fs::write(&lower, clean_sample()).unwrap();
    std::fs::write(
        skinned.join("lower_default.skin"),
        "body,models/b.tga\narml,models/a.tga\nnosuch,models/x.tga\n",
    )
    .unwrap();
    let o = idmodel(&[
        &"check",
        &lower,
        &"--engine",
        &"ioq3",
        &"--fail-on",
        &"warning",
    ]);
    assert_eq!(code(&o), 1);
    assert!(
        stdout(&o).contains(
            "ioq3: lower_default.skin: warning: line 3: the model has no surface 'nosuch'"
        ),
        "{}",
        stdout(&o)
    );

    // Refused: truncated, a bad version, not a model.
    let full = std::fs::read(&s).unwrap();
    let cut = dir.join("cut.md3");
    std::fs::write(&cut, &full[..full.len() - 100]).unwrap();
    let mut v = full.clone();
    v[4..8].copy_from_slice(&16i32.to_le_bytes());
    let version = dir.join("version.md3");
    std::fs::write(&version, &v).unwrap();
    for (file, what) in [(&cut, "truncated"), (&version, "(at byte 4)")] {
        assert_refused_with_offset(&dir, file, what);
    }
}

/// The parts of a converted single-file scene this test checks, from the glTF JSON.
fn check_scene(j: &Value, bytes: &[u8], what: &str, frame: Option<usize>) {
    let h = header(bytes);
    let drawn: Vec<&Surf> = h
        .surfaces
        .iter()
        .filter(|s| s.num_verts > 0 && s.num_tris > 0 && s.num_frames > 0)
        .collect();
    let none = Vec::new();
    let all = j.get("meshes").and_then(Value::as_array).unwrap_or(&none);
    // When animated, one tag-frames mesh per tag (`frames of tag_…`: each tag's frames as
    // geometry, for editors that resample; a model of tags alone keys their weights), with
    // a target per frame after the first.
    let animated = frame.is_none() && h.num_frames > 1;
    let helpers: Vec<&Value> = all
        .iter()
        .filter(|m| {
            m["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("frames of tag"))
        })
        .collect();
    assert_eq!(
        helpers.len(),
        if animated { h.num_tags } else { 0 },
        "{what}: tag-frames meshes"
    );
    for m in &helpers {
        let targets = m["primitives"][0]["targets"].as_array().map_or(0, Vec::len);
        assert_eq!(targets + 1, h.num_frames, "{what}: tag frames");
    }
    if drawn.is_empty() {
        assert_eq!(
            all.len(),
            helpers.len(),
            "{what}: no mesh but the tag frames"
        );
    } else {
        let meshes: Vec<&Value> = all
            .iter()
            .filter(|m| {
                !m["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("frames of tag"))
            })
            .collect();
        assert_eq!(meshes.len(), 1, "{what}");
        let prims = meshes[0]["primitives"].as_array().unwrap();
        assert_eq!(
            prims.len(),
            drawn.len(),
            "{what}: one primitive per surface"
        );
        for (p, s) in prims.iter().zip(&drawn) {
            let pos = accessor(j, &p["attributes"]["POSITION"]);
            assert_eq!(pos["count"], s.num_verts, "{what}: {}", s.name);
            assert_eq!(
                accessor(j, &p["indices"])["count"],
                3 * s.num_tris,
                "{what}"
            );
            for attr in ["NORMAL", "TEXCOORD_0"] {
                assert!(p["attributes"].get(attr).is_some(), "{what}: {attr}");
            }
            let targets = p.get("targets").map_or(0, |t| t.as_array().unwrap().len());
            let animated = frame.is_none() && h.num_frames > 1;
            assert_eq!(
                targets,
                if animated { h.num_frames - 1 } else { 0 },
                "{what}: targets"
            );
        }
        if frame.is_none() && h.num_frames > 1 {
            // An unnamed frame's target is `frame<N>` (clients stop on empty names).
            let names: Vec<String> = (1..h.num_frames)
                .map(|f| match frame_name(bytes, &h, f) {
                    n if n.is_empty() => format!("frame{f}"),
                    n => n,
                })
                .collect();
            assert_target_names(meshes[0], &names, what);
        }
    }
    // Tags: one node each, children of the model's node.
    let (names, parent) = node_graph(j);
    for t in 0..h.num_tags {
        let (name, ..) = tag(bytes, &h, 0, t);
        if name.is_ascii() {
            let n = names[&name];
            assert_eq!(parent.get(&n), Some(&0), "{what}: {name} under the model");
        }
    }
    let anims = j
        .get("animations")
        .map_or(0, |a| a.as_array().unwrap().len());
    if frame.is_some() || h.num_frames == 1 {
        assert_eq!(anims, 0, "{what}: a still frame");
    } else if !drawn.is_empty() || h.num_tags > 0 {
        assert!(anims >= 1, "{what}: clips");
    }
}

#[test]
fn convert_to_glb_and_gltf_validates() {
    let dir = scratch("convert");
    let (s, bytes, h) = read_with(sample(), header);
    // Out of range: one line, exit 1, nothing written.
    assert_frame_out_of_range(&s, &dir.join("bad.glb"), 3);
    each_glb_and_gltf(
        &s,
        &dir,
        &["--frame", "2", "--keep-axes"],
        |name, out, j| {
            let frame = (name == "frame").then_some(2);
            let what = out.file_name().unwrap().to_string_lossy().into_owned();
            check_scene(j, &bytes, &what, frame);
            let base = frame.unwrap_or(0);
            let keep = name != "anim";
            let yup = |p: [f32; 3]| if keep { p } else { [p[1], p[2], p[0]] };
            // POSITION min/max of each surface in the base frame.
            for (p, surf) in j["meshes"][0]["primitives"]
                .as_array()
                .unwrap()
                .iter()
                .zip(&h.surfaces)
            {
                let (lo, hi) = bounds(positions(&bytes, surf, base)).unwrap();
                let pos = accessor(j, &p["attributes"]["POSITION"]);
                let (lo, hi) = (yup(lo), yup(hi));
                let (lo, hi) = (
                    [0, 1, 2].map(|k| lo[k].min(hi[k])),
                    [0, 1, 2].map(|k| lo[k].max(hi[k])),
                );
                assert_near3(&pos["min"], lo, &what);
                assert_near3(&pos["max"], hi, &what);
            }
            // Materials: the surfaces' shader names.
            let mats = name_list(&j["materials"]);
            let shaders: Vec<String> = h.surfaces.iter().filter_map(|s| s.shader.clone()).collect();
            assert_eq!(mats, shaders, "{what}");
            // No image file is in the game data: no image, never a URI to a missing file.
            assert!(j.get("images").is_none(), "{what}: {}", j["images"]);
            // The tag node sits at the tag of the base frame, turned to its axes.
            let (names, _) = node_graph(j);
            let (tname, origin, axis) = tag(&bytes, &h, base, 0);
            let node = &j["nodes"][names[&tname]];
            assert_near3(&node["translation"], yup(origin), &what);
            let q = node.get("rotation").map_or(vec![0.0, 0.0, 0.0, 1.0], nums);
            for (k, row) in axis.iter().enumerate() {
                let mut e = [0.0f32; 3];
                e[k] = 1.0;
                let e = yup(e).map(f64::from);
                let got = rotate(&q, e);
                let want = yup(*row);
                for c in 0..3 {
                    assert!(close(got[c], want[c]), "{what}: axis {k}: {got:?} {want:?}");
                }
            }
            if name != "frame" {
                // One clip of all 3 frames at the 15 fps default: weights, and the tag's
                // translation and rotation.
                let a = &j["animations"].as_array().unwrap()[0];
                assert_eq!(a["name"], "sample", "{what}");
                let paths: BTreeSet<&str> = a["channels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["target"]["path"].as_str().unwrap())
                    .collect();
                assert_eq!(
                    paths,
                    BTreeSet::from(["weights", "translation", "rotation"]),
                    "{what}"
                );
                let input = accessor(j, &a["samplers"][0]["input"]);
                assert_eq!(input["count"], h.num_frames, "{what}");
                let max = input["max"][0].as_f64().unwrap();
                assert!(close(max, (h.num_frames as f32 - 1.0) / 15.0), "{max}");
            }
        },
    );
}

/// The corpus files keep their structure through `convert` (the corpus test converts,
/// validates and renders every one of them too); the kyonshi legs get the cfg's clips.
#[test]
fn corpus_scenes_have_the_md3_structure() {
    convert_corpus_to_glb("scene structure", "md3", usize::MAX, |file, bytes, j| {
        check_scene(j, bytes, &file.display().to_string(), None);
        if file.ends_with("oa_kyonshi/lower.md3") {
            let clips = j["animations"].as_array().unwrap();
            // 6 BOTH + 12 LEGS + LEGS_BACKCR and LEGS_BACKWALK.
            assert_eq!(clips.len(), 20);
            let walk = clips.iter().find(|c| c["name"] == "LEGS_WALK").unwrap();
            let input = accessor(j, &walk["samplers"][0]["input"]);
            assert_eq!(input["count"], 7);
            // 15 fps: (int)(1000 / 15) = 66 ms a frame.
            assert!(close(input["max"][0].as_f64().unwrap(), 6.0 * 0.066));
            let mats: BTreeSet<&str> = name_list(&j["materials"]).into_iter().collect();
            assert!(
                mats.contains("models/players/kyonshi/dress.tga"),
                "{mats:?}"
            );
        }
    });
}

#[test]
fn convert_to_obj() {
    let (s, bytes, h) = read_with(sample(), header);
    each_obj(&s, &scratch("obj"), |frame, keep, out, text| {
        let verts: usize = h.surfaces.iter().map(|s| s.num_verts).sum();
        let tris: usize = h.surfaces.iter().map(|s| s.num_tris).sum();
        assert_obj_counts(text, verts, tris);
        let (lo, hi) = bounds(obj_vertices(text)).unwrap();
        let (wlo, whi) = bounds(
            h.surfaces
                .iter()
                .flat_map(|surf| positions(&bytes, surf, frame.unwrap_or(0))),
        )
        .unwrap();
        let yup = |p: [f32; 3]| if keep { p } else { [p[1], p[2], p[0]] };
        for k in 0..3 {
            assert!(close(f64::from(lo[k]), yup(wlo)[k]), "{lo:?} {wlo:?}");
            assert!(close(f64::from(hi[k]), yup(whi)[k]), "{hi:?} {whi:?}");
        }
        // The shaders' images are in no game data here: no map_Kd names a missing file
        // (every map_Kd is a file written beside), each shader is a material.
        let mtl = mtl_beside(out);
        for surf in &h.surfaces {
            let shader = surf.shader.as_deref().unwrap();
            assert!(
                mtl.contains(&format!("newmtl {}", shader.replace(' ', "_"))),
                "{mtl}"
            );
        }
    });
}

#[test]
fn render_draws_a_plausible_area() {
    let dir = scratch("render");
    let s = sample();
    assert_frames_render(&s, &dir, &["0", "2"]);
    // A model with tags and no surfaces is drawn as tag markers.
    let mut b = std::fs::read(&s).unwrap();
    b[84..88].copy_from_slice(&0i32.to_le_bytes());
    let tags_only = dir.join("tags.md3");
    std::fs::write(&tags_only, &b).unwrap();
    let fraction = render_coverage(&tags_only, &dir.join("tags.png"), &[]);
    assert!((0.005..=0.9).contains(&fraction), "tags: {fraction}");
}

// ---------------------------------------------------------------------------------------
// Player folders

/// A copy of `bytes` with every tag (all frames) renamed `name`.
fn rename_tags(bytes: &[u8], name: &str) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let h = header(&b);
    for i in 0..h.num_frames * h.num_tags {
        let at = h.ofs_tags + 112 * i;
        b[at..at + 64].fill(0);
        b[at..at + name.len()].copy_from_slice(name.as_bytes());
    }
    b
}

/// A player folder made from the sample: lower's tag is `tag_torso`, upper's `tag_head`.
fn sample_player(dir: &Path) -> PathBuf {
    let p = dir.join("sampleplayer");
    std::fs::create_dir_all(&p).unwrap();
    let s = clean_sample();
    std::fs::write(p.join("lower.md3"), rename_tags(&s, "tag_torso")).unwrap();
    std::fs::write(p.join("upper.md3"), rename_tags(&s, "tag_head")).unwrap();
    std::fs::write(p.join("head.md3"), &s).unwrap();
    std::fs::write(
        p.join("head_default.skin"),
        "body,models/head.tga\narml,models/head.tga\n",
    )
    .unwrap();
    p
}

/// The assembled scene's structure: upper under lower's tag_torso, head under upper's
/// tag_head, the head's materials from its skin.
fn check_player(j: &Value, what: &str) {
    let (names, parent) = node_graph(j);
    let n = |s: &str| {
        *names
            .get(s)
            .unwrap_or_else(|| panic!("{what}: no node {s}"))
    };
    let node_name = |i: usize| j["nodes"][i]["name"].as_str().unwrap().to_owned();
    let (lower, upper, head) = (n("lower"), n("upper"), n("head"));
    assert_eq!(node_name(parent[&upper]), "tag_torso", "{what}");
    assert_eq!(parent[&parent[&upper]], lower, "{what}");
    assert_eq!(node_name(parent[&head]), "tag_head", "{what}");
    assert_eq!(parent[&parent[&head]], upper, "{what}");
    for part in [lower, upper, head] {
        assert!(j["nodes"][part].get("mesh").is_some(), "{what}");
    }
}

#[test]
fn player_folders_are_assembled() {
    let dir = scratch("player");
    let player = sample_player(&dir);
    let mut written = Vec::new();
    for ext in ["glb", "gltf"] {
        let out = dir.join(format!("player.{ext}"));
        let o = idmodel(&[&"convert", &player, &"-o", &out]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        common::assert_contains(&stdout(&o), "assembled the Quake III player");
        let j = scene_json(&out);
        check_player(&j, ext);
        // No animation.cfg: one all-frames clip per animated part.
        let clips = name_list(&j["animations"]);
        assert_eq!(clips, ["lower", "upper"]);
        let mats = name_list(&j["materials"]);
        assert!(mats.contains(&"models/head.tga"), "{mats:?}");
        written.push(out);
    }
    // An output folder gets <folder name>.glb.
    let outdir = dir.join("outdir");
    convert(&player, &outdir, &[]);
    assert!(outdir.join("sampleplayer.glb").exists());
    // One frame: no clips; .obj has the three parts.
    let still = dir.join("still.glb");
    convert(&player, &still, &["--frame", "1"]);
    assert!(glb_json(&still).get("animations").is_none());
    written.push(still);
    let obj = dir.join("player.obj");
    convert(&player, &obj, &[]);
    let text = std::fs::read_to_string(&obj).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("v ")).count(), 3 * 8);
    // Without head.md3 the folder is a batch again.
    std::fs::remove_file(player.join("head.md3")).unwrap();
    let batch = dir.join("batch");
    let o = idmodel(&[&"convert", &player, &"-o", &batch]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("converted 2 of 2"), "{}", stdout(&o));
    assert!(batch.join("lower.glb").exists() && batch.join("upper.glb").exists());
    validate(&written);
}

#[test]
fn corpus_players_are_assembled_with_their_clips() {
    let Some(root) = corpus_dir("players") else {
        return;
    };
    let dir = scratch("corpus-players");
    let mut written = Vec::new();
    for name in ["oa_kyonshi", "trem_human_base"] {
        let out = dir.join(format!("{name}.glb"));
        let o = idmodel(&[&"convert", &root.join(name), &"-o", &out]);
        assert_eq!(code(&o), 0, "{name}: {}", stderr(&o));
        let j = glb_json(&out);
        check_player(&j, name);
        let (names, _) = node_graph(&j);
        let clips = j["animations"].as_array().unwrap();
        let targets = |clip: &Value| -> BTreeSet<usize> {
            clip["channels"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["target"]["path"] == "weights")
                .map(|c| c["target"]["node"].as_u64().unwrap() as usize)
                .collect()
        };
        let clip = |n: &str| clips.iter().find(|c| c["name"] == n);
        if name == "oa_kyonshi" {
            // 6 BOTH + 12 LEGS + 2 derived + 7 TORSO.
            assert_eq!(clips.len(), 27);
            let (lower, upper) = (names["lower"], names["upper"]);
            assert_eq!(
                targets(clip("BOTH_DEATH1").unwrap()),
                BTreeSet::from([lower, upper])
            );
            assert_eq!(targets(clip("LEGS_WALK").unwrap()), BTreeSet::from([lower]));
            assert_eq!(
                targets(clip("TORSO_STAND").unwrap()),
                BTreeSet::from([upper])
            );
            // LEGS_WALK moves the torso: tag_torso is animated.
            let tag_torso = names["tag_torso"];
            assert!(
                clip("LEGS_WALK").unwrap()["channels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["target"]["node"] == tag_torso
                        && c["target"]["path"] == "translation")
            );
        } else {
            // Not a Quake III animation.cfg: one clip of all frames per part.
            let names: Vec<&str> = clips.iter().map(|c| c["name"].as_str().unwrap()).collect();
            assert_eq!(names, ["lower", "upper"]);
        }
        written.push(out);
    }
    validate(&written);
}
