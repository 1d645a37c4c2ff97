//! Property tests: arbitrary valid models round-trip through the writer; arbitrary and
//! mutated bytes never make the parser or any accessor panic.
// proptest macros and test helpers index, unwrap and cast: a panic is a failed case.
#![allow(clippy::restriction)]

use idmodel_mdl::raw::TriVertex;
use idmodel_mdl::{
    AnimRule, Flags, FrameData, Mdl, Model, PoseData, SeamRule, SkinData, SkinOptions, TexCoord,
    Tri, fullbright_mask, skin_to_rgba_vec,
};
use proptest::collection::vec;
use proptest::prelude::*;

/// Intervals of every kind: ordinary, zero, negative, tiny, huge, infinite, NaN, any bits.
fn interval() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => 0.001f32..10.0,
        1 => Just(0.0f32),
        1 => Just(-0.0f32),
        1 => -10.0f32..0.0,
        1 => Just(f32::MIN_POSITIVE / 4.0),
        1 => Just(1e30f32),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NAN),
        1 => any::<u32>().prop_map(f32::from_bits),
    ]
}

fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![-1000.0f32..1000.0, Just(0.0f32), Just(1.0f32)]
}

fn trivertex() -> impl Strategy<Value = TriVertex> {
    (any::<[u8; 3]>(), any::<u8>()).prop_map(|(v, n)| TriVertex {
        v,
        light_normal_index: n,
    })
}

fn pose(nv: usize) -> impl Strategy<Value = PoseData> {
    (
        any::<[u8; 16]>(),
        trivertex(),
        trivertex(),
        vec(trivertex(), nv),
    )
        .prop_map(|(name, bbox_min, bbox_max, vertices)| PoseData {
            name,
            bbox_min,
            bbox_max,
            vertices,
        })
}

fn skin(size: usize) -> impl Strategy<Value = SkinData> {
    prop_oneof![
        vec(any::<u8>(), size).prop_map(SkinData::Single),
        (1usize..6).prop_flat_map(move |n| {
            (vec(interval(), n), vec(vec(any::<u8>(), size), n))
                .prop_map(|(intervals, images)| SkinData::Group { intervals, images })
        }),
    ]
}

fn frame(nv: usize) -> impl Strategy<Value = FrameData> {
    prop_oneof![
        pose(nv).prop_map(FrameData::Single),
        (1usize..5).prop_flat_map(move |n| {
            (
                trivertex(),
                trivertex(),
                vec(interval(), n),
                vec(pose(nv), n),
            )
                .prop_map(|(bbox_min, bbox_max, intervals, poses)| FrameData::Group {
                    bbox_min,
                    bbox_max,
                    intervals,
                    poses,
                })
        }),
    ]
}

fn model() -> impl Strategy<Value = Model> {
    (1u32..9, 1u32..9, 1usize..7).prop_flat_map(|(w, h, nv)| {
        let size = (w * h) as usize;
        let texcoords = vec(
            (
                prop_oneof![Just(0), Just(0x20), Just(1), any::<i32>()],
                -20i32..20,
                -20i32..20,
            )
                .prop_map(|(onseam, s, t)| TexCoord { onseam, s, t }),
            nv,
        );
        let tris = vec(
            (any::<i32>(), [0..nv as u32, 0..nv as u32, 0..nv as u32]).prop_map(
                |(faces_front, vertices)| Tri {
                    faces_front,
                    vertices,
                },
            ),
            1..6,
        );
        let header = (
            [finite(), finite(), finite()],
            [finite(), finite(), finite()],
            finite(),
            [finite(), finite(), finite()],
            any::<i32>(),
            any::<i32>(),
            finite(),
        );
        (
            header,
            vec(skin(size), 1..4),
            texcoords,
            tris,
            vec(frame(nv), 1..4),
            vec(any::<u8>(), 0..12),
        )
            .prop_map(
                move |(hd, skins, texcoords, triangles, frames, trailing)| Model {
                    scale: hd.0,
                    origin: hd.1,
                    bounding_radius: hd.2,
                    eye_position: hd.3,
                    skin_width: w,
                    skin_height: h,
                    sync_type: hd.4,
                    flags: Flags::from_raw(hd.5),
                    size: hd.6,
                    skins,
                    texcoords,
                    triangles,
                    frames,
                    trailing,
                },
            )
    })
}

fn has_nan(m: &Model) -> bool {
    let skins = m.skins.iter().any(|s| match s {
        SkinData::Group { intervals, .. } => intervals.iter().any(|i| i.is_nan()),
        SkinData::Single(_) => false,
    });
    let frames = m.frames.iter().any(|f| match f {
        FrameData::Group { intervals, .. } => intervals.iter().any(|i| i.is_nan()),
        FrameData::Single(_) => false,
    });
    skins || frames
}

