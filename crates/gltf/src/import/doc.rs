//! The container (GLB or JSON), the JSON accessors, buffers and the decoding budget.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use serde_json::Value;

use super::{ImportError, Resolver};

type Result<T> = core::result::Result<T, ImportError>;

/// Shorthand for building an [`ImportError::Invalid`].
macro_rules! bad {
    ($($arg:tt)*) => {
        $crate::import::ImportError::Invalid(alloc::format!($($arg)*))
    };
}
pub(crate) use bad;

const GLB_MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// The two chunks of a GLB file.
pub(crate) fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    let word = |at: usize| -> Result<u32> {
        let b = at
            .checked_add(4)
            .and_then(|end| bytes.get(at..end))
            .ok_or_else(|| bad!("GLB truncated at byte {at} (file of {} bytes)", bytes.len()))?;
        let mut w = [0u8; 4];
        w.copy_from_slice(b);
        Ok(u32::from_le_bytes(w))
    };
    if word(0)? != GLB_MAGIC {
        return Err(bad!("not a GLB file: bad magic at byte 0"));
    }
    let version = word(4)?;
    if version != 2 {
        return Err(bad!(
            "GLB version {version} at byte 4; only version 2 is read"
        ));
    }
    let total = usize::try_from(word(8)?).unwrap_or(usize::MAX);
    let data = bytes.get(..total).ok_or_else(|| {
        bad!(
            "GLB header at byte 8 declares {total} bytes, the file has {}",
            bytes.len()
        )
    })?;
    let chunk = |at: usize| -> Result<(u32, &[u8], usize)> {
        let len = usize::try_from(word(at)?).unwrap_or(usize::MAX);
        let kind = word(at.saturating_add(4))?;
        let start = at.saturating_add(8);
        let end = start.checked_add(len).filter(|&e| e <= data.len());
        let body = end
            .and_then(|e| data.get(start..e))
            .ok_or_else(|| bad!("GLB chunk at byte {at}: {len} bytes past the end of the file"))?;
        Ok((kind, body, start.saturating_add(len)))
    };
    let (kind, json, next) = chunk(12)?;
    if kind != CHUNK_JSON {
        return Err(bad!("GLB chunk at byte 12 is not JSON"));
    }
    // Chunks start on 4-byte boundaries; the BIN chunk, when present, is the second.
    let next = next.saturating_add(3) & !3;
    let bin = if next.saturating_add(8) <= data.len() {
        let (kind, body, _) = chunk(next)?;
        (kind == CHUNK_BIN).then_some(body)
    } else {
        None
    };
    Ok((json, bin))
}

/// A budget of decoded bytes: every allocation sized by the file is charged first.
#[derive(Debug)]
pub(crate) struct Budget {
    pub(crate) limit: u64,
    pub(crate) used: u64,
}

impl Budget {
    /// Charges `bytes` for `what`, or refuses.
    pub(crate) fn charge(&mut self, bytes: u64, what: &dyn core::fmt::Display) -> Result<()> {
        let need = self.used.saturating_add(bytes);
        if need > self.limit {
            return Err(ImportError::OverBudget {
                what: alloc::format!("{what}"),
                need,
                limit: self.limit,
            });
        }
        self.used = need;
        Ok(())
    }

    /// Charges `count × size` bytes.
    pub(crate) fn charge_n(
        &mut self,
        count: usize,
        size: usize,
        what: &dyn core::fmt::Display,
    ) -> Result<()> {
        let n = u64::try_from(count.saturating_mul(size)).unwrap_or(u64::MAX);
        self.charge(n, what)
    }
}

/// The parsed document with its resolved buffers.
pub(crate) struct Doc<'a> {
    pub(crate) root: Value,
    pub(crate) buffers: Vec<alloc::borrow::Cow<'a, [u8]>>,
    pub(crate) budget: Budget,
}

/// `root[key]` as an array (empty when absent).
pub(crate) fn list<'v>(v: &'v Value, key: &str) -> Result<&'v [Value]> {
    match v.get(key) {
        None => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(bad!("\"{key}\" is not an array")),
    }
}

/// `v[key]` as a non-negative integer index, if present.
pub(crate) fn index(v: &Value, key: &str, what: &dyn core::fmt::Display) -> Result<Option<usize>> {
    match v.get(key) {
        None => Ok(None),
        Some(n) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| bad!("{what}: \"{key}\" is not a non-negative integer")),
    }
}

