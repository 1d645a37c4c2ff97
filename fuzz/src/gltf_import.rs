//! The glTF reader over JSON and GLB bytes: never a panic, one-line errors, a scene that is
//! read exports again (or is refused with an error) and, when exported, reads back.

use idmodel_gltf::import::{ImportOptions, from_bytes, from_glb};

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    let options = ImportOptions {
        max_bytes: Some(64 << 20),
        ..ImportOptions::default()
    };
    // A resolver that hands back the input itself for any URI: external buffers and
    // images are exercised without I/O.
    let mut resolve = |_: &str| Some(data.to_vec());
    match from_bytes(data, &options, &mut resolve) {
        Ok(scene) => {
            if let Ok(glb) = idmodel_gltf::to_glb(&scene, &Default::default()) {
                let back = from_glb(&glb, &options, &mut idmodel_gltf::import::no_files);
                assert!(
                    back.is_ok(),
                    "an exported scene does not read back: {back:?}"
                );
            }
            // Quantized (KHR_mesh_quantization): it exports when the plain form does, and
            // reads back with the same meshes and nodes (the dequantizing nodes folded).
            let quantized = idmodel_gltf::ExportOptions {
                quantize: true,
                ..Default::default()
            };
            if let (Ok(plain), Ok(glb)) = (
                idmodel_gltf::to_glb(&scene, &Default::default()),
                idmodel_gltf::to_glb(&scene, &quantized),
            ) {
                let none = &mut idmodel_gltf::import::no_files;
                let (a, b) = (
                    from_glb(&plain, &options, none),
                    from_glb(&glb, &options, none),
                );
                let (Ok(a), Ok(b)) = (a, b) else {
                    panic!("a quantized export does not read back");
                };
                assert_eq!(
                    a.nodes.len(),
                    b.nodes.len(),
                    "dequantizing nodes not folded"
                );
                assert_eq!(a.meshes.len(), b.meshes.len());
            }
            // The way back to a Quake III player folder: files or a one-line error.
            if let Err(e) = idmodel_scene::md3::player_files(&scene, &Default::default()) {
                let m = e.to_string();
                assert!(
                    !m.is_empty() && !m.contains('\n'),
                    "error not one line: {m:?}"
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
