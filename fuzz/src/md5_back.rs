//! The way back to md5: any bytes read as a glTF/GLB (a small budget), or an md5 file
//! through its scene adapter, then `idmodel_scene::md5::from_scene::convert` and the md5
//! writers; whatever is written parses back as the same model.

use idmodel::Format;
use idmodel::md5::{anim, camera, mesh};
use idmodel_scene::md5::from_scene::{self, Md5Options};
use idmodel_scene::{Options, Scene, md5};

fn scene(data: &[u8]) -> Option<Scene> {
    let all = Options::default();
    match idmodel::detect(data) {
        Some(Format::Md5Mesh) => {
            let m = mesh::Model::parse(data).ok()?;
            md5::mesh::scene(&m, "m", &all).ok()
        }
        Some(Format::Md5Anim) => {
            let a = anim::Anim::parse(data).ok()?;
            md5::anim::scene(&a, "m", &all).ok()
        }
        Some(Format::Md5Camera) => {
            let c = camera::Camera::parse(data).ok()?;
            md5::camera::scene(&c, "m", &all).ok()
        }
        _ => {
            let options = idmodel_gltf::import::ImportOptions {
                max_bytes: Some(32 << 20),
                ..Default::default()
            };
            idmodel_gltf::import::from_bytes(data, &options, &mut idmodel_gltf::import::no_files)
                .ok()
        }
    }
}

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let Some(scene) = scene(data) else { return };
    let options = Md5Options {
        fps: None,
        max_bytes: Some(16 << 20),
    };
    let files = match from_scene::convert(&scene, &options) {
        Ok(f) => f,
        Err(e) => {
            let m = e.to_string();
            assert!(
                !m.is_empty() && !m.contains('\n'),
                "error not one line: {m:?}"
            );
            return;
        }
    };
    if let Some(m) = &files.mesh
        && let Ok(text) = mesh::write(m)
    {
        assert_eq!(
            &mesh::Model::parse(&text).expect("written md5mesh parses"),
            m
        );
    }
    for (_, a) in &files.anims {
        if let Ok(text) = anim::write(a) {
            assert_eq!(
                &anim::Anim::parse(&text).expect("written md5anim parses"),
                a
            );
        }
    }
    for (_, c) in &files.cameras {
        if let Ok(text) = camera::write(c) {
            assert_eq!(
                &camera::Camera::parse(&text).expect("written md5camera parses"),
                c
            );
        }
    }
}
