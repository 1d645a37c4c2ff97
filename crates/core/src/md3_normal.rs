//! The MD3 lat/long normal codec (docs/formats.md §3.3).
//!
//! An MD3 normal is a 16-bit value: the high byte is the "lat" angle `a` (about Z, in
//! 256 steps), the low byte the "lng" angle `b` (from +Z, in 256 steps).
//!
//! * [`decode_exact`] reproduces the engines (Quake III and ioquake3) bit for bit: it
//!   reads Quake III's 1024-entry sine table, whose period is 1023 steps, so decoded
//!   angles are scaled by 1024/1023.
//! * [`decode_ideal`] is the mathematical decode `x = cos a sin b, y = sin a sin b,
//!   z = cos b` with `a, b = byte · 2π/256`.
//! * [`encode`] is q3map's `NormalToLatLong`.

#[path = "sin_table.rs"]
mod sin_table;

use sin_table::SIN_TABLE_BITS;

/// `tr.sinTable[i]` of Quake III (`i` is masked to `0..1024`).
pub fn engine_sin(i: usize) -> f32 {
    let bits = SIN_TABLE_BITS.get(i & 1023).copied().unwrap_or(0);
    f32::from_bits(bits)
}

/// Decodes like the engine: `x = sin[(4·hi+256)&1023]·sin[4·lo]`,
/// `y = sin[4·hi]·sin[4·lo]`, `z = sin[(4·lo+256)&1023]`.
///
/// ```
/// use idmodel_core::md3_normal::decode_exact;
/// let up = decode_exact(0); // straight up, as far as the 1023-step table allows
/// assert_eq!(&up[..2], &[0.0, 0.0]);
/// assert!(up[2] < 1.0 && up[2] > 0.999998);
/// let down = decode_exact(128); // lng = 128: half a turn from +Z
/// assert!(down[2] < -0.9999);
/// ```
pub fn decode_exact(n: u16) -> [f32; 3] {
    let [lo, hi] = n.to_le_bytes();
    let ia = usize::from(hi) * 4;
    let ib = usize::from(lo) * 4;
    let sin_b = engine_sin(ib);
    [
        engine_sin(ia.wrapping_add(256)) * sin_b,
        engine_sin(ia) * sin_b,
        engine_sin(ib.wrapping_add(256)),
    ]
}

/// Decodes with exact trigonometry (`a, b = byte · 2π/256`), without the engine's
/// 1023-step table error.
///
/// ```
/// use idmodel_core::md3_normal::decode_ideal;
/// let n = decode_ideal(u16::from_le_bytes([64, 0])); // lng 90°, lat 0°: +X
/// assert!((n[0] - 1.0).abs() < 1e-6 && n[1].abs() < 1e-6 && n[2].abs() < 1e-6);
/// ```
pub fn decode_ideal(n: u16) -> [f32; 3] {
    let [lo, hi] = n.to_le_bytes();
    let step = core::f64::consts::TAU / 256.0;
    let a = f64::from(hi) * step;
    let b = f64::from(lo) * step;
    let sb = libm::sin(b);
    [
        to_f32(libm::cos(a) * sb),
        to_f32(libm::sin(a) * sb),
        to_f32(libm::cos(b)),
    ]
}

/// Decodes to the middle of the cell [`encode`] maps to `n` (`NormalToLatLong` truncates
/// each angle to whole 1/255ths of a turn, toward zero): the direction farthest from
/// every other encoding, so a slightly perturbed copy (a byte-quantized normal) still
/// encodes to `n`. It differs from the engine's [`decode_exact`] by less than 2°. A byte
/// `encode` never produces (a latitude past 127, longitude 128) decodes to its plain
/// angle.
///
/// ```
/// use idmodel_core::md3_normal::{decode_centre, encode};
/// for n in [0u16, 0x1234, 0x40_20, 0xFF_7F, 0x81_01] {
///     assert_eq!(encode(decode_centre(n)), n);
/// }
/// ```
pub fn decode_centre(n: u16) -> [f32; 3] {
    let [lo, hi] = n.to_le_bytes();
    let [sb, cb] = CENTRE_LAT
        .get(usize::from(lo))
        .copied()
        .unwrap_or([0.0, 1.0]);
    let [sa, ca] = CENTRE_LNG
        .get(usize::from(hi))
        .copied()
        .unwrap_or([0.0, 1.0]);
    [to_f32(ca * sb), to_f32(sa * sb), to_f32(cb)]
}

