//! Doom 3 quaternion and joint maths, reproduced operation for operation (docs/formats.md §4.5).
//!
//! # Conventions
//!
//! A [`Quat`] is `[x, y, z, w]`. MD5 files store only `(x, y, z)`; Doom 3 rebuilds
//! `w = +sqrt(|1 − x² − y² − z²|)` ([`calc_w`]), so `w ≥ 0` always.
//!
//! Doom 3 builds the standard rotation matrix `R(q)` (`idQuat::ToMat3`) but stores its
//! **transpose** in the joint matrix (`idJointMat::SetRotation`), so the rotation it
//! applies to a vector is `R(q)ᵀ = R(q*)`: the *conjugate* of the quaternion as written.
//! [`doom_rotate`] and [`JointMat`] do exactly that.
//!
//! Libraries that use `v' = q·v·q⁻¹` (glam, nalgebra, glTF) must be handed
//! [`to_standard`]`(q)` = `(−x, −y, −z, w)`; the two conventions then give the same
//! vectors:
//!
//! ```
//! use idmodel_core::quat::{doom_quat, doom_rotate, rotate, to_standard};
//! // Stored (0, 0, 0.7071): Doom turns +X into −Y (−90° about Z).
//! let q = doom_quat([0.0, 0.0, 0.70710677]);
//! let v = doom_rotate(q, [1.0, 0.0, 0.0]);
//! assert!(v[0].abs() < 1e-6 && (v[1] + 1.0).abs() < 1e-6);
//! let s = rotate(to_standard(q), [1.0, 0.0, 0.0]);
//! assert!((s[0] - v[0]).abs() < 1e-6 && (s[1] - v[1]).abs() < 1e-6);
//! ```

/// A 3-vector.
pub type Vec3 = [f32; 3];
/// A quaternion `[x, y, z, w]`.
pub type Quat = [f32; 4];
/// A 3×3 matrix, `m[row][col]`.
pub type Mat3 = [[f32; 3]; 3];

/// The identity quaternion.
pub const IDENTITY: Quat = [0.0, 0.0, 0.0, 1.0];

#[path = "isqrt_table.rs"]
mod isqrt_table;

/// One entry of Doom 3's `idMath::iSqrt` seed table (the index is masked to `0..512`).
fn isqrt_seed(i: u32) -> u32 {
    let i = usize::try_from(i & 511).unwrap_or(0);
    isqrt_table::ISQRT.get(i).copied().unwrap_or(0)
}

/// One entry of the seed table computed as `idMath::Init` does (the table's reference).
#[cfg(test)]
#[allow(clippy::as_conversions)] // bit manipulation of IEEE-754 values, as Doom does
fn isqrt_seed_computed(i: u32) -> u32 {
    const EXP_POS: u32 = 23;
    const LOOKUP_POS: u32 = EXP_POS - 8;
    const SEED_POS: u32 = EXP_POS - 8;
    const TABLE_SIZE: u32 = 2 << 8;
    if i == TABLE_SIZE / 2 {
        return 0xFF << SEED_POS;
    }
    let fi = f32::from_bits((126 << EXP_POS) | (i << LOOKUP_POS));
    let fo = (1.0 / libm::sqrt(f64::from(fi))) as f32;
    ((fo.to_bits().wrapping_add(1 << (SEED_POS - 2)) >> SEED_POS) & 0xFF) << SEED_POS
}

/// `idMath::InvSqrt`: a table seed refined by two Newton steps in `f64`, rounded to f32.
#[allow(clippy::as_conversions)]
pub fn doom_inv_sqrt(x: f32) -> f32 {
    let a = x.to_bits();
    let y = f64::from(x * 0.5);
    let exp = (a >> 23) & 0xFF;
    let seed = ((380u32.wrapping_sub(exp) >> 1) << 23) | isqrt_seed((a >> 15) & 511);
    let mut r = f64::from(f32::from_bits(seed));
    r *= 1.5 - r * r * y;
    r *= 1.5 - r * r * y;
    r as f32
}

/// `idMath::Sqrt(x) = x · InvSqrt(x)` (0 for 0).
pub fn doom_sqrt(x: f32) -> f32 {
    x * doom_inv_sqrt(x)
}

