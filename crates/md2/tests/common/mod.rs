//! Shared helpers for the integration tests: finding the corpus (`corpus_dir`, `walk`,
//! `files_with_ext`), from the workspace's `idmodel-test-support` crate, and looking a
//! finding up.
#![allow(unused_imports, dead_code)] // each test binary uses a different subset

pub use idmodel_test_support::*;

use idmodel_md2::{Finding, FindingKind, Severity};

/// Whether `found` holds the finding `kind` at `severity`.
pub fn has(found: &[Finding], kind: FindingKind, severity: Severity) -> bool {
    found
        .iter()
        .any(|f| f.kind == kind && f.severity == severity)
}