/// One 1/255th of a turn, the unit `NormalToLatLong` truncates angles to.
const CELL: f64 = core::f64::consts::TAU / 255.0;

/// The middle of latitude byte `k`'s cell, in cells: acos ∈ [0°, 180°] is [0, 127.5]
/// cells and byte k covers [k, k + 1); a byte past 127 is its plain angle.
const fn lat_centre(k: usize) -> f64 {
    #[allow(clippy::as_conversions, clippy::cast_precision_loss)]
    let f = k as f64;
    if k <= 126 {
        f + 0.5
    } else if k == 127 {
        127.25
    } else {
        f
    }
}

/// The middle of longitude byte `k`'s cell, in cells: atan2 ∈ (−180°, 180°] is
/// (−127.5, 127.5] cells, truncated toward zero: byte 0 covers (−1, 1), byte k ≤ 127
/// covers [k, k + 1), byte k ≥ 129 covers (k − 257, k − 256]; 128 is never written.
const fn lng_centre(k: usize) -> f64 {
    #[allow(clippy::as_conversions, clippy::cast_precision_loss)]
    let f = k as f64;
    if k == 0 {
        0.0
    } else if k <= 126 {
        f + 0.5
    } else if k == 127 {
        127.25
    } else if k == 128 {
        128.0
    } else {
        f - 256.5
    }
}

/// `[sin x, cos x]` for `|x| ≤ 2π` by their series (a compile-time table's entries:
/// exact to a few units in the last place of an `f64`, fixed on every machine).
const fn sin_cos(x: f64) -> [f64; 2] {
    let pi = core::f64::consts::PI;
    let x = if x > pi {
        x - 2.0 * pi
    } else if x < -pi {
        x + 2.0 * pi
    } else {
        x
    };
    let x2 = x * x;
    let (mut s, mut st) = (x, x);
    let (mut c, mut ct) = (1.0, 1.0);
    // Terms k = 1..30: a = 2k.
    let mut a = 2.0f64;
    while a < 60.0 {
        st = -st * x2 / (a * (a + 1.0));
        ct = -ct * x2 / ((a - 1.0) * a);
        s += st;
        c += ct;
        a += 2.0;
    }
    [s, c]
}

/// `[sin, cos]` of each byte's cell centre: latitudes, or (`lng`) longitudes.
#[allow(clippy::indexing_slicing)] // k < 256 in a const loop over a 256-entry array
const fn centre_table(lng: bool) -> [[f64; 2]; 256] {
    let mut t = [[0.0; 2]; 256];
    let mut k = 0;
    while k < 256 {
        let cells = if lng { lng_centre(k) } else { lat_centre(k) };
        t[k] = sin_cos(cells * CELL);
        k = k.saturating_add(1);
    }
    t
}

/// The latitudes of [`decode_centre`].
const CENTRE_LAT: [[f64; 2]; 256] = centre_table(false);
/// The longitudes of [`decode_centre`].
const CENTRE_LNG: [[f64; 2]; 256] = centre_table(true);

#[allow(clippy::as_conversions)] // f64 → f32 rounding is the intent; no `From` exists.
fn to_f32(v: f64) -> f32 {
    v as f32
}