/// `idMath::RSqrt`: the `0x5f3759df` estimate with **one** Newton step, used by Doom 3's
/// normal and tangent code. Up to about 0.2 % off.
pub fn doom_rsqrt(x: f32) -> f32 {
    let y = x * 0.5;
    let i = 0x5f37_59dfu32.wrapping_sub(x.to_bits() >> 1);
    let r = f32::from_bits(i);
    r * (1.5 - r * r * y)
}

/// Doom 3's `w` rule (`idQuat::CalcW`, `idCQuat::ToQuat`):
/// `w = idMath::Sqrt(fabs(1 − (x² + y² + z²)))`, so `w ≥ 0`, and a radicand below zero
/// (|xyz| > 1 from rounding) is taken by absolute value rather than clamped.
///
/// ```
/// use idmodel_core::quat::calc_w;
/// assert_eq!(calc_w(0.0, 0.0, 0.0), 1.0);
/// // Radicand 1 − 1.21 = −0.21: Doom takes |−0.21| and returns √0.21 (not 0, not NaN).
/// assert!((calc_w(1.1, 0.0, 0.0) - 0.21f32.sqrt()).abs() < 1e-6);
/// ```
pub fn calc_w(x: f32, y: f32, z: f32) -> f32 {
    doom_sqrt(libm::fabsf(1.0 - (x * x + y * y + z * z)))
}

/// The full quaternion Doom 3 makes from stored `(x, y, z)`.
pub fn doom_quat(xyz: Vec3) -> Quat {
    let [x, y, z] = xyz;
    [x, y, z, calc_w(x, y, z)]
}

/// Converts a Doom quaternion to the `q·v·q⁻¹` convention: its conjugate `(−x, −y, −z, w)`.
pub fn to_standard(q: Quat) -> Quat {
    [-q[0], -q[1], -q[2], q[3]]
}

/// Converts a `q·v·q⁻¹` quaternion to Doom's form, with `w ≥ 0` as Doom stores it.
pub fn from_standard(q: Quat) -> Quat {
    let c = [-q[0], -q[1], -q[2], q[3]];
    if c[3] < 0.0 {
        [-c[0], -c[1], -c[2], -c[3]]
    } else {
        c
    }
}

/// `idQuat::ToMat3`: the standard rotation matrix `R(q)`, `m[row][col]`, with Doom's
/// operation order.
pub fn to_mat3(q: Quat) -> Mat3 {
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    [
        [1.0 - (yy + zz), xy - wz, xz + wy],
        [xy + wz, 1.0 - (xx + zz), yz - wx],
        [xz - wy, yz + wx, 1.0 - (xx + yy)],
    ]
}

/// Rotates `v` as Doom 3 does: by `R(q)ᵀ` (`idMat3 * idVec3` and `idJointMat`).
pub fn doom_rotate(q: Quat, v: Vec3) -> Vec3 {
    JointMat::from_quat(q, [0.0; 3]).transform(v)
}

/// Rotates `v` by `q` in the usual `q·v·q⁻¹` convention (Hamilton product).
pub fn rotate(q: Quat, v: Vec3) -> Vec3 {
    let [x, y, z, w] = q;
    // t = 2 · (q.xyz × v)
    let t = [
        2.0 * (y * v[2] - z * v[1]),
        2.0 * (z * v[0] - x * v[2]),
        2.0 * (x * v[1] - y * v[0]),
    ];
    [
        v[0] + w * t[0] + (y * t[2] - z * t[1]),
        v[1] + w * t[1] + (z * t[0] - x * t[2]),
        v[2] + w * t[2] + (x * t[1] - y * t[0]),
    ]
}

/// Hamilton product `a·b` (apply `b` first, then `a`, in the standard convention).
pub fn mul(a: Quat, b: Quat) -> Quat {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// A Doom 3 joint transform (`idJointMat`): a 3×4 matrix whose 3×3 part is the rotation
/// *as applied* (`R(q)ᵀ`) and whose last column is the translation.
///
/// ```
/// use idmodel_core::quat::{doom_quat, JointMat};
/// // A parent at (0, 0, 32) with no rotation; a child 8 units up from it.
/// let parent = JointMat::from_quat(doom_quat([0.0; 3]), [0.0, 0.0, 32.0]);
/// let local = JointMat::from_quat(doom_quat([0.0; 3]), [0.0, 0.0, 8.0]);
/// let world = JointMat::compose(&parent, &local);
/// assert_eq!(world.translation(), [0.0, 0.0, 40.0]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointMat {
    /// Row-major 3×4: `m[r][0..3]` rotation as applied, `m[r][3]` translation.
    pub m: [[f32; 4]; 3],
}

