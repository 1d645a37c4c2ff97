//! [`LeBuffer`]: a little-endian byte builder for hand-made fixtures, one field a call
//! with the field's name in a comment, so a fixture reads like the format's spec.

use core::ops::Deref;

/// A value with a fixed little-endian encoding: `u8`, `i8`, `u16`, `i16`, `u32`, `i32`,
/// `u64`, `i64`, `f32`.
pub trait LeScalar: Copy {
    /// Appends the value's little-endian bytes to `out`.
    fn push_le(self, out: &mut Vec<u8>);
    /// Its little-endian bytes, as a fresh vector.
    fn le_bytes(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.push_le(&mut out);
        out
    }
}

macro_rules! le_scalar {
    ($($t:ty),*) => {$(
        impl LeScalar for $t {
            fn push_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
le_scalar!(u8, i8, u16, i16, u32, i32, u64, i64, f32);

/// Overwrites the bytes at `at` with `value`, little-endian: for a fixture function's
/// finished `Vec<u8>` that one test changes one field of.
///
/// ```
/// let mut bytes = vec![0u8; 8];
/// idmodel_test_support::patch(&mut bytes, 4, -2i32); // numframes
/// assert_eq!(bytes, [0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
/// ```
///
/// # Panics
///
/// When the value does not fit at `at` (a mistake in the test).
pub fn patch<T: LeScalar>(bytes: &mut [u8], at: usize, value: T) {
    patch_bytes(bytes, at, &value.le_bytes());
}

/// Overwrites the bytes at `at` with `src` (a magic, a name field).
///
/// ```
/// let mut bytes = b"IDP2\x08\0\0\0".to_vec();
/// idmodel_test_support::patch_bytes(&mut bytes, 0, b"IDPO"); // ident
/// assert_eq!(&bytes[..4], b"IDPO");
/// ```
///
/// # Panics
///
/// When `src` does not fit at `at` (a mistake in the test).
pub fn patch_bytes(bytes: &mut [u8], at: usize, src: &[u8]) {
    let len = bytes.len();
    let slot = at
        .checked_add(src.len())
        .and_then(|end| bytes.get_mut(at..end));
    match slot {
        Some(slot) => slot.copy_from_slice(src),
        #[allow(clippy::panic)] // a patch outside the fixture is a bug in the test
        None => panic!(
            "patch of {} bytes at {at} is outside the {len}-byte fixture",
            src.len()
        ),
    }
}

/// A little-endian byte buffer built field by field.
///
/// ```
/// use idmodel_test_support::LeBuffer;
/// let mut b = LeBuffer::new();
/// b.bytes(b"IDP2") // ident
///     .i32(8) // version
///     .name("stand01", 16) // name
///     .f32(1.0); // scale[0]
/// assert_eq!(b.len(), 28);
/// b.patch(4, 9i32); // a test changes one field
/// assert_eq!(&b[4..8], &[9, 0, 0, 0]);
/// assert_eq!(&b[8..16], b"stand01\0");
/// let bytes: Vec<u8> = b.into_vec();
/// assert_eq!(bytes[24..], 1.0f32.to_le_bytes());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeBuffer {
    data: Vec<u8>,
}

impl LeBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends any [`LeScalar`].
    pub fn push<T: LeScalar>(&mut self, value: T) -> &mut Self {
        value.push_le(&mut self.data);
        self
    }

    /// Appends a `u8`.
    pub fn u8(&mut self, value: u8) -> &mut Self {
        self.push(value)
    }

    /// Appends an `i16`, little-endian.
    pub fn i16(&mut self, value: i16) -> &mut Self {
        self.push(value)
    }

    /// Appends a `u16`, little-endian.
    pub fn u16(&mut self, value: u16) -> &mut Self {
        self.push(value)
    }

    /// Appends an `i32`, little-endian.
    pub fn i32(&mut self, value: i32) -> &mut Self {
        self.push(value)
    }

    /// Appends a `u32`, little-endian.
    pub fn u32(&mut self, value: u32) -> &mut Self {
        self.push(value)
    }

    /// Appends an `f32`, little-endian.
    pub fn f32(&mut self, value: f32) -> &mut Self {
        self.push(value)
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.data.extend_from_slice(bytes);
        self
    }

    /// Appends `count` copies of `byte`.
    pub fn fill(&mut self, count: usize, byte: u8) -> &mut Self {
        self.data.extend(core::iter::repeat_n(byte, count));
        self
    }

    /// Appends a NUL-padded name field of `len` bytes (`char name[len]`). A name of
    /// exactly `len` bytes fills the field with no NUL.
    ///
    /// # Panics
    ///
    /// When the name is longer than the field (a mistake in the test).
    pub fn name(&mut self, name: impl AsRef<[u8]>, len: usize) -> &mut Self {
        let name = name.as_ref();
        assert!(
            name.len() <= len,
            "name of {} bytes does not fit a {len}-byte field",
            name.len()
        );
        self.bytes(name).fill(len.saturating_sub(name.len()), 0)
    }

    /// Overwrites the bytes at `at` with `value` (see [`patch`]).
    ///
    /// # Panics
    ///
    /// When the value does not fit at `at`.
    pub fn patch<T: LeScalar>(&mut self, at: usize, value: T) -> &mut Self {
        patch(&mut self.data, at, value);
        self
    }

    /// Overwrites the bytes at `at` with `src` (see [`patch_bytes`]).
    ///
    /// # Panics
    ///
    /// When `src` does not fit at `at`.
    pub fn patch_bytes(&mut self, at: usize, src: &[u8]) -> &mut Self {
        patch_bytes(&mut self.data, at, src);
        self
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.data
    }

    /// The bytes, as a vector.
    pub fn into_vec(self) -> Vec<u8> {
        self.data
    }
}

impl Deref for LeBuffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.data
    }
}

