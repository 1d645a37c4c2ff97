//! Normals as 8-bit integers, the one rule every side of a quantized glTF shares: the
//! exporter writes them (`KHR_mesh_quantization`'s normalized `BYTE` normals and morph
//! target normal displacements), the importer reads them back, and an adapter whose way
//! back must be byte-identical (MD3) simulates the trip with the same functions.
//!
//! A base normal is its unit vector × 127, rounded. A morph target's displacement `d` is
//! chosen so that `base + d` (both as bytes) points along the frame's normal: a renderer
//! adds the displacement to the base as it reads it and normalizes, as glTF asks, so the
//! displaced vector need not be unit, only point the right way. That keeps every displacement inside the
//! `[-1, 1]` a normalized byte holds even when the frame's normal turns far from the base
//! (a plain difference of two unit vectors reaches 2). The length is the largest
//! (at most 127) for which every component fits, so the direction is as exact as the
//! byte grid allows.
//!
//! Near an axis a base leaves no room for a frame whose normal crosses the plane across
//! it. Such a vertex gets a **hidden base** ([`hidden_base`]): the diagonal of the octant
//! its normal points into, from which every direction is within reach. Its frame-0
//! normal is then a displacement too, so the glTF mesh takes frame 0 as its first morph
//! target, shown at rest (the mesh's `weights` are `[1, 0, …]`); [`fold_base`] and
//! [`fold_target`] turn that layout back into a base that is frame 0.
//!
//! The importer's scene and the MD3 way back make the base unit before adding a
//! displacement ([`BaseNormals::seen_in`]); that differs from a renderer's view by a
//! fraction of a degree, and the MD3 record keeps every normal that view does not bring
//! back.
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
    delta_over(base.map(decode_i8), frame)
}

