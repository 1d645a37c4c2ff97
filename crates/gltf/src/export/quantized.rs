//! `KHR_mesh_quantization` ([`ExportOptions::quantize`]): integer positions on one grid
//! per mesh, dequantized by a child node's uniform scale and translation; normals and
//! morph target normal displacements as normalized bytes (the rule of
//! [`idmodel_scene::quantize`]).
//!
//! **The grid.** When every position of the mesh, in every frame, is a whole multiple of
//! one power of two and the mesh spans at most 65,535 of those steps on each axis, that is
//! the grid, and the integers are exact: MD3 stores its vertices on 1/64 unit, so an MD3
//! mesh comes out lossless. Otherwise the grid divides the mesh's largest extent into
//! 32,766 steps, so that every displacement fits a short; a position then moves by at
//! most half a step, about 1/65,000 of the model's size, far below the byte grid MDL and
//! MD2 store (1/255 of a frame's size). One scale for all three axes,
//! so the node's transform leaves normals as they are.
//!
//! **Positions** are `UNSIGNED_SHORT` counts of steps from the grid's origin. A morph
//! target's displacements are `BYTE` when every one fits, else `SHORT`, else (a mesh
//! spanning more than 32,767 steps in one frame's move) floats of steps.
//!
//! [`ExportOptions::quantize`]: crate::ExportOptions::quantize

use alloc::vec::Vec;

use super::Result;
use super::buffers::{ARRAY_BUFFER, Buffers};
use idmodel_scene::Mesh;
use idmodel_scene::axes::Axes;

type Vec3 = [f32; 3];

/// `BYTE`.
const BYTE: u32 = 5120;
/// `SHORT`.
const SHORT: u32 = 5122;
/// `UNSIGNED_SHORT`.
const UNSIGNED_SHORT: u32 = 5123;

/// The dequantization of a mesh's positions: a position is `origin + step × q`, in glTF
/// axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Grid {
    /// The position of `q = 0` (the node's translation).
    pub(super) origin: [f32; 3],
    /// The size of one step on every axis (the node's scale).
    pub(super) step: f32,
}

impl Grid {
    /// The grid point nearest `p` (glTF axes), in steps from the origin.
    fn steps(&self, p: [f32; 3]) -> [i32; 3] {
        let mut q = [0i32; 3];
        for ((q, &x), &o) in q.iter_mut().zip(&p).zip(&self.origin) {
            let s = libm::roundf((x - o) / self.step).clamp(0.0, 65535.0);
            // Clamped to 0..=65535 and whole: exact in an i32; a NaN gives 0.
            #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
            let v = s as i32;
            *q = v;
        }
        q
    }
}

/// The exponent of the lowest set bit of `x`'s value (`x = m × 2^e` with `m` odd), or
/// `None` for zero.
fn lowest_bit(x: f32) -> Option<i32> {
    let bits = x.to_bits() & 0x7FFF_FFFF;
    if bits == 0 {
        return None;
    }
    let exp = i32::try_from(bits >> 23).unwrap_or(0);
    let (significand, e0) = if exp == 0 {
        (bits, -149)
    } else {
        ((bits & 0x007F_FFFF) | 0x0080_0000, exp.saturating_sub(150))
    };
    let tz = i32::try_from(significand.trailing_zeros()).unwrap_or(0);
    Some(e0.saturating_add(tz))
}

/// `2^e` as an `f32`, when it is a normal number.
fn pow2(e: i32) -> Option<f32> {
    let biased = u32::try_from(e.checked_add(127)?).ok()?;
    (1..=254)
        .contains(&biased)
        .then(|| f32::from_bits(biased << 23))
}

/// The grid of `mesh`'s positions in every frame (glTF axes), or `None` when it has no
/// vertices or a position is not finite (the float writer then reports it).
pub(super) fn grid(mesh: &Mesh, axes: Axes) -> Option<Grid> {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut low_bit: Option<i32> = None;
    let mut any = false;
    let mut see = |p: [f32; 3]| -> bool {
        let p = axes.point(p);
        for (k, &x) in p.iter().enumerate() {
            if !x.is_finite() {
                return false;
            }
            if let (Some(l), Some(h)) = (lo.get_mut(k), hi.get_mut(k)) {
                *l = l.min(x);
                *h = h.max(x);
            }
            if let Some(e) = lowest_bit(x) {
                low_bit = Some(low_bit.map_or(e, |b| b.min(e)));
            }
        }
        any = true;
        true
    };
    for p in &mesh.primitives {
        if p.positions.is_empty() || p.indices.is_empty() {
            continue;
        }
        for (v, &b) in p.positions.iter().enumerate() {
            if !see(b) {
                return None;
            }
            for t in &p.targets {
                let d = t.positions.get(v).copied().unwrap_or_default();
                if !see([b[0] + d[0], b[1] + d[1], b[2] + d[2]]) {
                    return None;
                }
            }
        }
    }
    if !any {
        return None;
    }
    let extent = (0..3)
        .filter_map(|k| Some(hi.get(k)? - lo.get(k)?))
        .fold(0.0f32, f32::max);
    // The exact grid: the coarsest power of two every coordinate is a multiple of.
    if let Some(step) = low_bit.map_or(Some(1.0), pow2)
        && extent / step <= 65535.0
    {
        return Some(Grid { origin: lo, step });
    }
    // 32,767 steps: every displacement fits a short.
    let step = if extent > 0.0 { extent / 32766.0 } else { 1.0 };
    (step.is_finite() && step > 0.0).then_some(Grid { origin: lo, step })
}

