//! IR → glTF JSON + binary buffer, and the two containers (`.glb`, `.gltf` + `.bin`).

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use crate::error::{invalid, one_target_count};
use crate::json::Json;
use crate::{ExportError, ExportOptions};
use idmodel_scene::axes::Axes;
use idmodel_scene::{
    AlphaMode, Animation, ChannelValues, Image, Interpolation, Mime, Primitive, Scene, Wrap,
    unit_or_up,
};

type Result<T> = core::result::Result<T, ExportError>;

/// Files to write beside a `.gltf`: `(file name, bytes)`.
type Beside = Vec<(String, Vec<u8>)>;

const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;
const NEAREST: u32 = 9728;
const CLAMP_TO_EDGE: u32 = 33071;
const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// A `.gltf` file and the `.bin` it refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GltfFiles {
    /// The JSON document (UTF-8).
    pub json: Vec<u8>,
    /// The binary buffer to write under the `bin_uri` given to [`to_gltf`]. Empty when
    /// the scene needs no binary data; then the JSON names no buffer and nothing need be
    /// written.
    pub bin: Vec<u8>,
    /// The images, to write beside the `.gltf` under the relative URIs the JSON gives
    /// them: `(file name, bytes)`. Names are the `bin_uri` without its `.bin`, then
    /// `_<n>.png` or `_<n>.jpg` (`model.bin` → `model_0.png`).
    pub images: Vec<(String, Vec<u8>)>,
}

/// A GLB file as two pieces, to be written one after the other: [`Glb::front`] (the
/// 12-byte file header, the JSON chunk and the BIN chunk's 8-byte header) and
/// [`Glb::bin`] (the BIN chunk's data, padded). Writing the pieces one after the other
/// gives exactly the bytes of [`to_glb`], with no copy of the binary buffer; a writer
/// that converts many files can hand the pieces back to [`to_glb_pieces_reusing`], so
/// that the next file is built in memory that is already allocated and mapped.
///
/// ```
/// use idmodel_gltf::{ExportOptions, Glb, to_glb, to_glb_pieces, to_glb_pieces_reusing};
/// use idmodel_scene::{Mesh, Node, Primitive, Scene};
///
/// let mut scene = Scene::default();
/// scene.meshes.push(Mesh {
///     primitives: vec![Primitive {
///         positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
///         indices: vec![0, 1, 2],
///         ..Primitive::default()
///     }],
///     ..Mesh::default()
/// });
/// let mut node = Node::new("triangle");
/// node.mesh = Some(0);
/// scene.nodes.push(node);
///
/// let options = ExportOptions::default();
/// let glb: Glb = to_glb_pieces(&scene, &options)?;
/// let mut file = Vec::new();
/// glb.write_to(&mut file)?;
/// assert_eq!(file.len(), glb.len());
/// assert_eq!(file, to_glb(&scene, &options)?);
/// // The next export reuses the pieces' memory.
/// let again = to_glb_pieces_reusing(&scene, &options, glb)?;
/// assert_eq!(again.into_vec(), file);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Glb {
    front: Vec<u8>,
    bin: Vec<u8>,
}

impl Glb {
    /// Everything before the BIN chunk's data: the file header, the JSON chunk (padded
    /// with spaces) and, when there is binary data, the BIN chunk's header.
    pub fn front(&self) -> &[u8] {
        &self.front
    }

    /// The BIN chunk's data, padded with zeros to 4 bytes (empty when the scene has no
    /// binary data, and then the file has no BIN chunk).
    pub fn bin(&self) -> &[u8] {
        &self.bin
    }

    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.front.len().saturating_add(self.bin.len())
    }

    /// True for the empty default value (an export is never empty).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the file to `out`: the two pieces, one after the other.
    pub fn write_to<W: std::io::Write + ?Sized>(&self, out: &mut W) -> std::io::Result<()> {
        out.write_all(&self.front)?;
        out.write_all(&self.bin)
    }

    /// The two pieces, [`Glb::front`] then [`Glb::bin`], to write one after the other.
    pub fn into_pieces(self) -> (Vec<u8>, Vec<u8>) {
        (self.front, self.bin)
    }

    /// The file as one buffer. The front goes in front of the binary buffer in place
    /// (one move of the buffer, one copy of the front), so this never holds two copies
    /// of the binary data (the peak memory bound of issue #19).
    pub fn into_vec(self) -> Vec<u8> {
        let Glb { front, mut bin } = self;
        if bin.is_empty() {
            return front;
        }
        let len = bin.len();
        bin.reserve_exact(front.len());
        bin.resize(len.saturating_add(front.len()), 0);
        bin.copy_within(..len, front.len());
        if let Some(slot) = bin.get_mut(..front.len()) {
            slot.copy_from_slice(&front);
        }
        drop(front);
        // The buffer grew while it was built: give back what it holds beyond the file.
        bin.shrink_to_fit();
        bin
    }
}

/// Writes `scene` as one binary glTF (`.glb`): JSON chunk, then a BIN chunk holding every
/// buffer view, embedded PNG images included. Both chunks are padded to 4 bytes (JSON
/// with spaces, BIN with zeros) as the GLB container requires. The same bytes as
/// [`to_glb_pieces`] then [`Glb::into_vec`]; a caller that writes the file itself saves
/// the move of the binary buffer with [`to_glb_pieces`] and [`Glb::write_to`].
pub fn to_glb(scene: &Scene, options: &ExportOptions) -> Result<Vec<u8>> {
    Ok(to_glb_pieces(scene, options)?.into_vec())
}

/// [`to_glb`] as its two pieces ([`Glb`]), without joining them.
pub fn to_glb_pieces(scene: &Scene, options: &ExportOptions) -> Result<Glb> {
    to_glb_pieces_reusing(scene, options, Glb::default())
}

/// [`to_glb_pieces`] built in the memory of `reuse` (a previous export's pieces, whose
/// contents are discarded): when it is large enough, the export allocates no new memory
/// for the binary buffer, and writes into pages that are already mapped.
pub fn to_glb_pieces_reusing(scene: &Scene, options: &ExportOptions, reuse: Glb) -> Result<Glb> {
    let Glb {
        front: mut head_buf,
        bin: mut bin_buf,
    } = reuse;
    bin_buf.clear();
    let (mut json, mut bin, _) = build(scene, options, None, bin_buf)?;
    pad_to_4(&mut json, b' ');
    let bin_pad = bin.len().wrapping_neg() & 3;
    let chunk_header = 8usize;
    let mut total = 12usize
        .checked_add(chunk_header)
        .and_then(|n| n.checked_add(json.len()))
        .ok_or(ExportError::TooLarge("the GLB file"))?;
    if !bin.is_empty() {
        total = total
            .checked_add(chunk_header)
            .and_then(|n| n.checked_add(bin.len()))
            .and_then(|n| n.checked_add(bin_pad))
            .ok_or(ExportError::TooLarge("the GLB file"))?;
    }
    let total32 = u32_len(total, "the GLB file")?;
    let json32 = u32_len(json.len(), "the JSON chunk")?;
    // Everything before the BIN chunk's data.
    let mut head = [0u8; 28];
    for (slot, word) in head.chunks_exact_mut(4).zip([
        GLB_MAGIC,
        2,
        total32,
        json32,
        CHUNK_JSON,
        u32_len(bin.len().saturating_add(bin_pad), "the BIN chunk")?,
        CHUNK_BIN,
    ]) {
        slot.copy_from_slice(&word.to_le_bytes());
    }
    let head_len: usize = if bin.is_empty() { 20 } else { 28 };
    head_buf.clear();
    head_buf.reserve_exact(head_len.saturating_add(json.len()));
    head_buf.extend_from_slice(head.get(..20).unwrap_or_default());
    head_buf.extend_from_slice(&json);
    head_buf.extend_from_slice(head.get(20..head_len).unwrap_or_default());
    drop(json);
    if !bin.is_empty() {
        bin.reserve_exact(bin_pad);
        pad_to_4(&mut bin, 0);
    }
    Ok(Glb {
        front: head_buf,
        bin,
    })
}

