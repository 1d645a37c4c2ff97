//! Decoding: positions, normals, interpolation, both mesh topologies.

use core::fmt;

use crate::raw;
use crate::view::{Frame, GlKind, Md2};

/// An output slice is shorter than the data to be written into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SizeError {
    /// Elements needed.
    pub needed: usize,
    /// Elements available in the slice (or `u32::MAX` when an index would not fit a `u32`).
    pub available: usize,
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "output too small: needed {} elements, {} available",
            self.needed, self.available
        )
    }
}

impl core::error::Error for SizeError {}

fn fill<T>(out: &mut [T], items: impl ExactSizeIterator<Item = T>) -> Result<usize, SizeError> {
    let needed = items.len();
    if out.len() < needed {
        return Err(SizeError {
            needed,
            available: out.len(),
        });
    }
    for (slot, item) in out.iter_mut().zip(items) {
        *slot = item;
    }
    Ok(needed)
}

impl<'a> Frame<'a> {
    /// Vertex `i`'s position, or `None` past the end.
    pub fn position(&self, i: usize) -> Option<[f32; 3]> {
        let (s, t) = (self.scale(), self.translate());
        self.vertices().get(i).map(|v| v.position(s, t))
    }

    /// Every vertex position, `v · scale + translate`.
    pub fn positions(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + 'a {
        let (s, t) = (self.scale(), self.translate());
        self.vertices().iter().map(move |v| v.position(s, t))
    }

    /// Writes [`Frame::positions`] into `out` (at least `vertex_count()` long); returns the
    /// number written.
    pub fn positions_into(&self, out: &mut [[f32; 3]]) -> Result<usize, SizeError> {
        fill(out, self.positions())
    }

    /// Every vertex's `lightnormalindex`.
    pub fn normal_indices(&self) -> impl ExactSizeIterator<Item = u8> + 'a {
        self.vertices().iter().map(|v| v.light_normal_index)
    }

    /// Every vertex normal from the shared 162-entry table. Indices 162..=255 (which the
    /// software renderer reads past its table for; see [`Md2::check`]) give `(0, 0, 1)`.
    pub fn normals(&self) -> impl ExactSizeIterator<Item = [f32; 3]> + 'a {
        self.vertices().iter().map(raw::TriVertex::normal)
    }

    /// Writes [`Frame::normals`] into `out`; returns the number written.
    pub fn normals_into(&self, out: &mut [[f32; 3]]) -> Result<usize, SizeError> {
        fill(out, self.normals())
    }

    /// Fills `out[i]` with the position of `mesh[i].xyz` (a mesh from
    /// [`Md2::soft_mesh_scratch_into`] and its kin; `[0; 3]` for an index past the end);
    /// returns the count written (`min` of the two lengths).
    pub fn mesh_positions_into(&self, mesh: &[MeshVertex], out: &mut [[f32; 3]]) -> usize {
        let (s, t) = (self.scale(), self.translate());
        let raw = self.vertices();
        let mut n = 0usize;
        for (o, v) in out.iter_mut().zip(mesh) {
            *o = usize::try_from(v.xyz)
                .ok()
                .and_then(|i| raw.get(i))
                .map_or([0.0; 3], |v| v.position(s, t));
            n = n.saturating_add(1);
        }
        n
    }

    /// Fills `out[i]` with the normal of `mesh[i].xyz` (as [`Frame::normals`]; `(0, 0, 1)`
    /// for an index past the end); returns the count written.
    pub fn mesh_normals_into(&self, mesh: &[MeshVertex], out: &mut [[f32; 3]]) -> usize {
        let raw = self.vertices();
        let mut n = 0usize;
        for (o, v) in out.iter_mut().zip(mesh) {
            *o = usize::try_from(v.xyz)
                .ok()
                .and_then(|i| raw.get(i))
                .map_or([0.0, 0.0, 1.0], raw::TriVertex::normal);
            n = n.saturating_add(1);
        }
        n
    }
}

