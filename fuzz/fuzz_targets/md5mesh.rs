#![no_main]
//! md5mesh: parsing never panics, with either comment rule; whatever parses has every
//! accessor walked (joints, meshes, vertices, triangles, weights, skinning, findings);
//! and the lexer always makes progress (each token moves the position forward, so no
//! input can make it loop).
//! The body lives in `idmodel_fuzz::md5mesh::run`, so `tests/regressions.rs` replays
//! `regressions/md5mesh/` through exactly this code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| idmodel_fuzz::md5mesh::run(data));
