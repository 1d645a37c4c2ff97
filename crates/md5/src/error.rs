//! Positioned errors for the MD5 text formats.
//!
//! An [`Md5Error`] says what was wrong, carries the bad value, and says where: a byte
//! offset plus a 1-based line and column. The line and column are computed only when an
//! error is built (the lexer never counts lines on the hot path).

use core::fmt;

use crate::types::TokenKind;

/// What the parser wanted when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Expected {
    /// An exact keyword or punctuation (`ExpectTokenString`), such as `"numJoints"` or `"("`.
    Keyword(&'static str),
    /// An integer (`ParseInt`).
    Integer,
    /// A floating-point number (`ParseFloat`).
    Float,
    /// An integer after a `-` sign (`ParseInt` requires `TT_INTEGER` there, so `-1.0` fails).
    IntegerAfterMinus,
    /// Any number after a `-` sign (`ParseFloat`).
    NumberAfterMinus,
    /// Any token (a name, the command line, a shader).
    Token,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expected::Keyword(k) => write!(f, "'{k}'"),
            Expected::Integer => f.write_str("an integer"),
            Expected::Float => f.write_str("a number"),
            Expected::IntegerAfterMinus => f.write_str("an integer after '-'"),
            Expected::NumberAfterMinus => f.write_str("a number after '-'"),
            Expected::Token => f.write_str("a token"),
        }
    }
}

/// Capacity of the token excerpt kept in a [`Found`].
pub const FOUND_CAPACITY: usize = 24;

/// What the parser found instead: the end of the input or (the start of) a token.
///
/// The token text is copied (at most [`FOUND_CAPACITY`] bytes) so the error stays small,
/// `Copy` and free of lifetimes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Found {
    kind: Option<TokenKind>,
    text: [u8; FOUND_CAPACITY],
    len: u8,
    truncated: bool,
}

impl Found {
    /// The end of the input (or a NUL byte, which ends the text for Doom's lexer).
    pub const END: Self = Self {
        kind: None,
        text: [0; FOUND_CAPACITY],
        len: 0,
        truncated: false,
    };

    /// A token of `kind` whose text starts with `bytes`.
    pub fn token(kind: TokenKind, bytes: impl IntoIterator<Item = u8>) -> Self {
        let mut text = [0u8; FOUND_CAPACITY];
        let mut len = 0usize;
        let mut truncated = false;
        for b in bytes {
            match text.get_mut(len) {
                Some(slot) => {
                    *slot = b;
                    len = len.saturating_add(1);
                }
                None => {
                    truncated = true;
                    break;
                }
            }
        }
        Self {
            kind: Some(kind),
            text,
            len: u8::try_from(len).unwrap_or(u8::MAX),
            truncated,
        }
    }

    /// The kind of token found, or `None` at the end of the input.
    pub const fn kind(&self) -> Option<TokenKind> {
        self.kind
    }

    /// The first bytes of the token found (empty at the end of the input).
    pub fn bytes(&self) -> &[u8] {
        self.text.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// True when the token was longer than the excerpt.
    pub const fn is_truncated(&self) -> bool {
        self.truncated
    }
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.is_none() {
            return f.write_str("the end of the file");
        }
        f.write_str("'")?;
        idmodel_core::bytes::write_escaped(f, self.bytes())?;
        if self.truncated {
            f.write_str("…")?;
        }
        f.write_str("'")
    }
}

