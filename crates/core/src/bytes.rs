//! Little-endian byte reading: bounds-checked casts of wire structs, a cursor that
//! tracks its offset, file-count conversion, and NUL-padded name fields.
//!
//! Every function here turns zerocopy's cast errors into [`Error`]s that carry the byte
//! offset and the sizes involved; zerocopy's types never appear in a signature.

use core::fmt;

use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

use crate::error::{Error, ErrorKind, Result};

/// Wire types the readers can borrow from a byte slice: plain, alignment-1 structs.
///
/// Implemented for every type with zerocopy's `FromBytes + KnownLayout + Immutable +
/// Unaligned` derives.
pub trait Wire: FromBytes + KnownLayout + Immutable + Unaligned {}
impl<T: FromBytes + KnownLayout + Immutable + Unaligned> Wire for T {}

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// A `Truncated` error for a block of `needed` bytes at `offset`.
///
/// The error always points inside the input: a block that starts past the end (an
/// offset field such as MD3's `ofsXyzNormals` set to 0x7F7F7F7F) is reported at the end
/// of the input, needing the gap plus the block, with nothing available.
fn truncated(offset: usize, needed: u64, data_len: usize) -> Error {
    if offset > data_len {
        let gap = to_u64(offset.saturating_sub(data_len));
        return Error::at(
            ErrorKind::Truncated {
                needed: needed.saturating_add(gap),
                available: 0,
            },
            data_len,
        );
    }
    let available = data_len.saturating_sub(offset);
    Error::at(
        ErrorKind::Truncated {
            needed,
            available: to_u64(available),
        },
        offset,
    )
}

/// Borrows one `T` at `offset` of `data`.
///
/// ```
/// use idmodel_core::bytes::read_at;
/// use zerocopy::little_endian::I32;
/// let data = [0u8, 1, 0, 0, 0];
/// assert_eq!(read_at::<I32>(&data, 1).unwrap().get(), 1);
/// assert!(read_at::<I32>(&data, 2).is_err());
/// ```
pub fn read_at<T: Wire>(data: &[u8], offset: usize) -> Result<&T> {
    let rest = data
        .get(offset..)
        .ok_or_else(|| truncated(offset, to_u64(size_of::<T>()), data.len()))?;
    match T::ref_from_prefix(rest) {
        Ok((value, _)) => Ok(value),
        Err(_) => Err(truncated(offset, to_u64(size_of::<T>()), data.len())),
    }
}

/// Borrows `count` consecutive `T`s starting at `offset` of `data`.
///
/// The size is computed with checked arithmetic, so a hostile count cannot overflow.
pub fn slice_at<T: Wire>(data: &[u8], offset: usize, count: usize) -> Result<&[T]> {
    let needed = size_of::<T>().checked_mul(count).map_or(u64::MAX, to_u64);
    let rest = data
        .get(offset..)
        .ok_or_else(|| truncated(offset, needed, data.len()))?;
    match <[T]>::ref_from_prefix_with_elems(rest, count) {
        Ok((value, _)) => Ok(value),
        Err(_) => Err(truncated(offset, needed, data.len())),
    }
}

/// Borrows `len` raw bytes at `offset` of `data`.
pub fn bytes_at(data: &[u8], offset: usize, len: usize) -> Result<&[u8]> {
    offset
        .checked_add(len)
        .and_then(|end| data.get(offset..end))
        .ok_or_else(|| truncated(offset, to_u64(len), data.len()))
}

/// Converts a count read from a file to `usize`, refusing negative values.
///
/// `at` is the byte offset of the field, used in the error.
pub fn count(value: i32, what: &'static str, at: usize) -> Result<usize> {
    usize::try_from(value).map_err(|_| {
        Error::at(
            ErrorKind::BadCount {
                what,
                value: i64::from(value),
            },
            at,
        )
    })
}

/// Converts a count read from a file to `usize`, refusing values below 1.
pub fn positive_count(value: i32, what: &'static str, at: usize) -> Result<usize> {
    match count(value, what, at)? {
        0 => Err(Error::at(ErrorKind::BadCount { what, value: 0 }, at)),
        n => Ok(n),
    }
}

