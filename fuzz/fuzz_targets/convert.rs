#![no_main]
//! Conversion of any bytes: every format's scene adapter, the GLB and OBJ writers and the
//! renderer. The body lives in `idmodel_fuzz::convert::run`, so `tests/regressions.rs`
//! replays `regressions/convert/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::convert::run(data));
