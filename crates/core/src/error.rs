//! The small, positioned error type shared by the binary formats.

use core::fmt;

/// What went wrong while reading a binary model.
///
/// Every variant carries the bad value, so a message can say *what* was wrong;
/// [`Error`] adds *where* (a byte offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The four magic bytes are not the ones this format expects.
    BadMagic([u8; 4]),
    /// The magic is that of a different, known file kind (for example a Half-Life `.mdl`).
    WrongFormat {
        /// Human-readable name of what the bytes actually are.
        found: &'static str,
    },
    /// The version field holds a value this format does not define.
    UnsupportedVersion(i32),
    /// A block runs past the end of the input.
    Truncated {
        /// Bytes the block needs, counted from the error's offset.
        needed: u64,
        /// Bytes the input still has from the error's offset.
        available: u64,
    },
    /// A count is negative, zero where the engine requires at least one, or otherwise invalid.
    BadCount {
        /// Which count (for example `"numverts"`).
        what: &'static str,
        /// The value read from the file.
        value: i64,
    },
    /// A count exceeds a limit that this library enforces to stay safe.
    TooMany {
        /// Which count.
        what: &'static str,
        /// The value read from the file.
        count: u64,
        /// The largest accepted value.
        max: u64,
    },
    /// An offset field points outside the input or into the header.
    BadOffset {
        /// Which offset field (for example `"ofs_frames"`).
        what: &'static str,
        /// The value read from the file.
        value: i64,
    },
    /// An index refers outside the array it indexes.
    IndexOutOfRange {
        /// What kind of index (for example `"triangle vertex index"`).
        what: &'static str,
        /// The value read from the file.
        index: i64,
        /// The length of the indexed array (valid indices are `0..len`).
        len: u64,
    },
    /// A field holds a value the format does not allow.
    BadValue {
        /// Which field.
        what: &'static str,
        /// The value read from the file (sign-extended or widened).
        value: i64,
    },
    /// The input is structurally invalid in a way described by the message.
    Invalid(&'static str),
}

/// An error found at a byte offset of the input.
///
/// `Error` is small and `Copy`; its [`Display`](fmt::Display) output is a lowercase
/// sentence such as `truncated: needed 108 bytes, 12 available (at byte 0)`.
///
/// ```
/// use idmodel_core::{Error, ErrorKind};
/// let e = Error::new(ErrorKind::UnsupportedVersion(14), 4);
/// assert_eq!(e.offset(), 4);
/// assert_eq!(e.to_string(), "unsupported version 14 (at byte 4)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Error {
    kind: ErrorKind,
    offset: u64,
}

impl Error {
    /// An error of `kind` at byte `offset` of the input.
    pub const fn new(kind: ErrorKind, offset: u64) -> Self {
        Self { kind, offset }
    }

    /// An error of `kind` at a `usize` byte offset.
    pub fn at(kind: ErrorKind, offset: usize) -> Self {
        Self {
            kind,
            offset: u64::try_from(offset).unwrap_or(u64::MAX),
        }
    }

    /// What went wrong.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The byte offset in the input where the problem was found.
    pub const fn offset(&self) -> u64 {
        self.offset
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ErrorKind::BadMagic(m) => {
                write!(f, "bad magic ")?;
                write_magic(f, m)
            }
            ErrorKind::WrongFormat { found } => write!(f, "wrong format: found {found}"),
            ErrorKind::UnsupportedVersion(v) => write!(f, "unsupported version {v}"),
            ErrorKind::Truncated { needed, available } => {
                write!(f, "truncated: needed {needed} bytes, {available} available")
            }
            ErrorKind::BadCount { what, value } => write!(f, "invalid {what} {value}"),
            ErrorKind::TooMany { what, count, max } => {
                write!(f, "too many {what}: {count} (at most {max})")
            }
            ErrorKind::BadOffset { what, value } => write!(f, "{what} {value} is out of bounds"),
            ErrorKind::IndexOutOfRange { what, index, len } => {
                write!(f, "{what} {index} out of range (0..{len})")
            }
            ErrorKind::BadValue { what, value } => write!(f, "invalid {what} {value}"),
            ErrorKind::Invalid(msg) => f.write_str(msg),
        }
    }
}

fn write_magic(f: &mut fmt::Formatter<'_>, m: [u8; 4]) -> fmt::Result {
    f.write_str("\"")?;
    for b in m {
        if b.is_ascii_graphic() || b == b' ' {
            write!(f, "{}", char::from(b))?;
        } else {
            write!(f, "\\x{b:02x}")?;
        }
    }
    f.write_str("\"")
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.kind, self.offset)
    }
}

impl core::error::Error for Error {}

/// Shorthand for `Result<T, idmodel_core::Error>`.
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
mod tests {
    extern crate alloc;
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn display_is_lowercase_and_positioned() {
        let e = Error::new(ErrorKind::BadMagic(*b"ID\x00\xff"), 0);
        assert_eq!(e.to_string(), "bad magic \"ID\\x00\\xff\" (at byte 0)");
        let e = Error::new(
            ErrorKind::Truncated {
                needed: 108,
                available: 12,
            },
            0,
        );
        assert_eq!(
            e.to_string(),
            "truncated: needed 108 bytes, 12 available (at byte 0)"
        );
        let e = Error::at(
            ErrorKind::IndexOutOfRange {
                what: "triangle vertex index",
                index: 7,
                len: 3,
            },
            40,
        );
        assert_eq!(
            e.to_string(),
            "triangle vertex index 7 out of range (0..3) (at byte 40)"
        );
    }

    #[test]
    fn error_is_small() {
        assert!(core::mem::size_of::<Error>() <= 48);
    }
}
