//! The `idmodel` command (filled in by the CLI issue).
fn main() {}
