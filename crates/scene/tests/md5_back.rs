//! The way back to md5 at the scene level: md5 → Scene (the adapters) → md5
//! (`idmodel_scene::md5::from_scene`, in `md5/back.rs`) gives back the same joints, meshes, weights and
//! per-frame model-space joints; a code-made skinned scene (three bones, two clips) plays
//! in the md5 crate's pose evaluation as the scene's own (glTF) skinning says; every
//! written file parses back bit for bit and passes Doom 3's `check` without a refusal.
//!
//! Tolerances (measured, see the report in each assertion): joint positions and skinned
//! vertices within 2e-4 of the model's size (its bind-pose bounding-box diagonal, at least
//! 1 unit), rotations within 1e-4 of `|dot| = 1`, biases within 1e-5.
// Tests may index, unwrap, cast and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, clippy::needless_range_loop, missing_docs)]

use std::path::Path;

use idmodel_core::Engine;
use idmodel_core::Severity;
use idmodel_core::quat::{JointMat, Quat, Vec3};
use idmodel_md5::anim::Anim;
use idmodel_md5::camera::Camera as Md5Camera;
use idmodel_md5::mesh::Model;
use idmodel_md5::{anim, camera, mesh, pose, skinning};
use idmodel_scene::md5::from_scene::{self, Md5Options};
use idmodel_scene::{
    Animation, Channel, ChannelValues, Interpolation, Material, Mesh, Node, Options, Primitive,
    Scene, Skin,
};
use proptest::prelude::*;

mod common;

