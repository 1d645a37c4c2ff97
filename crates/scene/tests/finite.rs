//! Finite output everywhere: MD2 and MDL files whose scale or translate is NaN or
//! infinite (the mutation sweep's `v NaN …` OBJ files), written with the project's
//! writers. `check` reports them, the scene holds only finite numbers (non-finite
//! positions become 0), and the OBJ and glTF writers treat them alike: both write them,
//! with no NaN or infinity in either file.
// Tests may index, unwrap and cast: a panic here is a failed assertion, not a library bug.
#![allow(clippy::restriction, missing_docs)]

use idmodel_core::Engine;
use idmodel_gltf::{ExportOptions, to_glb};
use idmodel_scene::axes::Axes;
use idmodel_scene::{Options, Scene, obj};

const BAD: [f32; 3] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];

fn all_finite(scene: &Scene) {
    for mesh in &scene.meshes {
        for p in &mesh.primitives {
            assert!(p.positions.iter().flatten().all(|x| x.is_finite()));
            assert!(p.normals.iter().flatten().all(|x| x.is_finite()));
            assert!(p.uvs.iter().flatten().all(|x| x.is_finite()));
            for t in &p.targets {
                assert!(t.positions.iter().flatten().all(|x| x.is_finite()));
                assert!(t.normals.iter().flatten().all(|x| x.is_finite()));
            }
        }
    }
}

/// Both writers succeed and neither writes a non-finite number.
fn writers_agree(still: &Scene, animated: &Scene) {
    let text = obj::to_obj(still, "m", Axes::YUp).unwrap().obj;
    let lower = text.to_lowercase();
    assert!(!lower.contains("nan") && !lower.contains("inf"), "{text}");
    to_glb(animated, &ExportOptions::default()).unwrap();
    to_glb(still, &ExportOptions::default()).unwrap();
}

#[test]
fn md2_non_finite_translate_is_reported_and_written_as_zero() {
    for bad in BAD {
        let mut m = idmodel_md2::Model::example();
        m.frames[1].translate = [0.0, bad, 0.0];
        m.frames[0].scale = [bad, 0.125, 0.125];
        let bytes = idmodel_md2::write(&m).unwrap();
        let md2 = idmodel_md2::Md2::parse(&bytes).unwrap();
        let found: Vec<_> = md2
            .findings(Engine::Quake2)
            .into_iter()
            .filter_map(|f| match f.kind {
                idmodel_md2::FindingKind::NonFiniteFrame { count, frame } => Some((count, frame)),
                _ => None,
            })
            .collect();
        assert_eq!(found, vec![(2, 0)], "{bad}");
        let animated = idmodel_scene::md2::scene(&md2, "m", &Options::default()).unwrap();
        all_finite(&animated);
        for frame in [0, 1] {
            let options = Options {
                frame: Some(frame),
                ..Options::default()
            };
            let still = idmodel_scene::md2::frame(&md2, "m", &options).unwrap();
            all_finite(&still);
            writers_agree(&still, &animated);
        }
    }
}

#[test]
fn mdl_non_finite_scale_is_reported_and_written_as_zero() {
    for bad in BAD {
        let mut m = idmodel_mdl::Model::example_groups();
        m.scale = [1.0, bad, 1.0];
        m.origin = [bad, 0.0, 0.0];
        let bytes = m.write().unwrap();
        let mdl = idmodel_mdl::Mdl::parse(&bytes).unwrap();
        let reported = mdl
            .findings(Engine::QuakeSpasm)
            .iter()
            .any(|f| f.kind == idmodel_mdl::FindingKind::NonFiniteScale);
        assert!(reported, "{bad}");
        let animated = idmodel_scene::mdl::scene(&mdl, "m", &Options::default()).unwrap();
        all_finite(&animated);
        let still = idmodel_scene::mdl::frame(&mdl, "m", &Options::default()).unwrap();
        all_finite(&still);
        writers_agree(&still, &animated);
    }
}
