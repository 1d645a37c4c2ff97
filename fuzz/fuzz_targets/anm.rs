#![no_main]
//! UFO:AI `.anm` clip tables on any bytes: no panic, no hang, every accessor walked.
//! The body lives in `idmodel_fuzz::anm::run`, so `tests/regressions.rs` replays
//! `regressions/anm/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::anm::run(data));