/// The scene as given, and through a GLB.
fn both_ways(scene: Scene) -> [(&'static str, Scene); 2] {
    let glb = common::via_glb(&scene);
    [("scene", scene), ("glb", glb)]
}

fn corpus_md5() -> Option<std::path::PathBuf> {
    idmodel_test_support::corpus_dir("md5_back").map(|d| d.join("md5"))
}

fn bind_positions(m: &Model) -> Vec<Vec<Vec3>> {
    let joints = m.bind_pose();
    m.meshes
        .iter()
        .map(|x| {
            let mut out = vec![[0.0f32; 3]; x.vertices.len()];
            skinning::skin(&x.vertices, &x.weights, &joints, &mut out);
            out
        })
        .collect()
}

fn size_of(points: impl Iterator<Item = Vec3>) -> f32 {
    let (lo, hi) = common::bounds(points);
    let d: f32 = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt();
    if d.is_finite() { d.max(1.0) } else { 1.0 }
}

fn dist(a: Vec3, b: Vec3) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn same_rotation(a: Quat, b: Quat) -> f32 {
    let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    1.0 - d.abs()
}

fn no_refusal(findings: impl IntoIterator<Item = idmodel_md5::check::Finding>, what: &str) {
    for f in findings {
        assert!(f.severity < Severity::Refused, "{what}: {f}");
    }
}

/// `value`, written by `write`, reads back by `parse` as the same, bit for bit, and Doom 3
/// loads it: `check` (the findings of what was read back, given the text) refuses
/// nothing.
fn written<T, W, P, I>(value: &T, (write, parse): (W, P), what: &str, check: impl Fn(&T, &[u8]))
where
    T: PartialEq + core::fmt::Debug,
    W: Fn(&T) -> Result<Vec<u8>, idmodel_md5::write::WriteError>,
    P: Fn(&[u8]) -> Result<T, I>,
    I: core::fmt::Debug,
{
    let text = write(value).unwrap();
    let back = parse(&text).unwrap();
    assert_eq!(&back, value, "{what}");
    check(&back, &text);
}

/// The written text reads back as the same model, bit for bit, and Doom 3 loads it.
fn written_mesh(m: &Model, what: &str) {
    written(m, (mesh::write, Model::parse), what, |back, text| {
        no_refusal(back.findings(Engine::Doom3), what);
        no_refusal(mesh::parse(text).unwrap().findings(Engine::Doom3), what);
    });
}

fn written_anim(a: &Anim, what: &str) {
    written(a, (anim::write, Anim::parse), what, |back, text| {
        no_refusal(back.findings(Engine::Doom3), what);
        no_refusal(anim::parse(text).unwrap().findings(Engine::Doom3), what);
    });
}

fn written_camera(c: &Md5Camera, what: &str) {
    let check = |back: &Md5Camera, _: &[u8]| no_refusal(back.findings(Engine::Doom3), what);
    written(c, (camera::write, Md5Camera::parse), what, check);
}

/// Compares a mesh that went md5 → Scene → md5 with its original; returns the worst
/// position error relative to the model's size.
fn compare_mesh(orig: &Model, back: &Model, what: &str) -> f32 {
    assert_eq!(back.joints.len(), orig.joints.len(), "{what}");
    let bind_o = bind_positions(orig);
    let size = size_of(
        bind_o
            .iter()
            .flatten()
            .copied()
            .chain(orig.joints.iter().map(|j| j.position)),
    );
    let mut worst = 0.0f32;
    for (i, (a, b)) in orig.joints.iter().zip(&back.joints).enumerate() {
        assert_eq!(a.name, b.name, "{what} joint {i}");
        assert_eq!(a.parent.max(-1), b.parent.max(-1), "{what} joint {i}");
        worst = worst.max(dist(a.position, b.position) / size);
        let r = same_rotation(a.quat(), b.quat());
        assert!(r < 1e-4, "{what} joint {i}: rotation off by {r}");
    }
    let bind_b = bind_positions(back);
    assert_eq!(back.meshes.len(), orig.meshes.len(), "{what}");
    for (mi, (mo, mb)) in orig.meshes.iter().zip(&back.meshes).enumerate() {
        assert_eq!(mo.shader, mb.shader, "{what} mesh {mi}");
        assert_eq!(mo.vertices.len(), mb.vertices.len(), "{what} mesh {mi}");
        assert_eq!(mo.triangles, mb.triangles, "{what} mesh {mi}");
        for (v, (vo, vb)) in mo.vertices.iter().zip(&mb.vertices).enumerate() {
            assert_eq!(vo.uv, vb.uv, "{what} mesh {mi} vertex {v}");
            // Zero (and negative) biases are dropped on the way back; the order of a
            // vertex's weights may change (glTF sorts them), which Doom ignores.
            let mut wo: Vec<_> = mo.weights[vo.weights()]
                .iter()
                .filter(|w| w.bias > 0.0)
                .collect();
            let mut wb: Vec<_> = mb.weights[vb.weights()].iter().collect();
            wo.sort_by_key(|w| w.joint);
            wb.sort_by_key(|w| w.joint);
            let sum: f32 = wo.iter().map(|w| w.bias).sum();
            assert_eq!(wo.len(), wb.len(), "{what} mesh {mi} vertex {v}");
            for (&x, &y) in wo.iter().zip(&wb) {
                assert_eq!(x.joint, y.joint, "{what} mesh {mi} vertex {v}");
                assert!(
                    (x.bias / sum - y.bias).abs() < 1e-5,
                    "{what} mesh {mi} vertex {v}: bias {} → {}",
                    x.bias,
                    y.bias
                );
            }
            let e = dist(bind_o[mi][v], bind_b[mi][v]) / size;
            worst = worst.max(e);
        }
    }
    assert!(worst < 2e-4, "{what}: positions off by {worst} of the size");
    worst
}

/// Model-space joints of every frame of `a`.
fn model_space(a: &Anim) -> Vec<Vec<JointMat>> {
    let n = a.hierarchy.len();
    let mut local = vec![pose::JointPose::IDENTITY; n];
    (0..a.frames.len())
        .map(|k| {
            a.local_pose(k, &mut local);
            let mut w = vec![JointMat::IDENTITY; n];
            pose::model_space(&a.hierarchy, &local, &mut w);
            w
        })
        .collect()
}

fn compare_anim(orig: &Anim, back: &Anim, size: f32, what: &str) -> f32 {
    assert_eq!(back.frames.len(), orig.frames.len(), "{what}");
    assert_eq!(back.frame_rate, orig.frame_rate, "{what}");
    assert_eq!(back.hierarchy.len(), orig.hierarchy.len(), "{what}");
    for (a, b) in orig.hierarchy.iter().zip(&back.hierarchy) {
        assert_eq!((&a.name, a.parent), (&b.name, b.parent), "{what}");
        // Only components that change are animated.
        assert_eq!(b.flags & !a.flags, 0, "{what} joint {}", a.name);
    }
    let mut worst = 0.0f32;
    for (k, (fo, fb)) in model_space(orig).iter().zip(model_space(back)).enumerate() {
        for (j, (a, b)) in fo.iter().zip(&fb).enumerate() {
            worst = worst.max(dist(a.translation(), b.translation()) / size);
            let ra = a.rotation();
            let rb = b.rotation();
            let off = (0..3)
                .flat_map(|r| (0..3).map(move |c| (r, c)))
                .map(|(r, c)| (ra[r][c] - rb[r][c]).abs())
                .fold(0.0f32, f32::max);
            assert!(
                off < 2e-4,
                "{what} frame {k} joint {j}: rotation off by {off}"
            );
        }
    }
    assert!(worst < 2e-4, "{what}: joints off by {worst} of the size");
    worst
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn corpus_md5meshes_come_back() {
    let Some(dir) = corpus_md5() else { return };
    let mut seen = 0;
    for path in idmodel_test_support::files_with_ext(&dir, "md5mesh") {
        let orig = Model::parse(&std::fs::read(&path).unwrap()).unwrap();
        let name = stem(&path);
        let scene = idmodel_scene::md5::mesh::scene(&orig, &name, &Options::default()).unwrap();
        for (way, scene) in both_ways(scene) {
            let files = from_scene::convert(&scene, &Md5Options::default()).unwrap();
            let back = files.mesh.unwrap();
            let what = format!("{name} ({way})");
            // Meshes glTF cannot hold (no vertex or no triangle) come back from the
            // `md5.meshes` extras.
            let worst = compare_mesh(&orig, &back, &what);
            eprintln!("{what}: positions within {worst:e} of the size");
            written_mesh(&back, &what);
            assert!(files.anims.is_empty() && files.cameras.is_empty());
        }
        seen += 1;
    }
    assert!(seen >= 10, "{seen} md5meshes");
}

/// The mesh each corpus anim plays on.
fn mesh_for(anim: &str) -> Option<&'static str> {
    Some(match anim {
        "Bob" => "Bob",
        "blaster_view_fire" | "blaster_view_idle" => "blaster_view",
        "ckit_view_idle" => "ckit_view",
        "tyrant_view_fire" | "tyrant_view_idle" => "tyrant_view",
        "ffflag" => "ffflag",
        "unv_level0_jump" | "unv_level0_run" => "unv_level0_body",
        "unv_level2_land" => "unv_level2_body",
        "unv_human_nobsuit_common_attack" => "unv_human_light_body",
        _ => return None,
    })
}

#[test]
fn corpus_md5anims_come_back_with_their_mesh_and_alone() {
    let Some(dir) = corpus_md5() else { return };
    let mut seen = 0;
    for path in idmodel_test_support::files_with_ext(&dir, "md5anim") {
        let name = stem(&path);
        let orig = Anim::parse(&std::fs::read(&path).unwrap()).unwrap();
        let moving = orig.hierarchy.iter().any(|h| h.flags != 0) && orig.frames.len() > 1;
        // Alone: the skeleton scene.
        let scene = idmodel_scene::md5::anim::scene(&orig, &name, &Options::default()).unwrap();
        for (way, scene) in both_ways(scene) {
            let what = format!("{name} alone ({way})");
            let files = from_scene::convert(&scene, &Md5Options::default()).unwrap();
            assert!(files.mesh.is_none());
            if !moving {
                continue;
            }
            let (n, back) = &files.anims[0];
            assert_eq!(n, &name);
            let size = size_of(
                model_space(&orig)
                    .iter()
                    .flatten()
                    .map(JointMat::translation),
            );
            let worst = compare_anim(&orig, back, size, &what);
            eprintln!("{what}: joints within {worst:e} of the size");
            written_anim(back, &what);
        }
        // With its mesh: one skeleton, so the anim fits the mesh.
        let Some(m) = mesh_for(&name) else { continue };
        let model =
            Model::parse(&std::fs::read(dir.join(format!("{m}.md5mesh"))).unwrap()).unwrap();
        if idmodel_scene::md5::mesh::fit(&model, &orig)
            .unwrap()
            .is_some()
        {
            continue;
        }
        let scene =
            idmodel_scene::md5::mesh::scene_with(&model, m, &Options::default(), &[(&name, &orig)])
                .unwrap();
        for (way, scene) in both_ways(scene) {
            let what = format!("{name} on {m} ({way})");
            let files = from_scene::convert(&scene, &Md5Options::default()).unwrap();
            let back_mesh = files.mesh.unwrap();
            compare_mesh(&model, &back_mesh, &what);
            if !moving {
                continue;
            }
            let (n, back) = &files.anims[0];
            assert_eq!(n, &name);
            let size = size_of(bind_positions(&model).into_iter().flatten());
            let worst = compare_anim(&orig, back, size, &what);
            eprintln!("{what}: joints within {worst:e} of the size");
            assert_eq!(idmodel_scene::md5::mesh::fit(&back_mesh, back), Ok(None));
            written_anim(back, &what);
            // The stored bounds come back from the `md5.anims` extras.
            assert_eq!(back.bounds, orig.bounds, "{what}");
            // Without them, the bounds hold the mesh as Doom skins it in each frame.
            let mut bare = scene.clone();
            bare.extras = idmodel_scene::Extras::default();
            let files = from_scene::convert(&bare, &Md5Options::default()).unwrap();
            let (_, back) = &files.anims[0];
            for (k, w) in model_space(back).iter().enumerate() {
                let [lo, hi] = back.bounds[k];
                for x in &back_mesh.meshes {
                    let mut out = vec![[0.0f32; 3]; x.vertices.len()];
                    skinning::skin(&x.vertices, &x.weights, w, &mut out);
                    for p in out {
                        assert!(
                            (0..3).all(|c| lo[c] <= p[c] && p[c] <= hi[c]),
                            "{what} frame {k}"
                        );
                    }
                }
            }
        }
        seen += 1;
    }
    assert!(seen >= 8, "{seen} anims with meshes");
}

#[test]
fn the_sample_camera_comes_back_with_its_cut() {
    let text = include_str!("../../../samples/sample.md5camera");
    let orig = Md5Camera::parse(text.as_bytes()).unwrap();
    let scene = idmodel_scene::md5::camera::scene(&orig, "shots", &Options::default()).unwrap();
    for (way, scene) in both_ways(scene) {
        camera_comes_back(&orig, &scene, way);
    }
}

fn camera_comes_back(orig: &Md5Camera, scene: &Scene, way: &str) {
    let cams = from_scene::convert(scene, &Md5Options::default())
        .unwrap()
        .cameras;
    assert_eq!(cams.len(), 1);
    let (name, back) = &cams[0];
    assert_eq!(name, "shots");
    assert_eq!(back.frame_rate, orig.frame_rate);
    assert_eq!(back.cuts, orig.cuts);
    assert_eq!(back.frames.len(), orig.frames.len());
    for (k, (a, b)) in orig.frames.iter().zip(&back.frames).enumerate() {
        assert!(dist(a.position, b.position) < 1e-5, "{way} frame {k}");
        assert!(same_rotation(a.quat(), b.quat()) < 1e-6, "{way} frame {k}");
        // The zoom comes back through the scene's CameraYfov channel, frame by frame.
        assert!(
            (b.fov - a.fov).abs() < 1e-3,
            "{way} frame {k}: fov {} for {}",
            b.fov,
            a.fov
        );
    }
    // Doom shows the same camera at every tick.
    for ms in (0..200).step_by(7) {
        let (a, b) = (orig.sample(ms), back.sample(ms));
        assert!(dist(a.position, b.position) < 1e-4, "{way} {ms} ms");
    }
    written_camera(back, way);
}

#[test]
fn a_60_hz_camera_steps_without_cuts() {
    let frames = (0..5)
        .map(|k| idmodel_md5::camera::CameraFrame {
            position: [k as f32, 2.0 * k as f32, 3.0],
            orientation: [0.0, 0.0, 0.1 * k as f32],
            fov: 75.0,
        })
        .collect();
    let orig = Md5Camera {
        commandline: String::new(),
        frame_rate: 60,
        cuts: Vec::new(),
        frames,
    };
    let scene = idmodel_scene::md5::camera::scene(&orig, "step", &Options::default()).unwrap();
    assert_eq!(
        scene.animations[0].channels[0].interpolation,
        Interpolation::Step
    );
    let (_, back) = &from_scene::cameras(&scene, &Md5Options::default()).unwrap()[0];
    assert_eq!(back.frame_rate, 60);
    assert!(back.cuts.is_empty());
    assert_eq!(back.frames.len(), 5);
    for (a, b) in orig.frames.iter().zip(&back.frames) {
        assert_eq!(a.position, b.position);
        assert!(same_rotation(a.quat(), b.quat()) < 1e-6);
        assert!((a.fov - b.fov).abs() < 1e-3);
    }
    written_camera(back, "step");
}

// ---------------------------------------------------------------------------------------
// A code-made skinned scene: three bones up +Z, two clips.

fn rot_z(deg: f64) -> Quat {
    let h = deg.to_radians() / 2.0;
    [0.0, 0.0, h.sin() as f32, h.cos() as f32]
}

fn rot_x(deg: f64) -> Quat {
    let h = deg.to_radians() / 2.0;
    [h.sin() as f32, 0.0, 0.0, h.cos() as f32]
}

/// Column-major translation by −z (the inverse bind matrix of a joint at height z with no
/// rotation).
fn ibm_at(z: f32) -> [f32; 16] {
    let mut m = [0.0f32; 16];
    m[0] = 1.0;
    m[5] = 1.0;
    m[10] = 1.0;
    m[15] = 1.0;
    m[14] = -z;
    m
}

fn three_bones() -> Scene {
    let mut root = Node::new("root");
    root.children = vec![1];
    let mut mid = Node::new("mid");
    mid.translation = [0.0, 0.0, 10.0];
    mid.children = vec![2];
    let mut tip = Node::new("tip");
    tip.translation = [0.0, 0.0, 10.0];
    let mut body = Node::new("body");
    body.mesh = Some(0);
    body.skin = Some(0);
    // A ring of 4 vertices at heights 0, 5, …, 30; weights blend the bones by height.
    let mut p = Primitive::default();
    for level in 0..7 {
        let z = level as f32 * 5.0;
        for (x, y) in [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)] {
            p.positions.push([x * 2.0, y * 2.0, z]);
            p.uvs.push([x * 0.25 + 0.5, z / 30.0]);
            let f = (z / 10.0).min(2.0);
            let lo = f.floor() as u16;
            let w = f - f.floor();
            p.influences.push(if w == 0.0 || lo >= 2 {
                vec![(lo.min(2), 1.0)]
            } else {
                vec![(lo, 1.0 - w), (lo + 1, w), (lo, 0.0)]
            });
        }
    }
    for level in 0..6u32 {
        for s in 0..4u32 {
            let a = level * 4 + s;
            let b = level * 4 + (s + 1) % 4;
            p.indices.extend([a, b, a + 4, b, b + 4, a + 4]);
        }
    }
    p.material = Some(0);
    let bend = Animation {
        name: "bend".into(),
        channels: vec![
            Channel {
                node: 1,
                times: vec![0.0, 0.5, 1.0],
                interpolation: Interpolation::Linear,
                values: ChannelValues::Rotation(vec![rot_x(0.0), rot_x(40.0), rot_x(80.0)]),
            },
            Channel {
                node: 2,
                times: vec![0.0, 1.0],
                interpolation: Interpolation::Linear,
                values: ChannelValues::Rotation(vec![rot_x(0.0), rot_x(-30.0)]),
            },
        ],
    };
    let twist = Animation {
        name: "twist".into(),
        channels: vec![
            Channel {
                node: 0,
                times: vec![0.0, 0.3137, 0.6789, 1.1],
                interpolation: Interpolation::Linear,
                values: ChannelValues::Rotation(vec![
                    rot_z(0.0),
                    rot_z(90.0),
                    rot_z(170.0),
                    rot_z(260.0),
                ]),
            },
            Channel {
                node: 0,
                times: vec![0.0, 1.1],
                interpolation: Interpolation::Linear,
                values: ChannelValues::Translation(vec![[0.0; 3], [5.0, 0.0, 0.0]]),
            },
        ],
    };
    Scene {
        name: "column".into(),
        meshes: vec![Mesh {
            name: "column".into(),
            primitives: vec![p],
            target_names: Vec::new(),
        }],
        materials: vec![Material::new("models/column/skin", None)],
        nodes: vec![root, mid, tip, body],
        skins: vec![Skin {
            name: "bones".into(),
            joints: vec![0, 1, 2],
            inverse_bind_matrices: vec![ibm_at(0.0), ibm_at(10.0), ibm_at(20.0)],
            skeleton: None,
        }],
        animations: vec![bend, twist],
        ..Scene::default()
    }
}

