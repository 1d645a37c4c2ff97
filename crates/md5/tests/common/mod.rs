//! Shared helpers for the integration tests: finding the corpus (`corpus_dir`, `walk`,
//! `files_with_ext`), from the workspace's `idmodel-test-support` crate.
#![allow(unused_imports)] // each test binary uses a different subset

pub use idmodel_test_support::*;