/// An integer vertex attribute: its component type, bytes per component and the stride
/// (a multiple of 4, as glTF asks of vertex attributes).
#[derive(Clone, Copy)]
struct IntKind {
    component: u32,
    size: usize,
    stride: usize,
}

const BYTES: IntKind = IntKind {
    component: BYTE,
    size: 1,
    stride: 4,
};
const SHORTS: IntKind = IntKind {
    component: SHORT,
    size: 2,
    stride: 8,
};
const USHORTS: IntKind = IntKind {
    component: UNSIGNED_SHORT,
    size: 2,
    stride: 8,
};

impl Buffers {
    /// A VEC3 accessor of integers (each in `kind`'s range), padded to the stride, with
    /// its integer bounds when `min_max`.
    fn int_vec3(
        &mut self,
        data: &[[i32; 3]],
        kind: IntKind,
        normalized: bool,
        min_max: bool,
    ) -> Result<usize> {
        let mut bytes = Vec::with_capacity(data.len().saturating_mul(kind.stride));
        let mut lo = [i32::MAX; 3];
        let mut hi = [i32::MIN; 3];
        for v in data {
            for (k, &c) in v.iter().enumerate() {
                if kind.size == 1 {
                    bytes.push(i8::try_from(c).unwrap_or(0).to_le_bytes()[0]);
                } else if kind.component == SHORT {
                    bytes.extend_from_slice(&i16::try_from(c).unwrap_or(0).to_le_bytes());
                } else {
                    bytes.extend_from_slice(&u16::try_from(c).unwrap_or(0).to_le_bytes());
                }
                if let (Some(l), Some(h)) = (lo.get_mut(k), hi.get_mut(k)) {
                    *l = (*l).min(c);
                    *h = (*h).max(c);
                }
            }
            bytes.resize(
                bytes
                    .len()
                    .saturating_add(kind.stride.saturating_sub(kind.size.saturating_mul(3))),
                0,
            );
        }
        let view = self.view_strided(&bytes, kind.stride, ARRAY_BUFFER)?;
        let a = self.open(Some(view), kind.component, data.len());
        if normalized {
            a.raw(b",\"normalized\":true");
        }
        if min_max && !data.is_empty() {
            for (key, v) in [("max", hi), ("min", lo)] {
                a.key(key);
                a.raw(b"[");
                for c in v {
                    a.sep();
                    a.int(i64::from(c));
                }
                a.raw(b"]");
            }
        }
        Ok(self.close("VEC3"))
    }

    /// Positions on `grid` as `UNSIGNED_SHORT` steps (glTF axes), with their bounds.
    pub(super) fn grid_positions(&mut self, steps: &[[i32; 3]]) -> Result<usize> {
        self.int_vec3(steps, USHORTS, false, true)
    }

    /// A morph target's position displacements in steps: bytes, shorts, or floats.
    pub(super) fn grid_displacements(&mut self, d: &[[i32; 3]]) -> Result<usize> {
        let reach = d
            .iter()
            .flatten()
            .fold(0u32, |m, &c| m.max(c.unsigned_abs()));
        if reach <= 127 {
            self.int_vec3(d, BYTES, false, true)
        } else if reach <= 32767 {
            self.int_vec3(d, SHORTS, false, true)
        } else {
            // Whole numbers below 2^17: exact as floats.
            #[allow(clippy::as_conversions, clippy::cast_precision_loss)]
            let f: Vec<[f32; 3]> = d.iter().map(|v| v.map(|c| c as f32)).collect();
            self.floats(&f, Some(ARRAY_BUFFER), true)
        }
    }

    /// Normals (or normal displacements) as normalized bytes, already in glTF axes.
    pub(super) fn byte_normals(&mut self, n: &[[i8; 3]]) -> Result<usize> {
        let wide: Vec<[i32; 3]> = n.iter().map(|v| v.map(i32::from)).collect();
        self.int_vec3(&wide, BYTES, true, false)
    }
}

/// `steps` of every vertex of a frame: `base + displacement` on the grid (glTF axes).
pub(super) fn frame_steps(
    grid: &Grid,
    base: &[[f32; 3]],
    axes: Axes,
    displacement: Option<&[Vec3]>,
) -> Vec<[i32; 3]> {
    base.iter()
        .enumerate()
        .map(|(v, &b)| {
            let p = match displacement.and_then(|d| d.get(v)) {
                Some(d) => [b[0] + d[0], b[1] + d[1], b[2] + d[2]],
                None => b,
            };
            grid.steps(axes.point(p))
        })
        .collect()
}

/// A byte normal (file axes) in glTF axes: the axis change is a permutation with signs,
/// made on the integers so every side rounds the same floats.
pub(super) fn byte_axes(axes: Axes, n: [i8; 3]) -> [i8; 3] {
    axes.point(n.map(f32::from)).map(|c| {
        // A permutation with signs of values within ±127.
        #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
        let b = c as i8;
        b
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_bit_of_a_float() {
        assert_eq!(lowest_bit(1.0), Some(0));
        assert_eq!(lowest_bit(0.75), Some(-2));
        assert_eq!(lowest_bit(-3.0 / 64.0), Some(-6));
        assert_eq!(lowest_bit(0.0), None);
        assert_eq!(pow2(-6), Some(1.0 / 64.0));
    }
}
