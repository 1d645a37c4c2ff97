//! The command line's `info` and `check` paths (`idmodel info [--json]`, `idmodel check`)
//! on any bytes: never a panic, and every answer in the shape the command promises (the
//! JSON on one line, every error on one line naming the file).

/// Runs the target on one input; panics on a finding. (Without the `cli` feature,
/// as when `tests/sweeps.rs` includes this file, it does nothing.)
pub fn run(data: &[u8]) {
    #[cfg(feature = "cli")]
    run_cli(data);
    #[cfg(not(feature = "cli"))]
    let _ = data;
}

#[cfg(feature = "cli")]
fn run_cli(data: &[u8]) {
    use std::path::Path;
    // A folder that does not exist: MD3 sidecar lookups find nothing, nothing is read.
    let path = Path::new("/nonexistent/idmodel-fuzz/model");
    let name = path.display().to_string();
    let one_line = |e: &str| {
        assert!(e.starts_with(&name), "error does not name the file: {e}");
        assert!(!e.contains(['\n', '\r']), "error is not one line: {e:?}");
    };
    match idmodel_cli::info_report(path, data, true) {
        Ok(json) => {
            assert!(json.starts_with('{') && json.ends_with('}'), "{json}");
            assert!(!json.contains('\n'), "JSON is not one line");
            let text = idmodel_cli::info_report(path, data, false).unwrap();
            assert!(text.starts_with(&name), "{text}");
        }
        Err(e) => {
            one_line(&e);
            // The text form refuses the same input with the same message.
            assert_eq!(idmodel_cli::info_report(path, data, false), Err(e));
        }
    }
    match idmodel_cli::check_report(path, data, None) {
        Ok((report, _clean)) => {
            for l in report.lines() {
                assert!(l.starts_with(&name), "finding does not name the file: {l}");
            }
        }
        Err(e) => one_line(&e),
    }
}
