//! The binary buffer as it is built ([`Buffers`]: its views and float, index, joint and
//! sparse accessors, with their bounds) and the checks and sizes it needs.

use alloc::vec::Vec;

use super::Result;
use crate::ExportError;
use crate::error::invalid;
use crate::json::Json;
use idmodel_scene::axes::Axes;
use idmodel_scene::{ChannelValues, Scene};

pub(super) const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;

pub(super) fn pad_to_4(v: &mut Vec<u8>, with: u8) {
    while v.len() & 3 != 0 {
        v.push(with);
    }
}

pub(super) fn u32_len(n: usize, what: &'static str) -> Result<u32> {
    u32::try_from(n).map_err(|_| ExportError::TooLarge(what))
}

/// Checks every float of a list, naming the first bad one.
pub(super) fn finite<const N: usize>(
    data: &[[f32; N]],
    what: &dyn core::fmt::Display,
) -> Result<()> {
    for (i, v) in data.iter().enumerate() {
        if v.iter().any(|f| !f.is_finite()) {
            return Err(invalid!("{what}: non-finite value at element {i}: {v:?}"));
        }
    }
    Ok(())
}

/// Lanes of [`Lanes`]: a multiple of every accessor width that has bounds (1, 2, 3, 4),
/// so lane `k` always holds component `k % N`.
const LANES: usize = 48;

/// Running per-lane minima, maxima and a non-finite flag over a stream of floats read
/// `LANES` at a time: loops the compiler turns into whole-vector operations (a float
/// fold over one accumulator does not vectorise, its additions being ordered).
struct Lanes {
    lo: [f32; LANES],
    hi: [f32; LANES],
    /// The OR of `(bits & exponent) + one exponent step` over every float: its top bit
    /// is set exactly when some exponent was all ones (infinity or NaN).
    exp: [u32; LANES],
}

impl Lanes {
    fn new() -> Self {
        Lanes {
            lo: [f32::INFINITY; LANES],
            hi: [f32::NEG_INFINITY; LANES],
            exp: [0; LANES],
        }
    }

    /// Feeds `flat` (whose length is a multiple of the accessor width) to the bounds. A
    /// comparison, not `f32::min`/`max`: a NaN is skipped all the same (it compares
    /// false) and it compiles to one `minps`/`maxps`.
    fn widen(&mut self, flat: &[f32]) {
        let mut steps = flat.chunks_exact(LANES);
        for step in &mut steps {
            if let Ok(step) = <&[f32; LANES]>::try_from(step) {
                for ((lo, hi), &x) in self.lo.iter_mut().zip(self.hi.iter_mut()).zip(step) {
                    *lo = if x < *lo { x } else { *lo };
                    *hi = if x > *hi { x } else { *hi };
                }
            }
        }
        for ((lo, hi), &x) in self
            .lo
            .iter_mut()
            .zip(self.hi.iter_mut())
            .zip(steps.remainder())
        {
            *lo = if x < *lo { x } else { *lo };
            *hi = if x > *hi { x } else { *hi };
        }
    }

    /// Feeds `flat` to the non-finite test.
    fn check(&mut self, flat: &[f32]) {
        const EXP: u32 = 0x7F80_0000;
        let mut steps = flat.chunks_exact(LANES);
        for step in &mut steps {
            if let Ok(step) = <&[f32; LANES]>::try_from(step) {
                for (e, x) in self.exp.iter_mut().zip(step) {
                    *e |= (x.to_bits() & EXP).wrapping_add(0x0080_0000);
                }
            }
        }
        for (e, x) in self.exp.iter_mut().zip(steps.remainder()) {
            *e |= (x.to_bits() & EXP).wrapping_add(0x0080_0000);
        }
    }

    /// True when a float given to [`Lanes::check`] was infinite or NaN.
    fn non_finite(&self) -> bool {
        self.exp.iter().fold(0, |a, e| a | e) & 0x8000_0000 != 0
    }

    /// The per-component bounds of an accessor `N` wide (`N` divides [`LANES`]).
    fn bounds<const N: usize>(&self) -> ([f32; N], [f32; N]) {
        let mut min = [f32::INFINITY; N];
        let mut max = [f32::NEG_INFINITY; N];
        for (k, (&lo, &hi)) in self.lo.iter().zip(&self.hi).enumerate() {
            let c = k.checked_rem(N).unwrap_or(0);
            if let (Some(a), Some(b)) = (min.get_mut(c), max.get_mut(c)) {
                *a = if lo < *a { lo } else { *a };
                *b = if hi > *b { hi } else { *b };
            }
        }
        (min, max)
    }
}

/// Elements a [`Buffers::floats_map`] block maps before appending them (at most 64 bytes
/// each: at most 16 KiB, allocated once per export).
const STAGE: usize = 256;

