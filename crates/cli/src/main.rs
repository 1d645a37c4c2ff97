//! The `idmodel` binary: everything lives in the `idmodel_cli` library.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    idmodel_cli::main_entry()
}
