//! Property tests of the way back: arbitrary small scenes (no extras) → MD2 / MDL →
//! scene agree with the input within the format's quantisation step, corner by corner.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use idmodel_core::Engine;
use idmodel_scene::back::BackOptions;
use idmodel_scene::{Image, Material, MorphTarget, Options, Primitive, Scene};
use proptest::prelude::*;

mod common;
use common::{assert_refusal, md2_scene, md3_scene, mdl_scene};

fn arb_scene() -> impl Strategy<Value = Scene> {
    (3usize..10, 1usize..4).prop_flat_map(|(n, frames)| {
        (
            prop::collection::vec(prop::array::uniform3(-100.0f32..100.0), n),
            prop::collection::vec(prop::array::uniform2(0.0f32..1.0), n),
            prop::collection::vec(prop::array::uniform3(0..n as u32), 1..8),
            prop::collection::vec(
                prop::collection::vec(prop::array::uniform3(-20.0f32..20.0), n),
                frames - 1,
            ),
            prop::collection::vec(any::<u8>(), 8 * 8 * 4),
        )
            .prop_map(|(positions, uvs, tris, targets, pixels)| {
                let prim = Primitive {
                    positions,
                    uvs,
                    indices: tris.into_iter().flatten().collect(),
                    material: Some(0),
                    targets: targets
                        .into_iter()
                        .map(|positions| MorphTarget {
                            positions,
                            normals: Vec::new(),
                        })
                        .collect(),
                    ..Primitive::default()
                };
                let image = Image::Rgba8 {
                    width: 8,
                    height: 8,
                    pixels: pixels
                        .chunks(4)
                        .flat_map(|p| [p[0], p[1], p[2], 255])
                        .collect(),
                };
                Scene::still(
                    "p",
                    vec![prim],
                    vec![Material::new("skin.pcx", Some(image))],
                )
            })
    })
}

/// Absolute position of every triangle corner in every frame.
fn corners(scene: &Scene) -> Vec<Vec<[f32; 3]>> {
    let p = &scene.meshes[0].primitives[0];
    let frame = |d: Option<&MorphTarget>| {
        p.indices
            .iter()
            .map(|&i| {
                let b = p.positions[i as usize];
                let o = d.map_or([0.0; 3], |t| t.positions[i as usize]);
                [b[0] + o[0], b[1] + o[1], b[2] + o[2]]
            })
            .collect::<Vec<_>>()
    };
    let mut out = vec![frame(None)];
    out.extend(p.targets.iter().map(|t| frame(Some(t))));
    out
}

fn corner_uvs(scene: &Scene) -> Vec<[f32; 2]> {
    let p = &scene.meshes[0].primitives[0];
    p.indices.iter().map(|&i| p.uvs[i as usize]).collect()
}

fn agree(a: &Scene, b: &Scene, step: impl Fn(usize) -> [f32; 3], texel: [f32; 2]) {
    let (ca, cb) = (corners(a), corners(b));
    assert_eq!(ca.len(), cb.len(), "frames");
    for (f, (fa, fb)) in ca.iter().zip(&cb).enumerate() {
        assert_eq!(fa.len(), fb.len());
        let s = step(f);
        for (p, q) in fa.iter().zip(fb) {
            for k in 0..3 {
                assert!(
                    (p[k] - q[k]).abs() <= s[k] * 0.5 + 1e-3 * (1.0 + p[k].abs()),
                    "frame {f}: {p:?} vs {q:?}, step {s:?}"
                );
            }
        }
    }
    for (u, v) in corner_uvs(a).iter().zip(corner_uvs(b)) {
        for k in 0..2 {
            assert!((u[k] - v[k]).abs() <= texel[k] + 1e-5, "uv {u:?} vs {v:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn scenes_come_back_from_md2_within_the_step(scene in arb_scene()) {
        let bytes = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()).unwrap();
        let md2 = idmodel_md2::Md2::parse(&bytes).unwrap();
        let back = idmodel_scene::md2::scene(&md2, "p", &Options::default()).unwrap();
        // Half a texel from rounding u · 8.
        agree(&scene, &back, |f| md2.frame(f).unwrap().scale(), [0.5 / 8.0; 2]);
        prop_assert!(md2.findings(Engine::Quake2).iter().all(|f| f.severity < idmodel_core::Severity::Hazard));
    }

    #[test]
    fn scenes_come_back_from_mdl_within_the_step(scene in arb_scene()) {
        let bytes = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default()).unwrap();
        let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
        let back = idmodel_scene::mdl::scene(&mdl, "p", &Options::default()).unwrap();
        let scale = mdl.scale();
        // MDL texels are sampled at their centre: within half a texel, plus the half-texel.
        agree(&scene, &back, |_| scale, [1.0 / 8.0; 2]);
        for e in [Engine::WinQuake, Engine::GlQuake, Engine::QuakeSpasm] {
            prop_assert!(mdl.findings(e).iter().all(|f| f.severity < idmodel_core::Severity::Hazard), "{e}");
        }
    }
}

