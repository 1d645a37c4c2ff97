//! Hand-made fixtures for the three grammars: one test per hostile case
//! (docs/formats.md §4.2–4.4), plus pose, time and camera semantics.
#![allow(clippy::restriction)] // test code: a failure should stop the test loudly

use idmodel_core::quat::{JointMat, doom_rotate, rotate};
use idmodel_md5::anim::{self, Anim};
use idmodel_md5::camera::{self, Camera, CameraFrame};
use idmodel_md5::mesh::{self, Model};
use idmodel_md5::pose::{self, JointPose, RootMotion};
use idmodel_md5::{Engine, FindingKind, Md5ErrorKind, Severity};

/// A one-joint, one-triangle md5mesh with `$parts` replacing pieces.
fn mesh_text(joints: &str, mesh_body: &str) -> String {
    format!(
        "MD5Version 10\ncommandline \"\"\nnumJoints {}\nnumMeshes 1\njoints {{\n{joints}\n}}\nmesh {{\n{mesh_body}\n}}\n",
        joints.lines().count()
    )
}

const ONE_JOINT: &str = "\"origin\" -1 ( 0 0 32 ) ( 0 0 0 )";
const GOOD_BODY: &str = "shader \"s\"
numverts 3
vert 0 ( 0 0 ) 0 1
vert 1 ( 1 0 ) 1 1
vert 2 ( 0 1 ) 2 2
numtris 1
tri 0 0 1 2
numweights 4
weight 0 0 1 ( 0 0 8 )
weight 1 0 1 ( 8 0 0 )
weight 2 0 0.5 ( 0 0 0 )
weight 3 0 0.5 ( 0 0 10 )";

fn mesh_err(text: &str) -> Md5ErrorKind {
    mesh::parse(text.as_bytes()).unwrap_err().kind()
}

#[test]
fn good_mesh_and_the_seed_worked_examples() {
    let t = mesh_text(ONE_JOINT, GOOD_BODY);
    let m = Model::parse(t.as_bytes()).unwrap();
    let joints = m.bind_pose();
    let mesh = &m.meshes[0];
    let mut out = [[0.0f32; 3]; 3];
    idmodel_md5::skinning::skin(&mesh.vertices, &mesh.weights, &joints, &mut out);
    assert_eq!(out[0], [0.0, 0.0, 40.0]); // one weight (0 0 8) on a joint at (0 0 32)
    assert_eq!(out[2], [0.0, 0.0, 37.0]); // two half weights at 0 and 10 → 5 above it
}

#[test]
fn unsupported_version() {
    let t = mesh_text(ONE_JOINT, GOOD_BODY).replace("MD5Version 10", "MD5Version 11");
    assert_eq!(mesh_err(&t), Md5ErrorKind::UnsupportedVersion(11));
}

#[test]
fn negative_numjoints() {
    let t = mesh_text(ONE_JOINT, GOOD_BODY).replace("numJoints 1", "numJoints -1");
    assert!(matches!(
        mesh_err(&t),
        Md5ErrorKind::BadCount {
            what: "numJoints",
            value: -1
        }
    ));
}

#[test]
fn forward_parent_is_refused() {
    let j =
        "\"a\" 1 ( 0 0 0 ) ( 0 0 0 )\n\"b\" -1 ( 0 0 0 ) ( 0 0 0 )\n\"c\" -1 ( 0 0 0 ) ( 0 0 0 )";
    // Doom accepts parent 1 for joint 0 (1 < numJoints − 1 = 2), with a garbage pose.
    let e = mesh::parse(mesh_text(j, GOOD_BODY).as_bytes()).unwrap_err();
    assert_eq!(
        e.kind(),
        Md5ErrorKind::BadParent {
            joint: 0,
            parent: 1
        }
    );
    assert_eq!((e.line(), e.column()), (6, 5));
}

#[test]
fn self_parent_is_refused() {
    let j = "\"a\" 0 ( 0 0 0 ) ( 0 0 0 )";
    assert_eq!(
        mesh_err(&mesh_text(j, GOOD_BODY)),
        Md5ErrorKind::BadParent {
            joint: 0,
            parent: 0
        }
    );
}

