//! Normals as 8-bit integers, the one rule every side of a quantized glTF shares: the
//! exporter writes them (`KHR_mesh_quantization`'s normalized `BYTE` normals and morph
//! target normal displacements), the importer reads them back, and an adapter whose way
//! back must be byte-identical (MD3) simulates the trip with the same functions.
//!
//! A base normal is its unit vector × 127, rounded. A morph target's displacement `d` is
//! chosen so that `unit(base) × 127 + d` points along the frame's normal: a client adds
//! the displacement to the base and normalizes, as glTF asks, so the displaced vector
//! need not be unit, only point the right way. That keeps every displacement inside the
//! `[-1, 1]` a normalized byte holds even when the frame's normal turns far from the base
//! (a plain difference of two unit vectors reaches 2). The length is the largest
//! (at most 127) for which every component fits, so the direction is as exact as the
//! byte grid allows.
//!
//! Each function computes in the order given here, component by component; the caller
//! converts axes on the integers (a permutation with signs), never before, so that every
//! side rounds the same floats.
//!
//! ```
//! use idmodel_scene::quantize::{decode_frame_i8, normal_delta_i8, normal_i8};
//! let up = normal_i8([0.0, 0.0, 1.0]);
//! assert_eq!(up, [0, 0, 127]);
//! // A frame whose normal points down: the displacement still fits a byte.
//! let tilted = [0.6, 0.0, 0.8];
//! let d = normal_delta_i8(up, tilted).unwrap();
//! let seen = decode_frame_i8(up, d);
//! assert!((seen[0] - 0.6).abs() < 0.01 && (seen[2] - 0.8).abs() < 0.01);
//! // Past the plane across the base's axis: bytes cannot say it, the target takes floats.
//! assert_eq!(normal_delta_i8(up, [0.0, 0.6, -0.8]), None);
//! ```

use crate::unit_or_up;

/// The largest byte value of a normalized component.
const ONE: f32 = 127.0;

/// A signed normalized byte read as glTF reads it: `max(c / 127, -1)`.
pub fn decode_i8(c: i8) -> f32 {
    (f32::from(c) / ONE).max(-1.0)
}

/// One component, rounded half away from zero (as `x ± 0.5` truncated) and kept within
/// `[-127, 127]`; a NaN gives 0.
fn byte(x: f32) -> i8 {
    let r = (x + if x < 0.0 { -0.5 } else { 0.5 }).clamp(-ONE, ONE);
    // Within ±127 after the clamp: the cast truncates toward zero.
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    let b = r as i8;
    b
}

/// A unit normal as a normalized byte vector: each component × 127, rounded.
pub fn normal_i8(unit: [f32; 3]) -> [i8; 3] {
    unit.map(|c| byte(c * ONE))
}

/// The normalized byte displacement of a morph target whose frame normal is `frame`
/// (unit) over the base `base` (as [`normal_i8`] wrote it): `base` made unit × 127 plus
/// the displacement points along `frame`, at the largest length (at most 127) at which
/// every component of the displacement fits. `None` when no byte displacement comes
/// within [`BYTE_TOLERANCE`] of `frame`: a base within a few degrees of an axis leaves no
/// room to turn past the plane across that axis (the sum's component cannot change
/// sign), and the target's normals are then written as floats ([`TargetNormals`]).
pub fn normal_delta_i8(base: [i8; 3], frame: [f32; 3]) -> Option<[i8; 3]> {
    delta_over(unit_or_up(base.map(decode_i8)), frame)
}

