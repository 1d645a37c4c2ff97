//! `samples/sample.mdl` is made by the writer: this test rebuilds it and checks the
//! committed file is byte-identical. `IDMODEL_BLESS=1` regenerates it.
// Test code may index, unwrap and cast: a panic here is a failed assertion.
#![allow(clippy::restriction)]

use idmodel_mdl::{Flags, FrameData, Mdl, Model, Quantizer, SeamRule, SkinData, TexCoord, Tri};

/// A square pyramid (5 vertices, 6 triangles) with a 16×8 skin (one single skin, then a
/// group of 3 images), a single frame `idle1` and a frame group `spin1`..`spin4`.
fn sample_model() -> Model {
    let (w, h) = (16u32, 8u32);
    let base = |r: f32, turn: f32| -> [[f32; 3]; 5] {
        // libm, not std: the sample must have the same bytes on every platform.
        let (s, c) = (libm::sinf(turn) * r, libm::cosf(turn) * r);
        [
            [c, s, 0.0],
            [-s, c, 0.0],
            [-c, -s, 0.0],
            [s, -c, 0.0],
            [0.0, 0.0, 24.0],
        ]
    };
    let normal_of = |p: [f32; 3]| {
        let len = libm::sqrtf(p[0] * p[0] + p[1] * p[1] + (p[2] - 8.0) * (p[2] - 8.0));
        [p[0] / len, p[1] / len, (p[2] - 8.0) / len]
    };
    let all: Vec<[f32; 3]> = (0..5).flat_map(|k| base(16.0, k as f32 * 0.4)).collect();
    let q = Quantizer::fit(&all);
    let pose = |name: &str, turn: f32| {
        let pts = base(16.0, turn);
        let normals: Vec<[f32; 3]> = pts.iter().map(|&p| normal_of(p)).collect();
        q.pose(name, &pts, &normals)
    };
    let image = |k: u8| -> Vec<u8> {
        (0..w * h)
            .map(|i| {
                ((i % w) as u8 * 4)
                    .wrapping_add(k * 32)
                    .wrapping_add((i / w) as u8)
            })
            .collect()
    };
    let group: Vec<_> = (0..4)
        .map(|k| pose(&format!("spin{}", k + 1), (k + 1) as f32 * 0.4))
        .collect();
    let mut bmin = group[0].bbox_min;
    let mut bmax = group[0].bbox_max;
    for p in &group {
        for a in 0..3 {
            bmin.v[a] = bmin.v[a].min(p.bbox_min.v[a]);
            bmax.v[a] = bmax.v[a].max(p.bbox_max.v[a]);
        }
    }
    Model {
        scale: q.scale,
        origin: q.origin,
        bounding_radius: 24.0,
        eye_position: [0.0, 0.0, 20.0],
        skin_width: w,
        skin_height: h,
        sync_type: 0,
        flags: Flags::ROTATE,
        size: 10.0,
        skins: vec![
            SkinData::Single(image(0)),
            SkinData::Group {
                intervals: vec![0.25, 0.5, 0.75],
                images: vec![image(1), image(2), image(3)],
            },
        ],
        // (onseam, s, t) of each vertex.
        texcoords: [(0x20, 0, 7), (0, 4, 7), (0, 7, 7), (0, 4, 4), (0x20, 4, 0)]
            .map(|(onseam, s, t)| TexCoord { onseam, s, t })
            .to_vec(),
        // (facesfront, vertices) of each triangle.
        triangles: [
            (1, [0, 4, 1]),
            (1, [1, 4, 2]),
            (0, [2, 4, 3]),
            (0, [3, 4, 0]),
            (1, [0, 1, 2]),
            (1, [0, 2, 3]),
        ]
        .map(|(faces_front, vertices)| Tri {
            faces_front,
            vertices,
        })
        .to_vec(),
        frames: vec![
            FrameData::Single(pose("idle1", 0.0)),
            FrameData::Group {
                bbox_min: bmin,
                bbox_max: bmax,
                intervals: vec![0.1, 0.2, 0.3, 0.4],
                poses: group,
            },
        ],
        trailing: Vec::new(),
    }
}

#[test]
fn sample_mdl_is_made_by_the_writer() {
    let bytes = sample_model().write().unwrap();
    let committed = idmodel_test_support::assert_sample("sample.mdl", &bytes);

    let m = Mdl::parse(&committed).unwrap();
    assert!(m.has_skin_groups() && m.has_frame_groups());
    assert_eq!((m.skin_count(), m.frame_count(), m.pose_count()), (2, 2, 5));
    assert_eq!(m.skin(1).unwrap().image_count(), 3);
    assert_eq!(m.frame(1).unwrap().name(), "spin1");
    assert_eq!(Model::from(&m), sample_model());
    // Seam vertices 0 and 4 are duplicated for the two back-facing triangles.
    assert_eq!(m.welded_mesh(SeamRule::Gl).vertices.len(), 7);
    for p in idmodel_mdl::ENGINES {
        assert!(m.findings(*p).is_empty(), "{p}: {:?}", m.findings(*p));
    }
}