/// Converts an offset read from a file to `usize`, refusing negative values.
pub fn offset(value: i32, what: &'static str, at: usize) -> Result<usize> {
    usize::try_from(value).map_err(|_| {
        Error::at(
            ErrorKind::BadOffset {
                what,
                value: i64::from(value),
            },
            at,
        )
    })
}

/// A forward-only reader over a byte slice that knows its offset.
///
/// ```
/// use idmodel_core::bytes::Cursor;
/// use zerocopy::little_endian::{I16, I32};
/// let data = [7u8, 0, 0, 0, 2, 0, 3, 0];
/// let mut c = Cursor::new(&data);
/// assert_eq!(c.read::<I32>().unwrap().get(), 7);
/// let pair = c.read_slice::<I16>(2).unwrap();
/// assert_eq!((pair[0].get(), pair[1].get()), (2, 3));
/// assert_eq!(c.position(), 8);
/// assert!(c.read::<I16>().is_err());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `data`.
    pub const fn new(data: &'a [u8]) -> Self {
        Self { data, pos: 0 }
    }

    /// A cursor at `pos` of `data` (a position past the end makes every read fail).
    pub const fn at(data: &'a [u8], pos: usize) -> Self {
        Self { data, pos }
    }

    /// The current byte offset from the start of the input.
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// The whole input.
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Bytes left from the current position.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// The unread bytes.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// Reads one `T` and advances past it.
    pub fn read<T: Wire>(&mut self) -> Result<&'a T> {
        let v = read_at::<T>(self.data, self.pos)?;
        self.pos = self.pos.saturating_add(size_of::<T>());
        Ok(v)
    }

    /// Reads `count` consecutive `T`s and advances past them.
    pub fn read_slice<T: Wire>(&mut self, count: usize) -> Result<&'a [T]> {
        let v = slice_at::<T>(self.data, self.pos, count)?;
        self.pos = self.pos.saturating_add(size_of_val(v));
        Ok(v)
    }

    /// Reads `len` raw bytes and advances past them.
    pub fn read_bytes(&mut self, len: usize) -> Result<&'a [u8]> {
        let v = bytes_at(self.data, self.pos, len)?;
        self.pos = self.pos.saturating_add(len);
        Ok(v)
    }

    /// Reads a little-endian `i32` and advances.
    pub fn read_i32(&mut self) -> Result<i32> {
        Ok(self.read::<zerocopy::little_endian::I32>()?.get())
    }

    /// Reads a little-endian `f32` and advances.
    pub fn read_f32(&mut self) -> Result<f32> {
        Ok(self.read::<zerocopy::little_endian::F32>()?.get())
    }
}

/// Byte `i` of a text read as a C string: past the end it reads as the NUL that would
/// end it there (the engines' parsers, `Com_Parse` and CubeScript's, stop at a NUL).
///
/// ```
/// use idmodel_core::bytes::byte_or_nul;
/// assert_eq!(byte_or_nul(b"ab", 1), b'b');
/// assert_eq!(byte_or_nul(b"ab", 2), 0);
/// ```
pub fn byte_or_nul(text: &[u8], i: usize) -> u8 {
    text.get(i).copied().unwrap_or(0)
}

/// The bytes of a NUL-padded name field up to (not including) the first NUL.
///
/// A field with no NUL is taken whole, as the engines' `strncpy`-style copies do.
pub fn nul_terminated(field: &[u8]) -> &[u8] {
    match field.iter().position(|&b| b == 0) {
        Some(end) => field.get(..end).unwrap_or(field),
        None => field,
    }
}

/// A name borrowed from a fixed-size, NUL-padded field of the file.
///
/// The bytes are kept as stored (id's tools wrote Latin-1 and garbage after the NUL);
/// [`Name::to_str`] checks UTF-8, and `Display` shows non-ASCII bytes as `\xNN`.
///
/// ```
/// use idmodel_core::bytes::Name;
/// let n = Name::from_field(b"tag_torso\0\0junk");
/// assert_eq!(n.as_bytes(), b"tag_torso");
/// assert_eq!(n.to_str(), Some("tag_torso"));
/// assert_eq!(format!("{}", Name::from_field(b"a\xffb")), "a\\xffb");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Name<'a> {
    bytes: &'a [u8],
}

