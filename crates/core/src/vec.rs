//! Small `[f32; 3]` and quaternion helpers shared by the scene adapters, the renderer and
//! the writers: plain IEEE operations in a fixed order (and `libm` square roots), so
//! every build gives the same bits.
//!
//! ```
//! use idmodel_core::vec::{cross, dot, quat_from_axes, unit};
//! assert_eq!(cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]);
//! assert_eq!(dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]), 32.0);
//! assert_eq!(unit([0.0, 3.0, 4.0], 1e-6), Some([0.0, 0.6, 0.8]));
//! // Axis rows forward, left, up of the identity orientation: the identity rotation.
//! let q = quat_from_axes(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
//! assert_eq!(q, [0.0, 0.0, 0.0, 1.0]);
//! ```

use crate::quat::{IDENTITY, Mat3, Quat, Vec3, rotate};

/// `a + b`.
pub fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
pub fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a · s`.
pub fn scale(a: Vec3, s: f32) -> Vec3 {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// `s · x + y` (no fused multiply-add: the same bits everywhere).
pub fn axpy(s: f32, x: Vec3, y: Vec3) -> Vec3 {
    [s * x[0] + y[0], s * x[1] + y[1], s * x[2] + y[2]]
}

/// The dot product, summed left to right.
pub fn dot(a: Vec3, b: Vec3) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The cross product `a × b`.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The Euclidean length.
pub fn length(a: Vec3) -> f32 {
    libm::sqrtf(dot(a, a))
}

/// `v` divided by its length, or `None` when the length is not finite or not above
/// `min_len`.
pub fn unit(v: Vec3, min_len: f32) -> Option<Vec3> {
    let len = length(v);
    (len.is_finite() && len > min_len).then(|| [v[0] / len, v[1] / len, v[2] / len])
}

/// Every non-finite component replaced by 0.
pub fn finite_or_zero<const N: usize>(v: [f32; N]) -> [f32; N] {
    v.map(|x| if x.is_finite() { x } else { 0.0 })
}

/// The conjugate `(−x, −y, −z, w)`.
pub fn quat_conj(q: Quat) -> Quat {
    [-q[0], -q[1], -q[2], q[3]]
}

/// The 4-component dot product, summed left to right.
pub fn quat_dot(a: Quat, b: Quat) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
}

/// `q` divided by its length; the identity when the length is not finite or not above
/// `1e-12`.
pub fn quat_unit(q: Quat) -> Quat {
    let len = libm::sqrtf(quat_dot(q, q));
    if len.is_finite() && len > 1e-12 {
        q.map(|x| x / len)
    } else {
        IDENTITY
    }
}

/// Flips signs so that consecutive keys take the short way (non-negative dot product
/// with the previous key), as a slerp between them would.
pub fn quat_continuous(qs: &mut [Quat]) {
    let mut prev: Option<Quat> = None;
    for q in qs.iter_mut() {
        if let Some(p) = prev {
            if quat_dot(p, *q) < 0.0 {
                *q = q.map(|x| -x);
            }
        }
        prev = Some(*q);
    }
}

/// The column-major 4×4 matrix of the rigid transform "rotate by `q` (standard
/// convention), then translate by `t`".
pub fn rigid_matrix(q: Quat, t: Vec3) -> [f32; 16] {
    let x = rotate(q, [1.0, 0.0, 0.0]);
    let y = rotate(q, [0.0, 1.0, 0.0]);
    let z = rotate(q, [0.0, 0.0, 1.0]);
    [
        x[0], x[1], x[2], 0.0, //
        y[0], y[1], y[2], 0.0, //
        z[0], z[1], z[2], 0.0, //
        t[0], t[1], t[2], 1.0,
    ]
}

/// The rotation whose local X, Y, Z axes are the three rows of `axis` (an MD3 tag's
/// forward, left, up), as a unit quaternion `[x, y, z, w]` in the standard convention
/// with `w ≥ 0`.
///
/// The rows are made orthonormal first (Gram–Schmidt from forward; left made
/// perpendicular to it, or derived from up × forward when it is parallel; up rebuilt as
/// forward × left, so a mirrored axis becomes a rotation), then converted with
/// Shepperd's method. A degenerate or non-finite axis gives the identity.
pub fn quat_from_axes(axis: &Mat3) -> Quat {
    let [fwd, left, up] = *axis;
    let Some(x) = unit(fwd, 1e-6) else {
        return IDENTITY;
    };
    let y = unit(axpy(-dot(left, x), x, left), 1e-6).or_else(|| unit(cross(up, x), 1e-6));
    let Some(y) = y else {
        return IDENTITY;
    };
    let z = cross(x, y);
    // R has the axes as columns: R[r][c] = axis_c[r].
    let (m00, m01, m02) = (x[0], y[0], z[0]);
    let (m10, m11, m12) = (x[1], y[1], z[1]);
    let (m20, m21, m22) = (x[2], y[2], z[2]);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let s = libm::sqrtf(trace + 1.0) * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s]
    } else if m00 > m11 && m00 > m22 {
        let s = libm::sqrtf((1.0 + m00 - m11 - m22).max(0.0)) * 2.0;
        [0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 > m22 {
        let s = libm::sqrtf((1.0 + m11 - m00 - m22).max(0.0)) * 2.0;
        [(m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = libm::sqrtf((1.0 + m22 - m00 - m11).max(0.0)) * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s]
    };
    let len = libm::sqrtf(quat_dot(q, q));
    if !len.is_finite() || len < 1e-6 {
        return IDENTITY;
    }
    let sign = if q[3] < 0.0 { -1.0 } else { 1.0 };
    q.map(|c| c * sign / len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_round_trip_through_the_quaternion() {
        // 90° about Z: forward is +Y, left is −X.
        let q = quat_from_axes(&[[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
        let f = rotate(q, [1.0, 0.0, 0.0]);
        assert!((f[1] - 1.0).abs() < 1e-6 && f[0].abs() < 1e-6, "{f:?}");
        assert!(q[3] >= 0.0);
    }

    #[test]
    fn degenerate_axes_give_the_identity() {
        assert_eq!(quat_from_axes(&[[0.0; 3]; 3]), IDENTITY);
        assert_eq!(
            quat_from_axes(&[[f32::NAN, 0.0, 0.0], [0.0; 3], [0.0; 3]]),
            IDENTITY
        );
    }

    #[test]
    fn continuity_flips_the_long_way_round() {
        let mut qs = [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, -1.0]];
        quat_continuous(&mut qs);
        assert_eq!(qs[1], [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn unit_refuses_short_and_non_finite_vectors() {
        assert_eq!(unit([0.0; 3], 1e-6), None);
        assert_eq!(unit([f32::INFINITY, 0.0, 0.0], 1e-6), None);
        assert_eq!(quat_unit([0.0; 4]), IDENTITY);
    }
}