#[test]
fn any_negative_parent_is_a_root() {
    let j = "\"a\" -7 ( 0 0 0 ) ( 0 0 0 )";
    let m = Model::parse(mesh_text(j, GOOD_BODY).as_bytes()).unwrap();
    assert_eq!(m.joints[0].parent, -7);
    assert_eq!(m.joints[0].parent_index(), None);
}

#[test]
fn vertex_without_weights() {
    let b = GOOD_BODY.replace("vert 1 ( 1 0 ) 1 1", "vert 1 ( 1 0 ) 1 0");
    assert_eq!(
        mesh_err(&mesh_text(ONE_JOINT, &b)),
        Md5ErrorKind::VertexWithoutWeights { vertex: 1 }
    );
}

#[test]
fn negative_first_weight() {
    let b = GOOD_BODY.replace("vert 1 ( 1 0 ) 1 1", "vert 1 ( 1 0 ) -1 1");
    assert!(matches!(
        mesh_err(&mesh_text(ONE_JOINT, &b)),
        Md5ErrorKind::WeightRange {
            vertex: 1,
            first: -1,
            num_weights: None,
            ..
        }
    ));
}

#[test]
fn weight_range_past_numweights() {
    let b = GOOD_BODY.replace("vert 2 ( 0 1 ) 2 2", "vert 2 ( 0 1 ) 3 2");
    assert!(matches!(
        mesh_err(&mesh_text(ONE_JOINT, &b)),
        Md5ErrorKind::WeightRange {
            vertex: 2,
            first: 3,
            count: 2,
            num_weights: Some(4)
        }
    ));
}

#[test]
fn triangle_index_out_of_range() {
    let b = GOOD_BODY.replace("tri 0 0 1 2", "tri 0 0 1 3");
    assert!(matches!(
        mesh_err(&mesh_text(ONE_JOINT, &b)),
        Md5ErrorKind::IndexOutOfRange {
            what: "triangle vertex index",
            index: 3,
            len: 3
        }
    ));
    let b = GOOD_BODY.replace("tri 0 0 1 2", "tri 0 0 -1 2");
    assert!(matches!(
        mesh_err(&mesh_text(ONE_JOINT, &b)),
        Md5ErrorKind::IndexOutOfRange { index: -1, .. }
    ));
}

#[test]
fn weight_joint_out_of_range() {
    let b = GOOD_BODY.replace("weight 1 0 1", "weight 1 1 1");
    assert!(matches!(
        mesh_err(&mesh_text(ONE_JOINT, &b)),
        Md5ErrorKind::IndexOutOfRange {
            what: "weight joint index",
            index: 1,
            len: 1
        }
    ));
}

#[test]
fn keywords_out_of_order() {
    let b = GOOD_BODY
        .replace("shader \"s\"", "")
        .replace("numtris 1", "shader \"s\" numtris 1");
    let e = mesh_err(&mesh_text(ONE_JOINT, &b));
    assert!(matches!(e, Md5ErrorKind::Unexpected { .. }), "{e:?}");
}

#[test]
fn missing_closing_brace() {
    let t = mesh_text(ONE_JOINT, GOOD_BODY);
    let t = &t[..t.rfind('}').unwrap()];
    let e = mesh::parse(t.as_bytes()).unwrap_err();
    assert_eq!(
        e.to_string().split(" (line").next().unwrap(),
        "expected '}' but found the end of the file"
    );
}

#[test]
fn tokens_after_the_last_mesh_are_ignored() {
    let t = mesh_text(ONE_JOINT, GOOD_BODY) + "garbage { ( ) } 1.2.3";
    let m = mesh::parse(t.as_bytes()).unwrap();
    assert!(m.end() < t.len());
}

#[test]
fn optional_mesh_name_and_joined_shader_strings() {
    let b = GOOD_BODY.replace(
        "shader \"s\"",
        "name \"body\" shader \"models/\" // c\n \"skin\"",
    );
    let t = mesh_text(ONE_JOINT, &b);
    let v = mesh::parse(t.as_bytes()).unwrap();
    let m = v.meshes().next().unwrap();
    assert_eq!(m.name().unwrap(), "body");
    assert_eq!(m.shader(), "models/skin");
    assert!(m.shader().is_concatenated());
    let owned = Model::from(&v);
    assert_eq!(owned.meshes[0].shader, "models/skin");
    assert_eq!(owned.meshes[0].name.as_deref(), Some("body"));
}

