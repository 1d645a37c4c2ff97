//! The one error type of the adapters: a sentence saying what is wrong and where.

use alloc::string::{String, ToString};
use core::fmt;

/// Why a model could not be turned into a [`Scene`](crate::Scene) (or a scene into
/// something else): one line that says what and, when it can, where (`… (at byte 84)`,
/// `… (line 3, column 7)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    /// An error with a complete message; line breaks become spaces, so it prints as one
    /// line.
    pub fn new(message: impl Into<String>) -> Self {
        let message: String = message.into();
        Self {
            message: message.replace(['\n', '\r'], " "),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for Error {}

/// The binary readers' errors already say where (`… (at byte N)`).
impl From<idmodel_core::Error> for Error {
    fn from(e: idmodel_core::Error) -> Self {
        Self::new(e.to_string())
    }
}
