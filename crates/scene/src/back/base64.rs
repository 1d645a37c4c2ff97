//! Base64 (RFC 4648 standard alphabet, padded) of the raw blocks kept in extras, and
//! [`blob`], such a block read back.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use crate::{Scene, Value};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The two characters of every 12 bits: two table reads per three bytes.
// Evaluated at compile time: an index out of range would fail the build, not panic.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
static PAIRS: [[u8; 2]; 4096] = {
    let mut t = [[0u8; 2]; 4096];
    let mut i = 0;
    while i < 4096 {
        t[i] = [ALPHABET[i >> 6], ALPHABET[i & 63]];
        i += 1;
    }
    t
};

/// `bytes` as base64 (standard alphabet, padded).
///
/// ```
/// assert_eq!(idmodel_scene::back::base64_encode(b"Man"), "TWFu");
/// assert_eq!(idmodel_scene::back::base64_encode(b"Ma"), "TWE=");
/// ```
pub fn base64_encode(bytes: &[u8]) -> String {
    let sym = |n: u32, shift: u32| {
        let idx = usize::try_from((n >> shift) & 63).unwrap_or(0);
        ALPHABET.get(idx).copied().unwrap_or(b'A')
    };
    // Sized once and filled in place, four characters per three bytes (the records of
    // animated models hold megabytes of it).
    let mut out = vec![b'='; bytes.len().div_ceil(3).saturating_mul(4)];
    let whole = bytes.chunks_exact(3);
    let rest = whole.remainder();
    let pair = |n: u32| {
        let idx = usize::try_from(n & 0xFFF).unwrap_or(0);
        PAIRS.get(idx).copied().unwrap_or([b'A'; 2])
    };
    for (o, c) in out.chunks_exact_mut(4).zip(whole) {
        if let [a, b, c] = *c {
            let n = (u32::from(a) << 16) | (u32::from(b) << 8) | u32::from(c);
            let ([p, q], [r, t]) = (pair(n >> 12), pair(n));
            o.copy_from_slice(&[p, q, r, t]);
        }
    }
    if !rest.is_empty() {
        let b = [
            rest.first().copied().unwrap_or(0),
            rest.get(1).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8);
        let third = if rest.len() == 2 { sym(n, 6) } else { b'=' };
        let at = out.len().saturating_sub(4);
        if let Some(tail) = out.get_mut(at..) {
            tail.copy_from_slice(&[sym(n, 18), sym(n, 12), third, b'=']);
        }
    }
    // Every byte is from the ASCII alphabet or '='.
    String::from_utf8(out).unwrap_or_default()
}

fn sextet(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c.wrapping_sub(b'A'),
        b'a'..=b'z' => c.wrapping_sub(b'a').wrapping_add(26),
        b'0'..=b'9' => c.wrapping_sub(b'0').wrapping_add(52),
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// The bytes of base64 `text` (as [`base64_encode`] writes it), or `None` when it is not
/// such text.
///
/// ```
/// use idmodel_scene::back::{base64_decode, base64_encode};
/// assert_eq!(base64_decode(&base64_encode(b"hello")), Some(b"hello".to_vec()));
/// assert_eq!(base64_decode("T!=="), None);
/// ```
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if bytes.len().checked_rem(4) != Some(0) {
        return None;
    }
    let quads = bytes.len().checked_div(4).unwrap_or(0);
    let mut out = Vec::with_capacity(quads.saturating_mul(3));
    for (q, chunk) in bytes.chunks_exact(4).enumerate() {
        let last = q.saturating_add(1) == quads;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let v = if i >= 4usize.saturating_sub(pad) {
                0
            } else {
                sextet(c)?
            };
            n = (n << 6) | v;
        }
        let b = n.to_be_bytes();
        out.extend(b.get(1..4usize.saturating_sub(pad)).unwrap_or(&[]));
    }
    Some(out)
}

/// The base64 text stored under `key` in `scene`'s extras, decoded.
pub(crate) fn blob(scene: &Scene, key: &str) -> Option<Vec<u8>> {
    scene
        .extras
        .get(key)
        .and_then(Value::as_str)
        .and_then(base64_decode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_length() {
        let data: Vec<u8> = (0..=255u8).collect();
        for n in 0..40 {
            let s = base64_encode(&data[..n]);
            assert_eq!(s.len() % 4, 0);
            assert_eq!(base64_decode(&s).unwrap(), &data[..n]);
        }
        // RFC 4648 §10.
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64_encode(plain.as_bytes()), coded);
        }
        assert_eq!(base64_encode(&[0xFF, 0xEF, 0x00, 0x3E]), "/+8APg==");
        assert!(base64_decode("Zm9=Zm9v").is_none());
        assert!(base64_decode("abc").is_none());
    }
}
