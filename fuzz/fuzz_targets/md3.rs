#![no_main]
//! MD3: parse, then walk every accessor, decode every frame (both normal decodes, lerped),
//! every tag, and run every check. Nothing may panic.
//! The body lives in `idmodel_fuzz::md3::run`, so `tests/regressions.rs` replays
//! `regressions/md3/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md3::run(data));
