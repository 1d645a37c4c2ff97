//! The packed vertices of every frame a morph scene shows, recovered a block at a time
//! ([`recover_target_vertices`], [`target_frame_bounds`]), and the fixes that make them
//! the file's ([`vertex_fixes`], [`apply_vertex_fixes`]).

use alloc::vec::Vec;

use super::merge::Merged;
use super::quantise::{NearestCache, bounds, quantise_valid, widen};

/// The frames a morph scene shows are the base (frame 0), then base + each morph target
/// at weight 1 (frame `t + 1`), the way the MD2 and MDL adapters build them (`pose` adds
/// `w · d` with `w = 1`, which is `d` exactly). The displacements frame `f` adds to the
/// base (none for frame 0); `None` past the last target. At scene vertex `k` frame `f` is
/// `base[k] + target[k]` (`base[k]` past the target's end), a vertex needing a normal
/// entry as well, and a non-finite position is 0, as [`pose`](super::pose) makes it.
fn frame_target(merged: &Merged, f: usize) -> Option<&[([f32; 3], [f32; 3])]> {
    match f.checked_sub(1) {
        None => Some(&[]),
        Some(i) => merged.targets.get(i).map(Vec::as_slice),
    }
}

/// The packed vertices of every frame the morph scene shows (the base, then base + each
/// morph target at weight 1, as [`pose`](super::pose) makes them): file vertex `i` of
/// frame `f` from scene vertex `map[i]` (position
/// `rint((p − translate) / scale)`, normal the nearest table normal), with `quant(f)` the
/// frame's `(scale, translate)`. A file vertex no scene vertex shows gets zeros (the fixes
/// say the rest). `normal`, when given, is every vertex's normal index (a file whose
/// vertices all share one, whose scene normals the adapter smooths instead). Computed
/// a block of vertices at a time: no frame is posed whole, so it needs no memory beyond
/// its result.
///
/// `hints`, per frame, per file vertex, may hold the vertices the file is expected to
/// have (the recording side knows them): a hinted normal index is taken when the
/// recovered normal lies so close to its table normal that no other can be nearer
/// ([`idmodel_core::anorms::confirm_nearest_anorm`]), so the result is the same with
/// any hints or none; right hints only make it faster.
pub fn recover_target_vertices(
    merged: &Merged,
    map: &[Option<usize>],
    quant: &dyn Fn(usize) -> ([f32; 3], [f32; 3]),
    normal: Option<u8>,
    hints: &[&[idmodel_core::trivertx::TriVertex]],
) -> Vec<Vec<idmodel_core::trivertx::TriVertex>> {
    let frames = merged.targets.len().saturating_add(1);
    let mut nearest = NearestCache::new(map.len().saturating_mul(frames));
    let mut block = RecoverBlock::new();
    let mut out: Vec<Vec<idmodel_core::trivertx::TriVertex>> = Vec::with_capacity(frames);
    for f in 0..frames {
        let (s, t) = quant(f);
        // Looked up once per frame, not per vertex.
        let target = frame_target(merged, f);
        let frame_hints = hints.get(f).copied().unwrap_or_default();
        let mut frame = Vec::with_capacity(map.len());
        for (c, chunk) in map.chunks(RECOVER_BLOCK).enumerate() {
            let start = c.saturating_mul(RECOVER_BLOCK);
            let chunk_hints = frame_hints.get(start..).unwrap_or_default();
            block.recover(
                merged,
                target,
                chunk,
                (s, t),
                normal,
                chunk_hints,
                &mut nearest,
                &mut frame,
            );
        }
        out.push(frame);
    }
    out
}

/// The file vertices [`recover_target_vertices`] works on at a time.
const RECOVER_BLOCK: usize = 64;

