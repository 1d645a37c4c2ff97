//! The `idmodel` binary on Doom 3 MD5 files (md5mesh, md5anim, md5camera): `info --json`
//! against values computed here from the text (a small tokenizer and Doom's skinning
//! written out again, not through idmodel-md5), `check` exit codes, `convert` to
//! `.glb`/`.gltf` (structure checked, glTF skinning compared with the posed `.obj`, and
//! validated by the Khronos validator when Node.js and the validator are installed) and
//! `.obj`, `render`, and `--anim` compatibility.
//!
//! Corpus files come from `$IDMODEL_CORPUS/md5` (skipped with a notice when unset).
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use common::sample_file as sample;
use common::{
    assert_close3, bounds, close_to, code, convert, corpus_files, corpus_subdir, glb, idmodel,
    info_json, node_parents, nums, render_coverage, scratch, stderr, stdout, validate,
};

/// `$IDMODEL_CORPUS/md5`, or `None` (with a notice) when unset.
fn corpus_dir(test: &str) -> Option<PathBuf> {
    corpus_subdir(test, "md5")
}

/// Every MD5 file under `$IDMODEL_CORPUS/md5`, or empty (with a notice) when unset.
fn corpus_md5(test: &str) -> Vec<PathBuf> {
    corpus_files(test, "md5", &["md5mesh", "md5anim", "md5camera"]).unwrap_or_default()
}

fn kind(p: &Path) -> Option<&'static str> {
    let ext = p.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "md5mesh" => Some("md5mesh"),
        "md5anim" => Some("md5anim"),
        "md5camera" => Some("md5camera"),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Reading the text independently: a few lines of tokenizing and Doom's skinning.

#[derive(Debug, Clone)]
struct Tok {
    text: String,
    quoted: bool,
}

/// Whitespace-separated tokens, `"strings"`, `( ) { }` on their own, `//` and `/* */`
/// comments skipped.
fn tokens(src: &[u8]) -> Vec<Tok> {
    let s = String::from_utf8_lossy(src);
    let c: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if ch == '"' {
            let start = i + 1;
            i = start;
            while i < c.len() && c[i] != '"' {
                i += 1;
            }
            out.push(Tok {
                text: c[start..i.min(c.len())].iter().collect(),
                quoted: true,
            });
            i += 1;
        } else if "(){}".contains(ch) {
            out.push(Tok {
                text: ch.to_string(),
                quoted: false,
            });
            i += 1;
        } else {
            let start = i;
            while i < c.len() && !c[i].is_whitespace() && !"(){}\"".contains(c[i]) {
                i += 1;
            }
            out.push(Tok {
                text: c[start..i].iter().collect(),
                quoted: false,
            });
        }
    }
    out
}

struct Cursor {
    toks: Vec<Tok>,
    at: usize,
}

impl Cursor {
    fn new(src: &[u8]) -> Self {
        Self {
            toks: tokens(src),
            at: 0,
        }
    }
    fn next(&mut self) -> Tok {
        self.at += 1;
        self.toks[self.at - 1].clone()
    }
    fn num(&mut self) -> f64 {
        let t = self.next().text;
        t.parse::<f64>()
            .unwrap_or_else(|_| panic!("not a number: {t}"))
    }
    fn int(&mut self) -> i64 {
        self.num() as i64
    }
    /// Skips to just after the next unquoted `word`.
    fn seek(&mut self, word: &str) {
        while self.toks[self.at].text != word || self.toks[self.at].quoted {
            self.at += 1;
        }
        self.at += 1;
    }
    fn vec3(&mut self) -> [f64; 3] {
        assert_eq!(self.next().text, "(");
        let v = [self.num(), self.num(), self.num()];
        assert_eq!(self.next().text, ")");
        v
    }
}

struct RawMesh {
    shader: String,
    verts: Vec<([f64; 2], usize, usize)>,
    tris: Vec<[usize; 3]>,
    weights: Vec<(usize, f64, [f64; 3])>,
}

struct RawModel {
    joints: Vec<(String, i64, [f64; 3], [f64; 3])>,
    meshes: Vec<RawMesh>,
}

