//! Corpus tests: every md5 file in `$IDMODEL_CORPUS/md5` parses with the counts
//! surveyed below, the owned and view readers agree, files rewrite to equal models,
//! every md5anim evaluates on the mesh whose skeleton it matches, and every malformed
//! file is refused with a positioned error.
#![allow(clippy::restriction)] // test code: a failure should stop the test loudly

mod common;

use std::path::Path;

use idmodel_core::quat::JointMat;
use idmodel_md5::anim::{self, Anim};
use idmodel_md5::mesh::{self, Model};
use idmodel_md5::pose::{self, JointPose, Mismatch, RootMotion};
use idmodel_md5::{Engine, Md5ErrorKind, camera, skinning};

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join("md5").join(name)).unwrap()
}

/// (file, joints, meshes, verts, tris, weights), surveyed from the corpus files.
const MESHES: &[(&str, usize, usize, u64, u64, u64)] = &[
    ("BoarMan.md5mesh", 1, 14, 1552, 2812, 1552),
    ("Bob.md5mesh", 33, 6, 875, 1027, 1358),
    ("SimpleCube.md5mesh", 3, 1, 24, 12, 16),
    ("blaster_view.md5mesh", 22, 4, 1852, 2162, 1640),
    ("ckit_view.md5mesh", 39, 7, 2510, 2851, 2071),
    ("ffflag.md5mesh", 19, 1, 172, 236, 201),
    ("ffpit.md5mesh", 21, 1, 389, 622, 313),
    ("grenade.md5mesh", 1, 1, 309, 452, 309),
    ("tyrant_view.md5mesh", 9, 1, 3078, 4798, 4195),
    ("unv_human_light_body.md5mesh", 85, 22, 7169, 11836, 10620),
    ("unv_level0_body.md5mesh", 46, 1, 1552, 2384, 1920),
    ("unv_level2_body.md5mesh", 57, 2, 6297, 10010, 7057),
];

/// (file, frames, joints, frameRate, numAnimatedComponents), surveyed from the corpus files.
const ANIMS: &[(&str, usize, usize, i32, usize)] = &[
    ("Bob.md5anim", 140, 33, 24, 198),
    ("blaster_view_fire.md5anim", 10, 22, 24, 132),
    ("blaster_view_idle.md5anim", 1, 22, 24, 132),
    ("ckit_view_idle.md5anim", 1, 39, 24, 234),
    ("ffflag.md5anim", 120, 19, 30, 57),
    ("tyrant_view_fire.md5anim", 11, 9, 20, 54),
    ("tyrant_view_idle.md5anim", 5, 9, 20, 54),
    ("unv_human_nobsuit_common_attack.md5anim", 17, 85, 60, 510),
    ("unv_level0_jump.md5anim", 11, 46, 60, 276),
    ("unv_level0_run.md5anim", 21, 46, 60, 276),
    ("unv_level2_land.md5anim", 4, 57, 60, 342),
];

