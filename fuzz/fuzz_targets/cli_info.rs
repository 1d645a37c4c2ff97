#![no_main]
//! The command line's `info` (text and JSON) and `check` paths on any bytes: no panic,
//! one-line errors naming the file, one-line JSON.
//! The body lives in `idmodel_fuzz::cli_info::run`, so `tests/regressions.rs` replays
//! `regressions/cli_info/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::cli_info::run(data));