impl<'a> Name<'a> {
    /// The name in `field`, up to the first NUL.
    pub fn from_field(field: &'a [u8]) -> Self {
        Self {
            bytes: nul_terminated(field),
        }
    }

    /// The name's bytes (no NUL).
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The name as `&str` when it is valid UTF-8.
    pub fn to_str(&self) -> Option<&'a str> {
        core::str::from_utf8(self.bytes).ok()
    }

    /// True when the field starts with a NUL.
    pub const fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Length in bytes.
    pub const fn len(&self) -> usize {
        self.bytes.len()
    }
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.bytes)
    }
}

/// Writes `bytes` as text: valid UTF-8 as it is, every other byte as `\xNN` (lower-case
/// hex), the way names and tokens are shown in messages.
///
/// ```
/// struct Shown<'a>(&'a [u8]);
/// impl core::fmt::Display for Shown<'_> {
///     fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
///         idmodel_core::bytes::write_escaped(f, self.0)
///     }
/// }
/// assert_eq!(format!("{}", Shown(b"a\xffb")), "a\\xffb");
/// ```
pub fn write_escaped(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    for chunk in bytes.utf8_chunks() {
        f.write_str(chunk.valid())?;
        for b in chunk.invalid() {
            write!(f, "\\x{b:02x}")?;
        }
    }
    Ok(())
}

impl fmt::Debug for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

impl PartialEq<str> for Name<'_> {
    fn eq(&self, other: &str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<&str> for Name<'_> {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

/// The 1-based (line, column) of byte `offset` of the text `src` (columns count bytes;
/// an offset past the end is the end): for the errors of the text side files, computed
/// only when an error is built.
///
/// ```
/// use idmodel_core::bytes::line_column;
/// assert_eq!(line_column(b"ab\ncd", 4), (2, 2));
/// assert_eq!(line_column(b"ab", 0), (1, 1));
/// ```
pub fn line_column(src: &[u8], offset: usize) -> (u32, u32) {
    let before = src.get(..offset).unwrap_or(src);
    let lines = before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p.saturating_add(1));
    let column = before.len().saturating_sub(line_start);
    let to_u32 = |n: usize| u32::try_from(n.saturating_add(1)).unwrap_or(u32::MAX);
    (to_u32(lines), to_u32(column))
}

/// The first `len` bytes of an output buffer, or a `TooMany` error at offset 0 naming
/// `what` (the bytes needed) and the buffer's length.
///
/// ```
/// use idmodel_core::bytes::prefix_mut;
/// let mut buf = [0u8; 4];
/// assert_eq!(prefix_mut(&mut buf, 3, "bytes").map(|b| b.len()), Ok(3));
/// assert!(prefix_mut(&mut buf, 5, "bytes").is_err());
/// ```
pub fn prefix_mut<'b>(buf: &'b mut [u8], len: usize, what: &'static str) -> Result<&'b mut [u8]> {
    let available = buf.len();
    buf.get_mut(..len).ok_or_else(|| {
        Error::at(
            ErrorKind::TooMany {
                what,
                count: u64::try_from(len).unwrap_or(u64::MAX),
                max: u64::try_from(available).unwrap_or(u64::MAX),
            },
            0,
        )
    })
}