#[test]
fn glquake_refuses_more_than_1024_vertices_and_the_write_says_so() {
    let n = 1100u32;
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, (i % 7) as f32, 0.0]).collect();
    let indices: Vec<u32> = (0..n - 2).flat_map(|i| [i, i + 1, i + 2]).collect();
    let prim = Primitive {
        uvs: vec![[0.5, 0.5]; n as usize],
        positions,
        indices,
        ..Primitive::default()
    };
    let scene = Scene::still("big", vec![prim], Vec::new());
    let gl = BackOptions {
        engine: Some(Engine::GlQuake),
        ..BackOptions::default()
    };
    let e = idmodel_scene::mdl::to_bytes(&scene, &gl).unwrap_err();
    let prefix = "refusing to write this MDL: glquake: refused: ";
    assert_refusal(e.message(), prefix, "1024");
    let qs = BackOptions {
        engine: Some(Engine::QuakeSpasm),
        ..BackOptions::default()
    };
    assert!(idmodel_scene::mdl::to_bytes(&scene, &qs).is_ok());
}

/// Extras as a hostile glTF could carry them: every recorded key of a real scene with a
/// value replaced by an arbitrary integer, list or base64 of arbitrary bytes.
fn hostile_value() -> impl Strategy<Value = idmodel_scene::Value> {
    use idmodel_scene::Value;
    prop_oneof![
        any::<i64>().prop_map(Value::Int),
        (-70_000i64..70_000).prop_map(Value::Int),
        prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| Value::Str(idmodel_scene::back::base64_encode(&b))),
        prop::collection::vec((0i64..100).prop_map(Value::Int), 0..4).prop_map(Value::List),
        Just(Value::Null),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn hostile_extras_never_panic_and_what_is_written_parses(
        which in 0usize..64,
        value in hostile_value(),
        mdl in any::<bool>(),
    ) {
        let mut scene = if mdl {
            mdl_scene("h", &idmodel_mdl::Model::example_groups().write().unwrap())
        } else {
            md2_scene("h", &idmodel_md2::write(&idmodel_md2::Model::example()).unwrap())
        };
        let n = scene.extras.0.len();
        let key = scene.extras.0[which % n].0.clone();
        scene.extras.set(key, value);
        if mdl {
            if let Ok(out) = idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default()) {
                prop_assert!(idmodel_mdl::Mdl::parse(&out).is_ok());
            }
        } else if let Ok(out) = idmodel_scene::md2::to_bytes(&scene, &BackOptions::default()) {
            prop_assert!(idmodel_md2::Md2::parse(&out).is_ok());
        }
    }
}

/// Every extras key of a real scene, set in turn to each value at the edge of what a
/// hostile glTF can carry: the way back refuses or writes a file that parses, and never
/// sizes an allocation by the value (an `i64::MAX` count would abort the test process).
#[test]
fn every_extras_key_at_the_extremes_is_refused_or_parses() {
    use idmodel_scene::Value;
    let extremes = [
        Value::Int(i64::MAX),
        Value::Int(i64::MIN),
        Value::Int(i64::from(u32::MAX)),
        Value::Int(1 << 40),
        Value::Int(70_000),
        Value::Int(-1),
        Value::Null,
        Value::Str(String::new()),
        Value::Str(idmodel_scene::back::base64_encode(&[0xff; 48])),
        Value::List(Vec::new()),
        Value::List(vec![Value::Int(i64::MAX); 4]),
        Value::List(vec![Value::List(vec![
            Value::Int(i64::MAX),
            Value::Str("AAAA".into()),
        ])]),
    ];
    let md2 = md2_scene(
        "h",
        &idmodel_md2::write(&idmodel_md2::Model::example()).unwrap(),
    );
    let mdl = mdl_scene("h", &idmodel_mdl::Model::example_groups().write().unwrap());
    let md3 = md3_scene(
        "h",
        &idmodel_md3::write(&idmodel_md3::Model::example()).unwrap(),
    );
    let (o, o3) = (
        BackOptions::default(),
        idmodel_scene::md3::BackOptions::default(),
    );
    let mut tried = 0;
    for (kind, base) in [("md2", &md2), ("mdl", &mdl), ("md3", &md3)] {
        assert!(
            !base.extras.0.is_empty(),
            "{kind}: the scene records extras"
        );
        for (key, _) in &base.extras.0 {
            for v in &extremes {
                let mut scene = base.clone();
                scene.extras.set(key.clone(), v.clone());
                let ok = match kind {
                    "md2" => idmodel_scene::md2::to_bytes(&scene, &o)
                        .map(|b| idmodel_md2::Md2::parse(&b).is_ok())
                        .ok(),
                    "mdl" => idmodel_scene::mdl::to_bytes(&scene, &o)
                        .map(|b| idmodel_mdl::Mdl::parse(&b).is_ok())
                        .ok(),
                    _ => idmodel_scene::md3::to_bytes(&scene, &o3)
                        .map(|b| idmodel_md3::Md3::parse(&b).is_ok())
                        .ok(),
                };
                if let Some(parses) = ok {
                    assert!(
                        parses,
                        "{kind}: {key} = {v:?} wrote a file that does not parse"
                    );
                }
                tried += 1;
            }
        }
    }
    assert!(tried > 100, "only {tried} cases");
}