/// One block of file vertices on their way back, a component per array, so that each
/// step is a short loop over one array that the compiler turns into vector operations
/// (one vertex at a time, with its position, normal and three quantisations interleaved,
/// took most of an MD2 or MDL conversion's way-back recording).
struct RecoverBlock {
    /// Whether a scene vertex shows the file vertex.
    shown: [bool; RECOVER_BLOCK],
    /// Positions, base plus displacement, per axis.
    p: [[f32; RECOVER_BLOCK]; 3],
    /// Normals, base plus displacement (unit after [`RecoverBlock::unit_normals`]).
    n: [[f32; RECOVER_BLOCK]; 3],
    /// The packed positions.
    q: [[u8; RECOVER_BLOCK]; 3],
    /// The normal indices.
    index: [u8; RECOVER_BLOCK],
}

impl RecoverBlock {
    fn new() -> Self {
        Self {
            shown: [false; RECOVER_BLOCK],
            p: [[0.0; RECOVER_BLOCK]; 3],
            n: [[0.0; RECOVER_BLOCK]; 3],
            q: [[0; RECOVER_BLOCK]; 3],
            index: [0; RECOVER_BLOCK],
        }
    }

    /// Appends the packed vertices of `chunk` (at most [`RECOVER_BLOCK`] file vertices)
    /// of one frame to `frame`: what the vertex-at-a-time definition in
    /// [`recover_target_vertices`]'s docs gives, bit for bit (the same operations in the
    /// same order, each float computed alone; a test compares the two).
    #[allow(clippy::too_many_arguments)]
    fn recover(
        &mut self,
        merged: &Merged,
        target: Option<&[([f32; 3], [f32; 3])]>,
        chunk: &[Option<usize>],
        (s, t): ([f32; 3], [f32; 3]),
        normal: Option<u8>,
        hints: &[idmodel_core::trivertx::TriVertex],
        nearest: &mut NearestCache,
        frame: &mut Vec<idmodel_core::trivertx::TriVertex>,
    ) {
        use idmodel_core::trivertx::TriVertex;
        let len = chunk.len().min(RECOVER_BLOCK);
        // Gather: base plus displacement, or nothing shown (no frame's displacements:
        // nothing at all). Zipped slices, so the loop checks no index but the scene's.
        let (positions, normals) = (merged.positions.as_slice(), merged.normals.as_slice());
        let [px, py, pz] = &mut self.p;
        let [nx, ny, nz] = &mut self.n;
        let outs = self
            .shown
            .iter_mut()
            .zip(px.iter_mut().zip(py.iter_mut()).zip(pz.iter_mut()))
            .zip(nx.iter_mut().zip(ny.iter_mut()).zip(nz.iter_mut()));
        for (m, ((shown, ((px, py), pz)), ((nx, ny), nz))) in chunk.iter().zip(outs) {
            let vertex = m.zip(target).and_then(|(k, target)| {
                let (bp, bn) = (*positions.get(k)?, *normals.get(k)?);
                Some(match target.get(k) {
                    Some((dp, dn)) => (
                        [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]],
                        [bn[0] + dn[0], bn[1] + dn[1], bn[2] + dn[2]],
                    ),
                    None => (bp, bn),
                })
            });
            let ([x, y, z], [a, b, c], is) = match vertex {
                Some((p, n)) => (p, n, true),
                None => ([0.0; 3], [0.0, 0.0, 1.0], false),
            };
            (*shown, *px, *py, *pz, *nx, *ny, *nz) = (is, x, y, z, a, b, c);
        }
        // Positions: non-finite to zero, then packed, one axis at a time.
        for ((pa, qa), (&scale, &translate)) in self
            .p
            .iter_mut()
            .zip(self.q.iter_mut())
            .zip(s.iter().zip(&t))
        {
            // The whole block, a fixed length the compiler can widen; entries past
            // `len` hold an earlier chunk's numbers and are not read back.
            if scale.is_nan() || scale <= 0.0 {
                // `quantise`'s answer for such a scale, whatever the position.
                qa.fill(0);
                continue;
            }
            for (x, q) in pa.iter_mut().zip(qa.iter_mut()) {
                *x = if x.is_finite() { *x } else { 0.0 };
                *q = quantise_valid(*x, translate, scale);
            }
        }
        match normal {
            Some(i) => self.index.fill(i),
            None => {
                self.unit_normals();
                self.normal_indices(len, hints, nearest);
            }
        }
        let [qx, qy, qz] = &self.q;
        let rows = self
            .shown
            .iter()
            .zip(qx.iter().zip(qy).zip(qz))
            .zip(&self.index)
            .take(len);
        frame.extend(rows.map(|((&shown, ((&x, &y), &z)), &i)| {
            if shown {
                TriVertex {
                    v: [x, y, z],
                    light_normal_index: i,
                }
            } else {
                TriVertex::default()
            }
        }));
    }

    /// The nearest table normal of each of the first `len` unit normals: the hint's
    /// where [`idmodel_core::anorms::confirm_nearest_anorm`] confirms it (a short loop
    /// with no call in it), else the cache's.
    fn normal_indices(
        &mut self,
        len: usize,
        hints: &[idmodel_core::trivertx::TriVertex],
        nearest: &mut NearestCache,
    ) {
        use idmodel_core::anorms::{ANORMS, CONFIRM_RADIUS};
        const NONE: u8 = u8::MAX;
        // The hints and their table normals, a component per array: no hint past the
        // hints given, and NaN for no table normal, which no distance is below.
        let mut hint = [NONE; RECOVER_BLOCK];
        let mut table = [[f32::NAN; RECOVER_BLOCK]; 3];
        let [tx, ty, tz] = &mut table;
        let slots = hint
            .iter_mut()
            .zip(tx.iter_mut().zip(ty.iter_mut()).zip(tz.iter_mut()));
        for (h, (slot, ((x, y), z))) in hints.iter().take(len).zip(slots) {
            *slot = h.light_normal_index;
            if let Some(&[a, b, c]) = ANORMS.get(usize::from(h.light_normal_index)) {
                (*x, *y, *z) = (a, b, c);
            }
        }
        // `confirm_nearest_anorm` over the whole block: the same arithmetic in the same
        // order, with no call and no early exit in the loop.
        let [nx, ny, nz] = &self.n;
        let [tx, ty, tz] = &table;
        let rows = nx.iter().zip(ny).zip(nz).zip(tx.iter().zip(ty).zip(tz));
        for (((((&x, &y), &z), ((&a, &b), &c)), i), &h) in rows.zip(&mut self.index).zip(&hint) {
            let e = [x - a, y - b, z - c];
            let d2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
            *i = if d2 < CONFIRM_RADIUS * CONFIRM_RADIUS {
                h
            } else {
                NONE
            };
        }
        let normals = nx.iter().zip(ny).zip(nz).take(len);
        for (((&x, &y), &z), i) in normals.zip(self.index.iter_mut()) {
            if *i == NONE {
                *i = nearest.get([x, y, z]);
            }
        }
    }

    /// [`crate::unit_or_up`] of the block's normals, in place (the whole block: a fixed
    /// length the compiler can widen).
    fn unit_normals(&mut self) {
        let [nx, ny, nz] = &mut self.n;
        // Three loops: the square root (an instruction libm writes in assembly, which
        // the compiler cannot widen) alone in the middle one, the two around it vector
        // code.
        let mut lengths = [0.0f32; RECOVER_BLOCK];
        for (((l, &x), &y), &z) in lengths.iter_mut().zip(&*nx).zip(&*ny).zip(&*nz) {
            *l = x * x + y * y + z * z;
        }
        for l in &mut lengths {
            *l = libm::sqrtf(*l);
        }
        for (((x, y), z), &l) in nx
            .iter_mut()
            .zip(ny.iter_mut())
            .zip(nz.iter_mut())
            .zip(&lengths)
        {
            let keep = l.is_finite() && l > 1e-12;
            *x = if keep { *x / l } else { 0.0 };
            *y = if keep { *y / l } else { 0.0 };
            *z = if keep { *z / l } else { 1.0 };
        }
    }
}

