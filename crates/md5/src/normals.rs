//! Vertex normals and tangents.
//!
//! Two options:
//!
//! * [`area_weighted_normals`]: the usual smooth normals, each face's normal weighted by
//!   its area, into a caller slice (no allocation, no welding).
//! * [`DoomTangents`] (feature `alloc`): Doom 3's own derivation (docs/formats.md
//!   §4.6), step for step: mirrored-UV vertices split at load, **unit** face
//!   normals and tangents summed without weighting, coincident positions combined by
//!   Doom's asymmetric rule, then `NormalizeTangents` with `idMath::RSqrt` (one Newton
//!   step: results may be about 0.2 % off unit length, as in the engine's generic path).
//!
//! Both use Doom's winding: the face normal is `(c − a) × (b − a)`, so clockwise
//! triangles face the viewer.

use idmodel_core::quat::Vec3;

use crate::types::Triangle;

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn idx(i: u32) -> usize {
    usize::try_from(i).unwrap_or(usize::MAX)
}

/// Smooth normals weighted by face area (`(c − a) × (b − a)` summed, then normalised)
/// into `out`. Triangles with an index outside `positions` or `out` are skipped;
/// vertices no triangle uses get `[0, 0, 0]`.
///
/// ```
/// use idmodel_md5::normals::area_weighted_normals;
/// let p = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]];
/// let mut n = [[0.0; 3]; 3];
/// area_weighted_normals(&p, &[[0, 1, 2]], &mut n);
/// assert_eq!(n[0], [0.0, 0.0, 1.0]); // clockwise seen from +z faces +z
/// ```
pub fn area_weighted_normals(positions: &[Vec3], triangles: &[Triangle], out: &mut [Vec3]) {
    for o in out.iter_mut() {
        *o = [0.0; 3];
    }
    for t in triangles {
        let (Some(&a), Some(&b), Some(&c)) = (
            positions.get(idx(t[0])),
            positions.get(idx(t[1])),
            positions.get(idx(t[2])),
        ) else {
            continue;
        };
        let d0 = sub(b, a);
        let d1 = sub(c, a);
        let n = [
            d1[1] * d0[2] - d1[2] * d0[1],
            d1[2] * d0[0] - d1[0] * d0[2],
            d1[0] * d0[1] - d1[1] * d0[0],
        ];
        for &v in t {
            if let Some(o) = out.get_mut(idx(v)) {
                o[0] += n[0];
                o[1] += n[1];
                o[2] += n[2];
            }
        }
    }
    for o in out.iter_mut() {
        let len = libm::sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
        if len > 0.0 && len.is_finite() {
            *o = [o[0] / len, o[1] / len, o[2] / len];
        }
    }
}

/// `R_FaceNegativePolarity`: the triangle's texture area is negative.
pub fn negative_polarity(uv: [[f32; 2]; 3]) -> bool {
    let [a, b, c] = uv;
    let d0 = [b[0] - a[0], b[1] - a[1]];
    let d1 = [c[0] - a[0], c[1] - a[1]];
    d0[0] * d1[1] - d0[1] * d1[0] < 0.0
}

#[cfg(feature = "alloc")]
pub use doom::*;

#[cfg(feature = "alloc")]
mod doom {
    use alloc::vec;
    use alloc::vec::Vec;

    use idmodel_core::quat::doom_rsqrt;

    use super::*;