// The scene's own skinning (glTF semantics), in f64, independent of the library.

type M4 = [[f64; 4]; 4];

fn m_mul(a: &M4, b: &M4) -> M4 {
    let mut o = [[0.0; 4]; 4];
    for r in 0..4 {
        for c in 0..4 {
            o[r][c] = (0..4).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    o
}

fn trs(t: Vec3, q: Quat, s: Vec3) -> M4 {
    let [x, y, z, w] = q.map(f64::from);
    let n = (x * x + y * y + z * z + w * w).sqrt();
    let (x, y, z, w) = (x / n, y / n, z / n, w / n);
    let r = idmodel_test_support::rotation_matrix([x, y, z, w]);
    let mut m = [[0.0; 4]; 4];
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = r[i][j] * f64::from(s[j]);
        }
        m[i][3] = f64::from(t[i]);
    }
    m[3][3] = 1.0;
    m
}

fn slerp64(a: Quat, b: Quat, f: f64) -> Quat {
    let a = a.map(f64::from);
    let mut b = b.map(f64::from);
    let mut d: f64 = (0..4).map(|i| a[i] * b[i]).sum();
    if d < 0.0 {
        b = b.map(|x| -x);
        d = -d;
    }
    let th = d.min(1.0).acos();
    let (wa, wb) = if th < 1e-9 {
        (1.0 - f, f)
    } else {
        (((1.0 - f) * th).sin() / th.sin(), (f * th).sin() / th.sin())
    };
    [0, 1, 2, 3].map(|i| (a[i] * wa + b[i] * wb) as f32)
}

