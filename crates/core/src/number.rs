//! C's `atof` for the decimal forms the engines' text side files use (Quake II `.anm`,
//! Cube 2 configs): leading white space, a sign, digits, one dot, digits, an optional
//! `e`/`E` exponent; anything else ends the number, and no digits read as 0.
//!
//! The engines differ only in how 10^e is computed, so the caller passes that.
//!
//! ```
//! use idmodel_core::number::atof_with;
//! let pow10 = |e: i32| libm::pow(10.0, f64::from(e));
//! assert_eq!(atof_with(b"  -2.5e1xyz", pow10), -25.0);
//! assert_eq!(atof_with(b".5", pow10), 0.5);
//! assert_eq!(atof_with(b"abc", pow10), 0.0);
//! assert_eq!(atof_with(b"1e999", pow10), f32::INFINITY); // beyond f32: infinity, as C
//! ```

/// Reads the number at the start of `s` as C's `atof` does for decimal forms, scaling
/// by `pow10(e)` for an exponent `e` (clamped to ±400). The f64 result is rounded to
/// f32; beyond f32's range it becomes ±infinity, as C's conversion does.
pub fn atof_with(s: &[u8], pow10: impl Fn(i32) -> f64) -> f32 {
    let mut i = 0usize;
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    while at(i).is_ascii_whitespace() {
        i = i.saturating_add(1);
    }
    let neg = at(i) == b'-';
    if matches!(at(i), b'-' | b'+') {
        i = i.saturating_add(1);
    }
    let mut v: f64 = 0.0;
    while at(i).is_ascii_digit() {
        v = v * 10.0 + f64::from(at(i).wrapping_sub(b'0'));
        i = i.saturating_add(1);
    }
    if at(i) == b'.' {
        i = i.saturating_add(1);
        let mut scale = 0.1f64;
        while at(i).is_ascii_digit() {
            v += f64::from(at(i).wrapping_sub(b'0')) * scale;
            scale *= 0.1;
            i = i.saturating_add(1);
        }
    }
    if matches!(at(i), b'e' | b'E') {
        let mut j = i.saturating_add(1);
        let eneg = at(j) == b'-';
        if matches!(at(j), b'-' | b'+') {
            j = j.saturating_add(1);
        }
        let mut e: i32 = 0;
        while at(j).is_ascii_digit() {
            e = e
                .saturating_mul(10)
                .saturating_add(i32::from(at(j).wrapping_sub(b'0')))
                .min(400);
            j = j.saturating_add(1);
        }
        v *= pow10(if eneg { e.saturating_neg() } else { e });
    }
    let v = if neg { -v } else { v };
    #[allow(clippy::cast_possible_truncation, clippy::as_conversions)]
    // f64 → f32 rounding is the intent
    let f = v as f32;
    f
}