/// Positions interpolated between two frames exactly as Quake II's `GL_DrawAliasFrameLerp`
/// and `GL_LerpVerts` compute them, operation for operation in f32:
///
/// ```text
/// frontlerp = 1 − backlerp
/// move[i]   = backlerp · (old.translate[i] + delta[i]) + frontlerp · new.translate[i]
/// frontv[i] = frontlerp · new.scale[i];   backv[i] = backlerp · old.scale[i]
/// pos[i]    = move[i] + old.v[i] · backv[i] + new.v[i] · frontv[i]
/// ```
///
/// `backlerp = 0` gives `new`, `1` gives `old`. `delta` is the entity's
/// `oldorigin − origin` in model axes (forward, left, up); use [`lerp_positions`] when the
/// entity does not move. The GL renderer shades with the *new* frame's normals.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use idmodel_md2::{Md2, Model, lerp_positions};
/// let bytes = idmodel_md2::write(&Model::example())?;
/// let md2 = Md2::parse(&bytes)?;
/// let (a, b) = (md2.frame(0).unwrap(), md2.frame(1).unwrap());
/// let half: Vec<[f32; 3]> = lerp_positions(&a, &b, 0.5).collect();
/// let (pa, pb) = (a.position(1).unwrap(), b.position(1).unwrap());
/// assert_eq!(half[1][0], (pa[0] + pb[0]) / 2.0);
/// # Ok(()) }
/// ```
pub fn lerp_positions_moving<'a>(
    old: &Frame<'a>,
    new: &Frame<'a>,
    backlerp: f32,
    delta: [f32; 3],
) -> impl ExactSizeIterator<Item = [f32; 3]> + 'a {
    let frontlerp = 1.0 - backlerp;
    let (ot, nt, os, ns) = (old.translate(), new.translate(), old.scale(), new.scale());
    let mut mv = [0.0f32; 3];
    let mut frontv = [0.0f32; 3];
    let mut backv = [0.0f32; 3];
    for (i, ((m, f), b)) in mv
        .iter_mut()
        .zip(frontv.iter_mut())
        .zip(backv.iter_mut())
        .enumerate()
    {
        let get = |a: [f32; 3]| a.get(i).copied().unwrap_or(0.0);
        *m = backlerp * (get(delta) + get(ot)) + frontlerp * get(nt);
        *f = frontlerp * get(ns);
        *b = backlerp * get(os);
    }
    old.vertices()
        .iter()
        .zip(new.vertices().iter())
        .map(move |(ov, v)| {
            [
                mv[0] + f32::from(ov.v[0]) * backv[0] + f32::from(v.v[0]) * frontv[0],
                mv[1] + f32::from(ov.v[1]) * backv[1] + f32::from(v.v[1]) * frontv[1],
                mv[2] + f32::from(ov.v[2]) * backv[2] + f32::from(v.v[2]) * frontv[2],
            ]
        })
}

/// [`lerp_positions_moving`] for an entity that stays in place (`delta = 0`).
pub fn lerp_positions<'a>(
    old: &Frame<'a>,
    new: &Frame<'a>,
    backlerp: f32,
) -> impl ExactSizeIterator<Item = [f32; 3]> + 'a {
    lerp_positions_moving(old, new, backlerp, [0.0; 3])
}

/// [`lerp_positions`] into a caller slice; returns the number written.
pub fn lerp_positions_into(
    old: &Frame<'_>,
    new: &Frame<'_>,
    backlerp: f32,
    out: &mut [[f32; 3]],
) -> Result<usize, SizeError> {
    fill(out, lerp_positions(old, new, backlerp))
}

/// A vertex of a decoded mesh: which frame vertex gives its position, and its UV.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshVertex {
    /// Index into each frame's vertices (`Frame::position(xyz)`).
    pub xyz: u32,
    /// Texture coordinate; `v = 0` is the top row of the skin (no flip).
    pub uv: [f32; 2],
}

/// How big the output slices of a mesh decode must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MeshSizes {
    /// Length of the vertex slice (for the software mesh an upper bound: the decode
    /// returns how many it used).
    pub vertices: usize,
    /// Length of the index slice (3 per triangle; exact).
    pub indices: usize,
    /// Length of the `u32` scratch slice of [`Md2::soft_mesh_scratch_into`]
    /// (`num_xyz + 6 · num_tris`; 0 for the other decodes, which need none).
    pub scratch: usize,
}