fn sample_ref(scene: &Scene, anim: &Animation, t: f32) -> Vec<(Vec3, Quat, Vec3)> {
    let mut out: Vec<_> = scene
        .nodes
        .iter()
        .map(|n| (n.translation, n.rotation, n.scale))
        .collect();
    for c in &anim.channels {
        let times = &c.times;
        let i = times.iter().rposition(|&x| x <= t).unwrap_or(0);
        let j = (i + 1).min(times.len() - 1);
        let f = if j == i || t <= times[0] {
            0.0
        } else {
            f64::from((t - times[i]) / (times[j] - times[i])).clamp(0.0, 1.0)
        };
        match &c.values {
            ChannelValues::Translation(v) => {
                let (a, b) = (v[i], v[j]);
                out[c.node].0 = [0, 1, 2]
                    .map(|k| (f64::from(a[k]) + (f64::from(b[k]) - f64::from(a[k])) * f) as f32);
            }
            ChannelValues::Rotation(v) => out[c.node].1 = slerp64(v[i], v[j], f),
            _ => {}
        }
    }
    out
}

fn gltf_skinned(scene: &Scene, anim: &Animation, t: f32) -> Vec<[f64; 3]> {
    let local = sample_ref(scene, anim, t);
    let mut world: Vec<M4> = vec![[[0.0; 4]; 4]; scene.nodes.len()];
    let parent = |i: usize| scene.nodes.iter().position(|n| n.children.contains(&i));
    for i in 0..scene.nodes.len() {
        let mut chain = vec![i];
        while let Some(p) = parent(*chain.last().unwrap()) {
            chain.push(p);
        }
        let mut m = trs([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        for &c in chain.iter().rev() {
            let (t, q, s) = local[c];
            m = m_mul(&m, &trs(t, q, s));
        }
        world[i] = m;
    }
    let skin = &scene.skins[0];
    let joint_mats: Vec<M4> = skin
        .joints
        .iter()
        .zip(&skin.inverse_bind_matrices)
        .map(|(&j, ibm)| {
            let mut b = [[0.0; 4]; 4];
            for c in 0..4 {
                for r in 0..4 {
                    b[r][c] = f64::from(ibm[c * 4 + r]);
                }
            }
            m_mul(&world[j], &b)
        })
        .collect();
    let p = &scene.meshes[0].primitives[0];
    p.positions
        .iter()
        .zip(&p.influences)
        .map(|(v, inf)| {
            let sum: f64 = inf.iter().map(|x| f64::from(x.1)).sum();
            let mut o = [0.0f64; 3];
            for &(j, w) in inf {
                let m = &joint_mats[usize::from(j)];
                for r in 0..3 {
                    o[r] += f64::from(w) / sum
                        * (m[r][0] * f64::from(v[0])
                            + m[r][1] * f64::from(v[1])
                            + m[r][2] * f64::from(v[2])
                            + m[r][3]);
                }
            }
            o
        })
        .collect()
}

/// The md5 vertices of frame `k` as Doom skins them.
fn md5_skinned(model: &Model, a: &Anim, k: usize) -> Vec<Vec3> {
    let w = &model_space(a)[k];
    let x = &model.meshes[0];
    let mut out = vec![[0.0f32; 3]; x.vertices.len()];
    skinning::skin(&x.vertices, &x.weights, w, &mut out);
    out
}

#[test]
fn a_code_made_skinned_scene_plays_in_md5_as_in_the_scene() {
    // The scene itself, and the scene read back from the GLB the project writes of it
    // (the script-made GLB of the issue); the reference is the scene's own skinning.
    let scene = three_bones();
    plays_as_the_scene(&scene, &scene);
    plays_as_the_scene(&scene, &common::via_glb(&scene));
}

fn plays_as_the_scene(scene: &Scene, converted: &Scene) {
    let files = from_scene::convert(converted, &Md5Options::default()).unwrap();
    let model = files.mesh.unwrap();
    written_mesh(&model, "column");
    assert_eq!(
        model
            .joints
            .iter()
            .map(|j| j.name.as_str())
            .collect::<Vec<_>>(),
        ["root", "mid", "tip"]
    );
    assert_eq!(
        model.joints.iter().map(|j| j.parent).collect::<Vec<_>>(),
        [-1, 0, 1]
    );
    assert_eq!(model.joints[2].position, [0.0, 0.0, 20.0]);
    let m = &model.meshes[0];
    assert_eq!(m.shader, "models/column/skin");
    assert_eq!(m.vertices.len(), 28);
    // The zero weight is dropped; the rest sum to 1.
    for v in &m.vertices {
        let ws = &m.weights[v.weights()];
        assert!(ws.iter().all(|w| w.bias > 0.0));
        assert!((ws.iter().map(|w| w.bias).sum::<f32>() - 1.0).abs() < 1e-6);
    }
    // Bind pose: the primitive's positions.
    let bind = bind_positions(&model);
    for (a, b) in bind[0].iter().zip(&scene.meshes[0].primitives[0].positions) {
        assert!(dist(*a, *b) < 1e-5, "{a:?} {b:?}");
    }
    assert_eq!(files.anims.len(), 2);
    let tol = 2e-4 * 30.0;
    // bend: keys at 0, 0.5, 1 s: 2 fps, every key a frame.
    let (name, bend) = &files.anims[0];
    assert_eq!(name, "bend");
    assert_eq!(bend.frame_rate, 2);
    assert_eq!(bend.frames.len(), 3);
    // Only the x rotations of mid and tip change.
    let flags: Vec<u8> = bend.hierarchy.iter().map(|h| h.flags).collect();
    assert_eq!(flags, [0, anim::flags::QX, anim::flags::QX]);
    for (k, t) in [0.0f32, 0.5, 1.0].into_iter().enumerate() {
        let want = gltf_skinned(scene, &scene.animations[0], t);
        let got = md5_skinned(&model, bend, k);
        for (v, (a, b)) in want.iter().zip(&got).enumerate() {
            let e = dist(a.map(|x| x as f32), *b);
            assert!(e < tol, "bend key {k} vertex {v}: {e}");
        }
    }
    // twist: irregular keys, resampled at 24 fps up to the last key, 1.1 s: frames 0 to
    // ceil(26.4) = 27, the last at or after the last key.
    let (name, twist) = &files.anims[1];
    assert_eq!(name, "twist");
    assert_eq!(twist.frame_rate, 24);
    assert_eq!(twist.frames.len(), 28);
    assert_eq!(
        twist.hierarchy[0].flags,
        anim::flags::TX | anim::flags::QZ,
        "root moves in x and turns about z"
    );
    for k in 0..twist.frames.len() {
        let t = k as f32 / 24.0;
        let want = gltf_skinned(scene, &scene.animations[1], t);
        let got = md5_skinned(&model, twist, k);
        for (v, (a, b)) in want.iter().zip(&got).enumerate() {
            let e = dist(a.map(|x| x as f32), *b);
            assert!(e < tol, "twist frame {k} vertex {v}: {e}");
        }
    }
    // The 260° turn crosses w = 0: stored on w ≥ 0 every frame, Doom's slerp takes the
    // short way between frames.
    for (a, fit) in &files.anims {
        assert_eq!(idmodel_scene::md5::mesh::fit(&model, fit), Ok(None), "{a}");
        written_anim(fit, a);
    }
    // --fps 30 resamples both.
    let at30 = from_scene::convert(
        converted,
        &Md5Options {
            fps: Some(30),
            ..Md5Options::default()
        },
    )
    .unwrap();
    assert!(at30.anims.iter().all(|(_, a)| a.frame_rate == 30));
    assert_eq!(at30.anims[0].1.frames.len(), 31);
}

#[test]
fn an_unskinned_mesh_is_bound_to_one_joint() {
    let mut scene = three_bones();
    // A second, unskinned mesh on a child of "tip": it follows the tip.
    scene.meshes.push(Mesh {
        name: "hat".into(),
        primitives: vec![Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        }],
        target_names: Vec::new(),
    });
    let mut hat = Node::new("hat");
    hat.mesh = Some(1);
    hat.translation = [0.0, 0.0, 2.0];
    scene.nodes.push(hat);
    scene.nodes[2].children.push(4);
    let files = from_scene::convert(&scene, &Md5Options::default()).unwrap();
    let model = files.mesh.unwrap();
    assert_eq!(
        model.joints.len(),
        3,
        "the hat joins the tip, no joint of its own"
    );
    let hat = &model.meshes[1];
    assert!(hat.weights.iter().all(|w| w.joint == 2 && w.bias == 1.0));
    let bind = bind_positions(&model);
    assert!(
        dist(bind[1][1], [1.0, 0.0, 22.0]) < 1e-5,
        "{:?}",
        bind[1][1]
    );
    written_mesh(&model, "hat");
    // No skin at all: every node is a joint, the mesh on its own node.
    let still = Scene::still(
        "tri",
        vec![Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        }],
        Vec::new(),
    );
    let model = from_scene::mesh(&still).unwrap();
    assert_eq!(model.joints.len(), 1);
    assert_eq!(model.meshes[0].shader, "");
    written_mesh(&model, "tri");
}

