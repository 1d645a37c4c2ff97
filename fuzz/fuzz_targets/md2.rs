#![no_main]
//! MD2 parsing never panics, and on what parses every accessor, decoder and the checker
//! walk the whole model: every frame, both mesh topologies, the GL commands, findings.
//! The body lives in `idmodel_fuzz::md2::run`, so `tests/regressions.rs` replays
//! `regressions/md2/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md2::run(data));