/// A decoded, indexed triangle mesh (owned; see the `_into` functions for the
/// allocation-free forms).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mesh {
    /// The vertices.
    pub vertices: alloc::vec::Vec<MeshVertex>,
    /// Three indices into `vertices` per triangle, in the file's winding (clockwise on
    /// screen is front in Quake II).
    pub indices: alloc::vec::Vec<u32>,
}

/// The software mesh's vertex key of corner `corner` (`3·triangle + k`):
/// `xyz << st_bits | st`, where `st_bits` holds every `st` index (at most 16), so keys
/// sort as the (xyz, st) pairs do and small models need few radix passes.
#[inline]
fn corner_key(tris: &[raw::Triangle], st_bits: u32, corner: u32) -> u32 {
    let c = usize::try_from(corner).unwrap_or(usize::MAX);
    match tris.get(c / 3) {
        Some(t) => {
            let k = c % 3;
            let xyz = t
                .index_xyz
                .get(k)
                .map_or(0, |i| u16::try_from(i.get()).unwrap_or(0));
            let st = t
                .index_st
                .get(k)
                .map_or(0, |i| u16::try_from(i.get()).unwrap_or(0));
            u32::from(xyz).wrapping_shl(st_bits) | u32::from(st)
        }
        None => u32::MAX,
    }
}

/// Sorts the corners `0..idx.len()` by `key` with a stable LSD radix sort (11 bits a
/// pass; a pass where every key has the same digit is skipped), then writes the distinct
/// keys in order to `scratch[..count]` (in `xyz`) and each corner's vertex number to
/// `idx`. Returns `count`; the result equals [`sort_dedup`]'s.
///
/// Each key is computed once. The (key, corner) pairs ping-pong between two buffers made
/// of the caller's slices (`scratch` is as long as `idx`): A is (`scratch.xyz`,
/// `scratch.uv[0]`), B is (`idx`, `scratch.uv[1]`); corners are kept in the `f32` fields
/// as bit patterns (`from_bits`/`to_bits` keep them: a corner is below 3·2³¹/12 on any
/// machine that can hold the file, far from the NaN patterns an x87 FPU could quieten).
fn radix_dedup(idx: &mut [u32], scratch: &mut [MeshVertex], key: impl Fn(u32) -> u32) -> usize {
    let n = idx.len();
    let mut corner = 0u32;
    for v in scratch.iter_mut() {
        v.xyz = key(corner);
        v.uv[0] = f32::from_bits(corner);
        corner = corner.wrapping_add(1);
    }
    let digit = |k: u32, shift: u32| usize::try_from(k.wrapping_shr(shift) & 0x7ff).unwrap_or(0);
    // True while the current order is in buffer A.
    let mut in_a = true;
    for shift in [0u32, 11, 22] {
        let mut counts = [0usize; 2048];
        let mut tally = |k: u32| {
            if let Some(c) = counts.get_mut(digit(k, shift)) {
                *c = c.saturating_add(1);
            }
        };
        if in_a {
            scratch.iter().for_each(|v| tally(v.xyz));
        } else {
            idx.iter().for_each(|&k| tally(k));
        }
        if counts.contains(&n) {
            continue; // one bucket holds everything: this byte does not reorder
        }
        let mut sum = 0usize;
        for c in counts.iter_mut() {
            let here = *c;
            *c = sum;
            sum = sum.saturating_add(here);
        }
        let mut place = |k: u32| -> usize {
            match counts.get_mut(digit(k, shift)) {
                Some(c) => {
                    let at = *c;
                    *c = at.saturating_add(1);
                    at
                }
                None => usize::MAX,
            }
        };
        if in_a {
            for i in 0..n {
                let Some(&MeshVertex { xyz: k, uv: [c, _] }) = scratch.get(i) else {
                    break;
                };
                let at = place(k);
                if let (Some(key_slot), Some(v)) = (idx.get_mut(at), scratch.get_mut(at)) {
                    *key_slot = k;
                    v.uv[1] = c;
                }
            }
        } else {
            for i in 0..n {
                let (Some(&k), Some(c)) = (idx.get(i), scratch.get(i).map(|v| v.uv[1])) else {
                    break;
                };
                if let Some(v) = scratch.get_mut(place(k)) {
                    v.xyz = k;
                    v.uv[0] = c;
                }
            }
        }
        in_a = !in_a;
    }
    if !in_a {
        for (v, &k) in scratch.iter_mut().zip(idx.iter()) {
            v.xyz = k;
            v.uv[0] = v.uv[1];
        }
    }
    // Walk the sorted pairs; vertex `count` is written at or before the position being
    // read, so the unread pairs are never overwritten, and `idx` is free again.
    let mut count = 0usize;
    let mut last: Option<u32> = None;
    for i in 0..n {
        let Some(&MeshVertex { xyz: k, uv: [c, _] }) = scratch.get(i) else {
            break;
        };
        if last != Some(k) {
            last = Some(k);
            if let Some(slot) = scratch.get_mut(count) {
                *slot = MeshVertex {
                    xyz: k,
                    uv: [0.0; 2],
                };
            }
            count = count.saturating_add(1);
        }
        let vertex = u32::try_from(count.saturating_sub(1)).unwrap_or(u32::MAX);
        if let Some(slot) = idx.get_mut(usize::try_from(c.to_bits()).unwrap_or(usize::MAX)) {
            *slot = vertex;
        }
    }
    count
}

