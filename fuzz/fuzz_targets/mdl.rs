#![no_main]
//! Quake MDL: parse, then walk every accessor, decode every pose and skin, run every
//! engine check and build the welded mesh under both seam rules. Nothing may panic.
//! The body lives in `idmodel_fuzz::mdl::run`, so `tests/regressions.rs` replays
//! `regressions/mdl/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::mdl::run(data));