#[test]
fn float_counts_are_truncated_and_reported() {
    let b = GOOD_BODY.replace("numtris 1", "numtris 1.9");
    let t = mesh_text(ONE_JOINT, &b);
    let v = mesh::parse(t.as_bytes()).unwrap();
    assert_eq!(v.total_triangles(), 1);
    let f = v.findings(Engine::Doom3);
    assert!(
        f.iter().any(|f| f.kind == FindingKind::FloatAsInteger),
        "{f:?}"
    );
}

#[test]
fn bias_sum_and_unused_weight_findings() {
    let b = GOOD_BODY
        .replace("weight 1 0 1 ( 8 0 0 )", "weight 1 0 0.9 ( 8 0 0 )")
        .replace("numweights 4", "numweights 5")
        + "\nweight 4 0 1 ( 0 0 0 )";
    let t = mesh_text(ONE_JOINT, &b);
    let v = mesh::parse(t.as_bytes()).unwrap();
    let f = v.findings(Engine::Doom3);
    assert!(
        f.iter().any(|f| matches!(
            f.kind,
            FindingKind::BiasSum {
                vertex: 1,
                count: 1,
                ..
            }
        )),
        "{f:?}"
    );
    assert!(
        f.iter()
            .any(|f| matches!(f.kind, FindingKind::UnusedWeights { count: 1, .. })),
        "{f:?}"
    );
    // The owned model reports the same data findings.
    let owned = Model::from(&v);
    assert_eq!(
        owned.findings(Engine::Doom3).len(),
        f.len(),
        "{:?}",
        owned.findings(Engine::Doom3)
    );
}

#[test]
fn comment_swallowing_is_a_hazard_finding_and_strict_mode_differs() {
    // `*/2` eats the 2: Doom reads `numMeshes 1`, a strict reader `numMeshes 2`.
    let t = mesh_text(ONE_JOINT, GOOD_BODY).replace("numMeshes 1", "numMeshes /* two? */21");
    let v = mesh::parse(t.as_bytes()).unwrap();
    assert_eq!(v.num_meshes(), 1);
    let f = v.findings(Engine::Doom3);
    let sw = f
        .iter()
        .find(|f| f.kind == FindingKind::SwallowedCharacter)
        .unwrap();
    assert_eq!(sw.severity, Severity::Hazard);
    let strict = idmodel_md5::ParseOptions {
        comments: idmodel_md5::lexer::CommentRule::Strict,
        ..Default::default()
    };
    assert!(mesh::parse_with(t.as_bytes(), strict).is_err());
}

#[test]
fn doom_and_standard_quaternions_give_the_same_vertex() {
    // Joint turned by stored (0 0 0.7071): Doom applies the conjugate (§4.5).
    let j = "\"a\" -1 ( 1 2 3 ) ( 0 0 0.70710677 )";
    let m = Model::parse(mesh_text(j, GOOD_BODY).as_bytes()).unwrap();
    let joint = &m.joints[0];
    let offset = [8.0, 0.0, 0.0];
    let doom = doom_rotate(joint.quat(), offset);
    let std = rotate(joint.standard_quat(), offset);
    for k in 0..3 {
        assert!((doom[k] - std[k]).abs() < 1e-5);
    }
    assert!((doom[1] + 8.0).abs() < 1e-5, "{doom:?}"); // +X turned to −Y
    let mut out = [[0.0; 3]; 3];
    idmodel_md5::skinning::skin(
        &m.meshes[0].vertices,
        &m.meshes[0].weights,
        &m.bind_pose(),
        &mut out,
    );
    assert!((out[1][0] - 1.0).abs() < 1e-5 && (out[1][1] - (2.0 - 8.0)).abs() < 1e-5);
}

// ---------------------------------------------------------------------------- md5anim

fn anim_text(header: &str, hierarchy: &str, frames: &str) -> String {
    format!(
        "MD5Version 10\ncommandline \"\"\n{header}\nhierarchy {{\n{hierarchy}\n}}\nbounds {{\n( 0 0 0 ) ( 1 1 1 )\n( 0 0 0 ) ( 1 1 1 )\n}}\nbaseframe {{\n( 1 2 3 ) ( 0 0 0 )\n( 0 0 8 ) ( 0 0 0 )\n}}\n{frames}"
    )
}