/// [`radix_dedup`] for a `vertices` slice shorter than `idx`: a comparison sort of the
/// corners, then a binary search per corner. Fails when the distinct keys do not fit.
fn sort_dedup(
    idx: &mut [u32],
    vertices: &mut [MeshVertex],
    key: impl Fn(u32) -> u32,
) -> Result<usize, SizeError> {
    let mut next = 0u32;
    for slot in idx.iter_mut() {
        *slot = next;
        next = next.wrapping_add(1);
    }
    idx.sort_unstable_by_key(|&c| key(c));
    // Distinct keys in order become the vertices; while searching, a vertex's `xyz`
    // field holds the whole key (sorted, unique), and is unpacked at the end.
    let mut count = 0usize;
    let mut last: Option<u32> = None;
    for &c in idx.iter() {
        let k = key(c);
        if last == Some(k) {
            continue;
        }
        last = Some(k);
        let available = vertices.len();
        let Some(slot) = vertices.get_mut(count) else {
            return Err(SizeError {
                needed: count.saturating_add(1),
                available,
            });
        };
        *slot = MeshVertex {
            xyz: k,
            uv: [0.0; 2],
        };
        count = count.saturating_add(1);
    }
    let used = vertices.get_mut(..count).unwrap_or(&mut []);
    let mut corner = 0u32;
    for slot in idx.iter_mut() {
        let k = key(corner);
        let pos = used.binary_search_by_key(&k, |v| v.xyz).unwrap_or(0);
        *slot = u32::try_from(pos).unwrap_or(u32::MAX);
        corner = corner.wrapping_add(1);
    }
    Ok(count)
}

/// [`Md2::st_uv`] with its two divisors given.
fn uv_of(st: &raw::St, width: f32, height: f32) -> [f32; 2] {
    [
        f32::from(st.s.get()) / width,
        f32::from(st.t.get()) / height,
    ]
}

fn divisor(n: i32) -> f32 {
    // Quake II never checks skinwidth/skinheight; a non-positive size would divide by
    // zero, so the documented divisor 1 is used instead (reported by `check`).
    if n > 0 {
        // i32 → f32 through f64 is exact for every skin size that matters; `as` is linted.
        let v = f64::from(n);
        #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
        // Rounding to nearest is what C's int → float conversion does.
        let f = v as f32;
        f
    } else {
        1.0
    }
}

impl<'a> Md2<'a> {
    /// UV of texture coordinate `st`: `s / skinwidth`, `t / skinheight`, with **no** half
    /// texel (the software renderer samples texel `s` exactly; Quake II's tools added
    /// `+0.5` only when writing GL commands). `v = 0` is the top row. A non-positive skin
    /// size is replaced by 1.
    pub fn st_uv(&self, st: &raw::St) -> [f32; 2] {
        uv_of(st, divisor(self.skin_width()), divisor(self.skin_height()))
    }

    /// Sizes for [`Md2::soft_mesh_into`]: `3 · num_tris` for both (the vertex count is an
    /// upper bound).
    pub fn soft_mesh_sizes(&self) -> MeshSizes {
        let n = self.triangles().len().saturating_mul(3);
        MeshSizes {
            vertices: n,
            indices: n,
            scratch: self.vertex_count().saturating_add(n.saturating_mul(2)),
        }
    }

