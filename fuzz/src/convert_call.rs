//! The one conversion call on files held in memory (`idmodel_convert::convert_bytes`):
//! the bytes as every model kind to GLB and OBJ, and as glTF and OBJ to every id format,
//! with a budget on animated output, glTF and OBJ through `--fit` to MDL and MD2, models
//! to quantized and compressed GLBs, and `EXT_meshopt_compression` both ways.
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
    // Quantized and compressed GLBs (KHR_mesh_quantization, EXT_meshopt_compression).
    let packed = idmodel_convert::Options {
        quantize: true,
        meshopt: true,
        ..options.clone()
    };
    for name in ["models/m.mdl", "models/m.md3", "m.glb"] {
        convert_one(data, name, "m.glb", &packed);
    }
    // A compressed GLB read back: no panic, a one-line error, and a file the pass wrote
    // always decompresses.
    if let Err(e) = idmodel_convert::compress::decompress(data) {
        assert!(!e.to_string().contains('\n'), "not one line: {e}");
    }
    if let Ok(small) = idmodel_convert::compress::meshopt(data) {
        assert!(
            idmodel_convert::compress::decompress(&small).is_ok(),
            "a compressed GLB does not decompress"
        );
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
