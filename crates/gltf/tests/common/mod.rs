//! Shared helpers: scene builders and the Khronos validator runner.
#![allow(dead_code)] // each test file uses a different subset

use std::path::{Path, PathBuf};

use idmodel_gltf::{ExportOptions, to_glb, to_gltf};
use idmodel_scene::axes::Axes;
use idmodel_scene::{Image, Node, Primitive, Scene};
use idmodel_test_support::{has_node, run_validator, validator_package, validator_script};

/// A unit cube (file axes) with per-face normals and UVs, clockwise front faces as in the
/// id formats, drawn with `material`.
pub fn cube(material: Option<usize>) -> Primitive {
    let c = idmodel_test_support::cube();
    Primitive {
        material,
        positions: c.positions,
        normals: c.normals,
        uvs: c.uvs,
        indices: c.indices,
        ..Primitive::default()
    }
}

/// A node drawing mesh 0.
pub fn mesh_node(name: &str) -> Node {
    let mut n = Node::new(name);
    n.mesh = Some(0);
    n
}

/// A 4×4 RGBA checkerboard.
pub fn checker() -> Image {
    let mut pixels = Vec::new();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let on = (x + y) % 2 == 0;
            pixels.extend_from_slice(if on {
                &[200, 40, 40, 255]
            } else {
                &[30, 30, 30, 255]
            });
        }
    }
    Image::Rgba8 {
        width: 4,
        height: 4,
        pixels,
    }
}

/// A fresh directory under the target directory's scratch space.
pub fn out_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("idmodel-gltf-tests")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The validator script (`tests/validate.mjs`), when Node.js and the installed validator
/// are present (found by `idmodel-test-support`, as the CLI tests find them).
pub fn validator() -> Option<PathBuf> {
    let installed = validator_package();
    let has_node = has_node();
    // Under CI (.ci/run installs the validator) only a missing Node.js may skip.
    assert!(
        !(has_node && std::env::var_os("CI").is_some() && !installed.exists()),
        "CI has Node.js but no glTF validator at {}",
        installed.display()
    );
    (has_node && installed.exists()).then(validator_script)
}

/// Validates `file`; panics with the validator's report when it has errors. Prints a
/// notice and returns `false` when Node.js or the validator is missing.
pub fn validate(file: &Path) -> bool {
    let Some(script) = validator() else {
        idmodel_test_support::skipped(
            &format!("glTF validation of {}", file.display()),
            "needs `node` and `npm install --prefix .validator gltf-validator`",
        );
        return false;
    };
    let out = run_validator(&script, &[file]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "validator failed on {}:\n{text}{err}",
        file.display()
    );
    assert!(text.starts_with("errors: 0 "), "{text}");
    true
}

/// Writes `scene` as `<name>.glb` and `<name>.gltf` + `<name>.bin` with both axis modes
/// and validates all four files. Returns the parsed JSON of the Y-up `.gltf`.
pub fn export_and_validate(test: &str, scene: &Scene) -> serde_json::Value {
    let dir = out_dir(test);
    let mut json = serde_json::Value::Null;
    for axes in [Axes::YUp, Axes::Keep] {
        let opts = ExportOptions {
            axes,
            ..ExportOptions::default()
        };
        let stem = format!("{test}-{axes:?}");
        let glb = to_glb(scene, &opts).unwrap();
        check_glb_container(&glb);
        let glb_path = dir.join(format!("{stem}.glb"));
        std::fs::write(&glb_path, &glb).unwrap();
        let bin_name = format!("{stem}.bin");
        let files = to_gltf(scene, &opts, &bin_name).unwrap();
        let gltf_path = dir.join(format!("{stem}.gltf"));
        std::fs::write(&gltf_path, &files.json).unwrap();
        if !files.bin.is_empty() {
            std::fs::write(dir.join(&bin_name), &files.bin).unwrap();
        }
        for (name, bytes) in &files.images {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        validate(&glb_path);
        validate(&gltf_path);
        let pretty: serde_json::Value = serde_json::from_slice(&files.json).unwrap();
        // The writer writes what serde_json writes for the same document (sorted keys,
        // its float and string forms, its indentation): the files stay as they were.
        assert_eq!(serde_json::to_vec_pretty(&pretty).unwrap(), files.json);
        if axes == Axes::YUp {
            json = pretty;
        }
    }
    json
}

/// Checks the GLB header and chunk layout: lengths agree, chunks are 4-byte aligned.
pub fn check_glb_container(glb: &[u8]) -> serde_json::Value {
    let u32_at = |o: usize| u32::from_le_bytes(glb[o..o + 4].try_into().unwrap()) as usize;
    assert_eq!(&glb[0..4], b"glTF");
    assert_eq!(u32_at(4), 2);
    assert_eq!(u32_at(8), glb.len());
    assert_eq!(glb.len() % 4, 0);
    let json_len = u32_at(12);
    assert_eq!(json_len % 4, 0);
    assert_eq!(&glb[16..20], b"JSON");
    let json: serde_json::Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    // Compact, as serde_json writes the same document, then the padding spaces.
    let compact = serde_json::to_vec(&json).unwrap();
    assert_eq!(&glb[20..20 + compact.len()], &compact[..]);
    assert!(
        glb[20 + compact.len()..20 + json_len]
            .iter()
            .all(|&b| b == b' ')
    );
    let rest = 20 + json_len;
    if rest < glb.len() {
        let bin_len = u32_at(rest);
        assert_eq!(bin_len % 4, 0);
        assert_eq!(&glb[rest + 4..rest + 8], b"BIN\0");
        assert_eq!(rest + 8 + bin_len, glb.len());
        let declared = json["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
        assert!(declared <= bin_len && bin_len - declared < 4);
    } else {
        assert!(json.get("buffers").is_none());
    }
    json
}
