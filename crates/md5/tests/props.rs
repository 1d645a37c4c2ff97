//! Property tests: arbitrary valid models survive write → parse bit for bit; arbitrary
//! and mutated text never panics (and every accessor is walked).
#![allow(clippy::restriction)] // test code: generators index and count freely; a failure should stop the test loudly

use idmodel_md5::Engine;
use idmodel_md5::anim::{self, Anim, BaseJoint, HierarchyJoint};
use idmodel_md5::camera::{self, Camera, CameraFrame};
use idmodel_md5::mesh::{self, Joint, Mesh, Model, Vertex, Weight};
use idmodel_md5::write::{doom_value, write_f32};
use proptest::prelude::*;

fn any_finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -1000.0f32..1000.0,
        1 => any::<f32>().prop_filter("finite", |x| x.is_finite()),
        1 => Just(-0.0f32),
        1 => (0u32..0x0080_0000).prop_map(f32::from_bits), // subnormals
    ]
}

fn v3() -> impl Strategy<Value = [f32; 3]> {
    [any_finite(), any_finite(), any_finite()]
}

fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ ./\\\\:()'{}-]{0,12}"
}

fn model() -> impl Strategy<Value = Model> {
    let joints = (1usize..6).prop_flat_map(|n| {
        (0..n)
            .map(|i| {
                (name(), -3i32..i as i32, v3(), v3()).prop_map(
                    |(name, parent, position, orientation)| Joint {
                        name,
                        parent,
                        position,
                        orientation,
                    },
                )
            })
            .collect::<Vec<_>>()
    });
    (name(), joints).prop_flat_map(|(commandline, joints)| {
        let nj = joints.len() as u32;
        let mesh = (1usize..6, 0usize..5, proptest::option::of(name()), name()).prop_flat_map(
            move |(nw, nv, mname, shader)| {
                let weights = proptest::collection::vec(
                    (0..nj, any_finite(), v3()).prop_map(|(joint, bias, position)| Weight {
                        joint,
                        bias,
                        position,
                    }),
                    nw,
                );
                let verts = proptest::collection::vec(
                    ([any_finite(), any_finite()], 0..nw as u32).prop_flat_map(
                        move |(uv, first)| {
                            (1..=(nw as u32 - first)).prop_map(move |count| Vertex {
                                uv,
                                first_weight: first,
                                weight_count: count,
                            })
                        },
                    ),
                    nv,
                );
                let tris = if nv == 0 {
                    Just(Vec::new()).boxed()
                } else {
                    proptest::collection::vec([0..nv as u32, 0..nv as u32, 0..nv as u32], 0..4)
                        .boxed()
                };
                (weights, verts, tris).prop_map(move |(weights, vertices, triangles)| Mesh {
                    name: mname.clone(),
                    shader: shader.clone(),
                    vertices,
                    triangles,
                    weights,
                })
            },
        );
        (
            Just(commandline),
            Just(joints),
            proptest::collection::vec(mesh, 0..3),
        )
            .prop_map(|(commandline, joints, meshes)| Model {
                commandline,
                joints,
                meshes,
            })
    })
}

fn anim_model() -> impl Strategy<Value = Anim> {
    (1usize..5, 1usize..4, 0i32..100, name()).prop_flat_map(|(nj, nf, frame_rate, commandline)| {
        let hier = proptest::collection::vec((name(), 0u8..64), nj);
        let base = proptest::collection::vec(
            (v3(), v3()).prop_map(|(position, orientation)| BaseJoint {
                position,
                orientation,
            }),
            nj,
        );
        let bounds = proptest::collection::vec([v3(), v3()], nf);
        (hier, base, bounds).prop_flat_map(move |(hier, base_frame, bounds)| {
            let mut first = 0i32;
            let hierarchy: Vec<HierarchyJoint<String>> = hier
                .into_iter()
                .enumerate()
                .map(|(i, (name, flags))| {
                    let j = HierarchyJoint {
                        name,
                        parent: if i == 0 { -1 } else { (i as i32 - 1) / 2 },
                        flags,
                        first_component: first,
                    };
                    first += flags.count_ones() as i32;
                    j
                })
                .collect();
            let na = first as u32;
            let mut hierarchy = hierarchy;
            if na > 0 {
                // Joints without flags must still point inside the frame (Doom's check).
                for j in &mut hierarchy {
                    if j.flags == 0 {
                        j.first_component = 0;
                    }
                }
            }
            let frames =
                proptest::collection::vec(proptest::collection::vec(any_finite(), na as usize), nf);
            let commandline = commandline.clone();
            frames.prop_map(move |frames| Anim {
                commandline: commandline.clone(),
                frame_rate,
                num_animated_components: na,
                hierarchy: hierarchy.clone(),
                bounds: bounds.clone(),
                base_frame: base_frame.clone(),
                frames,
            })
        })
    })
}

fn camera_model() -> impl Strategy<Value = Camera> {
    (1usize..6, 1u32..100, name()).prop_flat_map(|(nf, frame_rate, commandline)| {
        let frames = proptest::collection::vec(
            (v3(), v3(), any_finite()).prop_map(|(position, orientation, fov)| CameraFrame {
                position,
                orientation,
                fov,
            }),
            nf,
        );
        let cuts = if nf > 1 {
            proptest::collection::vec(1..nf as u32, 0..nf).boxed()
        } else {
            Just(Vec::new()).boxed()
        };
        (Just(commandline), frames, cuts).prop_map(move |(commandline, frames, cuts)| Camera {
            commandline,
            frame_rate,
            cuts,
            frames,
        })
    })
}

