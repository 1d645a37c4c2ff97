//! `soft_mesh_scratch_into` (per-xyz chains, linear, no sort) builds exactly the mesh of
//! `soft_mesh_into` (radix or comparison sort) on arbitrary models, and on the corpus.
// proptest strategies and helpers index and unwrap freely: a panic is a failed case.
#![allow(clippy::restriction)]

use idmodel_md2::raw::TriVertex;
use idmodel_md2::{FrameData, Md2, MeshVertex, Model, Triangle};
use proptest::prelude::*;

/// A model of one frame of `nv` vertices (their positions do not matter here).
fn one_frame(nv: usize, skin: (i32, i32), st: Vec<[i16; 2]>, triangles: Vec<Triangle>) -> Model {
    Model {
        skin_width: skin.0,
        skin_height: skin.1,
        skins: Vec::new(),
        st,
        triangles,
        frames: vec![FrameData {
            name: b"f".to_vec(),
            scale: [1.0; 3],
            translate: [0.0; 3],
            vertices: vec![TriVertex::default(); nv],
        }],
        gl_commands: false,
    }
}

fn model() -> impl Strategy<Value = Model> {
    (1usize..64, 1usize..64, 1usize..200).prop_flat_map(|(nv, nst, ntri)| {
        let tri = (
            proptest::array::uniform3(0..nv as u16),
            proptest::array::uniform3(0..nst as u16),
        )
            .prop_map(|(xyz, st)| Triangle { xyz, st });
        (
            1i32..1024,
            -4i32..1024,
            proptest::collection::vec(proptest::array::uniform2(any::<i16>()), nst),
            proptest::collection::vec(tri, ntri),
        )
            .prop_map(move |(skin_width, skin_height, st, triangles)| {
                one_frame(nv, (skin_width, skin_height), st, triangles)
            })
    })
}

/// Models whose frame vertices mostly keep one `st` (as real ones do), with a few
/// corners on another, and `st` indices up to the largest a file can hold (32767).
fn mostly_single() -> impl Strategy<Value = Model> {
    (1usize..200, 1usize..=32768, 1usize..300).prop_flat_map(|(nv, nst, ntri)| {
        let corner = (0..nv as u16, 0u8..8, 0..nst as u16);
        let tri = proptest::array::uniform3(corner).prop_map(move |c| Triangle {
            xyz: c.map(|(x, _, _)| x),
            // One corner in eight takes a random `st`; the rest the vertex's own.
            st: c.map(|(x, coin, r)| {
                if coin == 0 {
                    r
                } else {
                    ((usize::from(x) * 7919 + 32000) % nst) as u16
                }
            }),
        });
        proptest::collection::vec(tri, ntri).prop_map(move |triangles| {
            let st = (0..nst).map(|i| [i as i16, -(i as i16)]).collect();
            one_frame(nv, (256, 128), st, triangles)
        })
    })
}

/// Old path (radix sort with room for a vertex per corner) against the chain path.
fn same_mesh(md2: &Md2<'_>) -> Result<(), TestCaseError> {
    let sizes = md2.soft_mesh_sizes();
    let mut old_v = vec![MeshVertex::default(); sizes.vertices];
    let mut old_i = vec![0u32; sizes.indices];
    let old_n = md2.soft_mesh_into(&mut old_v, &mut old_i).unwrap();
    // Dirty buffers: the new path must not rely on zeroed output or scratch.
    let mut new_v = vec![
        MeshVertex {
            xyz: 7,
            uv: [9.0; 2]
        };
        old_n
    ];
    let mut new_i = vec![u32::MAX; sizes.indices];
    let mut scratch = vec![0x5a5a_5a5a; sizes.scratch];
    let new_n = md2
        .soft_mesh_scratch_into(&mut new_v, &mut new_i, &mut scratch)
        .unwrap();
    prop_assert_eq!(new_n, old_n);
    prop_assert_eq!(&new_v[..new_n], &old_v[..old_n]);
    prop_assert_eq!(&new_i, &old_i);
    // Short slices are refused, not overrun.
    if old_n > 0 {
        let e = md2
            .soft_mesh_scratch_into(&mut new_v[..old_n - 1], &mut new_i, &mut scratch)
            .unwrap_err();
        prop_assert_eq!(e.needed, old_n);
    }
    prop_assert!(
        md2.soft_mesh_scratch_into(&mut new_v, &mut new_i, &mut scratch[..sizes.scratch - 1])
            .is_err()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn chain_mesh_equals_sorted_mesh_when_most_vertices_keep_one_st(m in mostly_single()) {
        let bytes = idmodel_md2::write(&m).unwrap();
        same_mesh(&Md2::parse(&bytes).unwrap())?;
    }

    #[test]
    fn chain_mesh_equals_sorted_mesh(m in model()) {
        let bytes = idmodel_md2::write(&m).unwrap();
        same_mesh(&Md2::parse(&bytes).unwrap())?;
    }
}

#[test]
fn chain_mesh_equals_sorted_mesh_on_corpus() {
    let test = "chain_mesh_equals_sorted_mesh_on_corpus";
    idmodel_test_support::each_checked(test, "md2", "md2", |p, bytes| {
        let md2 = Md2::parse(bytes).ok()?;
        same_mesh(&md2).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        Some(())
    });
}