fn read_md5mesh(src: &[u8]) -> RawModel {
    let mut c = Cursor::new(src);
    c.seek("numJoints");
    let num_joints = c.int() as usize;
    c.seek("numMeshes");
    let num_meshes = c.int() as usize;
    c.seek("joints");
    assert_eq!(c.next().text, "{");
    let joints = (0..num_joints)
        .map(|_| {
            let name = c.next().text;
            let parent = c.int();
            (name, parent, c.vec3(), c.vec3())
        })
        .collect();
    let mut meshes = Vec::new();
    for _ in 0..num_meshes {
        c.seek("mesh");
        assert_eq!(c.next().text, "{");
        let mut m = RawMesh {
            shader: String::new(),
            verts: Vec::new(),
            tris: Vec::new(),
            weights: Vec::new(),
        };
        loop {
            let t = c.next();
            if t.quoted {
                continue;
            }
            match t.text.as_str() {
                "}" => break,
                "shader" => m.shader = c.next().text,
                "name" => {
                    c.next();
                }
                "vert" => {
                    c.next();
                    assert_eq!(c.next().text, "(");
                    let uv = [c.num(), c.num()];
                    assert_eq!(c.next().text, ")");
                    let first = c.int() as usize;
                    let n = c.int() as usize;
                    m.verts.push((uv, first, n));
                }
                "tri" => {
                    c.next();
                    m.tris
                        .push([c.int() as usize, c.int() as usize, c.int() as usize]);
                }
                "weight" => {
                    c.next();
                    let joint = c.int() as usize;
                    let bias = c.num();
                    m.weights.push((joint, bias, c.vec3()));
                }
                _ => {}
            }
        }
        meshes.push(m);
    }
    RawModel { joints, meshes }
}

/// Doom's rotation of `v` by stored `(x, y, z)`: `w = √|1 − x² − y² − z²|`, and the
/// vector is multiplied by the transpose of the standard matrix `R(q)` (docs/formats.md §4.5).
fn doom_rotate(xyz: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    let [x, y, z] = xyz;
    let w = (1.0 - (x * x + y * y + z * z)).abs().sqrt();
    let r = idmodel_test_support::rotation_matrix([x, y, z, w]);
    [0, 1, 2].map(|k| r[0][k] * v[0] + r[1][k] * v[1] + r[2][k] * v[2])
}

/// Bind-pose positions of every vertex of every mesh (`Σ bias · (joint ⊗ offset)`).
fn bind_positions(m: &RawModel) -> Vec<Vec<[f64; 3]>> {
    m.meshes
        .iter()
        .map(|mesh| {
            mesh.verts
                .iter()
                .map(|&(_, first, n)| {
                    let mut p = [0.0; 3];
                    for &(j, bias, off) in &mesh.weights[first..first + n] {
                        let (_, _, t, q) = &m.joints[j];
                        let r = doom_rotate(*q, off);
                        for k in 0..3 {
                            p[k] += bias * (r[k] + t[k]);
                        }
                    }
                    p
                })
                .collect()
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    close_to(a, b, 1e-3)
}

fn assert_near3(got: &Value, want: [f64; 3], what: &str) {
    assert_close3(got, want, 1e-3, what);
}

// ---------------------------------------------------------------------------------------
// Reading glTF output

/// Accessor `i` as rows of numbers (floats, or unsigned integers as floats).
fn read_accessor(j: &Value, bin: &[u8], i: usize) -> Vec<Vec<f64>> {
    let a = &j["accessors"][i];
    let view = &j["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let comps = match a["type"].as_str().unwrap() {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        t => panic!("type {t}"),
    };
    let (size, read): (usize, fn(&[u8]) -> f64) = match a["componentType"].as_u64().unwrap() {
        5126 => (4, |b| f64::from(f32::from_le_bytes(b.try_into().unwrap()))),
        5125 => (4, |b| f64::from(u32::from_le_bytes(b.try_into().unwrap()))),
        5123 => (2, |b| f64::from(u16::from_le_bytes(b.try_into().unwrap()))),
        5121 => (1, |b| f64::from(b[0])),
        t => panic!("componentType {t}"),
    };
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
        + a["byteOffset"].as_u64().unwrap_or(0) as usize;
    let stride = view["byteStride"]
        .as_u64()
        .map_or(size * comps, |s| s as usize);
    (0..a["count"].as_u64().unwrap() as usize)
        .map(|r| {
            (0..comps)
                .map(|k| {
                    let at = start + r * stride + k * size;
                    read(&bin[at..at + size])
                })
                .collect()
        })
        .collect()
}

fn attr(j: &Value, bin: &[u8], prim: &Value, name: &str) -> Option<Vec<Vec<f64>>> {
    prim["attributes"]
        .get(name)
        .map(|i| read_accessor(j, bin, i.as_u64().unwrap() as usize))
}

type Mat4 = [f64; 16];

/// An accessor's rows.
type Rows = Vec<Vec<f64>>;

fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut m = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            m[c * 4 + r] = (0..4).map(|k| a[k * 4 + r] * b[c * 4 + k]).sum();
        }
    }
    m
}