/// What went wrong while reading an MD5 text file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Md5ErrorKind {
    /// A token other than the one the grammar requires (Doom: "expected … but found …").
    Unexpected {
        /// What the grammar wanted.
        expected: Expected,
        /// What the file has.
        found: Found,
    },
    /// `MD5Version` is not 10.
    UnsupportedVersion(i32),
    /// A count is negative (or zero where Doom requires at least one) or too large.
    BadCount {
        /// Which count (`"numJoints"`, `"numverts"`, …).
        what: &'static str,
        /// The value read.
        value: i64,
    },
    /// An index outside the array it refers to.
    IndexOutOfRange {
        /// What kind of index (`"triangle vertex index"`, `"weight joint"`, …).
        what: &'static str,
        /// The value read.
        index: i64,
        /// The length of the indexed array (valid indices are `0..len`).
        len: u64,
    },
    /// A joint's parent does not come before it (Doom 3's md5mesh loader accepts forward
    /// references below `numJoints − 1` and then computes a garbage parent-relative pose;
    /// the md5anim loader refuses them, and so does this library for both).
    BadParent {
        /// The joint index.
        joint: u32,
        /// The parent read.
        parent: i32,
    },
    /// An md5anim joint other than joint 0 has no parent ("Animations may have only one
    /// root joint").
    SecondRoot {
        /// The joint index.
        joint: u32,
    },
    /// md5anim flags with bits outside `0..63` ("Invalid anim bits").
    BadAnimBits {
        /// The joint index.
        joint: u32,
        /// The flags read.
        flags: i32,
    },
    /// A joint's animated components run outside `0..numAnimatedComponents`.
    BadComponentRange {
        /// The joint index.
        joint: u32,
        /// The first component read.
        first: i32,
        /// How many components the flags select.
        count: u32,
        /// `numAnimatedComponents`.
        num_animated: u32,
    },
    /// `frame N` with N out of order ("Expected frame number").
    FrameNumber {
        /// The frame number required (frames are numbered 0, 1, 2, …).
        expected: u32,
        /// The number read.
        found: i32,
    },
    /// A vertex with `numWeights` 0 ("Vertex without any joint weights").
    VertexWithoutWeights {
        /// The vertex index in its mesh.
        vertex: u32,
    },
    /// A vertex whose weight range leaves `0..numweights` (a Doom warning followed by an
    /// out-of-bounds read; refused here).
    WeightRange {
        /// The vertex index in its mesh.
        vertex: u32,
        /// Its first weight.
        first: i32,
        /// Its weight count.
        count: i32,
        /// The mesh's `numweights`, or `None` when the first weight or the count is
        /// negative (then it is refused before `numweights` is read).
        num_weights: Option<u32>,
    },
    /// A camera cut outside `1..numFrames` ("Invalid camera cut").
    BadCameraCut {
        /// The cut read.
        cut: i32,
        /// The camera's `numFrames`.
        num_frames: u32,
    },
    /// With [`crate::ParseOptions::require_element_indices`]: the number after `vert`,
    /// `tri` or `weight` is not the line's position (Doom ignores it).
    ElementIndex {
        /// `"vert"`, `"tri"` or `"weight"`.
        what: &'static str,
        /// The line's position in its list.
        expected: u32,
        /// The number written.
        found: i32,
    },
    /// A newline inside a quoted string.
    NewlineInString,
    /// A quoted string that reaches the end of the input.
    MissingTrailingQuote,
    /// A number with two or more dots (`1.2.3`).
    MoreThanOneDot,
    /// A floating-point exception literal (`1.#INF`, `1.#IND`, `1.#QNAN` …), which Doom
    /// refuses for MD5 files.
    FloatException,
    /// A character that is no token at all (`@`, `` ` ``, DEL).
    UnknownPunctuation(u8),
}

impl fmt::Display for Md5ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Md5ErrorKind::Unexpected { expected, found } => {
                write!(f, "expected {expected} but found {found}")
            }
            Md5ErrorKind::UnsupportedVersion(v) => {
                write!(f, "unsupported MD5Version {v} (only 10 exists)")
            }
            Md5ErrorKind::BadCount { what, value } => write!(f, "invalid {what} {value}"),
            Md5ErrorKind::IndexOutOfRange { what, index, len } => {
                write!(f, "{what} {index} out of range (0..{len})")
            }
            Md5ErrorKind::BadParent { joint, parent } => write!(
                f,
                "joint {joint} has parent {parent}, which does not come before it"
            ),
            Md5ErrorKind::SecondRoot { joint } => write!(
                f,
                "joint {joint} has no parent: an md5anim may have only one root joint"
            ),
            Md5ErrorKind::BadAnimBits { joint, flags } => {
                write!(
                    f,
                    "joint {joint} has invalid animation flags {flags} (0..=63)"
                )
            }
            Md5ErrorKind::BadComponentRange {
                joint,
                first,
                count,
                num_animated,
            } => write!(
                f,
                "joint {joint} animates {count} components from {first}, outside 0..{num_animated}"
            ),
            Md5ErrorKind::FrameNumber { expected, found } => {
                write!(f, "expected frame number {expected} but found {found}")
            }
            Md5ErrorKind::VertexWithoutWeights { vertex } => {
                write!(f, "vertex {vertex} has no joint weights")
            }
            Md5ErrorKind::WeightRange {
                vertex,
                first,
                count,
                num_weights,
            } => match num_weights {
                Some(n) => write!(
                    f,
                    "vertex {vertex} uses {count} weights from {first}, outside 0..{n}"
                ),
                None => write!(
                    f,
                    "vertex {vertex} uses {count} weights from {first}: negative"
                ),
            },
            Md5ErrorKind::BadCameraCut { cut, num_frames } => {
                write!(f, "camera cut {cut} outside 1..{num_frames}")
            }
            Md5ErrorKind::ElementIndex {
                what,
                expected,
                found,
            } => write!(
                f,
                "'{what} {found}' is element {expected} (Doom ignores the number; Assimp stores it at {found})"
            ),
            Md5ErrorKind::NewlineInString => f.write_str("newline inside a quoted string"),
            Md5ErrorKind::MissingTrailingQuote => {
                f.write_str("quoted string without its closing quote")
            }
            Md5ErrorKind::MoreThanOneDot => f.write_str("more than one dot in a number"),
            Md5ErrorKind::FloatException => {
                f.write_str("floating-point exception literal (1.#INF, 1.#IND, …) in a number")
            }
            Md5ErrorKind::UnknownPunctuation(c) => {
                if c.is_ascii_graphic() {
                    write!(f, "unknown punctuation '{}'", char::from(c))
                } else {
                    write!(f, "unknown punctuation byte 0x{c:02x}")
                }
            }
        }
    }
}

