#![no_main]
//! Quake MDL round trip: whatever parses converts to the owned model, writes back to the
//! same bytes (type words normalised to 0/1), and parses again to the same model.
//! The body lives in `idmodel_fuzz::mdl_roundtrip::run`, so `tests/regressions.rs` replays
//! `regressions/mdl_roundtrip/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::mdl_roundtrip::run(data));
