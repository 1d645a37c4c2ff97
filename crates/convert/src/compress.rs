//! `EXT_meshopt_compression` for GLB files: [`meshopt`] compresses a finished GLB's
//! geometry and animation data with meshoptimizer's codecs, [`decompress`] turns such a
//! file back into a plain one.
//!
//! **Why**: delivery size. The extension (a ratified Khronos vendor extension,
//! `KhronosGroup/glTF/extensions/2.0/Vendor/EXT_meshopt_compression`) stores each buffer
//! view of vertex attributes, indices, morph targets and animation keys as a
//! meshoptimizer stream that decodes at GPU-upload speed. Morph-animated id models,
//! whose frames are morph targets, shrink most; a general-purpose compressor (gzip,
//! brotli) over the result gains again, since the streams are built to be compressed
//! further. Nothing is lost: every stream is decoded back and compared before it is
//! kept, so a decompressed file has every byte of the original views. (meshoptimizer's
//! triangle codec may start a triangle at another of its corners; when it does, the
//! view is written with the exact index-sequence codec instead, so that a model
//! converted back to an id format comes back byte for byte.)
//!
//! **Who reads it**: three.js (`GLTFLoader` with `MeshoptDecoder`), Babylon.js,
//! gltfpack and the other meshoptimizer tools, glTF-Transform. Blender's glTF importer
//! does **not** (3.x and 4.x refuse the file: the extension is required, since the file
//! holds no uncompressed copy; support is only planned upstream for a later release),
//! nor does Assimp, and the Khronos validator accepts the file without checking the
//! extension. Compress files meant for the web; [`decompress`] one for the other tools.
//!
//! **What is written**, as the extension's specification lays it out: buffer 0 (the
//! GLB's BIN chunk) holds the compressed streams and, unchanged, every view that is not
//! compressed (images, views no accessor reads); a new last buffer, without data and
//! marked `"fallback": true`, has the original layout, where each compressed view keeps
//! its original offset, length, stride and target, and the view's
//! `EXT_meshopt_compression` object says where its stream is, in which mode
//! (`ATTRIBUTES`, `TRIANGLES` for triangle-list indices, `INDICES` for other index
//! data such as sparse accessor indices) and with which element size and count. A view
//! is compressed only when its stream, with the JSON that describes it, is smaller, and
//! only after the stream has been decoded back and compared; a file the pass would not
//! make smaller (a few dozen vertices) is left as it is. Attribute streams use codec
//! version 0 (header `0xa0`, what every meshoptimizer decoder reads, the 0.18 one three.js
//! r170 ships included; version 1 needs 0.23), index streams version 1 (`0xe1`, `0xd1`,
//! 0.14 and later), as the specification requires. No filter (octahedral, quaternion,
//! exponential) is applied, since they are lossy; [`decompress`] undoes them in files
//! other tools wrote.
//!
//! The JSON is otherwise kept, object keys in sorted order (serde_json's).
//!
//! ```
//! # let md2 = include_bytes!("../../../samples/sample.md2");
//! # let files = [("models/sample/tris.md2", &md2[..])];
//! # let glb = idmodel_convert::convert_bytes(&files, "models/sample/tris.md2",
//! #     "tris.glb".as_ref(), &idmodel_convert::Options::default()).unwrap().main_bytes();
//! use idmodel_convert::compress::{decompress, meshopt};
//!
//! let small = meshopt(&glb)?;
//! assert!(small.len() < glb.len());
//! let plain = decompress(&small)?; // a GLB without the extension again
//! assert!(plain.len() >= small.len());
//! # Ok::<(), idmodel_convert::compress::CompressError>(())
//! ```
//!
//! [`meshopt`]: crate::compress::meshopt
//! [`decompress`]: crate::compress::decompress

// meshoptimizer is C++, which the browser viewer's wasm build leaves out.
#![cfg(not(target_arch = "wasm32"))]

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value, json};

/// The extension's name, in `extensionsUsed`, `extensionsRequired`, views and buffers.
const EXT: &str = "EXT_meshopt_compression";
/// GLB chunk types.
const JSON_CHUNK: u32 = 0x4E4F_534A;
const BIN_CHUNK: u32 = 0x004E_4942;
/// `bufferView.target` of index data.
const ELEMENT_ARRAY_BUFFER: u64 = 34963;
/// `primitive.mode` of triangle lists (the default).
const TRIANGLE_LIST: u64 = 4;
/// glTF component types of indices: unsigned short, unsigned int.
const UNSIGNED_SHORT: u64 = 5123;
const UNSIGNED_INT: u64 = 5125;
/// meshoptimizer's attribute codec level (its default).
const LEVEL: i32 = 2;
/// Attribute codec version 0: what meshoptimizer decoders before 0.23 (three.js r170's
/// is 0.18) read.
const VERTEX_VERSION: i32 = 0;
/// [`decompress`] writes at most `GROWTH × input + SLACK` bytes of BIN.
const GROWTH: usize = 64;
const SLACK: usize = 1 << 20;

/// Why a GLB could not be compressed or decompressed: one line saying what and where
/// (`bufferView 3: EXT_meshopt_compression count 12 × stride 8 is not its byteLength
/// 100`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressError(String);

impl CompressError {
    /// The message, one line.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CompressError {}

type Result<T> = core::result::Result<T, CompressError>;

fn fail<T>(message: String) -> Result<T> {
    Err(CompressError(message))
}

/// How a view's stream is coded (the extension's `mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// meshoptimizer's vertex codec: any elements of a multiple of 4 bytes, exact.
    Attributes,
    /// The index buffer codec: triangle lists, triangles kept up to rotation.
    Triangles,
    /// The index sequence codec: any 2- or 4-byte indices, exact.
    Indices,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Attributes => "ATTRIBUTES",
            Mode::Triangles => "TRIANGLES",
            Mode::Indices => "INDICES",
        }
    }

    fn parse(name: &str) -> Option<Mode> {
        match name {
            "ATTRIBUTES" => Some(Mode::Attributes),
            "TRIANGLES" => Some(Mode::Triangles),
            "INDICES" => Some(Mode::Indices),
            _ => None,
        }
    }
}

/// A mode and the element size it codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    mode: Mode,
    stride: usize,
}

