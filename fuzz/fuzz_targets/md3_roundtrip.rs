#![no_main]
//! MD3 round trip: whatever parses and the writer accepts is written, parsed again, and
//! written again to the same bytes (compared as bytes so NaN floats compare equal).
//! The body lives in `idmodel_fuzz::md3_roundtrip::run`, so `tests/regressions.rs` replays
//! `regressions/md3_roundtrip/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md3_roundtrip::run(data));