fn transform(m: &Mat4, p: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|r| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
}

/// A node's local matrix from its TRS (no scale in these files).
fn local_matrix(n: &Value) -> Mat4 {
    let t = n.get("translation").map_or(vec![0.0; 3], nums);
    let q = n.get("rotation").map_or(vec![0.0, 0.0, 0.0, 1.0], nums);
    let (x, y, z, w) = (q[0], q[1], q[2], q[3]);
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y + w * z),
        2.0 * (x * z - w * y),
        0.0,
        2.0 * (x * y - w * z),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z + w * x),
        0.0,
        2.0 * (x * z + w * y),
        2.0 * (y * z - w * x),
        1.0 - 2.0 * (x * x + y * y),
        0.0,
        t[0],
        t[1],
        t[2],
        1.0,
    ]
}

/// Every node's world matrix.
fn world_matrices(j: &Value) -> Vec<Mat4> {
    let nodes = j["nodes"].as_array().unwrap();
    let parent = node_parents(j);
    (0..nodes.len())
        .map(|mut i| {
            let mut m = local_matrix(&nodes[i]);
            while let Some(&p) = parent.get(&i) {
                m = mat_mul(&local_matrix(&nodes[p]), &m);
                i = p;
            }
            m
        })
        .collect()
}

/// The skinned positions of every primitive of the skinned mesh, in order (glTF's linear
/// blend skinning: `Σ w · world(joint) · IBM(joint) · p`).
fn gltf_skinned(j: &Value, bin: &[u8]) -> Vec<[f64; 3]> {
    let world = world_matrices(j);
    let node = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n.get("skin").is_some())
        .expect("a skinned node");
    let skin = &j["skins"][node["skin"].as_u64().unwrap() as usize];
    let joints: Vec<usize> = skin["joints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let ibm = read_accessor(
        j,
        bin,
        skin["inverseBindMatrices"].as_u64().unwrap() as usize,
    );
    let joint_mats: Vec<Mat4> = joints
        .iter()
        .zip(&ibm)
        .map(|(&n, m)| mat_mul(&world[n], &m.clone().try_into().unwrap()))
        .collect();
    let mesh = &j["meshes"][node["mesh"].as_u64().unwrap() as usize];
    let mut out = Vec::new();
    for prim in mesh["primitives"].as_array().unwrap() {
        let pos = attr(j, bin, prim, "POSITION").unwrap();
        let sets: Vec<(Rows, Rows)> = ["0", "1"]
            .iter()
            .filter_map(|s| {
                Some((
                    attr(j, bin, prim, &format!("JOINTS_{s}"))?,
                    attr(j, bin, prim, &format!("WEIGHTS_{s}"))?,
                ))
            })
            .collect();
        assert!(!sets.is_empty(), "JOINTS_0/WEIGHTS_0 missing");
        for (v, p) in pos.iter().enumerate() {
            let mut acc = [0.0; 3];
            let mut total = 0.0;
            for (js, ws) in &sets {
                for k in 0..4 {
                    let w = ws[v][k];
                    total += w;
                    let q = transform(&joint_mats[js[v][k] as usize], [p[0], p[1], p[2]]);
                    for c in 0..3 {
                        acc[c] += w * q[c];
                    }
                }
            }
            assert!(
                (total - 1.0).abs() < 1e-3,
                "weights of vertex {v} sum to {total}"
            );
            out.push(acc);
        }
    }
    out
}

/// The `v` lines of an `.obj`.
fn obj_positions(path: &Path) -> Vec<[f64; 3]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

// ---------------------------------------------------------------------------------------