/// Compresses `glb` with `EXT_meshopt_compression`: every buffer view of the BIN chunk
/// that accessors read (directly or as sparse indices or values) and no image uses,
/// when its stream and the JSON describing it are smaller than the view (see the
/// [module documentation](crate::compress)). The extension is added to `extensionsUsed` and
/// `extensionsRequired`. A file with nothing worth compressing (the whole file would not
/// be smaller), or already compressed, comes back unchanged.
///
/// # Errors
/// A file that is not a GLB, or whose JSON is not glTF where this pass reads it (an
/// accessor without a component type, a view past the BIN chunk, …), in one line.
pub fn meshopt(glb: &[u8]) -> core::result::Result<Vec<u8>, CompressError> {
    let Glb { mut json, bin } = read_glb(glb)?;
    let unchanged = || Ok(glb.to_vec());
    let Some(bin) = bin else {
        return unchanged();
    };
    let views = list(&json, "bufferViews");
    if views.iter().any(|v| extension(v).is_some()) {
        return unchanged();
    }
    let buffers = list(&json, "buffers");
    let Some(first) = buffers.first().filter(|b| b.get("uri").is_none()) else {
        return unchanged();
    };
    let original_length = need(first, "byteLength", "buffer 0")?;
    let fallback = buffers.len();

    let mut refs: Vec<Vec<Ref>> = vec![Vec::new(); views.len()];
    for (view, r) in accessor_refs(&json)? {
        match refs.get_mut(view) {
            Some(list) => list.push(r),
            None => {
                return fail(format!(
                    "accessor {}: bufferView {view} does not exist",
                    r.accessor
                ));
            }
        }
    }
    let roles = Roles::of(&json);
    let mut image = vec![false; views.len()];
    for (i, img) in list(&json, "images").iter().enumerate() {
        if let Some(v) = uint(img, "bufferView", &format!("image {i}"))?
            && let Some(slot) = image.get_mut(v)
        {
            *slot = true;
        }
    }

    let mut ranges = Vec::with_capacity(views.len());
    let mut streams = Vec::with_capacity(views.len());
    for (i, view) in views.iter().enumerate() {
        let at = format!("bufferView {i}");
        let r = range(view, &at)?;
        let mut stream = None;
        if r.buffer == 0 {
            let bytes = slice(bin, &r, &at)?;
            let target = view.get("target").and_then(Value::as_u64);
            let refs = refs.get(i).map_or(&[][..], Vec::as_slice);
            if !image.get(i).copied().unwrap_or(true)
                && let Some(plan) = plan(&r, target, refs, &roles)
            {
                // Worth it only when the stream and the JSON describing it are smaller.
                stream = compress(bytes, plan).filter(|(p, s)| {
                    let cost = serde_json::to_vec(&description(*p, bin.len(), s.len(), r.length))
                        .map_or(usize::MAX, |j| j.len())
                        .saturating_add(EXTENSIONS_KEY.len());
                    s.len().saturating_add(cost) < bytes.len()
                });
            }
        }
        ranges.push(r);
        streams.push(stream);
    }
    if streams.iter().all(Option::is_none) {
        return unchanged();
    }

    // The new BIN: streams at multiples of 4 bytes, uncompressed views at their offsets
    // modulo 4 (which keeps their accessors aligned).
    let mut out = Vec::with_capacity(bin.len());
    let mut placed = Vec::with_capacity(views.len());
    let mut fallback_length = original_length;
    for (i, (r, stream)) in ranges.iter().zip(&streams).enumerate() {
        if r.buffer != 0 {
            placed.push(None);
            continue;
        }
        match stream {
            Some((_, s)) => {
                placed.push(Some(place(&mut out, 0)));
                out.extend_from_slice(s);
                fallback_length = fallback_length.max(r.end().unwrap_or(usize::MAX));
            }
            None => {
                placed.push(Some(place(&mut out, r.offset)));
                out.extend_from_slice(slice(bin, r, &format!("bufferView {i}"))?);
            }
        }
    }

    let root = root_mut(&mut json)?;
    if let Some(views) = root.get_mut("bufferViews").and_then(Value::as_array_mut) {
        for (i, view) in views.iter_mut().enumerate() {
            let (Some(r), Some(stream), Some(at)) = (
                ranges.get(i),
                streams.get(i),
                placed.get(i).copied().flatten(),
            ) else {
                continue;
            };
            let Some(view) = view.as_object_mut() else {
                continue;
            };
            match stream {
                None => {
                    view.insert("byteOffset".into(), at.into());
                }
                Some((plan, s)) => {
                    view.insert("buffer".into(), fallback.into());
                    let ext = description(*plan, at, s.len(), r.length);
                    let extensions = view
                        .entry("extensions")
                        .or_insert_with(|| Value::Object(Map::new()));
                    match extensions.as_object_mut() {
                        Some(e) => {
                            e.insert(EXT.into(), ext);
                        }
                        None => {
                            return fail(format!("bufferView {i}: extensions is not an object"));
                        }
                    }
                }
            }
        }
    }
    if let Some(buffers) = root.get_mut("buffers").and_then(Value::as_array_mut) {
        if let Some(first) = buffers.first_mut().and_then(Value::as_object_mut) {
            first.insert("byteLength".into(), out.len().into());
        }
        buffers.push(json!({
            "byteLength": fallback_length,
            "extensions": { EXT: { "fallback": true } },
        }));
    }
    add_name(root, "extensionsUsed")?;
    add_name(root, "extensionsRequired")?;
    let small = write_glb(&json, &out)?;
    if small.len() >= glb.len() {
        return unchanged();
    }
    Ok(small)
}

/// What a view's `"extensions"` member costs besides the extension object.
const EXTENSIONS_KEY: &str = r#","extensions":{"EXT_meshopt_compression":}"#;

/// The extension object of a view of `length` bytes whose `plan` stream of
/// `stream_length` bytes is at `offset` of buffer 0.
fn description(plan: Plan, offset: usize, stream_length: usize, length: usize) -> Value {
    json!({
        "buffer": 0,
        "byteOffset": offset,
        "byteLength": stream_length,
        "byteStride": plan.stride,
        "mode": plan.mode.name(),
        "count": length.checked_div(plan.stride).unwrap_or(0),
    })
}

/// Decompresses a GLB that uses `EXT_meshopt_compression` into a plain one: every
/// compressed view decoded (filters included) and every view of the BIN chunk placed,
/// one after the other (each at its former offset modulo 4, so that accessors stay
/// aligned), in one buffer that is the new BIN chunk; the extension and its fallback
/// buffers gone. Views of external buffers (`uri`) keep them. A file
/// without compressed views comes back as it is, borrowed.
///
/// Safe on hostile input: no panic, and the BIN it builds is at most 64 × the input's
/// size + 1 MiB (an error past it).
///
/// # Errors
/// One line naming what and where: a file that is not a GLB, a view whose extension
/// does not fit it (`bufferView 3: EXT_meshopt_compression count 12 × stride 8 is not
/// its byteLength 100`), a stream that does not decode, data the GLB does not hold, a
/// filter other than `NONE`, `OCTAHEDRAL`, `QUATERNION` or `EXPONENTIAL`.
pub fn decompress(glb: &[u8]) -> core::result::Result<Cow<'_, [u8]>, CompressError> {
    let Glb { mut json, bin } = read_glb(glb)?;
    let views = list(&json, "bufferViews");
    if !views.iter().any(|v| extension(v).is_some()) {
        return Ok(Cow::Borrowed(glb));
    }
    let budget = glb.len().saturating_mul(GROWTH).saturating_add(SLACK);
    let buffers = list(&json, "buffers");
    let is_bin = |b: usize| b == 0 && buffers.first().is_some_and(|b| b.get("uri").is_none());
    let data_of = |b: usize| if is_bin(b) { bin } else { None };
    // Buffers with a URI are kept (after the new BIN buffer); fallbacks are dropped.
    let mut kept = vec![json!({})];
    let mut remap = Vec::with_capacity(buffers.len());
    for b in buffers {
        if b.get("uri").is_some() {
            remap.push(Some(kept.len()));
            kept.push(b.clone());
        } else {
            remap.push(None);
        }
    }

    let mut out = Vec::new();
    let mut placed = Vec::with_capacity(views.len());
    for (i, view) in views.iter().enumerate() {
        let at = format!("bufferView {i}");
        let r = range(view, &at)?;
        let room = budget.saturating_sub(out.len()).saturating_sub(6);
        let take = |n: usize| {
            if n > room {
                fail(format!(
                    "{at}: its {n} bytes would take the decompressed BIN past {budget} bytes, the bound for a {}-byte file",
                    glb.len()
                ))
            } else {
                Ok(())
            }
        };
        if let Some(ext) = extension(view) {
            take(r.length)?;
            let data = decode_view(&at, &r, ext, &data_of)?;
            placed.push(Place::Bin(place(&mut out, r.offset)));
            out.extend_from_slice(&data);
        } else if let Some(source) = data_of(r.buffer) {
            take(r.length)?;
            let bytes = slice(source, &r, &at)?;
            placed.push(Place::Bin(place(&mut out, r.offset)));
            out.extend_from_slice(bytes);
        } else if let Some(Some(b)) = remap.get(r.buffer) {
            placed.push(Place::Buffer(*b));
        } else {
            return fail(format!(
                "{at}: buffer {} holds no data (a fallback or missing buffer, and the view is not compressed)",
                r.buffer
            ));
        }
    }
    if let Some(first) = kept.first_mut() {
        *first = json!({ "byteLength": out.len() });
    }

    let root = root_mut(&mut json)?;
    if let Some(views) = root.get_mut("bufferViews").and_then(Value::as_array_mut) {
        for (view, place) in views.iter_mut().zip(&placed) {
            let Some(view) = view.as_object_mut() else {
                continue;
            };
            match *place {
                Place::Bin(offset) => {
                    view.insert("buffer".into(), 0.into());
                    view.insert("byteOffset".into(), offset.into());
                }
                Place::Buffer(b) => {
                    view.insert("buffer".into(), b.into());
                }
            }
            remove_extension(view);
        }
    }
    root.insert("buffers".into(), Value::Array(kept));
    remove_name(root, "extensionsUsed");
    remove_name(root, "extensionsRequired");
    Ok(Cow::Owned(write_glb(&json, &out)?))
}

