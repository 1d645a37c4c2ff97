//! A small JSON writer: the exporter writes its document straight into a byte buffer,
//! with no value tree in between.
//!
//! It writes exactly what `serde_json` wrote for the value tree the exporter used to
//! build (so every file stays byte-identical): compact output, keys in the order the
//! caller gives them (the exporter gives them sorted, as `serde_json`'s map sorted them),
//! strings escaped as `serde_json` escapes them, floats as the `f64` of the `f32` in the
//! shortest form that reads back (`zmij`, the formatter `serde_json` uses), and
//! [`pretty`] indenting a compact document as `serde_json::to_vec_pretty` does.

use alloc::vec::Vec;

/// A JSON document or fragment being written. Commas come from the byte before: a key or
/// an array element started right after `{`, `[` or at the start of the buffer takes
/// none, any other takes one.
#[derive(Default)]
pub(crate) struct Json {
    /// The bytes written so far.
    pub(crate) out: Vec<u8>,
}

impl Json {
    /// Starts an empty buffer.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Writes `s` as it is (JSON punctuation, a fragment written elsewhere).
    pub(crate) fn raw(&mut self, s: &[u8]) {
        self.out.extend_from_slice(s);
    }

    /// The comma before a key or an element, unless it is the first of its container.
    pub(crate) fn sep(&mut self) {
        if !matches!(self.out.last(), None | Some(b'{' | b'[')) {
            self.out.push(b',');
        }
    }

    /// Writes `"key":` (with the comma before it when needed). Keys are the exporter's
    /// own ASCII names, which need no escaping.
    pub(crate) fn key(&mut self, key: &str) {
        self.sep();
        self.out.push(b'"');
        self.out.extend_from_slice(key.as_bytes());
        self.out.extend_from_slice(b"\":");
    }

    /// Writes a string value, escaped.
    pub(crate) fn str(&mut self, s: &str) {
        self.out.push(b'"');
        let bytes = s.as_bytes();
        // Most strings (names, the extras' base64 blobs) need no escape: one branch-free
        // pass that vectorises, then one copy.
        let plain = !bytes
            .iter()
            .fold(false, |e, &b| e | (b < 0x20) | (b == b'"') | (b == b'\\'));
        if plain {
            self.out.extend_from_slice(bytes);
            self.out.push(b'"');
            return;
        }
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                0x08 => b"\\b",
                0x0C => b"\\f",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0..=0x1F => b"",
                _ => continue,
            };
            self.out
                .extend_from_slice(bytes.get(start..i).unwrap_or_default());
            start = i.saturating_add(1);
            if esc.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let hi = HEX.get(usize::from(b >> 4)).copied().unwrap_or(b'0');
                let lo = HEX.get(usize::from(b & 0xF)).copied().unwrap_or(b'0');
                self.out
                    .extend_from_slice(&[b'\\', b'u', b'0', b'0', hi, lo]);
            } else {
                self.out.extend_from_slice(esc);
            }
        }
        self.out
            .extend_from_slice(bytes.get(start..).unwrap_or_default());
        self.out.push(b'"');
    }

    /// Writes an unsigned integer.
    pub(crate) fn uint(&mut self, n: impl Into<u64>) {
        let mut n: u64 = n.into();
        // Small values (indices, counts, the extras' integer lists) in one or two steps.
        if let Ok(small) = u8::try_from(n) {
            if small < 10 {
                self.out.push(b'0'.saturating_add(small));
                return;
            }
            if small < 100 {
                self.out.extend_from_slice(&[
                    b'0'.saturating_add(small / 10),
                    b'0'.saturating_add(small % 10),
                ]);
                return;
            }
        }
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at = at.saturating_sub(1);
            if let (Some(d), Ok(v)) = (digits.get_mut(at), u8::try_from(n % 10)) {
                *d = b'0'.saturating_add(v);
            }
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.out
            .extend_from_slice(digits.get(at..).unwrap_or_default());
    }

    /// Writes a `usize` (lengths and indices).
    pub(crate) fn usize(&mut self, n: usize) {
        self.uint(u64::try_from(n).unwrap_or(u64::MAX));
    }

    /// Writes a signed integer.
    pub(crate) fn int(&mut self, i: i64) {
        if i < 0 {
            self.out.push(b'-');
        }
        self.uint(i.unsigned_abs());
    }

    /// Writes `f` as the `f64` it widens to; a non-finite value (which the exporter
    /// refuses before it writes) becomes `null`, as in `serde_json`.
    pub(crate) fn f32(&mut self, f: f32) {
        let d = f64::from(f);
        if d.is_finite() {
            let mut buf = zmij::Buffer::new();
            self.out.extend_from_slice(buf.format_finite(d).as_bytes());
        } else {
            self.out.extend_from_slice(b"null");
        }
    }

    /// Writes `f` as the shortest decimal that reads back as the same `f32` (about half the
    /// digits of [`Json::f32`]'s `f64` form), for values only idmodel reads back: a reader
    /// that parses to `f64` and rounds to `f32` gets `f` again, since no decimal of at most
    /// nine digits lies within an `f64` rounding of the midpoint between two `f32`s unless
    /// it is that midpoint (which the shortest form never is: it is nearer `f`).
    pub(crate) fn f32_short(&mut self, f: f32) {
        if f.is_finite() {
            let mut buf = zmij::Buffer::new();
            self.out.extend_from_slice(buf.format_finite(f).as_bytes());
        } else {
            self.out.extend_from_slice(b"null");
        }
    }

    /// Writes a list of floats as an array.
    pub(crate) fn f32s(&mut self, v: &[f32]) {
        self.list(v, Self::f32);
    }

    /// Writes a list of indices as an array.
    pub(crate) fn usizes(&mut self, v: &[usize]) {
        self.list(v, Self::usize);
    }

    /// Writes `v` as an array, each element with `each`.
    fn list<T: Copy>(&mut self, v: &[T], each: fn(&mut Self, T)) {
        self.out.push(b'[');
        for (i, &x) in v.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            each(self, x);
        }
        self.out.push(b']');
    }

    /// Writes `"key":n`.
    pub(crate) fn key_usize(&mut self, key: &str, n: usize) {
        self.key(key);
        self.usize(n);
    }

    /// Writes `"key":"s"`.
    pub(crate) fn key_str(&mut self, key: &str, s: &str) {
        self.key(key);
        self.str(s);
    }
}

