#![no_main]
//! `idmodel_convert::convert_bytes` on any bytes held in memory, as each model format and
//! as glTF and OBJ on the way back: no panic, one-line errors naming the file.
//! The body lives in `idmodel_fuzz::convert_call::run`, so `tests/regressions.rs` replays
//! `regressions/convert_call/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::convert_call::run(data));