const A_HEADER: &str = "numFrames 2\nnumJoints 2\nframeRate 24\nnumAnimatedComponents 4";
const A_HIER: &str = "\"root\" -1 7 0\n\"tip\" 0 32 3";
const A_FRAMES: &str = "frame 0 { 1 2 3 0 }\nframe 1 { 11 2 3 0.5 }";

fn anim_err(h: &str, j: &str, f: &str) -> Md5ErrorKind {
    anim::parse(anim_text(h, j, f).as_bytes())
        .unwrap_err()
        .kind()
}

#[test]
fn good_anim_evaluates() {
    let a = Anim::parse(anim_text(A_HEADER, A_HIER, A_FRAMES).as_bytes()).unwrap();
    let mut p = [JointPose::IDENTITY; 2];
    a.local_pose(1, &mut p);
    assert_eq!(p[0].position, [11.0, 2.0, 3.0]);
    // Qz animated: w recomputed from the mixed x, y, z.
    assert_eq!(p[1].orientation[2], 0.5);
    assert!((p[1].orientation[3] - 0.75f32.sqrt()).abs() < 1e-6);
    let mut m = [JointMat::IDENTITY; 2];
    pose::model_space(&a.hierarchy, &p, &mut m);
    assert_eq!(m[1].translation(), [11.0, 2.0, 11.0]);
}

#[test]
fn zero_frames_and_zero_joints() {
    let h = A_HEADER.replace("numFrames 2", "numFrames 0");
    assert!(matches!(
        anim_err(&h, A_HIER, A_FRAMES),
        Md5ErrorKind::BadCount {
            what: "numFrames",
            value: 0
        }
    ));
    let h = A_HEADER.replace("numJoints 2", "numJoints 0");
    assert!(matches!(
        anim_err(&h, A_HIER, A_FRAMES),
        Md5ErrorKind::BadCount {
            what: "numJoints",
            ..
        }
    ));
}

#[test]
fn negative_frame_rate() {
    let h = A_HEADER.replace("frameRate 24", "frameRate -1");
    assert!(matches!(
        anim_err(&h, A_HIER, A_FRAMES),
        Md5ErrorKind::BadCount {
            what: "frameRate",
            value: -1
        }
    ));
}

#[test]
fn zero_frame_rate_is_accepted_reported_and_never_divides() {
    let h = A_HEADER.replace("frameRate 24", "frameRate 0");
    let t = anim_text(&h, A_HIER, A_FRAMES);
    let v = anim::parse(t.as_bytes()).unwrap();
    let f = v.findings(Engine::Doom3);
    let z = f
        .iter()
        .find(|f| f.kind == FindingKind::ZeroFrameRate)
        .unwrap();
    assert_eq!(z.severity, Severity::Hazard);
    let a = Anim::from(&v);
    assert_eq!(a.length_ms(), None);
    let fb = a.frame_blend(5000, 0);
    assert_eq!((fb.frame1, fb.frame2, fb.blend), (0, 1, 0.0));
    let mut s = [JointPose::IDENTITY; 2];
    let mut o = [JointPose::IDENTITY; 2];
    a.local_pose_at(5000, RootMotion::Extract, &mut s, &mut o);
}

#[test]
fn too_many_animated_components() {
    let h = A_HEADER.replace("numAnimatedComponents 4", "numAnimatedComponents 13");
    assert!(matches!(
        anim_err(&h, A_HIER, A_FRAMES),
        Md5ErrorKind::BadCount {
            what: "numAnimatedComponents",
            value: 13
        }
    ));
}

#[test]
fn second_root() {
    let j = "\"root\" -1 7 0\n\"tip\" -1 32 3";
    assert_eq!(
        anim_err(A_HEADER, j, A_FRAMES),
        Md5ErrorKind::SecondRoot { joint: 1 }
    );
}

#[test]
fn anim_parent_not_before_joint() {
    let j = "\"root\" -1 7 0\n\"tip\" 1 32 3";
    assert_eq!(
        anim_err(A_HEADER, j, A_FRAMES),
        Md5ErrorKind::BadParent {
            joint: 1,
            parent: 1
        }
    );
}