/// `v[key]` as a required index.
pub(crate) fn need_index(v: &Value, key: &str, what: &dyn core::fmt::Display) -> Result<usize> {
    index(v, key, what)?.ok_or_else(|| bad!("{what}: no \"{key}\""))
}

/// `v[key]` as a string ("" when absent).
pub(crate) fn string(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_default()
}

/// `v[key]` as `N` finite floats, or `default` when absent.
pub(crate) fn floats<const N: usize>(
    v: &Value,
    key: &str,
    default: [f32; N],
    what: &dyn core::fmt::Display,
) -> Result<[f32; N]> {
    let Some(a) = v.get(key) else {
        return Ok(default);
    };
    let items = a
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| bad!("{what}: \"{key}\" is not {N} numbers"))?;
    let mut out = [0.0f32; N];
    for (o, x) in out.iter_mut().zip(items) {
        *o = x
            .as_f64()
            .map(narrow)
            .filter(|f| f.is_finite())
            .ok_or_else(|| bad!("{what}: \"{key}\" holds a non-number or non-finite value"))?;
    }
    Ok(out)
}

/// `v[key]` as a finite float, if present.
pub(crate) fn float(v: &Value, key: &str, what: &dyn core::fmt::Display) -> Result<Option<f32>> {
    match v.get(key) {
        None => Ok(None),
        Some(n) => n
            .as_f64()
            .map(narrow)
            .filter(|f| f.is_finite())
            .map(Some)
            .ok_or_else(|| bad!("{what}: \"{key}\" is not a finite number")),
    }
}

/// f64 → f32, the nearest value.
pub(crate) fn narrow(x: f64) -> f32 {
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    // Rounding to the nearest f32 is what is wanted; the cast cannot panic.
    let y = x as f32;
    y
}

/// Decodes standard base64 (padding optional), or `None` on a bad character.
pub(crate) fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity((text.len() / 4).saturating_mul(3).saturating_add(3));
    let mut acc = 0u32;
    let mut bits = 0u32;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c.wrapping_sub(b'A'),
            b'a'..=b'z' => c.wrapping_sub(b'a').wrapping_add(26),
            b'0'..=b'9' => c.wrapping_sub(b'0').wrapping_add(52),
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b'\r' | b'\n' | b' ' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits = bits.wrapping_add(6);
        if bits >= 8 {
            bits = bits.wrapping_sub(8);
            out.push(u8::try_from((acc >> bits) & 0xFF).unwrap_or(0));
        }
    }
    Some(out)
}

/// The bytes of a `data:` URI (base64 only), with its MIME type.
pub(crate) fn data_uri(uri: &str) -> Option<(&str, Option<Vec<u8>>)> {
    let rest = uri.strip_prefix("data:")?;
    let (head, body) = rest.split_once(',')?;
    let mime = head.split(';').next().unwrap_or("");
    if head.ends_with(";base64") {
        Some((mime, base64(body)))
    } else {
        Some((mime, None))
    }
}

