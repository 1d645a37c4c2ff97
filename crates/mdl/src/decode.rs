//! Engine-ready data: texture coordinates by the seam rule, and the welded mesh that
//! QuakeSpasm builds for its vertex buffers.

use idmodel_core::{Error, ErrorKind, Result};

use crate::raw::{ALIAS_ONSEAM, StVert, TriVertex, Triangle};
use crate::{Mdl, Pose};

/// Which renderer's seam rule and texel convention to follow (§1.3.2).
///
/// A vertex on the skin seam is drawn from the back half of the skin (its `s` moved by
/// `skinwidth / 2`) when it belongs to a back-facing triangle (`facesfront == 0`).
/// The renderers disagree on which vertices are seam vertices and on the half texel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SeamRule {
    /// GLQuake and QuakeSpasm: seam when `onseam != 0`; `u = (s' + 0.5) / width`.
    #[default]
    Gl,
    /// WinQuake's software renderer: seam only when `onseam & 0x20`; integer texels
    /// (16.16 fixed point), so `u = s' / width` with no half-texel offset.
    Software,
}

impl SeamRule {
    /// True when a vertex with this `onseam` value is a seam vertex under this rule.
    pub const fn is_seam(self, onseam: i32) -> bool {
        match self {
            SeamRule::Gl => onseam != 0,
            SeamRule::Software => onseam & ALIAS_ONSEAM != 0,
        }
    }

    /// The texel coordinate `[s', t]` of `st` as a corner of a triangle that faces front
    /// or not: `s' = s + skinwidth / 2` (integer division) for seam vertices of
    /// back-facing triangles. Wrapping arithmetic, as the engines' C `int`s would.
    pub fn texel(self, st: &StVert, faces_front: bool, skin_width: usize) -> [i32; 2] {
        let mut s = st.s.get();
        if !faces_front && self.is_seam(st.onseam.get()) {
            let half = i32::try_from(skin_width / 2).unwrap_or(i32::MAX);
            s = s.wrapping_add(half);
        }
        [s, st.t.get()]
    }

    /// Normalised texture coordinates for a texel: `(s + 0.5) / w` for GL, `s / w` for
    /// software. `v = 0` is the top row; there is no flip.
    pub fn uv(self, texel: [i32; 2], skin_width: usize, skin_height: usize) -> [f32; 2] {
        let off = self.texel_offset();
        [
            (int_to_f32(texel[0]) + off) / usize_to_f32(skin_width),
            (int_to_f32(texel[1]) + off) / usize_to_f32(skin_height),
        ]
    }
}

impl SeamRule {
    /// The half texel of [`SeamRule::uv`]: 0.5 for GL, 0 for software.
    const fn texel_offset(self) -> f32 {
        match self {
            SeamRule::Gl => 0.5,
            SeamRule::Software => 0.0,
        }
    }
}

/// `i32 → f32` with C's rounding to nearest (the engines' implicit conversion).
#[allow(clippy::as_conversions)] // int→float `as` is exact or rounds to nearest; no From impl exists
pub(crate) fn int_to_f32(v: i32) -> f32 {
    v as f32
}

/// `usize → f32`, rounding to nearest.
#[allow(clippy::as_conversions)] // int→float `as` rounds to nearest; no From impl exists
pub(crate) fn usize_to_f32(v: usize) -> f32 {
    v as f32
}

/// One vertex of a welded mesh: a source vertex and one side of the seam.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct WeldedVertex {
    /// Index of the source vertex (into the poses' vertices and the texture coordinates).
    pub source: u32,
    /// True for the copy with the seam shift (used by back-facing triangles).
    pub back_side: bool,
    /// Texel coordinate after the seam shift.
    pub texel: [i32; 2],
    /// Normalised texture coordinate under the chosen [`SeamRule`].
    pub uv: [f32; 2],
}

/// Buffer sizes for [`Mdl::weld_into`], known before building.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeldSizes {
    /// Upper bound of the welded vertex count: `min(2 · numverts, 3 · numtris)`.
    /// The exact count is returned by [`Mdl::weld_into`].
    pub max_vertices: usize,
    /// Exact index count: `3 · numtris`.
    pub indices: usize,
    /// Length of the scratch slice: the remap table, `2 · numverts` entries, and for
    /// [`Mdl::weld_pose_into`] one more entry per possible welded vertex
    /// (`max_vertices`). [`Mdl::weld_into`] uses only the first `2 · numverts`.
    pub scratch: usize,
}