/// An error in an MD5 text file, with its byte offset, line and column.
///
/// ```
/// let e = idmodel_md5::mesh::parse(b"MD5Version 10\njoints MD5Version").unwrap_err();
/// assert_eq!((e.line(), e.column()), (2, 1));
/// assert_eq!(
///     e.to_string(),
///     "expected 'commandline' but found 'joints' (line 2, column 1)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Md5Error {
    kind: Md5ErrorKind,
    offset: usize,
    line: u32,
    column: u32,
}

impl Md5Error {
    /// An error of `kind` at byte `offset` of `src`; computes the line and column.
    pub fn new(kind: Md5ErrorKind, src: &[u8], offset: usize) -> Self {
        let (line, column) = line_column(src, offset);
        Self {
            kind,
            offset,
            line,
            column,
        }
    }

    /// What went wrong.
    pub const fn kind(&self) -> Md5ErrorKind {
        self.kind
    }

    /// The byte offset of the problem.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The 1-based line of the problem.
    pub const fn line(&self) -> u32 {
        self.line
    }

    /// The 1-based column (in bytes) of the problem.
    pub const fn column(&self) -> u32 {
        self.column
    }
}

/// The 1-based (line, column) of byte `offset` in `src`; only called when an error is built.
pub fn line_column(src: &[u8], offset: usize) -> (u32, u32) {
    idmodel_core::bytes::line_column(src, offset)
}

impl fmt::Display for Md5Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (line {}, column {})",
            self.kind, self.line, self.column
        )
    }
}

impl core::error::Error for Md5Error {}

impl From<Md5Error> for idmodel_core::Error {
    /// Maps onto the shared error type (byte offset kept; the token excerpt is lost).
    fn from(e: Md5Error) -> Self {
        use idmodel_core::ErrorKind as K;
        let bad = |what: &'static str, value: i32| K::BadValue {
            what,
            value: i64::from(value),
        };
        let kind = match e.kind {
            Md5ErrorKind::UnsupportedVersion(v) => K::UnsupportedVersion(v),
            Md5ErrorKind::BadCount { what, value } => K::BadCount { what, value },
            Md5ErrorKind::IndexOutOfRange { what, index, len } => {
                K::IndexOutOfRange { what, index, len }
            }
            Md5ErrorKind::BadParent { parent, .. } => bad("joint parent", parent),
            Md5ErrorKind::SecondRoot { .. } => K::Invalid("an md5anim may have only one root"),
            Md5ErrorKind::BadAnimBits { flags, .. } => bad("animation flags", flags),
            Md5ErrorKind::BadComponentRange { first, .. } => bad("first component", first),
            Md5ErrorKind::FrameNumber { found, .. } => bad("frame number", found),
            Md5ErrorKind::VertexWithoutWeights { .. } => K::Invalid("vertex without weights"),
            Md5ErrorKind::WeightRange { first, .. } => bad("vertex weight range", first),
            Md5ErrorKind::BadCameraCut { cut, .. } => bad("camera cut", cut),
            Md5ErrorKind::Unexpected { .. } => K::Invalid("unexpected token"),
            Md5ErrorKind::ElementIndex { found, .. } => bad("element index", found),
            Md5ErrorKind::NewlineInString => K::Invalid("newline inside string"),
            Md5ErrorKind::MissingTrailingQuote => K::Invalid("missing trailing quote"),
            Md5ErrorKind::MoreThanOneDot => K::Invalid("more than one dot in number"),
            Md5ErrorKind::FloatException => K::Invalid("floating-point exception literal"),
            Md5ErrorKind::UnknownPunctuation(c) => K::BadValue {
                what: "punctuation byte",
                value: i64::from(c),
            },
        };
        idmodel_core::Error::at(kind, e.offset)
    }
}

/// Shorthand for results of this crate's parsers.
pub type Result<T, E = Md5Error> = core::result::Result<T, E>;