/// [`normal_delta_i8`] over the base as decoded, `read`: a renderer adds the displacement
/// to the base as it reads it (within half a step of unit length, not made unit), so the
/// direction is chosen and checked for that sum.
fn delta_over(read: [f32; 3], frame: [f32; 3]) -> Option<[i8; 3]> {
    let b = read.map(|c| c * ONE);
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
    let sum = [read[0] + dd[0], read[1] + dd[1], read[2] + dd[2]];
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

/// The frame normal a renderer shows from [`normal_i8`] and [`normal_delta_i8`]: the base
/// as decoded plus the displacement, made unit.
pub fn decode_frame_i8(base: [i8; 3], delta: [i8; 3]) -> [f32; 3] {
    seen_over(base.map(decode_i8), delta.map(decode_i8))
}

/// The frame normal a reader that makes the base unit first sees from a byte base and a
/// float displacement (the float form's rule, [`normal_delta_f32`]).
pub fn decode_frame_f32(base: [i8; 3], delta: [f32; 3]) -> [f32; 3] {
    seen_over(unit_or_up(base.map(decode_i8)), delta)
}

/// The frame normal a reader sees over the base's unit vector `unit`.
fn seen_over(unit: [f32; 3], delta: [f32; 3]) -> [f32; 3] {
    unit_or_up([unit[0] + delta[0], unit[1] + delta[1], unit[2] + delta[2]])
}

/// The hidden base of a vertex whose base normal is `unit` (see the module docs): the
/// diagonal of the octant `unit` points into, `[±73, ±73, ±73]` (within 0.5 % of unit
/// length). From it every unit direction is within [`BYTE_TOLERANCE`] in bytes: each
/// component of the diagonal is 0.575, so the room [`normal_delta_i8`] finds is at least
/// 53 of 127.
pub fn hidden_base(unit: [f32; 3]) -> [i8; 3] {
    unit.map(|c| if c < 0.0 { -73 } else { 73 })
}

/// The base normal a scene keeps when the glTF's first morph target is frame 0 (see the
/// module docs), at one vertex: `base` and `first` as read (the base and the first
/// target's displacement). Where `first` is zero, `base` as it is; else the frame-0
/// normal a renderer shows (the base plus `first`, made unit).
pub fn fold_base(base: [f32; 3], first: [f32; 3]) -> [f32; 3] {
    if first == [0.0; 3] {
        base
    } else {
        seen_over(base, first)
    }
}

/// A later target's displacement `d` over the base [`fold_base`] made (`folded`), at one
/// vertex: where `first` is zero, `d` as it is; else the normal a renderer showed in that
/// target (the base plus `d`, made unit) less `folded`.
pub fn fold_target(base: [f32; 3], first: [f32; 3], folded: [f32; 3], d: [f32; 3]) -> [f32; 3] {
    if first == [0.0; 3] {
        d
    } else {
        let s = seen_over(base, d);
        [s[0] - folded[0], s[1] - folded[1], s[2] - folded[2]]
    }
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

    /// Whether a byte displacement from vertex `v`'s base reaches its frame normal
    /// `frame` (unit) within [`BYTE_TOLERANCE`].
    pub fn reaches(&self, v: usize, frame: [f32; 3]) -> bool {
        delta_over(self.decoded(v), frame).is_some()
    }

    /// Moves the vertices marked in `hidden` to their [`hidden_base`]. The frame-0
    /// normals they had are then the first target's ([`BaseNormals::first_target`]).
    pub fn hide(&mut self, hidden: &[bool]) {
        for ((b, u), _) in self
            .bytes
            .iter_mut()
            .zip(self.units.iter_mut())
            .zip(hidden)
            .filter(|(_, h)| **h)
        {
            *b = hidden_base(*u);
            *u = unit_or_up(b.map(decode_i8));
        }
    }

    /// The first target of a mesh whose frame 0 is a target (see the module docs): at the
    /// vertices marked in `hidden`, the displacement from their hidden base to their
    /// frame-0 normal in `frame0` (unit); zero at the others.
    pub fn first_target(&self, hidden: &[bool], frame0: &[[f32; 3]]) -> TargetNormals {
        self.displacements(frame0.iter().copied(), |v| {
            hidden.get(v).copied().unwrap_or(false)
        })
    }

    /// The displacement of target `t` at vertex `v` as a reader decodes it.
    pub fn displacement(t: &TargetNormals, v: usize) -> [f32; 3] {
        match t {
            TargetNormals::Bytes(d) => d.get(v).copied().unwrap_or_default().map(decode_i8),
            TargetNormals::Floats(d) => d.get(v).copied().unwrap_or_default(),
        }
    }

    /// The base normal a reader sees at vertex `v` (made unit).
    pub fn seen(&self, v: usize) -> [f32; 3] {
        self.units.get(v).copied().unwrap_or([0.0, 0.0, 1.0])
    }

    /// The displacements of a target whose frame normals (unit) are `frames`, one per
    /// vertex (missing base normals count as up).
    pub fn target(&self, frames: impl ExactSizeIterator<Item = [f32; 3]> + Clone) -> TargetNormals {
        self.displacements(frames, |_| true)
    }

    /// The displacements towards `frames` at the vertices `moved` marks, zero at the
    /// others: bytes when every one fits ([`normal_delta_i8`]), else floats for all.
    fn displacements(
        &self,
        frames: impl ExactSizeIterator<Item = [f32; 3]> + Clone,
        moved: impl Fn(usize) -> bool,
    ) -> TargetNormals {
        let mut bytes = alloc::vec::Vec::with_capacity(frames.len());
        for (v, frame) in frames.clone().enumerate() {
            if !moved(v) {
                bytes.push([0; 3]);
                continue;
            }
            match delta_over(self.decoded(v), frame) {
                Some(d) => bytes.push(d),
                None => {
                    return TargetNormals::Floats(
                        frames
                            .enumerate()
                            .map(|(v, f)| {
                                if moved(v) {
                                    let b = self.seen(v);
                                    [f[0] - b[0], f[1] - b[1], f[2] - b[2]]
                                } else {
                                    [0.0; 3]
                                }
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
        seen_over(self.seen(v), Self::displacement(t, v))
    }

    /// The base bytes of vertex `v` as a reader decodes them (not made unit).
    pub fn decoded(&self, v: usize) -> [f32; 3] {
        self.bytes
            .get(v)
            .copied()
            .unwrap_or([0, 0, 127])
            .map(decode_i8)
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

    /// Directions spread over the sphere, the axes and their opposites among them.
    fn sphere() -> Vec<[f32; 3]> {
        let mut out = Vec::new();
        for i in 0..24 {
            for k in 0..12 {
                let (a, b) = (
                    i as f32 * 0.2618,
                    k as f32 * 0.2856 - core::f32::consts::FRAC_PI_2,
                );
                out.push(unit([
                    libm::cosf(b) * libm::cosf(a),
                    libm::cosf(b) * libm::sinf(a),
                    libm::sinf(b),
                ]));
            }
        }
        for a in 0..3 {
            for s in [1.0, -1.0] {
                let mut v = [0.0; 3];
                v[a] = s;
                out.push(v);
            }
        }
        out
    }

    #[test]
    fn from_a_hidden_base_every_direction_is_within_reach() {
        let dirs = sphere();
        for &base in &dirs {
            let h = hidden_base(base);
            for c in 0..3 {
                assert_eq!(h[c] < 0, base[c] < 0.0, "{base:?}");
            }
            for &frame in &dirs {
                let d = normal_delta_i8(h, frame).expect("reachable");
                assert!(dot(decode_frame_i8(h, d), frame) >= BYTE_TOLERANCE);
            }
        }
    }

    #[test]
    fn an_axis_base_with_a_flipped_frame_hides_and_folds_back() {
        let frames0 = [[0.0, 0.0, 1.0], unit([1.0, 1.0, 1.0])];
        let later = [[0.0, 0.0, -1.0], unit([1.0, 1.2, 1.0])];
        let mut base = BaseNormals::new(frames0.iter().copied());
        let hidden: Vec<bool> = later
            .iter()
            .enumerate()
            .map(|(v, &f)| !base.reaches(v, f))
            .collect();
        assert_eq!(hidden, [true, false]);
        base.hide(&hidden);
        assert_eq!(base.bytes()[0], [73, 73, 73]);
        let first = base.first_target(&hidden, &frames0);
        let t = base.target(later.iter().copied());
        assert!(matches!(first, TargetNormals::Bytes(_)));
        assert!(matches!(t, TargetNormals::Bytes(_)));
        for v in 0..2 {
            // What a reader sees, then what a scene keeps after folding frame 0 back.
            assert!(dot(base.seen_in(&first, v), frames0[v]) >= BYTE_TOLERANCE);
            assert!(dot(base.seen_in(&t, v), later[v]) >= BYTE_TOLERANCE);
            let b = base.decoded(v);
            let d0 = BaseNormals::displacement(&first, v);
            let folded = fold_base(b, d0);
            let dk = fold_target(b, d0, folded, BaseNormals::displacement(&t, v));
            assert!(dot(unit(folded), frames0[v]) >= BYTE_TOLERANCE, "{v}");
            let k = unit([folded[0] + dk[0], folded[1] + dk[1], folded[2] + dk[2]]);
            assert!(dot(k, later[v]) >= BYTE_TOLERANCE, "{v}");
            if v == 1 {
                // Not hidden: the fold leaves base and displacement as they were.
                assert_eq!(d0, [0.0; 3]);
                assert_eq!(folded, b);
                assert_eq!(dk, BaseNormals::displacement(&t, v));
            }
        }
    }
}
