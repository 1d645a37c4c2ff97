#![no_main]
//! Doom 3 `.mtr` materials on any bytes: no panic, no hang, every accessor walked.
//! The body lives in `idmodel_fuzz::mtr::run`, so `tests/regressions.rs` replays
//! `regressions/mtr/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::mtr::run(data));