/// True when every index lies in `0..len`, without a branch per index (so that it
/// vectorises): for `n = len`, `i` is in range exactly when both `i` and `n - 1 - i` are
/// non-negative, so one sign bit over the OR of all of them answers (a wrapped `n - 1 - i`
/// only occurs for a negative `i`, already caught). The triangle checks of MD3 and MDL.
///
/// ```
/// use idmodel_core::bytes::indices_below;
/// assert!(indices_below([0, 2, 1], 3));
/// assert!(!indices_below([0, 3], 3));
/// assert!(!indices_below([-1], 3));
/// ```
#[inline]
pub fn indices_below(indices: impl IntoIterator<Item = i32>, len: usize) -> bool {
    let last = i32::try_from(len).unwrap_or(i32::MAX).wrapping_sub(1);
    let acc = indices
        .into_iter()
        .fold(0i32, |acc, i| acc | i | last.wrapping_sub(i));
    acc >= 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::little_endian::{I32, U16};

    /// Asserts that `e` is a truncation at `offset` that needed `needed` bytes with
    /// `available` left.
    fn assert_truncated(e: &Error, offset: u64, needed: u64, available: u64) {
        assert_eq!(
            (e.offset(), e.kind()),
            (offset, ErrorKind::Truncated { needed, available })
        );
    }

    #[test]
    fn read_at_reports_offset_and_sizes() {
        let data = [0u8; 6];
        assert_truncated(&read_at::<I32>(&data, 4).unwrap_err(), 4, 4, 2);
        assert_truncated(&read_at::<I32>(&data, 100).unwrap_err(), 6, 98, 0);
    }

    /// Regression (mutation sweep, `samples/sample.md3` with a surface's `ofsXyzNormals`
    /// filled with 0x7F): a block starting past the end was reported at its own start,
    /// 2139063083, far outside the 1268-byte input. Errors must point inside the input.
    #[test]
    fn block_past_the_end_is_reported_at_the_end_of_input() {
        let data = [0u8; 1268];
        let e = slice_at::<I32>(&data, 2_139_063_083, 3).unwrap_err();
        assert_truncated(&e, 1268, 2_139_063_083 - 1268 + 12, 0);
        let e = read_at::<I32>(&data, usize::MAX).unwrap_err();
        assert_eq!(e.offset(), 1268);
        assert_truncated(&slice_at::<I32>(&data, 1268, 1).unwrap_err(), 1268, 4, 0);
    }

    #[test]
    fn slice_at_huge_count_does_not_overflow() {
        let data = [0u8; 16];
        let e = slice_at::<I32>(&data, 0, usize::MAX).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::Truncated {
                needed: u64::MAX,
                available: 16
            }
        );
        assert_eq!(slice_at::<U16>(&data, 2, 7).unwrap().len(), 7);
        assert!(slice_at::<U16>(&data, 2, 8).is_err());
    }

    #[test]
    fn bytes_at_checks_end() {
        let data = [1u8, 2, 3];
        assert_eq!(bytes_at(&data, 1, 2).unwrap(), &[2, 3]);
        assert!(bytes_at(&data, 2, 2).is_err());
        assert!(bytes_at(&data, usize::MAX, 2).is_err());
    }

    #[test]
    fn counts_refuse_negative_values() {
        assert_eq!(count(3, "n", 0).unwrap(), 3);
        let e = count(-1, "numverts", 12).unwrap_err();
        assert_eq!(
            e.kind(),
            ErrorKind::BadCount {
                what: "numverts",
                value: -1
            }
        );
        assert_eq!(e.offset(), 12);
        assert!(positive_count(0, "numframes", 0).is_err());
        assert!(offset(-4, "ofs", 0).is_err());
    }

    #[test]
    fn cursor_tracks_position() {
        let data = [1u8, 0, 0, 0, 0, 0, 0x80, 0x3f];
        let mut c = Cursor::new(&data);
        assert_eq!(c.read_i32().unwrap(), 1);
        assert_eq!(c.read_f32().unwrap(), 1.0);
        assert_eq!(c.remaining(), 0);
        let e = c.read_bytes(1).unwrap_err();
        assert_eq!(e.offset(), 8);
    }

    #[test]
    fn names_stop_at_nul() {
        assert_eq!(nul_terminated(b"abc\0def"), b"abc");
        assert_eq!(nul_terminated(b"abc"), b"abc");
        assert!(Name::from_field(&[0; 16]).is_empty());
        assert_eq!(Name::from_field(b"\xff\0").to_str(), None);
        assert!(Name::from_field(b"head\0") == "head");
    }
}
