//! The committed samples (`samples/sample.md5mesh`, `.md5anim`, `.md5camera`) are made by
//! this crate's writer: this test rebuilds them and asserts the files are byte-identical.
//! Run with `IDMODEL_BLESS=1` to regenerate them.
#![allow(clippy::restriction)] // test code: builders count freely; a failure should stop the test loudly

use idmodel_md5::anim::{self, Anim, BaseJoint, HierarchyJoint, flags};
use idmodel_md5::camera::{self, Camera, CameraFrame};
use idmodel_md5::mesh::{self, Joint, Mesh, Model, Vertex, Weight};

/// A 2×2×8 column in two segments over three joints (origin, lower, upper): each
/// vertex is weighted to the joint of its segment, with the middle ring shared half and
/// half.
fn sample_mesh() -> Model {
    let joints = vec![
        Joint {
            name: "origin".to_string(),
            parent: -1,
            position: [0.0, 0.0, 0.0],
            orientation: [0.0, 0.0, 0.0],
        },
        Joint {
            name: "lower".to_string(),
            parent: 0,
            position: [0.0, 0.0, 0.0],
            orientation: [0.0, 0.0, 0.0],
        },
        Joint {
            name: "upper".to_string(),
            parent: 1,
            position: [0.0, 0.0, 4.0],
            orientation: [0.0, 0.0, 0.0],
        },
    ];
    let ring = [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    let mut vertices = vec![];
    let mut weights = vec![];
    for level in 0..3u32 {
        for (k, &(x, y)) in ring.iter().enumerate() {
            let first = weights.len() as u32;
            let z = level as f32 * 4.0;
            match level {
                0 => weights.push(Weight {
                    joint: 1,
                    bias: 1.0,
                    position: [x, y, z],
                }),
                1 => {
                    weights.push(Weight {
                        joint: 1,
                        bias: 0.5,
                        position: [x, y, z],
                    });
                    weights.push(Weight {
                        joint: 2,
                        bias: 0.5,
                        position: [x, y, 0.0],
                    });
                }
                _ => weights.push(Weight {
                    joint: 2,
                    bias: 1.0,
                    position: [x, y, 4.0],
                }),
            }
            vertices.push(Vertex {
                uv: [k as f32 * 0.25, 1.0 - level as f32 * 0.5],
                first_weight: first,
                weight_count: weights.len() as u32 - first,
            });
        }
    }
    let mut triangles = vec![];
    for level in 0..2u32 {
        for k in 0..4u32 {
            let a = level * 4 + k;
            let b = level * 4 + (k + 1) % 4;
            let (c, d) = (a + 4, b + 4);
            triangles.push([a, c, b]);
            triangles.push([b, c, d]);
        }
    }
    Model {
        commandline: "idmodel sample: a bending column".to_string(),
        joints,
        meshes: vec![Mesh {
            name: Some("column".to_string()),
            shader: "models/samples/column".to_string(),
            vertices,
            triangles,
            weights,
        }],
    }
}

/// Five frames bending the upper joint about x (stored Doom form, w ≥ 0) and moving
/// the origin along y.
fn sample_anim() -> Anim {
    let hierarchy = vec![
        HierarchyJoint {
            name: "origin".to_string(),
            parent: -1,
            flags: flags::TY,
            first_component: 0,
        },
        HierarchyJoint {
            name: "lower".to_string(),
            parent: 0,
            flags: 0,
            first_component: 0,
        },
        HierarchyJoint {
            name: "upper".to_string(),
            parent: 1,
            flags: flags::QX,
            first_component: 1,
        },
    ];
    let base_frame = vec![
        BaseJoint::default(),
        BaseJoint::default(),
        BaseJoint {
            position: [0.0, 0.0, 4.0],
            orientation: [0.0, 0.0, 0.0],
        },
    ];
    let qx = [0.0f32, 0.125, 0.25, 0.125, 0.0];
    let frames: Vec<Vec<f32>> = qx
        .iter()
        .enumerate()
        .map(|(i, &q)| vec![i as f32 * 0.5, q])
        .collect();
    let bounds = qx
        .iter()
        .enumerate()
        .map(|(i, _)| {
            [
                [-1.5, -1.5 + i as f32 * 0.5, 0.0],
                [1.5, 1.5 + i as f32 * 0.5, 8.0],
            ]
        })
        .collect();
    Anim {
        commandline: "idmodel sample: bend".to_string(),
        frame_rate: 24,
        num_animated_components: 2,
        hierarchy,
        bounds,
        base_frame,
        frames,
    }
}

/// Six frames at 30 fps with one cut: frames 0–2 track sideways, 3–5 are a new shot.
fn sample_camera() -> Camera {
    let f = |x: f32, y: f32, qz: f32, fov: f32| CameraFrame {
        position: [x, y, 4.0],
        orientation: [0.0, 0.0, qz],
        fov,
    };
    Camera {
        commandline: "idmodel sample: two shots".to_string(),
        frame_rate: 30,
        cuts: vec![2],
        frames: vec![
            f(-32.0, 0.0, 0.0, 90.0),
            f(-32.0, 4.0, 0.0625, 90.0),
            f(-32.0, 8.0, 0.125, 90.0),
            f(0.0, -32.0, 0.5, 60.0),
            f(4.0, -32.0, 0.5, 55.0),
            f(8.0, -32.0, 0.5, 50.0),
        ],
    }
}

/// `value` written by `write` is the committed sample `name`, and `parse` reads it back
/// as `value`.
fn check<T: PartialEq + core::fmt::Debug, E: core::fmt::Debug, F: core::fmt::Debug>(
    name: &str,
    value: &T,
    write: impl Fn(&T) -> Result<Vec<u8>, E>,
    parse: impl Fn(&[u8]) -> Result<T, F>,
) {
    let bytes = write(value).unwrap();
    idmodel_test_support::assert_sample(name, &bytes);
    assert_eq!(&parse(&bytes).unwrap(), value, "{name}");
}

#[test]
fn sample_md5mesh_is_the_writers_output() {
    let m = sample_mesh();
    check("sample.md5mesh", &m, mesh::write, Model::parse);
    // The middle ring sits at the joint between the segments.
    let mut out = vec![[0.0; 3]; 12];
    idmodel_md5::skinning::skin(
        &m.meshes[0].vertices,
        &m.meshes[0].weights,
        &m.bind_pose(),
        &mut out,
    );
    assert_eq!(out[4], [-1.0, -1.0, 4.0]);
    assert_eq!(out[8], [-1.0, -1.0, 8.0]);
}

#[test]
fn sample_md5anim_is_the_writers_output() {
    let a = sample_anim();
    check("sample.md5anim", &a, anim::write, Anim::parse);
    let m = sample_mesh();
    let c = idmodel_md5::pose::compare(
        m.joints.iter().map(|j| (j.name.clone(), j.parent)),
        a.hierarchy.iter().map(|j| (j.name.clone(), j.parent)),
        &mut |x| panic!("{x:?}"),
    );
    assert!(c.engine_accepts());
}

#[test]
fn sample_md5camera_is_the_writers_output() {
    let c = sample_camera();
    check("sample.md5camera", &c, camera::write, Camera::parse);
}
