#![no_main]
//! md5anim: parsing never panics; whatever parses has every accessor walked and is
//! evaluated (frames, blended times with both root-motion modes, model space); the lexer
//! always makes progress.
//! The body lives in `idmodel_fuzz::md5anim::run`, so `tests/regressions.rs` replays
//! `regressions/md5anim/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md5anim::run(data));
