//! Packing into id's vertex bytes: [`bounds`], [`quantise`] (qdata's rounding and clamp)
//! and the nearest table normal ([`nearest_normal`], and the cache that answers it for a
//! model's frames).

use alloc::vec::Vec;

use super::memo::{Memo, mix};

/// Per-axis minimum and maximum of `points` (zeros when empty).
pub fn bounds(points: impl Iterator<Item = [f32; 3]>) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut any = false;
    for p in points {
        any = true;
        widen(&mut lo, &mut hi, p);
    }
    if any { (lo, hi) } else { ([0.0; 3], [0.0; 3]) }
}

/// One point into [`bounds`]'s running minimum and maximum.
pub(super) fn widen(lo: &mut [f32; 3], hi: &mut [f32; 3], p: [f32; 3]) {
    for ((l, h), v) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
        *l = l.min(v);
        *h = h.max(v);
    }
}

/// `(v − translate) / scale` rounded to the nearest integer and clamped to 0..=255, as
/// qdata does (`Q_rint`, then the clamp "so rounding doesn't wrap").
pub fn quantise(v: f32, translate: f32, scale: f32) -> u8 {
    if scale.is_nan() || scale <= 0.0 {
        return 0;
    }
    let q = round_half_even((v - translate) / scale).clamp(0.0, 255.0);
    // A whole number in 0..=255 after the clamp; `as` saturates and turns NaN into 0.
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let b = q as u8;
    b
}

/// [`quantise`] for a `scale` that is a number above zero, with no branch (so that a loop
/// of it becomes vector code): the same byte.
pub(super) fn quantise_valid(v: f32, translate: f32, scale: f32) -> u8 {
    let r = round_half_even((v - translate) / scale);
    // `clamp` keeps a NaN, which `as` then makes 0; `max` makes it 0 first: the same byte.
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::manual_clamp
    )]
    let b = r.max(0.0).min(255.0) as u8;
    b
}

/// `x` rounded to the nearest whole number, ties to even: `libm::rintf`'s value (in the
/// default rounding mode), except that a negative `x` that rounds to zero gives +0, not
/// −0. Adding and removing 2²³ leaves no fraction bits, so the hardware's own rounding
/// does the work (a few instructions, where libm's portable `rintf` took about a tenth
/// of the way back's recording: callgrind, ogre.mdl). At 2²³ and beyond every f32 is
/// whole; NaN stays NaN.
fn round_half_even(x: f32) -> f32 {
    const TWO_23: f32 = 8_388_608.0;
    const SIGN: u32 = 0x8000_0000;
    // |x| and copysign(2²³, x) through the bits (libm's `copysignf` was a call).
    // Both values, then a choice (no branch, so a loop of it becomes vector code).
    let s = f32::from_bits((x.to_bits() & SIGN) | TWO_23.to_bits());
    let whole = (x + s) - s;
    if f32::from_bits(x.to_bits() & !SIGN) < TWO_23 {
        whole
    } else {
        x
    }
}

/// The index of the table normal nearest to `n` (largest dot product; the first on a
/// tie), as id's tools pick it.
pub fn nearest_normal(n: [f32; 3]) -> u8 {
    idmodel_core::anorms::nearest_anorm(n)
}

/// [`nearest_normal`], answered cheaply for the vectors a model's frames hold.
///
/// First a guess: the entry last found for the same cell of a 32³ grid over the cube
/// `[-1, 1]³`, confirmed by [`idmodel_core::anorms::confirm_nearest_anorm`] (the vector
/// lies within 10⁻³ of that entry, inside every entry's margin), which covers normals
/// decoded from the table and then moved by rounding (a frame rebuilt as base + target,
/// renormalised). Otherwise the search, remembered by the bits of its input (see
/// [`Memo`], allocated on the first such search). Either way the answer is the search's.
pub(super) struct NearestCache {
    /// Per grid cell, the last entry found there (255: none yet).
    guess: Vec<u8>,
    memo: Option<Memo<[u32; 3], u8>>,
    bits: u32,
}

impl NearestCache {
    /// Memo slots for `n` vectors (rounded up to a power of two, at most 2^15).
    pub(super) fn new(n: usize) -> Self {
        Self {
            guess: alloc::vec![u8::MAX; 1 << 15],
            memo: None,
            bits: usize::BITS.saturating_sub(n.saturating_sub(1).leading_zeros()),
        }
    }