impl JointMat {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        m: [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ],
    };

    /// `SetRotation(q.ToMat3())` + `SetTranslation(t)`: stores the transpose of `R(q)`.
    pub fn from_quat(q: Quat, t: Vec3) -> Self {
        let r = to_mat3(q);
        Self {
            m: [
                [r[0][0], r[1][0], r[2][0], t[0]],
                [r[0][1], r[1][1], r[2][1], t[1]],
                [r[0][2], r[1][2], r[2][2], t[2]],
            ],
        }
    }

    /// The translation column.
    pub fn translation(&self) -> Vec3 {
        [self.m[0][3], self.m[1][3], self.m[2][3]]
    }

    /// The applied rotation as a matrix (`m[row][col]`).
    pub fn rotation(&self) -> Mat3 {
        let m = &self.m;
        [
            [m[0][0], m[0][1], m[0][2]],
            [m[1][0], m[1][1], m[1][2]],
            [m[2][0], m[2][1], m[2][2]],
        ]
    }

    /// `idJointMat * idVec3`: `R·v + t`.
    pub fn transform(&self, v: Vec3) -> Vec3 {
        let m = &self.m;
        [
            m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2] + m[0][3],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2] + m[1][3],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2] + m[2][3],
        ]
    }

    /// `idJointMat * idVec4`: `R·v.xyz + t·v.w`, the form Doom uses for pre-scaled
    /// weights (`offset·bias, bias`).
    pub fn transform4(&self, v: [f32; 4]) -> Vec3 {
        let m = &self.m;
        [
            m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2] + m[0][3] * v[3],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2] + m[1][3] * v[3],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2] + m[2][3] * v[3],
        ]
    }

    /// Rotation only (no translation).
    pub fn rotate(&self, v: Vec3) -> Vec3 {
        let m = &self.m;
        [
            m[0][0] * v[0] + m[0][1] * v[1] + m[0][2] * v[2],
            m[1][0] * v[0] + m[1][1] * v[1] + m[1][2] * v[2],
            m[2][0] * v[0] + m[2][1] * v[1] + m[2][2] * v[2],
        ]
    }

    /// `world = parent ∘ local` (`local *= parent` in `TransformJoints`):
    /// `R_w = R_p·R_l`, `t_w = R_p·t_l + t_p`, with Doom's summation order.
    pub fn compose(parent: &Self, local: &Self) -> Self {
        let a = &parent.m;
        let l = &local.m;
        let mut out = [[0.0f32; 4]; 3];
        for (r, row) in out.iter_mut().enumerate() {
            let ar = a.get(r).copied().unwrap_or([0.0; 4]);
            for (c, cell) in row.iter_mut().enumerate() {
                let col = |k: usize| l.get(k).and_then(|row| row.get(c)).copied().unwrap_or(0.0);
                let sum = col(0) * ar[0] + col(1) * ar[1] + col(2) * ar[2];
                *cell = if c == 3 { sum + ar[3] } else { sum };
            }
        }
        Self { m: out }
    }
}

/// Doom's `idMath::Sin16`: a polynomial sine after range reduction.
#[allow(clippy::excessive_precision)] // coefficients as Doom's Math.h writes them
pub fn sin16(a: f32) -> f32 {
    use core::f32::consts::PI;
    const TWO_PI: f32 = 2.0 * PI;
    const HALF_PI: f32 = 0.5 * PI;
    let mut a = a;
    if !(0.0..TWO_PI).contains(&a) {
        a -= libm::floorf(a / TWO_PI) * TWO_PI;
    }
    if a < PI {
        if a > HALF_PI {
            a = PI - a;
        }
    } else if a > PI + HALF_PI {
        a -= TWO_PI;
    } else {
        a = PI - a;
    }
    let s = a * a;
    a * (((((-2.39e-08f32 * s + 2.7526e-06) * s - 1.98409e-04) * s + 8.333_331_5e-3) * s
        - 1.666_666_7e-1)
        * s
        + 1.0)
}

#[allow(clippy::excessive_precision)] // coefficients as Doom's Math.h writes them
fn atan16_poly(a: f32) -> f32 {
    let s = a * a;
    (((((((((0.002_866_225_7f32 * s - 0.016_165_737) * s + 0.042_909_614) * s - 0.075_289_64)
        * s
        + 0.106_562_64)
        * s
        - 0.142_088_99)
        * s
        + 0.199_935_51)
        * s
        - 0.333_331_45)
        * s)
        + 1.0)
        * a
}

