#![no_main]
//! Format detection and the shared byte helpers never panic on any input.
//! The body lives in `idmodel_fuzz::detect::run`, so `tests/regressions.rs` replays
//! `regressions/detect/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::detect::run(data));