/// The binary buffer, its views and accessors as they are built: the views and accessors
/// as the JSON array elements they become, and how many of each.
pub(super) struct Buffers {
    pub(super) bin: Vec<u8>,
    /// The bytes of mesh and animation data still to come ([`expected_bin`] less what
    /// the views took so far): reserved at the first growth so the buffer is not copied
    /// again and again as it grows.
    pub(super) expected: usize,
    pub(super) views: Json,
    pub(super) view_count: usize,
    pub(super) accessors: Json,
    pub(super) accessor_count: usize,
    /// [`Buffers::floats_map`]'s block buffer, kept from call to call.
    pub(super) stage: Vec<f32>,
}

impl Buffers {
    /// Appends `bytes` as a new buffer view (4-byte aligned) and returns its index.
    pub(super) fn view(&mut self, bytes: &[u8], target: Option<u32>) -> Result<usize> {
        let offset = self.begin_view(bytes.len());
        self.bin.extend_from_slice(bytes);
        self.end_view(offset, target)
    }

    /// [`Buffers::view`] of vertex attributes `stride` bytes apart (`byteStride`).
    pub(super) fn view_strided(
        &mut self,
        bytes: &[u8],
        stride: usize,
        target: u32,
    ) -> Result<usize> {
        let offset = self.begin_view(bytes.len());
        self.bin.extend_from_slice(bytes);
        self.end_view_with(offset, Some(stride), Some(target))
    }

    /// Pads the buffer to 4 bytes and makes room for `len` more; returns the offset where
    /// the view's bytes go (the caller appends them, then calls [`Buffers::end_view`]).
    fn begin_view(&mut self, len: usize) -> usize {
        // Grow by an eighth rather than doubling, so the buffer's spare capacity (the
        // peak memory of an export beyond its output) stays small.
        let need = len.saturating_add(3);
        if self.bin.capacity().saturating_sub(self.bin.len()) < need {
            self.bin
                .reserve_exact(need.max(self.expected).max(self.bin.len() / 8));
        }
        self.expected = self.expected.saturating_sub(need);
        pad_to_4(&mut self.bin, 0);
        self.bin.len()
    }

    /// Records the bytes appended since `offset` as a buffer view; returns its index.
    fn end_view(&mut self, offset: usize, target: Option<u32>) -> Result<usize> {
        self.end_view_with(offset, None, target)
    }

    /// [`Buffers::end_view`] with a `byteStride` (the keys in their sorted order).
    fn end_view_with(
        &mut self,
        offset: usize,
        stride: Option<usize>,
        target: Option<u32>,
    ) -> Result<usize> {
        u32_len(self.bin.len(), "the binary buffer")?;
        let v = &mut self.views;
        v.sep();
        v.raw(b"{\"buffer\":0");
        v.key_usize("byteLength", self.bin.len().saturating_sub(offset));
        if offset != 0 {
            v.key_usize("byteOffset", offset);
        }
        if let Some(s) = stride {
            v.key_usize("byteStride", s);
        }
        if let Some(t) = target {
            v.key("target");
            v.uint(t);
        }
        v.raw(b"}");
        self.view_count = self.view_count.saturating_add(1);
        Ok(self.view_count.saturating_sub(1))
    }

    /// Starts an accessor object: `{"bufferView":view,"componentType":ty,"count":count`
    /// (the caller writes the keys after `count` and closes it with [`Buffers::close`]).
    pub(super) fn open(&mut self, view: Option<usize>, component: u32, count: usize) -> &mut Json {
        let a = &mut self.accessors;
        a.sep();
        a.raw(b"{");
        if let Some(v) = view {
            a.key_usize("bufferView", v);
        }
        a.key("componentType");
        a.uint(component);
        a.key_usize("count", count);
        a
    }

    /// Writes `"type":ty}` and returns the accessor's index.
    pub(super) fn close(&mut self, ty: &str) -> usize {
        self.accessors.key_str("type", ty);
        self.accessors.raw(b"}");
        self.accessor_count = self.accessor_count.saturating_add(1);
        self.accessor_count.saturating_sub(1)
    }

