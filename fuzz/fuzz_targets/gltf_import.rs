#![no_main]
//! glTF reader: JSON and GLB bytes into a scene, exported again and read back. Nothing may
//! panic. The body lives in `idmodel_fuzz::gltf_import::run`, so `tests/regressions.rs`
//! replays `regressions/gltf_import/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::gltf_import::run(data));