/// Doom's `idMath::ATan16(y, x)`: a polynomial arctangent.
pub fn atan16(y: f32, x: f32) -> f32 {
    const HALF_PI: f32 = 0.5 * core::f32::consts::PI;
    if libm::fabsf(y) > libm::fabsf(x) {
        let a = x / y;
        let s = -atan16_poly(a);
        if a.is_sign_negative() {
            s - HALF_PI
        } else {
            s + HALF_PI
        }
    } else {
        atan16_poly(y / x)
    }
}

/// `idQuat::Slerp` exactly as Doom 3 computes it (used by `BlendJoints` and the camera):
///
/// * `t ≤ 0` returns `from`, `t ≥ 1` returns `to`, `from == to` returns `to`;
/// * a negative dot product flips the sign of `to`;
/// * `1 − cos ≤ 1e-6` falls back to a plain lerp (not renormalised);
/// * otherwise the weights come from `InvSqrt`, `ATan16` and `Sin16` (approximations).
///
/// ```
/// use idmodel_core::quat::{doom_quat, slerp_doom};
/// let a = doom_quat([0.0, 0.0, 0.0]);
/// let b = doom_quat([0.0, 0.0, 0.70710677]);
/// let m = slerp_doom(a, b, 0.5);
/// assert!((m[2] - 0.38268343).abs() < 1e-4 && (m[3] - 0.9238795).abs() < 1e-4);
/// assert_eq!(slerp_doom(a, b, 0.0), a);
/// assert_eq!(slerp_doom(a, b, 1.0), b);
/// ```
pub fn slerp_doom(from: Quat, to: Quat, t: f32) -> Quat {
    if t <= 0.0 {
        return from;
    }
    if t >= 1.0 {
        return to;
    }
    if from == to {
        return to;
    }
    let mut cosom = from[0] * to[0] + from[1] * to[1] + from[2] * to[2] + from[3] * to[3];
    let temp = if cosom < 0.0 {
        cosom = -cosom;
        [-to[0], -to[1], -to[2], -to[3]]
    } else {
        to
    };
    let (scale0, scale1) = if (1.0 - cosom) > 1e-6 {
        let s0 = 1.0 - cosom * cosom;
        let sinom = doom_inv_sqrt(s0);
        let omega = atan16(s0 * sinom, cosom);
        (sin16((1.0 - t) * omega) * sinom, sin16(t * omega) * sinom)
    } else {
        (1.0 - t, t)
    };
    [
        scale0 * from[0] + scale1 * temp[0],
        scale0 * from[1] + scale1 * temp[1],
        scale0 * from[2] + scale1 * temp[2],
        scale0 * from[3] + scale1 * temp[3],
    ]
}

/// Normalised linear interpolation along the shorter arc: cheaper than slerp and
/// convention-agnostic (works for Doom and standard quaternions alike).
pub fn nlerp(from: Quat, to: Quat, t: f32) -> Quat {
    let dot = from[0] * to[0] + from[1] * to[1] + from[2] * to[2] + from[3] * to[3];
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let u = 1.0 - t;
    let q = [
        u * from[0] + t * sign * to[0],
        u * from[1] + t * sign * to[1],
        u * from[2] + t * sign * to[2],
        u * from[3] + t * sign * to[3],
    ];
    let len = libm::sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if len > 0.0 && len.is_finite() {
        [q[0] / len, q[1] / len, q[2] / len, q[3] / len]
    } else {
        from
    }
}

