#![no_main]
//! The C ABI (idmodel-capi) with fuzzed model bytes and fuzzed buffer lengths, indices
//! and frames: every call returns a code, never crashes. The body lives in
//! `idmodel_fuzz::capi::run`, so `tests/regressions.rs` replays `regressions/capi/`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::capi::run(data));