/// Truncates toward zero and wraps into a byte, as C's `(int)x & 0xFF` does for the
/// angles this encoder produces (|x| < 256). Non-finite input gives 0.
#[allow(clippy::as_conversions)] // saturating float → int cast; input is bounded.
fn trunc_byte(v: f32) -> u8 {
    let i = v as i32; // truncation toward zero, saturating
    i.to_le_bytes()[0]
}

/// Encodes a direction the way q3map's `NormalToLatLong` does.
///
/// * `x == 0 && y == 0`: `+z` gives `0`, anything else `lng = 128` (straight down).
/// * Otherwise `lat = (int)(deg(atan2(y, x))·255/360) & 0xFF`,
///   `lng = (int)(deg(acos(z))·255/360) & 0xFF`, packed as `lat << 8 | lng`.
///
/// Note the 255/360 scale against the decoder's 256 steps: a round trip is not exact,
/// and the error is at most about 2.9° (see the crate tests). `n` should be unit length.
///
/// ```
/// use idmodel_core::md3_normal::{decode_ideal, encode};
/// assert_eq!(encode([0.0, 0.0, 1.0]), 0);
/// assert_eq!(encode([0.0, 0.0, -1.0]), 128);
/// let d = decode_ideal(encode([1.0, 0.0, 0.0]));
/// assert!(d[0] > 0.999);
/// ```
pub fn encode(n: [f32; 3]) -> u16 {
    let [x, y, z] = n;
    if x == 0.0 && y == 0.0 {
        if z > 0.0 {
            return 0;
        }
        return u16::from_le_bytes([128, 0]);
    }
    let rad_to_byte = 255.0f32 / 360.0 * (180.0 / core::f32::consts::PI);
    let a = libm::atan2f(y, x) * rad_to_byte;
    let b = libm::acosf(z.clamp(-1.0, 1.0)) * rad_to_byte;
    u16::from_le_bytes([trunc_byte(b), trunc_byte(a)])
}

