//! Property tests: arbitrary valid models round-trip through the writer; arbitrary and
//! mutated bytes never make parsing, decoding or checking panic.
// proptest strategies and helpers index and unwrap freely: a panic is a failed case.
#![allow(clippy::restriction)]

use idmodel_md2::raw::TriVertex;
use idmodel_md2::{Engine, FindingKind, FrameData, Md2, Model, Triangle};
use proptest::prelude::*;

mod common;
use common::gl_mesh_draws_gl_triangles;

fn name(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(1u8..=255, 0..=max)
}

fn model() -> impl Strategy<Value = Model> {
    (1usize..24, 1usize..24, 1usize..40, 1usize..4).prop_flat_map(|(nv, nst, ntri, nf)| {
        let tri = (
            proptest::array::uniform3(0..nv as u16),
            proptest::array::uniform3(0..nst as u16),
        )
            .prop_map(|(xyz, st)| Triangle { xyz, st });
        let frame = (
            name(16),
            proptest::array::uniform3(-100.0f32..100.0),
            proptest::array::uniform3(-1000.0f32..1000.0),
            proptest::collection::vec(
                (proptest::array::uniform3(any::<u8>()), any::<u8>()).prop_map(
                    |(v, light_normal_index)| TriVertex {
                        v,
                        light_normal_index,
                    },
                ),
                nv,
            ),
        )
            .prop_map(|(name, scale, translate, vertices)| FrameData {
                name,
                scale,
                translate,
                vertices,
            });
        (
            1i32..1024,
            1i32..1024,
            proptest::collection::vec(name(64), 0..4),
            proptest::collection::vec(proptest::array::uniform2(any::<i16>()), nst),
            proptest::collection::vec(tri, ntri),
            proptest::collection::vec(frame, nf),
            any::<bool>(),
        )
            .prop_map(
                |(skin_width, skin_height, skins, st, triangles, frames, gl_commands)| Model {
                    skin_width,
                    skin_height,
                    skins,
                    st,
                    triangles,
                    frames,
                    gl_commands,
                },
            )
    })
}