impl<'a> Doc<'a> {
    /// Parses the JSON and resolves the buffers.
    pub(crate) fn new(
        json: &[u8],
        bin: Option<&'a [u8]>,
        resolve: &mut Resolver<'_>,
        budget: Budget,
    ) -> Result<Self> {
        let root: Value = serde_json::from_slice(json).map_err(|e| {
            bad!(
                "JSON line {} column {}: {}",
                e.line(),
                e.column(),
                strip_position(&e.to_string())
            )
        })?;
        if !root.is_object() {
            return Err(bad!("the JSON document is not an object"));
        }
        let version = root
            .get("asset")
            .and_then(|a| a.get("version"))
            .and_then(Value::as_str)
            .unwrap_or("");
        if !version.starts_with("2.") {
            return Err(bad!("asset.version is {version:?}; only glTF 2.x is read"));
        }
        let mut doc = Doc {
            root,
            buffers: Vec::new(),
            budget,
        };
        let n = list(&doc.root, "buffers")?.len();
        let mut buffers = Vec::with_capacity(n.min(1024));
        for bi in 0..n {
            let b = list(&doc.root, "buffers")?
                .get(bi)
                .cloned()
                .unwrap_or_default();
            let what = alloc::format!("buffer {bi}");
            let len = need_index(&b, "byteLength", &what)?;
            let data: alloc::borrow::Cow<'a, [u8]> = match b.get("uri").and_then(Value::as_str) {
                None => match (bi, bin) {
                    (0, Some(bin)) => alloc::borrow::Cow::Borrowed(bin),
                    _ => return Err(bad!("{what}: no uri and no GLB binary chunk")),
                },
                Some(uri) => match data_uri(uri) {
                    Some((_, Some(bytes))) => alloc::borrow::Cow::Owned(bytes),
                    Some((_, None)) => {
                        return Err(bad!("{what}: a data URI that is not base64"));
                    }
                    None => {
                        let bytes = resolve(uri).ok_or_else(|| {
                            ImportError::Unsupported(alloc::format!(
                                "{what}: {uri:?} is not available (the caller gave no such file)"
                            ))
                        })?;
                        alloc::borrow::Cow::Owned(bytes)
                    }
                },
            };
            if data.len() < len {
                return Err(bad!(
                    "{what}: byteLength {len} but only {} bytes",
                    data.len()
                ));
            }
            buffers.push(data);
        }
        doc.buffers = buffers;
        Ok(doc)
    }

    /// `root[key][i]`, or an error naming it.
    pub(crate) fn item(&self, key: &str, i: usize) -> Result<&Value> {
        list(&self.root, key)?
            .get(i)
            .ok_or_else(|| bad!("{key} {i} does not exist"))
    }

    /// The bytes of buffer view `vi`: `(bytes, byteStride)`.
    pub(crate) fn view(&self, vi: usize) -> Result<(&[u8], Option<usize>)> {
        let v = self.item("bufferViews", vi)?;
        let what = alloc::format!("bufferView {vi}");
        let b = need_index(v, "buffer", &what)?;
        let buf = self
            .buffers
            .get(b)
            .ok_or_else(|| bad!("{what}: buffer {b} does not exist"))?;
        let off = index(v, "byteOffset", &what)?.unwrap_or(0);
        let len = need_index(v, "byteLength", &what)?;
        let bytes = off
            .checked_add(len)
            .and_then(|end| buf.get(off..end))
            .ok_or_else(|| {
                bad!(
                    "{what}: bytes {off}..+{len} outside buffer {b} of {} bytes",
                    buf.len()
                )
            })?;
        let stride = index(v, "byteStride", &what)?;
        Ok((bytes, stride))
    }
}

/// serde_json's message without its trailing " at line L column C".
fn strip_position(msg: &str) -> &str {
    msg.rsplit_once(" at line ").map_or(msg, |(m, _)| m)
}

/// The component types of glTF accessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Component {
    I8,
    U8,
    I16,
    U16,
    U32,
    F32,
}

impl Component {
    fn of(code: u64) -> Option<Self> {
        Some(match code {
            5120 => Self::I8,
            5121 => Self::U8,
            5122 => Self::I16,
            5123 => Self::U16,
            5125 => Self::U32,
            5126 => Self::F32,
            _ => return None,
        })
    }

    const fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::U32 | Self::F32 => 4,
        }
    }

    /// Component `k` of `bytes` as a float (normalised integers to [0, 1] or [−1, 1]).
    fn float(self, bytes: &[u8], normalized: bool) -> f32 {
        let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
        match self {
            Self::F32 => f32::from_le_bytes([b(0), b(1), b(2), b(3)]),
            Self::U32 => narrow(f64::from(u32::from_le_bytes([b(0), b(1), b(2), b(3)]))),
            Self::I8 => {
                let v = f32::from(i8::from_le_bytes([b(0)]));
                if normalized { (v / 127.0).max(-1.0) } else { v }
            }
            Self::U8 => {
                let v = f32::from(b(0));
                if normalized { v / 255.0 } else { v }
            }
            Self::I16 => {
                let v = f32::from(i16::from_le_bytes([b(0), b(1)]));
                if normalized {
                    (v / 32767.0).max(-1.0)
                } else {
                    v
                }
            }
            Self::U16 => {
                let v = f32::from(u16::from_le_bytes([b(0), b(1)]));
                if normalized { v / 65535.0 } else { v }
            }
        }
    }

    /// Component of `bytes` as an unsigned integer (`None` for floats and signed types).
    fn uint(self, bytes: &[u8]) -> Option<u32> {
        let b = |i: usize| bytes.get(i).copied().unwrap_or(0);
        match self {
            Self::U8 => Some(u32::from(b(0))),
            Self::U16 => Some(u32::from(u16::from_le_bytes([b(0), b(1)]))),
            Self::U32 => Some(u32::from_le_bytes([b(0), b(1), b(2), b(3)])),
            _ => None,
        }
    }
}

