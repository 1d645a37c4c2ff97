//! The findings `check` reports, in one shape for every format and side file: the
//! library's findings with the engine, the side file they are about, and the place the
//! message names.

use std::fmt;

use crate::idmodel::core::{Engine, Severity};
use serde::Serialize;

/// What a format's `check` answers about the model file: the library findings of each
/// engine of `all` asked (see [`engines`]), in engine order.
pub fn findings<F: crate::idmodel::core::Finding>(
    all: &'static [Engine],
    only: Option<Engine>,
    of: impl FnMut(Engine) -> Vec<F>,
) -> Vec<Finding> {
    engines(all, only)
        .flat_map(of)
        .map(|f| Finding::of(&f, None))
        .collect()
}

/// One engine finding of `check`: something the engine refuses, mishandles or warns
/// about. The message says where (`(at byte N)`, `(line L, column C)`) when it can.
///
/// Displayed as `engine: severity: message`, the shape of every library finding
/// (`idmodel::core::findings::display`), with the side file between engine and severity
/// when the finding is about one (`ioq3: lower_default.skin: warning: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The engine that has the problem.
    pub engine: Engine,
    /// The side file it is about (an MD3 `.skin` or `animation.cfg`), `None` for the
    /// model file itself.
    pub file: Option<String>,
    /// How bad it is.
    pub severity: Severity,
    /// The library's stable code for the kind of finding (`idmodel::core::Finding::code`).
    pub code: &'static str,
    /// Where in the file (or the side file) it is, when the finding says.
    pub location: Option<Location>,
    /// One line: what the engine does with this file and why.
    pub message: String,
}

/// Where a finding is: a byte offset and/or a 1-based line and column. Fields the
/// finding does not carry are `None` (and left out of `check --json`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Byte offset in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// 1-based line (text files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// 1-based column in bytes (text files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

impl Location {
    /// The place a message names, in the shapes the libraries write: a leading
    /// `line N: ` (the Quake III `.skin` and `animation.cfg` findings), a trailing
    /// `(line L, column C)` or `(at byte N)`. `None` when it names none.
    pub fn in_message(message: &str) -> Option<Location> {
        let number = |s: &str| s.trim().parse::<u64>().ok();
        if let Some(rest) = message.strip_prefix("line ")
            && let Some(line) = rest.split_once(':').and_then(|(n, _)| number(n))
        {
            return Some(Location {
                line: Some(line),
                ..Location::default()
            });
        }
        let inner = message.strip_suffix(')')?;
        let (_, last) = inner.rsplit_once('(')?;
        if let Some(n) = last.strip_prefix("at byte ") {
            return Some(Location {
                offset: Some(number(n)?),
                ..Location::default()
            });
        }
        let (l, c) = last.strip_prefix("line ")?.split_once(", column ")?;
        Some(Location {
            line: Some(number(l)?),
            column: Some(number(c)?),
            ..Location::default()
        })
    }
}

impl Finding {
    /// A side file `file` that does not parse: `engine` refuses it, as `err` says.
    pub fn refused(engine: Engine, file: &str, err: &dyn fmt::Display) -> Finding {
        let message = err.to_string();
        Finding {
            engine,
            file: Some(file.to_owned()),
            severity: Severity::Refused,
            code: "side-file-refused",
            location: Location::in_message(&message),
            message,
        }
    }

    /// A library finding of any format, about the model or the side file `file`.
    /// The location is the one the message names ([`Location::in_message`]).
    pub fn of(f: &impl crate::idmodel::core::Finding, file: Option<&str>) -> Finding {
        let message = f.message().to_string();
        Finding {
            engine: f.engine(),
            file: file.map(str::to_owned),
            severity: f.severity(),
            code: f.code(),
            location: Location::in_message(&message),
            message,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.engine)?;
        if let Some(file) = &self.file {
            write!(f, "{file}: ")?;
        }
        write!(f, "{}: {}", self.severity, self.message)
    }
}

/// The engines of `all` (a format crate's `ENGINES`) to check: all of them, or only
/// `only` when it is one of them.
pub fn engines(all: &'static [Engine], only: Option<Engine>) -> impl Iterator<Item = Engine> {
    all.iter()
        .copied()
        .filter(move |e| only.is_none_or(|o| o == *e))
}