/// The engine-ready output slices of [`Mdl::weld_pose_into`].
#[derive(Debug)]
pub struct WeldTargets<'o> {
    /// Decoded position of each welded vertex.
    pub positions: &'o mut [[f32; 3]],
    /// Unit normal of each welded vertex (`(0, 0, 1)` for an index ≥ 162).
    pub normals: &'o mut [[f32; 3]],
    /// Texture coordinate of each welded vertex under the chosen [`SeamRule`].
    pub uvs: &'o mut [[f32; 2]],
    /// Three indices per triangle, in stored winding order.
    pub indices: &'o mut [u32],
}

/// A welded mesh (vertex and index buffers), built by [`Mdl::welded_mesh`].
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WeldedMesh {
    /// The vertices, in order of first use.
    pub vertices: alloc::vec::Vec<WeldedVertex>,
    /// Three indices into `vertices` per triangle, in stored winding order.
    pub indices: alloc::vec::Vec<u32>,
}

#[cfg(feature = "alloc")]
impl WeldedMesh {
    /// Decoded positions of `pose` for every welded vertex.
    pub fn positions(&self, pose: &Pose<'_>) -> alloc::vec::Vec<[f32; 3]> {
        let mut out = alloc::vec![[0.0; 3]; self.vertices.len()];
        pose.welded_positions_into(&self.vertices, &mut out);
        out
    }

    /// Normals of `pose` for every welded vertex.
    pub fn normals(&self, pose: &Pose<'_>) -> alloc::vec::Vec<[f32; 3]> {
        let mut out = alloc::vec![[0.0; 3]; self.vertices.len()];
        pose.welded_normals_into(&self.vertices, &mut out);
        out
    }
}

impl Pose<'_> {
    /// Fills `out[i]` with the decoded position of `welded[i].source`; returns the count
    /// written (`min` of the two lengths).
    pub fn welded_positions_into(&self, welded: &[WeldedVertex], out: &mut [[f32; 3]]) -> usize {
        let mut n = 0usize;
        for (o, w) in out.iter_mut().zip(welded) {
            *o = usize::try_from(w.source)
                .ok()
                .and_then(|i| self.position(i))
                .unwrap_or_default();
            n = n.saturating_add(1);
        }
        n
    }

    /// Fills `out[i]` with the normal of `welded[i].source` (fallback `(0, 0, 1)` for an
    /// index ≥ 162); returns the count written.
    pub fn welded_normals_into(&self, welded: &[WeldedVertex], out: &mut [[f32; 3]]) -> usize {
        let mut n = 0usize;
        for (o, w) in out.iter_mut().zip(welded) {
            *o = usize::try_from(w.source)
                .ok()
                .and_then(|i| self.vertices().get(i))
                .map_or([0.0, 0.0, 1.0], TriVertex::normal);
            n = n.saturating_add(1);
        }
        n
    }
}