    /// The software renderer's topology (triangles + st) as an indexed mesh: one vertex
    /// per distinct (`index_xyz`, `index_st`) pair, ordered by that pair, UVs from
    /// [`Md2::st_uv`]. Returns the number of vertices written; `indices` receives
    /// `3 · num_tris` entries. Allocation-free: `indices` is used as sort scratch.
    pub fn soft_mesh_into(
        &self,
        vertices: &mut [MeshVertex],
        indices: &mut [u32],
    ) -> Result<usize, SizeError> {
        let tris = self.triangles();
        let n = tris.len().saturating_mul(3);
        let Some(idx) = indices.get_mut(..n) else {
            return Err(SizeError {
                needed: n,
                available: indices.len(),
            });
        };
        if u32::try_from(n).is_err() {
            return Err(SizeError {
                needed: n,
                available: usize::try_from(u32::MAX).unwrap_or(usize::MAX),
            });
        }
        // Bits for the largest `st` index (indices are validated below `num_st` and are
        // non-negative `i16`s, so 16 bits always suffice).
        let max_st = u32::try_from(self.st().len().saturating_sub(1)).unwrap_or(u32::MAX);
        let st_bits = (32u32.saturating_sub(max_st.min(0xffff).leading_zeros())).max(1);
        let st_mask = 1u32.wrapping_shl(st_bits).wrapping_sub(1);
        let key = |corner: u32| -> u32 { corner_key(tris, st_bits, corner) };
        let count = match vertices.get_mut(..n) {
            // Room for one vertex per corner: a radix sort (linear time) with `vertices`
            // as the second buffer.
            Some(scratch) => radix_dedup(idx, scratch, key),
            // A shorter slice (the distinct count may still fit): a comparison sort.
            None => sort_dedup(idx, vertices, key)?,
        };
        let used = vertices.get_mut(..count).unwrap_or(&mut []);
        for v in used.iter_mut() {
            let st = self
                .st()
                .get(usize::try_from(v.xyz & st_mask).unwrap_or(usize::MAX));
            *v = MeshVertex {
                xyz: v.xyz.wrapping_shr(st_bits),
                uv: st.map_or([0.0; 2], |st| self.st_uv(st)),
            };
        }
        Ok(count)
    }

