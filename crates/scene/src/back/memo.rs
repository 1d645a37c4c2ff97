//! [`Memo`], a direct-mapped memo of a pure function (the nearest table normal, the nearest
//! palette colour), and [`mix`], the hash it is indexed by.

use alloc::vec::Vec;

/// A direct-mapped memo of a pure function `K → V`: a collision only costs a new call,
/// so what [`Memo::get`] returns is always `f(key)`. Why: the 162-entry normal
/// search per vertex per frame was 90 % of an MDL or MD2 conversion, though a model's
/// frames hold few distinct normals (a table normal, or one blended from two); the
/// palette search per texel is the same case.
pub(super) struct Memo<K, V> {
    slots: Vec<Option<(K, V)>>,
    shift: u32,
}

impl<K: Copy + PartialEq, V: Copy> Memo<K, V> {
    /// `2^bits` slots (`bits` within 4..=15: at most 512 KiB of slots for the normals).
    pub(super) fn new(bits: u32) -> Self {
        let bits = bits.clamp(4, 15);
        Self {
            slots: alloc::vec![None; 1usize << bits],
            shift: 32u32.saturating_sub(bits),
        }
    }

    /// `f(key)`, called only when the slot of `hash` (any well-mixed `u32` of the key)
    /// does not hold `key` already.
    pub(super) fn get(&mut self, key: K, hash: u32, f: impl FnOnce(K) -> V) -> V {
        let slot = usize::try_from(hash.checked_shr(self.shift).unwrap_or(0))
            .ok()
            .and_then(|i| self.slots.get_mut(i));
        match slot {
            Some(Some((k, v))) if *k == key => *v,
            Some(s) => {
                let v = f(key);
                *s = Some((key, v));
                v
            }
            None => f(key),
        }
    }
}

/// A multiplicative hash of `words`, mixed into the high bits [`Memo`] uses.
pub(super) fn mix(words: &[u32]) -> u32 {
    words.iter().fold(0x811C_9DC5u32, |h, &w| {
        (h ^ w)
            .wrapping_mul(0x9E37_79B1)
            .rotate_left(13)
            .wrapping_mul(0x85EB_CA77)
    })
}