/// Where [`decompress`] puts a view: in the new BIN at an offset, or in a kept buffer.
#[derive(Clone, Copy)]
enum Place {
    Bin(usize),
    Buffer(usize),
}

/// The decoded bytes of compressed view `at` (range `r`, extension object `ext`).
fn decode_view<'a>(
    at: &str,
    r: &Range,
    ext: &Value,
    data_of: &dyn Fn(usize) -> Option<&'a [u8]>,
) -> Result<Vec<u8>> {
    let here = format!("{at}: {EXT}");
    let buffer = need(ext, "buffer", &here)?;
    let offset = uint(ext, "byteOffset", &here)?.unwrap_or(0);
    let length = need(ext, "byteLength", &here)?;
    let stride = need(ext, "byteStride", &here)?;
    let count = need(ext, "count", &here)?;
    let mode_name = ext
        .get("mode")
        .and_then(Value::as_str)
        .ok_or_else(|| CompressError(format!("{here}: no mode")))?;
    let mode = Mode::parse(mode_name).ok_or_else(|| {
        CompressError(format!(
            "{here} mode {mode_name} is not ATTRIBUTES, TRIANGLES or INDICES"
        ))
    })?;
    let filter = match ext.get("filter") {
        None => "NONE",
        Some(f) => f
            .as_str()
            .ok_or_else(|| CompressError(format!("{here} filter {f} is not a name")))?,
    };
    if let Some(s) = r.stride
        && s != stride
    {
        return fail(format!(
            "{here} byteStride {stride} is not the view's byteStride {s}"
        ));
    }
    if count.checked_mul(stride) != Some(r.length) {
        return fail(format!(
            "{here} count {count} × stride {stride} is not its byteLength {}",
            r.length
        ));
    }
    match mode {
        Mode::Attributes => {
            if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
                return fail(format!(
                    "{here} byteStride {stride} is not a multiple of 4 from 4 to 256 (ATTRIBUTES)"
                ));
            }
        }
        Mode::Triangles | Mode::Indices => {
            if stride != 2 && stride != 4 {
                return fail(format!(
                    "{here} byteStride {stride} is not 2 or 4 ({})",
                    mode.name()
                ));
            }
            if mode == Mode::Triangles && !count.is_multiple_of(3) {
                return fail(format!(
                    "{here} count {count} is not a multiple of 3 (TRIANGLES)"
                ));
            }
            if filter != "NONE" {
                return fail(format!(
                    "{here} filter {filter} does not apply to {}",
                    mode.name()
                ));
            }
        }
    }
    if !matches!(filter, "NONE" | "OCTAHEDRAL" | "QUATERNION" | "EXPONENTIAL") {
        return fail(format!("{at}: {EXT} filter {filter} is not supported"));
    }
    let source = data_of(buffer).ok_or_else(|| {
        CompressError(format!(
            "{here} data is in buffer {buffer}, not the GLB's BIN chunk"
        ))
    })?;
    let stream = offset
        .checked_add(length)
        .and_then(|end| source.get(offset..end))
        .ok_or_else(|| {
            CompressError(format!(
                "{here} bytes {offset}..+{length} are past the BIN chunk's {} bytes",
                source.len()
            ))
        })?;
    let decoded = match mode {
        Mode::Attributes => decode_attributes(stream, stride, count),
        Mode::Triangles | Mode::Indices => decode_indices(stream, mode, stride, count),
    };
    let mut data = match decoded {
        Some(Ok(data)) => data,
        Some(Err(e)) => {
            return fail(format!("{here} {} data does not decode ({e})", mode.name()));
        }
        None => return fail(format!("{here} byteStride {stride} cannot be decoded")),
    };
    unfilter(&mut data, filter, stride, &here)?;
    Ok(data)
}

/// Applies the extension's `filter` to decoded attribute data, in place.
fn unfilter(data: &mut Vec<u8>, filter: &str, stride: usize, here: &str) -> Result<()> {
    match (filter, stride) {
        ("NONE", _) => {}
        ("OCTAHEDRAL", 4) => {
            let mut v: Vec<[i8; 4]> = data
                .as_chunks::<4>()
                .0
                .iter()
                .map(|c| c.map(|b| i8::from_le_bytes([b])))
                .collect();
            meshopt::decode_filter_oct(&mut v);
            *data = v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        }
        ("OCTAHEDRAL", 8) => {
            let mut v = shorts(data);
            meshopt::decode_filter_oct(&mut v);
            *data = v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        }
        ("QUATERNION", 8) => {
            let mut v = shorts(data);
            meshopt::decode_filter_quat(&mut v);
            *data = v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        }
        ("EXPONENTIAL", _) => {
            // Each 32-bit value is decoded on its own, whatever the stride.
            let mut v: Vec<[u32; 1]> = data
                .as_chunks::<4>()
                .0
                .iter()
                .map(|c| [u32::from_le_bytes(*c)])
                .collect();
            meshopt::decode_filter_exp(&mut v);
            *data = v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
        }
        _ => {
            return fail(format!(
                "{here} filter {filter} does not apply to byteStride {stride}"
            ));
        }
    }
    Ok(())
}