/// Writes `scene` as a `.gltf` JSON document whose single buffer is the file `bin_uri`
/// (a relative URI such as `"model.bin"`); the images are files of their own beside it
/// ([`GltfFiles::images`]: PNG, or the PNG/JPEG bytes of an `Image::Encoded` unchanged).
pub fn to_gltf(scene: &Scene, options: &ExportOptions, bin_uri: &str) -> Result<GltfFiles> {
    let (compact, mut bin, images) = build(scene, options, Some(bin_uri), Vec::new())?;
    let json = crate::json::pretty(&compact);
    drop(compact);
    bin.reserve_exact(3); // the padding, without a doubling of the buffer
    pad_to_4(&mut bin, 0);
    Ok(GltfFiles { json, bin, images })
}

fn pad_to_4(v: &mut Vec<u8>, with: u8) {
    while v.len() & 3 != 0 {
        v.push(with);
    }
}

fn u32_len(n: usize, what: &'static str) -> Result<u32> {
    u32::try_from(n).map_err(|_| ExportError::TooLarge(what))
}

/// Checks every float of a list, naming the first bad one.
fn finite<const N: usize>(data: &[[f32; N]], what: &dyn core::fmt::Display) -> Result<()> {
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
struct Buffers {
    bin: Vec<u8>,
    /// The bytes of mesh and animation data still to come ([`expected_bin`] less what
    /// the views took so far): reserved at the first growth so the buffer is not copied
    /// again and again as it grows.
    expected: usize,
    views: Json,
    view_count: usize,
    accessors: Json,
    accessor_count: usize,
    /// [`Buffers::floats_map`]'s block buffer, kept from call to call.
    stage: Vec<f32>,
}

impl Buffers {
    /// Appends `bytes` as a new buffer view (4-byte aligned) and returns its index.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> Result<usize> {
        let offset = self.begin_view(bytes.len());
        self.bin.extend_from_slice(bytes);
        self.end_view(offset, target)
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
        u32_len(self.bin.len(), "the binary buffer")?;
        let v = &mut self.views;
        v.sep();
        v.raw(b"{\"buffer\":0");
        v.key_usize("byteLength", self.bin.len().saturating_sub(offset));
        if offset != 0 {
            v.key_usize("byteOffset", offset);
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
    fn open(&mut self, view: Option<usize>, component: u32, count: usize) -> &mut Json {
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
    fn close(&mut self, ty: &str) -> usize {
        self.accessors.key_str("type", ty);
        self.accessors.raw(b"}");
        self.accessor_count = self.accessor_count.saturating_add(1);
        self.accessor_count.saturating_sub(1)
    }

    /// A float accessor of `N` components per element (`N` = 1, 2, 3, 4 or 16).
    fn floats<const N: usize>(
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
    fn floats_map<const N: usize>(
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
    fn points(
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
    fn sparse_scalars(&mut self, count: usize, indices: &[u32], values: &[f32]) -> Result<usize> {
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
    fn indices(&mut self, data: &[u32]) -> Result<usize> {
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
    fn joints(&mut self, data: &[[u16; 4]]) -> Result<usize> {
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
fn expected_bin(scene: &Scene) -> usize {
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

/// Per-node facts gathered while checking the graph.
struct Graph {
    parent: Vec<Option<usize>>,
}

fn check_graph(scene: &Scene) -> Result<Graph> {
    let n = scene.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; n];
    for (i, node) in scene.nodes.iter().enumerate() {
        for &c in &node.children {
            let slot = parent
                .get_mut(c)
                .ok_or_else(|| invalid!("node {i} ({:?}): child {c} out of range", node.name))?;
            if slot.is_some() || c == i {
                return Err(invalid!(
                    "node {c} has more than one parent (or is its own child)"
                ));
            }
            *slot = Some(i);
        }
        let check = |what: &str, idx: Option<usize>, len: usize| match idx {
            Some(k) if k >= len => Err(invalid!(
                "node {i} ({:?}): {what} {k} out of range (have {len})",
                node.name
            )),
            _ => Ok(()),
        };
        check("mesh", node.mesh, scene.meshes.len())?;
        check("skin", node.skin, scene.skins.len())?;
        check("camera", node.camera, scene.cameras.len())?;
        if node.skin.is_some() && node.mesh.is_none() {
            return Err(invalid!(
                "node {i} ({:?}) has a skin but no mesh",
                node.name
            ));
        }
        let trs = [node.translation, node.scale];
        if trs
            .iter()
            .flatten()
            .chain(&node.rotation)
            .any(|f| !f.is_finite())
        {
            return Err(invalid!("node {i} ({:?}): non-finite transform", node.name));
        }
    }
    // Cycles: every walk up the parent links must end within n steps.
    if let Some(start) = crate::graph::in_cycle(&parent) {
        return Err(invalid!("node {start} is part of a cycle"));
    }
    Ok(Graph { parent })
}

/// The topmost ancestor of `node`.
fn root_of(graph: &Graph, node: usize) -> usize {
    let mut at = node;
    while let Some(p) = graph.parent.get(at).copied().flatten() {
        at = p;
    }
    at
}

fn unit_quat(q: [f32; 4]) -> [f32; 4] {
    let len = libm::sqrtf(q.iter().map(|c| c * c).sum());
    if len.is_finite() && len > 1e-12 {
        q.map(|c| c / len)
    } else {
        [0.0, 0.0, 0.0, 1.0]
    }
}

/// Packs one vertex's influences into two JOINTS/WEIGHTS sets (see
/// [`Primitive::influences`]).
fn pack_influences(pairs: &[(u16, f32)]) -> ([[u16; 4]; 2], [[f32; 4]; 2]) {
    let mut merged: Vec<(u16, f32)> = Vec::with_capacity(pairs.len());
    for &(j, w) in pairs {
        if !(w.is_finite() && w > 0.0) {
            continue;
        }
        match merged.iter_mut().find(|(mj, _)| *mj == j) {
            Some((_, mw)) => *mw += w,
            None => merged.push((j, w)),
        }
    }
    // Largest first; equal weights keep the lower joint first, so output is deterministic.
    merged.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    merged.truncate(8);
    if merged.is_empty() {
        merged.push((0, 1.0));
    }
    let sum: f64 = merged.iter().map(|&(_, w)| f64::from(w)).sum();
    let mut joints = [[0u16; 4]; 2];
    let mut weights = [[0f32; 4]; 2];
    let slots = joints
        .iter_mut()
        .flatten()
        .zip(weights.iter_mut().flatten());
    for ((js, ws), &(j, w)) in slots.zip(&merged) {
        *js = j;
        // Narrowing a weight in [0, 1] to f32 is the intent here.
        *ws = narrow(f64::from(w) / sum);
    }
    (joints, weights)
}

/// f64 → f32, the nearest value (a named helper because `as` is linted).
fn narrow(x: f64) -> f32 {
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    // Rounding to the nearest f32 is exactly what is wanted; the cast cannot panic.
    let y = x as f32;
    y
}

/// Builds the glTF JSON document (compact) and the binary buffer, the latter in `bin`
/// (empty; its capacity is used).
fn build(
    scene: &Scene,
    options: &ExportOptions,
    bin_uri: Option<&str>,
    bin: Vec<u8>,
) -> Result<(Vec<u8>, Vec<u8>, Beside)> {
    let axes = options.axes;
    let graph = check_graph(scene)?;
    let mut buf = Buffers {
        bin,
        expected: expected_bin(scene),
        views: Json::new(),
        view_count: 0,
        accessors: Json::new(),
        accessor_count: 0,
        stage: Vec::new(),
    };

    // Materials, textures, images, samplers: each list as its JSON array elements.
    let mut images = Json::new();
    let mut image_count = 0usize;
    let mut textures = Json::new();
    let mut texture_count = 0usize;
    let mut materials = Json::new();
    let mut samplers = Json::new();
    let mut sampler_wraps: Vec<Wrap> = Vec::new();
    let mut beside: Beside = Vec::new();
    let image_stem = bin_uri.map(|u| u.strip_suffix(".bin").unwrap_or(u).to_string());
    for (mi, m) in scene.materials.iter().enumerate() {
        if m.base_color.iter().any(|f| !f.is_finite()) {
            return Err(invalid!(
                "material {mi} ({:?}): non-finite base colour",
                m.name
            ));
        }
        if m.emissive_factor
            .iter()
            .any(|f| !(f.is_finite() && *f >= 0.0))
        {
            return Err(invalid!(
                "material {mi} ({:?}): bad emissive factor",
                m.name
            ));
        }
        let samplers_before = samplers.out.len();
        let (sampler, created) = match sampler_wraps.iter().position(|w| *w == m.wrap) {
            Some(i) => (i, false),
            None => {
                samplers.sep();
                samplers.raw(b"{");
                samplers.key("magFilter");
                samplers.uint(NEAREST);
                samplers.key("minFilter");
                samplers.uint(NEAREST);
                if m.wrap == Wrap::Clamp {
                    samplers.key("wrapS");
                    samplers.uint(CLAMP_TO_EDGE);
                    samplers.key("wrapT");
                    samplers.uint(CLAMP_TO_EDGE);
                }
                samplers.raw(b"}");
                sampler_wraps.push(m.wrap);
                (sampler_wraps.len().saturating_sub(1), true)
            }
        };
        let mut sampler_used = false;
        let mut texture = |image: &Image, role: &str| -> Result<usize> {
            let what = |e: &dyn core::fmt::Display| {
                ExportError::Image(alloc::format!("material {mi} ({:?}) {role}: {e}", m.name))
            };
            let (bytes, mime) = match image {
                Image::Rgba8 {
                    width,
                    height,
                    pixels,
                } => (
                    encode_png(*width, *height, pixels).map_err(|e| what(&e))?,
                    Mime::Png,
                ),
                Image::Indexed8 {
                    width,
                    height,
                    palette,
                    indices,
                } => (
                    encode_png_indexed(*width, *height, palette, indices).map_err(|e| what(&e))?,
                    Mime::Png,
                ),
                Image::Encoded { mime, bytes } => (bytes.clone(), *mime),
                Image::Uri(uri) => {
                    images.sep();
                    images.raw(b"{");
                    images.key_str("name", &m.name);
                    images.key_str("uri", uri);
                    images.raw(b"}");
                    image_count = image_count.saturating_add(1);
                    sampler_used = true;
                    return Ok(texture_entry(
                        &mut textures,
                        &mut texture_count,
                        sampler,
                        image_count,
                    ));
                }
            };
            if bytes.is_empty() {
                return Err(what(&"empty image file"));
            }
            images.sep();
            images.raw(b"{");
            match &image_stem {
                Some(stem) => {
                    let file = alloc::format!("{stem}_{}.{}", beside.len(), mime.extension());
                    images.key_str("mimeType", mime.as_str());
                    images.key_str("name", &m.name);
                    images.key_str("uri", &file);
                    beside.push((file, bytes));
                }
                None => {
                    let view = buf.view(&bytes, None)?;
                    images.key_usize("bufferView", view);
                    images.key_str("mimeType", mime.as_str());
                    images.key_str("name", &m.name);
                }
            }
            images.raw(b"}");
            image_count = image_count.saturating_add(1);
            sampler_used = true;
            Ok(texture_entry(
                &mut textures,
                &mut texture_count,
                sampler,
                image_count,
            ))
        };
        let base = m
            .image
            .as_ref()
            .map(|i| texture(i, "base colour"))
            .transpose()?;
        let normal = m
            .normal
            .as_ref()
            .map(|i| texture(i, "normal map"))
            .transpose()?;
        let emissive = m
            .emissive
            .as_ref()
            .map(|i| texture(i, "emissive"))
            .transpose()?;
        if created && !sampler_used {
            // Created for this material but not used by it: leave it out.
            sampler_wraps.truncate(sampler);
            samplers.out.truncate(samplers_before);
        }
        let alpha_cutoff = match m.alpha {
            AlphaMode::Mask(cutoff) if !(cutoff.is_finite() && cutoff >= 0.0) => {
                return Err(invalid!(
                    "material {mi} ({:?}): bad alpha cutoff {cutoff}",
                    m.name
                ));
            }
            AlphaMode::Mask(cutoff) => Some(cutoff),
            _ => None,
        };
        let j = &mut materials;
        j.sep();
        j.raw(b"{");
        if let Some(cutoff) = alpha_cutoff {
            j.key("alphaCutoff");
            j.f32(cutoff);
        }
        match m.alpha {
            AlphaMode::Opaque => {}
            AlphaMode::Mask(_) => j.key_str("alphaMode", "MASK"),
            AlphaMode::Blend => j.key_str("alphaMode", "BLEND"),
        }
        if m.double_sided {
            j.key("doubleSided");
            j.raw(b"true");
        }
        if m.emissive_factor != [0.0; 3] {
            j.key("emissiveFactor");
            j.f32s(&m.emissive_factor);
        }
        if let Some(t) = emissive {
            j.key("emissiveTexture");
            texture_ref(j, t);
        }
        j.key_str("name", &m.name);
        if let Some(t) = normal {
            j.key("normalTexture");
            texture_ref(j, t);
        }
        j.key("pbrMetallicRoughness");
        j.raw(b"{");
        if m.base_color != [1.0; 4] {
            j.key("baseColorFactor");
            j.f32s(&m.base_color);
        }
        if let Some(t) = base {
            j.key("baseColorTexture");
            texture_ref(j, t);
        }
        j.key("metallicFactor");
        j.raw(b"0");
        j.key("roughnessFactor");
        j.raw(b"1}}");
    }

    // Which skins draw each mesh (for the joint-index range check).
    let mut mesh_joint_limit: Vec<Option<usize>> = vec![None; scene.meshes.len()];
    let mut mesh_skinned_by_node: Vec<Option<bool>> = vec![None; scene.meshes.len()];
    for (i, node) in scene.nodes.iter().enumerate() {
        let Some(mesh) = node.mesh else { continue };
        let skinned = node.skin.is_some();
        if let Some(slot) = mesh_skinned_by_node.get_mut(mesh) {
            if slot.is_some_and(|s| s != skinned) {
                return Err(invalid!(
                    "mesh {mesh} is drawn both with and without a skin (node {i})"
                ));
            }
            *slot = Some(skinned);
        }
        if let (Some(skin), Some(limit)) = (node.skin, mesh_joint_limit.get_mut(mesh)) {
            let n = scene.skins.get(skin).map_or(0, |s| s.joints.len());
            *limit = Some(limit.map_or(n, |l: usize| l.min(n)));
        }
    }

    // Meshes. `mesh_map[i]` is the glTF index of IR mesh i, `None` when it had nothing to
    // draw; `mesh_targets[i]` its morph target count.
    let mut meshes = Json::new();
    let mut mesh_count = 0usize;
    let mut mesh_map: Vec<Option<usize>> = Vec::with_capacity(scene.meshes.len());
    let mut mesh_targets: Vec<usize> = Vec::with_capacity(scene.meshes.len());
    let mut prims = Json::new();
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        let skinned = mesh_skinned_by_node.get(mi).copied().flatten();
        let limit = mesh_joint_limit.get(mi).copied().flatten();
        prims.out.clear();
        let mut targets: Option<usize> = None;
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let what = alloc::format!("mesh {mi} ({:?}) primitive {pi}", mesh.name);
            one_target_count(&mut targets, p.targets.len(), &what).map_err(ExportError::Invalid)?;
            if p.positions.is_empty() || p.indices.is_empty() {
                continue;
            }
            let textured = p
                .material
                .and_then(|m| scene.materials.get(m).map(|m| m.images().next().is_some()));
            if p.material.is_some() && textured.is_none() {
                return Err(invalid!("{what}: material {:?} out of range", p.material));
            }
            if textured == Some(true) && p.uvs.is_empty() {
                return Err(invalid!(
                    "{what}: textured material but no texture coordinates"
                ));
            }
            prims.sep();
            primitive(
                &mut buf, &mut prims, p, &what, axes, options, skinned, limit,
            )?;
        }
        let t = targets.unwrap_or(0);
        if !mesh.target_names.is_empty() && mesh.target_names.len() != t {
            return Err(invalid!(
                "mesh {mi} ({:?}): {} target names for {t} targets",
                mesh.name,
                mesh.target_names.len()
            ));
        }
        mesh_targets.push(t);
        if prims.out.is_empty() {
            mesh_map.push(None);
            continue;
        }
        let j = &mut meshes;
        j.sep();
        j.raw(b"{");
        if !mesh.target_names.is_empty() {
            j.key("extras");
            j.raw(b"{");
            j.key("targetNames");
            j.raw(b"[");
            for name in &mesh.target_names {
                j.sep();
                j.str(name);
            }
            j.raw(b"]}");
        }
        j.key_str("name", &mesh.name);
        j.key("primitives");
        j.raw(b"[");
        j.raw(&prims.out);
        j.raw(b"]");
        if t > 0 {
            j.key("weights");
            j.raw(b"[");
            for k in 0..t {
                if k > 0 {
                    j.raw(b",");
                }
                j.raw(b"0");
            }
            j.raw(b"]");
        }
        j.raw(b"}");
        mesh_map.push(Some(mesh_count));
        mesh_count = mesh_count.saturating_add(1);
    }
    drop(prims);

    // Cameras.
    let mut cameras = Json::new();
    for (ci, c) in scene.cameras.iter().enumerate() {
        let ok = c.yfov.is_finite()
            && c.yfov > 0.0
            && c.znear.is_finite()
            && c.znear > 0.0
            && c.zfar.is_none_or(|f| f.is_finite() && f > c.znear)
            && c.aspect_ratio.is_none_or(|a| a.is_finite() && a > 0.0);
        if !ok {
            return Err(invalid!(
                "camera {ci} ({:?}): needs yfov > 0, znear > 0, zfar > znear, aspect > 0",
                c.name
            ));
        }
        let j = &mut cameras;
        j.sep();
        j.raw(b"{");
        j.key_str("name", &c.name);
        j.key("perspective");
        j.raw(b"{");
        if let Some(a) = c.aspect_ratio {
            j.key("aspectRatio");
            j.f32(a);
        }
        j.key("yfov");
        j.f32(c.yfov);
        if let Some(f) = c.zfar {
            j.key("zfar");
            j.f32(f);
        }
        j.key("znear");
        j.f32(c.znear);
        j.raw(b"}");
        j.key_str("type", "perspective");
        j.raw(b"}");
    }

    // Nodes, then one extra child per camera node (appended after the IR's nodes) and
    // one extra root per skin whose joints have no common root.
    let mut nodes = Json::new();
    let mut extra_nodes = Json::new();
    let mut extra_count = 0usize;
    let extra_base = scene.nodes.len();
    let mut children: Vec<usize> = Vec::new();
    for node in &scene.nodes {
        children.clear();
        children.extend_from_slice(&node.children);
        if let Some(c) = node.camera {
            let e = &mut extra_nodes;
            e.sep();
            e.raw(b"{");
            e.key_usize("camera", c);
            e.key("name");
            e.str(&alloc::format!("{} camera", node.name));
            e.key("rotation");
            e.f32s(&camera_fix(axes));
            e.raw(b"}");
            children.push(extra_base.saturating_add(extra_count));
            extra_count = extra_count.saturating_add(1);
        }
        let j = &mut nodes;
        j.sep();
        j.raw(b"{");
        if !children.is_empty() {
            j.key("children");
            j.usizes(&children);
        }
        let mesh = node.mesh.and_then(|m| mesh_map.get(m).copied().flatten());
        if let Some(m) = mesh {
            j.key_usize("mesh", m);
        }
        j.key_str("name", &node.name);
        let r = axes.quat(unit_quat(node.rotation));
        if r != [0.0, 0.0, 0.0, 1.0] {
            j.key("rotation");
            j.f32s(&r);
        }
        let s = axes.scale(node.scale);
        if s != [1.0; 3] {
            j.key("scale");
            j.f32s(&s);
        }
        if let (Some(s), Some(_)) = (node.skin, mesh) {
            j.key_usize("skin", s);
        }
        let t = axes.point(node.translation);
        if t != [0.0; 3] {
            j.key("translation");
            j.f32s(&t);
        }
        if let (false, Some(_)) = (node.weights.is_empty(), mesh) {
            let t = node.mesh.and_then(|m| mesh_targets.get(m).copied());
            if t != Some(node.weights.len()) || node.weights.iter().any(|w| !w.is_finite()) {
                return Err(invalid!(
                    "node {:?}: {} rest weights for a mesh of {} targets (or not finite)",
                    node.name,
                    node.weights.len(),
                    t.unwrap_or(0)
                ));
            }
            j.key("weights");
            j.f32s(&node.weights);
        }
        j.raw(b"}");
    }
    drop(children);

    // Skins.
    let mut skins = Json::new();
    let mut adopted = vec![false; scene.nodes.len()];
    let mut roots: Vec<usize> = Vec::new();
    let mut extra_roots: Vec<usize> = Vec::new();
    for (si, skin) in scene.skins.iter().enumerate() {
        let what = alloc::format!("skin {si} ({:?})", skin.name);
        if skin.joints.is_empty() {
            return Err(invalid!("{what}: no joints"));
        }
        for (k, &j) in skin.joints.iter().enumerate() {
            if j >= scene.nodes.len() {
                return Err(invalid!("{what}: joint {k} is node {j}, out of range"));
            }
            if skin
                .joints
                .get(..k)
                .is_some_and(|before| before.contains(&j))
            {
                return Err(invalid!("{what}: node {j} listed twice as a joint"));
            }
        }
        if skin.skeleton.is_some_and(|s| s >= scene.nodes.len()) {
            return Err(invalid!("{what}: skeleton node out of range"));
        }
        let mut ibm_accessor = None;
        if !skin.inverse_bind_matrices.is_empty() {
            if skin.inverse_bind_matrices.len() != skin.joints.len() {
                return Err(invalid!(
                    "{what}: {} inverse bind matrices for {} joints",
                    skin.inverse_bind_matrices.len(),
                    skin.joints.len()
                ));
            }
            finite(&skin.inverse_bind_matrices, &what)?;
            let mut ibm = Vec::with_capacity(skin.joints.len());
            for (k, m) in skin.inverse_bind_matrices.iter().enumerate() {
                if [m[3], m[7], m[11], m[15]] != [0.0, 0.0, 0.0, 1.0] {
                    return Err(invalid!("{what}: inverse bind matrix {k} is not affine"));
                }
                ibm.push(axes.mat4(*m));
            }
            ibm_accessor = Some(buf.floats(&ibm, None, false)?);
        }
        // glTF requires the joints to share a root: when they do not, a new root node
        // adopts their top-level ancestors.
        let mut tops: Vec<usize> = Vec::new();
        for &j in &skin.joints {
            let top = root_of(&graph, j);
            if !tops.contains(&top) {
                tops.push(top);
            }
        }
        if tops.len() > 1 {
            if skin.skeleton.is_some() {
                return Err(invalid!("{what}: the joints have no common root"));
            }
            if tops
                .iter()
                .any(|&t| adopted.get(t).copied().unwrap_or(false))
            {
                return Err(invalid!("{what}: the joints have no common root"));
            }
            let e = &mut extra_nodes;
            e.sep();
            e.raw(b"{");
            e.key("children");
            e.usizes(&tops);
            e.key("name");
            e.str(&alloc::format!("{} root", skin.name));
            e.raw(b"}");
            extra_roots.push(extra_base.saturating_add(extra_count));
            extra_count = extra_count.saturating_add(1);
            // Those tops are roots no longer.
            for t in tops {
                if let Some(a) = adopted.get_mut(t) {
                    *a = true;
                }
            }
        }
        let j = &mut skins;
        j.sep();
        j.raw(b"{");
        if let Some(a) = ibm_accessor {
            j.key_usize("inverseBindMatrices", a);
        }
        j.key("joints");
        j.usizes(&skin.joints);
        j.key_str("name", &skin.name);
        if let Some(sk) = skin.skeleton {
            j.key_usize("skeleton", sk);
        }
        j.raw(b"}");
    }

    // Scene roots.
    roots.extend(
        (0..scene.nodes.len())
            .filter(|&i| graph.parent.get(i).copied().flatten().is_none())
            .filter(|&i| !adopted.get(i).copied().unwrap_or(false)),
    );
    roots.extend(extra_roots);
    if !extra_nodes.out.is_empty() {
        nodes.sep();
        nodes.raw(&extra_nodes.out);
    }
    drop(extra_nodes);

    // Animations.
    let mut animations = Json::new();
    let mut pointer = false;
    let mut time_cache: Vec<(Vec<u32>, usize)> = Vec::new();
    for (ai, anim) in scene.animations.iter().enumerate() {
        pointer |= animation(
            &mut buf,
            &mut animations,
            &mut time_cache,
            scene,
            anim,
            ai,
            options,
            &mesh_map,
            &mesh_targets,
        )?;
    }

    // Assemble, the keys in order, in a buffer reserved for all of it (the pieces and
    // the extras' estimate), so the pieces are copied once.
    let mut root = Json::new();
    let pieces = [
        &buf.accessors,
        &animations,
        &buf.views,
        &cameras,
        &images,
        &materials,
        &meshes,
        &nodes,
        &samplers,
        &skins,
        &textures,
    ];
    root.out.reserve(
        pieces
            .iter()
            .fold(1024usize, |n, p| {
                n.saturating_add(p.out.len()).saturating_add(32)
            })
            .saturating_add(crate::extras::size_hint(&scene.extras))
            .saturating_add(roots.len().saturating_mul(8))
            .saturating_add(scene.name.len()),
    );
    let list = |root: &mut Json, key: &str, v: &Json| {
        if !v.out.is_empty() {
            root.key(key);
            root.raw(b"[");
            root.raw(&v.out);
            root.raw(b"]");
        }
    };
    root.raw(b"{");
    let has_bin = !buf.bin.is_empty();
    if has_bin {
        list(&mut root, "accessors", &buf.accessors);
    }
    list(&mut root, "animations", &animations);
    root.key("asset");
    root.raw(b"{");
    root.key_str(
        "generator",
        concat!("idmodel-gltf ", env!("CARGO_PKG_VERSION")),
    );
    root.key_str("version", "2.0");
    root.raw(b"}");
    if has_bin {
        list(&mut root, "bufferViews", &buf.views);
        root.key("buffers");
        root.raw(b"[{");
        root.key_usize("byteLength", buf.bin.len());
        if let Some(uri) = bin_uri {
            root.key_str("uri", uri);
        }
        root.raw(b"}]");
    }
    list(&mut root, "cameras", &cameras);
    if pointer {
        // Used, not required: clients without it keep each camera's static yfov.
        root.key("extensionsUsed");
        root.raw(b"[\"KHR_animation_pointer\"]");
    }
    list(&mut root, "images", &images);
    list(&mut root, "materials", &materials);
    list(&mut root, "meshes", &meshes);
    list(&mut root, "nodes", &nodes);
    list(&mut root, "samplers", &samplers);
    root.raw(b",\"scene\":0,\"scenes\":[{");
    if !scene.extras.is_empty() {
        root.key("extras");
        crate::extras::write_json(&mut root, &scene.extras);
    }
    if !scene.name.is_empty() {
        root.key_str("name", &scene.name);
    }
    if !roots.is_empty() {
        root.key("nodes");
        root.usizes(&roots);
    }
    root.raw(b"}]");
    list(&mut root, "skins", &skins);
    list(&mut root, "textures", &textures);
    root.raw(b"}");
    Ok((root.out, buf.bin, beside))
}

/// Writes a texture entry `{"sampler":s,"source":i}` for the image just written (the
/// `image_count`th) and returns its index.
fn texture_entry(
    textures: &mut Json,
    count: &mut usize,
    sampler: usize,
    image_count: usize,
) -> usize {
    textures.sep();
    textures.raw(b"{");
    textures.key_usize("sampler", sampler);
    textures.key_usize("source", image_count.saturating_sub(1));
    textures.raw(b"}");
    *count = count.saturating_add(1);
    count.saturating_sub(1)
}

/// Writes a texture reference `{"index":t}`.
fn texture_ref(j: &mut Json, t: usize) {
    j.raw(b"{");
    j.key_usize("index", t);
    j.raw(b"}");
}

/// The fixed rotation of the child node that carries a glTF camera, so that it looks
/// along its parent's local +X with +Z up (IR convention), expressed in output axes.
///
/// In file axes the rotation maps glTF camera space to id camera space:
/// −Z → +X (forward), +Y → +Z (up), +X → −Y (right). As a matrix its columns are
/// `(0,−1,0) (0,0,1) (−1,0,0)`, the quaternion `[0.5, −0.5, −0.5, 0.5]`. With
/// [`Axes::YUp`] the parent's frame is already converted, so the child also carries the
/// axis permutation: `P·M`, whose columns are `(−1,0,0) (0,1,0) (0,0,−1)`, a half turn
/// about Y: `[0, 1, 0, 0]`.
fn camera_fix(axes: Axes) -> [f32; 4] {
    match axes {
        Axes::Keep => [0.5, -0.5, -0.5, 0.5],
        Axes::YUp => [0.0, 1.0, 0.0, 0.0],
    }
}

#[allow(clippy::too_many_arguments)] // one call site; the arguments are the build state
fn primitive(
    buf: &mut Buffers,
    j: &mut Json,
    p: &Primitive,
    what: &str,
    axes: Axes,
    options: &ExportOptions,
    skinned: Option<bool>,
    joint_limit: Option<usize>,
) -> Result<()> {
    let n = p.positions.len();
    let u = u32::try_from(n).map_err(|_| ExportError::TooLarge("a primitive's vertex count"))?;
    let same = |len: usize, attr: &str| {
        if len == 0 || len == n {
            Ok(())
        } else {
            Err(invalid!("{what}: {len} {attr} for {n} positions"))
        }
    };
    same(p.normals.len(), "normals")?;
    same(p.uvs.len(), "texture coordinates")?;
    same(p.influences.len(), "influence lists")?;
    if p.indices.len() % 3 != 0 {
        return Err(invalid!(
            "{what}: {} indices is not a whole number of triangles",
            p.indices.len()
        ));
    }
    if let Some((k, &bad)) = p.indices.iter().enumerate().find(|&(_, &i)| i >= u) {
        return Err(invalid!(
            "{what}: index {k} is {bad}, but there are {n} vertices"
        ));
    }
    finite(&p.positions, &alloc::format!("{what} POSITION"))?;
    finite(&p.uvs, &alloc::format!("{what} TEXCOORD_0"))?;

    let position = buf.points(&p.positions, axes, Some(ARRAY_BUFFER), true, None)?;
    let normal = if p.normals.is_empty() {
        None
    } else {
        Some(buf.floats_map(
            &p.normals,
            |v| axes.point(unit_or_up(v)),
            Some(ARRAY_BUFFER),
            false,
            None,
        )?)
    };
    let texcoord = if p.uvs.is_empty() {
        None
    } else {
        Some(buf.floats(&p.uvs, Some(ARRAY_BUFFER), false)?)
    };
    match (skinned, p.influences.is_empty()) {
        (Some(true), true) => {
            return Err(invalid!(
                "{what}: drawn with a skin but has no joint influences"
            ));
        }
        (Some(false), false) => {
            return Err(invalid!(
                "{what}: has joint influences but no node draws it with a skin"
            ));
        }
        _ => {}
    }
    // JOINTS_0, WEIGHTS_0, and JOINTS_1, WEIGHTS_1 when a vertex needs the second set.
    let mut skin_sets: [Option<(usize, usize)>; 2] = [None, None];
    if !p.influences.is_empty() {
        let mut joints: [Vec<[u16; 4]>; 2] = [Vec::with_capacity(n), Vec::with_capacity(n)];
        let mut weights: [Vec<[f32; 4]>; 2] = [Vec::with_capacity(n), Vec::with_capacity(n)];
        let mut need_second = false;
        for (v, pairs) in p.influences.iter().enumerate() {
            let (j, w) = pack_influences(pairs);
            if let Some(limit) = joint_limit {
                if let Some(bad) = j.iter().flatten().find(|&&j| usize::from(j) >= limit) {
                    return Err(invalid!(
                        "{what}: vertex {v} uses joint {bad}, but the skin has {limit} joints"
                    ));
                }
            }
            need_second |= w[1].iter().any(|&x| x > 0.0);
            for (set, (jj, ww)) in j.into_iter().zip(w).enumerate() {
                if let (Some(js), Some(ws)) = (joints.get_mut(set), weights.get_mut(set)) {
                    js.push(jj);
                    ws.push(ww);
                }
            }
        }
        let [j0, j1] = &joints;
        let [w0, w1] = &weights;
        let a = buf.joints(j0)?;
        skin_sets[0] = Some((a, buf.floats(w0, Some(ARRAY_BUFFER), false)?));
        if need_second {
            let a = buf.joints(j1)?;
            skin_sets[1] = Some((a, buf.floats(w1, Some(ARRAY_BUFFER), false)?));
        }
    }

    let mut targets: Vec<(usize, Option<usize>)> = Vec::with_capacity(p.targets.len());
    for (ti, t) in p.targets.iter().enumerate() {
        if t.positions.len() != n || !(t.normals.is_empty() || t.normals.len() == n) {
            return Err(invalid!(
                "{what} morph target {ti}: {} positions and {} normals for {n} vertices",
                t.positions.len(),
                t.normals.len()
            ));
        }
        let position = buf.points(
            &t.positions,
            axes,
            Some(ARRAY_BUFFER),
            true,
            Some(&format_args!("{what} morph target {ti} POSITION")),
        )?;
        let normal = if !t.normals.is_empty() && !p.normals.is_empty() {
            Some(buf.points(
                &t.normals,
                axes,
                Some(ARRAY_BUFFER),
                false,
                Some(&format_args!("{what} morph target {ti} NORMAL")),
            )?)
        } else {
            finite(
                &t.normals,
                &alloc::format!("{what} morph target {ti} NORMAL"),
            )?;
            None
        };
        targets.push((position, normal));
    }

    let tris: Vec<u32> = p
        .indices
        .chunks_exact(3)
        .flat_map(|t| match t {
            &[a, b, c] => options.winding.triangle([a, b, c]),
            _ => [0, 0, 0], // chunks_exact yields only whole triangles
        })
        .collect();
    let indices = buf.indices(&tris)?;
    drop(tris);

    j.raw(b"{");
    j.key("attributes");
    j.raw(b"{");
    for (set, (joints, _)) in skin_sets.iter().flatten().enumerate() {
        j.key(if set == 0 { "JOINTS_0" } else { "JOINTS_1" });
        j.usize(*joints);
    }
    if let Some(a) = normal {
        j.key_usize("NORMAL", a);
    }
    j.key_usize("POSITION", position);
    if let Some(a) = texcoord {
        j.key_usize("TEXCOORD_0", a);
    }
    for (set, (_, weights)) in skin_sets.iter().flatten().enumerate() {
        j.key(if set == 0 { "WEIGHTS_0" } else { "WEIGHTS_1" });
        j.usize(*weights);
    }
    j.raw(b"}");
    j.key_usize("indices", indices);
    if let Some(m) = p.material {
        j.key_usize("material", m);
    }
    j.raw(b",\"mode\":4");
    if !targets.is_empty() {
        j.key("targets");
        j.raw(b"[");
        for (position, normal) in targets {
            j.sep();
            j.raw(b"{");
            if let Some(a) = normal {
                j.key_usize("NORMAL", a);
            }
            j.key_usize("POSITION", position);
            j.raw(b"}");
        }
        j.raw(b"]");
    }
    j.raw(b"}");
    Ok(())
}

#[allow(clippy::too_many_arguments)] // one call site; the arguments are the build state
fn animation(
    buf: &mut Buffers,
    out: &mut Json,
    time_cache: &mut Vec<(Vec<u32>, usize)>,
    scene: &Scene,
    anim: &Animation,
    ai: usize,
    options: &ExportOptions,
    mesh_map: &[Option<usize>],
    mesh_targets: &[usize],
) -> Result<bool> {
    let axes = options.axes;
    let mut channels = Json::new();
    let mut samplers = Json::new();
    let mut sampler_count = 0usize;
    let mut uses_pointer = false;
    let mut seen: Vec<(usize, &'static str)> = Vec::new();
    for (ci, ch) in anim.channels.iter().enumerate() {
        let what = alloc::format!("animation {ai} ({:?}) channel {ci}", anim.name);
        let node = scene
            .nodes
            .get(ch.node)
            .ok_or_else(|| invalid!("{what}: node {} out of range", ch.node))?;
        if ch.times.is_empty() {
            return Err(invalid!("{what}: no keyframes"));
        }
        let mut prev = -1.0f32;
        for (k, &t) in ch.times.iter().enumerate() {
            if !(t.is_finite() && t >= 0.0 && t > prev) {
                return Err(invalid!(
                    "{what}: key {k} time {t} is not finite, non-negative and increasing"
                ));
            }
            prev = t;
        }
        let keys = ch.times.len();
        let mut pointer = None;
        let (path, values) = match &ch.values {
            ChannelValues::CameraYfov { camera, yfov } => {
                if *camera >= scene.cameras.len() {
                    return Err(invalid!("{what}: camera {camera} out of range"));
                }
                if node.camera != Some(*camera) {
                    return Err(invalid!(
                        "{what}: node {} does not hold camera {camera}",
                        ch.node
                    ));
                }
                if let Some((k, v)) = yfov
                    .iter()
                    .enumerate()
                    .find(|(_, v)| !(v.is_finite() && **v > 0.0))
                {
                    return Err(invalid!("{what}: key {k} yfov {v} is not finite and > 0"));
                }
                if yfov.len() != keys {
                    return Err(invalid!("{what}: {} values for {keys} keys", yfov.len()));
                }
                pointer = Some(alloc::format!("/cameras/{camera}/perspective/yfov"));
                ("yfov", Vals::V1(yfov.iter().map(|&v| [v]).collect()))
            }
            ChannelValues::Translation(v) => {
                finite(v, &what)?;
                (
                    "translation",
                    Vals::V3(v.iter().map(|&x| axes.point(x)).collect()),
                )
            }
            ChannelValues::Scale(v) => {
                finite(v, &what)?;
                (
                    "scale",
                    Vals::V3(v.iter().map(|&x| axes.scale(x)).collect()),
                )
            }
            ChannelValues::Rotation(v) => {
                finite(v, &what)?;
                (
                    "rotation",
                    Vals::V4(v.iter().map(|&q| axes.quat(unit_quat(q))).collect()),
                )
            }
            ChannelValues::Weights(_) | ChannelValues::SparseWeights { .. } => {
                let mesh = node
                    .mesh
                    .and_then(|m| mesh_map.get(m).copied().flatten().map(|_| m));
                let Some(mesh) = mesh else {
                    // The mesh had nothing to draw and was left out: so is its animation.
                    if node.mesh.is_some() {
                        continue;
                    }
                    return Err(invalid!(
                        "{what}: weights on node {} which has no mesh",
                        ch.node
                    ));
                };
                let t = mesh_targets.get(mesh).copied().unwrap_or(0);
                if t == 0 {
                    return Err(invalid!("{what}: weights on a mesh without morph targets"));
                }
                ("weights", weights(&ch.values, keys, t, options, &what)?)
            }
        };
        let count = match &values {
            Vals::V1(w) => w
                .len()
                .checked_div(keys.max(1))
                .unwrap_or(0)
                .saturating_mul(keys),
            Vals::V3(v) => v.len(),
            Vals::V4(v) => v.len(),
            Vals::Sparse { count, .. } => *count,
        };
        let expected = match &values {
            Vals::V1(w) => w.len(),
            Vals::Sparse { count, .. } => *count,
            _ => keys,
        };
        if count != expected {
            return Err(invalid!("{what}: {count} values for {keys} keys"));
        }
        if seen.contains(&(ch.node, path)) {
            return Err(invalid!(
                "{what}: node {} {path} is animated twice",
                ch.node
            ));
        }
        seen.push((ch.node, path));

        let bits: Vec<u32> = ch.times.iter().map(|t| t.to_bits()).collect();
        let input = match time_cache.iter().find(|(b, _)| *b == bits) {
            Some(&(_, a)) => a,
            None => {
                let t: Vec<[f32; 1]> = ch.times.iter().map(|&x| [x]).collect();
                let a = buf.floats(&t, None, true)?;
                time_cache.push((bits, a));
                a
            }
        };
        let output = match &values {
            Vals::V1(w) => buf.floats(w, None, false)?,
            Vals::V3(v) => buf.floats(v, None, false)?,
            Vals::V4(v) => buf.floats(v, None, false)?,
            Vals::Sparse {
                count,
                indices,
                values,
            } => buf.sparse_scalars(*count, indices, values)?,
        };
        let interpolation = match ch.interpolation {
            Interpolation::Linear => "LINEAR",
            Interpolation::Step => "STEP",
        };
        samplers.sep();
        samplers.raw(b"{");
        samplers.key_usize("input", input);
        samplers.key_str("interpolation", interpolation);
        samplers.key_usize("output", output);
        samplers.raw(b"}");
        sampler_count = sampler_count.saturating_add(1);
        channels.sep();
        channels.raw(b"{");
        channels.key_usize("sampler", sampler_count.saturating_sub(1));
        channels.key("target");
        channels.raw(b"{");
        // KHR_animation_pointer: the target is the pointer, with no node.
        match pointer {
            Some(p) => {
                channels.raw(b"\"extensions\":{\"KHR_animation_pointer\":{");
                channels.key_str("pointer", &p);
                channels.raw(b"}},\"path\":\"pointer\"");
                uses_pointer = true;
            }
            None => {
                channels.key_usize("node", ch.node);
                channels.key_str("path", path);
            }
        }
        channels.raw(b"}}");
    }
    if channels.out.is_empty() {
        return Ok(false);
    }
    out.sep();
    out.raw(b"{\"channels\":[");
    out.raw(&channels.out);
    out.raw(b"]");
    out.key_str("name", &anim.name);
    out.key("samplers");
    out.raw(b"[");
    out.raw(&samplers.out);
    out.raw(b"]}");
    Ok(uses_pointer)
}

/// Converted channel values.
enum Vals {
    V1(Vec<[f32; 1]>),
    V3(Vec<[f32; 3]>),
    V4(Vec<[f32; 4]>),
    /// `count` scalars, all 0 but `values` at `indices`.
    Sparse {
        count: usize,
        indices: Vec<u32>,
        values: Vec<f32>,
    },
}

/// The weights of a channel of `keys` keys on a mesh of `targets` targets, checked:
/// dense ones as they are, sparse ones as a sparse accessor (or expanded, within the
/// budget, with [`ExportOptions::dense_weights`]).
fn weights(
    v: &ChannelValues,
    keys: usize,
    targets: usize,
    options: &ExportOptions,
    what: &str,
) -> Result<Vals> {
    let total = keys.checked_mul(targets);
    let nonzero = match v {
        ChannelValues::Weights(v) => {
            if Some(v.len()) != total {
                return Err(invalid!(
                    "{what}: {} weights for {keys} keys × {targets} targets",
                    v.len()
                ));
            }
            let w: Vec<[f32; 1]> = v.iter().map(|&x| [x]).collect();
            finite(&w, &what)?;
            return Ok(Vals::V1(w));
        }
        ChannelValues::SparseWeights {
            targets: n,
            nonzero,
        } => {
            if *n != targets {
                return Err(invalid!(
                    "{what}: sparse weights of {n} targets on a mesh of {targets}"
                ));
            }
            nonzero
        }
        _ => return Err(invalid!("{what}: not weights")),
    };
    let total = total
        .filter(|&n| u32::try_from(n).is_ok())
        .ok_or(ExportError::TooLarge("a morph weight accessor"))?;
    let mut indices = Vec::with_capacity(nonzero.len());
    let mut values = Vec::with_capacity(nonzero.len());
    for (e, &(k, t, w)) in nonzero.iter().enumerate() {
        if k >= keys || t >= targets {
            return Err(invalid!(
                "{what}: sparse weight {e} at key {k} target {t}, outside {keys} keys × {targets} targets"
            ));
        }
        if !w.is_finite() {
            return Err(invalid!("{what}: non-finite sparse weight {e}: {w}"));
        }
        let i = k
            .checked_mul(targets)
            .and_then(|i| i.checked_add(t))
            .and_then(|i| u32::try_from(i).ok())
            .ok_or(ExportError::TooLarge("a morph weight accessor"))?;
        if indices.last().is_some_and(|&last| last >= i) {
            return Err(invalid!(
                "{what}: sparse weight {e} (key {k} target {t}) is not in increasing order"
            ));
        }
        indices.push(i);
        values.push(w);
    }
    if options.dense_weights {
        let need = u64::try_from(total).unwrap_or(u64::MAX).saturating_mul(4);
        let limit = options
            .max_bytes
            .unwrap_or(idmodel_scene::DEFAULT_MAX_BYTES);
        if need > limit {
            return Err(ExportError::OverBudget {
                what: alloc::format!("the dense morph weights of {what}"),
                need,
                limit,
            });
        }
        let mut w = vec![[0.0f32]; total];
        for (&i, &x) in indices.iter().zip(&values) {
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| w.get_mut(i)) {
                *slot = [x];
            }
        }
        return Ok(Vals::V1(w));
    }
    Ok(Vals::Sparse {
        count: total,
        indices,
        values,
    })
}

/// Encodes `width × height` RGBA8 pixels (rows top to bottom) as a PNG file, as the
/// exporter does for embedded images.
pub fn png_rgba8(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>> {
    encode_png(width, height, pixels).map_err(ExportError::Image)
}

/// Encodes `width × height` palette indices (rows top to bottom) with their `palette` as
/// a PNG file, as the exporter does for an embedded [`Image::Indexed8`]: the same bytes as
/// [`png_rgba8`] of the RGBA they expand to.
///
/// ```
/// let mut palette = Box::new([[0u8; 4]; 256]);
/// palette[3] = [200, 10, 10, 255];
/// let png = idmodel_gltf::png_indexed8(2, 1, &palette, &[3, 0])?;
/// assert_eq!(png, idmodel_gltf::png_rgba8(2, 1, &[200, 10, 10, 255, 0, 0, 0, 0])?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn png_indexed8(
    width: u32,
    height: u32,
    palette: &[[u8; 4]; 256],
    indices: &[u8],
) -> Result<Vec<u8>> {
    encode_png_indexed(width, height, palette, indices).map_err(ExportError::Image)
}

fn encode_png_indexed(
    width: u32,
    height: u32,
    palette: &[[u8; 4]; 256],
    indices: &[u8],
) -> core::result::Result<Vec<u8>, String> {
    let expected = usize::try_from(width)
        .ok()
        .zip(usize::try_from(height).ok())
        .and_then(|(w, h)| w.checked_mul(h));
    if width == 0 || height == 0 || expected != Some(indices.len()) {
        return Err(alloc::format!(
            "{width}×{height} indexed image needs {expected:?} bytes, has {}",
            indices.len()
        ));
    }
    crate::png::encode_indexed(width, height, palette, indices)
}

fn encode_png(width: u32, height: u32, pixels: &[u8]) -> core::result::Result<Vec<u8>, String> {
    let expected = usize::try_from(width)
        .ok()
        .zip(usize::try_from(height).ok())
        .and_then(|(w, h)| w.checked_mul(h))
        .and_then(|n| n.checked_mul(4));
    if width == 0 || height == 0 || expected != Some(pixels.len()) {
        return Err(alloc::format!(
            "{width}×{height} RGBA image needs {expected:?} bytes, has {}",
            pixels.len()
        ));
    }
    crate::png::encode(width, height, pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn influences_merge_sort_truncate_normalise() {
        let (j, w) = pack_influences(&[(3, 0.25), (1, 0.5), (3, 0.25), (7, 0.0)]);
        assert_eq!(j, [[1, 3, 0, 0], [0; 4]]);
        assert_eq!(w, [[0.5, 0.5, 0.0, 0.0], [0.0; 4]]);
        let many: Vec<(u16, f32)> = (0..10u16).map(|i| (i, f32::from(i) + 1.0)).collect();
        let (j, w) = pack_influences(&many);
        assert_eq!(j, [[9, 8, 7, 6], [5, 4, 3, 2]]);
        let sum: f32 = w.iter().flatten().sum();
        assert!((sum - 1.0).abs() < 1e-6);
        assert_eq!(
            pack_influences(&[]),
            ([[0; 4]; 2], [[1.0, 0.0, 0.0, 0.0], [0.0; 4]])
        );
    }

    /// The camera fix quaternions agree with the matrices in their doc comment.
    #[test]
    fn camera_fix_rotations() {
        let rot = |q: [f32; 4], v: [f32; 3]| {
            let [x, y, z, w] = q;
            // v + 2w(u×v) + 2u×(u×v)
            let u = [x, y, z];
            let cross = |a: [f32; 3], b: [f32; 3]| {
                [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                ]
            };
            let t = cross(u, v).map(|c| 2.0 * c);
            let c2 = cross(u, t);
            [
                v[0] + w * t[0] + c2[0],
                v[1] + w * t[1] + c2[1],
                v[2] + w * t[2] + c2[2],
            ]
        };
        let q = camera_fix(Axes::Keep);
        assert_eq!(rot(q, [0.0, 0.0, -1.0]), [1.0, 0.0, 0.0]);
        assert_eq!(rot(q, [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]);
        let q = camera_fix(Axes::YUp);
        // Forward: file +X is glTF +Z; up: file +Z is glTF +Y.
        assert_eq!(rot(q, [0.0, 0.0, -1.0]), Axes::YUp.point([1.0, 0.0, 0.0]));
        assert_eq!(rot(q, [0.0, 1.0, 0.0]), Axes::YUp.point([0.0, 0.0, 1.0]));
    }
}
