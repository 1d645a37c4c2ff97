//! Numbers too large for a float (`1e39`) are read by Doom's lexer as
//! infinities; `check` reports them in joints, weights, anim frames and cameras as
//! hazards.
// Tests may index and unwrap: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction)]

use idmodel_md5::{Engine, FindingKind, Severity};

fn non_finite(found: &[idmodel_md5::Finding]) -> Vec<(&'static str, u32)> {
    found
        .iter()
        .filter_map(|f| match f.kind {
            FindingKind::NonFinite { what, index } => {
                assert_eq!(f.severity, Severity::Hazard);
                Some((what, index))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn mesh_joints_and_weights() {
    let text = b"MD5Version 10 commandline \"\" numJoints 2 numMeshes 1
        joints { \"a\" -1 ( 0 0 0 ) ( 0 0 0 ) \"b\" 0 ( 1e39 0 0 ) ( 0 0 0 ) }
        mesh { shader \"s\" numverts 3
            vert 0 ( 0 0 ) 0 1 vert 1 ( 0 0 ) 1 1 vert 2 ( 0 0 ) 2 1
            numtris 1 tri 0 0 1 2
            numweights 3 weight 0 0 1 ( 0 0 0 ) weight 1 0 1 ( 0 0 0 ) weight 2 0 1 ( 0 1e39 0 ) }";
    let mesh = idmodel_md5::mesh::parse(text).unwrap();
    let found = mesh.findings(Engine::Doom3);
    assert_eq!(non_finite(&found), [("joint", 1), ("weight", 2)]);
    assert!(
        found
            .iter()
            .any(|f| f.to_string().contains("too large for a float"))
    );
}

#[test]
fn anim_frames_and_camera() {
    let text = b"MD5Version 10 commandline \"\" numFrames 2 numJoints 1 frameRate 24
        numAnimatedComponents 1 hierarchy { \"root\" -1 1 0 }
        bounds { ( 0 0 0 ) ( 0 0 0 ) ( 0 0 0 ) ( 1e39 0 0 ) }
        baseframe { ( 0 0 0 ) ( 0 0 0 ) } frame 0 { 0 } frame 1 { 1e39 }";
    let anim = idmodel_md5::anim::parse(text).unwrap();
    assert_eq!(
        non_finite(&anim.findings(Engine::Doom3)),
        [("frame bounds", 1), ("frame", 1)]
    );
    let cam = b"MD5Version 10 commandline \"\" numFrames 2 frameRate 24 numCuts 0 cuts { }
        camera { ( 0 0 0 ) ( 0 0 0 ) 90 ( 0 0 0 ) ( 0 0 0 ) 1e39 }";
    let cam = idmodel_md5::camera::parse(cam).unwrap();
    assert_eq!(
        non_finite(&cam.findings(Engine::Doom3)),
        [("camera frame", 1)]
    );
    // The sample camera has none.
    let path = format!(
        "{}/../../samples/sample.md5camera",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read(path).unwrap();
    let cam = idmodel_md5::camera::parse(&text).unwrap();
    assert!(non_finite(&cam.findings(Engine::Doom3)).is_empty());
}