    /// [`Md2::soft_mesh_into`] in linear time without sorting, for callers that can lend
    /// a `u32` scratch slice of [`MeshSizes::scratch`] entries: the same vertices in the
    /// same order and the same indices. `vertices` needs only the distinct count (the
    /// error says how many when it is short); `indices` receives `3 · num_tris` entries.
    ///
    /// Each frame vertex `xyz` heads a chain, kept sorted by `st`, of the vertices seen
    /// with it (`scratch[..num_xyz]` the heads, then each node's `st`, then each node's
    /// next node). Every corner checks its chain's head, which is its vertex for most
    /// frame vertices, else walks the short chain (about `distinct / num_xyz` long) and
    /// inserts when its `st` is new; the indices hold node numbers meanwhile. A walk over
    /// the chains in `xyz` order then writes the vertices in (`xyz`, `st`) order, leaving
    /// each one's final number in its `st` word, and the indices are renumbered through
    /// it.
    pub fn soft_mesh_scratch_into(
        &self,
        vertices: &mut [MeshVertex],
        indices: &mut [u32],
        scratch: &mut [u32],
    ) -> Result<usize, SizeError> {
        const NONE: u32 = u32::MAX;
        let sizes = self.soft_mesh_sizes();
        let n = sizes.indices;
        // Node positions are `u32`s below `NONE` (the scratch is at least `n` long).
        if sizes.scratch >= usize::try_from(NONE).unwrap_or(usize::MAX) {
            return Err(SizeError {
                needed: sizes.scratch,
                available: usize::try_from(NONE).unwrap_or(usize::MAX),
            });
        }
        let Some(idx) = indices.get_mut(..n) else {
            return Err(SizeError {
                needed: n,
                available: indices.len(),
            });
        };
        let scratch_len = scratch.len();
        let Some(scratch) = scratch.get_mut(..sizes.scratch) else {
            return Err(SizeError {
                needed: sizes.scratch,
                available: scratch_len,
            });
        };
        // The scratch is three arrays: the chain heads (one per frame vertex), then each
        // node's `st` and each node's next node. A chain is one `xyz`'s nodes in `st`
        // order; `NONE` ends it. Node numbers are the order of first sight.
        let base = self.vertex_count();
        let (heads, nodes) = scratch.split_at_mut(base.min(scratch.len()));
        let (node_st, node_next) = nodes.split_at_mut(n.min(nodes.len()));
        heads.fill(NONE);
        // Pass 1: per corner, find or insert (xyz, st) in xyz's chain.
        let mut count = 0u32;
        let mut slots = idx.iter_mut();
        for t in self.triangles() {
            for (x, s) in t.index_xyz.iter().zip(t.index_st.iter()) {
                // Indices were validated in range (non-negative) by `parse`.
                let xyz = usize::from(x.get().unsigned_abs());
                let st = u32::from(s.get().unsigned_abs());
                let head = heads.get(xyz).copied().unwrap_or(NONE);
                let at = |k: u32, list: &[u32]| {
                    list.get(usize::try_from(k).unwrap_or(usize::MAX))
                        .copied()
                        .unwrap_or(NONE)
                };
                // Most frame vertices have one `st`: the head is the node.
                let node = if at(head, node_st) == st {
                    head
                } else {
                    // Walk to the first node whose `st` is not below this one.
                    let (mut prev, mut next) = (NONE, head);
                    while at(next, node_st) < st {
                        prev = next;
                        next = at(next, node_next);
                    }
                    if at(next, node_st) == st {
                        next
                    } else {
                        // A new node between `prev` (or the head) and `next`.
                        let new = count;
                        count = count.wrapping_add(1);
                        let k = usize::try_from(new).unwrap_or(usize::MAX);
                        if let Some(w) = node_st.get_mut(k) {
                            *w = st;
                        }
                        if let Some(w) = node_next.get_mut(k) {
                            *w = next;
                        }
                        let link = if prev == NONE {
                            heads.get_mut(xyz)
                        } else {
                            node_next.get_mut(usize::try_from(prev).unwrap_or(usize::MAX))
                        };
                        if let Some(w) = link {
                            *w = new;
                        }
                        new
                    }
                };
                if let Some(slot) = slots.next() {
                    *slot = node;
                }
            }
        }
        let count = usize::try_from(count).unwrap_or(usize::MAX);
        let available = vertices.len();
        let Some(out) = vertices.get_mut(..count) else {
            return Err(SizeError {
                needed: count,
                available,
            });
        };
        // Pass 2: the chains in xyz order are the vertices in (xyz, st) order; each
        // node's `st` word becomes its vertex number.
        let st_table = self.st();
        let (sw, sh) = (divisor(self.skin_width()), divisor(self.skin_height()));
        let mut out = out.iter_mut();
        let mut number = 0u32;
        for (xyz, &head) in (0u32..).zip(heads.iter()) {
            let mut node = head;
            while let Some(k) = usize::try_from(node).ok().filter(|_| node != NONE) {
                let (Some(st_word), Some(&next)) = (node_st.get_mut(k), node_next.get(k)) else {
                    break;
                };
                let st = st_table.get(usize::try_from(*st_word).unwrap_or(usize::MAX));
                if let Some(v) = out.next() {
                    // As `st_uv`, with the divisors computed once.
                    *v = MeshVertex {
                        xyz,
                        uv: st.map_or([0.0; 2], |st| uv_of(st, sw, sh)),
                    };
                }
                *st_word = number;
                number = number.wrapping_add(1);
                node = next;
            }
        }
        // Pass 3: node numbers to vertex numbers.
        for i in idx.iter_mut() {
            *i = node_st
                .get(usize::try_from(*i).unwrap_or(usize::MAX))
                .copied()
                .unwrap_or(0);
        }
        Ok(count)
    }

    /// Sizes for [`Md2::gl_mesh_into`] (exact).
    pub fn gl_mesh_sizes(&self) -> MeshSizes {
        let (_, vertices, triangles) = self.gl_walked();
        MeshSizes {
            vertices,
            indices: triangles.saturating_mul(3),
            scratch: 0,
        }
    }