#[test]
fn bad_anim_bits() {
    let j = "\"root\" -1 64 0\n\"tip\" 0 32 3";
    assert_eq!(
        anim_err(A_HEADER, j, A_FRAMES),
        Md5ErrorKind::BadAnimBits {
            joint: 0,
            flags: 64
        }
    );
}

#[test]
fn first_component_out_of_range() {
    let j = "\"root\" -1 7 0\n\"tip\" 0 32 4";
    assert!(matches!(
        anim_err(A_HEADER, j, A_FRAMES),
        Md5ErrorKind::BadComponentRange {
            joint: 1,
            first: 4,
            ..
        }
    ));
}

#[test]
fn components_overrun_the_frame() {
    // Doom checks only the first component (2 < 4) and then reads 3 values from 2.
    let j = "\"root\" -1 7 0\n\"tip\" 0 56 2";
    assert!(matches!(
        anim_err(A_HEADER, j, A_FRAMES),
        Md5ErrorKind::BadComponentRange {
            joint: 1,
            first: 2,
            count: 3,
            num_animated: 4
        }
    ));
}

#[test]
fn frame_numbers_out_of_order() {
    let f = "frame 1 { 1 2 3 0 }\nframe 0 { 11 2 3 0.5 }";
    assert_eq!(
        anim_err(A_HEADER, A_HIER, f),
        Md5ErrorKind::FrameNumber {
            expected: 0,
            found: 1
        }
    );
}

#[test]
fn strings_are_not_joined_in_md5anim() {
    let j = "\"ro\" \"ot\" -1 7 0\n\"tip\" 0 32 3";
    let e = anim_err(A_HEADER, j, A_FRAMES);
    assert!(
        matches!(e, Md5ErrorKind::Unexpected { found, .. } if found.bytes() == b"ot"),
        "{e:?}"
    );
}

#[test]
fn root_motion_extraction() {
    let a = Anim::parse(anim_text(A_HEADER, A_HIER, A_FRAMES).as_bytes()).unwrap();
    let (mut s, mut o) = ([JointPose::IDENTITY; 2], [JointPose::IDENTITY; 2]);
    // 24 fps, 2 frames: one cycle is 1/24 s. At 1000/24·1.5 ms: cycle 1, half way 0 → 1.
    a.local_pose_at(62, RootMotion::Raw, &mut s, &mut o);
    let fb = a.frame_blend(62, 0);
    assert_eq!((fb.frame1, fb.frame2, fb.cycle_count), (0, 1, 1));
    assert!((o[0].position[0] - (1.0 + 10.0 * fb.blend)).abs() < 1e-5);
    a.local_pose_at(62, RootMotion::Extract, &mut s, &mut o);
    // Extracted: x − base.x (0 → 10), plus one cycle's delta (10); y, z are animated too.
    let want = 10.0 * fb.blend + 10.0;
    assert!((o[0].position[0] - want).abs() < 1e-4, "{:?}", o[0]);
    assert_eq!(o[0].position[1], 0.0);
    assert_eq!(o[0].position[2], 0.0);
}

#[test]
fn convert_time_to_frame() {
    use pose::frame_blend;
    assert_eq!(frame_blend(500, 1, 24, 0).frame2, 0);
    let f = frame_blend(-5, 10, 24, 0);
    assert_eq!((f.frame1, f.frame2, f.blend), (0, 1, 0.0));
    // 10 frames at 24 fps: 250 ms → ft 6000 → frame 6, blend 0.
    let f = frame_blend(250, 10, 24, 0);
    assert_eq!((f.frame1, f.frame2, f.cycle_count), (6, 7, 0));
    // 9 frames into a cycle of 9 spans: frame 0 of cycle 1.
    let f = frame_blend(375, 10, 24, 0);
    assert_eq!((f.frame1, f.frame2, f.cycle_count), (0, 1, 1));
    // A cycle limit holds the last frame.
    let f = frame_blend(10_000, 10, 24, 2);
    assert_eq!((f.frame1, f.frame2, f.cycle_count), (9, 9, 1));
    assert_eq!(pose::anim_length_ms(10, 24), Some(375));
}