#[test]
fn children_listed_before_parents_are_reordered_and_roots_get_an_origin() {
    let mut scene = three_bones();
    // The skin lists tip, root, mid: parents must come first in md5.
    scene.skins[0].joints = vec![2, 0, 1];
    let ibms = scene.skins[0].inverse_bind_matrices.clone();
    scene.skins[0].inverse_bind_matrices = vec![ibms[2], ibms[0], ibms[1]];
    for inf in &mut scene.meshes[0].primitives[0].influences {
        for (j, _) in inf.iter_mut() {
            *j = [1, 2, 0][usize::from(*j)];
        }
    }
    let model = from_scene::mesh(&scene).unwrap();
    let names: Vec<_> = model.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "mid", "tip"]);
    assert_eq!(
        model.joints.iter().map(|j| j.parent).collect::<Vec<_>>(),
        [-1, 0, 1]
    );
    let bind = bind_positions(&model);
    for (a, b) in bind[0].iter().zip(&scene.meshes[0].primitives[0].positions) {
        assert!(dist(*a, *b) < 1e-5);
    }
    // Two roots: an origin joint above both.
    let mut two = three_bones();
    two.nodes[0].children.clear();
    let skel = from_scene::skeleton(&two).unwrap();
    assert_eq!(skel.joints[0].name, from_scene::ORIGIN_JOINT);
    assert_eq!(
        skel.joints.iter().map(|j| j.parent).collect::<Vec<_>>(),
        [-1, 0, 0, 2]
    );
    let files = from_scene::convert(&two, &Md5Options::default()).unwrap();
    for (n, a) in &files.anims {
        written_anim(a, n);
    }
}