    /// The GL renderer's topology: the GL command list decoded to an indexed triangle
    /// list, one vertex per command vertex in stream order with the command's own UVs
    /// (used unchanged, as the engine does), strips and fans expanded in the order
    /// OpenGL draws them. Empty when the file has no GL commands. The list is walked
    /// (and checked) once.
    pub fn gl_mesh_into(
        &self,
        vertices: &mut [MeshVertex],
        indices: &mut [u32],
    ) -> Result<(), SizeError> {
        let (commands, num_vertices, num_triangles) = self.gl_walked();
        let num_indices = num_triangles.saturating_mul(3);
        if vertices.len() < num_vertices {
            return Err(SizeError {
                needed: num_vertices,
                available: vertices.len(),
            });
        }
        if indices.len() < num_indices {
            return Err(SizeError {
                needed: num_indices,
                available: indices.len(),
            });
        }
        if u32::try_from(num_vertices).is_err() {
            return Err(SizeError {
                needed: num_vertices,
                available: usize::try_from(u32::MAX).unwrap_or(usize::MAX),
            });
        }
        let mut vslots = vertices.iter_mut();
        let mut islots = indices.chunks_exact_mut(3);
        let mut base = 0u32;
        for cmd in commands {
            for (v, slot) in cmd.vertices.iter().zip(vslots.by_ref()) {
                *slot = MeshVertex {
                    xyz: u32::try_from(v.index_xyz.get()).unwrap_or(0),
                    uv: [v.s.get(), v.t.get()],
                };
            }
            // Strips and fans as OpenGL draws them (GlCommand::triangle): a strip's odd
            // triangles swap their first two corners; a fan's all start at its first.
            let n = u32::try_from(cmd.triangle_count()).unwrap_or(0);
            let strip = cmd.kind == GlKind::Strip;
            for (t, slot) in (0..n).zip(islots.by_ref()) {
                let (a, b, c) = (
                    base.wrapping_add(t),
                    base.wrapping_add(t).wrapping_add(1),
                    base.wrapping_add(t).wrapping_add(2),
                );
                let tri = match (strip, t % 2 == 1) {
                    (true, true) => [b, a, c],
                    (true, false) => [a, b, c],
                    (false, _) => [base, b, c],
                };
                slot.copy_from_slice(&tri);
            }
            base = base.wrapping_add(u32::try_from(cmd.vertices.len()).unwrap_or(0));
        }
        Ok(())
    }

    /// The GL triangles as triples of command vertices (what `GL_DrawAliasFrameLerp`
    /// draws), in stream order.
    pub fn gl_triangles(&self) -> impl Iterator<Item = [&'a raw::GlVertex; 3]> + 'a {
        self.gl_commands().flat_map(|cmd| {
            (0..cmd.triangle_count()).filter_map(move |t| {
                let [a, b, c] = cmd.triangle(t)?;
                Some([
                    cmd.vertices.get(a)?,
                    cmd.vertices.get(b)?,
                    cmd.vertices.get(c)?,
                ])
            })
        })
    }

    /// [`Md2::soft_mesh_into`] into new vectors.
    #[cfg(feature = "alloc")]
    pub fn soft_mesh(&self) -> Mesh {
        let sizes = self.soft_mesh_sizes();
        let mut vertices = alloc::vec![MeshVertex::default(); sizes.vertices];
        let mut indices = alloc::vec![0u32; sizes.indices];
        let mut scratch = alloc::vec![0u32; sizes.scratch];
        let n = self
            .soft_mesh_scratch_into(&mut vertices, &mut indices, &mut scratch)
            .unwrap_or(0);
        vertices.truncate(n);
        Mesh { vertices, indices }
    }

    /// [`Md2::gl_mesh_into`] into new vectors.
    #[cfg(feature = "alloc")]
    pub fn gl_mesh(&self) -> Mesh {
        let sizes = self.gl_mesh_sizes();
        let mut vertices = alloc::vec![MeshVertex::default(); sizes.vertices];
        let mut indices = alloc::vec![0u32; sizes.indices];
        if self.gl_mesh_into(&mut vertices, &mut indices).is_err() {
            return Mesh::default();
        }
        Mesh { vertices, indices }
    }
}