#[test]
fn doom_slerp_is_used_between_frames() {
    let f = "frame 0 { 1 2 3 0 }\nframe 1 { 1 2 3 0.70710677 }";
    let a = Anim::parse(anim_text(A_HEADER, A_HIER, f).as_bytes()).unwrap();
    let (mut s, mut o) = ([JointPose::IDENTITY; 2], [JointPose::IDENTITY; 2]);
    // 24 fps: 1000/48 ms ≈ half way.
    a.local_pose_at(21, RootMotion::Raw, &mut s, &mut o);
    let fb = a.frame_blend(21, 0);
    let want = idmodel_core::quat::slerp_doom(
        idmodel_core::quat::doom_quat([0.0, 0.0, 0.0]),
        idmodel_core::quat::doom_quat([0.0, 0.0, 0.70710677]),
        fb.blend,
    );
    assert_eq!(o[1].orientation, want);
}

// ---------------------------------------------------------------------------- md5camera

fn camera_text(header: &str, cuts: &str) -> String {
    format!(
        "MD5Version 10\ncommandline \"\"\n{header}\ncuts {{\n{cuts}\n}}\ncamera {{\n( 0 0 0 ) ( 0 0 0 ) 90\n( 10 0 0 ) ( 0 0 0 ) 90\n( 500 0 0 ) ( 0 0 0.5 ) 60\n( 600 0 0 ) ( 0 0 0.5 ) 60\n}}\n"
    )
}

#[test]
fn camera_zero_frame_rate_is_refused() {
    let t = camera_text("numFrames 4\nframeRate 0\nnumCuts 1", "1");
    assert!(matches!(
        camera::parse(t.as_bytes()).unwrap_err().kind(),
        Md5ErrorKind::BadCount {
            what: "frameRate",
            value: 0
        }
    ));
}

#[test]
fn camera_more_cuts_than_frames() {
    let t = camera_text("numFrames 4\nframeRate 24\nnumCuts 5", "1 1 1 1 1");
    assert!(matches!(
        camera::parse(t.as_bytes()).unwrap_err().kind(),
        Md5ErrorKind::BadCount {
            what: "numCuts",
            value: 5
        }
    ));
}

#[test]
fn camera_cut_zero_and_cut_past_the_end() {
    for (cut, line) in [("0", 7), ("4", 7)] {
        let t = camera_text("numFrames 4\nframeRate 24\nnumCuts 1", cut);
        let e = camera::parse(t.as_bytes()).unwrap_err();
        assert!(matches!(
            e.kind(),
            Md5ErrorKind::BadCameraCut { num_frames: 4, .. }
        ));
        assert_eq!(e.line(), line);
    }
}

#[test]
fn camera_cuts_out_of_order_are_a_hazard() {
    let t = camera_text("numFrames 4\nframeRate 24\nnumCuts 2", "2 1");
    let v = camera::parse(t.as_bytes()).unwrap();
    let f = v.findings(Engine::Doom3);
    assert!(f.iter().any(
        |f| f.kind == FindingKind::CutsOutOfOrder { cut: 1 } && f.severity == Severity::Hazard
    ));
}

#[test]
fn camera_never_interpolates_across_a_cut() {
    let t = camera_text("numFrames 4\nframeRate 10\nnumCuts 1", "1");
    let c = Camera::parse(t.as_bytes()).unwrap();
    for ms in 0..400 {
        let s = c.sample(ms);
        assert_ne!((s.frame, s.next), (1, 2), "at {ms} ms");
        assert!(s.frame != 1 || s.lerp == 0.0, "at {ms} ms");
    }
    assert_eq!(c.duration_ms(), 200);
    let end = c.sample(10_000);
    assert!(end.finished);
    assert_eq!(end.frame, 3);
}

#[test]
fn sixty_hertz_camera_steps_without_lerp() {
    let frames = [
        CameraFrame {
            position: [0.0; 3],
            orientation: [0.0; 3],
            fov: 90.0,
        },
        CameraFrame {
            position: [1.0, 0.0, 0.0],
            orientation: [0.0; 3],
            fov: 90.0,
        },
        CameraFrame {
            position: [2.0, 0.0, 0.0],
            orientation: [0.0; 3],
            fov: 90.0,
        },
    ];
    let s = camera::sample(&frames, &[], 60, 20);
    assert_eq!((s.frame, s.lerp), (1, 0.0));
    assert_eq!(s.position, [1.0, 0.0, 0.0]);
}
