//! `idmodel._native`: the Rust half of the Python package `idmodel`.
//!
//! Thin on purpose: every rule (parsing, decoding, engine checks, conversion, writing)
//! is the Rust libraries'; this module converts types. Models are read through the C
//! API's safe layer (`idmodel_capi::formats`), so Python, C and the command decode
//! frames, tags and joints with the same code; conversions go through
//! `idmodel_convert::convert` and are written by the command's own writer.
//! `python/idmodel/__init__.py` wraps it into the documented API.

// A std extension module: std paths are the natural ones here.
#![allow(clippy::std_instead_of_core, clippy::std_instead_of_alloc)]

mod convert;
mod model;
mod write;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use idmodel_convert::Location;

create_exception!(
    _native,
    Error,
    PyException,
    "A model or an option was refused: one line naming the file, what is wrong and where."
);

/// An [`Error`] carrying `offset`, `line` and `column` (each `None` when unknown) and
/// `kind` (`"usage"`, `"failed"` or `"refused"`).
pub(crate) fn error(
    py: Python<'_>,
    kind: &str,
    message: String,
    location: Option<Location>,
) -> PyErr {
    let location = location.or_else(|| Location::in_message(&message));
    let err = Error::new_err(message);
    let value = err.value(py);
    let loc = location.unwrap_or_default();
    // Setting attributes on a fresh exception object cannot fail in practice; a failure
    // would only leave the attribute missing, so it is not worth masking the error.
    let _ = value.setattr("kind", kind);
    let _ = value.setattr("offset", loc.offset);
    let _ = value.setattr("line", loc.line);
    let _ = value.setattr("column", loc.column);
    err
}

/// The engine named `name`, or an [`Error`] listing the names.
pub(crate) fn engine(py: Python<'_>, name: Option<&str>) -> PyResult<Option<idmodel_core::Engine>> {
    let Some(name) = name else { return Ok(None) };
    match idmodel_core::Engine::from_name(name) {
        Some(e) => Ok(Some(e)),
        None => {
            let names: Vec<&str> = idmodel_core::Engine::ALL.iter().map(|e| e.name()).collect();
            Err(error(
                py,
                "usage",
                format!(
                    "unknown engine '{name}'; choose one of: {}",
                    names.join(", ")
                ),
                None,
            ))
        }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    model::register(m)?;
    convert::register(m)?;
    write::register(m)?;
    Ok(())
}