/// Walks every accessor, decoder and the checker.
fn walk(md2: &Md2<'_>) {
    let _ = md2.skins().count();
    let _ = md2.triangle(0);
    for f in md2.frames() {
        let _ = f.positions().count();
        let _ = f.normals().count();
        let _ = f.name().to_string();
    }
    let a = md2.frame_or_first(usize::MAX);
    let b = md2.frame_or_first(1);
    let _ = idmodel_md2::lerp_positions(&a, &b, 0.25).count();
    let soft = md2.soft_mesh();
    assert!(
        soft.indices
            .iter()
            .all(|&i| (i as usize) < soft.vertices.len())
    );
    let gl = md2.gl_mesh();
    assert!(gl.indices.iter().all(|&i| (i as usize) < gl.vertices.len()));
    gl_mesh_draws_gl_triangles(md2);
    let _ = md2.animations().count();
    let _ = md2.gl_commands_look_swapped();
    for f in md2.findings(Engine::Quake2) {
        let _ = f.to_string();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn valid_models_round_trip(m in model()) {
        let bytes = idmodel_md2::write(&m).unwrap();
        prop_assert_eq!(bytes.len(), idmodel_md2::written_size(&m).unwrap());
        let md2 = Md2::parse_strict(&bytes).unwrap();
        prop_assert_eq!(&Model::from(md2), &m);
        // The generated strips and fans draw exactly the triangle list, each once.
        prop_assert_eq!(md2.gl_triangle_count(), if m.gl_commands { m.triangles.len() } else { 0 });
        prop_assert_eq!(gl_mesh_draws_gl_triangles(&md2), md2.gl_triangle_count());
        let found = md2.findings(Engine::Quake2);
        prop_assert!(!found.iter().any(|f| matches!(f.kind, FindingKind::GlMismatch { .. })), "{:?}", found);
        // Interpolation ends are the frames themselves.
        let (f0, f1) = (md2.frame(0).unwrap(), md2.frame_or_first(1));
        let at0: Vec<_> = idmodel_md2::lerp_positions(&f0, &f1, 0.0).collect();
        prop_assert_eq!(at0, f1.positions().collect::<Vec<_>>());
        let at1: Vec<_> = idmodel_md2::lerp_positions(&f0, &f1, 1.0).collect();
        prop_assert_eq!(at1, f0.positions().collect::<Vec<_>>());
        // The software mesh has one vertex per distinct (xyz, st) corner.
        let soft = md2.soft_mesh();
        let mut pairs: Vec<_> = m.triangles.iter().flat_map(|t| (0..3).map(move |k| (t.xyz[k], t.st[k]))).collect();
        pairs.sort_unstable();
        pairs.dedup();
        prop_assert_eq!(soft.vertices.len(), pairs.len());
        for (c, &i) in soft.indices.iter().enumerate() {
            let t = &m.triangles[c / 3];
            prop_assert_eq!(soft.vertices[i as usize].xyz, u32::from(t.xyz[c % 3]));
        }
        // The radix path (room for a vertex per corner) and the comparison-sort path
        // (a slice of exactly the distinct count) build the same mesh.
        let mut short = vec![idmodel_md2::MeshVertex::default(); pairs.len()];
        let mut short_indices = vec![0u32; soft.indices.len()];
        let n = md2.soft_mesh_into(&mut short, &mut short_indices).unwrap();
        prop_assert_eq!(&short[..n], &soft.vertices[..]);
        prop_assert_eq!(&short_indices, &soft.indices);
        // write_into refuses a short buffer and fills an exact one.
        let mut buf = vec![0u8; bytes.len()];
        prop_assert!(idmodel_md2::write_into(&m, &mut buf[..bytes.len() - 1]).is_err());
        prop_assert_eq!(idmodel_md2::write_into(&m, &mut buf).unwrap(), bytes.len());
        prop_assert_eq!(buf, bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(md2) = Md2::parse(&data) {
            walk(&md2);
        }
    }

    #[test]
    fn mutated_models_never_panic(
        m in model(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<usize>(),
    ) {
        let mut bytes = idmodel_md2::write(&m).unwrap();
        idmodel_test_support::overwrite(&mut bytes, &edits);
        if cut % 4 == 0 {
            bytes.truncate(cut % (bytes.len() + 1));
        }
        if let Ok(md2) = Md2::parse(&bytes) {
            walk(&md2);
            // What parses converts and, when the writer accepts it, round-trips.
            let owned = Model::from(md2);
            if let Ok(again) = idmodel_md2::write(&owned) {
                let back = Model::from(Md2::parse(&again).unwrap());
                prop_assert_eq!(idmodel_md2::write(&back).unwrap(), again);
            }
        }
    }

    /// `parse`'s vectorised range scan of the triangle indices agrees with the definition:
    /// the file is refused exactly when some `index_xyz` is outside `0..num_xyz` or some
    /// `index_st` outside `0..num_st`, and the error names the first such word, in file
    /// order. Values are drawn next to 0, next to either limit, and from the whole i16
    /// range.
    #[test]
    fn triangle_index_scan_matches_the_definition(
        m in model(),
        words in proptest::collection::vec(
            (any::<usize>(), 0u8..4, -2i16..2, any::<i16>()),
            0..12,
        ),
    ) {
        let mut bytes = idmodel_md2::write(&m).unwrap();
        let (ofs_tris, num_tris, num_xyz, num_st) = {
            let md2 = Md2::parse(&bytes).unwrap();
            let h = md2.header();
            (
                h.ofs_tris.get() as usize,
                h.num_tris.get() as usize,
                h.num_xyz.get() as i64,
                h.num_st.get() as i64,
            )
        };
        for &(at, near, delta, anything) in &words {
            let word = at % (num_tris * 6);
            let value = match near {
                0 => delta,
                1 => num_xyz as i16 + delta,
                2 => num_st as i16 + delta,
                _ => anything,
            };
            let pos = ofs_tris + word * 2;
            bytes[pos..pos + 2].copy_from_slice(&value.to_le_bytes());
        }
        // The definition: the first word (file order) outside its range.
        let first_bad = (0..num_tris * 6).find(|&w| {
            let pos = ofs_tris + w * 2;
            let v = i64::from(i16::from_le_bytes([bytes[pos], bytes[pos + 1]]));
            let lim = if w % 6 < 3 { num_xyz } else { num_st };
            v < 0 || v >= lim
        });
        match (Md2::parse(&bytes), first_bad) {
            (Ok(_), None) => {}
            (Err(e), Some(w)) => prop_assert_eq!(e.offset(), (ofs_tris + w * 2) as u64),
            (got, want) => prop_assert!(false, "parse {:?}, first bad word {:?}", got.err(), want),
        }
    }
}
