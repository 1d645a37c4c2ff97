#![no_main]
//! `animation.cfg`: parsing, raw entries, the Quake III interpretation and the checks
//! never panic; the raw entry iterator makes progress.
//! The body lives in `idmodel_fuzz::md3_animcfg::run`, so `tests/regressions.rs` replays
//! `regressions/md3_animcfg/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md3_animcfg::run(data));