    /// A float accessor of `N` components per element (`N` = 1, 2, 3, 4 or 16).
    pub(super) fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        target: Option<u32>,
        min_max: bool,
    ) -> Result<usize> {
        // Straight into the buffer: glTF floats are little-endian f32, the memory layout
        // of `[[f32; N]]` on a little-endian machine (one copy); elsewhere byte by byte.
        let offset = self.begin_view(data.len().saturating_mul(N).saturating_mul(4));
        #[cfg(target_endian = "little")]
        self.bin
            .extend_from_slice(zerocopy::IntoBytes::as_bytes(data));
        #[cfg(not(target_endian = "little"))]
        for f in data.iter().flatten() {
            self.bin.extend_from_slice(&f.to_le_bytes());
        }
        let view = self.end_view(offset, target)?;
        let bounds = min_max.then(|| bounds(data));
        Ok(self.float_accessor::<N>(view, data.len(), bounds))
    }

    /// A float accessor of `N` components per element whose elements are `f` of each of
    /// `data`'s, written into the buffer as they are computed (no list of the whole).
    /// With `check`, a non-finite element of `data` is refused as [`finite`] refuses it;
    /// the test is in the same pass (the message is formatted only then).
    ///
    /// One pass over `data`: blocks of [`STAGE`] elements are mapped into a small buffer
    /// (in the L1 cache), then appended to the buffer with one copy each. The buffer's
    /// bytes are written once: no zero-fill first, no capacity check per element.
    pub(super) fn floats_map<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        f: impl Fn([f32; N]) -> [f32; N],
        target: Option<u32>,
        min_max: bool,
        check: Option<&dyn core::fmt::Display>,
    ) -> Result<usize> {
        let bytes = data.len().saturating_mul(N).saturating_mul(4);
        let offset = self.begin_view(bytes);
        let mut lanes = Lanes::new();
        // The block buffer is the exporter's, allocated once: a fresh array per call was
        // zero-filled each time, 4 % of an MD3 export of many small morph targets.
        let mut stage = core::mem::take(&mut self.stage);
        let need = data.len().min(STAGE).saturating_mul(N);
        if stage.len() < need {
            stage.resize(need, 0.0);
        }
        for block in data.chunks(STAGE) {
            // Three short loops over a block in the L1 cache, each of which vectorises,
            // rather than one that does all three per element.
            if check.is_some() {
                lanes.check(block.as_flattened());
            }
            let mapped = stage
                .get_mut(..block.len().saturating_mul(N))
                .unwrap_or_default();
            // Four elements at a time: a fixed-size group of `4 N` floats (three whole
            // vectors when `N` is 3), which the compiler maps with vector shuffles; one
            // element at a time it moved each float alone.
            let mut groups = block.chunks_exact(4);
            let mut outs = mapped.chunks_exact_mut(N.saturating_mul(4));
            for (g, o) in (&mut groups).zip(&mut outs) {
                if let Ok(g) = <&[[f32; N]; 4]>::try_from(g) {
                    let r = g.map(&f);
                    for (o, &x) in o.iter_mut().zip(r.as_flattened()) {
                        *o = x;
                    }
                }
            }
            let rest = mapped
                .get_mut(
                    block
                        .len()
                        .saturating_sub(groups.remainder().len())
                        .saturating_mul(N)..,
                )
                .unwrap_or_default();
            for (&v, o) in groups.remainder().iter().zip(rest.chunks_exact_mut(N)) {
                // A fixed-size store (a slice copy became a `memcpy` call per element).
                if let Ok(o) = <&mut [f32; N]>::try_from(o) {
                    *o = f(v);
                }
            }
            let mapped: &[f32] = mapped;
            if min_max {
                lanes.widen(mapped);
            }
            // glTF floats are little-endian f32, the memory layout of `[f32]` on a
            // little-endian machine (one copy); elsewhere float by float.
            #[cfg(target_endian = "little")]
            self.bin
                .extend_from_slice(zerocopy::IntoBytes::as_bytes(mapped));
            #[cfg(not(target_endian = "little"))]
            for x in mapped {
                self.bin.extend_from_slice(&x.to_le_bytes());
            }
        }
        self.stage = stage;
        if let Some(what) = check.filter(|_| lanes.non_finite()) {
            finite(data, what)?;
        }
        let (min, max) = lanes.bounds::<N>();
        let view = self.end_view(offset, target)?;
        Ok(self.float_accessor::<N>(view, data.len(), min_max.then_some((min, max))))
    }

    /// [`Buffers::floats_map`] of points or directions through `axes`: one copy of the
    /// loop per axis choice, so the map is a fixed shuffle with no branch in it.
    pub(super) fn points(
        &mut self,
        data: &[[f32; 3]],
        axes: Axes,
        target: Option<u32>,
        min_max: bool,
        check: Option<&dyn core::fmt::Display>,
    ) -> Result<usize> {
        match axes {
            Axes::YUp => self.floats_map(data, |v| Axes::YUp.point(v), target, min_max, check),
            Axes::Keep => self.floats_map(data, |v| Axes::Keep.point(v), target, min_max, check),
        }
    }

    /// Writes the JSON of a float accessor over `view`.
    fn float_accessor<const N: usize>(
        &mut self,
        view: usize,
        count: usize,
        bounds: Option<([f32; N], [f32; N])>,
    ) -> usize {
        let ty = match N {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            4 => "VEC4",
            _ => "MAT4",
        };
        let a = self.open(Some(view), FLOAT, count);
        if let Some((min, max)) = bounds {
            a.key("max");
            a.f32s(&max);
            a.key("min");
            a.f32s(&min);
        }
        self.close(ty)
    }

    /// A float SCALAR accessor of `count` elements, all 0 except `values[i]` at
    /// `indices[i]` (strictly increasing): a glTF sparse accessor without a buffer view,
    /// so its size is linear in the non-zero values, not in `count`.
    pub(super) fn sparse_scalars(
        &mut self,
        count: usize,
        indices: &[u32],
        values: &[f32],
    ) -> Result<usize> {
        let mut sparse = None;
        if !indices.is_empty() {
            let small = indices.iter().all(|&i| i <= u32::from(u16::MAX));
            let mut bytes = Vec::with_capacity(indices.len().saturating_mul(4));
            for &i in indices {
                match u16::try_from(i) {
                    Ok(s) if small => bytes.extend_from_slice(&s.to_le_bytes()),
                    _ => bytes.extend_from_slice(&i.to_le_bytes()),
                }
            }
            let index_view = self.view(&bytes, None)?;
            bytes.clear();
            for v in values {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            let value_view = self.view(&bytes, None)?;
            sparse = Some((index_view, small, value_view));
        }
        let a = self.open(None, FLOAT, count);
        if let Some((index_view, small, value_view)) = sparse {
            a.key("sparse");
            a.raw(b"{");
            a.key_usize("count", indices.len());
            a.key("indices");
            a.raw(b"{");
            a.key_usize("bufferView", index_view);
            a.key("componentType");
            a.uint(if small { UNSIGNED_SHORT } else { UNSIGNED_INT });
            a.raw(b"}");
            a.key("values");
            a.raw(b"{");
            a.key_usize("bufferView", value_view);
            a.raw(b"}}");
        }
        Ok(self.close("SCALAR"))
    }

    /// An index accessor, 16-bit when every index fits below the restart value 0xFFFF.
    pub(super) fn indices(&mut self, data: &[u32]) -> Result<usize> {
        let small = data.iter().all(|&i| i < 0xFFFF);
        let mut bytes = Vec::new();
        for &i in data {
            match u16::try_from(i) {
                Ok(s) if small => bytes.extend_from_slice(&s.to_le_bytes()),
                _ => bytes.extend_from_slice(&i.to_le_bytes()),
            }
        }
        let view = self.view(&bytes, Some(ELEMENT_ARRAY_BUFFER))?;
        let component = if small { UNSIGNED_SHORT } else { UNSIGNED_INT };
        self.open(Some(view), component, data.len());
        Ok(self.close("SCALAR"))
    }

    /// A `JOINTS_n` accessor: unsigned short VEC4.
    pub(super) fn joints(&mut self, data: &[[u16; 4]]) -> Result<usize> {
        let mut bytes = Vec::with_capacity(data.len().saturating_mul(8));
        for j in data.iter().flatten() {
            bytes.extend_from_slice(&j.to_le_bytes());
        }
        let view = self.view(&bytes, Some(ARRAY_BUFFER))?;
        self.open(Some(view), UNSIGNED_SHORT, data.len());
        Ok(self.close("VEC4"))
    }
}