#[test]
fn info_json_matches_the_text() {
    let mut files = vec![sample("md5mesh"), sample("md5anim"), sample("md5camera")];
    files.extend(corpus_md5("info"));
    for f in &files {
        let what = f.display().to_string();
        let src = std::fs::read(f).unwrap();
        let j = info_json(f);
        let k = kind(f).unwrap();
        assert_eq!(j["format"], k, "{what}");
        match k {
            "md5mesh" => {
                let m = read_md5mesh(&src);
                assert_eq!(j["frames"], 0, "{what}");
                assert_eq!(j["meshes"], m.meshes.len(), "{what}");
                assert_eq!(j["joints"], m.joints.len(), "{what}");
                let verts: usize = m.meshes.iter().map(|m| m.verts.len()).sum();
                let tris: usize = m.meshes.iter().map(|m| m.tris.len()).sum();
                assert_eq!(j["vertices"], verts, "{what}");
                assert_eq!(j["triangles"], tris, "{what}");
                assert!(j.get("skins").is_none() && j.get("surfaces").is_none());
                match bounds(bind_positions(&m).into_iter().flatten()) {
                    Some((lo, hi)) => {
                        assert_near3(&j["bounds"]["min"], lo, &what);
                        assert_near3(&j["bounds"]["max"], hi, &what);
                    }
                    None => assert!(j["bounds"].is_null(), "{what}"),
                }
            }
            "md5anim" => {
                let mut c = Cursor::new(&src);
                c.seek("numFrames");
                let frames = c.int();
                c.seek("numJoints");
                let joints = c.int();
                c.seek("bounds");
                assert_eq!(c.next().text, "{");
                let (lo, hi) = (c.vec3(), c.vec3());
                assert_eq!(j["frames"], frames, "{what}");
                assert_eq!(j["joints"], joints, "{what}");
                assert_eq!(
                    (j["vertices"].as_u64(), j["triangles"].as_u64()),
                    (Some(0), Some(0))
                );
                assert!(j.get("meshes").is_none(), "{what}");
                assert_near3(&j["bounds"]["min"], lo, &what);
                assert_near3(&j["bounds"]["max"], hi, &what);
            }
            _ => {
                let mut c = Cursor::new(&src);
                c.seek("numFrames");
                assert_eq!(j["frames"], c.int(), "{what}");
                assert_eq!(
                    (j["vertices"].as_u64(), j["triangles"].as_u64()),
                    (Some(0), Some(0))
                );
                assert!(j.get("joints").is_none() && j.get("meshes").is_none());
                assert!(j["bounds"].is_null(), "{what}");
            }
        }
    }
    // The plain output names the shader and the joints.
    let o = idmodel(&[&"info", &sample("md5mesh")]);
    assert_eq!(code(&o), 0);
    let text = stdout(&o);
    assert!(text.contains("models/samples/column"), "{text}");
    assert!(text.contains("origin, lower, upper"), "{text}");
}

fn edited(dir: &Path, name: &str, from: &Path, find: &str, replace: &str) -> PathBuf {
    let text = std::fs::read_to_string(from).unwrap();
    assert!(text.contains(find), "{find}");
    let p = dir.join(name);
    std::fs::write(&p, text.replacen(find, replace, 1)).unwrap();
    p
}