#[test]
fn hostile_scenes_are_refused_in_one_line() {
    let mut s = three_bones();
    s.nodes[0].children.push(0);
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert!(e.message().contains("node 0"), "{e}");
    let mut s = three_bones();
    s.nodes[2].children.push(0);
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert!(!e.message().contains('\n'), "{e}");
    let mut s = three_bones();
    s.meshes[0].primitives[0].influences[3] = vec![(7, 1.0)];
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert_eq!(
        e.message(),
        "node 3 mesh 0 primitive 0 vertex 3: joint 7 is not in the skin (3 joints)"
    );
    let mut s = three_bones();
    s.meshes[0].primitives[0].indices.push(99);
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert!(e.message().contains("whole number of triangles"), "{e}");
    let mut s = three_bones();
    s.meshes[0].primitives[0].indices[..3].copy_from_slice(&[0, 1, 99]);
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert_eq!(
        e.message(),
        "node 3 mesh 0 primitive 0: triangle 0 uses vertex 99 of 28"
    );
    // A key a million years out: refused before any frame is made.
    let mut s = three_bones();
    s.animations[0].channels[0].times[2] = 3.0e13;
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert!(
        e.message().contains("too many frames") || e.message().contains("limit"),
        "{e}"
    );
    let mut s = three_bones();
    s.animations[0].channels[0].times[2] = 1.0e5;
    let e = from_scene::convert(
        &s,
        &Md5Options {
            max_bytes: Some(1 << 20),
            ..Md5Options::default()
        },
    )
    .unwrap_err();
    assert!(e.message().contains("over the 1 MiB limit"), "{e}");
    let mut s = three_bones();
    s.animations[0].channels[0].times[1] = f32::NAN;
    assert!(from_scene::convert(&s, &Md5Options::default()).is_err());
    let mut s = three_bones();
    s.meshes[0].primitives[0].positions[0][1] = f32::INFINITY;
    let e = from_scene::convert(&s, &Md5Options::default()).unwrap_err();
    assert_eq!(
        e.message(),
        "node 3 mesh 0 primitive 0 vertex 0: position is not finite"
    );
}

