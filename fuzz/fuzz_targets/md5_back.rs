#![no_main]
//! The way back to md5: glTF/GLB or md5 bytes → Scene → md5mesh/md5anim/md5camera, written
//! and parsed back. The body lives in `idmodel_fuzz::md5_back::run`, so
//! `tests/regressions.rs` replays `regressions/md5_back/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md5_back::run(data));
