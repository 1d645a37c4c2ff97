//! Text into fixed C buffers: NUL-terminated, cut at a UTF-8 character boundary.

use core::ffi::c_char;
use core::fmt;

/// A `fmt::Write` into a `c_char` array that always leaves room for the NUL and never
/// fails (text that does not fit is dropped, whole characters at a time).
pub struct CBuf<'a> {
    buf: &'a mut [c_char],
    len: usize,
}

impl<'a> CBuf<'a> {
    /// An empty string in `buf` (which is cleared).
    pub fn new(buf: &'a mut [c_char]) -> Self {
        buf.fill(0);
        Self { buf, len: 0 }
    }

    /// Appends raw bytes (names from the file, which need not be UTF-8), up to the first
    /// NUL; bytes that do not fit are dropped.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().take_while(|&&b| b != 0) {
            if !self.push(b) {
                break;
            }
        }
    }

    fn room(&self) -> usize {
        self.buf.len().saturating_sub(1).saturating_sub(self.len)
    }

    fn push(&mut self, b: u8) -> bool {
        if self.room() == 0 {
            return false;
        }
        match self.buf.get_mut(self.len) {
            Some(slot) => {
                *slot = c_char::from_ne_bytes([b]);
                self.len = self.len.saturating_add(1);
                true
            }
            None => false,
        }
    }
}

impl fmt::Write for CBuf<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for ch in s.chars() {
            let mut utf8 = [0u8; 4];
            let enc = ch.encode_utf8(&mut utf8).as_bytes();
            if enc.len() > self.room() {
                // Whole characters only; the rest of the text is dropped.
                self.len = self.buf.len();
                return Ok(());
            }
            for &b in enc {
                self.push(b);
            }
        }
        Ok(())
    }
}

/// `bytes` as a NUL-terminated string in `buf`.
pub fn set_bytes(buf: &mut [c_char], bytes: &[u8]) {
    CBuf::new(buf).push_bytes(bytes);
}

/// `value` formatted into `buf`.
pub fn set_display(buf: &mut [c_char], value: impl fmt::Display) {
    let mut w = CBuf::new(buf);
    let _ = fmt::write(&mut w, format_args!("{value}"));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // tests index and count small fixed arrays they built
    use super::*;

    fn text(buf: &[c_char]) -> alloc_free::Str {
        alloc_free::Str::of(buf)
    }

    mod alloc_free {
        use core::ffi::c_char;
        pub struct Str {
            pub bytes: [u8; 16],
            pub len: usize,
        }
        impl Str {
            pub fn of(buf: &[c_char]) -> Self {
                let mut s = Str {
                    bytes: [0; 16],
                    len: 0,
                };
                for (i, c) in buf.iter().enumerate() {
                    let b = c.to_ne_bytes()[0];
                    if b == 0 {
                        break;
                    }
                    s.bytes[i] = b;
                    s.len = i + 1;
                }
                s
            }
            pub fn as_bytes(&self) -> &[u8] {
                &self.bytes[..self.len]
            }
        }
    }

    #[test]
    fn cut_at_a_character_boundary_and_nul_terminated() {
        let mut buf: [c_char; 6] = [1; 6];
        set_display(&mut buf, "abcdé"); // é is two bytes: 4 + 2 > 5
        assert_eq!(text(&buf).as_bytes(), b"abcd");
        assert_eq!(buf[4], 0);
        assert_eq!(buf[5], 0);
        set_display(&mut buf, "abé");
        assert_eq!(text(&buf).as_bytes(), "abé".as_bytes());
    }

    #[test]
    fn bytes_stop_at_nul_and_fit() {
        let mut buf: [c_char; 4] = [0; 4];
        set_bytes(&mut buf, b"ab\0cd");
        assert_eq!(text(&buf).as_bytes(), b"ab");
        set_bytes(&mut buf, b"abcdef");
        assert_eq!(text(&buf).as_bytes(), b"abc");
        let mut none: [c_char; 0] = [];
        set_bytes(&mut none, b"abc"); // no room at all: nothing written, no panic
    }
}
