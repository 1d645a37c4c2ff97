//! IR → glTF JSON + binary buffer, and the two containers (`.glb`, `.gltf` + `.bin`).

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use serde_json::{Map, Value, json};

use crate::error::invalid;
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

/// Writes `scene` as one binary glTF (`.glb`): JSON chunk, then a BIN chunk holding every
/// buffer view, embedded PNG images included. Both chunks are padded to 4 bytes (JSON
/// with spaces, BIN with zeros) as the GLB container requires.
pub fn to_glb(scene: &Scene, options: &ExportOptions) -> Result<Vec<u8>> {
    let (doc, bin, _) = build(scene, options, None)?;
    let mut json = serde_json::to_vec(&doc).map_err(|e| ExportError::Image(e.to_string()))?;
    pad_to_4(&mut json, b' ');
    let mut bin = bin;
    bin.reserve_exact(3); // the padding, without a doubling of the buffer
    pad_to_4(&mut bin, 0);
    let chunk_header = 8usize;
    let mut total = 12usize
        .checked_add(chunk_header)
        .and_then(|n| n.checked_add(json.len()))
        .ok_or(ExportError::TooLarge("the GLB file"))?;
    if !bin.is_empty() {
        total = total
            .checked_add(chunk_header)
            .and_then(|n| n.checked_add(bin.len()))
            .ok_or(ExportError::TooLarge("the GLB file"))?;
    }
    let total32 = u32_len(total, "the GLB file")?;
    // Everything before the BIN chunk's data; it is put in front of `bin` in place, so
    // the export never holds two copies of the buffer (the peak memory bound).
    let mut head = Vec::with_capacity(total.saturating_sub(bin.len()));
    head.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    head.extend_from_slice(&2u32.to_le_bytes());
    head.extend_from_slice(&total32.to_le_bytes());
    head.extend_from_slice(&u32_len(json.len(), "the JSON chunk")?.to_le_bytes());
    head.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    head.extend_from_slice(&json);
    drop(json);
    if bin.is_empty() {
        return Ok(head);
    }
    head.extend_from_slice(&u32_len(bin.len(), "the BIN chunk")?.to_le_bytes());
    head.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    let mut out = bin;
    out.reserve_exact(head.len());
    out.splice(0..0, head);
    Ok(out)
}

