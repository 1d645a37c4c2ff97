#![no_main]
//! The Quake III / Doom 3 `.pk3` / `.pk4` (zip) reader on any bytes: open, list, read every entry; no panic, no entry
//! larger than the limit, every error one line naming the archive.
//! The body lives in `idmodel_fuzz::pk3::run`, so `tests/regressions.rs` replays
//! `regressions/pk3/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::pk3::run(data));