#[test]
fn check_exit_codes() {
    let dir = scratch("check");
    for ext in ["md5mesh", "md5anim", "md5camera"] {
        let o = idmodel(&[&"check", &sample(ext)]);
        assert_eq!(code(&o), 0, "{ext}: {}{}", stdout(&o), stderr(&o));
        assert!(stdout(&o).contains("ok (doom3)"), "{}", stdout(&o));
        let o = idmodel(&[&"check", &sample(ext), &"--engine", &"doom3"]);
        assert_eq!(code(&o), 0);
        let o = idmodel(&[&"check", &sample(ext), &"--engine", &"quake3"]);
        assert_eq!(
            code(&o),
            2,
            "an engine that does not load MD5 is a usage error"
        );
    }
    // Findings: biases that do not add up to 1, frameRate 0, a comment that eats a digit.
    let cases = [
        edited(
            &dir,
            "bias.md5mesh",
            &sample("md5mesh"),
            "weight 0 1 1 (",
            "weight 0 1 0.5 (",
        ),
        edited(
            &dir,
            "rate.md5anim",
            &sample("md5anim"),
            "frameRate 24",
            "frameRate 0",
        ),
        edited(
            &dir,
            "comment.md5camera",
            &sample("md5camera"),
            "numCuts 1",
            "numCuts /* x */11",
        ),
    ];
    for f in &cases {
        // Some are warnings only: --fail-on warning makes every finding exit 1.
        let o = idmodel(&[&"check", f, &"--fail-on", &"warning"]);
        let out = stdout(&o);
        assert_eq!(code(&o), 1, "{}: {out}{}", f.display(), stderr(&o));
        assert!(
            out.lines().count() >= 1 && out.contains(": doom3: "),
            "{out}"
        );
    }
    let o = idmodel(&[&"check", &cases[0]]);
    assert!(stdout(&o).contains("do not add up to 1"), "{}", stdout(&o));
    // Refused: a truncated mesh, a bad parent, a cut out of range: exit 1, one line with
    // the line and column.
    let src = std::fs::read(sample("md5mesh")).unwrap();
    let cut = dir.join("cut.md5mesh");
    std::fs::write(&cut, &src[..src.len() / 2]).unwrap();
    let bad_cut = edited(
        &dir,
        "badcut.md5camera",
        &sample("md5camera"),
        "\t2\n",
        "\t9\n",
    );
    for f in [&cut, &bad_cut] {
        for cmd in ["check", "info", "convert"] {
            let out = dir.join("out.glb");
            let o = if cmd == "convert" {
                idmodel(&[&cmd, f, &"-o", &out])
            } else {
                idmodel(&[&cmd, f])
            };
            let err = stderr(&o);
            assert_eq!(code(&o), 1, "{cmd} {}: {err}", f.display());
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("line ") && err.contains("column "), "{err}");
            assert!(!err.contains("panick"), "{err}");
        }
    }
    // Every malformed corpus file: exit 1 and one line.
    if let Some(root) = corpus_dir("check") {
        let malformed = root.join("../malformed/md5");
        for e in std::fs::read_dir(&malformed).unwrap().flatten() {
            let o = idmodel(&[&"check", &e.path()]);
            let err = stderr(&o);
            assert_eq!(code(&o), 1, "{}: {err}", e.path().display());
            assert!(err.lines().count() <= 1 && !err.contains("panick"), "{err}");
        }
    }
}