    /// `t` scaled by Doom's reciprocal square root of its length², with the sign bit
    /// `sign` flipped into the factor (the tangents of a mirrored triangle).
    fn signed_unit(t: Vec3, sign: u32) -> Vec3 {
        let f =
            f32::from_bits(doom_rsqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]).to_bits() ^ sign);
        [t[0] * f, t[1] * f, t[2] * f]
    }

    /// Doom 3's per-surface tangent setup (`R_BuildDeformInfo`): mirrored vertices and
    /// duplicate pairs, built once from the bind pose.
    ///
    /// ```
    /// use idmodel_md5::normals::DoomTangents;
    /// // Two triangles sharing an edge, the second with mirrored texture coordinates.
    /// let p = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]];
    /// let uv = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]];
    /// let tris = [[0, 1, 2], [2, 1, 3]];
    /// let setup = DoomTangents::new(&p, &uv, &tris);
    /// let out = setup.derive(&p);
    /// assert_eq!(out.normals.len(), setup.num_vertices());
    /// assert!((out.normals[0][2] - 1.0).abs() < 0.003); // RSqrt precision
    /// ```
    #[derive(Debug, Clone, PartialEq)]
    pub struct DoomTangents {
        num_original: usize,
        /// For each appended copy, the original vertex it copies.
        mirrored: Vec<u32>,
        /// The triangles, negative-polarity corners re-pointed to the copies.
        triangles: Vec<Triangle>,
        /// `(duplicate, first vertex with the same position)`, ascending duplicates.
        dup_verts: Vec<(u32, u32)>,
        /// Texture coordinates of the original vertices.
        uv: Vec<[f32; 2]>,
    }

    /// Doom 3's normals and tangents for every vertex, copies included.
    #[derive(Debug, Clone, PartialEq, Default)]
    pub struct DoomVertexFrames {
        /// Normals.
        pub normals: Vec<Vec3>,
        /// The two tangents (`s` and `t` directions).
        pub tangents: Vec<[Vec3; 2]>,
    }

    impl DoomTangents {
        /// The setup for a mesh with bind-pose `positions`, texture coordinates `uv`
        /// (one per vertex) and `triangles` (indices must be in range: triangles that
        /// are not are dropped).
        pub fn new(positions: &[Vec3], uv: &[[f32; 2]], triangles: &[Triangle]) -> Self {
            let n = positions.len().min(uv.len());
            let triangles: Vec<Triangle> = triangles
                .iter()
                .copied()
                .filter(|t| t.iter().all(|&v| idx(v) < n))
                .collect();
            // R_CreateSilRemap: each vertex → the first vertex with an equal (float ==)
            // position.
            let first_same = first_same_position(positions.get(..n).unwrap_or(&[]));
            // R_DuplicateMirroredVertexes: bit 1 = used by a positive triangle, 2 = negative.
            let mut polarity = vec![0u8; n];
            let tri_uv = |t: &Triangle| {
                let g = |v: u32| uv.get(idx(v)).copied().unwrap_or([0.0; 2]);
                [g(t[0]), g(t[1]), g(t[2])]
            };
            for t in &triangles {
                let bit = if negative_polarity(tri_uv(t)) { 2 } else { 1 };
                for &v in t {
                    if let Some(p) = polarity.get_mut(idx(v)) {
                        *p |= bit;
                    }
                }
            }
            let mut remap = vec![u32::MAX; n];
            let mut mirrored = Vec::new();
            let mut next = u32::try_from(n).unwrap_or(u32::MAX);
            for (i, &p) in polarity.iter().enumerate() {
                if p == 3 {
                    if let Some(r) = remap.get_mut(i) {
                        *r = next;
                    }
                    mirrored.push(u32::try_from(i).unwrap_or(u32::MAX));
                    next = next.saturating_add(1);
                }
            }
            let mut new_tris = triangles.clone();
            for (t, nt) in triangles.iter().zip(new_tris.iter_mut()) {
                if negative_polarity(tri_uv(t)) {
                    for (v, nv) in t.iter().zip(nt.iter_mut()) {
                        if polarity.get(idx(*v)) == Some(&3) {
                            *nv = remap.get(idx(*v)).copied().unwrap_or(*v);
                        }
                    }
                }
            }
            // R_CreateDupVerts: remap[new index] = sil index of the original corner.
            let total = n.saturating_add(mirrored.len());
            let mut dup_remap: Vec<u32> = (0..total)
                .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect();
            for (t, nt) in triangles.iter().zip(&new_tris) {
                for (v, nv) in t.iter().zip(nt) {
                    if let (Some(slot), Some(&f)) =
                        (dup_remap.get_mut(idx(*nv)), first_same.get(idx(*v)))
                    {
                        *slot = f;
                    }
                }
            }
            let dup_verts = dup_remap
                .iter()
                .enumerate()
                .filter_map(|(i, &r)| {
                    let i = u32::try_from(i).ok()?;
                    (r != i).then_some((i, r))
                })
                .collect();
            Self {
                num_original: n,
                mirrored,
                triangles: new_tris,
                dup_verts,
                uv: uv.get(..n).unwrap_or(&[]).to_vec(),
            }
        }

        /// Vertices after the split: the originals, then one copy per mirrored vertex.
        pub fn num_vertices(&self) -> usize {
            self.num_original.saturating_add(self.mirrored.len())
        }

        /// The original vertex behind each appended copy.
        pub fn mirrored(&self) -> &[u32] {
            &self.mirrored
        }

        /// The triangles with negative-polarity corners re-pointed to the copies.
        pub fn triangles(&self) -> &[Triangle] {
            &self.triangles
        }

        /// The `(duplicate, first)` pairs of coincident positions.
        pub fn dup_verts(&self) -> &[(u32, u32)] {
            &self.dup_verts
        }

        /// `R_DeriveTangents` for one pose: `positions` are the original vertices' skinned
        /// positions (copies take their original's). Vertices no triangle uses get zero.
        pub fn derive(&self, positions: &[Vec3]) -> DoomVertexFrames {
            let uv = self.uv.as_slice();
            let total = self.num_vertices();
            let source = |i: usize| -> usize {
                if i < self.num_original {
                    i
                } else {
                    self.mirrored
                        .get(i.saturating_sub(self.num_original))
                        .map_or(usize::MAX, |&v| idx(v))
                }
            };
            let pos = |i: u32| positions.get(source(idx(i))).copied().unwrap_or([0.0; 3]);
            let st = |i: u32| uv.get(source(idx(i))).copied().unwrap_or([0.0; 2]);
            let mut normals = vec![[0.0f32; 3]; total];
            let mut tangents = vec![[[0.0f32; 3]; 2]; total];
            let mut used = vec![false; total];
            for t in &self.triangles {
                let (a, b, c) = (pos(t[0]), pos(t[1]), pos(t[2]));
                let (sa, sb, sc) = (st(t[0]), st(t[1]), st(t[2]));
                // An edge from `a`: position and texture-coordinate differences.
                let edge = |p: Vec3, s: [f32; 2]| {
                    [
                        p[0] - a[0],
                        p[1] - a[1],
                        p[2] - a[2],
                        s[0] - sa[0],
                        s[1] - sa[1],
                    ]
                };
                let (d0, d1) = (edge(b, sb), edge(c, sc));
                let mut n = [
                    d1[1] * d0[2] - d1[2] * d0[1],
                    d1[2] * d0[0] - d1[0] * d0[2],
                    d1[0] * d0[1] - d1[1] * d0[0],
                ];
                let f = doom_rsqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                n = [n[0] * f, n[1] * f, n[2] * f];
                let area = d0[3] * d1[4] - d0[4] * d1[3];
                let sign = area.to_bits() & 0x8000_0000;
                let mut t0 = [
                    d0[0] * d1[4] - d0[4] * d1[0],
                    d0[1] * d1[4] - d0[4] * d1[1],
                    d0[2] * d1[4] - d0[4] * d1[2],
                ];
                t0 = signed_unit(t0, sign);
                let mut t1 = [
                    d0[3] * d1[0] - d0[0] * d1[3],
                    d0[3] * d1[1] - d0[1] * d1[3],
                    d0[3] * d1[2] - d0[2] * d1[3],
                ];
                t1 = signed_unit(t1, sign);
                for &v in t {
                    let v = idx(v);
                    let (Some(nv), Some(tv), Some(u)) =
                        (normals.get_mut(v), tangents.get_mut(v), used.get_mut(v))
                    else {
                        continue;
                    };
                    if *u {
                        add(nv, n);
                        add(&mut tv[0], t0);
                        add(&mut tv[1], t1);
                    } else {
                        *nv = n;
                        *tv = [t0, t1];
                        *u = true;
                    }
                }
            }
            // docs/formats.md §4.6: every duplicate adds the first vertex's sum; then the
            // first takes each duplicate's in turn, so the last one wins. Tangents are not
            // shared.
            for &(d, f) in &self.dup_verts {
                let first = normals.get(idx(f)).copied().unwrap_or([0.0; 3]);
                if let Some(dn) = normals.get_mut(idx(d)) {
                    add(dn, first);
                }
            }
            for &(d, f) in &self.dup_verts {
                let dn = normals.get(idx(d)).copied().unwrap_or([0.0; 3]);
                if let Some(fnorm) = normals.get_mut(idx(f)) {
                    *fnorm = dn;
                }
            }
            // NormalizeTangents.
            for (v, ts) in normals.iter_mut().zip(tangents.iter_mut()) {
                let f = doom_rsqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                *v = [v[0] * f, v[1] * f, v[2] * f];
                for t in ts.iter_mut() {
                    let d = t[0] * v[0] + t[1] * v[1] + t[2] * v[2];
                    *t = [t[0] - d * v[0], t[1] - d * v[1], t[2] - d * v[2]];
                    let f = doom_rsqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
                    *t = [t[0] * f, t[1] * f, t[2] * f];
                }
            }
            DoomVertexFrames { normals, tangents }
        }
    }

    fn add(a: &mut Vec3, b: Vec3) {
        a[0] += b[0];
        a[1] += b[1];
        a[2] += b[2];
    }

    /// `x`'s bits mapped so that unsigned order is `f32::total_cmp`'s: a negative value
    /// has every bit flipped, a positive one its sign bit set.
    fn total_order_bits(x: f32) -> u32 {
        let b = x.to_bits();
        if b >> 31 == 1 { !b } else { b | 0x8000_0000 }
    }

    /// For each vertex, the lowest index with an equal position (float `==`, so +0 and
    /// −0 match and NaN matches nothing). Sorting keeps this O(n log n).
    fn first_same_position(p: &[Vec3]) -> Vec<u32> {
        let key = |i: u32| {
            let v = p.get(idx(i)).copied().unwrap_or([0.0; 3]);
            // +0 and −0 sort together: compare as floats, NaN last.
            v.map(|x| if x == 0.0 { 0.0 } else { x })
        };
        // The order of `f32::total_cmp` on (x, y, z), then the index, as one integer per
        // vertex: a plain integer sort, where comparing through the positions cost a
        // sixth of an md5mesh conversion.
        let mut sorted: Vec<u128> = (0..p.len())
            .map(|i| {
                let i = u32::try_from(i).unwrap_or(u32::MAX);
                key(i).iter().fold(0u128, |acc, x| {
                    (acc << 32) | u128::from(total_order_bits(*x))
                }) << 32
                    | u128::from(i)
            })
            .collect();
        sorted.sort_unstable();
        let order = sorted
            .iter()
            .map(|k| u32::try_from(k & 0xFFFF_FFFF).unwrap_or(u32::MAX));
        let mut first: Vec<u32> = (0..p.len())
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        let mut group_start: Option<u32> = None;
        let mut prev: Option<Vec3> = None;
        for i in order {
            let k = key(i);
            let same = prev.is_some_and(|q| q == k);
            if !same {
                group_start = Some(i);
            }
            if let (Some(g), Some(slot)) = (group_start, first.get_mut(idx(i))) {
                *slot = g;
            }
            prev = Some(k);
        }
        first
    }

    #[cfg(test)]
    #[allow(clippy::indexing_slicing)] // test code
    mod tests {
        use super::*;
        use proptest::prelude::*;

        /// Coordinates that collide often, with both zeros, infinities and NaNs.
        fn coord() -> impl Strategy<Value = f32> {
            proptest::sample::select(alloc::vec![
                0.0,
                -0.0,
                1.0,
                -1.0,
                2.5,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                -f32::NAN,
                f32::MIN_POSITIVE,
                -f32::MIN_POSITIVE,
            ])
        }

        proptest! {
            /// The definition, by brute force: the lowest index whose position is equal
            /// under float `==` (NaN equals nothing, so such a vertex stands alone).
            #[test]
            fn first_same_position_is_the_lowest_equal_index(
                p in proptest::collection::vec([coord(), coord(), coord()], 0..120),
            ) {
                let got = first_same_position(&p);
                for (i, v) in p.iter().enumerate() {
                    let want = p.iter().position(|q| q == v).unwrap_or(i);
                    prop_assert_eq!(idx(got[i]), want, "vertex {} at {:?}", i, v);
                }
            }
        }
    }
}