/// 8-byte elements as four little-endian `i16`.
fn shorts(data: &[u8]) -> Vec<[i16; 4]> {
    data.as_chunks::<8>()
        .0
        .iter()
        .map(|c| {
            let pairs = c.as_chunks::<2>().0;
            core::array::from_fn(|k| pairs.get(k).map_or(0, |p| i16::from_le_bytes(*p)))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Choosing and coding streams.

/// An accessor's use of a view: directly, or for its sparse indices or values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Direct,
    SparseIndices,
    SparseValues,
}

/// One accessor's reading of a view.
#[derive(Debug, Clone, Copy)]
struct Ref {
    accessor: usize,
    kind: Kind,
    /// The accessor's (or the sparse part's) `byteOffset` in the view.
    offset: usize,
    component: u64,
    component_size: usize,
    /// The size of one element (the component size for sparse indices).
    element: usize,
    count: usize,
}

/// Every (view, use) pair of the accessors.
fn accessor_refs(json: &Value) -> Result<Vec<(usize, Ref)>> {
    let mut refs = Vec::new();
    for (i, a) in list(json, "accessors").iter().enumerate() {
        let at = format!("accessor {i}");
        let (component, component_size) = component_type(a, &at)?;
        let ty = a
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| CompressError(format!("{at}: no type")))?;
        let element = element_size(component_size, ty)
            .ok_or_else(|| CompressError(format!("{at}: type {ty} is not a glTF type")))?;
        let count = need(a, "count", &at)?;
        if let Some(view) = uint(a, "bufferView", &at)? {
            refs.push((
                view,
                Ref {
                    accessor: i,
                    kind: Kind::Direct,
                    offset: uint(a, "byteOffset", &at)?.unwrap_or(0),
                    component,
                    component_size,
                    element,
                    count,
                },
            ));
        }
        if let Some(sparse) = a.get("sparse") {
            let at = format!("{at} sparse");
            let count = need(sparse, "count", &at)?;
            // The sparse indices (their own component type, one per element) and values
            // (the accessor's), each where its object says.
            let mut part = |key: &str, kind: Kind| -> Result<()> {
                let Some(object) = sparse.get(key) else {
                    return Ok(());
                };
                let at = format!("{at} {key}");
                let (component, component_size, element) = if kind == Kind::SparseIndices {
                    let (c, size) = component_type(object, &at)?;
                    (c, size, size)
                } else {
                    (component, component_size, element)
                };
                let reference = Ref {
                    accessor: i,
                    kind,
                    offset: uint(object, "byteOffset", &at)?.unwrap_or(0),
                    component,
                    component_size,
                    element,
                    count,
                };
                refs.push((need(object, "bufferView", &at)?, reference));
                Ok(())
            };
            part("indices", Kind::SparseIndices)?;
            part("values", Kind::SparseValues)?;
        }
    }
    Ok(refs)
}

/// `componentType` of `object` and its size.
fn component_type(object: &Value, at: &str) -> Result<(u64, usize)> {
    let c = object
        .get("componentType")
        .and_then(Value::as_u64)
        .ok_or_else(|| CompressError(format!("{at}: no componentType")))?;
    let size = match c {
        5120 | 5121 => 1,
        5122 | UNSIGNED_SHORT => 2,
        UNSIGNED_INT | 5126 => 4,
        _ => {
            return fail(format!(
                "{at}: componentType {c} is not a glTF component type"
            ));
        }
    };
    Ok((c, size))
}

/// The size of one element of `ty` (matrix columns padded to 4 bytes, as glTF lays
/// them out).
fn element_size(component: usize, ty: &str) -> Option<usize> {
    let (columns, rows) = match ty {
        "SCALAR" => (1, 1),
        "VEC2" => (1, 2),
        "VEC3" => (1, 3),
        "VEC4" => (1, 4),
        "MAT2" => (2, 2),
        "MAT3" => (3, 3),
        "MAT4" => (4, 4),
        _ => return None,
    };
    let column = component.checked_mul(rows)?;
    let column = if columns == 1 {
        column
    } else {
        column.checked_add(pad4(column))?
    };
    column.checked_mul(columns)
}

/// How the meshes, animations and skins use accessors: which are triangle-list
/// indices, which are other indices, which are data.
struct Roles {
    triangles: Vec<bool>,
    other_indices: Vec<bool>,
    data: Vec<bool>,
}

impl Roles {
    fn of(json: &Value) -> Roles {
        let n = list(json, "accessors").len();
        let mut roles = Roles {
            triangles: vec![false; n],
            other_indices: vec![false; n],
            data: vec![false; n],
        };
        let mark = |flags: &mut Vec<bool>, v: Option<&Value>| {
            if let Some(i) = v
                .and_then(Value::as_u64)
                .and_then(|i| usize::try_from(i).ok())
                && let Some(flag) = flags.get_mut(i)
            {
                *flag = true;
            }
        };
        let values = |v: &Value| -> Vec<Value> {
            v.as_object()
                .map(|m| m.values().cloned().collect())
                .unwrap_or_default()
        };
        for mesh in list(json, "meshes") {
            for p in list(mesh, "primitives") {
                let mode = p
                    .get("mode")
                    .and_then(Value::as_u64)
                    .unwrap_or(TRIANGLE_LIST);
                if mode == TRIANGLE_LIST {
                    mark(&mut roles.triangles, p.get("indices"));
                } else {
                    mark(&mut roles.other_indices, p.get("indices"));
                }
                if let Some(attributes) = p.get("attributes") {
                    for v in values(attributes) {
                        mark(&mut roles.data, Some(&v));
                    }
                }
                for target in list(p, "targets") {
                    for v in values(target) {
                        mark(&mut roles.data, Some(&v));
                    }
                }
            }
        }
        for animation in list(json, "animations") {
            for sampler in list(animation, "samplers") {
                mark(&mut roles.data, sampler.get("input"));
                mark(&mut roles.data, sampler.get("output"));
            }
        }
        for skin in list(json, "skins") {
            mark(&mut roles.data, skin.get("inverseBindMatrices"));
        }
        roles
    }

    fn flag(flags: &[bool], i: usize) -> bool {
        flags.get(i).copied().unwrap_or(false)
    }

    /// Used as the indices of a primitive.
    fn indices(&self, i: usize) -> bool {
        Roles::flag(&self.triangles, i) || Roles::flag(&self.other_indices, i)
    }

    /// Used only as the indices of triangle lists.
    fn triangles_only(&self, i: usize) -> bool {
        Roles::flag(&self.triangles, i)
            && !Roles::flag(&self.other_indices, i)
            && !Roles::flag(&self.data, i)
    }
}

/// How view `r` (with `target`, read by `refs`) would be compressed, if at all.
fn plan(r: &Range, target: Option<u64>, refs: &[Ref], roles: &Roles) -> Option<Plan> {
    let first = refs.first()?;
    if r.length == 0 {
        return None;
    }
    let mut index_size = None;
    for x in refs {
        let index = matches!(x.component, UNSIGNED_SHORT | UNSIGNED_INT)
            && x.element == x.component_size
            && x.kind != Kind::SparseValues;
        if !index || index_size.is_some_and(|s| s != x.component_size) {
            index_size = None;
            break;
        }
        index_size = Some(x.component_size);
    }
    let index_view = target == Some(ELEMENT_ARRAY_BUFFER)
        || refs
            .iter()
            .any(|x| x.kind == Kind::Direct && roles.indices(x.accessor))
        || refs.iter().all(|x| x.kind == Kind::SparseIndices);
    if index_view
        && let Some(size) = index_size
        && r.stride.is_none_or(|s| s == size)
        && r.length.is_multiple_of(size)
    {
        let triangle = size.checked_mul(3)?;
        let triangles = r.length.is_multiple_of(triangle)
            && refs.iter().all(|x| {
                x.kind == Kind::Direct
                    && roles.triangles_only(x.accessor)
                    && x.count.is_multiple_of(3)
                    && x.offset.is_multiple_of(triangle)
            });
        let mode = if triangles {
            Mode::Triangles
        } else {
            Mode::Indices
        };
        return Some(Plan { mode, stride: size });
    }
    let stride = r.stride.unwrap_or(first.element);
    (stride.is_multiple_of(4) && (4..=256).contains(&stride) && r.length.is_multiple_of(stride))
        .then_some(Plan {
            mode: Mode::Attributes,
            stride,
        })
}

/// The stream of `bytes` under `plan` (or, for triangles the triangle codec cannot
/// take, as an index sequence), when it is smaller and decodes back.
fn compress(bytes: &[u8], plan: Plan) -> Option<(Plan, Vec<u8>)> {
    if let Some(s) = encode(bytes, plan) {
        return Some((plan, s));
    }
    if plan.mode == Mode::Triangles {
        let plan = Plan {
            mode: Mode::Indices,
            ..plan
        };
        return encode(bytes, plan).map(|s| (plan, s));
    }
    None
}

fn encode(bytes: &[u8], plan: Plan) -> Option<Vec<u8>> {
    let count = bytes.len().checked_div(plan.stride)?;
    let stream = match plan.mode {
        Mode::Attributes => {
            let s = encode_attributes(bytes, plan.stride)?;
            let back = decode_attributes(&s, plan.stride, count)?.ok()?;
            (back == bytes).then_some(s)?
        }
        Mode::Triangles | Mode::Indices => {
            let indices = read_indices(bytes, plan.stride)?;
            let vertices = usize::try_from(*indices.iter().max()?)
                .ok()?
                .checked_add(1)?;
            let s = if plan.mode == Mode::Triangles {
                meshopt::encode_index_buffer(&indices, vertices).ok()?
            } else {
                meshopt::encode_index_sequence(&indices, vertices).ok()?
            };
            let back = decode_indices(&s, plan.mode, plan.stride, count)?.ok()?;
            // Every byte back, or not this codec: the triangle codec may start a
            // triangle at another corner, which the way back to an id format would keep.
            (back == bytes).then_some(s)?
        }
    };
    (!stream.is_empty() && stream.len() < bytes.len()).then_some(stream)
}

/// Little-endian indices of `size` (2 or 4) bytes.
fn read_indices(bytes: &[u8], size: usize) -> Option<Vec<u32>> {
    match size {
        2 => Some(
            bytes
                .as_chunks::<2>()
                .0
                .iter()
                .map(|c| u32::from(u16::from_le_bytes(*c)))
                .collect(),
        ),
        4 => Some(
            bytes
                .as_chunks::<4>()
                .0
                .iter()
                .map(|c| u32::from_le_bytes(*c))
                .collect(),
        ),
        _ => None,
    }
}

/// `count` indices of `size` bytes decoded from `stream` (mode `TRIANGLES` or
/// `INDICES`), as little-endian bytes; `None` for another size.
fn decode_indices(
    stream: &[u8],
    mode: Mode,
    size: usize,
    count: usize,
) -> Option<core::result::Result<Vec<u8>, meshopt::Error>> {
    let triangles = mode == Mode::Triangles;
    Some(match size {
        2 => if triangles {
            meshopt::decode_index_buffer::<u16>(stream, count)
        } else {
            meshopt::decode_index_sequence::<u16>(stream, count)
        }
        .map(|v| v.iter().flat_map(|i| i.to_le_bytes()).collect()),
        4 => if triangles {
            meshopt::decode_index_buffer::<u32>(stream, count)
        } else {
            meshopt::decode_index_sequence::<u32>(stream, count)
        }
        .map(|v| v.iter().flat_map(|i| i.to_le_bytes()).collect()),
        _ => return None,
    })
}

/// One element of `N` bytes: meshoptimizer's vertex codec takes the element size from
/// the type (`[u8; N]` has no `Default` past 32).
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Element<const N: usize>([u8; N]);

impl<const N: usize> Default for Element<N> {
    fn default() -> Self {
        Element([0; N])
    }
}

fn encode_attributes_n<const N: usize>(bytes: &[u8]) -> Option<Vec<u8>> {
    let (elements, rest) = bytes.as_chunks::<N>();
    if !rest.is_empty() {
        return None;
    }
    let elements: Vec<Element<N>> = elements.iter().map(|e| Element(*e)).collect();
    meshopt::encode_vertex_buffer_level(&elements, LEVEL, Some(VERTEX_VERSION)).ok()
}

fn decode_attributes_n<const N: usize>(
    stream: &[u8],
    count: usize,
) -> core::result::Result<Vec<u8>, meshopt::Error> {
    let elements: Vec<Element<N>> = meshopt::decode_vertex_buffer(stream, count)?;
    Ok(elements.iter().flat_map(|e| e.0).collect())
}

/// The attribute codec for each stride it takes (multiples of 4 up to 256).
macro_rules! attribute_codec {
    ($($n:literal)*) => {
        /// `bytes` (elements of `stride` bytes) as an attribute stream, version 0.
        fn encode_attributes(bytes: &[u8], stride: usize) -> Option<Vec<u8>> {
            match stride {
                $($n => encode_attributes_n::<$n>(bytes),)*
                _ => None,
            }
        }

        /// `count` elements of `stride` bytes decoded from an attribute stream; `None`
        /// for a stride the codec does not take.
        fn decode_attributes(
            stream: &[u8],
            stride: usize,
            count: usize,
        ) -> Option<core::result::Result<Vec<u8>, meshopt::Error>> {
            match stride {
                $($n => Some(decode_attributes_n::<$n>(stream, count)),)*
                _ => None,
            }
        }
    };
}

attribute_codec!(
    4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112
    116 120 124 128 132 136 140 144 148 152 156 160 164 168 172 176 180 184 188 192 196 200
    204 208 212 216 220 224 228 232 236 240 244 248 252 256
);

// ---------------------------------------------------------------------------------------
// GLB and JSON.

/// A GLB's JSON and BIN chunk.
struct Glb<'a> {
    json: Value,
    bin: Option<&'a [u8]>,
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

fn read_glb(glb: &[u8]) -> Result<Glb<'_>> {
    if glb.get(..4) != Some(b"glTF".as_slice()) {
        return fail("GLB: the file does not start with glTF".to_owned());
    }
    let (Some(version), Some(length)) = (u32_at(glb, 4), u32_at(glb, 8)) else {
        return fail(format!(
            "GLB: the file's {} bytes are shorter than its 12-byte header",
            glb.len()
        ));
    };
    if version != 2 {
        return fail(format!("GLB: version {version} is not 2"));
    }
    let file = usize::try_from(length)
        .ok()
        .and_then(|n| glb.get(..n))
        .ok_or_else(|| {
            CompressError(format!(
                "GLB: its header's length {length} is past the file's {} bytes",
                glb.len()
            ))
        })?;
    let (kind, mut text, next) = chunk(file, 12)?;
    if kind != JSON_CHUNK {
        return fail("GLB: the first chunk is not JSON".to_owned());
    }
    while let [rest @ .., 0] = text {
        text = rest;
    }
    let json: Value =
        serde_json::from_slice(text).map_err(|e| CompressError(format!("GLB: JSON chunk: {e}")))?;
    if !json.is_object() {
        return fail("GLB: the JSON chunk is not an object".to_owned());
    }
    let bin = if next >= file.len() {
        None
    } else {
        let (kind, data, _) = chunk(file, next)?;
        (kind == BIN_CHUNK).then_some(data)
    };
    Ok(Glb { json, bin })
}

