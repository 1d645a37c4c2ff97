//! The error of the format modules: a sentence saying what is wrong and where.

use std::fmt;
use std::path::Path;

/// A failure that names its file: the one line said for it.
pub(crate) fn line(path: &Path, failure: impl fmt::Display) -> String {
    format!("{}: {failure}", path.display())
}

/// Why a file could not be read, checked, converted or rendered.
///
/// The message says what is wrong and where (`… (at byte 84)`, `… (line 3, column 7)`);
/// the conversion prefixes the file name, so a failure is one line:
/// `idmodel: models/ogre.md2: truncated: needed 68 bytes, 12 available (at byte 0)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    message: String,
}

impl Failure {
    /// A failure with a complete message (which already says where, if anywhere).
    pub fn new(message: impl Into<String>) -> Self {
        // Keep it to one line whatever the source text held.
        let message: String = message.into();
        Self {
            message: message.replace(['\n', '\r'], " "),
        }
    }

    /// The answer of a format module asked about a format it does not read (the
    /// dispatcher in `formats::module` never does this; it keeps the match total).
    pub fn wrong_module(format: crate::idmodel::Format) -> Self {
        Self::new(format!(
            "{}: not handled by this format module",
            format.name()
        ))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Errors of the binary readers already say where (`… (at byte N)`).
impl From<crate::idmodel::Error> for Failure {
    fn from(e: crate::idmodel::Error) -> Self {
        Self::new(e.to_string())
    }
}

/// The scene adapters' errors are complete lines already.
/// An MD5 parser refusal as one line: what, then line, column and byte offset.
impl From<crate::idmodel::md5::Md5Error> for Failure {
    fn from(e: crate::idmodel::md5::Md5Error) -> Self {
        Self::new(format!(
            "{} (line {}, column {}, at byte {})",
            e.kind(),
            e.line(),
            e.column(),
            e.offset()
        ))
    }
}

impl From<idmodel_scene::Error> for Failure {
    fn from(e: idmodel_scene::Error) -> Self {
        Self::new(e.message())
    }
}

impl From<idmodel_gltf::ExportError> for Failure {
    fn from(e: idmodel_gltf::ExportError) -> Self {
        Self::new(format!("cannot export: {e}"))
    }
}