/// The binary buffer's size as the meshes' vertex data, indices and morph targets and the
/// animations' keys make it (images, padding and index narrowing aside): every length is
/// that of data the scene holds, so a hostile count cannot inflate it.
pub(super) fn expected_bin(scene: &Scene) -> usize {
    let mut n = 0usize;
    let mut add = |count: usize, size: usize| n = n.saturating_add(count.saturating_mul(size));
    for m in &scene.meshes {
        for p in &m.primitives {
            add(p.positions.len(), 12);
            add(p.normals.len(), 12);
            add(p.uvs.len(), 8);
            add(p.indices.len(), 4);
            add(p.influences.len(), 24);
            for t in &p.targets {
                add(t.positions.len(), 12);
                add(t.normals.len(), 12);
            }
        }
    }
    for a in &scene.animations {
        for c in &a.channels {
            add(c.times.len(), 4);
            match &c.values {
                ChannelValues::Translation(v) | ChannelValues::Scale(v) => add(v.len(), 12),
                ChannelValues::Rotation(v) => add(v.len(), 16),
                ChannelValues::Weights(v) => add(v.len(), 4),
                ChannelValues::SparseWeights { nonzero, .. } => add(nonzero.len(), 8),
                ChannelValues::CameraYfov { yfov, .. } => add(yfov.len(), 4),
            }
        }
    }
    n
}

/// The per-component minimum and maximum of `data` (through [`Lanes`], as
/// [`Buffers::floats_map`] computes them).
fn bounds<const N: usize>(data: &[[f32; N]]) -> ([f32; N], [f32; N]) {
    let mut lanes = Lanes::new();
    lanes.widen(data.as_flattened());
    lanes.bounds::<N>()
}
