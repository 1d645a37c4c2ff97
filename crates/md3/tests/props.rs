//! Property tests: valid models round-trip through the writer; arbitrary and mutated bytes
//! and text never panic.
// Test code: a panic is a failed property; proptest macros expand to arithmetic/indexing.
#![allow(clippy::restriction)]

use idmodel_md3::{
    AnimationCfg, ENGINES, Engine, FrameInfo, Md3, Model, NormalDecode, ShaderInfo, Skin,
    SurfaceData, SurfaceLayout, TagInfo, Vertex, write, written_size,
};
use proptest::prelude::*;

fn name(max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(1u8..=255, 0..=max)
}

fn f() -> impl Strategy<Value = f32> {
    -1000.0f32..1000.0
}

fn v3() -> impl Strategy<Value = [f32; 3]> {
    [f(), f(), f()]
}

fn vertex() -> impl Strategy<Value = Vertex> {
    (any::<[i16; 3]>(), any::<u16>()).prop_map(|(xyz, normal)| Vertex { xyz, normal })
}

fn surface(max_frames: usize) -> impl Strategy<Value = SurfaceData> {
    (0usize..6, 0usize..=max_frames).prop_flat_map(move |(nv, nf)| {
        // Without vertices, a surface may not have more frames than the model.
        let nf = if nv == 0 { nf.min(max_frames - 1) } else { nf };
        let tris = if nv == 0 {
            Just(Vec::new()).boxed()
        } else {
            proptest::collection::vec([0..nv as u32, 0..nv as u32, 0..nv as u32], 0..5).boxed()
        };
        (
            any::<[u8; 4]>(),
            name(63),
            any::<i32>(),
            proptest::collection::vec((name(63), any::<i32>()), 0..3),
            tris,
            proptest::collection::vec([f(), f()], nv),
            proptest::collection::vec(proptest::collection::vec(vertex(), nv), nf),
            any::<bool>(),
        )
            .prop_map(
                |(ident, name, flags, shaders, triangles, st, frames, triangles_first)| {
                    let layout = if triangles_first && !(triangles.is_empty() && shaders.is_empty())
                    {
                        SurfaceLayout::TrianglesFirst
                    } else {
                        SurfaceLayout::ShadersFirst
                    };
                    SurfaceData {
                        ident,
                        name,
                        flags,
                        shaders: shaders
                            .into_iter()
                            .map(|(name, index)| ShaderInfo { name, index })
                            .collect(),
                        triangles,
                        st,
                        frames,
                        layout,
                    }
                },
            )
    })
}

fn model() -> impl Strategy<Value = Model> {
    (1usize..4, 0usize..3).prop_flat_map(|(nf, nt)| {
        let frame = (v3(), v3(), v3(), f(), name(15)).prop_map(
            |(mins, maxs, local_origin, radius, name)| FrameInfo {
                mins,
                maxs,
                local_origin,
                radius,
                name,
            },
        );
        let tag = (name(63), v3(), [v3(), v3(), v3()]).prop_map(|(name, origin, axis)| TagInfo {
            name,
            origin,
            axis,
        });
        (
            name(63),
            any::<i32>(),
            any::<i32>(),
            proptest::collection::vec(frame, nf),
            proptest::collection::vec(proptest::collection::vec(tag, nt), nf),
            proptest::collection::vec(surface(nf + 1), 0..3),
            proptest::collection::vec(any::<u8>(), 0..3),
        )
            .prop_map(
                |(name, flags, num_skins, frames, tags, surfaces, trailing)| Model {
                    name,
                    flags,
                    num_skins,
                    frames,
                    tags,
                    surfaces,
                    trailing,
                },
            )
    })
}

/// Every accessor, every frame, every tag, every check.
fn walk(m: &Md3<'_>) {
    let _ = (m.name().to_string(), m.flags(), m.num_skins(), m.header());
    for fr in m.frames() {
        let _ = (
            fr.mins(),
            fr.maxs(),
            fr.local_origin(),
            fr.radius(),
            fr.name(),
        );
    }
    for s in m.surfaces() {
        let n = s.num_verts();
        let _ = (
            s.name(),
            s.engine_name().to_string(),
            s.shaders().len(),
            s.tex_coords().count(),
        );
        assert_eq!(s.indices().count(), s.triangles().len());
        let (mut p, mut nr) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
        for fr in 0..s.num_frames() {
            s.decode_frame(fr, NormalDecode::Exact, &mut p, &mut nr)
                .unwrap();
            s.lerp_into(0, fr, 0.3, NormalDecode::Ideal, &mut p, &mut nr)
                .unwrap();
            assert_eq!(s.positions(fr).unwrap().len(), n);
        }
    }
    for t in m.all_tags() {
        let _ = m.lerp_tag(t.name().as_bytes(), 0, m.num_frames(), 0.5);
    }
    for p in ENGINES {
        m.check(*p, &mut |f| {
            let _ = f.to_string();
        });
    }
    let _ = m.trailing_bytes();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn valid_models_round_trip(m in model()) {
        let bytes = write(&m).unwrap();
        prop_assert_eq!(bytes.len(), written_size(&m).unwrap());
        let parsed = Md3::parse(&bytes).unwrap();
        walk(&parsed);
        prop_assert_eq!(Model::from(parsed), m);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(m) = Md3::parse(&bytes) {
            walk(&m);
        }
    }

    #[test]
    fn mutated_models_never_panic(
        m in model(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = write(&m).unwrap();
        idmodel_test_support::overwrite(&mut bytes, &edits);
        if let Ok(m) = Md3::parse(&bytes) {
            walk(&m);
        }
        let n = cut.index(bytes.len() + 1);
        if let Ok(m) = Md3::parse(&bytes[..n]) {
            walk(&m);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in proptest::collection::vec(
        prop_oneof![Just(b','), Just(b'"'), Just(b'/'), Just(b'*'), Just(b'\n'), Just(b' '),
                    Just(b'0'), Just(b'5'), Just(b'-'), Just(b'.'), Just(b't'), Just(b'_'), any::<u8>()],
        0..300))
    {
        if let Ok(skin) = Skin::parse(&text) {
            let n = skin.entries().count();
            prop_assert_eq!(n, skin.num_surfaces() + skin.num_tags());
            for p in ENGINES {
                for f in skin.findings(None, *p) { let _ = f.to_string(); }
            }
        }
        if let Ok(cfg) = AnimationCfg::parse(&text) {
            let _ = cfg.raw_entries().count();
            let _ = cfg.q3();
            for f in cfg.findings(Some((10, 10)), Engine::Ioq3) { let _ = f.to_string(); }
        }
    }
}
