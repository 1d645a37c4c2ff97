#![no_main]
//! md5camera: parsing never panics; whatever parses has its cuts and frames walked and
//! is sampled at many times, never blending a cut frame forward when cuts ascend; the
//! lexer always makes progress.
//! The body lives in `idmodel_fuzz::md5camera::run`, so `tests/regressions.rs` replays
//! `regressions/md5camera/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md5camera::run(data));
