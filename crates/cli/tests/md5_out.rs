//! `idmodel convert X.glb -o Y.md5mesh|.md5anim|.md5camera`: the binary writes the mesh,
//! one md5anim per clip and the cameras, all parsed back here and passed by
//! `check --engine doom3 --fail-on refused`; existing side files are refused without
//! `--force`; the md5-only options are refused for other outputs.
// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#![allow(clippy::restriction, missing_docs)]

mod common;

use common::sample_file as sample;
use common::{code, convert, idmodel, scratch, stderr, stdout};
use idmodel::md5::{anim, camera, mesh};

#[test]
fn a_skinned_glb_becomes_an_md5mesh_and_its_anims() {
    let dir = scratch("skinned");
    let glb = dir.join("sample.glb");
    let o = idmodel(&[
        &"convert",
        &sample("md5mesh"),
        &"--anim",
        &sample("md5anim"),
        &"-o",
        &glb,
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mesh_path = out.join("sample.md5mesh");
    let o = idmodel(&[&"convert", &glb, &"-o", &mesh_path]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let anim_path = out.join("sample.md5anim"); // the clip is named after the md5anim
    assert!(stdout(&o).contains("sample.md5anim"), "{}", stdout(&o));
    let m = mesh::Model::parse(&std::fs::read(&mesh_path).unwrap()).unwrap();
    let a = anim::Anim::parse(&std::fs::read(&anim_path).unwrap()).unwrap();
    let orig = mesh::Model::parse(&std::fs::read(sample("md5mesh")).unwrap()).unwrap();
    assert_eq!(m.joints.len(), orig.joints.len());
    assert_eq!(a.hierarchy.len(), m.joints.len());
    let c = check(&out);
    assert_eq!(code(&c), 0, "{}{}", stdout(&c), stderr(&c));
    // Again: the md5anim beside the mesh exists and is not the -o file.
    let o = idmodel(&[&"convert", &glb, &"-o", &mesh_path]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    let o = idmodel(&[
        &"convert", &glb, &"-o", &mesh_path, &"--force", &"--fps", &"30",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let a = anim::Anim::parse(&std::fs::read(&anim_path).unwrap()).unwrap();
    assert_eq!(a.frame_rate, 30);
    // --anim-out names it.
    let named = out.join("bend.md5anim");
    let o = idmodel(&[&"convert", &glb, &"-o", &mesh_path, &"--anim-out", &named]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(anim::parse(&std::fs::read(&named).unwrap()).is_ok());
    // The md5 options are for md5 outputs.
    let o = idmodel(&[&"convert", &glb, &"-o", &dir.join("x.glb"), &"--fps", &"30"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn an_animated_camera_becomes_an_md5camera() {
    let dir = scratch("camera");
    let glb = dir.join("shots.glb");
    convert(&sample("md5camera"), &glb, &[]);
    let cam = dir.join("shots.md5camera");
    convert(&glb, &cam, &[]);
    let c = camera::Camera::parse(&std::fs::read(&cam).unwrap()).unwrap();
    let orig = camera::Camera::parse(&std::fs::read(sample("md5camera")).unwrap()).unwrap();
    assert_eq!(c.frames.len(), orig.frames.len());
    assert_eq!(c.cuts, orig.cuts);
    let o = check(&cam);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    // A model that is not glTF is refused for md5 outputs, naming the way.
    let o = idmodel(&[
        &"convert",
        &sample("md5mesh"),
        &"-o",
        &dir.join("m.md5mesh"),
    ]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains(".glb or .gltf"), "{}", stderr(&o));
}

fn check(path: &std::path::Path) -> std::process::Output {
    idmodel(&[
        &"check",
        &path,
        &"--engine",
        &"doom3",
        &"--fail-on",
        &"refused",
    ])
}