/// The chunk at byte `at` of `file`: its type, its data, and where the next one starts.
fn chunk(file: &[u8], at: usize) -> Result<(u32, &[u8], usize)> {
    let header = at
        .checked_add(4)
        .and_then(|a| Some((u32_at(file, at)?, u32_at(file, a)?)));
    let Some((length, kind)) = header else {
        return fail(format!(
            "GLB: the chunk header at byte {at} is past the end of the file ({} bytes)",
            file.len()
        ));
    };
    let data = usize::try_from(length).ok().and_then(|n| {
        let start = at.checked_add(8)?;
        let end = start.checked_add(n)?;
        Some((file.get(start..end)?, end))
    });
    let Some((data, end)) = data else {
        return fail(format!(
            "GLB: the chunk at byte {at} of {length} bytes is past the end of the file ({} bytes)",
            file.len()
        ));
    };
    Ok((kind, data, end))
}

fn write_glb(json: &Value, bin: &[u8]) -> Result<Vec<u8>> {
    let too_large = |n: usize| CompressError(format!("GLB: {n} bytes are over the format's 4 GiB"));
    let mut text =
        serde_json::to_vec(json).map_err(|e| CompressError(format!("GLB: JSON: {e}")))?;
    text.resize(text.len().saturating_add(pad4(text.len())), b' ');
    let bin_pad = pad4(bin.len());
    let bin_chunk = if bin.is_empty() {
        Some(0)
    } else {
        bin.len()
            .checked_add(bin_pad)
            .and_then(|n| n.checked_add(8))
    };
    let total = bin_chunk
        .and_then(|b| text.len().checked_add(20)?.checked_add(b))
        .ok_or_else(|| too_large(usize::MAX))?;
    let total32 = u32::try_from(total).map_err(|_| too_large(total))?;
    let text32 = u32::try_from(text.len()).map_err(|_| too_large(total))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&total32.to_le_bytes());
    out.extend_from_slice(&text32.to_le_bytes());
    out.extend_from_slice(&JSON_CHUNK.to_le_bytes());
    out.extend_from_slice(&text);
    if !bin.is_empty() {
        let padded = bin.len().saturating_add(bin_pad);
        let bin32 = u32::try_from(padded).map_err(|_| too_large(total))?;
        out.extend_from_slice(&bin32.to_le_bytes());
        out.extend_from_slice(&BIN_CHUNK.to_le_bytes());
        out.extend_from_slice(bin);
        out.resize(out.len().saturating_add(bin_pad), 0);
    }
    Ok(out)
}

