//! `samples/sample.md2` is made by the writer: rebuild it and compare byte for byte.
//! Run with `IDMODEL_BLESS=1` to regenerate it after an intended change.
// Test code may index, unwrap and do plain arithmetic: a panic is a failed assertion.
#![allow(clippy::restriction)]

use idmodel_md2::raw::TriVertex;
use idmodel_md2::{Engine, FrameData, Md2, Model, Triangle};

/// An octahedron (6 vertices, 8 faces) with a 2-frame `stand` and a 3-frame `pulse`
/// animation; UVs unwrap each face into its own cell of a 64×32 skin, so the triangles
/// share positions but not st (seams), as real exports do.
fn sample_model() -> Model {
    // +x, -x, +y, -y, +z, -z around the centre 128.
    let dirs: [[i32; 3]; 6] = [
        [1, 0, 0],
        [-1, 0, 0],
        [0, 1, 0],
        [0, -1, 0],
        [0, 0, 1],
        [0, 0, -1],
    ];
    let normals = [
        idmodel_core::anorms::nearest_anorm([1.0, 0.0, 0.0]),
        idmodel_core::anorms::nearest_anorm([-1.0, 0.0, 0.0]),
        idmodel_core::anorms::nearest_anorm([0.0, 1.0, 0.0]),
        idmodel_core::anorms::nearest_anorm([0.0, -1.0, 0.0]),
        idmodel_core::anorms::nearest_anorm([0.0, 0.0, 1.0]),
        idmodel_core::anorms::nearest_anorm([0.0, 0.0, -1.0]),
    ];
    let frame = |name: &str, radius: i32| FrameData {
        name: name.as_bytes().to_vec(),
        scale: [0.125; 3],
        translate: [-16.0, -16.0, 0.0],
        vertices: dirs
            .iter()
            .zip(normals)
            .map(|(d, n)| TriVertex {
                v: d.map(|c| (128 + c * radius) as u8),
                light_normal_index: n,
            })
            .collect(),
    };
    // Faces: (x side, y side, z side), wound clockwise seen from outside.
    let faces: [[u16; 3]; 8] = [
        [0, 4, 2],
        [2, 4, 1],
        [1, 4, 3],
        [3, 4, 0],
        [0, 2, 5],
        [2, 1, 5],
        [1, 3, 5],
        [3, 0, 5],
    ];
    let mut st = Vec::new();
    let mut triangles = Vec::new();
    for (i, f) in faces.iter().enumerate() {
        let (cx, cy) = ((i % 4) as i16 * 16, (i / 4) as i16 * 16);
        let base = st.len() as u16;
        st.extend([[cx + 1, cy + 14], [cx + 8, cy + 1], [cx + 14, cy + 14]]);
        triangles.push(Triangle {
            xyz: *f,
            st: [base, base + 1, base + 2],
        });
    }
    Model {
        skin_width: 64,
        skin_height: 32,
        skins: vec![b"models/sample/skin.pcx".to_vec()],
        st,
        triangles,
        frames: vec![
            frame("stand01", 100),
            frame("stand02", 104),
            frame("pulse1", 90),
            frame("pulse2", 110),
            frame("pulse3", 120),
        ],
        gl_commands: true,
    }
}

#[test]
fn sample_is_made_by_the_writer() {
    let bytes = idmodel_md2::write(&sample_model()).unwrap();
    let committed = idmodel_test_support::assert_sample("sample.md2", &bytes);
    // And it is a clean Quake II model.
    let md2 = Md2::parse_strict(&committed).unwrap();
    assert!(md2.findings(Engine::Quake2).is_empty());
    let anims: Vec<_> = md2
        .animations()
        .map(|a| (a.name.to_string(), a.frames))
        .collect();
    assert_eq!(
        anims,
        vec![("stand".to_string(), 0..2), ("pulse".to_string(), 2..5)]
    );
    assert_eq!(md2.gl_triangle_count(), 8);
}