/// The [`bounds`] of the positions of every frame [`recover_target_vertices`] reads,
/// without posing them.
pub fn target_frame_bounds(merged: &Merged) -> Vec<([f32; 3], [f32; 3])> {
    let frames = merged.targets.len().saturating_add(1);
    (0..frames)
        .map(|f| {
            let Some(target) = frame_target(merged, f) else {
                return bounds(core::iter::empty());
            };
            // A vertex needs a normal entry too (`frame_target`). The vertices the target
            // displaces, then the rest: `bounds` of the same points in the same order, as
            // two loops with no test of the target's length per vertex.
            let n = merged.positions.len().min(merged.normals.len());
            let base = merged.positions.get(..n).unwrap_or_default();
            if base.is_empty() {
                return bounds(core::iter::empty());
            }
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for (bp, (dp, _)) in base.iter().zip(target) {
                let p = [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]];
                widen(&mut lo, &mut hi, idmodel_core::vec::finite_or_zero(p));
            }
            for &bp in base.get(target.len()..).unwrap_or_default() {
                widen(&mut lo, &mut hi, idmodel_core::vec::finite_or_zero(bp));
            }
            (lo, hi)
        })
        .collect()
}

/// The fixes that turn `recovered` into `actual`: 12-byte records (frame `u32`, vertex
/// `u32`, the 4 packed bytes), little-endian, concatenated.
pub fn vertex_fixes(
    recovered: &[Vec<idmodel_core::trivertx::TriVertex>],
    actual: &[&[idmodel_core::trivertx::TriVertex]],
) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, (r, a)) in recovered.iter().zip(actual).enumerate() {
        for (i, (x, y)) in r.iter().zip(a.iter()).enumerate() {
            if x != y {
                out.extend(u32::try_from(f).unwrap_or(u32::MAX).to_le_bytes());
                out.extend(u32::try_from(i).unwrap_or(u32::MAX).to_le_bytes());
                out.extend(y.v);
                out.push(y.light_normal_index);
            }
        }
    }
    out
}