/// The bytes that bring `n` to a multiple of 4.
fn pad4(n: usize) -> usize {
    n.wrapping_neg() & 3
}

/// Pads `out` with zeros to the first offset congruent to `offset` modulo 4, and
/// returns it.
fn place(out: &mut Vec<u8>, offset: usize) -> usize {
    let at = out
        .len()
        .saturating_add(pad4(out.len()))
        .saturating_add(offset & 3);
    out.resize(at, 0);
    at
}

fn root_mut(json: &mut Value) -> Result<&mut Map<String, Value>> {
    json.as_object_mut()
        .ok_or_else(|| CompressError("GLB: the JSON chunk is not an object".to_owned()))
}

/// The array `key` of `object`, empty when absent.
fn list<'a>(object: &'a Value, key: &str) -> &'a [Value] {
    object
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The non-negative integer `key` of `object`, `None` when absent.
fn uint(object: &Value, key: &str, at: &str) -> Result<Option<usize>> {
    match object.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| CompressError(format!("{at}: {key} {v} is not a count or index"))),
    }
}

/// The non-negative integer `key` of `object`, required.
fn need(object: &Value, key: &str, at: &str) -> Result<usize> {
    uint(object, key, at)?.ok_or_else(|| CompressError(format!("{at}: no {key}")))
}

/// A view's place in its buffer.
#[derive(Debug, Clone, Copy)]
struct Range {
    buffer: usize,
    offset: usize,
    length: usize,
    stride: Option<usize>,
}

impl Range {
    fn end(&self) -> Option<usize> {
        self.offset.checked_add(self.length)
    }
}

fn range(view: &Value, at: &str) -> Result<Range> {
    Ok(Range {
        buffer: need(view, "buffer", at)?,
        offset: uint(view, "byteOffset", at)?.unwrap_or(0),
        length: need(view, "byteLength", at)?,
        stride: uint(view, "byteStride", at)?,
    })
}

/// The bytes of view `r` in `bin`.
fn slice<'a>(bin: &'a [u8], r: &Range, at: &str) -> Result<&'a [u8]> {
    r.end()
        .and_then(|end| bin.get(r.offset..end))
        .ok_or_else(|| {
            CompressError(format!(
                "{at}: bytes {}..+{} are past the BIN chunk's {} bytes",
                r.offset,
                r.length,
                bin.len()
            ))
        })
}

/// The view's `EXT_meshopt_compression` object.
fn extension(view: &Value) -> Option<&Value> {
    view.get("extensions")?.get(EXT)
}

fn remove_extension(object: &mut Map<String, Value>) {
    let empty = match object.get_mut("extensions").and_then(Value::as_object_mut) {
        Some(e) => {
            e.remove(EXT);
            e.is_empty()
        }
        None => false,
    };
    if empty {
        object.remove("extensions");
    }
}

/// Adds the extension's name to the array `key` of the root (made when missing).
fn add_name(root: &mut Map<String, Value>, key: &str) -> Result<()> {
    let names = root.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    let Some(names) = names.as_array_mut() else {
        return fail(format!("GLB: {key} is not an array"));
    };
    if !names.iter().any(|n| n.as_str() == Some(EXT)) {
        names.push(EXT.into());
    }
    Ok(())
}

