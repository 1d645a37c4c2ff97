//! # idmodel-test-support
//!
//! Helpers shared by the tests of the idmodel workspace, and by nothing else: finding
//! the real-file corpus (`$IDMODEL_CORPUS`, skipped with a printed notice when unset),
//! listing its files, finding the Khronos glTF validator (Node.js and the npm
//! `gltf-validator` package, see `crates/gltf/tests/validate.mjs`), and the one
//! little-endian byte builder every format's fixtures are written with ([`LeBuffer`],
//! after read-fonts' `BeBuffer`). It uses `std`, is a dev-dependency only and is never
//! published. Each test crate re-exports it from its `tests/common/mod.rs`, so the tests
//! call `common::corpus_dir(..)` as before.

use std::path::{Path, PathBuf};
use std::process::Command;

mod le_buffer;

pub use le_buffer::{LeBuffer, LeScalar, patch, patch_bytes};

/// The corpus directory from `$IDMODEL_CORPUS`, or `None` (with a printed notice) when
/// the variable is unset. `.ci/run` sets it to the shared corpus beside the repository.
///
/// # Panics
///
/// When `$IDMODEL_CORPUS` is set but is not a directory.
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    match std::env::var_os("IDMODEL_CORPUS") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            assert!(
                dir.is_dir(),
                "IDMODEL_CORPUS={} is not a directory",
                dir.display()
            );
            Some(dir)
        }
        _ => {
            eprintln!("notice: IDMODEL_CORPUS is not set; skipping corpus test `{test}`");
            None
        }
    }
}

/// Every regular file under `dir` (recursively, sorted), symlinks included as files.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Files under `dir` whose extension matches `ext` case-insensitively.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case(ext))
        })
        .collect()
}

/// The workspace's validator script, `crates/gltf/tests/validate.mjs` (run it with
/// `node`; it prints one `errors: N ...` summary line per file).
pub fn validator_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../gltf/tests/validate.mjs")
}

/// The npm `gltf-validator` package folder: `$IDMODEL_GLTF_VALIDATOR`, else
/// `<workspace>/.validator/node_modules/gltf-validator` (where `.ci/run` installs it).
pub fn validator_package() -> PathBuf {
    std::env::var_os("IDMODEL_GLTF_VALIDATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../.validator/node_modules/gltf-validator")
        })
}

/// Whether `node --version` runs and succeeds.
pub fn has_node() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The validator script when Node.js and the validator package are both present, or
/// `None` (the caller skips validation with a notice).
pub fn validator() -> Option<PathBuf> {
    let installed = validator_package();
    (has_node() && installed.exists()).then(validator_script)
}

/// The Quake III player folders under `dir` (each directly holding `lower.md3`,
/// `upper.md3` and `head.md3`; none under a `malformed` folder), sorted.
pub fn player_folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walk(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "lower.md3"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .filter(|d| d.join("upper.md3").is_file() && d.join("head.md3").is_file())
        .filter(|d| !d.to_string_lossy().contains("malformed"))
        .collect();
    out.sort();
    out
}
