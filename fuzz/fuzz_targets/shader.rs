#![no_main]
//! Quake III `.shader` scripts on any bytes: no panic, no hang, every accessor walked.
//! The body lives in `idmodel_fuzz::shader::run`, so `tests/regressions.rs` replays
//! `regressions/shader/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::shader::run(data));
