//! The bodies of the fuzz targets, as plain functions.
//!
//! Each `fuzz_targets/<name>.rs` calls `<name>::run(data)`, and `tests/regressions.rs`
//! replays every file under `regressions/<name>/` through the same function from an
//! ordinary `cargo test`, so a crasher found once stays fixed.
//!
//! These are harnesses, not library code: they `assert!` and `unwrap` on purpose (a
//! failed assertion is a finding), so the workspace's panic-freedom lints are not
//! applied to this crate (its manifest does not opt into `[lints] workspace = true`).
//!
//! Each target's body is a module of its own file (`mdl.rs` holds `mdl::run`), which
//! starts by saying what the target checks.

pub mod anm;
#[cfg(feature = "assets")]
mod archive_walk;
pub mod capi;
pub mod cli_info;
pub mod convert;
pub mod convert_call;
pub mod cube2cfg;
pub mod detect;
pub mod gltf_import;
pub mod images;
pub mod md2;
pub mod md2_glcmds;
pub mod md2_roundtrip;
pub mod md3;
pub mod md3_animcfg;
pub mod md3_roundtrip;
pub mod md3_skin;
pub mod md5_back;
pub mod md5_roundtrip;
pub mod md5anim;
pub mod md5camera;
pub mod md5mesh;
pub mod mdl;
pub mod mdl_roundtrip;
pub mod mtr;
pub mod obj_import;
pub mod pak;
pub mod pk3;
pub mod shader;

/// A target's body: runs one input, panics on a finding.
pub type Target = fn(&[u8]);

/// Every target, by the name of its `fuzz_targets/` file and `regressions/` folder.
pub const TARGETS: &[(&str, Target)] = &[
    ("detect", detect::run),
    ("mdl", mdl::run),
    ("mdl_roundtrip", mdl_roundtrip::run),
    ("md2", md2::run),
    ("md2_roundtrip", md2_roundtrip::run),
    ("md2_glcmds", md2_glcmds::run),
    ("md3", md3::run),
    ("md3_roundtrip", md3_roundtrip::run),
    ("md3_skin", md3_skin::run),
    ("md3_animcfg", md3_animcfg::run),
    ("md5mesh", md5mesh::run),
    ("md5anim", md5anim::run),
    ("md5camera", md5camera::run),
    ("md5_roundtrip", md5_roundtrip::run),
    ("cli_info", cli_info::run),
    ("convert", convert::run),
    ("images", images::run),
    ("shader", shader::run),
    ("mtr", mtr::run),
    ("cube2cfg", cube2cfg::run),
    ("anm", anm::run),
    ("pak", pak::run),
    ("pk3", pk3::run),
    ("md5_back", md5_back::run),
    ("capi", capi::run),
    ("gltf_import", gltf_import::run),
    ("obj_import", obj_import::run),
    ("convert_call", convert_call::run),
];
