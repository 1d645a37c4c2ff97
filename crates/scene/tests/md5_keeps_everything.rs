//! The md5 way back keeps everything glTF can carry (issue: engine-valid output): every
//! corpus md5mesh with the md5anims of its folder goes md5 → Scene → GLB → Scene → md5
//! with the same meshes (count, order, shaders: meshes without vertices or triangles,
//! which glTF cannot hold, come back from the scene's `md5.meshes` extras), the same
//! joints, every clip (one-frame clips included) with its frame count and rate, and the
//! md5anim's stored bounds (the `md5.anims` extras). Without the extras (an editor that
//! drops them) one-frame clips still come back and bounds are those of the skinned mesh.
// Tests may index, unwrap, cast and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use std::path::{Path, PathBuf};

use idmodel_core::quat::{JointMat, Vec3};
use idmodel_md5::anim::Anim;
use idmodel_md5::mesh::Model;
use idmodel_md5::{pose, skinning};
use idmodel_scene::md5::from_scene::{self, Md5Files, Md5Options};
use idmodel_scene::{Extras, Options, Scene};

fn corpus_md5() -> Option<PathBuf> {
    idmodel_test_support::corpus_dir("md5_keeps_everything").map(|d| d.join("md5"))
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

/// Every md5anim of `dir` that `model` can play (by index, as Doom checks it).
fn anims_of(dir: &Path, model: &Model) -> Vec<(String, Anim)> {
    let mut out: Vec<(String, Anim)> = idmodel_test_support::files_with_ext(dir, "md5anim")
        .into_iter()
        .map(|p| (stem(&p), Anim::parse(&std::fs::read(&p).unwrap()).unwrap()))
        .filter(|(_, a)| idmodel_scene::md5::mesh::fit(model, a).is_ok())
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn scene_of(model: &Model, name: &str, anims: &[(String, Anim)]) -> Scene {
    let refs: Vec<(&str, &Anim)> = anims.iter().map(|(n, a)| (n.as_str(), a)).collect();
    idmodel_scene::md5::mesh::scene_with(model, name, &Options::default(), &refs).unwrap()
}

fn back(scene: &Scene) -> Md5Files {
    from_scene::convert(scene, &Md5Options::default()).unwrap()
}

/// Same meshes (count, order, shaders, vertex and triangle counts) and joints.
fn same_meshes(orig: &Model, back: &Model, what: &str) {
    assert_eq!(back.joints.len(), orig.joints.len(), "{what}: joints");
    let shaders = |m: &Model| -> Vec<(String, usize, usize)> {
        m.meshes
            .iter()
            .map(|x| (x.shader.clone(), x.vertices.len(), x.triangles.len()))
            .collect()
    };
    assert_eq!(shaders(back), shaders(orig), "{what}: meshes");
}

/// Same clips (names, order, frame counts, rates) with the stored bounds.
fn same_clips(orig: &[(String, Anim)], back: &[(String, Anim)], what: &str) {
    let clips = |l: &[(String, Anim)]| -> Vec<(String, usize, i32)> {
        l.iter()
            .map(|(n, a)| (n.clone(), a.frames.len(), a.frame_rate))
            .collect()
    };
    assert_eq!(clips(back), clips(orig), "{what}: clips");
    for ((name, o), (_, b)) in orig.iter().zip(back) {
        assert_eq!(b.bounds, o.bounds, "{what}: bounds of {name}");
        assert_eq!(
            b.hierarchy.len(),
            o.hierarchy.len(),
            "{what}: joints of {name}"
        );
        // Each written anim reads back as itself.
        let written = idmodel_md5::anim::write(b).unwrap();
        assert_eq!(&Anim::parse(&written).unwrap(), b, "{what}: {name} written");
    }
}

#[test]
fn corpus_md5meshes_with_their_anims_keep_everything() {
    let Some(dir) = corpus_md5() else { return };
    let (mut meshes, mut clips, mut one_frame) = (0, 0, 0);
    for path in idmodel_test_support::files_with_ext(&dir, "md5mesh") {
        let name = stem(&path);
        let model = Model::parse(&std::fs::read(&path).unwrap()).unwrap();
        let anims = anims_of(&dir, &model);
        let scene = scene_of(&model, &name, &anims);
        for (way, scene) in [("scene", scene.clone()), ("glb", common::via_glb(&scene))] {
            let what = format!("{name} ({way})");
            let files = back(&scene);
            let mesh = files.mesh.as_ref().unwrap();
            same_meshes(&model, mesh, &what);
            same_clips(&anims, &files.anims, &what);
            let written = idmodel_md5::mesh::write(mesh).unwrap();
            assert_eq!(&Model::parse(&written).unwrap(), mesh, "{what}: written");
            for (n, a) in &files.anims {
                assert_eq!(
                    idmodel_scene::md5::mesh::fit(mesh, a),
                    Ok(None),
                    "{what} {n}"
                );
            }
        }
        meshes += 1;
        clips += anims.len();
        one_frame += anims.iter().filter(|(_, a)| a.frames.len() == 1).count();
    }
    assert!(meshes >= 10, "{meshes} md5meshes");
    assert!(clips >= 9, "{clips} clips");
    assert!(one_frame >= 2, "{one_frame} one-frame clips");
}

#[test]
fn corpus_md5anims_alone_keep_their_frames_and_bounds() {
    let Some(dir) = corpus_md5() else { return };
    let mut seen = 0;
    for path in idmodel_test_support::files_with_ext(&dir, "md5anim") {
        let name = stem(&path);
        let anim = Anim::parse(&std::fs::read(&path).unwrap()).unwrap();
        let scene = idmodel_scene::md5::anim::scene(&anim, &name, &Options::default()).unwrap();
        for (way, scene) in [("scene", scene.clone()), ("glb", common::via_glb(&scene))] {
            let what = format!("{name} alone ({way})");
            let files = back(&scene);
            assert!(files.mesh.is_none(), "{what}");
            same_clips(&[(name.clone(), anim.clone())], &files.anims, &what);
        }
        seen += 1;
    }
    assert!(seen >= 10, "{seen} md5anims");
}

/// ckit_view's idle pose: one frame, the case users found dropped.
#[test]
fn a_one_frame_clip_comes_back() {
    let Some(dir) = corpus_md5() else { return };
    let model = Model::parse(&std::fs::read(dir.join("ckit_view.md5mesh")).unwrap()).unwrap();
    let idle = Anim::parse(&std::fs::read(dir.join("ckit_view_idle.md5anim")).unwrap()).unwrap();
    assert_eq!(idle.frames.len(), 1);
    let anims = vec![("ckit_view_idle".to_string(), idle)];
    let files = back(&common::via_glb(&scene_of(&model, "ckit_view", &anims)));
    same_clips(&anims, &files.anims, "ckit_view");
}

/// The model-space joints of frame `k`.
fn frame_joints(a: &Anim, k: usize) -> Vec<JointMat> {
    let n = a.hierarchy.len();
    let mut local = vec![pose::JointPose::IDENTITY; n];
    a.local_pose(k, &mut local);
    let mut w = vec![JointMat::IDENTITY; n];
    pose::model_space(&a.hierarchy, &local, &mut w);
    w
}

/// The box of `mesh` skinned with frame `k` of `a`.
fn skinned_box(mesh: &Model, a: &Anim, k: usize) -> [Vec3; 2] {
    let w = frame_joints(a, k);
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for x in &mesh.meshes {
        let mut out = vec![[0.0f32; 3]; x.vertices.len()];
        skinning::skin(&x.vertices, &x.weights, &w, &mut out);
        for p in out {
            for c in 0..3 {
                lo[c] = lo[c].min(p[c]);
                hi[c] = hi[c].max(p[c]);
            }
        }
    }
    [lo, hi]
}

/// Stored bounds that are not the mesh's (here: twice as large) come back as stored;
/// without the extras they are the skinned mesh's again.
#[test]
fn stored_bounds_survive_and_without_extras_are_recomputed() {
    let Some(dir) = corpus_md5() else { return };
    let model = Model::parse(&std::fs::read(dir.join("tyrant_view.md5mesh")).unwrap()).unwrap();
    let mut fire =
        Anim::parse(&std::fs::read(dir.join("tyrant_view_fire.md5anim")).unwrap()).unwrap();
    for b in &mut fire.bounds {
        *b = b.map(|c| c.map(|x| x * 2.0 + 1.0));
    }
    let anims = vec![("tyrant_view_fire".to_string(), fire.clone())];
    let scene = common::via_glb(&scene_of(&model, "tyrant_view", &anims));
    let files = back(&scene);
    same_clips(&anims, &files.anims, "tyrant_view");

    let mut bare = scene.clone();
    bare.extras = Extras::default();
    let files = back(&bare);
    let (n, a) = &files.anims[0];
    assert_eq!(
        (n.as_str(), a.frames.len()),
        ("tyrant_view_fire", fire.frames.len())
    );
    let mesh = files.mesh.as_ref().unwrap();
    for k in 0..a.frames.len() {
        assert_eq!(a.bounds[k], skinned_box(mesh, a, k), "frame {k}");
        assert_ne!(a.bounds[k], fire.bounds[k], "frame {k}");
    }
}

/// Without extras a one-frame clip is still a clip (at 24 fps, Doom's usual rate), and
/// the meshes glTF can hold come back in order.
#[test]
fn without_extras_one_frame_clips_still_come_back() {
    let Some(dir) = corpus_md5() else { return };
    let model = Model::parse(&std::fs::read(dir.join("blaster_view.md5mesh")).unwrap()).unwrap();
    let anims = anims_of(&dir, &model);
    assert!(anims.iter().any(|(_, a)| a.frames.len() == 1));
    let mut scene = common::via_glb(&scene_of(&model, "blaster_view", &anims));
    scene.extras = Extras::default();
    let files = back(&scene);
    same_meshes(&model, files.mesh.as_ref().unwrap(), "blaster_view");
    let got: Vec<(String, usize, i32)> = files
        .anims
        .iter()
        .map(|(n, a)| (n.clone(), a.frames.len(), a.frame_rate))
        .collect();
    let want: Vec<(String, usize, i32)> = anims
        .iter()
        .map(|(n, a)| (n.clone(), a.frames.len(), 24))
        .collect();
    assert_eq!(got, want);
}

/// BoarMan's thirteen meshes without vertices (glTF cannot hold them) come back in their
/// places with their shaders; an edited scene whose meshes no longer match the record
/// gets only its own meshes.
#[test]
fn meshes_glb_cannot_hold_come_back_in_their_places() {
    let Some(dir) = corpus_md5() else { return };
    let model = Model::parse(&std::fs::read(dir.join("BoarMan.md5mesh")).unwrap()).unwrap();
    assert_eq!(model.meshes.len(), 14);
    let scene = common::via_glb(&scene_of(&model, "BoarMan", &[]));
    let files = back(&scene);
    same_meshes(&model, files.mesh.as_ref().unwrap(), "BoarMan");

    let mut edited = scene.clone();
    let extra = edited.meshes[0].primitives[0].clone();
    edited.meshes[0].primitives.push(extra);
    let files = back(&edited);
    assert_eq!(files.mesh.unwrap().meshes.len(), 2);
}