#[test]
fn every_md5mesh_parses_with_the_documented_counts() {
    let test = "every_md5mesh_parses_with_the_documented_counts";
    let Some(dir) = common::corpus_listed(test, "md5", "md5mesh", MESHES.len()) else {
        return;
    };
    for &(name, joints, meshes, verts, tris, weights) in MESHES {
        let bytes = read(&dir, name);
        let m = mesh::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (
                m.num_joints(),
                m.num_meshes(),
                m.total_vertices(),
                m.total_triangles(),
                m.total_weights()
            ),
            (joints, meshes, verts, tris, weights),
            "{name}"
        );
        // The one-pass owned reader and the view agree.
        let owned = Model::parse(&bytes).unwrap();
        assert_eq!(owned, Model::from(&m), "{name}");
        // Strict comments read the corpus identically (no comment swallows anything).
        assert_eq!(
            Model::parse_with(
                &bytes,
                idmodel_md5::ParseOptions {
                    comments: idmodel_md5::lexer::CommentRule::Strict,
                    ..Default::default()
                }
            )
            .unwrap(),
            owned,
            "{name}"
        );
        // Written and read back: the same model, bit for bit.
        let text = mesh::write(&owned).unwrap();
        assert_eq!(mesh::written_size(&owned).unwrap(), text.len());
        assert_eq!(Model::parse(&text).unwrap(), owned, "{name} round trip");
        // Bind-pose skinning gives finite positions for every vertex.
        let joints = owned.bind_pose();
        for mesh in &owned.meshes {
            let mut out = vec![[f32::NAN; 3]; mesh.vertices.len()];
            skinning::skin(&mesh.vertices, &mesh.weights, &joints, &mut out);
            assert!(out.iter().flatten().all(|x| x.is_finite()), "{name}");
        }
        // The no-allocation skinning over the text agrees with the slice version.
        let mut mats = vec![JointMat::IDENTITY; m.num_joints()];
        m.bind_pose(&mut mats);
        for (view, mesh) in m.meshes().zip(&owned.meshes) {
            let mut a = vec![[0.0; 3]; mesh.vertices.len()];
            let mut b = vec![[0.0; 3]; mesh.vertices.len()];
            view.skin(&mats, &mut a);
            skinning::skin(&mesh.vertices, &mesh.weights, &mats, &mut b);
            assert_eq!(a, b, "{name}");
        }
        let _ = m.findings(Engine::Doom3);
    }
}

#[test]
fn boarman_has_thirteen_empty_meshes() {
    let Some(dir) = common::corpus_dir("boarman_has_thirteen_empty_meshes") else {
        return;
    };
    let m = Model::parse(&read(&dir, "BoarMan.md5mesh")).unwrap();
    assert_eq!(
        m.meshes.iter().filter(|m| m.vertices.is_empty()).count(),
        13
    );
    let f = m.findings(Engine::Doom3);
    let empty = f
        .iter()
        .filter(|f| matches!(f.kind, idmodel_md5::FindingKind::EmptyMesh { .. }))
        .count();
    assert_eq!(empty, 13);
}

#[test]
fn comment_on_the_version_line() {
    let Some(dir) = common::corpus_dir("comment_on_the_version_line") else {
        return;
    };
    for name in ["unv_level2_body.md5mesh", "unv_level2_land.md5anim"] {
        let bytes = read(&dir, name);
        assert!(bytes.starts_with(b"MD5Version 10 //"), "{name}");
    }
    assert!(mesh::parse(&read(&dir, "unv_level2_body.md5mesh")).is_ok());
    assert!(anim::parse(&read(&dir, "unv_level2_land.md5anim")).is_ok());
}

#[test]
fn every_md5anim_parses_with_the_documented_counts() {
    let test = "every_md5anim_parses_with_the_documented_counts";
    let Some(dir) = common::corpus_listed(test, "md5", "md5anim", ANIMS.len()) else {
        return;
    };
    for &(name, frames, joints, rate, comps) in ANIMS {
        let bytes = read(&dir, name);
        let a = anim::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            (
                a.num_frames(),
                a.num_joints(),
                a.frame_rate(),
                a.num_animated_components()
            ),
            (frames, joints, rate, comps),
            "{name}"
        );
        let owned = Anim::parse(&bytes).unwrap();
        assert_eq!(owned, Anim::from(&a), "{name}");
        let text = anim::write(&owned).unwrap();
        assert_eq!(Anim::parse(&text).unwrap(), owned, "{name} round trip");
        let mut comps_buf = vec![0.0; comps];
        assert_eq!(a.fill_frame(frames - 1, &mut comps_buf), comps);
        assert_eq!(comps_buf, owned.frames[frames - 1]);
    }
}

