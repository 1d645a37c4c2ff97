#![no_main]
//! Cube 2 `md5.cfg` / `md3.cfg` on any bytes: no panic, no hang, every accessor walked.
//! The body lives in `idmodel_fuzz::cube2cfg::run`, so `tests/regressions.rs` replays
//! `regressions/cube2cfg/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::cube2cfg::run(data));
