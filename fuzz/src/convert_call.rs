//! The one conversion call on files held in memory (`idmodel_convert::convert_bytes`):
//! the bytes as every model kind to GLB and OBJ, and as glTF and OBJ to every id format,
//! with a budget on animated output, and glTF and OBJ through `--fit` to MDL and MD2.
//! Never a panic; an error is one line naming the file. (Without the `cli` feature, as when `tests/sweeps.rs` includes this file, it
//! does nothing.)

/// Runs the target on one input; panics on a finding.
pub fn run(data: &[u8]) {
    #[cfg(feature = "cli")]
    run_convert(data);
    #[cfg(not(feature = "cli"))]
    let _ = data;
}

#[cfg(feature = "cli")]
fn run_convert(data: &[u8]) {
    let options = idmodel_convert::Options {
        max_output: Some(1 << 22),
        ..idmodel_convert::Options::default()
    };
    for (name, out) in [
        ("models/m.mdl", "m.glb"),
        ("models/m.md2", "m.obj"),
        ("models/m.md3", "m.glb"),
        ("models/m.md5mesh", "m.glb"),
        ("models/m.md5anim", "m.gltf"),
        ("m.glb", "m.md3"),
        ("m.glb", "m.md2"),
        ("m.glb", "m.mdl"),
        ("m.glb", "m.md5mesh"),
        ("m.obj", "m.md3"),
    ] {
        convert_one(data, name, out, &options);
    }
    // The fitter: what it writes is within the target's limits (the call checks every
    // file it writes against its engine and fails rather than hand back a refused one).
    let fit = idmodel_convert::Options {
        fit: true,
        ..options.clone()
    };
    for (name, out) in [("m.glb", "m.md2"), ("m.obj", "m.mdl"), ("m.obj", "m.md2")] {
        convert_one(data, name, out, &fit);
    }
}

#[cfg(feature = "cli")]
fn convert_one(data: &[u8], name: &str, out: &str, options: &idmodel_convert::Options) {
    use std::path::Path;
    let files = [(name, data)];
    match idmodel_convert::convert_bytes(&files, name, Path::new(out), options) {
        Ok(done) => assert!(!done.files.is_empty(), "{name} -> {out}: no file"),
        Err(e) => {
            let line = e.line();
            assert!(!line.contains(['\n', '\r']), "not one line: {line:?}");
            assert!(
                !line.contains("memory-"),
                "names the memory archive: {line}"
            );
        }
    }
}