fn finite_bits() -> impl Strategy<Value = f32> {
    any::<u32>()
        .prop_map(f32::from_bits)
        .prop_filter("finite", |x| x.is_finite())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every float the way back writes reads back through Doom's lexer as the same f32:
    /// arbitrary bit patterns as joint positions and UVs.
    #[test]
    fn floats_survive_the_trip(t in [finite_bits(), finite_bits(), finite_bits()],
                               uv in [finite_bits(), finite_bits()]) {
        let prim = Primitive {
            uvs: vec![uv, uv, uv],
            ..common::triangle()
        };
        let mut scene = Scene::still("p", vec![prim], Vec::new());
        scene.nodes[0].translation = t;
        let model = from_scene::mesh(&scene).unwrap();
        prop_assert_eq!(model.joints[0].position.map(f32::to_bits), t.map(|x| (x + 0.0).to_bits()));
        let text = mesh::write(&model).unwrap();
        let back = Model::parse(&text).unwrap();
        prop_assert_eq!(back.joints[0].position.map(f32::to_bits), model.joints[0].position.map(f32::to_bits));
        prop_assert_eq!(back.meshes[0].vertices[0].uv.map(f32::to_bits), uv.map(f32::to_bits));
        for (a, b) in back.meshes[0].weights.iter().zip(&model.meshes[0].weights) {
            prop_assert_eq!(a.position.map(f32::to_bits), b.position.map(f32::to_bits));
        }
    }
}