/// Linear interpolation of two points (`idVec3::Lerp`: endpoints returned exactly).
pub fn lerp3(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    if t <= 0.0 {
        a
    } else if t >= 1.0 {
        b
    } else {
        [
            a[0] + t * (b[0] - a[0]),
            a[1] + t * (b[1] - a[1]),
            a[2] + t * (b[2] - a[2]),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32], eps: f32) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() <= eps)
    }

    #[test]
    fn isqrt_table_matches_init() {
        for i in 0..512 {
            assert_eq!(isqrt_seed(i), isqrt_seed_computed(i), "entry {i}");
        }
    }

    #[test]
    fn w_rule() {
        assert_eq!(calc_w(0.0, 0.0, 0.0), 1.0);
        assert!((calc_w(0.6, 0.0, 0.0) - 0.8).abs() < 1e-6);
        assert!(calc_w(0.0, 0.0, 1.0) == 0.0);
        // Negative radicand: 1 − (1.0 + 0.04 + 0.0) = −0.04 → w = +0.2, never NaN.
        let w = calc_w(1.0, 0.2, 0.0);
        assert!((w - 0.2).abs() < 1e-6, "{w}");
        assert!(w >= 0.0);
    }

    #[test]
    fn doom_sqrt_is_close_to_sqrt() {
        for &x in &[0.0f32, 1e-8, 0.21, 0.5, 1.0, 2.0, 1234.5] {
            let d = doom_sqrt(x);
            assert!((d - x.sqrt()).abs() <= x.sqrt() * 1e-6, "{x}: {d}");
        }
    }

    #[test]
    fn rotation_example_of_section_4_5() {
        let q = doom_quat([0.0, 0.0, 0.70710677]);
        let v = doom_rotate(q, [1.0, 0.0, 0.0]);
        assert!(close(&v, &[0.0, -1.0, 0.0], 1e-6), "{v:?}");
        let s = rotate(to_standard(q), [1.0, 0.0, 0.0]);
        assert!(close(&s, &[0.0, -1.0, 0.0], 1e-6), "{s:?}");
        assert!(close(&from_standard(to_standard(q)), &q, 0.0));
    }

    #[test]
    fn composition_applies_local_first() {
        // Parent turned −90° about Z (Doom form of stored (0,0,0.7071)), at (10, 0, 0).
        let parent = JointMat::from_quat(doom_quat([0.0, 0.0, 0.70710677]), [10.0, 0.0, 0.0]);
        let local = JointMat::from_quat(IDENTITY, [1.0, 0.0, 0.0]);
        let w = JointMat::compose(&parent, &local);
        // The child's offset +X is turned to −Y by the parent.
        assert!(close(&w.translation(), &[10.0, -1.0, 0.0], 1e-6));
        // And a point in the child's frame goes through both.
        let p = w.transform([1.0, 0.0, 0.0]);
        assert!(close(&p, &[10.0, -2.0, 0.0], 1e-6), "{p:?}");
    }

    #[test]
    fn weights_as_doom_skins_them() {
        // The seed's worked example: joint at (0,0,32), weight offset (0,0,8), bias 1.
        let j = JointMat::from_quat(IDENTITY, [0.0, 0.0, 32.0]);
        assert_eq!(j.transform4([0.0, 0.0, 8.0, 1.0]), [0.0, 0.0, 40.0]);
    }

    #[test]
    fn slerp_doom_matches_exact_slerp_closely() {
        let a = doom_quat([0.1, 0.2, 0.3]);
        let b = doom_quat([-0.4, 0.1, 0.5]);
        for i in 1..10u8 {
            let t = f32::from(i) / 10.0;
            let d = slerp_doom(a, b, t);
            let n = nlerp(a, b, t);
            // The 16-bit approximations stay within ~1e-3 of the true arc.
            assert!(close(&d, &n, 2e-2), "{t}: {d:?} {n:?}");
            let len = (d.iter().map(|x| x * x).sum::<f32>()).sqrt();
            assert!((len - 1.0).abs() < 1e-3);
        }
    }

    #[test]
    fn slerp_doom_flips_to_short_arc_and_lerps_when_close() {
        let a = IDENTITY;
        let b = [0.0, 0.0, 0.0, -1.0]; // same rotation, opposite sign
        let m = slerp_doom(a, b, 0.5);
        assert!(close(&m, &[0.0, 0.0, 0.0, 1.0], 1e-6), "{m:?}");
    }

    #[test]
    fn trig_approximations() {
        for i in -20..20i8 {
            let a = f32::from(i) * 0.37;
            assert!((sin16(a) - a.sin()).abs() < 1e-5, "sin16({a})");
        }
        for (y, x) in [(0.3f32, 0.9f32), (0.9, 0.3), (-0.5, 0.1), (0.2, -0.7)] {
            assert!((atan16(y, x) - (y / x).atan()).abs() < 1e-5 || y.abs() > x.abs());
        }
        assert!((atan16(0.9, 0.3) - 0.9f32.atan2(0.3)).abs() < 1e-5);
    }
}