#[test]
fn ffflag_uses_partial_component_flags() {
    let Some(dir) = common::corpus_dir("ffflag_uses_partial_component_flags") else {
        return;
    };
    let a = Anim::parse(&read(&dir, "ffflag.md5anim")).unwrap();
    let mut flags: Vec<u8> = a.hierarchy.iter().map(|j| j.flags).collect();
    flags.sort_unstable();
    flags.dedup();
    assert_eq!(flags, [0, 16, 17, 24, 49, 56, 57]);
    let used: u32 = a.hierarchy.iter().map(|j| j.component_count()).sum();
    assert_eq!(used, 57);
    // Joint 2 ("Bone014", flags 24 = Qx|Qy, first 3): frame 5's components land in q.x, q.y.
    let mut pose = vec![JointPose::IDENTITY; a.hierarchy.len()];
    a.local_pose(5, &mut pose);
    let j = &a.hierarchy[2];
    assert_eq!((j.flags, j.first_component), (24, 3));
    assert_eq!(pose[2].orientation[0], a.frames[5][3]);
    assert_eq!(pose[2].orientation[1], a.frames[5][4]);
    assert_eq!(pose[2].orientation[2], a.base_frame[2].orientation[2]);
    assert_eq!(pose[2].position, a.base_frame[2].position);
}

/// Every anim against every mesh with the same joint count: the report, and a full
/// evaluation (all frames, blended times, model space, skinning) where usable by index.
#[test]
fn every_md5anim_evaluates_on_its_mesh() {
    let Some(dir) = common::corpus_dir("every_md5anim_evaluates_on_its_mesh") else {
        return;
    };
    let meshes: Vec<(&str, Model)> = MESHES
        .iter()
        .map(|m| (m.0, Model::parse(&read(&dir, m.0)).unwrap()))
        .collect();
    for &(name, ..) in ANIMS {
        let a = Anim::parse(&read(&dir, name)).unwrap();
        let mut evaluated = 0;
        for (mname, m) in &meshes {
            if m.joints.len() != a.hierarchy.len() {
                continue;
            }
            let mut mismatches = vec![];
            let c = pose::compare(
                m.joints.iter().map(|j| (j.name.clone(), j.parent)),
                a.hierarchy.iter().map(|j| (j.name.clone(), j.parent)),
                &mut |x| mismatches.push(x),
            );
            if !c.usable_by_index() {
                continue;
            }
            evaluated += 1;
            let n = a.hierarchy.len();
            let mut local = vec![JointPose::IDENTITY; n];
            let mut scratch = vec![JointPose::IDENTITY; n];
            let mut model = vec![JointMat::IDENTITY; n];
            for f in 0..a.num_frames() {
                a.local_pose(f, &mut local);
                pose::model_space(&a.hierarchy, &local, &mut model);
                for mesh in &m.meshes {
                    let mut out = vec![[f32::NAN; 3]; mesh.vertices.len()];
                    skinning::skin(&mesh.vertices, &mesh.weights, &model, &mut out);
                    assert!(
                        out.iter().flatten().all(|x| x.is_finite()),
                        "{name} on {mname}"
                    );
                }
            }
            for t in [0, 7, 33, 250, 1000, 5000] {
                for root in [RootMotion::Raw, RootMotion::Extract] {
                    a.local_pose_at(t, root, &mut scratch, &mut local);
                    assert!(
                        local.iter().all(|p| p
                            .position
                            .iter()
                            .chain(&p.orientation)
                            .all(|x| x.is_finite())),
                        "{name} at {t}"
                    );
                }
            }
        }
        assert!(
            evaluated > 0,
            "{name} found no mesh with a matching skeleton"
        );
    }
}