#[test]
fn a_joint_under_a_plain_node_takes_the_node_along() {
    // "mid" is no joint: the tip's md5 parent is the root, and mid's bend reaches it
    // through the world transforms.
    let mut scene = three_bones();
    scene.skins[0].joints = vec![0, 2];
    let ibms = scene.skins[0].inverse_bind_matrices.clone();
    scene.skins[0].inverse_bind_matrices = vec![ibms[0], ibms[2]];
    for inf in &mut scene.meshes[0].primitives[0].influences {
        for (j, _) in inf.iter_mut() {
            *j = u16::from(*j == 2);
        }
    }
    let files = from_scene::convert(&scene, &Md5Options::default()).unwrap();
    let model = files.mesh.unwrap();
    assert_eq!(model.joints.len(), 2);
    assert_eq!(model.joints[1].parent, 0);
    let (_, bend) = &files.anims[0];
    assert_eq!(bend.hierarchy[1].flags & anim::flags::TY, anim::flags::TY);
    for (k, t) in [0.0f32, 0.5, 1.0].into_iter().enumerate() {
        let want = gltf_skinned(&scene, &scene.animations[0], t);
        let got = md5_skinned(&model, bend, k);
        for (v, (a, b)) in want.iter().zip(&got).enumerate() {
            let e = dist(a.map(|x| x as f32), *b);
            assert!(e < 2e-4 * 30.0, "bend key {k} vertex {v}: {e}");
        }
    }
    written_anim(bend, "bend");
}

#[test]
fn a_scaled_inverse_bind_matrix_falls_back_to_the_rest_pose() {
    let mut scene = three_bones();
    // Inverse bind matrices that also scale by 2: md5 joints cannot scale.
    for m in &mut scene.skins[0].inverse_bind_matrices {
        for k in [0, 5, 10, 14] {
            m[k] *= 2.0;
        }
    }
    let model = from_scene::mesh(&scene).unwrap();
    let z: Vec<f32> = model.joints.iter().map(|j| j.position[2]).collect();
    assert_eq!(z, [0.0, 10.0, 20.0], "the rest pose");
    // Exact at rest: Doom's bind pose is the scene's skinning at rest.
    let rest = Animation::default();
    let want = gltf_skinned(&scene, &rest, 0.0);
    for (a, b) in want.iter().zip(&bind_positions(&model)[0]) {
        assert!(dist(a.map(|x| x as f32), *b) < 1e-4, "{a:?} {b:?}");
    }
    written_mesh(&model, "scaled");
}

#[test]
fn step_keys_of_a_camera_become_cuts() {
    let mut node = Node::new("cam");
    node.camera = Some(0);
    let a = [1.0, 0.0, 0.0];
    let b = [5.0, 0.0, 0.0];
    let c = [9.0, 2.0, 0.0];
    let scene = Scene {
        name: "shot".into(),
        nodes: vec![node],
        cameras: vec![idmodel_scene::Camera {
            name: "cam".into(),
            yfov: 1.0,
            aspect_ratio: Some(16.0 / 9.0),
            znear: 1.0,
            zfar: None,
        }],
        animations: vec![Animation {
            name: "cuts".into(),
            channels: vec![Channel {
                node: 0,
                times: vec![0.0, 0.5, 1.0],
                interpolation: Interpolation::Step,
                values: ChannelValues::Translation(vec![a, b, c]),
            }],
        }],
        ..Scene::default()
    };
    let cams = from_scene::cameras(&scene, &Md5Options::default()).unwrap();
    let (name, cam) = &cams[0];
    assert_eq!(name, "cuts");
    assert_eq!(cam.frame_rate, 2);
    assert_eq!(cam.cuts, [1, 3]);
    let pos: Vec<Vec3> = cam.frames.iter().map(|f| f.position).collect();
    assert_eq!(pos, [a, a, b, b, c]);
    // Doom holds each value until its key, then jumps.
    for (ms, want) in [(0, a), (250, a), (499, a), (500, b), (750, b), (1000, c)] {
        assert_eq!(cam.sample(ms).position, want, "{ms} ms");
    }
    // The fov is horizontal, from the camera's yfov and aspect ratio.
    let want = (2.0 * ((0.5f32).tan() * 16.0 / 9.0).atan()).to_degrees();
    assert!((cam.frames[0].fov - want).abs() < 1e-3);
    written_camera(cam, "cuts");
}

#[test]
fn a_deep_node_chain_converts_in_linear_time() {
    // 200 000 nodes in one chain, a mesh at the bottom: no walk per node to the root.
    let n = 200_000;
    let mut nodes: Vec<Node> = (0..n)
        .map(|i| {
            let mut node = Node::new(format!("n{i}"));
            node.translation = [0.0, 0.0, 1.0];
            if i + 1 < n {
                node.children = vec![i + 1];
            }
            node
        })
        .collect();
    nodes[n - 1].mesh = Some(0);
    let mut scene = Scene::still("deep", vec![common::triangle()], Vec::new());
    scene.nodes = nodes;
    let start = std::time::Instant::now();
    let model = from_scene::mesh(&scene).unwrap();
    assert_eq!(model.joints.len(), n);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    // A cycle in the same chain is refused in one line.
    scene.nodes[n - 1].children = vec![0];
    let e = from_scene::mesh(&scene).unwrap_err();
    assert!(
        e.message().contains("cycle") || e.message().contains("more than one parent"),
        "{e}"
    );
}