impl From<LeBuffer> for Vec<u8> {
    fn from(b: LeBuffer) -> Vec<u8> {
        b.data
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)] // test code: a panic is a failed assertion
mod tests {
    use super::*;

    #[test]
    fn every_scalar_is_little_endian() {
        let mut b = LeBuffer::new();
        b.u8(0x01)
            .i16(-2)
            .u16(0x0304)
            .i32(-5)
            .u32(0x0607_0809)
            .f32(1.5)
            .push(-1i8)
            .push(0x0102_0304_0506_0708u64)
            .push(-1i64);
        assert_eq!(
            b.as_slice(),
            [
                [0x01].as_slice(),
                &[0xfe, 0xff],
                &[0x04, 0x03],
                &[0xfb, 0xff, 0xff, 0xff],
                &[0x09, 0x08, 0x07, 0x06],
                &1.5f32.to_le_bytes(),
                &[0xff],
                &[8, 7, 6, 5, 4, 3, 2, 1],
                &[0xff; 8],
            ]
            .concat()
        );
    }

    #[test]
    fn names_pad_with_nul_and_fill_exactly() {
        let mut b = LeBuffer::new();
        b.name("ab", 4).name(b"wxyz", 4).name("", 2).fill(2, 7);
        assert_eq!(b.as_slice(), b"ab\0\0wxyz\0\0\x07\x07");
    }

    #[test]
    #[should_panic(expected = "does not fit")]
    fn a_name_longer_than_its_field_fails() {
        LeBuffer::new().name("toolong", 4);
    }

    #[test]
    fn patch_overwrites_in_place() {
        let mut b = LeBuffer::new();
        b.i32(0).i32(0);
        b.patch(2, 0x1234u16).patch(7, 9u8);
        assert_eq!(b.as_slice(), [0, 0, 0x34, 0x12, 0, 0, 0, 9]);
        b.patch_bytes(4, b"ab");
        assert_eq!(b.as_slice(), [0, 0, 0x34, 0x12, b'a', b'b', 0, 9]);
        let mut v = b.into_vec();
        patch(&mut v, 0, -1i16);
        assert_eq!(v[..2], [0xff, 0xff]);
        patch_bytes(&mut v, 6, b"");
        assert_eq!(v.len(), 8);
    }

    #[test]
    #[should_panic(expected = "outside")]
    fn patch_past_the_end_fails() {
        patch(&mut [0u8; 3], 0, 1i32);
    }
}