/// Writes `scene` as a `.gltf` JSON document whose single buffer is the file `bin_uri`
/// (a relative URI such as `"model.bin"`); the images are files of their own beside it
/// ([`GltfFiles::images`]: PNG, or the PNG/JPEG bytes of an `Image::Encoded` unchanged).
pub fn to_gltf(scene: &Scene, options: &ExportOptions, bin_uri: &str) -> Result<GltfFiles> {
    let (doc, mut bin, images) = build(scene, options, Some(bin_uri))?;
    let json = serde_json::to_vec_pretty(&doc).map_err(|e| ExportError::Image(e.to_string()))?;
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

fn num(f: f32) -> Value {
    Value::from(f64::from(f))
}

fn nums(v: &[f32]) -> Value {
    Value::Array(v.iter().copied().map(num).collect())
}

/// The binary buffer, its views and accessors as they are built.
struct Buffers {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
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
            self.bin.reserve_exact(need.max(self.bin.len() / 8));
        }
        pad_to_4(&mut self.bin, 0);
        self.bin.len()
    }

    /// Records the bytes appended since `offset` as a buffer view; returns its index.
    fn end_view(&mut self, offset: usize, target: Option<u32>) -> Result<usize> {
        u32_len(self.bin.len(), "the binary buffer")?;
        let mut v = Map::new();
        v.insert("buffer".into(), 0.into());
        if offset != 0 {
            v.insert("byteOffset".into(), offset.into());
        }
        v.insert(
            "byteLength".into(),
            self.bin.len().saturating_sub(offset).into(),
        );
        if let Some(t) = target {
            v.insert("target".into(), t.into());
        }
        self.views.push(Value::Object(v));
        Ok(self.views.len().saturating_sub(1))
    }

    fn accessor(&mut self, mut a: Map<String, Value>, view: usize) -> usize {
        a.insert("bufferView".into(), view.into());
        self.accessors.push(Value::Object(a));
        self.accessors.len().saturating_sub(1)
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
        let ty = match N {
            1 => "SCALAR",
            2 => "VEC2",
            3 => "VEC3",
            4 => "VEC4",
            _ => "MAT4",
        };
        let mut a = Map::new();
        a.insert("componentType".into(), FLOAT.into());
        a.insert("count".into(), data.len().into());
        a.insert("type".into(), ty.into());
        if min_max {
            let mut min = [f32::INFINITY; N];
            let mut max = [f32::NEG_INFINITY; N];
            for v in data {
                for ((lo, hi), x) in min.iter_mut().zip(max.iter_mut()).zip(v) {
                    *lo = lo.min(*x);
                    *hi = hi.max(*x);
                }
            }
            a.insert("min".into(), nums(&min));
            a.insert("max".into(), nums(&max));
        }
        Ok(self.accessor(a, view))
    }

    /// A float SCALAR accessor of `count` elements, all 0 except `values[i]` at
    /// `indices[i]` (strictly increasing): a glTF sparse accessor without a buffer view,
    /// so its size is linear in the non-zero values, not in `count`.
    fn sparse_scalars(&mut self, count: usize, indices: &[u32], values: &[f32]) -> Result<usize> {
        let mut a = Map::new();
        a.insert("componentType".into(), FLOAT.into());
        a.insert("count".into(), count.into());
        a.insert("type".into(), "SCALAR".into());
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
            a.insert(
                "sparse".into(),
                json!({
                    "count": indices.len(),
                    "indices": {
                        "bufferView": index_view,
                        "componentType": if small { UNSIGNED_SHORT } else { UNSIGNED_INT },
                    },
                    "values": {"bufferView": value_view},
                }),
            );
        }
        self.accessors.push(Value::Object(a));
        Ok(self.accessors.len().saturating_sub(1))
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
        let mut a = Map::new();
        a.insert(
            "componentType".into(),
            if small { UNSIGNED_SHORT } else { UNSIGNED_INT }.into(),
        );
        a.insert("count".into(), data.len().into());
        a.insert("type".into(), "SCALAR".into());
        Ok(self.accessor(a, view))
    }

    /// A `JOINTS_n` accessor: unsigned short VEC4.
    fn joints(&mut self, data: &[[u16; 4]]) -> Result<usize> {
        let mut bytes = Vec::with_capacity(data.len().saturating_mul(8));
        for j in data.iter().flatten() {
            bytes.extend_from_slice(&j.to_le_bytes());
        }
        let view = self.view(&bytes, Some(ARRAY_BUFFER))?;
        let mut a = Map::new();
        a.insert("componentType".into(), UNSIGNED_SHORT.into());
        a.insert("count".into(), data.len().into());
        a.insert("type".into(), "VEC4".into());
        Ok(self.accessor(a, view))
    }
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