/// Removes the extension's name from the array `key` of the root (and the array when
/// it is left empty).
fn remove_name(root: &mut Map<String, Value>, key: &str) {
    let empty = match root.get_mut(key).and_then(Value::as_array_mut) {
        Some(names) => {
            names.retain(|n| n.as_str() != Some(EXT));
            names.is_empty()
        }
        None => false,
    };
    if empty {
        root.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// The GLBs idmodel writes for the samples: plain and quantized.
    fn samples() -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for name in ["sample.md2", "sample.mdl", "sample.md3"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../samples")
                .join(name);
            let (scene, _) = crate::scene(&path, &crate::Options::default()).unwrap();
            for quantize in [false, true] {
                let options = idmodel_gltf::ExportOptions {
                    quantize,
                    ..idmodel_gltf::ExportOptions::default()
                };
                let glb = idmodel_gltf::to_glb(&scene, &options).unwrap();
                out.push((format!("{name} quantize={quantize}"), glb));
            }
        }
        out
    }

    /// A wavy grid of `side × side` vertices with normals, UVs and two morph targets
    /// (`side` > 256: 4-byte indices), as idmodel writes it: large enough for the
    /// triangle codec to win.
    fn grid(side: u32, quantize: bool) -> Vec<u8> {
        use idmodel_scene::{Mesh, MorphTarget, Node, Primitive, Scene};
        let f = |v: u32| v as f32;
        let mut p = Primitive::default();
        for y in 0..side {
            for x in 0..side {
                let h = (f(x) * 0.3).sin() * (f(y) * 0.2).cos();
                p.positions.push([f(x), f(y), h]);
                p.normals.push([-h * 0.3, h * 0.2, 1.0]);
                p.uvs.push([f(x) / f(side), f(y) / f(side)]);
            }
        }
        for y in 0..side - 1 {
            for x in 0..side - 1 {
                let v = y * side + x;
                p.indices
                    .extend([v, v + 1, v + side, v + 1, v + side + 1, v + side]);
            }
        }
        for k in 1..3 {
            let positions = p
                .positions
                .iter()
                .map(|q| [0.0, 0.0, (q[0] * 0.1 * f(k)).sin()])
                .collect();
            p.targets.push(MorphTarget {
                positions,
                normals: Vec::new(),
            });
        }
        let mut node = Node::new("grid");
        node.mesh = Some(0);
        let scene = Scene {
            meshes: vec![Mesh {
                name: "grid".into(),
                primitives: vec![p],
                ..Mesh::default()
            }],
            nodes: vec![node],
            ..Scene::default()
        };
        let options = idmodel_gltf::ExportOptions {
            quantize,
            ..idmodel_gltf::ExportOptions::default()
        };
        idmodel_gltf::to_glb(&scene, &options).unwrap()
    }

    fn parts(glb: &[u8]) -> (Value, Vec<u8>) {
        let g = read_glb(glb).unwrap();
        (g.json, g.bin.unwrap_or_default().to_vec())
    }

    fn view_bytes<'a>(json: &Value, bin: &'a [u8], v: usize) -> (&'a [u8], Option<usize>) {
        let r = range(&json["bufferViews"][v], "test").unwrap();
        assert_eq!(r.buffer, 0, "view {v} is not in the BIN chunk");
        (&bin[r.offset..r.offset + r.length], r.stride)
    }

    /// Each element's bytes of the accessor's data, sparse indices and sparse values.
    fn accessor_data(json: &Value, bin: &[u8], i: usize) -> Vec<Vec<u8>> {
        let refs = accessor_refs(json).unwrap();
        let mut parts = Vec::new();
        for (view, r) in refs.iter().filter(|(_, r)| r.accessor == i) {
            let (bytes, stride) = view_bytes(json, bin, *view);
            let stride = if r.kind == Kind::Direct {
                stride.unwrap_or(r.element)
            } else {
                r.element
            };
            let mut data = Vec::new();
            for k in 0..r.count {
                let at = r.offset + k * stride;
                data.extend_from_slice(&bytes[at..at + r.element]);
            }
            parts.push(data);
        }
        parts
    }

    /// Triangles with each one starting at its smallest index (winding kept).
    fn canonical(bytes: &[u8], size: usize) -> Vec<[u32; 3]> {
        read_indices(bytes, size)
            .unwrap()
            .chunks(3)
            .map(|t| {
                let mut t = [t[0], t[1], t[2]];
                let min = (0..3).min_by_key(|&k| t[k]).unwrap();
                t.rotate_left(min);
                t
            })
            .collect()
    }

    fn assert_same_data(a: &[u8], b: &[u8], what: &str) {
        let (ja, ba) = parts(a);
        let (jb, bb) = parts(b);
        let roles = Roles::of(&ja);
        let accessors = list(&ja, "accessors").len();
        assert_eq!(accessors, list(&jb, "accessors").len());
        for i in 0..accessors {
            let (da, db) = (accessor_data(&ja, &ba, i), accessor_data(&jb, &bb, i));
            if roles.triangles_only(i) {
                let size = component_type(&ja["accessors"][i], "test").unwrap().1;
                assert_eq!(
                    canonical(&da[0], size),
                    canonical(&db[0], size),
                    "{what}: accessor {i}"
                );
            } else {
                assert_eq!(da, db, "{what}: accessor {i}");
            }
        }
        for (i, image) in list(&ja, "images").iter().enumerate() {
            let v = image["bufferView"].as_u64().unwrap() as usize;
            assert_eq!(
                view_bytes(&ja, &ba, v).0,
                view_bytes(&jb, &bb, v).0,
                "{what}: image {i}"
            );
        }
    }

    #[test]
    fn samples_shrink_and_come_back() {
        let mut all = samples();
        all.push(("grid 40×40".to_owned(), grid(40, false)));
        all.push(("grid 40×40 quantize=true".to_owned(), grid(40, true)));
        all.push(("grid 300×300 (4-byte indices)".to_owned(), grid(300, false)));
        for (what, glb) in all {
            let small = meshopt(&glb).unwrap();
            eprintln!("{what}: {} → {} bytes", glb.len(), small.len());
            assert!(small.len() <= glb.len(), "{what}");
            if small == glb {
                assert!(!what.starts_with("grid"), "{what}");
                assert!(matches!(decompress(&small).unwrap(), Cow::Borrowed(_)));
                continue;
            }
            let (json, bin) = parts(&small);
            assert!(list(&json, "extensionsRequired").iter().any(|n| n == EXT));
            let mut modes = Vec::new();
            for view in list(&json, "bufferViews") {
                if let Some(ext) = extension(view) {
                    // Fallback buffer, original fields, stream headers of the versions
                    // three.js r170's decoder (meshoptimizer 0.18) reads.
                    assert_eq!(view["buffer"], 1);
                    let at = ext["byteOffset"].as_u64().unwrap() as usize;
                    let header = bin[at];
                    let mode = ext["mode"].as_str().unwrap();
                    let expected = match mode {
                        "ATTRIBUTES" => 0xa0,
                        "TRIANGLES" => 0xe1,
                        _ => 0xd1,
                    };
                    assert_eq!(header, expected, "{what}: {mode}");
                    assert_eq!(
                        ext["count"].as_u64().unwrap() * ext["byteStride"].as_u64().unwrap(),
                        view["byteLength"].as_u64().unwrap()
                    );
                    modes.push(mode.to_owned());
                }
            }
            assert!(modes.iter().any(|m| m == "ATTRIBUTES"), "{what}: {modes:?}");
            // The samples' few triangles are smaller as an index sequence than as the
            // triangle codec's stream (whose table alone is 16 bytes).
            if what.starts_with("grid") {
                // The indices compressed, by the triangle codec when it gives back every
                // corner in place, else as an exact index sequence; 4-byte indices past
                // 65536 vertices, 2-byte ones below.
                let index_size = if what.contains("300") { 4 } else { 2 };
                assert!(
                    list(&json, "bufferViews").iter().any(|v| {
                        extension(v).is_some_and(|e| {
                            (e["mode"] == "TRIANGLES" || e["mode"] == "INDICES")
                                && e["byteStride"] == index_size
                        })
                    }),
                    "{what}: {modes:?}"
                );
            }
            eprintln!("{what}: {modes:?}");
            assert_eq!(
                json["buffers"][1]["extensions"][EXT]["fallback"],
                Value::Bool(true)
            );
            // Idempotent on a compressed file.
            assert_eq!(meshopt(&small).unwrap(), small);

            let back = decompress(&small).unwrap();
            assert!(matches!(back, Cow::Owned(_)));
            let (json, _) = parts(&back);
            for key in ["extensionsRequired", "extensionsUsed"] {
                assert!(!list(&json, key).iter().any(|n| n == EXT), "{what}");
                assert_eq!(json.get(key).is_some(), what.contains("quantize=true"));
            }
            assert_eq!(list(&json, "buffers").len(), 1);
            assert!(
                list(&json, "bufferViews")
                    .iter()
                    .all(|v| extension(v).is_none())
            );
            assert_same_data(&glb, &back, &what);
            // Plain files come back as they are, borrowed.
            assert!(matches!(decompress(&back).unwrap(), Cow::Borrowed(b) if *b == *back));
            let plain = decompress(&glb).unwrap();
            assert!(matches!(plain, Cow::Borrowed(b) if std::ptr::eq(b, glb.as_slice())));
        }
    }

    #[test]
    fn sparse_indices_and_line_indices_use_the_sequence_codec() {
        // A view of 2-byte indices read only as sparse indices → INDICES; a line list's
        // indices → INDICES, not TRIANGLES.
        let r = Range {
            buffer: 0,
            offset: 0,
            length: 600,
            stride: None,
        };
        let sparse = Ref {
            accessor: 0,
            kind: Kind::SparseIndices,
            offset: 0,
            component: UNSIGNED_SHORT,
            component_size: 2,
            element: 2,
            count: 300,
        };
        let roles = Roles {
            triangles: vec![false],
            other_indices: vec![true],
            data: vec![false],
        };
        let plan_of = |refs: &[Ref], target| plan(&r, target, refs, &roles);
        assert_eq!(
            plan_of(&[sparse], None),
            Some(Plan {
                mode: Mode::Indices,
                stride: 2
            })
        );
        let lines = Ref {
            kind: Kind::Direct,
            ..sparse
        };
        assert_eq!(
            plan_of(&[lines], Some(ELEMENT_ARRAY_BUFFER)).map(|p| p.mode),
            Some(Mode::Indices)
        );
        let bytes: Vec<u8> = (0u16..300).flat_map(|i| i.to_le_bytes()).collect();
        let (p, s) = compress(&bytes, plan_of(&[sparse], None).unwrap()).unwrap();
        assert_eq!(p.mode, Mode::Indices);
        assert_eq!(
            decode_indices(&s, Mode::Indices, 2, 300).unwrap().unwrap(),
            bytes
        );
    }

    #[test]
    fn views_keep_their_offsets_modulo_4() {
        let mut out = vec![0; 5];
        assert_eq!(place(&mut out, 6), 10);
        assert_eq!(out.len(), 10);
        assert_eq!(place(&mut out, 0), 12);
        assert_eq!(place(&mut out, 12), 12);
    }

    /// A GLB of one compressed view of `count` elements of `stride` bytes (`stream`),
    /// with `filter`.
    fn one_view(stream: &[u8], stride: usize, count: usize, filter: &str) -> Vec<u8> {
        let json = json!({
            "asset": { "version": "2.0" },
            "extensionsUsed": [EXT],
            "extensionsRequired": [EXT],
            "buffers": [
                { "byteLength": stream.len() },
                { "byteLength": stride * count, "extensions": { EXT: { "fallback": true } } },
            ],
            "bufferViews": [{
                "buffer": 1, "byteLength": stride * count,
                "extensions": { EXT: {
                    "buffer": 0, "byteOffset": 0, "byteLength": stream.len(),
                    "byteStride": stride, "count": count, "mode": "ATTRIBUTES", "filter": filter,
                }},
            }],
            "accessors": [{ "bufferView": 0, "componentType": 5120, "normalized": true,
                            "type": "VEC4", "count": count }],
        });
        write_glb(&json, stream).unwrap()
    }

    #[test]
    fn octahedral_filter_decodes() {
        let normals: Vec<[f32; 4]> = (0..40)
            .map(|i| {
                let a = i as f32 * 0.3;
                let (s, c) = a.sin_cos();
                [c * 0.6, s * 0.6, 0.8, 0.0]
            })
            .collect();
        let encoded: Vec<[i8; 4]> = meshopt::encode_filter_oct(&normals, 8);
        let stream = meshopt::encode_vertex_buffer_level(&encoded, 2, Some(0)).unwrap();
        let glb = one_view(&stream, 4, normals.len(), "OCTAHEDRAL");
        let back = decompress(&glb).unwrap();
        let (json, bin) = parts(&back);
        let mut expected = encoded.clone();
        meshopt::decode_filter_oct(&mut expected);
        let expected: Vec<u8> = expected.iter().flatten().map(|&b| b as u8).collect();
        let (bytes, _) = view_bytes(&json, &bin, 0);
        assert_eq!(bytes, expected);
        for (k, n) in normals.iter().enumerate() {
            for c in 0..3 {
                assert!((f32::from(bytes[k * 4 + c] as i8) / 127.0 - n[c]).abs() < 0.02);
            }
        }
        // A filter the extension does not define, and one on the wrong stride.
        let e = decompress(&one_view(&stream, 4, normals.len(), "COLOR")).unwrap_err();
        assert_eq!(
            e.message(),
            "bufferView 0: EXT_meshopt_compression filter COLOR is not supported"
        );
        assert!(
            decompress(&one_view(&stream, 4, normals.len(), "QUATERNION"))
                .unwrap_err()
                .message()
                .contains("does not apply to byteStride 4")
        );
    }

    #[test]
    fn hostile_files_fail_cleanly() {
        for glb in [samples().swap_remove(0).1, grid(12, false)] {
            hostile(&glb);
        }
    }

    fn hostile(glb: &[u8]) {
        let small = meshopt(glb).unwrap();
        assert_ne!(small, glb);
        // Truncated anywhere.
        for n in (0..small.len()).step_by(7).chain([0, 11, 12, 19, 20]) {
            assert!(decompress(&small[..n]).is_err(), "{n}");
        }
        // Every byte of the BIN chunk corrupted, a few at a time: an error or a file,
        // never a panic (meshoptimizer's decoders take untrusted input).
        let (json, bin) = parts(&small);
        let bin_at = small.len() - bin.len().next_multiple_of(4);
        for at in (bin_at..small.len()).step_by(3) {
            let mut bad = small.clone();
            bad[at] ^= 0x5a;
            let _ = decompress(&bad);
        }
        // JSON edits.
        let compressed = list(&json, "bufferViews")
            .iter()
            .position(|v| extension(v).is_some())
            .unwrap();
        let edit = |f: &dyn Fn(&mut Value)| {
            let mut j = json.clone();
            f(&mut j["bufferViews"][compressed]["extensions"][EXT]);
            decompress(&write_glb(&j, &bin).unwrap())
                .map(|_| ())
                .unwrap_err()
        };
        let length = json["bufferViews"][compressed]["byteLength"]
            .as_u64()
            .unwrap();
        let e = edit(&|x| x["count"] = json!(12));
        assert_eq!(
            e.message(),
            format!(
                "bufferView {compressed}: EXT_meshopt_compression count 12 × stride {} is not its byteLength {length}",
                json["bufferViews"][compressed]["extensions"][EXT]["byteStride"]
            )
        );
        for (key, value) in [
            ("byteStride", json!(0)),
            ("byteStride", json!(258)),
            ("byteStride", json!(-4)),
            ("byteStride", json!(1u64 << 62)),
            ("count", json!(u64::MAX)),
            ("byteOffset", json!(u64::MAX)),
            ("byteLength", json!(1u64 << 40)),
            ("buffer", json!(1)),
            ("buffer", json!(7)),
            ("mode", json!("STRIPS")),
            ("mode", json!(3)),
            ("filter", json!("EXPONENTIAL_PLUS")),
        ] {
            let e = edit(&|x| x[key] = value.clone());
            assert!(!e.message().contains('\n'), "{e}");
            assert!(e.message().starts_with("bufferView"), "{key}: {e}");
        }
        // A view claiming far more data than the file could hold.
        let mut j = json.clone();
        let huge = 1u64 << 40;
        j["bufferViews"][compressed]["byteLength"] = json!(huge);
        j["bufferViews"][compressed]["extensions"][EXT]["count"] = json!(huge / 4);
        j["bufferViews"][compressed]["extensions"][EXT]["byteStride"] = json!(4);
        j["bufferViews"][compressed]["extensions"][EXT]["mode"] = json!("ATTRIBUTES");
        let e = decompress(&write_glb(&j, &bin).unwrap()).unwrap_err();
        assert!(e.message().contains("the bound for a"), "{e}");
        // Not a GLB, or a GLB whose JSON is not an object.
        assert!(decompress(b"glTF").is_err());
        assert!(meshopt(b"").is_err());
        assert!(decompress(&write_glb(&json!([1]), &[]).unwrap()).is_err());
    }
}
