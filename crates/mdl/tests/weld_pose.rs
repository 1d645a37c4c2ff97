//! `weld_pose_into` (weld fused with the pose decode) writes exactly what `weld_into`
//! followed by `welded_positions_into`, `welded_normals_into` and the vertices' `uv` give,
//! on arbitrary models, under both seam rules, and on the corpus.
// proptest strategies and helpers index, unwrap and cast freely: a panic is a failed case.
#![allow(clippy::restriction)]

use idmodel_mdl::raw::TriVertex;
use idmodel_mdl::{
    Flags, FrameData, Mdl, Model, PoseData, SeamRule, SkinData, TexCoord, Tri, WeldTargets,
    WeldedVertex,
};
use proptest::collection::vec;
use proptest::prelude::*;

fn model() -> impl Strategy<Value = Model> {
    (1u32..600, 1u32..600, 1usize..80).prop_flat_map(|(w, h, nv)| {
        let texcoords = vec(
            (
                prop_oneof![Just(0), Just(0x20), Just(1), any::<i32>()],
                any::<i32>(),
                -2000i32..2000,
            )
                .prop_map(|(onseam, s, t)| TexCoord { onseam, s, t }),
            nv,
        );
        let tris = vec(
            (
                prop_oneof![Just(0), Just(1), any::<i32>()],
                [0..nv as u32, 0..nv as u32, 0..nv as u32],
            )
                .prop_map(|(faces_front, vertices)| Tri {
                    faces_front,
                    vertices,
                }),
            1..200,
        );
        let verts = vec(
            (any::<[u8; 3]>(), any::<u8>()).prop_map(|(v, n)| TriVertex {
                v,
                light_normal_index: n,
            }),
            nv,
        );
        (
            texcoords,
            tris,
            verts,
            [-100.0f32..100.0, -1.0..1.0, 0.0..3.0],
        )
            .prop_map(move |(texcoords, triangles, vertices, s)| Model {
                scale: [s[0], s[1], s[2]],
                origin: [s[2], s[0], s[1]],
                bounding_radius: 1.0,
                eye_position: [0.0; 3],
                skin_width: w,
                skin_height: h,
                sync_type: 0,
                flags: Flags::default(),
                size: 1.0,
                skins: vec![SkinData::Single(vec![0; (w * h) as usize])],
                texcoords,
                triangles,
                frames: vec![FrameData::Single(PoseData {
                    name: [0; 16],
                    bbox_min: TriVertex::default(),
                    bbox_max: TriVertex::default(),
                    vertices,
                })],
                trailing: Vec::new(),
            })
    })
}

fn same(m: &Mdl<'_>, rule: SeamRule) -> Result<(), TestCaseError> {
    let sizes = m.weld_sizes();
    let mut verts = vec![WeldedVertex::default(); sizes.max_vertices];
    let mut indices = vec![0u32; sizes.indices];
    let mut scratch = vec![0u32; sizes.scratch];
    let n = m
        .weld_into(rule, &mut verts, &mut indices, &mut scratch)
        .unwrap();
    let pose = m.pose(0).unwrap();
    let mut pos = vec![[0.0f32; 3]; n];
    let mut nrm = vec![[0.0f32; 3]; n];
    pose.welded_positions_into(&verts[..n], &mut pos);
    pose.welded_normals_into(&verts[..n], &mut nrm);
    let uvs: Vec<[f32; 2]> = verts[..n].iter().map(|v| v.uv).collect();
    // Dirty outputs and scratch: nothing may rely on zeroed buffers.
    let mut p2 = vec![[7.0f32; 3]; sizes.max_vertices];
    let mut n2 = vec![[7.0f32; 3]; sizes.max_vertices];
    let mut u2 = vec![[7.0f32; 2]; sizes.max_vertices];
    let mut i2 = vec![u32::MAX; sizes.indices];
    let mut s2 = vec![0x5a5a_5a5a; sizes.scratch];
    let targets = WeldTargets {
        positions: &mut p2,
        normals: &mut n2,
        uvs: &mut u2,
        indices: &mut i2,
    };
    let n_new = m.weld_pose_into(rule, &pose, targets, &mut s2).unwrap();
    prop_assert_eq!(n_new, n);
    // Compare bits: NaN-free here, but -0.0 and 0.0 must not be confused.
    let bits3 = |v: &[[f32; 3]]| v.iter().flatten().map(|f| f.to_bits()).collect::<Vec<_>>();
    let bits2 = |v: &[[f32; 2]]| v.iter().flatten().map(|f| f.to_bits()).collect::<Vec<_>>();
    prop_assert_eq!(bits3(&p2[..n]), bits3(&pos));
    prop_assert_eq!(bits3(&n2[..n]), bits3(&nrm));
    prop_assert_eq!(bits2(&u2[..n]), bits2(&uvs));
    prop_assert_eq!(&i2, &indices);
    // The unwelded corners are the welded vertices looked up through the indices.
    let k = i2.len();
    let (mut cp, mut cn, mut cu) = (
        vec![[0.0f32; 3]; k],
        vec![[0.0f32; 3]; k],
        vec![[0.0f32; 2]; k],
    );
    prop_assert_eq!(
        m.corners_into(rule, &pose, &mut cp, &mut cn, &mut cu)
            .unwrap(),
        k
    );
    for (c, &i) in i2.iter().enumerate() {
        let i = i as usize;
        prop_assert_eq!(bits3(&cp[c..=c]), bits3(&p2[i..=i]));
        prop_assert_eq!(bits3(&cn[c..=c]), bits3(&n2[i..=i]));
        prop_assert_eq!(bits2(&cu[c..=c]), bits2(&u2[i..=i]));
    }
    if k > 0 {
        prop_assert!(
            m.corners_into(rule, &pose, &mut cp, &mut cn, &mut cu[..k - 1])
                .is_err()
        );
    }
    // A vertex slice one short is refused.
    let mut short = vec![[0.0f32; 2]; n - 1];
    let targets = WeldTargets {
        positions: &mut p2,
        normals: &mut n2,
        uvs: &mut short,
        indices: &mut i2,
    };
    prop_assert!(m.weld_pose_into(rule, &pose, targets, &mut s2).is_err());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fused_weld_equals_weld_then_decode(m in model()) {
        let bytes = m.write().unwrap();
        let mdl = Mdl::parse(&bytes).unwrap();
        same(&mdl, SeamRule::Gl)?;
        same(&mdl, SeamRule::Software)?;
    }
}

#[test]
fn fused_weld_equals_weld_then_decode_on_corpus() {
    let test = "fused_weld_equals_weld_then_decode_on_corpus";
    idmodel_test_support::each_checked(test, "mdl", "mdl", |p, bytes| {
        let m = Mdl::parse(bytes).ok()?;
        for rule in [SeamRule::Gl, SeamRule::Software] {
            same(&m, rule).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
        Some(())
    });
}