/// Encodes a direction as the normal whose engine decoding ([`decode_exact`]) is nearest
/// in direction: the byte pairs around its angles (in the engine's steps of 4 × 2π/1023)
/// are decoded and the one at the smallest angle to `n` is taken (the first of equals).
///
/// Unlike q3map's [`encode`], whose 255/360 scale maps a decoded normal one step back,
/// every normal the engine decodes comes back: `encode_nearest(decode_exact(x))`
/// decodes exactly as `x` does (the same `x` away from the poles), and a direction is
/// written within half a cell's diagonal of what the engine shows (under 1°, against up
/// to 2.9° for [`encode`]). idmodel's way back writes with it the normals of scenes that
/// do not carry its record. `n` need not be unit length; zero or non-finite
/// input gives `0` (+Z).
///
/// ```
/// use idmodel_core::md3_normal::{decode_exact, encode_nearest};
/// for x in [0u16, 0x1234, 0x40_20, 0xFF_7F, 0x81_01] {
///     assert_eq!(encode_nearest(decode_exact(x)), x);
/// }
/// assert_eq!(encode_nearest([0.0, 0.0, 1.0]), 0);
/// ```
pub fn encode_nearest(n: [f32; 3]) -> u16 {
    let [x, y, z] = n.map(f64::from);
    let len = libm::sqrt(x * x + y * y + z * z);
    if !(len.is_finite() && len > 0.0) {
        return 0;
    }
    // One byte is 4 of the sine table's 1023 steps a turn.
    let step = core::f64::consts::TAU * 4.0 / 1023.0;
    let lng = libm::acos((z / len).clamp(-1.0, 1.0)) / step;
    let lat = libm::atan2(y, x) / step;
    let around = |v: f64| -> i32 {
        #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
        let r = libm::round(v) as i32; // |v| < 260: no saturation
        r
    };
    // The longitude byte, and its mirror past the pole: the table's period is a little
    // over a turn, so bytes near 128 and 255 decode just past the south and north poles.
    let (b0, mirror) = (around(lng), around(1023.0 / 4.0 - lng));
    let mut best = (f64::NEG_INFINITY, 0u16);
    for b in [b0, mirror]
        .into_iter()
        .flat_map(|c| [c, c.saturating_sub(1), c.saturating_add(1)])
    {
        let Ok(b) = u8::try_from(b) else { continue };
        // Past the south pole (the table's period is a little over a turn) the sine of
        // the longitude is negative and the latitude points the other way.
        let past = engine_sin(usize::from(b).saturating_mul(4)) < 0.0;
        let a0 = around(if past { lat + 1023.0 / 8.0 } else { lat });
        for da in [0, -1, 1] {
            let a = a0.saturating_add(da).to_le_bytes()[0];
            let code = u16::from_le_bytes([b, a]);
            // The cosine of the angle: decoded normals are not all of one length.
            let d = decode_exact(code).map(f64::from);
            let dl = libm::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            let cos = (x * d[0] + y * d[1] + z * d[2]) / dl;
            if cos > best.0 {
                best = (cos, code);
            }
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every normal the engine decodes comes back through [`encode_nearest`] as a normal
    /// that decodes the same (the same raw value off the poles), and a direction is
    /// encoded as near as any of the 65,536 encodings decodes (checked by brute force
    /// on a spread of directions).
    #[test]
    fn nearest_encoding_gives_back_what_the_engine_decodes() {
        let mut same_raw = 0u32;
        for x in 0..=u16::MAX {
            let d = decode_exact(x);
            let back = encode_nearest(d);
            assert_eq!(decode_exact(back), d, "{x:#06x} came back as {back:#06x}");
            if back == x {
                same_raw += 1;
            }
        }
        // Only the poles (longitude 0 and the bytes that decode onto them) repeat.
        assert!(same_raw > 60_000, "{same_raw}");
        // The cosine of the angle between a unit `a` and a decoded `b`.
        let dot = |a: [f32; 3], b: [f32; 3]| {
            let b = b.map(f64::from);
            let bl = libm::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
            (f64::from(a[0]) * b[0] + f64::from(a[1]) * b[1] + f64::from(a[2]) * b[2]) / bl
        };
        for i in 0..200u32 {
            // A spiral over the sphere.
            let t = (f64::from(i) + 0.5) / 200.0;
            let zc = 1.0 - 2.0 * t;
            let r = libm::sqrt(1.0 - zc * zc);
            let phi = f64::from(i) * 2.399_963;
            let n = [
                to_f32(r * libm::cos(phi)),
                to_f32(r * libm::sin(phi)),
                to_f32(zc),
            ];
            let chosen = dot(n, decode_exact(encode_nearest(n)));
            let best = (0..=u16::MAX)
                .map(|c| dot(n, decode_exact(c)))
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(chosen >= best - 1e-9, "{n:?}: {chosen} < {best}");
            // Within half a cell's diagonal (under 1°) of what the engine shows.
            assert!(chosen > libm::cos(1.0_f64.to_radians()), "{n:?}: {chosen}");
        }
    }

    #[test]
    fn the_centre_tables_are_sine_and_cosine() {
        for (k, (lat, lng)) in CENTRE_LAT.iter().zip(&CENTRE_LNG).enumerate() {
            for (t, cells) in [(lat, lat_centre(k)), (lng, lng_centre(k))] {
                let x = cells * CELL;
                assert!((t[0] - libm::sin(x)).abs() < 1e-14, "{k}");
                assert!((t[1] - libm::cos(x)).abs() < 1e-14, "{k}");
            }
        }
    }

    #[test]
    fn every_reachable_encoding_comes_back_from_its_centre() {
        // The encodings `encode` produces: latitude 0..=127, longitude all but 128.
        let mut n = 0;
        for lat in 0..=127u8 {
            for lng in (0..=255u8).filter(|&l| l != 128) {
                let raw = u16::from_le_bytes([lat, lng]);
                assert_eq!(encode(decode_centre(raw)), raw, "lat {lat} lng {lng}");
                n += 1;
            }
        }
        assert_eq!(n, 128 * 255);
    }

    #[allow(clippy::as_conversions)] // test reproduces C's int → float conversion
    fn c_table_entry(i: usize) -> f32 {
        // The argument in f32, exactly as tr_init.c computes it; sin in f64.
        let deg = i as f32 * 360.0f32 / 1023.0f32;
        let rad = (deg * core::f32::consts::PI) / 180.0f32;
        libm::sin(f64::from(rad)) as f32
    }

    #[test]
    fn sin_table_matches_libm() {
        for i in 0..1024 {
            assert_eq!(
                engine_sin(i).to_bits(),
                c_table_entry(i).to_bits(),
                "entry {i}"
            );
        }
    }

    #[test]
    fn exact_decode_by_hand() {
        // hi = 0, lo = 64: x = sin[256]·sin[256], y = sin[0]·sin[256], z = sin[512].
        let n = decode_exact(64);
        let s256 = engine_sin(256);
        assert_eq!(n, [s256 * s256, 0.0, engine_sin(512)]);
        // sin[256] is sin(256·360/1023 deg) = sin(90.088 deg), not exactly 1.
        assert!((s256 - 0.999_998_8).abs() < 1e-6);
        assert!(s256 < 1.0);
        // sin[512] = sin(180.176 deg) is slightly negative.
        assert!(engine_sin(512) < 0.0 && engine_sin(512) > -0.0031);
        // hi = 64 (lat 90 deg), lo = 64: points along +Y.
        let n = decode_exact(u16::from_le_bytes([64, 64]));
        assert_eq!(n[1], engine_sin(256) * engine_sin(256));
        assert_eq!(n[0], engine_sin(512) * engine_sin(256));
    }

    #[test]
    fn exact_and_ideal_differ_by_the_table_error_only() {
        for n in 0..=u16::MAX {
            let a = decode_exact(n);
            let b = decode_ideal(n);
            for k in 0..3 {
                // 1024/1023 scaling of an angle up to 2π moves it by at most ~0.0062 rad.
                assert!((a[k] - b[k]).abs() < 0.0125, "{n}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn encode_axes() {
        assert_eq!(encode([0.0, 0.0, 1.0]), 0);
        assert_eq!(encode([0.0, 0.0, -1.0]), 128);
        // +X: lat 0, lng 90 deg → 63 (255/360 scale, truncated).
        assert_eq!(encode([1.0, 0.0, 0.0]), 63);
        // -Y: lat -90 deg → (int)(-63.75) = -63 → 0xC1.
        assert_eq!(encode([0.0, -1.0, 0.0]) >> 8, 0xC1);
    }

    fn angle_between(a: [f32; 3], b: [f32; 3]) -> f32 {
        let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let la = libm::sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        let lb = libm::sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        libm::acosf((dot / (la * lb)).clamp(-1.0, 1.0))
    }

    /// The documented round-trip bound: truncation loses up to one step (360/255 deg)
    /// on each angle and the 255-vs-256 scale adds up to ~1.4 deg more on lat.
    pub(crate) const ROUND_TRIP_BOUND_RAD: f32 = 0.07;

    proptest::proptest! {
        #[test]
        fn codec_round_trip_within_quantisation(
            x in -1.0f32..1.0, y in -1.0f32..1.0, z in -1.0f32..1.0
        ) {
            let len = libm::sqrtf(x * x + y * y + z * z);
            proptest::prop_assume!(len > 1e-3);
            let n = [x / len, y / len, z / len];
            let e = angle_between(n, decode_ideal(encode(n)));
            proptest::prop_assert!(e < ROUND_TRIP_BOUND_RAD, "error {} rad for {:?}", e, n);
            let e = angle_between(n, decode_exact(encode(n)));
            proptest::prop_assert!(e < ROUND_TRIP_BOUND_RAD + 0.0125, "error {} rad for {:?}", e, n);
        }
    }
}
