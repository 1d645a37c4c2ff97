#![no_main]
//! The Quake / Quake II `.pak` reader on any bytes: open, list, read every entry; no panic, no entry
//! larger than the limit, every error one line naming the archive.
//! The body lives in `idmodel_fuzz::pak::run`, so `tests/regressions.rs` replays
//! `regressions/pak/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::pak::run(data));