#[test]
fn attack_anim_names_do_not_match_the_body_but_indices_do() {
    let Some(dir) = common::corpus_dir("attack_anim_names_do_not_match_the_body_but_indices_do")
    else {
        return;
    };
    let m_bytes = read(&dir, "unv_human_light_body.md5mesh");
    let m = mesh::parse(&m_bytes).unwrap();
    let a_bytes = read(&dir, "unv_human_nobsuit_common_attack.md5anim");
    let a = anim::parse(&a_bytes).unwrap();
    let mut seen = vec![];
    let c = pose::compare(
        m.joints().map(|j| (j.name, j.parent)),
        a.hierarchy().map(|j| (j.name, j.parent)),
        &mut |x| seen.push(x),
    );
    assert!(
        !c.engine_accepts(),
        "Doom's CheckModelHierarchy would refuse it"
    );
    assert!(c.usable_by_index());
    assert!(seen.contains(&Mismatch::Name { joint: 32 }), "{seen:?}");
    let j32 = m.joints().nth(32).unwrap();
    assert_eq!(j32.name, "head_tag");
    assert_eq!(a.hierarchy().nth(32).unwrap().name, "tag_head");
    assert_eq!(a.hierarchy().nth(4).unwrap().name, "tag_head");
}

/// The three `Overflowing*Index` files are valid for Doom 3 (the number after
/// `vert`/`tri`/`weight` is read and ignored): they parse by default, with a hazard
/// finding, and are refused with `require_element_indices`. The other four are refused
/// always.
#[test]
fn malformed_md5_files_are_refused_with_positions() {
    let Some(dir) = common::corpus_dir("malformed_md5_files_are_refused_with_positions") else {
        return;
    };
    let mal = dir.join("malformed").join("md5");
    let files = common::walk(&mal);
    assert_eq!(files.len(), 7);
    let strict = idmodel_md5::ParseOptions {
        require_element_indices: true,
        ..Default::default()
    };
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let err = if name.ends_with(".md5camera") {
            camera::parse(&bytes).unwrap_err()
        } else if name.starts_with("Overflowing") {
            let view = mesh::parse(&bytes).unwrap();
            let findings = view.findings(Engine::Doom3);
            let hazard = findings
                .iter()
                .find(|f| f.kind == idmodel_md5::FindingKind::ElementIndex)
                .unwrap_or_else(|| panic!("{name}: {findings:?}"));
            assert_eq!(hazard.severity, idmodel_md5::Severity::Hazard);
            println!("{name}: {hazard}");
            let e = mesh::parse_with(&bytes, strict).unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    Md5ErrorKind::ElementIndex {
                        expected: 0,
                        found: -1,
                        ..
                    }
                ),
                "{name}: {e}"
            );
            e
        } else {
            mesh::parse(&bytes).unwrap_err()
        };
        let msg = err.to_string();
        println!("{name}: {msg}");
        assert!(msg.contains("line "), "{name}: {msg}");
        let ok = match name.as_str() {
            "InvalidBoneIndex.md5mesh" => matches!(
                err.kind(),
                Md5ErrorKind::IndexOutOfRange {
                    what: "weight joint index",
                    index: 999,
                    len: 1
                }
            ),
            "InvalidCameraCut.md5camera" => matches!(
                err.kind(),
                Md5ErrorKind::BadCameraCut {
                    cut: 8,
                    num_frames: 1
                }
            ),
            "malformed_weight_index.md5mesh" => matches!(
                err.kind(),
                Md5ErrorKind::WeightRange {
                    first: 1000000,
                    num_weights: Some(16),
                    ..
                }
            ),
            "empty.md5mesh" => matches!(err.kind(), Md5ErrorKind::Unexpected { .. }),
            _ => matches!(err.kind(), Md5ErrorKind::ElementIndex { .. }),
        };
        assert!(ok, "{name}: {:?}", err.kind());
    }
}

#[test]
fn the_34_byte_input_is_refused() {
    for text in [
        &b"MD5Version 10\njoints MD5Version"[..],
        &b"MD5Version 10\nnumJoints MD5Version"[..],
    ] {
        let e = mesh::parse(text).unwrap_err();
        assert_eq!(e.line(), 2);
        assert!(anim::parse(text).is_err());
        assert!(camera::parse(text).is_err());
    }
}