/// Builds the glTF JSON document and the binary buffer.
fn build(
    scene: &Scene,
    options: &ExportOptions,
    bin_uri: Option<&str>,
) -> Result<(Value, Vec<u8>, Beside)> {
    let axes = options.axes;
    let graph = check_graph(scene)?;
    let mut buf = Buffers {
        bin: Vec::new(),
        views: Vec::new(),
        accessors: Vec::new(),
    };
    let mut root = Map::new();
    root.insert(
        "asset".into(),
        json!({"version": "2.0", "generator": concat!("idmodel-gltf ", env!("CARGO_PKG_VERSION"))}),
    );

    // Materials, textures, images, samplers.
    let mut images = Vec::new();
    let mut textures = Vec::new();
    let mut materials = Vec::new();
    let mut samplers: Vec<(Wrap, Value)> = Vec::new();
    let mut beside: Beside = Vec::new();
    let image_stem = bin_uri.map(|u| u.strip_suffix(".bin").unwrap_or(u).to_string());
    for (mi, m) in scene.materials.iter().enumerate() {
        let mut pbr = Map::new();
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
        if m.base_color != [1.0; 4] {
            pbr.insert("baseColorFactor".into(), nums(&m.base_color));
        }
        pbr.insert("metallicFactor".into(), 0.into());
        pbr.insert("roughnessFactor".into(), 1.into());
        let (sampler, created) = match samplers.iter().position(|(w, _)| *w == m.wrap) {
            Some(i) => (i, false),
            None => {
                let mut s = Map::new();
                s.insert("magFilter".into(), NEAREST.into());
                s.insert("minFilter".into(), NEAREST.into());
                if m.wrap == Wrap::Clamp {
                    s.insert("wrapS".into(), CLAMP_TO_EDGE.into());
                    s.insert("wrapT".into(), CLAMP_TO_EDGE.into());
                }
                samplers.push((m.wrap, Value::Object(s)));
                (samplers.len().saturating_sub(1), true)
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
                Image::Encoded { mime, bytes } => (bytes.clone(), *mime),
                Image::Uri(uri) => {
                    images.push(json!({"uri": uri, "name": m.name}));
                    textures.push(
                        json!({"source": images.len().saturating_sub(1), "sampler": sampler}),
                    );
                    sampler_used = true;
                    return Ok(textures.len().saturating_sub(1));
                }
            };
            if bytes.is_empty() {
                return Err(what(&"empty image file"));
            }
            let img = match &image_stem {
                Some(stem) => {
                    let file = alloc::format!("{stem}_{}.{}", beside.len(), mime.extension());
                    beside.push((file.clone(), bytes));
                    json!({"uri": file, "mimeType": mime.as_str(), "name": m.name})
                }
                None => {
                    let view = buf.view(&bytes, None)?;
                    json!({"bufferView": view, "mimeType": mime.as_str(), "name": m.name})
                }
            };
            images.push(img);
            textures.push(json!({"source": images.len().saturating_sub(1), "sampler": sampler}));
            sampler_used = true;
            Ok(textures.len().saturating_sub(1))
        };
        let mut mat = Map::new();
        mat.insert("name".into(), m.name.clone().into());
        if let Some(image) = &m.image {
            let t = texture(image, "base colour")?;
            pbr.insert("baseColorTexture".into(), json!({"index": t}));
        }
        if let Some(image) = &m.normal {
            let t = texture(image, "normal map")?;
            mat.insert("normalTexture".into(), json!({"index": t}));
        }
        if let Some(image) = &m.emissive {
            let t = texture(image, "emissive")?;
            mat.insert("emissiveTexture".into(), json!({"index": t}));
        }
        if created && !sampler_used {
            // Created for this material but not used by it: leave it out.
            samplers.truncate(sampler);
        }
        if m.emissive_factor != [0.0; 3] {
            mat.insert("emissiveFactor".into(), nums(&m.emissive_factor));
        }
        mat.insert("pbrMetallicRoughness".into(), Value::Object(pbr));
        match m.alpha {
            AlphaMode::Opaque => {}
            AlphaMode::Mask(cutoff) => {
                if !(cutoff.is_finite() && cutoff >= 0.0) {
                    return Err(invalid!(
                        "material {mi} ({:?}): bad alpha cutoff {cutoff}",
                        m.name
                    ));
                }
                mat.insert("alphaMode".into(), "MASK".into());
                mat.insert("alphaCutoff".into(), num(cutoff));
            }
            AlphaMode::Blend => {
                mat.insert("alphaMode".into(), "BLEND".into());
            }
        }
        if m.double_sided {
            mat.insert("doubleSided".into(), true.into());
        }
        materials.push(Value::Object(mat));
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
    let mut meshes = Vec::new();
    let mut mesh_map: Vec<Option<usize>> = Vec::with_capacity(scene.meshes.len());
    let mut mesh_targets: Vec<usize> = Vec::with_capacity(scene.meshes.len());
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        let skinned = mesh_skinned_by_node.get(mi).copied().flatten();
        let limit = mesh_joint_limit.get(mi).copied().flatten();
        let mut prims = Vec::new();
        let mut targets: Option<usize> = None;
        for (pi, p) in mesh.primitives.iter().enumerate() {
            let what = alloc::format!("mesh {mi} ({:?}) primitive {pi}", mesh.name);
            match targets {
                Some(t) if t != p.targets.len() => {
                    return Err(invalid!(
                        "{what}: {} morph targets where the mesh's other primitives have {t}",
                        p.targets.len()
                    ));
                }
                _ => targets = Some(p.targets.len()),
            }
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
            prims.push(primitive(
                &mut buf, p, &what, axes, options, skinned, limit,
            )?);
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
        if prims.is_empty() {
            mesh_map.push(None);
            continue;
        }
        let mut m = Map::new();
        m.insert("name".into(), mesh.name.clone().into());
        m.insert("primitives".into(), Value::Array(prims));
        if t > 0 {
            m.insert("weights".into(), Value::Array(vec![0.into(); t]));
        }
        if !mesh.target_names.is_empty() {
            m.insert("extras".into(), json!({"targetNames": mesh.target_names}));
        }
        meshes.push(Value::Object(m));
        mesh_map.push(Some(meshes.len().saturating_sub(1)));
    }

    // Cameras.
    let mut cameras = Vec::new();
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
        let mut p = Map::new();
        p.insert("yfov".into(), num(c.yfov));
        p.insert("znear".into(), num(c.znear));
        if let Some(f) = c.zfar {
            p.insert("zfar".into(), num(f));
        }
        if let Some(a) = c.aspect_ratio {
            p.insert("aspectRatio".into(), num(a));
        }
        cameras.push(json!({"name": c.name, "type": "perspective", "perspective": p}));
    }

    // Nodes, then one extra child per camera node (appended after the IR's nodes) and
    // one extra root per skin whose joints have no common root.
    let mut nodes: Vec<Map<String, Value>> = Vec::with_capacity(scene.nodes.len());
    let mut extra_children: Vec<Vec<usize>> = vec![Vec::new(); scene.nodes.len()];
    let mut extra_nodes: Vec<Map<String, Value>> = Vec::new();
    let extra_base = scene.nodes.len();
    for (i, node) in scene.nodes.iter().enumerate() {
        let mut n = Map::new();
        n.insert("name".into(), node.name.clone().into());
        let t = axes.point(node.translation);
        if t != [0.0; 3] {
            n.insert("translation".into(), nums(&t));
        }
        let r = axes.quat(unit_quat(node.rotation));
        if r != [0.0, 0.0, 0.0, 1.0] {
            n.insert("rotation".into(), nums(&r));
        }
        let s = axes.scale(node.scale);
        if s != [1.0; 3] {
            n.insert("scale".into(), nums(&s));
        }
        if let Some(m) = node.mesh.and_then(|m| mesh_map.get(m).copied().flatten()) {
            n.insert("mesh".into(), m.into());
            if let Some(s) = node.skin {
                n.insert("skin".into(), s.into());
            }
        }
        if let Some(c) = node.camera {
            let mut child = Map::new();
            child.insert("name".into(), alloc::format!("{} camera", node.name).into());
            child.insert("rotation".into(), nums(&camera_fix(axes)));
            child.insert("camera".into(), c.into());
            let idx = extra_base.saturating_add(extra_nodes.len());
            extra_nodes.push(child);
            if let Some(v) = extra_children.get_mut(i) {
                v.push(idx);
            }
        }
        nodes.push(n);
    }

    // Skins.
    let mut skins = Vec::new();
    let mut adopted = vec![false; scene.nodes.len()];
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
        let mut s = Map::new();
        s.insert("name".into(), skin.name.clone().into());
        s.insert("joints".into(), json!(skin.joints));
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
            let a = buf.floats(&ibm, None, false)?;
            s.insert("inverseBindMatrices".into(), a.into());
        }
        if let Some(sk) = skin.skeleton {
            s.insert("skeleton".into(), sk.into());
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
            let mut n = Map::new();
            n.insert("name".into(), alloc::format!("{} root", skin.name).into());
            n.insert("children".into(), json!(tops));
            extra_nodes.push(n);
            // Those tops are roots no longer.
            for t in tops {
                if let Some(a) = adopted.get_mut(t) {
                    *a = true;
                }
            }
        }
        skins.push(Value::Object(s));
    }

    // Children lists and scene roots.
    for (i, node) in scene.nodes.iter().enumerate() {
        let mut children: Vec<usize> = node.children.clone();
        if let Some(extra) = extra_children.get(i) {
            children.extend(extra);
        }
        if let (Some(n), false) = (nodes.get_mut(i), children.is_empty()) {
            n.insert("children".into(), json!(children));
        }
    }
    let mut roots: Vec<usize> = (0..scene.nodes.len())
        .filter(|&i| graph.parent.get(i).copied().flatten().is_none())
        .filter(|&i| !adopted.get(i).copied().unwrap_or(false))
        .collect();
    for (k, n) in extra_nodes.iter().enumerate() {
        if n.contains_key("children") {
            roots.push(extra_base.saturating_add(k));
        }
    }
    nodes.extend(extra_nodes);

    // Animations.
    let mut animations = Vec::new();
    let mut time_cache: Vec<(Vec<u32>, usize)> = Vec::new();
    for (ai, anim) in scene.animations.iter().enumerate() {
        if let Some(a) = animation(
            &mut buf,
            &mut time_cache,
            scene,
            anim,
            ai,
            options,
            &mesh_map,
            &mesh_targets,
        )? {
            animations.push(a);
        }
    }

    // Assemble.
    if !buf.bin.is_empty() {
        let mut b = Map::new();
        b.insert("byteLength".into(), buf.bin.len().into());
        if let Some(uri) = bin_uri {
            b.insert("uri".into(), uri.into());
        }
        root.insert("buffers".into(), json!([b]));
        root.insert("bufferViews".into(), Value::Array(buf.views));
        root.insert("accessors".into(), Value::Array(buf.accessors));
    }
    let mut put = |key: &str, v: Vec<Value>| {
        if !v.is_empty() {
            root.insert(key.into(), Value::Array(v));
        }
    };
    put("images", images);
    put("samplers", samplers.into_iter().map(|(_, s)| s).collect());
    put("textures", textures);
    put("materials", materials);
    put("meshes", meshes);
    put("cameras", cameras);
    put("skins", skins);
    let pointer = animations.iter().any(|a| {
        a.get("channels")
            .and_then(Value::as_array)
            .is_some_and(|c| {
                c.iter()
                    .any(|c| c.pointer("/target/path").and_then(Value::as_str) == Some("pointer"))
            })
    });
    put("animations", animations);
    put("nodes", nodes.into_iter().map(Value::Object).collect());
    if pointer {
        // Used, not required: clients without it keep each camera's static yfov.
        extension_used(&mut root, "KHR_animation_pointer");
    }
    let mut sc = Map::new();
    if !scene.name.is_empty() {
        sc.insert("name".into(), scene.name.clone().into());
    }
    if !roots.is_empty() {
        sc.insert("nodes".into(), json!(roots));
    }
    if !scene.extras.is_empty() {
        sc.insert("extras".into(), crate::extras::to_json(&scene.extras));
    }
    root.insert("scenes".into(), json!([sc]));
    root.insert("scene".into(), 0.into());
    Ok((Value::Object(root), buf.bin, beside))
}

