//! What a hostile file reaches when it is converted: every format's scene adapter (the
//! whole animation and one posed frame), the GLB writer, the OBJ writer and the software
//! renderer. Never a panic; a GLB that is written starts like one, and its JSON chunk is
//! JSON; an OBJ has no NaN or infinity.

use idmodel::Format;
use idmodel_scene::axes::Axes;
use idmodel_scene::render::{RenderOptions, render};
use idmodel_scene::{Options, Scene, md2, md3, md5, mdl};

/// The animated scene and one posed frame of `data`, when it is a model that parses.
fn scenes(data: &[u8]) -> Vec<Scene> {
    let all = Options::default();
    let mut out = Vec::new();
    let mut keep = |r: Result<Scene, idmodel_scene::Error>| {
        if let Ok(s) = r {
            out.push(s);
        } else if let Err(e) = r {
            let m = e.to_string();
            assert!(
                !m.is_empty() && !m.contains('\n'),
                "error not one line: {m:?}"
            );
        }
    };
    match idmodel::detect(data) {
        Some(Format::Mdl) => {
            if let Ok(m) = idmodel::mdl::Mdl::parse(data) {
                keep(mdl::scene(&m, "m", &all));
                keep(mdl::frame(&m, "m", &all));
            }
        }
        Some(Format::Md2) => {
            if let Ok(m) = idmodel::md2::Md2::parse(data) {
                keep(md2::scene(&m, "m", &all));
                keep(md2::frame(&m, "m", &all));
            }
        }
        Some(Format::Md3) => {
            if let Ok(m) = idmodel::md3::Md3::parse(data) {
                let side = md3::Sidecars::default();
                keep(md3::scene_with(&m, "m", &all, &side));
                keep(md3::frame_with(&m, "m", &all, &side));
            }
        }
        Some(Format::Md5Mesh) => {
            if let Ok(m) = idmodel::md5::mesh::Model::parse(data) {
                keep(md5::mesh::scene(&m, "m", &all));
                keep(md5::mesh::frame(&m, "m", &all));
            }
        }
        Some(Format::Md5Anim) => {
            if let Ok(a) = idmodel::md5::anim::Anim::parse(data) {
                keep(md5::anim::scene(&a, "m", &all));
                keep(md5::anim::frame(&a, "m", &all));
            }
        }
        Some(Format::Md5Camera) => {
            if let Ok(c) = idmodel::md5::camera::Camera::parse(data) {
                keep(md5::camera::scene(&c, "m", &all));
            }
        }
        _ => {}
    }
    out
}

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    for scene in scenes(data) {
        if let Ok(glb) = idmodel_gltf::to_glb(&scene, &Default::default()) {
            assert_eq!(&glb[..4], b"glTF");
            let json_len = u32::from_le_bytes([glb[12], glb[13], glb[14], glb[15]]) as usize;
            let json = &glb[20..20 + json_len];
            serde_json::from_slice::<serde_json::Value>(json).expect("GLB JSON chunk is JSON");
        }
        if let Ok(obj) = idmodel_scene::obj::to_obj(&scene, "m", Axes::YUp) {
            for line in obj.obj.lines().filter(|l| l.starts_with('v')) {
                assert!(
                    !line.contains("NaN") && !line.contains("inf"),
                    "non-finite OBJ line: {line}"
                );
            }
        }
        let small = RenderOptions {
            width: 32,
            height: 24,
            ..RenderOptions::default()
        };
        if let Ok(picture) = render(&scene, &small) {
            assert_eq!(picture.rgba.len(), 32 * 24 * 4);
        }
    }
}