    /// The grid cell of `n` (components clamped to the cube).
    fn cell(n: [f32; 3]) -> usize {
        let axis = |x: f32| {
            // Clamped to 0..=31 as a float first (`max` takes 0 for NaN, where `clamp`
            // keeps the NaN), so the conversion needs none of `as`'s saturation.
            #[allow(
                clippy::as_conversions,
                clippy::cast_possible_truncation,
                clippy::manual_clamp
            )]
            let c = (x * 16.0 + 16.0).max(0.0).min(31.0) as i32;
            usize::try_from(c).unwrap_or(0)
        };
        (axis(n[0]) << 10) | (axis(n[1]) << 5) | axis(n[2])
    }

    pub(super) fn get(&mut self, n: [f32; 3]) -> u8 {
        let cell = Self::cell(n);
        let slot = self.guess.get(cell).copied().unwrap_or(u8::MAX);
        if let Some(c) = idmodel_core::anorms::confirm_nearest_anorm(n, slot) {
            return c;
        }
        let key = n.map(f32::to_bits);
        let bits = self.bits;
        let found = self
            .memo
            .get_or_insert_with(|| Memo::new(bits))
            .get(key, mix(&key), |_| nearest_normal(n));
        if let Some(g) = self.guess.get_mut(cell) {
            *g = found;
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The branch-free packing is [`quantise`]'s for every valid scale: on random bit
    /// patterns (NaN, infinities and subnormals among them), on halves, and around 2²³.
    #[test]
    fn quantise_valid_is_quantise() {
        let mut state = 0x1234_5678_9ABC_DEF1u64;
        let mut values: Vec<f32> = (0..20_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                f32::from_bits(state as u32)
            })
            .collect();
        values.extend((-600..600).map(|i| i as f32 * 0.5));
        values.extend([
            8_388_607.5,
            8_388_608.0,
            8_388_609.0,
            -8_388_609.0,
            -0.4,
            -0.0,
        ]);
        for &(t, sc) in &[
            (0.0f32, 1.0f32),
            (-64.0, 0.5),
            (3.25, 0.1),
            (f32::NAN, 1.0),
            (f32::INFINITY, 2.0),
            (0.0, f32::INFINITY),
            (1.0, 1e-38),
        ] {
            for &v in &values {
                assert_eq!(quantise_valid(v, t, sc), quantise(v, t, sc), "{v} {t} {sc}");
            }
        }
    }

    /// `round_half_even` is libm's `rintf` (up to the sign of a zero): halves, ties on
    /// both sides of even, the edges of 2^23, infinities, NaN, and a million bit
    /// patterns from a fixed generator.
    #[test]
    fn round_half_even_is_rintf() {
        let same = |x: f32| {
            let (a, b) = (round_half_even(x), libm::rintf(x));
            assert!(
                a == b || (a.is_nan() && b.is_nan()),
                "{x:e}: {a:e} vs {b:e}"
            );
        };
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            254.5,
            255.5,
            0.49999997,
            -0.49999997,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            16_777_217.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ] {
            same(x);
        }
        for k in -40_000i32..40_000 {
            same(k as f32 / 16.0);
        }
        let mut state = 0x9E37_79B9u32;
        for _ in 0..1_000_000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            same(f32::from_bits(state));
        }
    }

    #[test]
    fn the_nearest_normal_cache_answers_as_the_search_does() {
        // More distinct vectors than slots (collisions evict), each asked twice, plus
        // the table itself, -0.0 against 0.0 and a zero vector.
        let mut cache = NearestCache::new(4096);
        let mut seed = 0x1234_5678u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from_bits(seed >> 9 | 0x3F80_0000) * 2.0 - 3.0
        };
        let mut vectors: Vec<[f32; 3]> = (0..10_000).map(|_| [next(), next(), next()]).collect();
        vectors.extend(idmodel_core::anorms::ANORMS);
        // Table entries moved by up to ±2e-3 per axis (inside and outside the radius
        // where a grid guess is confirmed), renormalised as a posed frame is.
        for t in &idmodel_core::anorms::ANORMS {
            for _ in 0..20 {
                let j = [next(), next(), next()].map(|r| r * 2e-3);
                vectors.push(crate::unit_or_up([t[0] + j[0], t[1] + j[1], t[2] + j[2]]));
            }
            vectors.push(crate::unit_or_up(*t));
        }
        vectors.extend([[0.0, -0.0, 1.0], [0.0, 0.0, 1.0], [0.0; 3], [-0.0; 3]]);
        vectors.extend([
            [f32::NAN, 0.0, 1.0],
            [f32::INFINITY, 0.0, 0.0],
            [5.0, -7.0, 0.5],
        ]);
        for round in 0..2 {
            for v in &vectors {
                assert_eq!(cache.get(*v), nearest_normal(*v), "{v:?}, round {round}");
            }
        }
    }

    #[test]
    fn quantisation_rounds_and_clamps() {
        assert_eq!(quantise(0.0, 0.0, 1.0), 0);
        assert_eq!(quantise(2.6, 0.0, 1.0), 3);
        assert_eq!(quantise(300.0, 0.0, 1.0), 255);
        assert_eq!(quantise(-3.0, 0.0, 1.0), 0);
        assert_eq!(quantise(5.0, 0.0, 0.0), 0);
        assert_eq!(quantise(f32::NAN, 0.0, 1.0), 0);
        for (i, n) in idmodel_core::anorms::ANORMS.iter().enumerate() {
            assert_eq!(usize::from(nearest_normal(*n)), i);
        }
    }
}