/// Adds `name` to the root's `extensionsUsed` (once).
fn extension_used(root: &mut Map<String, Value>, name: &str) {
    let used = root
        .entry("extensionsUsed")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = used
        && !list.iter().any(|v| v == name)
    {
        list.push(name.into());
    }
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
    p: &Primitive,
    what: &str,
    axes: Axes,
    options: &ExportOptions,
    skinned: Option<bool>,
    joint_limit: Option<usize>,
) -> Result<Value> {
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

    let mut attrs = Map::new();
    let pos: Vec<[f32; 3]> = p.positions.iter().map(|&v| axes.point(v)).collect();
    attrs.insert(
        "POSITION".into(),
        buf.floats(&pos, Some(ARRAY_BUFFER), true)?.into(),
    );
    if !p.normals.is_empty() {
        let nor: Vec<[f32; 3]> = p
            .normals
            .iter()
            .map(|&v| axes.point(unit_or_up(v)))
            .collect();
        attrs.insert(
            "NORMAL".into(),
            buf.floats(&nor, Some(ARRAY_BUFFER), false)?.into(),
        );
    }
    if !p.uvs.is_empty() {
        attrs.insert(
            "TEXCOORD_0".into(),
            buf.floats(&p.uvs, Some(ARRAY_BUFFER), false)?.into(),
        );
    }
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
        attrs.insert("JOINTS_0".into(), buf.joints(j0)?.into());
        attrs.insert(
            "WEIGHTS_0".into(),
            buf.floats(w0, Some(ARRAY_BUFFER), false)?.into(),
        );
        if need_second {
            attrs.insert("JOINTS_1".into(), buf.joints(j1)?.into());
            attrs.insert(
                "WEIGHTS_1".into(),
                buf.floats(w1, Some(ARRAY_BUFFER), false)?.into(),
            );
        }
    }

    let mut targets = Vec::with_capacity(p.targets.len());
    for (ti, t) in p.targets.iter().enumerate() {
        if t.positions.len() != n || !(t.normals.is_empty() || t.normals.len() == n) {
            return Err(invalid!(
                "{what} morph target {ti}: {} positions and {} normals for {n} vertices",
                t.positions.len(),
                t.normals.len()
            ));
        }
        finite(
            &t.positions,
            &alloc::format!("{what} morph target {ti} POSITION"),
        )?;
        finite(
            &t.normals,
            &alloc::format!("{what} morph target {ti} NORMAL"),
        )?;
        let mut ta = Map::new();
        let d: Vec<[f32; 3]> = t.positions.iter().map(|&v| axes.point(v)).collect();
        ta.insert(
            "POSITION".into(),
            buf.floats(&d, Some(ARRAY_BUFFER), true)?.into(),
        );
        if !t.normals.is_empty() && !p.normals.is_empty() {
            let d: Vec<[f32; 3]> = t.normals.iter().map(|&v| axes.point(v)).collect();
            ta.insert(
                "NORMAL".into(),
                buf.floats(&d, Some(ARRAY_BUFFER), false)?.into(),
            );
        }
        targets.push(Value::Object(ta));
    }

    let tris: Vec<u32> = p
        .indices
        .chunks_exact(3)
        .flat_map(|t| match t {
            &[a, b, c] => options.winding.triangle([a, b, c]),
            _ => [0, 0, 0], // chunks_exact yields only whole triangles
        })
        .collect();
    let mut prim = Map::new();
    prim.insert("attributes".into(), Value::Object(attrs));
    prim.insert("indices".into(), buf.indices(&tris)?.into());
    prim.insert("mode".into(), 4.into());
    if let Some(m) = p.material {
        prim.insert("material".into(), m.into());
    }
    if !targets.is_empty() {
        prim.insert("targets".into(), Value::Array(targets));
    }
    Ok(Value::Object(prim))
}

#[allow(clippy::too_many_arguments)] // one call site; the arguments are the build state
fn animation(
    buf: &mut Buffers,
    time_cache: &mut Vec<(Vec<u32>, usize)>,
    scene: &Scene,
    anim: &Animation,
    ai: usize,
    options: &ExportOptions,
    mesh_map: &[Option<usize>],
    mesh_targets: &[usize],
) -> Result<Option<Value>> {
    let axes = options.axes;
    let mut channels = Vec::new();
    let mut samplers = Vec::new();
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
        samplers.push(json!({"input": input, "output": output, "interpolation": interpolation}));
        // KHR_animation_pointer: the target is the pointer, with no node.
        let target = match pointer {
            Some(p) => json!({
                "path": "pointer",
                "extensions": {"KHR_animation_pointer": {"pointer": p}},
            }),
            None => json!({"node": ch.node, "path": path}),
        };
        channels.push(json!({
            "sampler": samplers.len().saturating_sub(1),
            "target": target,
        }));
    }
    if channels.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        json!({"name": anim.name, "channels": channels, "samplers": samplers}),
    ))
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