/// A sparse scalar accessor: its count and its `(element, value)` entries.
pub(crate) type SparseScalars = (usize, Vec<(usize, f32)>);

/// An accessor's header.
pub(crate) struct Accessor {
    pub(crate) what: String,
    pub(crate) count: usize,
    pub(crate) comps: usize,
    component: Component,
    normalized: bool,
    view: Option<usize>,
    offset: usize,
    sparse: Option<Value>,
}

impl Accessor {
    /// Whether this accessor has no base buffer view (all zeros but its sparse entries, if
    /// any): the form the exporter writes for sparse morph weights.
    pub(crate) fn sparse_only(&self) -> bool {
        self.view.is_none()
    }
}

fn comps_of(ty: &str) -> Option<usize> {
    Some(match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" | "MAT2" => 4,
        "MAT3" => 9,
        "MAT4" => 16,
        _ => return None,
    })
}

impl Doc<'_> {
    pub(crate) fn accessor(&self, ai: usize, what: &str) -> Result<Accessor> {
        let a = self.item("accessors", ai)?;
        let name = alloc::format!("{what} (accessor {ai})");
        let count = need_index(a, "count", &name)?;
        let ty = a.get("type").and_then(Value::as_str).unwrap_or("");
        let comps = comps_of(ty).ok_or_else(|| bad!("{name}: type {ty:?}"))?;
        let code = a.get("componentType").and_then(Value::as_u64).unwrap_or(0);
        let component = Component::of(code).ok_or_else(|| bad!("{name}: componentType {code}"))?;
        if comps > 4 && component != Component::F32 {
            return Err(ImportError::Unsupported(alloc::format!(
                "{name}: integer matrices are not read"
            )));
        }
        Ok(Accessor {
            what: name.clone(),
            count,
            comps,
            component,
            normalized: a
                .get("normalized")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            view: index(a, "bufferView", &name)?,
            offset: index(a, "byteOffset", &name)?.unwrap_or(0),
            sparse: a.get("sparse").cloned(),
        })
    }

    /// The bytes of element 0 of an accessor and the stride, checked so that `count`
    /// elements lie inside the buffer view (before anything is allocated).
    fn elements<'s>(&'s self, acc: &Accessor) -> Result<Option<(&'s [u8], usize, usize)>> {
        let Some(vi) = acc.view else {
            return Ok(None);
        };
        let (bytes, stride) = self.view(vi)?;
        let elem = acc.component.size().saturating_mul(acc.comps);
        let stride = stride.unwrap_or(elem);
        if stride < elem {
            return Err(bad!(
                "{}: byteStride {stride} is less than the element size {elem}",
                acc.what
            ));
        }
        if acc.count > 0 {
            let need = acc
                .count
                .checked_sub(1)
                .and_then(|n| n.checked_mul(stride))
                .and_then(|n| n.checked_add(elem))
                .and_then(|n| n.checked_add(acc.offset));
            if need.is_none_or(|n| n > bytes.len()) {
                return Err(bad!(
                    "{}: {} elements of {elem} bytes (stride {stride}) from byte {} do not fit bufferView {vi} of {} bytes",
                    acc.what,
                    acc.count,
                    acc.offset,
                    bytes.len()
                ));
            }
        }
        let data = bytes.get(acc.offset..).unwrap_or(&[]);
        Ok(Some((data, stride, elem)))
    }

    /// The sparse entries: `(indices, values as flat floats or ints)`, checked.
    fn sparse_parts(&self, acc: &Accessor) -> Result<Option<(Accessor, Accessor)>> {
        let Some(s) = &acc.sparse else {
            return Ok(None);
        };
        let what = alloc::format!("{} sparse", acc.what);
        let count = need_index(s, "count", &what)?;
        let ind = s.get("indices").ok_or_else(|| bad!("{what}: no indices"))?;
        let val = s.get("values").ok_or_else(|| bad!("{what}: no values"))?;
        let code = ind
            .get("componentType")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let component = Component::of(code)
            .filter(|c| matches!(c, Component::U8 | Component::U16 | Component::U32))
            .ok_or_else(|| bad!("{what}: index componentType {code}"))?;
        let indices = Accessor {
            what: alloc::format!("{what} indices"),
            count,
            comps: 1,
            component,
            normalized: false,
            view: Some(need_index(ind, "bufferView", &what)?),
            offset: index(ind, "byteOffset", &what)?.unwrap_or(0),
            sparse: None,
        };
        let values = Accessor {
            what: alloc::format!("{what} values"),
            count,
            comps: acc.comps,
            component: acc.component,
            normalized: acc.normalized,
            view: Some(need_index(val, "bufferView", &what)?),
            offset: index(val, "byteOffset", &what)?.unwrap_or(0),
            sparse: None,
        };
        Ok(Some((indices, values)))
    }

    /// The sparse entries of a sparse accessor as `(element index, flat values)`, with
    /// indices strictly increasing and below `count`.
    pub(crate) fn sparse_entries(&mut self, acc: &Accessor) -> Result<Vec<(usize, Vec<f32>)>> {
        let Some((ind, val)) = self.sparse_parts(acc)? else {
            return Ok(Vec::new());
        };
        let idx = self.uints_plain(&ind)?;
        let vals = self.floats_plain(&val)?;
        self.budget.charge_n(idx.len(), 32, &acc.what)?;
        let mut out = Vec::with_capacity(idx.len());
        let mut last: Option<u32> = None;
        for (k, &i) in idx.iter().enumerate() {
            if last.is_some_and(|l| l >= i) {
                return Err(bad!(
                    "{}: sparse index {k} ({i}) is not increasing",
                    acc.what
                ));
            }
            last = Some(i);
            let i = usize::try_from(i).unwrap_or(usize::MAX);
            if i >= acc.count {
                return Err(bad!(
                    "{}: sparse index {k} is {i}, past the {} elements",
                    acc.what,
                    acc.count
                ));
            }
            let start = k.saturating_mul(acc.comps);
            let v = vals
                .get(start..start.saturating_add(acc.comps))
                .map(<[f32]>::to_vec)
                .unwrap_or_default();
            out.push((i, v));
        }
        Ok(out)
    }

    fn floats_plain(&mut self, acc: &Accessor) -> Result<Vec<f32>> {
        self.plain(acc, |b| Ok(acc.component.float(b, acc.normalized)))
    }

    fn uints_plain(&mut self, acc: &Accessor) -> Result<Vec<u32>> {
        self.plain(acc, |b| {
            acc.component
                .uint(b)
                .ok_or_else(|| bad!("{}: not an unsigned integer accessor", acc.what))
        })
    }

    /// Every component of every element of `acc` (sparse entries not applied), each read
    /// by `read` from the bytes it starts at; zeros (`T::default()`) without a buffer view.
    fn plain<T: Default + Clone>(
        &mut self,
        acc: &Accessor,
        read: impl Fn(&[u8]) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = acc.count.saturating_mul(acc.comps);
        // Checked against the buffer view first, charged, then read.
        self.elements(acc)?;
        self.budget.charge_n(n, 4, &acc.what)?;
        let placed = self.elements(acc)?;
        let mut out = Vec::with_capacity(n);
        match placed {
            None => out.resize(n, T::default()),
            Some((data, stride, _)) => {
                let size = acc.component.size();
                for e in 0..acc.count {
                    let base = e.saturating_mul(stride);
                    for c in 0..acc.comps {
                        let at = base.saturating_add(c.saturating_mul(size));
                        out.push(read(data.get(at..).unwrap_or(&[]))?);
                    }
                }
            }
        }
        Ok(out)
    }

    /// Accessor `ai` (for `what`), refused unless it has `comps` components per element.
    fn accessor_of(&self, ai: usize, what: &str, comps: usize) -> Result<Accessor> {
        let acc = self.accessor(ai, what)?;
        if acc.comps != comps {
            return Err(bad!(
                "{}: {} components where {comps} are needed",
                acc.what,
                acc.comps
            ));
        }
        Ok(acc)
    }

    /// Every element as `N` floats (sparse entries applied).
    pub(crate) fn read_f32<const N: usize>(
        &mut self,
        ai: usize,
        what: &str,
    ) -> Result<Vec<[f32; N]>> {
        let acc = self.accessor_of(ai, what, N)?;
        let flat = self.floats_plain(&acc)?;
        let mut out: Vec<[f32; N]> = flat
            .chunks_exact(N)
            .map(|c| {
                let mut a = [0.0f32; N];
                a.copy_from_slice(c);
                a
            })
            .collect();
        for (i, v) in self.sparse_entries(&acc)? {
            if let Some(slot) = out.get_mut(i) {
                slot.copy_from_slice(v.get(..N).unwrap_or(&[0.0; N]));
            }
        }
        if out.iter().flatten().any(|f| !f.is_finite()) {
            return Err(bad!("{}: a non-finite value", acc.what));
        }
        Ok(out)
    }

    /// Every element as unsigned integers, `comps` per element (sparse entries applied).
    pub(crate) fn read_u32(&mut self, ai: usize, what: &str, comps: usize) -> Result<Vec<u32>> {
        let acc = self.accessor_of(ai, what, comps)?;
        let mut out = self.uints_plain(&acc)?;
        if let Some((ind, val)) = self.sparse_parts(&acc)? {
            let idx = self.uints_plain(&ind)?;
            let vals = self.uints_plain(&val)?;
            for (k, &i) in idx.iter().enumerate() {
                let i = usize::try_from(i).unwrap_or(usize::MAX);
                if i >= acc.count {
                    return Err(bad!("{}: sparse index {k} is {i}, past the end", acc.what));
                }
                let dst = i.saturating_mul(comps);
                let src = k.saturating_mul(comps);
                for c in 0..comps {
                    if let (Some(d), Some(&s)) = (
                        out.get_mut(dst.saturating_add(c)),
                        vals.get(src.saturating_add(c)),
                    ) {
                        *d = s;
                    }
                }
            }
        }
        Ok(out)
    }

    /// A sparse float SCALAR accessor without a buffer view, as its count and non-zero
    /// entries (what the exporter writes for sparse morph weights), or `None` when the
    /// accessor has another form.
    pub(crate) fn read_sparse_scalars(
        &mut self,
        ai: usize,
        what: &str,
    ) -> Result<Option<SparseScalars>> {
        let acc = self.accessor(ai, what)?;
        if !acc.sparse_only() || acc.comps != 1 {
            return Ok(None);
        }
        let entries = self.sparse_entries(&acc)?;
        let mut out = Vec::with_capacity(entries.len());
        for (i, v) in entries {
            let w = v.first().copied().unwrap_or(0.0);
            if !w.is_finite() {
                return Err(bad!("{}: a non-finite value", acc.what));
            }
            out.push((i, w));
        }
        Ok(Some((acc.count, out)))
    }

    /// Every element as flat floats with the accessor's component count (sparse applied).
    pub(crate) fn read_flat(&mut self, ai: usize, what: &str) -> Result<(usize, Vec<f32>)> {
        let acc = self.accessor(ai, what)?;
        let mut flat = self.floats_plain(&acc)?;
        for (i, v) in self.sparse_entries(&acc)? {
            let at = i.saturating_mul(acc.comps);
            if let Some(dst) = flat.get_mut(at..at.saturating_add(acc.comps)) {
                for (d, s) in dst.iter_mut().zip(v) {
                    *d = s;
                }
            }
        }
        if flat.iter().any(|f| !f.is_finite()) {
            return Err(bad!("{}: a non-finite value", acc.what));
        }
        Ok((acc.comps, flat))
    }

    /// The element count of accessor `ai`.
    pub(crate) fn count(&self, ai: usize, what: &str) -> Result<usize> {
        Ok(self.accessor(ai, what)?.count)
    }
}

/// `vec![value; n]` after charging the budget.
pub(crate) fn filled<T: Clone>(
    budget: &mut Budget,
    n: usize,
    value: T,
    what: &dyn core::fmt::Display,
) -> Result<Vec<T>> {
    budget.charge_n(n, core::mem::size_of::<T>(), what)?;
    Ok(vec![value; n])
}