/// Indents a compact JSON document (as [`Json`] writes it: no whitespace outside strings)
/// the way `serde_json::to_vec_pretty` does: two spaces a level, one key or element a
/// line, `": "` after keys, `[]` and `{}` for empty containers, no final newline.
pub(crate) fn pretty(compact: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(compact.len().saturating_mul(2));
    let mut depth = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.resize(out.len().saturating_add(depth.saturating_mul(2)), b' ');
    };
    let mut bytes = compact.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        if in_str {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_str = true;
                out.push(b);
            }
            b'{' | b'[' => {
                out.push(b);
                if let Some(close @ (b'}' | b']')) = bytes.peek().copied() {
                    out.push(close);
                    bytes.next();
                } else {
                    depth = depth.saturating_add(1);
                    newline(&mut out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b);
                newline(&mut out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)] // tests: a failure is a panic
    use super::*;
    use alloc::string::String;

    fn serde_str(s: &str) -> Vec<u8> {
        serde_json::to_vec(&serde_json::Value::from(s)).unwrap()
    }

    #[test]
    fn strings_escape_as_serde_json() {
        let mut all = String::new();
        for c in (0u32..0x100).chain([0x7F, 0x2028, 0xFFFD, 0x1F600]) {
            all.push(char::from_u32(c).unwrap());
        }
        for s in [
            "",
            "plain",
            "a\"b\\c",
            "\u{0}\u{1f}\n\t",
            "ünï",
            all.as_str(),
        ] {
            let mut j = Json::new();
            j.str(s);
            assert_eq!(j.out, serde_str(s), "{s:?}");
        }
    }

    #[test]
    fn floats_print_as_serde_json() {
        // A spread of bit patterns: every exponent, many mantissas, both signs.
        let mut x = 0x1234_5678u32;
        let mut specials = alloc::vec![0.0f32, -0.0, 1.0, 0.1, 1e-45, f32::MAX, f32::MIN_POSITIVE];
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            specials.push(f32::from_bits(x));
        }
        for f in specials {
            let mut j = Json::new();
            j.f32(f);
            let want = serde_json::to_vec(&serde_json::Value::from(f64::from(f))).unwrap();
            assert_eq!(j.out, want, "{f:?}");
        }
    }

    #[test]
    fn integers_print_as_serde_json() {
        for i in [0i64, 1, -1, 9, 10, 99, 100, 12345, i64::MIN, i64::MAX] {
            let mut j = Json::new();
            j.int(i);
            assert_eq!(j.out, i.to_string().as_bytes());
        }
        let mut j = Json::new();
        j.uint(u64::MAX);
        assert_eq!(j.out, u64::MAX.to_string().as_bytes());
    }

    #[test]
    fn commas_and_pretty_match_serde_json() {
        let mut j = Json::new();
        j.raw(b"{");
        j.key_str("a", "x,y:{}[]\\\"");
        j.key("b");
        j.raw(b"[");
        j.sep();
        j.raw(b"{}");
        j.sep();
        j.raw(b"[]");
        j.sep();
        j.f32s(&[1.5, -2.0]);
        j.sep();
        j.usizes(&[]);
        j.raw(b"]");
        j.key("c");
        j.raw(b"{");
        j.key_usize("d", 7);
        j.raw(b"}}");
        let v: serde_json::Value = serde_json::from_slice(&j.out).unwrap();
        assert_eq!(j.out, serde_json::to_vec(&v).unwrap());
        assert_eq!(pretty(&j.out), serde_json::to_vec_pretty(&v).unwrap());
    }
}