/// Touches every accessor and decoder; used on hostile input.
fn walk(m: &Mdl<'_>) {
    let _ = (
        m.scale(),
        m.origin(),
        m.bounding_radius(),
        m.eye_position(),
        m.size(),
        m.flags().trail(),
    );
    let _ = m
        .triangle_indices()
        .map(|t| t[0] + t[1] + t[2])
        .sum::<usize>();
    let opts = SkinOptions {
        transparent_255: m.flags().holey(),
        ..SkinOptions::default()
    };
    for skin in m.skins() {
        let _ = skin.intervals().sum::<f32>();
        for rule in [AnimRule::Software, AnimRule::Gl] {
            let _ = skin.image_at(1.25, 0.5, rule);
        }
        for image in skin.images() {
            let rgba = skin_to_rgba_vec(image, &opts);
            assert_eq!(rgba.len(), image.len() * 4);
            let mut mask = vec![0u8; image.len()];
            fullbright_mask(image, &mut mask);
        }
    }
    for frame in m.frames() {
        let _ = (frame.name(), frame.bbox_min(), frame.bbox_max());
        for rule in [AnimRule::Software, AnimRule::Gl] {
            if let Some(p) = frame.pose_at(3.7, 0.2, rule) {
                assert!(p < frame.pose_count());
            }
        }
    }
    for pose in m.poses() {
        let _ = (pose.name().to_string(), pose.bbox_min(), pose.bbox_max());
        assert_eq!(pose.positions().count(), m.vertex_count());
        assert_eq!(pose.normals().count(), m.vertex_count());
    }
    let _ = m.pose(m.pose_count().saturating_sub(1));
    let _ = m.frame(m.frame_count().saturating_sub(1));
    for rule in [SeamRule::Gl, SeamRule::Software] {
        let _ = m.triangle_uvs(rule).count();
        let mesh = m.welded_mesh(rule);
        assert_eq!(mesh.indices.len(), m.triangles().len() * 3);
        assert!(
            mesh.indices
                .iter()
                .all(|&i| (i as usize) < mesh.vertices.len())
        );
        if let Some(p) = m.pose(0) {
            assert_eq!(mesh.positions(&p).len(), mesh.vertices.len());
        }
    }
    for p in idmodel_mdl::ENGINES {
        for f in m.findings(*p) {
            let _ = f.to_string();
        }
    }
    let _ = m.animations().count();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn write_parse_round_trip(m in model()) {
        let bytes = m.write().unwrap();
        prop_assert_eq!(bytes.len(), m.written_size().unwrap());
        let parsed = Mdl::parse(&bytes).unwrap();
        prop_assert_eq!(parsed.pose_count(), m.pose_count());
        let back = Model::from(&parsed);
        if !has_nan(&m) {
            prop_assert_eq!(&back, &m);
        }
        // Bit-exact even with NaN intervals.
        prop_assert_eq!(&back.write().unwrap(), &bytes);
        walk(&parsed);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..512)) {
        if let Ok(m) = Mdl::parse(&bytes) {
            walk(&m);
        }
    }

    #[test]
    fn header_prefixed_garbage_never_panics(body in vec(any::<u8>(), 0..600), counts in any::<[i8; 6]>()) {
        // A real header with small counts, so the walk gets past the header.
        let mut bytes = Model::example().write().unwrap()[..84].to_vec();
        for (i, c) in counts.iter().enumerate() {
            idmodel_test_support::patch(&mut bytes, 48 + 4 * i, i32::from(*c % 8));
        }
        bytes.extend_from_slice(&body);
        if let Ok(m) = Mdl::parse(&bytes) {
            walk(&m);
        }
    }

    #[test]
    fn mutated_valid_files_never_panic(
        m in model(),
        edits in vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = m.write().unwrap();
        idmodel_test_support::overwrite(&mut bytes, &edits);
        let keep = bytes.len() - cut.index(bytes.len() / 4 + 1);
        bytes.truncate(keep);
        if let Ok(m) = Mdl::parse(&bytes) {
            walk(&m);
        }
    }

    /// `PoseData::vertex_bounds` (16 bytes a step, lane by lane) is the per-axis
    /// minimum and maximum of the vertices, whatever their count and normal bytes.
    #[test]
    fn vertex_bounds_are_the_per_axis_extremes(
        verts in vec((proptest::array::uniform3(any::<u8>()), any::<u8>()), 0..70),
    ) {
        let pose = idmodel_mdl::PoseData {
            vertices: verts
                .iter()
                .map(|&(v, light_normal_index)| TriVertex { v, light_normal_index })
                .collect(),
            ..Default::default()
        };
        let want = if verts.is_empty() {
            ([0; 3], [0; 3])
        } else {
            let axis = |c: usize| verts.iter().map(move |(v, _)| v[c]);
            (
                [0, 1, 2].map(|c| axis(c).min().unwrap()),
                [0, 1, 2].map(|c| axis(c).max().unwrap()),
            )
        };
        prop_assert_eq!(pose.vertex_bounds(), want);
    }
}
