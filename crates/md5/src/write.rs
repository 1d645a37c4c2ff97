//! Text output shared by the three writers: numbers that Doom's lexer reads back to the
//! same `f32`, quoted strings it can read, and the byte counters behind `written_size`
//! and `write_into`.

use core::fmt::{self, Write};

use crate::lexer::{CommentRule, Lexer, TokenKind};

/// Why a model cannot be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WriteError {
    /// A NaN or infinite number: Doom's lexer has no token for it.
    NotFinite {
        /// Which field.
        what: &'static str,
    },
    /// A string that cannot be quoted: it contains `"`, a newline or a NUL byte.
    BadString {
        /// Which field.
        what: &'static str,
    },
    /// A value the reader would refuse (an index out of range, a parent that does not
    /// come first, a count above `i32::MAX` …).
    Invalid {
        /// Which field.
        what: &'static str,
        /// The element index (joint, vertex, frame …).
        index: u64,
        /// The bad value.
        value: i64,
    },
    /// A number for which no decimal text reads back to the same `f32` with Doom's
    /// accumulation (never seen; reported rather than written wrong).
    Unrepresentable {
        /// The bits of the value.
        bits: u32,
    },
    /// `write_into` was given a buffer that is too small.
    BufferTooSmall {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// The `fmt::Write` sink failed.
    Fmt,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WriteError::NotFinite { what } => write!(f, "{what} is not a finite number"),
            WriteError::BadString { what } => {
                write!(f, "{what} contains a quote, a newline or a NUL byte")
            }
            WriteError::Invalid { what, index, value } => {
                write!(f, "invalid {what} {value} (element {index})")
            }
            WriteError::Unrepresentable { bits } => write!(
                f,
                "no decimal text reads back to the float with bits 0x{bits:08x}"
            ),
            WriteError::BufferTooSmall { needed, available } => {
                write!(
                    f,
                    "buffer too small: needed {needed} bytes, {available} available"
                )
            }
            WriteError::Fmt => f.write_str("the output sink failed"),
        }
    }
}

impl core::error::Error for WriteError {}

impl From<fmt::Error> for WriteError {
    fn from(_: fmt::Error) -> Self {
        WriteError::Fmt
    }
}

/// Appends `s` to `buf` after its first `len` bytes; fails when it does not fit.
fn append(buf: &mut [u8], len: &mut usize, s: &str) -> fmt::Result {
    let end = len.checked_add(s.len()).ok_or(fmt::Error)?;
    let slot = buf.get_mut(*len..end).ok_or(fmt::Error)?;
    slot.copy_from_slice(s.as_bytes());
    *len = end;
    Ok(())
}

/// A small stack buffer implementing `fmt::Write`.
struct StackBuf {
    buf: [u8; 64],
    len: usize,
}

impl StackBuf {
    const fn new() -> Self {
        Self {
            buf: [0; 64],
            len: 0,
        }
    }

    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }

    fn as_str(&self) -> &str {
        core::str::from_utf8(self.bytes()).unwrap_or("")
    }
}

impl Write for StackBuf {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        append(&mut self.buf[..], &mut self.len, s)
    }
}

/// The `f32` Doom's lexer reads from `text`, if `text` is exactly one number token.
pub fn doom_value(text: &[u8]) -> Option<f32> {
    let mut lex = Lexer::new(text, false, CommentRule::Strict);
    let tok = lex.next_token().ok()??;
    if !matches!(tok.kind, TokenKind::Integer(_) | TokenKind::Float) || lex.pos() != text.len() {
        return None;
    }
    Some(tok.float_value())
}

/// Writes `x` so that Doom's `ParseFloat` (and this crate's reader) gives back the same
/// bits: the shortest decimal form when it reads back exactly, else an exponent form,
/// else more digits. `-0` keeps its sign. No `+`, no uppercase `E`.
///
/// ```
/// use idmodel_md5::write::{doom_value, write_f32};
/// let mut s = String::new();
/// write_f32(&mut s, -0.5, "x").unwrap();
/// assert_eq!(s, "-0.5");
/// let mut s = String::new();
/// write_f32(&mut s, 1e-30, "x").unwrap();
/// assert_eq!(doom_value(s.as_bytes()), Some(1e-30));
/// ```
pub fn write_f32<W: Write>(w: &mut W, x: f32, what: &'static str) -> Result<(), WriteError> {
    if !x.is_finite() {
        return Err(WriteError::NotFinite { what });
    }
    let a = libm::fabsf(x);
    let mut buf = StackBuf::new();
    let found = candidates(a, &mut buf);
    if !found {
        return Err(WriteError::Unrepresentable { bits: x.to_bits() });
    }
    if x.is_sign_negative() {
        w.write_char('-')?;
    }
    w.write_str(buf.as_str())?;
    Ok(())
}

fn candidates(a: f32, buf: &mut StackBuf) -> bool {
    let ok = |buf: &StackBuf| doom_value(buf.bytes()).is_some_and(|v| v.to_bits() == a.to_bits());
    // 1. Shortest round-trip decimal (Rust's `Display`), plain digits.
    buf.len = 0;
    if write!(buf, "{a}").is_ok() {
        if ok(buf) {
            return true;
        }
        // Integers above 2³² would wrap as integer tokens: add a dot.
        if !buf.bytes().contains(&b'.') && buf.write_str(".0").is_ok() && ok(buf) {
            return true;
        }
    }
    // 2. Shortest with an exponent (`1e-30`, `1.5e20`): lowercase `e`, no `+`.
    buf.len = 0;
    if write!(buf, "{a:e}").is_ok() && ok(buf) {
        return true;
    }
    // 3. More digits.
    for prec in 8..=17usize {
        buf.len = 0;
        if write!(buf, "{a:.prec$e}").is_ok() && ok(buf) {
            return true;
        }
    }
    false
}

