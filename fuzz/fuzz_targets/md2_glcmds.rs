#![no_main]
//! Quake II GL commands as the way back builds them: they walk safely and draw exactly the
//! triangles. The body lives in `idmodel_fuzz::md2_glcmds::run`, so `tests/regressions.rs`
//! replays `regressions/md2_glcmds/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md2_glcmds::run(data));
