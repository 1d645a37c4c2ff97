//! The check panel: each engine's verdict on a file, from the code of `idmodel check`
//! (`idmodel_convert::check`, one engine profile at a time). Kept in this one module
//! so the findings vocabulary can change in one place.

use std::path::Path;

use idmodel::core::detect::detect;
use idmodel_convert::Engine;
use idmodel_convert::check::{check_bytes, text_report};
use serde_json::{Value, json};

/// What `idmodel check` says of one file: its text and whether it is clean.
fn check_report(
    path: &Path,
    bytes: &[u8],
    engine: Option<Engine>,
) -> Result<(String, bool), String> {
    let checked = check_bytes(path, bytes, engine).map_err(String::from)?;
    Ok((text_report(path, &checked), checked.findings.is_empty()))
}

/// One entry per engine that loads the file's format:
/// `{engine, ok, findings: [one line each]}`; for a refused file, one entry
/// `{engine: null, ok: false, findings: [the refusal]}`.
pub fn verdicts(name: &str, bytes: &[u8]) -> Value {
    let path = Path::new(name);
    let engines: Vec<Engine> = detect(bytes)
        .map(|f| Engine::for_format(f).collect())
        .unwrap_or_default();
    let prefix = format!("{}: ", path.display());
    let mut out = Vec::new();
    for engine in engines {
        match check_report(path, bytes, Some(engine)) {
            Ok((_, true)) => out.push(json!({"engine": engine.name(), "ok": true, "findings": []})),
            Ok((report, false)) => {
                let cut = format!("{prefix}{}: ", engine.name());
                let findings: Vec<&str> = report
                    .lines()
                    .map(|l| l.strip_prefix(cut.as_str()).unwrap_or(l))
                    .collect();
                out.push(json!({"engine": engine.name(), "ok": false, "findings": findings}));
            }
            Err(e) => {
                out.push(json!({"engine": engine.name(), "ok": false, "findings": [e]}));
            }
        }
    }
    if out.is_empty() {
        let why = check_report(path, bytes, None).err().unwrap_or_default();
        out.push(json!({"engine": null, "ok": false, "findings": [why]}));
    }
    Value::Array(out)
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_file_has_one_verdict_naming_it() {
        let v = verdicts("x.md3", b"IDP3 short");
        assert_eq!(v.as_array().map(Vec::len), Some(2)); // quake3 and ioq3
        assert_eq!(v[0]["ok"], false);
        let v = verdicts("y.bin", b"nothing");
        assert_eq!(v[0]["engine"], Value::Null);
        assert!(
            v[0]["findings"][0]
                .as_str()
                .is_some_and(|s| s.starts_with("y.bin: "))
        );
    }
}