/// [`normal_delta_i8`] over the base's unit vector `unit` (`unit_or_up` of its decoding).
fn delta_over(unit: [f32; 3], frame: [f32; 3]) -> Option<[i8; 3]> {
    let b = unit.map(|c| c * ONE);
    let mut r = ONE;
    for (&n, &bc) in frame.iter().zip(&b) {
        let room = if n > 0.0 {
            (ONE + bc) / n
        } else if n < 0.0 {
            (ONE - bc) / -n
        } else {
            continue;
        };
        r = r.min(room);
    }
    if !(r.is_finite() && r > 0.5) {
        return None;
    }
    let d = [
        byte(r * frame[0] - b[0]),
        byte(r * frame[1] - b[1]),
        byte(r * frame[2] - b[2]),
    ];
    // The angle test without a square root: `sum · frame ≥ tolerance × |sum|` (frame is
    // unit), both sides squared.
    let dd = d.map(decode_i8);
    let sum = [unit[0] + dd[0], unit[1] + dd[1], unit[2] + dd[2]];
    let dot = sum[0] * frame[0] + sum[1] * frame[1] + sum[2] * frame[2];
    let len2 = sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2];
    (dot > 0.0 && dot * dot >= BYTE_TOLERANCE * BYTE_TOLERANCE * len2).then_some(d)
}

/// The cosine of the largest angle (about 2.6°) a byte displacement may leave between a
/// frame's normal and what a reader sees; farther, the target's normals are floats.
pub const BYTE_TOLERANCE: f32 = 0.999;

/// The float displacement of a morph target's normal when bytes do not reach it: the
/// frame normal less the base made unit.
pub fn normal_delta_f32(base: [i8; 3], frame: [f32; 3]) -> [f32; 3] {
    let b = unit_or_up(base.map(decode_i8));
    [frame[0] - b[0], frame[1] - b[1], frame[2] - b[2]]
}

/// The frame normal a reader of [`normal_i8`] and [`normal_delta_i8`] sees: the base made
/// unit plus the displacement, made unit.
pub fn decode_frame_i8(base: [i8; 3], delta: [i8; 3]) -> [f32; 3] {
    decode_frame_f32(base, delta.map(decode_i8))
}

/// The frame normal a reader sees from a byte base and a float displacement.
pub fn decode_frame_f32(base: [i8; 3], delta: [f32; 3]) -> [f32; 3] {
    seen_over(unit_or_up(base.map(decode_i8)), delta)
}

/// The frame normal a reader sees over the base's unit vector `unit`.
fn seen_over(unit: [f32; 3], delta: [f32; 3]) -> [f32; 3] {
    unit_or_up([unit[0] + delta[0], unit[1] + delta[1], unit[2] + delta[2]])
}

/// One morph target's normal displacements as written: bytes when every vertex's fits
/// ([`normal_delta_i8`]), else floats for the whole target ([`normal_delta_f32`]).
#[derive(Debug, Clone, PartialEq)]
pub enum TargetNormals {
    /// Normalized byte displacements, one per vertex.
    Bytes(alloc::vec::Vec<[i8; 3]>),
    /// Float displacements, one per vertex.
    Floats(alloc::vec::Vec<[f32; 3]>),
}

/// A primitive's base normals as bytes ([`normal_i8`]), with the unit vectors a reader
/// makes of them, computed once for all its morph targets.
#[derive(Debug, Clone, PartialEq)]
pub struct BaseNormals {
    bytes: alloc::vec::Vec<[i8; 3]>,
    units: alloc::vec::Vec<[f32; 3]>,
}

impl BaseNormals {
    /// The byte form of unit normals `units`.
    pub fn new(units: impl Iterator<Item = [f32; 3]>) -> Self {
        let bytes: alloc::vec::Vec<[i8; 3]> = units.map(normal_i8).collect();
        let units = bytes.iter().map(|b| unit_or_up(b.map(decode_i8))).collect();
        Self { bytes, units }
    }

    /// The bytes, one per vertex.
    pub fn bytes(&self) -> &[[i8; 3]] {
        &self.bytes
    }

    /// The base normal a reader sees at vertex `v` (made unit).
    pub fn seen(&self, v: usize) -> [f32; 3] {
        self.units.get(v).copied().unwrap_or([0.0, 0.0, 1.0])
    }