#[test]
fn convert_to_glb_and_gltf_validates() {
    let dir = scratch("convert");
    let (mesh, anim, cam) = (sample("md5mesh"), sample("md5anim"), sample("md5camera"));
    let mut written = Vec::new();
    let mut run = |args: &[&dyn AsRef<std::ffi::OsStr>], out: &Path| {
        let o = idmodel(args);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        written.push(out.to_path_buf());
    };
    let m = dir.join("mesh.glb");
    run(&[&"convert", &mesh, &"-o", &m, &"--keep-axes"], &m);
    let ma = dir.join("mesh_anim.glb");
    run(&[&"convert", &mesh, &"--anim", &anim, &"-o", &ma], &ma);
    let mg = dir.join("mesh_anim.gltf");
    run(
        &[
            &"convert", &mesh, &"--anim", &anim, &"--anim", &anim, &"-o", &mg,
        ],
        &mg,
    );
    let a = dir.join("anim.glb");
    run(&[&"convert", &anim, &"-o", &a, &"--keep-axes"], &a);
    let c = dir.join("camera.glb");
    run(&[&"convert", &cam, &"-o", &c, &"--keep-axes"], &c);
    let cg = dir.join("camera.gltf");
    run(&[&"convert", &cam, &"-o", &cg], &cg);
    let f = dir.join("frame.glb");
    run(
        &[
            &"convert", &mesh, &"--anim", &anim, &"--frame", &"4", &"-o", &f,
        ],
        &f,
    );

    // The mesh: a skin of 3 joints, bind-pose positions whose bounds are the info bounds.
    let (j, bin) = glb(&m);
    assert_eq!(j["skins"][0]["joints"].as_array().unwrap().len(), 3);
    let names: Vec<&str> = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap_or(""))
        .collect();
    for want in ["origin", "lower", "upper"] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert_eq!(j["materials"][0]["name"], "models/samples/column");
    let prim = &j["meshes"][0]["primitives"][0];
    for a in ["POSITION", "NORMAL", "TEXCOORD_0", "JOINTS_0", "WEIGHTS_0"] {
        assert!(prim["attributes"].get(a).is_some(), "{a}");
    }
    let raw = read_md5mesh(&std::fs::read(&mesh).unwrap());
    let (lo, hi) = bounds(bind_positions(&raw).into_iter().flatten()).unwrap();
    let pos = &j["accessors"][prim["attributes"]["POSITION"].as_u64().unwrap() as usize];
    assert_near3(&pos["min"], lo, "POSITION min");
    assert_near3(&pos["max"], hi, "POSITION max");
    // In the bind pose, glTF skinning leaves every vertex where Doom puts it.
    let skinned = gltf_skinned(&j, &bin);
    let flat: Vec<[f64; 3]> = bind_positions(&raw).into_iter().flatten().collect();
    for p in &skinned {
        assert!(
            flat.iter().any(|q| (0..3).all(|k| close(p[k], q[k]))),
            "{p:?} is not a bind-pose vertex"
        );
    }
    assert!(j.get("animations").is_none());

    // With --anim: one clip per anim, translation and rotation on every joint.
    let (j, _) = glb(&ma);
    let clips = j["animations"].as_array().unwrap();
    assert_eq!(clips.len(), 1);
    assert_eq!(clips[0]["name"], "sample");
    assert_eq!(clips[0]["channels"].as_array().unwrap().len(), 6);
    let gltf: Value = serde_json::from_slice(&std::fs::read(&mg).unwrap()).unwrap();
    assert_eq!(gltf["animations"].as_array().unwrap().len(), 2);
    let (j, _) = glb(&f);
    assert!(
        j.get("animations").is_none(),
        "--frame exports no animation"
    );

    // The anim alone: joint nodes, one clip, no mesh.
    let (j, bin) = glb(&a);
    assert!(j.get("meshes").is_none());
    assert_eq!(j["nodes"].as_array().unwrap().len(), 3);
    let clip = &j["animations"][0];
    // "upper" rotates about x (flag 8): its rotation sampler has 5 keys at 24 fps.
    let upper = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "upper")
        .unwrap();
    let ch = clip["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == upper && c["target"]["path"] == "rotation")
        .unwrap();
    let sampler = &clip["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    let times = read_accessor(&j, &bin, sampler["input"].as_u64().unwrap() as usize);
    let want: Vec<f64> = (0..5).map(|k| f64::from(k as f32 / 24.0)).collect();
    assert_eq!(times.len(), 5);
    for (t, w) in times.iter().zip(&want) {
        assert!((t[0] - w).abs() < 1e-5, "{times:?}");
    }
    // Frame 2 of "upper": stored (0.25, 0, 0), w = +√(1 − 0.0625); glTF takes the
    // conjugate: (−0.25, 0, 0, w) up to sign.
    let q = read_accessor(&j, &bin, sampler["output"].as_u64().unwrap() as usize);
    let w = (1.0f64 - 0.0625).sqrt();
    let s = q[2][3].signum();
    for (got, want) in q[2].iter().zip([-0.25, 0.0, 0.0, w]) {
        assert!((got * s - want).abs() < 1e-4, "{:?}", q[2]);
    }

    // The camera: vertical fov from 90° horizontal at 4:3, six keys with the cut kept.
    let (j, bin) = glb(&c);
    let cam_json = &j["cameras"][0]["perspective"];
    let yfov = 2.0 * ((45.0f64).to_radians().tan() / (4.0 / 3.0)).atan();
    assert!((cam_json["yfov"].as_f64().unwrap() - yfov).abs() < 1e-5);
    let clip = &j["animations"][0];
    let ch = clip["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["path"] == "translation")
        .unwrap();
    let sampler = &clip["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    assert_eq!(sampler["interpolation"], "LINEAR");
    let times = read_accessor(&j, &bin, sampler["input"].as_u64().unwrap() as usize);
    let values = read_accessor(&j, &bin, sampler["output"].as_u64().unwrap() as usize);
    // 30 fps, cut 2: frames 0, 1 (up to the cut), then 3, 4, 5; frame 2 is only the
    // target reached just before the cut.
    let t: Vec<f64> = times.iter().map(|t| t[0]).collect();
    assert_eq!(t.len(), 6, "{t:?}");
    assert!((t[2] - 2.0 / 30.0).abs() < 1e-3 && t[2] < t[3], "{t:?}");
    assert!(
        (t[3] - 2.0 / 30.0).abs() < 1e-6 && (t[5] - 4.0 / 30.0).abs() < 1e-6,
        "{t:?}"
    );
    let want = [
        [-32.0, 0.0, 4.0],
        [-32.0, 4.0, 4.0],
        [-32.0, 8.0, 4.0],
        [0.0, -32.0, 4.0],
        [4.0, -32.0, 4.0],
        [8.0, -32.0, 4.0],
    ];
    for (v, w) in values.iter().zip(want) {
        assert_eq!(v.as_slice(), w.as_slice(), "{values:?}");
    }

    // Corpus meshes, alone and with the anims that go with them.
    if let Some(root) = corpus_dir("convert") {
        let pairs: [(&str, &[&str]); 4] = [
            ("Bob.md5mesh", &["Bob.md5anim"]),
            (
                "blaster_view.md5mesh",
                &["blaster_view_fire.md5anim", "blaster_view_idle.md5anim"],
            ),
            (
                "unv_level0_body.md5mesh",
                &["unv_level0_jump.md5anim", "unv_level0_run.md5anim"],
            ),
            ("ffflag.md5mesh", &["ffflag.md5anim"]),
        ];
        for (i, (mesh, anims)) in pairs.iter().enumerate() {
            let out = dir.join(format!("pair{i}.glb"));
            let mut args: Vec<PathBuf> =
                vec!["convert".into(), root.join(mesh), "-o".into(), out.clone()];
            for a in *anims {
                args.push("--anim".into());
                args.push(root.join(a));
            }
            let refs: Vec<&dyn AsRef<std::ffi::OsStr>> = args
                .iter()
                .map(|a| a as &dyn AsRef<std::ffi::OsStr>)
                .collect();
            let o = idmodel(&refs);
            assert_eq!(code(&o), 0, "{mesh}: {}", stderr(&o));
            let (j, _) = glb(&out);
            assert_eq!(
                j["animations"].as_array().unwrap().len(),
                anims.len(),
                "{mesh}"
            );
            written.push(out);
        }
        for (i, f) in corpus_md5("convert").iter().enumerate() {
            for ext in ["glb", "gltf"] {
                let out = dir.join(format!("corpus{i}.{ext}"));
                let o = idmodel(&[&"convert", f, &"-o", &out]);
                assert_eq!(code(&o), 0, "{}: {}", f.display(), stderr(&o));
                written.push(out);
            }
        }
    }
    validate(&written);
}

#[test]
fn gltf_skinning_matches_the_posed_obj() {
    let dir = scratch("skinning");
    let mut cases = vec![(sample("md5mesh"), sample("md5anim"), "3")];
    if let Some(root) = corpus_dir("skinning") {
        cases.push((root.join("Bob.md5mesh"), root.join("Bob.md5anim"), "40"));
        cases.push((
            root.join("unv_level0_body.md5mesh"),
            root.join("unv_level0_run.md5anim"),
            "5",
        ));
    }
    for (i, (mesh, anim, frame)) in cases.iter().enumerate() {
        let g = dir.join(format!("{i}.glb"));
        let obj = dir.join(format!("{i}.obj"));
        for out in [&g, &obj] {
            let o = idmodel(&[
                &"convert",
                mesh,
                &"--anim",
                anim,
                &"--frame",
                frame,
                &"--keep-axes",
                &"-o",
                out,
            ]);
            assert_eq!(code(&o), 0, "{}", stderr(&o));
        }
        let (j, bin) = glb(&g);
        let skinned = gltf_skinned(&j, &bin);
        let posed = obj_positions(&obj);
        assert_eq!(skinned.len(), posed.len(), "{}", mesh.display());
        let scale = posed.iter().flatten().fold(1.0f64, |m, x| m.max(x.abs()));
        for (v, (a, b)) in skinned.iter().zip(&posed).enumerate() {
            for k in 0..3 {
                assert!(
                    (a[k] - b[k]).abs() <= 2e-3 * scale,
                    "{} vertex {v}: glTF {a:?}, Doom {b:?}",
                    mesh.display()
                );
            }
        }
    }
}

#[test]
fn anim_compatibility_and_frames() {
    let dir = scratch("anims");
    let (mesh, anim) = (sample("md5mesh"), sample("md5anim"));
    let out = dir.join("out.glb");
    // Different names: applied by index with a warning.
    let renamed = edited(&dir, "renamed.md5anim", &anim, "\"upper\"", "\"top\"");
    let o = idmodel(&[&"convert", &mesh, &"--anim", &renamed, &"-o", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning") && stderr(&o).contains("\"top\""),
        "{}",
        stderr(&o)
    );
    // Different parents: refused, naming the joint.
    let reparented = edited(
        &dir,
        "parents.md5anim",
        &anim,
        "\"upper\"\t1 8 1",
        "\"upper\"\t0 8 1",
    );
    let o = idmodel(&[&"convert", &mesh, &"--anim", &reparented, &"-o", &out]);
    assert_eq!(code(&o), 1);
    let err = stderr(&o);
    assert!(
        err.contains("does not fit") && err.contains("joint 2"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    // A different joint count.
    if let Some(root) = corpus_dir("anims") {
        let o = idmodel(&[
            &"convert",
            &mesh,
            &"--anim",
            &root.join("Bob.md5anim"),
            &"-o",
            &out,
        ]);
        assert_eq!(code(&o), 1);
        common::assert_contains(&stderr(&o), "the mesh has 3 joints");
    }
    // Frames out of range.
    let o = idmodel(&[&"convert", &mesh, &"--frame", &"1", &"-o", &out]);
    assert_eq!(code(&o), 1, "an md5mesh alone has only the bind pose");
    let o = idmodel(&[
        &"convert", &mesh, &"--anim", &anim, &"--frame", &"5", &"-o", &out,
    ]);
    assert_eq!(code(&o), 1);
    assert!(stderr(&o).contains("out of range"), "{}", stderr(&o));
    let o = idmodel(&[&"convert", &anim, &"--frame", &"4", &"-o", &out]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn convert_to_obj() {
    let dir = scratch("obj");
    let (mesh, anim) = (sample("md5mesh"), sample("md5anim"));
    let obj = dir.join("m.obj");
    convert(&mesh, &obj, &["--keep-axes"]);
    let text = std::fs::read_to_string(&obj).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("f ")).count(), 16);
    assert!(text.lines().filter(|l| l.starts_with("v ")).count() >= 12);
    assert!(dir.join("m.mtl").exists());
    // Bind pose: the bounds of the obj are the bind-pose bounds.
    let raw = read_md5mesh(&std::fs::read(&mesh).unwrap());
    let want = bounds(bind_positions(&raw).into_iter().flatten()).unwrap();
    let got = bounds(obj_positions(&obj)).unwrap();
    for k in 0..3 {
        assert!(
            close(got.0[k], want.0[k]) && close(got.1[k], want.1[k]),
            "{got:?} {want:?}"
        );
    }
    // Posed: frame 4 bends the top half (upper rotated about x): bounds change.
    let posed = dir.join("p.obj");
    let o = idmodel(&[
        &"convert",
        &mesh,
        &"--anim",
        &anim,
        &"--frame",
        &"4",
        &"-o",
        &posed,
        &"--keep-axes",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_ne!(bounds(obj_positions(&posed)).unwrap(), got);
    // The anim alone draws its bones; a camera has nothing to draw.
    let bones = dir.join("b.obj");
    convert(&anim, &bones, &[]);
    let o = idmodel(&[&"convert", &sample("md5camera"), &"-o", &dir.join("c.obj")]);
    assert_eq!(code(&o), 1);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn render_draws_a_plausible_area() {
    let dir = scratch("render");
    let (mesh, anim) = (sample("md5mesh"), sample("md5anim"));
    let anim_arg = anim.to_str().unwrap();
    for (name, model, extra, least) in [
        ("bind", &mesh, &[][..], 0.02),
        ("posed", &mesh, &["--anim", anim_arg, "--frame", "2"], 0.02),
        ("bones", &anim, &[], 0.002),
    ] {
        let fraction = render_coverage(model, &dir.join(format!("{name}.png")), extra);
        assert!((least..=0.9).contains(&fraction), "{name}: {fraction}");
    }
    let o = idmodel(&[&"render", &sample("md5camera"), &"-o", &dir.join("c.png")]);
    assert_eq!(code(&o), 1);
}
