//! The guards of the byte patches: [`digest`] (a 64-bit digest, four lanes of folded
//! multiplies) and, in files written by earlier versions, FNV-1a.

use alloc::string::String;

/// FNV-1a (64-bit) of `bytes`, as 16 hex digits: the guard of a
/// [`make_patch`](super::make_patch) patch in files written by earlier versions (key
/// `hash`); still read, no longer written.
pub(super) fn fnv_hex(bytes: &[u8]) -> String {
    alloc::format!("{:016x}", fnv1a(bytes))
}

/// FNV-1a, 64 bits: the guard of patches in files written by earlier versions.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ u64::from(x)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The 128-bit product of `a` and `b`, its two halves xored (a "folded multiply": every
/// bit of either input reaches the result).
#[allow(clippy::as_conversions, clippy::cast_possible_truncation)] // the halves: meant
fn fold(a: u64, b: u64) -> u64 {
    let p = u128::from(a).wrapping_mul(u128::from(b));
    (p as u64) ^ ((p >> 64) as u64)
}

/// A 64-bit digest of `bytes`: what guards the patches of the way back (it tells
/// whether the writer's output is the one the patch was made for; it is not meant to
/// resist someone who forges a file, who can write any patch anyway).
///
/// Four lanes take 8-byte little-endian words in turn, each step a [`fold`] of the lane
/// and the word, so that four multiplications run at once: about 15× faster than
/// byte-at-a-time FNV-1a, whose every step waits for the last (1.4 ms for a 1.2 MB MD3
/// here). The same value on every machine (the words are read little-endian).
pub(crate) fn digest(bytes: &[u8]) -> u64 {
    const K: [u64; 4] = [
        0x9E37_79B9_7F4A_7C15,
        0xC2B2_AE3D_27D4_EB4F,
        0x1656_67B1_9E37_79F9,
        0x85EB_CA77_C2B2_AE63,
    ];
    const M: u64 = 0xD6E8_FEB8_6659_FD93;
    let mut lanes = K;
    let mut step = |block: &[u8]| {
        for ((lane, w), k) in lanes.iter_mut().zip(block.chunks_exact(8)).zip(K) {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            *lane = fold(*lane ^ u64::from_le_bytes(b) ^ k, M);
        }
    };
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        step(block);
    }
    // The last bytes, zero-padded; the length below tells `ab` from `ab\0`.
    let rest = blocks.remainder();
    let mut tail = [0u8; 32];
    if let Some(t) = tail.get_mut(..rest.len()) {
        t.copy_from_slice(rest);
    }
    step(&tail);
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    let h = lanes.iter().fold(len ^ M, |h, &lane| fold(h ^ lane, M));
    fold(h, M ^ K[0])
}

/// [`digest`] as 16 hex digits.
pub(crate) fn digest_hex(bytes: &[u8]) -> String {
    alloc::format!("{:016x}", digest(bytes))
}

/// Whether `written` is what a patch was made for, by its guard: the `digest` (hex of
/// [`digest`]) or, in files written by earlier versions, `fnv` (hex of FNV-1a). `None`
/// when there is no guard.
pub(crate) fn guard_matches(
    digest: Option<&str>,
    fnv: Option<&str>,
    written: &[u8],
) -> Option<bool> {
    match (digest, fnv) {
        (Some(d), _) => Some(d == digest_hex(written)),
        (None, Some(h)) => Some(h == fnv_hex(written)),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// The digest is stored in files (the guard of their patches), so its values are
    /// pinned: a change to the function would make older files' patches unusable.
    #[test]
    fn digest_values_are_pinned() {
        let bytes: Vec<u8> = (0u8..=99).collect();
        let got: Vec<String> = [
            &bytes[..0],
            &bytes[..1],
            &bytes[..31],
            &bytes[..32],
            &bytes[..],
        ]
        .iter()
        .map(|b| digest_hex(b))
        .collect();
        assert_eq!(got, PINNED, "{got:?}");
    }

    const PINNED: [&str; 5] = [
        "e12d3d8ba5fbc0e2",
        "3652b849cb4d0668",
        "2b8a182a68c6bbd4",
        "b25b4cc96c900937",
        "ff371643978f88ad",
    ];

    /// Any one byte changed, at any position (every lane, the tail), and a zero byte
    /// appended give another digest.
    #[test]
    fn digest_sees_every_byte_and_the_length() {
        let base: Vec<u8> = (0..203u32)
            .map(|i| (i.wrapping_mul(7919) >> 3) as u8)
            .collect();
        let d = digest(&base);
        for i in 0..base.len() {
            for flip in [1u8, 0x80, 0xff] {
                let mut b = base.clone();
                b[i] ^= flip;
                assert_ne!(digest(&b), d, "byte {i} ^ {flip:#x}");
            }
        }
        let mut longer = base.clone();
        longer.push(0);
        assert_ne!(digest(&longer), d);
        assert_ne!(digest(&base[..base.len() - 1]), d);
    }
}
