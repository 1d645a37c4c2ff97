#![no_main]
//! OBJ reader: any bytes as an OBJ (and as its MTL libraries and textures) into a scene,
//! exported as GLB and read back. Nothing may panic. The body lives in
//! `idmodel_fuzz::obj_import::run`, so `tests/regressions.rs` replays
//! `regressions/obj_import/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::obj_import::run(data));
