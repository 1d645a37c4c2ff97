#![no_main]
//! MD5 round trip: whatever parses as an md5mesh, md5anim or md5camera converts to the
//! owned form; if it is writable (no NaN or infinite values), the text parses back to
//! an equal model and writing that again gives the same bytes.
//! The body lives in `idmodel_fuzz::md5_roundtrip::run`, so `tests/regressions.rs` replays
//! `regressions/md5_roundtrip/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md5_roundtrip::run(data));
