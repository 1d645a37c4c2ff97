//! Shared helpers for the integration tests: finding the corpus.
#![allow(dead_code)] // each test binary uses a different subset

use std::path::{Path, PathBuf};

/// The corpus directory from `$IDMODEL_CORPUS`, or `None` (with a printed notice) when
/// the variable is unset. `.ci/run` sets it to `../shared/corpus`.
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