impl Mdl<'_> {
    /// The texel of corner `corner` (0..3) of triangle `tri` under `rule`.
    pub fn texel(&self, tri: &Triangle, corner: usize, rule: SeamRule) -> [i32; 2] {
        let st = tri
            .vert_index
            .get(corner)
            .and_then(|v| usize::try_from(v.get()).ok())
            .and_then(|v| self.texcoords().get(v));
        match st {
            Some(st) => rule.texel(st, tri.faces_front.get() != 0, self.skin_width()),
            None => [0, 0],
        }
    }

    /// Per-triangle texture coordinates under `rule`, three corners each, unwelded.
    pub fn triangle_uvs(
        &self,
        rule: SeamRule,
    ) -> impl ExactSizeIterator<Item = [[f32; 2]; 3]> + '_ {
        let (w, h) = (self.skin_width(), self.skin_height());
        self.triangles()
            .iter()
            .map(move |t| [0, 1, 2].map(|c| rule.uv(self.texel(t, c, rule), w, h)))
    }

    /// Sizes of the buffers [`Mdl::weld_into`] needs.
    pub fn weld_sizes(&self) -> WeldSizes {
        let v2 = self.vertex_count().saturating_mul(2);
        let t3 = self.triangles().len().saturating_mul(3);
        WeldSizes {
            max_vertices: v2.min(t3),
            indices: t3,
            scratch: v2.saturating_add(v2.min(t3)),
        }
    }

    /// [`Mdl::weld_sizes`], after checking that an index slice of `indices` entries
    /// holds the indices.
    fn weld_sizes_for(&self, indices: usize) -> Result<WeldSizes> {
        let sizes = self.weld_sizes();
        if indices < sizes.indices {
            return Err(too_small(
                "welded mesh indices for the output slice",
                indices,
                sizes.indices,
            ));
        }
        Ok(sizes)
    }

    /// Builds the welded mesh the way QuakeSpasm does (`GL_MakeAliasModelDisplayLists_VBO`):
    /// one output vertex per (source vertex, seam side) in order of first use, where the
    /// back side is used by back-facing triangles at seam vertices. Indices keep the
    /// stored winding: front faces are those that appear **clockwise** on screen
    /// (GLQuake culls `GL_FRONT` with the default counter-clockwise front face, §1.3.4).
    ///
    /// `vertices` needs at least [`WeldSizes::max_vertices`] entries (or the exact count),
    /// `indices` exactly [`WeldSizes::indices`] or more, `scratch` at least
    /// [`WeldSizes::scratch`]. Returns the number of vertices written.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_mdl::{Mdl, Model, SeamRule, WeldedVertex};
    /// let bytes = Model::example().write().unwrap();
    /// let mdl = Mdl::parse(&bytes).unwrap();
    /// let sizes = mdl.weld_sizes();
    /// let mut verts = vec![WeldedVertex::default(); sizes.max_vertices];
    /// let mut indices = vec![0u32; sizes.indices];
    /// let mut scratch = vec![0u32; sizes.scratch];
    /// let n = mdl.weld_into(SeamRule::Gl, &mut verts, &mut indices, &mut scratch).unwrap();
    /// assert_eq!(n, 3);
    /// # }
    /// ```
    pub fn weld_into(
        &self,
        rule: SeamRule,
        vertices: &mut [WeldedVertex],
        indices: &mut [u32],
        scratch: &mut [u32],
    ) -> Result<usize> {
        self.weld_sizes_for(indices.len())?;
        let scratch_len = scratch.len();
        let remap_len = self.vertex_count().saturating_mul(2);
        let remap = scratch.get_mut(..remap_len).ok_or_else(|| {
            too_small(
                "remap entries for the scratch slice",
                scratch_len,
                remap_len,
            )
        })?;
        let (w, h) = (self.skin_width(), self.skin_height());
        let texcoords = self.texcoords();
        self.weld_topology(rule, remap, indices, |count, source, back| {
            let out = vertices.get_mut(count).ok_or_else(|| {
                too_small(
                    "welded vertices for the output slice",
                    count,
                    count.saturating_add(1),
                )
            })?;
            // `texel` depends on the facing only through `back` (seam and back-facing).
            let texel = texcoords
                .get(source)
                .map_or([0, 0], |st| rule.texel(st, !back, w));
            *out = WeldedVertex {
                source: u32::try_from(source).unwrap_or(u32::MAX),
                back_side: back,
                texel,
                uv: rule.uv(texel, w, h),
            };
            Ok(())
        })
    }

    /// The topology of QuakeSpasm's weld, shared by [`Mdl::weld_into`] and
    /// [`Mdl::weld_pose_into`]: one welded vertex per (source vertex, seam side) in order
    /// of first use. Clears `remap` (`2 · numverts` entries), writes three indices per
    /// triangle into `indices`, and calls `new_vertex(count, source, back)` once per new
    /// welded vertex, before its index is written; stops at its first error. Returns the
    /// number of welded vertices.
    #[inline(always)]
    fn weld_topology(
        &self,
        rule: SeamRule,
        remap: &mut [u32],
        indices: &mut [u32],
        mut new_vertex: impl FnMut(usize, usize, bool) -> Result<()>,
    ) -> Result<usize> {
        remap.fill(0);
        let texcoords = self.texcoords();
        let mut count = 0usize;
        let mut out_index = indices.iter_mut();
        for tri in self.triangles() {
            let front = tri.faces_front.get() != 0;
            for v in tri.vert_index {
                let source = usize::try_from(v.get()).unwrap_or(0);
                let Some(st) = texcoords.get(source) else {
                    continue;
                };
                let back = !front && rule.is_seam(st.onseam.get());
                let slot = source.saturating_mul(2).saturating_add(usize::from(back));
                let Some(entry) = remap.get_mut(slot) else {
                    continue;
                };
                if *entry == 0 {
                    new_vertex(count, source, back)?;
                    count = count.saturating_add(1);
                    *entry = u32::try_from(count).unwrap_or(u32::MAX);
                }
                let e = *entry;
                if let Some(o) = out_index.next() {
                    *o = e.saturating_sub(1);
                }
            }
        }
        Ok(count)
    }

    /// [`Mdl::weld_into`] fused with the decode of one pose: writes the engine-ready
    /// buffers of the welded mesh directly (no [`WeldedVertex`] list in between), so each
    /// welded vertex is decoded once, when it is first used, and unreferenced vertices are
    /// never read. For every `i < count`, `positions[i]`, `normals[i]` and `uvs[i]` equal
    /// what [`Pose::welded_positions_into`], [`Pose::welded_normals_into`] and
    /// `WeldedVertex::uv` give for `weld_into`'s vertex `i`, and the indices are the same.
    ///
    /// `positions`, `normals` and `uvs` need [`WeldSizes::max_vertices`] entries (or the
    /// exact count), `indices` [`WeldSizes::indices`], `scratch` [`WeldSizes::scratch`].
    /// Returns the number of vertices written.
    pub fn weld_pose_into(
        &self,
        rule: SeamRule,
        pose: &Pose<'_>,
        out: WeldTargets<'_>,
        scratch: &mut [u32],
    ) -> Result<usize> {
        let WeldTargets {
            positions,
            normals,
            uvs,
            indices,
        } = out;
        let sizes = self.weld_sizes_for(indices.len())?;
        let scratch_len = scratch.len();
        let (remap, order) = scratch
            .get_mut(..sizes.scratch)
            .ok_or_else(|| {
                too_small(
                    "remap and order entries for the scratch slice",
                    scratch_len,
                    sizes.scratch,
                )
            })?
            .split_at_mut(self.vertex_count().saturating_mul(2).min(sizes.scratch));
        let room = positions
            .len()
            .min(normals.len())
            .min(uvs.len())
            .min(order.len());
        // Pass 1, topology only: the remap, the indices, and in `order` the slot
        // (`2·source + back`) of each new vertex.
        let count = self.weld_topology(rule, remap, indices, |count, source, back| {
            let Some(o) = order.get_mut(count).filter(|_| count < room) else {
                return Err(too_small(
                    "welded vertices for the output slice",
                    room,
                    count.saturating_add(1),
                ));
            };
            let slot = source.saturating_mul(2).saturating_add(usize::from(back));
            *o = u32::try_from(slot).unwrap_or(u32::MAX);
            Ok(())
        })?;
        let texcoords = self.texcoords();
        // Pass 2: decode each welded vertex once, in order.
        let off = rule.texel_offset();
        let (w, h) = (self.skin_width(), self.skin_height());
        let raw = pose.vertices();
        for (((p, n), uv), &slot) in positions
            .iter_mut()
            .zip(normals.iter_mut())
            .zip(uvs.iter_mut())
            .zip(order.iter())
            .take(count)
        {
            let slot = usize::try_from(slot).unwrap_or(usize::MAX);
            let source = slot / 2;
            let back = slot % 2 == 1;
            // `texel` depends on the facing only through `back` (seam and back-facing).
            let texel = texcoords
                .get(source)
                .map_or([0, 0], |st| rule.texel(st, !back, w));
            *p = pose.position(source).unwrap_or_default();
            *n = raw.get(source).map_or([0.0, 0.0, 1.0], TriVertex::normal);
            // The numerator of `rule.uv`; divided below.
            *uv = [int_to_f32(texel[0]) + off, int_to_f32(texel[1]) + off];
        }
        // The division of `rule.uv` (same operations, same bits) as its own pass over whole
        // vectors: inside a loop with other work LLVM packs the two divisions into one
        // `divps` whose two unused lanes hold leftovers, and the microcode assists they
        // trigger made the loop 4x slower (perf, ogre.mdl).
        divide_uvs(uvs.get_mut(..count).unwrap_or_default(), w, h);
        Ok(count)
    }

    /// One vertex per triangle corner, unwelded and unindexed (a triangle soup, drawn
    /// with `glDrawArrays`; what Assimp's MDL loader builds): for corner `c` of triangle
    /// `t`, entry `3·t + c` of `positions`, `normals` and `uvs` gets that corner's decoded
    /// position, normal and texture coordinate under `rule`, in stored winding order.
    /// Each slice needs at least `3 · numtris` entries. Returns the number written. The
    /// values are those [`Mdl::weld_pose_into`] gives the corner's welded vertex.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use idmodel_mdl::{Mdl, Model, SeamRule};
    /// let bytes = Model::example().write().unwrap();
    /// let mdl = Mdl::parse(&bytes).unwrap();
    /// let pose = mdl.pose(0).unwrap();
    /// let n = 3 * mdl.triangles().len();
    /// let (mut p, mut nr, mut uv) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n], vec![[0.0; 2]; n]);
    /// assert_eq!(mdl.corners_into(SeamRule::Gl, &pose, &mut p, &mut nr, &mut uv).unwrap(), n);
    /// let first = mdl.triangles()[0].vert_index[0].get() as usize;
    /// assert_eq!(p[0], pose.position(first).unwrap());
    /// # }
    /// ```
    pub fn corners_into(
        &self,
        rule: SeamRule,
        pose: &Pose<'_>,
        positions: &mut [[f32; 3]],
        normals: &mut [[f32; 3]],
        uvs: &mut [[f32; 2]],
    ) -> Result<usize> {
        let need = self.triangles().len().saturating_mul(3);
        let room = positions.len().min(normals.len()).min(uvs.len());
        if room < need {
            return Err(too_small(
                "triangle corners for the output slices",
                room,
                need,
            ));
        }
        let off = rule.texel_offset();
        let (w, h) = (self.skin_width(), self.skin_height());
        let texcoords = self.texcoords();
        let raw = pose.vertices();
        let out = positions
            .chunks_exact_mut(3)
            .zip(normals.chunks_exact_mut(3))
            .zip(uvs.chunks_exact_mut(3));
        for (tri, ((p3, n3), uv3)) in self.triangles().iter().zip(out) {
            let front = tri.faces_front.get() != 0;
            for (((v, p), n), uv) in tri.vert_index.iter().zip(p3).zip(n3).zip(uv3) {
                let source = usize::try_from(v.get()).unwrap_or(0);
                let texel = texcoords
                    .get(source)
                    .map_or([0, 0], |st| rule.texel(st, front, w));
                *p = pose.position(source).unwrap_or_default();
                *n = raw.get(source).map_or([0.0, 0.0, 1.0], TriVertex::normal);
                *uv = [int_to_f32(texel[0]) + off, int_to_f32(texel[1]) + off];
            }
        }
        // The division of `rule.uv` in its own pass (see `weld_pose_into`).
        divide_uvs(uvs.get_mut(..need).unwrap_or_default(), w, h);
        Ok(need)
    }

    /// [`Mdl::weld_into`] into new vectors.
    #[cfg(feature = "alloc")]
    pub fn welded_mesh(&self, rule: SeamRule) -> WeldedMesh {
        let sizes = self.weld_sizes();
        let mut vertices = alloc::vec![WeldedVertex::default(); sizes.max_vertices];
        let mut indices = alloc::vec![0u32; sizes.indices];
        let mut scratch = alloc::vec![0u32; sizes.scratch];
        // The sizes come from `weld_sizes`, so this cannot fail; an empty mesh is the
        // fallback rather than a panic.
        let n = self
            .weld_into(rule, &mut vertices, &mut indices, &mut scratch)
            .unwrap_or(0);
        vertices.truncate(n);
        WeldedMesh { vertices, indices }
    }
}

/// `uv = [u / w, v / h]` for every entry: the division of [`SeamRule::uv`] (same
/// operations, same bits), two texture coordinates at a time so that every lane of a
/// 4-wide division holds a real value. Division throughput bounds the weld and corner
/// loops otherwise, and a 2-wide division with leftover lanes can trigger microcode
/// assists (perf, ogre.mdl).
fn divide_uvs(uvs: &mut [[f32; 2]], w: usize, h: usize) {
    let (dw, dh) = (usize_to_f32(w), usize_to_f32(h));
    let mut pairs = uvs.chunks_exact_mut(2);
    for pair in &mut pairs {
        for (x, d) in pair.as_flattened_mut().iter_mut().zip([dw, dh, dw, dh]) {
            *x /= d;
        }
    }
    for uv in pairs.into_remainder() {
        *uv = [uv[0] / dw, uv[1] / dh];
    }
}

/// The error for an output or scratch slice of `len` entries where `need` are needed.
fn too_small(what: &'static str, len: usize, need: usize) -> Error {
    Error::at(
        ErrorKind::TooMany {
            what,
            count: u64::try_from(need).unwrap_or(u64::MAX),
            max: u64::try_from(len).unwrap_or(u64::MAX),
        },
        0,
    )
}
