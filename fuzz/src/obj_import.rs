//! The OBJ reader on any bytes, with the bytes as every MTL library and texture it names:
//! never a panic, an error is one line, and a scene it reads exports as GLB, reads back,
//! and writes as OBJ again.

use idmodel_gltf::import::ImportOptions;
use idmodel_gltf::import::obj::from_obj;

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let options = ImportOptions {
        max_bytes: Some(64 << 20),
        read_images: true,
        ..ImportOptions::default()
    };
    let mut resolve = |_: &str| Some(data.to_vec());
    match from_obj(data, &options, &mut resolve) {
        Ok(scene) => {
            let _ = idmodel_scene::obj::to_obj(&scene, "x", Default::default());
            if let Ok(glb) = idmodel_gltf::to_glb(&scene, &Default::default()) {
                // A texture the OBJ named but that did not decode stays a URI in the
                // GLB: read back without fetching images.
                let back_options = ImportOptions {
                    read_images: false,
                    ..options.clone()
                };
                let back = idmodel_gltf::import::from_glb(
                    &glb,
                    &back_options,
                    &mut idmodel_gltf::import::no_files,
                );
                assert!(
                    back.is_ok(),
                    "an exported OBJ scene does not read back: {back:?}"
                );
            }
        }
        Err(e) => {
            let m = e.to_string();
            assert!(
                !m.is_empty() && !m.contains('\n'),
                "error not one line: {m:?}"
            );
        }
    }
}
