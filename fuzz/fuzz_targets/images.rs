#![no_main]
//! Images: every decoder (PCX, WAL, TGA, PNG, JPEG) with its limits, and the texture
//! resolution over the bytes as each side file, never panic.
//! The body lives in `idmodel_fuzz::images::run`, so `tests/regressions.rs` replays
//! `regressions/images/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::images::run(data));
