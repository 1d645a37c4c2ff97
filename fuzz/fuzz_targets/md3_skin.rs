#![no_main]
//! `.skin`: parsing and iterating never panic, the iterator makes progress and agrees with
//! the counts from `parse`, and the checks run.
//! The body lives in `idmodel_fuzz::md3_skin::run`, so `tests/regressions.rs` replays
//! `regressions/md3_skin/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md3_skin::run(data));