/// Walks every accessor of whatever parses.
fn walk_all(bytes: &[u8]) {
    if let Ok(m) = mesh::parse(bytes) {
        let _ = m.findings(Engine::Doom3);
        let joints: Vec<_> = m.joints().collect();
        assert_eq!(joints.len(), m.num_joints());
        let mut mats = vec![idmodel_core::quat::JointMat::IDENTITY; joints.len()];
        m.bind_pose(&mut mats);
        for mesh in m.meshes() {
            assert_eq!(mesh.vertices().count(), mesh.num_vertices());
            assert_eq!(mesh.triangles().count(), mesh.num_triangles());
            assert_eq!(mesh.weights().count(), mesh.num_weights());
            let mut out = vec![[0.0; 3]; mesh.num_vertices()];
            mesh.skin(&mats, &mut out);
        }
        let owned = Model::from(&m);
        if let Ok(text) = mesh::write(&owned) {
            assert_eq!(Model::parse(&text).unwrap(), owned);
        }
    }
    if let Ok(a) = anim::parse(bytes) {
        let _ = a.findings(Engine::Doom3);
        assert_eq!(a.hierarchy().count(), a.num_joints());
        assert_eq!(a.bounds().count(), a.num_frames());
        assert_eq!(a.base_frame().count(), a.num_joints());
        for f in a.frames() {
            assert_eq!(f.components().count(), a.num_animated_components());
        }
        let owned = Anim::from(&a);
        let n = owned.hierarchy.len();
        let mut s = vec![idmodel_md5::pose::JointPose::IDENTITY; n];
        let mut o = s.clone();
        owned.local_pose_at(1234, idmodel_md5::pose::RootMotion::Extract, &mut s, &mut o);
    }
    if let Ok(c) = camera::parse(bytes) {
        let _ = c.findings(Engine::Doom3);
        let owned = Camera::from(&c);
        let _ = owned.sample(777);
    }
}

/// [`walk_all`] of `text` with `edits` applied ([`idmodel_test_support::overwrite`]).
fn walk_mutated(mut text: Vec<u8>, edits: &[(usize, u8)]) {
    idmodel_test_support::overwrite(&mut text, edits);
    walk_all(&text);
}

/// `$value` written by module `$m` (its `write` and `written_size`) reads back as itself,
/// owned (`$owned::parse`) and through the view (`$m::parse`); the text.
macro_rules! round_trip {
    ($m:ident, $owned:ty, $value:expr) => {{
        let text = $m::write($value).unwrap();
        prop_assert_eq!($m::written_size($value).unwrap(), text.len());
        let back = <$owned>::parse(&text).unwrap();
        prop_assert_eq!(&back, $value);
        prop_assert_eq!(&<$owned>::from($m::parse(&text).unwrap()), $value);
        text
    }};
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn floats_read_back_bit_for_bit(x in any_finite()) {
        let mut s = String::new();
        write_f32(&mut s, x, "x").unwrap();
        prop_assert!(!s.contains('+') && !s.contains('E'), "{}", s);
        let (neg, digits) = match s.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, s.as_str()),
        };
        let v = doom_value(digits.as_bytes()).unwrap();
        let v = if neg { -v } else { v };
        prop_assert_eq!(v.to_bits(), x.to_bits(), "{}", s);
    }

    /// Values printed with %.6f … %.10f read as `strtof` reads them (docs/formats.md §4.1).
    #[test]
    fn doom_values_agree_with_correct_rounding(x in -100000.0f64..100000.0, prec in 4usize..11) {
        let s = format!("{:.*}", prec, x.abs());
        let doom = doom_value(s.as_bytes()).unwrap();
        let std: f32 = s.parse().unwrap();
        prop_assert_eq!(doom.to_bits(), std.to_bits(), "{}", s);
    }

    #[test]
    fn md5mesh_round_trip(m in model()) {
        let text = round_trip!(mesh, Model, &m);
        let mut buf = vec![0u8; text.len()];
        prop_assert_eq!(mesh::write_into(&m, &mut buf).unwrap(), text.len());
        prop_assert_eq!(&buf, &text);
    }

    #[test]
    fn md5anim_round_trip(a in anim_model()) {
        round_trip!(anim, Anim, &a);
    }

    #[test]
    fn md5camera_round_trip(c in camera_model()) {
        round_trip!(camera, Camera, &c);
    }

    #[test]
    fn camera_sampling_never_blends_a_cut_frame_forward(c in camera_model(), t in -100i64..20_000) {
        let mut c = c;
        c.cuts.sort_unstable();
        let s = c.sample(t);
        if s.lerp > 0.0 {
            prop_assert!(!c.cuts.contains(&(s.frame as u32)), "{:?} {:?}", c.cuts, s);
            prop_assert_eq!(s.next, s.frame + 1);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        walk_all(&bytes);
    }

    #[test]
    fn mutated_models_never_panic(
        m in model(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        walk_mutated(mesh::write(&m).unwrap(), &edits);
    }

    #[test]
    fn mutated_anims_never_panic(
        a in anim_model(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
    ) {
        walk_mutated(anim::write(&a).unwrap(), &edits);
    }
}
