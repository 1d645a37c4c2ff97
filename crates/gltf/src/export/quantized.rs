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

use alloc::vec;
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
            // Non-negative (x ≥ the origin), so + 0.5 and truncation round it.
            let s = ((x - o) / self.step + 0.5).clamp(0.0, 65535.0);
            // Clamped to 0..=65535 and whole: exact in an i32; a NaN gives 0.
            #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
            let v = s as i32;
            *q = v;
        }
        q
    }
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
    // Every frame's positions (glTF axes), base and base + displacement.
    let frames = || {
        mesh.primitives
            .iter()
            .filter(|p| !p.positions.is_empty() && !p.indices.is_empty())
            .flat_map(|p| {
                p.positions.iter().enumerate().flat_map(move |(v, &b)| {
                    core::iter::once(b).chain(p.targets.iter().map(move |t| {
                        let d = t.positions.get(v).copied().unwrap_or_default();
                        [b[0] + d[0], b[1] + d[1], b[2] + d[2]]
                    }))
                })
            })
            .map(move |p| axes.point(p))
    };
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut any = false;
    let mut finite = true;
    for p in frames() {
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(&p) {
            *l = if x < *l { x } else { *l };
            *h = if x > *h { x } else { *h };
            finite &= x.is_finite();
        }
        any = true;
    }
    let extent = (0..3)
        .filter_map(|k| Some(hi.get(k)? - lo.get(k)?))
        .fold(0.0f32, f32::max);
    // A NaN or an infinity anywhere: no grid, and the float writer reports it.
    if !(any && finite && extent.is_finite()) {
        return None;
    }
    // The exact grid: a power of two every coordinate is a whole multiple of, over which
    // the extent fits 65,535 steps (then every difference is exact too). Start from the
    // finest such power that fits, test every coordinate in one pass, and take the
    // coarsest the coordinates allow (the trailing zeros of their multiples, OR-ed): MD3's
    // 1/64-unit grid comes out as 1/64 or coarser; MDL's and MD2's scaled bytes fail at
    // the first coordinate.
    let mut fine = pow2(floor_log2(extent / 65535.0).max(-126)).unwrap_or(1.0);
    while extent / fine > 65535.0 {
        fine *= 2.0;
    }
    let inv = 1.0 / fine;
    let mut bits = 0u32;
    let whole_everywhere = frames().all(|p| {
        p.iter().all(|&x| {
            let q = x * inv;
            let ok = whole(q);
            // Whole and within ±2³¹ when `ok`: the cast is exact.
            #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
            let n = q as i32;
            bits |= n.unsigned_abs();
            ok
        })
    });
    let exact = whole_everywhere.then(|| {
        let coarser = if bits == 0 {
            0
        } else {
            bits.trailing_zeros().min(16)
        };
        let mut step = fine;
        for _ in 0..coarser {
            step *= 2.0;
        }
        step
    });
    if let Some(step) = exact {
        return Some(Grid { origin: lo, step });
    }
    // 32,767 steps: every displacement fits a short.
    let step = if extent > 0.0 { extent / 32766.0 } else { 1.0 };
    (step.is_finite() && step > 0.0).then_some(Grid { origin: lo, step })
}

/// `floor(log2(x))` of a positive normal `x` (its exponent), or 0.
fn floor_log2(x: f32) -> i32 {
    let e = i32::try_from((x.to_bits() >> 23) & 0xFF).unwrap_or(127);
    if x > 0.0 && e > 0 {
        e.saturating_sub(127)
    } else {
        0
    }
}

/// Whether `q` is a whole number (within ±2³¹; a power-of-two multiple is exact).
fn whole(q: f32) -> bool {
    // In range, the cast truncates; out of range it saturates and the test fails.
    #[allow(
        clippy::as_conversions,
        clippy::cast_possible_truncation,
        clippy::cast_precision_loss
    )]
    let back = (q as i32) as f32;
    back == q && q.abs() < 2_147_483_648.0
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
        // Sized once and zeroed (the padding), each element written into its stride.
        let mut bytes = vec![0u8; data.len().saturating_mul(kind.stride)];
        let mut lo = [i32::MAX; 3];
        let mut hi = [i32::MIN; 3];
        for (out, v) in bytes.chunks_exact_mut(kind.stride).zip(data) {
            for (k, (&c, o)) in v.iter().zip(out.chunks_exact_mut(kind.size)).enumerate() {
                match kind.component {
                    BYTE => o.copy_from_slice(&i8::try_from(c).unwrap_or(0).to_le_bytes()),
                    SHORT => o.copy_from_slice(&i16::try_from(c).unwrap_or(0).to_le_bytes()),
                    _ => o.copy_from_slice(&u16::try_from(c).unwrap_or(0).to_le_bytes()),
                }
                if let (Some(l), Some(h)) = (lo.get_mut(k), hi.get_mut(k)) {
                    *l = (*l).min(c);
                    *h = (*h).max(c);
                }
            }
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
    fn powers_of_two_and_whole_numbers() {
        assert_eq!(pow2(-6), Some(1.0 / 64.0));
        assert_eq!(pow2(200), None);
        assert_eq!(floor_log2(0.75), -1);
        assert_eq!(floor_log2(64.0), 6);
        assert!(whole(-3.0) && !whole(2.5) && !whole(f32::NAN) && !whole(3e9));
    }
}