/// Applies [`vertex_fixes`] records to `frames`; `None` when one names no vertex.
pub fn apply_vertex_fixes(
    frames: &mut [Vec<idmodel_core::trivertx::TriVertex>],
    fixes: &[u8],
) -> Option<()> {
    if fixes.len().checked_rem(12) != Some(0) {
        return None;
    }
    for r in fixes.chunks_exact(12) {
        let [f0, f1, f2, f3, i0, i1, i2, i3, x, y, z, n] = *r else {
            return None;
        };
        let f = usize::try_from(u32::from_le_bytes([f0, f1, f2, f3])).ok()?;
        let i = usize::try_from(u32::from_le_bytes([i0, i1, i2, i3])).ok()?;
        *frames.get_mut(f)?.get_mut(i)? = idmodel_core::trivertx::TriVertex {
            v: [x, y, z],
            light_normal_index: n,
        };
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;

    use crate::back::merge::{SampledFrame, pose};
    use crate::back::quantise::{nearest_normal, quantise};

    /// [`recover_target_vertices`] as it was written before the blocks: one vertex at a
    /// time, straight from its docs.
    fn recover_one_at_a_time(
        merged: &Merged,
        map: &[Option<usize>],
        quant: &dyn Fn(usize) -> ([f32; 3], [f32; 3]),
        normal: Option<u8>,
    ) -> Vec<Vec<idmodel_core::trivertx::TriVertex>> {
        use idmodel_core::trivertx::TriVertex;
        let frames = merged.targets.len() + 1;
        let mut out = Vec::new();
        for f in 0..frames {
            let (s, t) = quant(f);
            let target = frame_target(merged, f);
            let mut frame = Vec::new();
            for m in map {
                let vertex = m.zip(target).and_then(|(k, target)| {
                    let (bp, bn) = (*merged.positions.get(k)?, *merged.normals.get(k)?);
                    let (p, n) = match target.get(k) {
                        Some((dp, dn)) => (
                            [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]],
                            [bn[0] + dn[0], bn[1] + dn[1], bn[2] + dn[2]],
                        ),
                        None => (bp, bn),
                    };
                    Some((idmodel_core::vec::finite_or_zero(p), crate::unit_or_up(n)))
                });
                frame.push(match vertex {
                    Some((p, n)) => TriVertex {
                        v: [
                            quantise(p[0], t[0], s[0]),
                            quantise(p[1], t[1], s[1]),
                            quantise(p[2], t[2], s[2]),
                        ],
                        light_normal_index: normal.unwrap_or_else(|| nearest_normal(n)),
                    },
                    None => TriVertex::default(),
                });
            }
            out.push(frame);
        }
        out
    }

    /// `target_frame_bounds` is `bounds` of each frame's points in vertex order, bit for
    /// bit (signed zeros included): with targets shorter and longer than the base, fewer
    /// normals than positions, non-finite displacements, and no vertices at all.
    #[test]
    fn target_frame_bounds_are_bounds_of_each_frame() {
        let reference = |merged: &Merged| -> Vec<([f32; 3], [f32; 3])> {
            (0..merged.targets.len() + 1)
                .map(|f| {
                    let Some(target) = frame_target(merged, f) else {
                        return bounds(core::iter::empty());
                    };
                    let vertices = merged.positions.iter().zip(&merged.normals).enumerate();
                    bounds(vertices.map(|(k, (bp, _))| {
                        idmodel_core::vec::finite_or_zero(match target.get(k) {
                            Some((dp, _)) => [bp[0] + dp[0], bp[1] + dp[1], bp[2] + dp[2]],
                            None => *bp,
                        })
                    }))
                })
                .collect()
        };
        let values = [
            0.0f32,
            -0.0,
            1.5,
            -2.25,
            f32::NAN,
            f32::INFINITY,
            1e38,
            -1e38,
            3.0,
        ];
        let pick = |i: usize| values[(i * 7 + i / 3) % values.len()];
        for (vertices, normals) in [(0usize, 0usize), (1, 1), (9, 9), (9, 5), (20, 20)] {
            let positions: Vec<[f32; 3]> = (0..vertices)
                .map(|i| [pick(i), pick(i + 1), pick(i + 2)])
                .collect();
            let targets: Vec<Vec<([f32; 3], [f32; 3])>> = [0usize, 3, vertices, vertices + 4]
                .iter()
                .enumerate()
                .map(|(t, &len)| {
                    (0..len)
                        .map(|i| ([pick(i + t), -pick(i + 2 * t), pick(i * 5 + t)], [0.0; 3]))
                        .collect()
                })
                .collect();
            let merged = Merged {
                positions,
                normals: alloc::vec![[0.0, 0.0, 1.0]; normals],
                targets,
                ..Merged::default()
            };
            let bits = |b: Vec<([f32; 3], [f32; 3])>| -> Vec<[u32; 6]> {
                b.iter()
                    .map(|(lo, hi)| [lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]].map(f32::to_bits))
                    .collect()
            };
            assert_eq!(
                bits(target_frame_bounds(&merged)),
                bits(reference(&merged)),
                "{vertices} vertices, {normals} normals"
            );
        }
    }

    /// The block's unit normals are [`crate::unit_or_up`]'s, bit for bit (the recovered
    /// bytes alone would hide a last-bit difference that never crosses to another table
    /// normal).
    #[test]
    fn block_unit_normals_are_unit_or_up_bit_for_bit() {
        let mut block = RecoverBlock::new();
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut inputs = Vec::new();
        for j in 0..RECOVER_BLOCK {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v: [f32; 3] = match j {
                0 => [0.0; 3],
                1 => [f32::NAN, 0.0, 0.0],
                2 => [f32::INFINITY, 1.0, 0.0],
                3 => [1e-20, 0.0, 0.0],
                4 => [3e19, 3e19, 3e19],
                _ => [0, 21, 42].map(|s| ((state >> s) as u16 as f32 - 32768.0) / 3000.0),
            };
            for (axis, x) in v.iter().enumerate() {
                block.n[axis][j] = *x;
            }
            inputs.push(v);
        }
        block.unit_normals();
        for (j, v) in inputs.iter().enumerate() {
            let got = [block.n[0][j], block.n[1][j], block.n[2][j]].map(f32::to_bits);
            assert_eq!(got, crate::unit_or_up(*v).map(f32::to_bits), "{v:?}");
        }
    }

    /// The block-wise recovery gives the vertex-at-a-time definition's bytes: on
    /// ordinary vertices, on ones that round half-way, and on every edge the definition
    /// names (no scene vertex, an index past the normals, a target shorter than the base,
    /// non-finite positions and normals, zero normals, scales that are zero, negative or
    /// NaN, huge values), for map lengths around the block size.
    #[test]
    fn block_recovery_is_the_vertex_at_a_time_definition() {
        use idmodel_core::trivertx::TriVertex;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e30,
            -1e30,
            8_388_609.0,
            1e-40,
        ];
        let float = |next: &mut dyn FnMut() -> u64| -> f32 {
            let r = next();
            match r % 16 {
                0 => specials[((r >> 8) % specials.len() as u64) as usize],
                1..=4 => ((r >> 8) % 512) as f32 * 0.5 - 128.0,
                _ => ((r >> 8) as u32 as f32 / u32::MAX as f32) * 200.0 - 100.0,
            }
        };
        let vec3 = |next: &mut dyn FnMut() -> u64| [float(next), float(next), float(next)];
        for (round, len) in [0usize, 1, 5, 63, 64, 65, 127, 128, 130, 200]
            .into_iter()
            .enumerate()
        {
            let vertices = len.max(1) + round;
            let positions: Vec<[f32; 3]> = (0..vertices).map(|_| vec3(&mut next)).collect();
            // Fewer normals than positions: the last vertices have none.
            let normals: Vec<[f32; 3]> = (0..vertices.saturating_sub(round % 3))
                .map(|_| vec3(&mut next))
                .collect();
            let targets: Vec<Vec<([f32; 3], [f32; 3])>> = (0..4)
                .map(|t| {
                    // Target 2 is shorter than the base.
                    let n = if t == 2 { vertices / 2 } else { vertices };
                    (0..n).map(|_| (vec3(&mut next), vec3(&mut next))).collect()
                })
                .collect();
            let merged = Merged {
                positions,
                normals,
                targets,
                ..Merged::default()
            };
            let map: Vec<Option<usize>> = (0..len)
                .map(|_| match next() % 10 {
                    0 => None,
                    1 => Some(vertices + 3),
                    _ => Some((next() % vertices as u64) as usize),
                })
                .collect();
            let scales = [
                [0.5, 0.25, 1.0],
                [0.0, -1.0, f32::NAN],
                [0.1, 3.0, 1e-30],
                [f32::INFINITY, 0.75, 2.0],
                [1.0, 1.0, 1.0],
            ];
            let translates = [
                [-64.0, -32.0, 0.0],
                [0.0, 0.0, 0.0],
                [f32::NAN, 1.0, -1.0],
                [5.0, f32::INFINITY, -100.0],
                [-0.5, 0.5, 127.5],
            ];
            let quant = |f: usize| (scales[f % 5], translates[f % 5]);
            for normal in [None, Some(7u8)] {
                let want = recover_one_at_a_time(&merged, &map, &quant, normal);
                assert_eq!(want.len(), 5);
                // Hints: none, the answer itself, wrong ones, too few (frames and
                // vertices), and indices past the table.
                let wrong: Vec<Vec<TriVertex>> = want
                    .iter()
                    .map(|f| {
                        f.iter()
                            .map(|v| TriVertex {
                                light_normal_index: (v.light_normal_index.wrapping_add(1)) % 200,
                                ..*v
                            })
                            .collect()
                    })
                    .collect();
                fn as_refs(v: &[Vec<TriVertex>]) -> Vec<&[TriVertex]> {
                    v.iter().map(Vec::as_slice).collect()
                }
                let right = as_refs(&want);
                let wrong = as_refs(&wrong);
                let short: Vec<&[TriVertex]> =
                    right.iter().take(3).map(|f| &f[..f.len() / 2]).collect();
                for hints in [&[][..], &right, &wrong, &short] {
                    let got = recover_target_vertices(&merged, &map, &quant, normal, hints);
                    assert_eq!(got, want, "map of {len}, normal {normal:?}");
                }
            }
        }
    }

    /// The reference: every frame posed whole by `pose`.
    fn target_frames(merged: &Merged) -> Vec<SampledFrame> {
        let n = merged.targets.len();
        let mut out = Vec::with_capacity(n.saturating_add(1));
        out.push(pose(merged, &[], String::new(), 0.0));
        let mut w = alloc::vec![0.0f32; n];
        for t in 0..n {
            if let Some(x) = w.get_mut(t) {
                *x = 1.0;
            }
            out.push(pose(merged, &w, String::new(), 0.0));
            if let Some(x) = w.get_mut(t) {
                *x = 0.0;
            }
        }
        out
    }

    /// The reference: packed vertices of posed frames, with the search for every normal.
    fn recover_vertices(
        frames: &[SampledFrame],
        map: &[Option<usize>],
        quant: &dyn Fn(usize) -> ([f32; 3], [f32; 3]),
        normal: Option<u8>,
    ) -> Vec<Vec<idmodel_core::trivertx::TriVertex>> {
        frames
            .iter()
            .enumerate()
            .map(|(f, frame)| {
                let (s, t) = quant(f);
                map.iter()
                    .map(|m| {
                        let p = m.and_then(|k| frame.positions.get(k));
                        let n = m.and_then(|k| frame.normals.get(k));
                        match (p, n) {
                            (Some(p), Some(n)) => idmodel_core::trivertx::TriVertex {
                                v: [
                                    quantise(p[0], t[0], s[0]),
                                    quantise(p[1], t[1], s[1]),
                                    quantise(p[2], t[2], s[2]),
                                ],
                                light_normal_index: normal.unwrap_or_else(|| nearest_normal(*n)),
                            },
                            _ => idmodel_core::trivertx::TriVertex::default(),
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn recovering_vertex_by_vertex_matches_posing_whole_frames() {
        let mut seed = 0x9E37_79B9u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            f32::from_bits(seed >> 9 | 0x3F80_0000) * 2.0 - 3.0
        };
        let n = 300;
        let unit = |next: &mut dyn FnMut() -> f32| {
            let i = usize::try_from(next().to_bits() % 162).unwrap_or(0);
            idmodel_core::anorms::ANORMS[i]
        };
        let positions: Vec<[f32; 3]> = (0..n)
            .map(|_| [next() * 40.0, next() * 40.0, next() * 1e38])
            .collect();
        let normals: Vec<[f32; 3]> = (0..n).map(|_| unit(&mut next)).collect();
        let targets: Vec<Vec<([f32; 3], [f32; 3])>> = (0..12)
            .map(|_| {
                (0..n)
                    .map(|k| {
                        let to = unit(&mut next);
                        let b = normals[k];
                        let dp = [next() * 5.0, next() * 5.0, next() * 3e38];
                        (dp, [to[0] - b[0], to[1] - b[1], to[2] - b[2]])
                    })
                    .collect()
            })
            .collect();
        let merged = Merged {
            positions,
            normals,
            uvs: alloc::vec![[0.0; 2]; n],
            indices: alloc::vec![0, 1, 2],
            material: None,
            targets,
            target_names: Vec::new(),
            influences: Vec::new(),
        };
        // Some file vertices unmapped, some mapped twice, one past the mesh.
        let map: Vec<Option<usize>> = (0..n + 20)
            .map(|i| (i % 7 != 3).then_some(i % (n + 1)))
            .collect();
        let quant = |f: usize| {
            let f = f32::from(u8::try_from(f).unwrap_or(0));
            ([0.3 + f * 0.01, 0.25, 0.5], [-40.0, -41.0 + f, -1e38])
        };
        let frames = target_frames(&merged);
        assert_eq!(
            recover_target_vertices(&merged, &map, &quant, None, &[]),
            recover_vertices(&frames, &map, &quant, None)
        );
        assert_eq!(
            recover_target_vertices(&merged, &map, &quant, Some(7), &[]),
            recover_vertices(&frames, &map, &quant, Some(7))
        );
        let bits = |b: ([f32; 3], [f32; 3])| (b.0.map(f32::to_bits), b.1.map(f32::to_bits));
        let posed: Vec<_> = frames
            .iter()
            .map(|f| bits(bounds(f.positions.iter().copied())))
            .collect();
        let direct: Vec<_> = target_frame_bounds(&merged).into_iter().map(bits).collect();
        assert_eq!(direct, posed);
    }
}