    /// The displacements of a target whose frame normals (unit) are `frames`, one per
    /// vertex (missing base normals count as up).
    pub fn target(&self, frames: impl ExactSizeIterator<Item = [f32; 3]> + Clone) -> TargetNormals {
        let mut bytes = alloc::vec::Vec::with_capacity(frames.len());
        for (v, frame) in frames.clone().enumerate() {
            match delta_over(self.seen(v), frame) {
                Some(d) => bytes.push(d),
                None => {
                    return TargetNormals::Floats(
                        frames
                            .enumerate()
                            .map(|(v, f)| {
                                let b = self.seen(v);
                                [f[0] - b[0], f[1] - b[1], f[2] - b[2]]
                            })
                            .collect(),
                    );
                }
            }
        }
        TargetNormals::Bytes(bytes)
    }

    /// The frame normal a reader sees at vertex `v` of target `t`.
    pub fn seen_in(&self, t: &TargetNormals, v: usize) -> [f32; 3] {
        let d = match t {
            TargetNormals::Bytes(d) => d.get(v).copied().unwrap_or_default().map(decode_i8),
            TargetNormals::Floats(d) => d.get(v).copied().unwrap_or_default(),
        };
        seen_over(self.seen(v), d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use idmodel_core::vec::dot;

    fn unit(v: [f32; 3]) -> [f32; 3] {
        unit_or_up(v)
    }

    #[test]
    fn a_base_normal_is_within_a_degree() {
        for v in [[1.0, 2.0, 3.0], [-0.3, 0.1, -0.9], [0.0, -1.0, 0.0]] {
            let n = unit(v);
            let q = normal_i8(n);
            assert!(dot(unit(q.map(decode_i8)), n) > 0.9998, "{v:?}");
        }
    }

    #[test]
    fn every_frame_normal_comes_back_within_tolerance_in_bytes_or_floats() {
        let dirs: Vec<[f32; 3]> = (0..40)
            .map(|i| {
                let t = i as f32 * 0.7;
                unit([
                    libm::sinf(t),
                    libm::cosf(t * 1.3),
                    libm::sinf(t * 0.4) - 0.2,
                ])
            })
            .chain([[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [1.0, 0.0, 0.0]])
            .collect();
        let mut bytes = 0;
        for &base in &dirs {
            let qb = normal_i8(base);
            for &frame in &dirs {
                match normal_delta_i8(qb, frame) {
                    Some(d) => {
                        bytes += 1;
                        assert!(dot(decode_frame_i8(qb, d), frame) >= BYTE_TOLERANCE);
                    }
                    None => {
                        let d = normal_delta_f32(qb, frame);
                        assert!(dot(decode_frame_f32(qb, d), frame) > 0.99999, "{base:?}");
                    }
                }
            }
        }
        // Most pairs fit a byte; the rest are those that cross an axis' plane.
        assert!(bytes * 10 > dirs.len() * dirs.len() * 7, "{bytes}");
    }

    #[test]
    fn a_target_falls_back_to_floats_as_a_whole() {
        let base = BaseNormals::new([[0.0, 0.0, 1.0], unit([1.0, 1.0, 1.0])].into_iter());
        let near = [unit([0.1, 0.0, 1.0]), unit([1.0, 1.2, 1.0])];
        let t = base.target(near.iter().copied());
        assert!(matches!(t, TargetNormals::Bytes(_)));
        assert!(dot(base.seen_in(&t, 1), near[1]) >= BYTE_TOLERANCE);
        let flipped = [[0.0, 0.0, -1.0], unit([1.0, 1.2, 1.0])];
        let t = base.target(flipped.iter().copied());
        assert!(matches!(&t, TargetNormals::Floats(d) if d.len() == 2));
        assert!(dot(base.seen_in(&t, 0), flipped[0]) > 0.99999);
        // The rounding: half away from zero.
        assert_eq!(normal_i8([0.5 / 127.0, -0.5 / 127.0, 1.0]), [1, -1, 127]);
    }
}