/// Writes `s` in double quotes; refuses text Doom's lexer cannot read back.
pub fn write_quoted<W: Write>(w: &mut W, s: &str, what: &'static str) -> Result<(), WriteError> {
    if s.bytes().any(|b| matches!(b, b'"' | b'\n' | b'\0')) {
        return Err(WriteError::BadString { what });
    }
    w.write_char('"')?;
    w.write_str(s)?;
    w.write_char('"')?;
    Ok(())
}

/// A `fmt::Write` that only counts bytes (for `written_size`).
#[derive(Debug, Default)]
pub struct Counter(pub usize);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.checked_add(s.len()).ok_or(fmt::Error)?;
        Ok(())
    }
}

/// A `fmt::Write` into a byte slice (for `write_into`); fails when full.
#[derive(Debug)]
pub struct SliceWriter<'b> {
    buf: &'b mut [u8],
    len: usize,
}

impl<'b> SliceWriter<'b> {
    /// A writer at the start of `buf`.
    pub fn new(buf: &'b mut [u8]) -> Self {
        Self { buf, len: 0 }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Write for SliceWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        append(&mut self.buf[..], &mut self.len, s)
    }
}

#[cfg(feature = "alloc")]
/// Runs `f` twice: once counting, once into `buf`; the shared body of the `write_into`s.
pub(crate) fn into_slice(
    buf: &mut [u8],
    mut f: impl FnMut(&mut dyn Write) -> Result<(), WriteError>,
) -> Result<usize, WriteError> {
    let mut c = Counter(0);
    f(&mut c)?;
    if c.0 > buf.len() {
        return Err(WriteError::BufferTooSmall {
            needed: c.0,
            available: buf.len(),
        });
    }
    let mut w = SliceWriter::new(buf);
    f(&mut w)?;
    Ok(w.len)
}

#[cfg(feature = "alloc")]
/// A count or index as `i32` for the text (the reader reads `i32`s).
pub(crate) fn as_i32(n: usize, what: &'static str, index: usize) -> Result<i32, WriteError> {
    i32::try_from(n).map_err(|_| invalid(what, index, i64::try_from(n).unwrap_or(i64::MAX)))
}

#[cfg(feature = "alloc")]
/// A value the reader would refuse: `what`, its `index`, the `value`.
pub(crate) fn invalid(what: &'static str, index: usize, value: i64) -> WriteError {
    WriteError::Invalid {
        what,
        index: u64::try_from(index).unwrap_or(u64::MAX),
        value,
    }
}

#[cfg(feature = "alloc")]
/// The first lines of every MD5 file: `MD5Version 10` and the quoted command line.
pub(crate) fn write_header<W: Write + ?Sized>(
    w: &mut Dyn<'_, W>,
    commandline: &str,
) -> Result<(), WriteError> {
    w.write_str("MD5Version 10\ncommandline ")?;
    write_quoted(w, commandline, "commandline")
}

#[cfg(feature = "alloc")]
/// `( a b c )` with [`write_f32`].
pub(crate) fn write_vec<W: Write + ?Sized>(
    w: &mut W,
    v: &[f32],
    what: &'static str,
) -> Result<(), WriteError> {
    w.write_str("( ")?;
    for &x in v {
        write_f32(&mut Dyn(w), x, what)?;
        w.write_char(' ')?;
    }
    w.write_char(')')?;
    Ok(())
}

#[cfg(feature = "alloc")]
/// Adapts `&mut dyn Write` (or any `?Sized` writer) to a sized `Write`.
pub(crate) struct Dyn<'w, W: Write + ?Sized>(pub &'w mut W);

#[cfg(feature = "alloc")]
impl<W: Write + ?Sized> Write for Dyn<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.write_str(s)
    }
}

#[cfg(feature = "alloc")]
/// The three entry points of each writer, `written_size`, `write_into` and `write`, over the
/// module's `write_fmt(&T, &mut impl Write)`.
macro_rules! entry_points {
    ($t:ty) => {
        /// The size in bytes of [`write()`]'s output.
        pub fn written_size(m: &$t) -> core::result::Result<usize, WriteError> {
            let mut c = crate::write::Counter(0);
            write_fmt(m, &mut c)?;
            Ok(c.0)
        }

        /// Writes into `buf`; returns the bytes written.
        pub fn write_into(m: &$t, buf: &mut [u8]) -> core::result::Result<usize, WriteError> {
            crate::write::into_slice(buf, |w| write_fmt(m, w))
        }

        /// Writes to a new `Vec<u8>`.
        pub fn write(m: &$t) -> core::result::Result<alloc::vec::Vec<u8>, WriteError> {
            let mut s = alloc::string::String::new();
            write_fmt(m, &mut s)?;
            Ok(s.into_bytes())
        }
    };
}
#[cfg(feature = "alloc")]
pub(crate) use entry_points;
