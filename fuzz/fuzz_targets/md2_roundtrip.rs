#![no_main]
//! What parses converts to an owned model; when the writer accepts it, the written file
//! parses strictly, converts back to an equal model (bitwise, NaNs included) and writes
//! the same bytes again.
//! The body lives in `idmodel_fuzz::md2_roundtrip::run`, so `tests/regressions.rs` replays
//! `regressions/md2_roundtrip/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md2_roundtrip::run(data));
