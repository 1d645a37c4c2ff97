//! The glTF document → the scene's lists, in the scene's axes and winding.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::Value;

use idmodel_scene::axes::{Axes, Winding};
use idmodel_scene::{
    AlphaMode, Animation, Camera, Channel, ChannelValues, Image, Interpolation, Material, Mesh,
    MorphTarget, Node, Primitive, Scene, Skin,
};

use super::doc::{Doc, bad, filled, float, floats, index, list, need_index, string};
use super::{ImportError, ImportOptions, Resolver};
use crate::error::one_target_count;

type Result<T> = core::result::Result<T, ImportError>;

/// glTF axes → file axes (the inverse of [`Axes::point`]).
pub(super) fn unpoint(axes: Axes, [a, b, c]: [f32; 3]) -> [f32; 3] {
    match axes {
        Axes::YUp => [c, a, b],
        Axes::Keep => [a, b, c],
    }
}

/// The inverse of [`Axes::quat`].
fn unquat(axes: Axes, [a, b, c, w]: [f32; 4]) -> [f32; 4] {
    let [x, y, z] = unpoint(axes, [a, b, c]);
    [x, y, z, w]
}

/// The inverse of [`Axes::mat4`]: `M[i][j] = M'[q(i)][q(j)]` with `q = p⁻¹ = (2, 0, 1)`.
fn unmat4(axes: Axes, m: [f32; 16]) -> [f32; 16] {
    let q: [usize; 4] = match axes {
        Axes::YUp => [2, 0, 1, 3],
        Axes::Keep => return m,
    };
    let mut out = [0.0f32; 16];
    for (j, &qj) in q.iter().enumerate() {
        for (i, &qi) in q.iter().enumerate() {
            let src = qj.saturating_mul(4).saturating_add(qi);
            let dst = j.saturating_mul(4).saturating_add(i);
            if let (Some(d), Some(&s)) = (out.get_mut(dst), m.get(src)) {
                *d = s;
            }
        }
    }
    out
}

/// Hamilton product `a · b` of quaternions `[x, y, z, w]`.
fn qmul([ax, ay, az, aw]: [f32; 4], [bx, by, bz, bw]: [f32; 4]) -> [f32; 4] {
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The exporter's camera child rotation (`export::camera_fix`), in output axes.
fn camera_fix(axes: Axes) -> [f32; 4] {
    match axes {
        Axes::Keep => [0.5, -0.5, -0.5, 0.5],
        Axes::YUp => [0.0, 1.0, 0.0, 0.0],
    }
}

pub(crate) fn build(
    d: &mut Doc<'_>,
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Scene> {
    let axes = if options.keep_axes {
        Axes::Keep
    } else {
        Axes::YUp
    };
    let materials = materials(d, options, resolve)?;
    let mut meshes = meshes(d, axes, options.winding, materials.len())?;
    let cameras = cameras(d)?;
    let (nodes, map, grids) = nodes(d, axes, &meshes, cameras.len())?;
    dequantize(&mut meshes, &grids);
    let skins = skins(d, axes, &map)?;
    let animations = animations(d, axes, &map, &nodes, &meshes)?;
    let si = index(&d.root, "scene", &"the document")?.unwrap_or(0);
    let (name, extras) = match list(&d.root, "scenes")?.get(si) {
        Some(s) => (
            string(s, "name"),
            s.get("extras")
                .map(crate::extras::from_json)
                .unwrap_or_default(),
        ),
        None => (String::new(), idmodel_scene::Extras::default()),
    };
    let mut scene = Scene {
        name,
        meshes,
        materials,
        nodes,
        skins,
        animations,
        cameras,
        extras,
    };
    check_skins(&mut scene)?;
    Ok(scene)
}

/// A skinned node's mesh gets influences on every primitive, as the IR requires.
fn check_skins(scene: &mut Scene) -> Result<()> {
    for (i, n) in scene.nodes.iter().enumerate() {
        if n.skin.is_some() && n.mesh.is_none() {
            return Err(bad!("node {i} ({:?}) has a skin but no mesh", n.name));
        }
    }
    Ok(())
}

fn materials(
    d: &mut Doc<'_>,
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Vec<Material>> {
    let n = list(&d.root, "materials")?.len();
    let mut cache: Vec<Option<Image>> = Vec::new();
    let images = list(&d.root, "images")?.len();
    d.budget.charge_n(images, 64, &"images")?;
    cache.resize(images, None);
    let mut out = Vec::with_capacity(n.min(4096));
    for mi in 0..n {
        let m = d.item("materials", mi)?.clone();
        let what = alloc::format!("material {mi}");
        let pbr = m.get("pbrMetallicRoughness").cloned().unwrap_or_default();
        let mut mat = Material::new(string(&m, "name"), None);
        mat.base_color = floats(&pbr, "baseColorFactor", [1.0; 4], &what)?;
        if let Some(tex) = pbr.get("baseColorTexture") {
            let ti = need_index(tex, "index", &what)?;
            let t = d.item("textures", ti)?;
            let src = index(t, "source", &alloc::format!("texture {ti}"))?;
            if let Some(ii) = src {
                let slot = cache
                    .get(ii)
                    .ok_or_else(|| bad!("texture {ti}: image {ii} does not exist"))?;
                let img = match slot {
                    Some(img) => img.clone(),
                    None => {
                        let img = image(d, ii, options, resolve)?;
                        if let Some(s) = cache.get_mut(ii) {
                            *s = Some(img.clone());
                        }
                        img
                    }
                };
                mat.image = Some(img);
            }
        }
        mat.alpha = match m.get("alphaMode").and_then(Value::as_str) {
            Some("MASK") => AlphaMode::Mask(float(&m, "alphaCutoff", &what)?.unwrap_or(0.5)),
            Some("BLEND") => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        mat.double_sided = m
            .get("doubleSided")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        out.push(mat);
    }
    Ok(out)
}

fn image(
    d: &mut Doc<'_>,
    ii: usize,
    options: &ImportOptions,
    resolve: &mut Resolver<'_>,
) -> Result<Image> {
    let im = d.item("images", ii)?.clone();
    let what = alloc::format!("image {ii}");
    let mime = im.get("mimeType").and_then(Value::as_str).unwrap_or("");
    let png = |d: &mut Doc<'_>, bytes: &[u8]| -> Result<Image> {
        let (width, height, pixels) = super::image::decode_png(bytes, &mut d.budget, &what)?;
        Ok(Image::Rgba8 {
            width,
            height,
            pixels,
        })
    };
    // A JPEG is kept as it is (this crate decodes PNG only; a caller with a JPEG decoder,
    // such as `idmodel-assets`, decodes it where it needs the pixels).
    let jpeg = |bytes: Vec<u8>| Image::Encoded {
        mime: idmodel_scene::Mime::Jpeg,
        bytes,
    };
    if let Some(vi) = index(&im, "bufferView", &what)? {
        let bytes = d.view(vi)?.0.to_vec();
        return match mime {
            "image/png" => png(d, &bytes),
            "image/jpeg" => Ok(jpeg(bytes)),
            _ => Err(ImportError::Unsupported(alloc::format!(
                "{what}: embedded {mime:?} images are not read (PNG and JPEG are)"
            ))),
        };
    }
    let uri = im
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| bad!("{what}: neither bufferView nor uri"))?;
    if let Some((mime, bytes)) = super::doc::data_uri(uri) {
        let bytes = bytes.ok_or_else(|| bad!("{what}: a data URI that is not base64"))?;
        return match mime {
            "image/png" => png(d, &bytes),
            "image/jpeg" => Ok(jpeg(bytes)),
            _ => Err(ImportError::Unsupported(alloc::format!(
                "{what}: embedded {mime:?} images are not read (PNG and JPEG are)"
            ))),
        };
    }
    if options.read_images {
        let bytes = resolve(uri).ok_or_else(|| {
            ImportError::Unsupported(alloc::format!(
                "{what}: {uri:?} is not available (the caller gave no such file)"
            ))
        })?;
        return png(d, &bytes);
    }
    Ok(Image::Uri(uri.to_string()))
}

fn meshes(d: &mut Doc<'_>, axes: Axes, winding: Winding, materials: usize) -> Result<Vec<Mesh>> {
    let n = list(&d.root, "meshes")?.len();
    let mut out = Vec::with_capacity(n.min(4096));
    for mi in 0..n {
        let m = d.item("meshes", mi)?.clone();
        let name = string(&m, "name");
        let prims = list(&m, "primitives")?;
        let mut primitives = Vec::with_capacity(prims.len());
        let mut targets: Option<usize> = None;
        for (pi, p) in prims.iter().enumerate() {
            let what = alloc::format!("mesh {mi} ({name:?}) primitive {pi}");
            let prim = primitive(d, p, &what, axes, winding, materials)?;
            one_target_count(&mut targets, prim.targets.len(), &what)
                .map_err(ImportError::Invalid)?;
            primitives.push(prim);
        }
        let target_names = match m.get("extras").and_then(|e| e.get("targetNames")) {
            Some(Value::Array(a)) if a.len() == targets.unwrap_or(0) => a
                .iter()
                .map(|v| v.as_str().unwrap_or("").to_string())
                .collect(),
            _ => Vec::new(),
        };
        out.push(Mesh {
            name,
            primitives,
            target_names,
        });
    }
    Ok(out)
}

/// `v` as an array index: a non-negative integer that fits a `usize`.
fn as_index(v: &Value) -> Option<usize> {
    v.as_u64().and_then(|i| usize::try_from(i).ok())
}

/// Accessor `a`, the `attr` attribute of `what`, as three floats per element taken back
/// from the exporter's axes.
fn read_points(
    d: &mut Doc<'_>,
    a: usize,
    axes: Axes,
    (what, attr): (&str, &str),
) -> Result<Vec<[f32; 3]>> {
    Ok(d.read_f32::<3>(a, &alloc::format!("{what} {attr}"))?
        .into_iter()
        .map(|v| unpoint(axes, v))
        .collect())
}

fn primitive(
    d: &mut Doc<'_>,
    p: &Value,
    what: &str,
    axes: Axes,
    winding: Winding,
    materials: usize,
) -> Result<Primitive> {
    let attrs = p.get("attributes").cloned().unwrap_or_default();
    let attr = |key: &str| index(&attrs, key, &what);
    let pos = attr("POSITION")?.ok_or_else(|| bad!("{what}: no POSITION"))?;
    let positions = read_points(d, pos, axes, (what, "POSITION"))?;
    let n = positions.len();
    let same = |len: usize, attr: &str| {
        if len == n {
            Ok(())
        } else {
            Err(bad!("{what}: {len} {attr} for {n} positions"))
        }
    };
    let normals = match attr("NORMAL")? {
        Some(a) => {
            let v = read_points(d, a, axes, (what, "NORMAL"))?;
            same(v.len(), "normals")?;
            v
        }
        None => Vec::new(),
    };
    let uvs = match attr("TEXCOORD_0")? {
        Some(a) => {
            let v = d.read_f32::<2>(a, &alloc::format!("{what} TEXCOORD_0"))?;
            same(v.len(), "texture coordinates")?;
            v
        }
        None => Vec::new(),
    };
    let mode = p.get("mode").and_then(Value::as_u64).unwrap_or(4);
    let raw = match index(p, "indices", &what)? {
        Some(a) => d.read_u32(a, &alloc::format!("{what} indices"), 1)?,
        None => {
            let v = filled(&mut d.budget, n, 0u32, &what)?;
            (0..n)
                .zip(v)
                .map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX))
                .collect()
        }
    };
    if let Some((k, &bad)) = raw
        .iter()
        .enumerate()
        .find(|&(_, &i)| usize::try_from(i).is_ok_and(|i| i >= n))
    {
        return Err(bad!(
            "{what}: index {k} is {bad}, but there are {n} vertices"
        ));
    }
    let tris: Vec<[u32; 3]> = match mode {
        4 => {
            if raw.len() % 3 != 0 {
                return Err(bad!(
                    "{what}: {} indices is not a whole number of triangles",
                    raw.len()
                ));
            }
            raw.chunks_exact(3)
                .map(|t| match *t {
                    [a, b, c] => [a, b, c],
                    _ => [0, 0, 0],
                })
                .collect()
        }
        5 | 6 => {
            let count = raw.len().saturating_sub(2);
            d.budget.charge_n(count, 12, &what)?;
            (0..count)
                .filter_map(|i| {
                    let at = |k: usize| raw.get(k).copied();
                    let next = i.checked_add(1)?;
                    let after = i.checked_add(2)?;
                    Some(if mode == 5 {
                        // glTF: {v_i, v_(i+1+i%2), v_(i+2-i%2)}.
                        if i % 2 == 0 {
                            [at(i)?, at(next)?, at(after)?]
                        } else {
                            [at(i)?, at(after)?, at(next)?]
                        }
                    } else {
                        // glTF: {v_(i+1), v_(i+2), v_0}.
                        [at(next)?, at(after)?, at(0)?]
                    })
                })
                .collect()
        }
        0..=3 => {
            return Err(ImportError::Unsupported(alloc::format!(
                "{what}: mode {mode} ({}) is not triangles; only triangles, strips and fans are read",
                match mode {
                    0 => "points",
                    _ => "lines",
                }
            )));
        }
        _ => return Err(bad!("{what}: unknown mode {mode}")),
    };
    let mut indices = Vec::with_capacity(tris.len().saturating_mul(3));
    for t in tris {
        // The exporter's winding step is a swap; it is its own inverse.
        indices.extend_from_slice(&winding.triangle(t));
    }
    let material = index(p, "material", &what)?;
    if let Some(m) = material.filter(|&m| m >= materials) {
        return Err(bad!("{what}: material {m} does not exist"));
    }
    let influences = influences(d, &attrs, what, n)?;
    let mut targets = Vec::new();
    for (ti, t) in list(p, "targets")?.iter().enumerate() {
        let tw = alloc::format!("{what} morph target {ti}");
        let positions = match index(t, "POSITION", &tw)? {
            Some(a) => read_points(d, a, axes, (&tw, "POSITION"))?,
            None => filled(&mut d.budget, n, [0.0f32; 3], &tw)?,
        };
        same(positions.len(), "target positions")?;
        let normals = match index(t, "NORMAL", &tw)? {
            Some(a) if !normals.is_empty() => {
                let v = read_points(d, a, axes, (&tw, "NORMAL"))?;
                same(v.len(), "target normals")?;
                v
            }
            _ => Vec::new(),
        };
        targets.push(MorphTarget { positions, normals });
    }
    Ok(Primitive {
        positions,
        normals,
        uvs,
        indices,
        material,
        influences,
        targets,
    })
}

/// `JOINTS_0/1` and `WEIGHTS_0/1` as per-vertex `(joint, weight)` lists (weights ≤ 0
/// dropped).
fn influences(
    d: &mut Doc<'_>,
    attrs: &Value,
    what: &str,
    n: usize,
) -> Result<Vec<Vec<(u16, f32)>>> {
    let mut sets = Vec::new();
    for set in 0..2u8 {
        let j = index(attrs, &alloc::format!("JOINTS_{set}"), &what)?;
        let w = index(attrs, &alloc::format!("WEIGHTS_{set}"), &what)?;
        match (j, w) {
            (Some(j), Some(w)) => {
                let joints = d.read_u32(j, &alloc::format!("{what} JOINTS_{set}"), 4)?;
                let weights = d.read_f32::<4>(w, &alloc::format!("{what} WEIGHTS_{set}"))?;
                if joints.len() != n.saturating_mul(4) || weights.len() != n {
                    return Err(bad!(
                        "{what}: JOINTS_{set}/WEIGHTS_{set} counts differ from POSITION"
                    ));
                }
                sets.push((joints, weights));
            }
            (None, None) => break,
            _ => {
                return Err(bad!(
                    "{what}: JOINTS_{set} without WEIGHTS_{set} or the reverse"
                ));
            }
        }
    }
    if sets.is_empty() {
        return Ok(Vec::new());
    }
    d.budget.charge_n(n, 24 + 8 * 8, &what)?;
    let mut out = Vec::with_capacity(n);
    for v in 0..n {
        let mut pairs = Vec::new();
        for (joints, weights) in &sets {
            let (Some(w), Some(js)) = (
                weights.get(v),
                joints.get(v.saturating_mul(4)..v.saturating_mul(4).saturating_add(4)),
            ) else {
                continue;
            };
            for (&j, &w) in js.iter().zip(w) {
                if w > 0.0 {
                    let j = u16::try_from(j)
                        .map_err(|_| bad!("{what}: vertex {v} joint {j} is too large"))?;
                    pairs.push((j, w));
                }
            }
        }
        out.push(pairs);
    }
    Ok(out)
}

fn cameras(d: &mut Doc<'_>) -> Result<Vec<Camera>> {
    let mut out = Vec::new();
    for (ci, c) in list(&d.root, "cameras")?.iter().enumerate() {
        let what = alloc::format!("camera {ci}");
        if c.get("type").and_then(Value::as_str) != Some("perspective") {
            return Err(ImportError::Unsupported(alloc::format!(
                "{what}: only perspective cameras are read"
            )));
        }
        let p = c.get("perspective").cloned().unwrap_or_default();
        let yfov = float(&p, "yfov", &what)?.ok_or_else(|| bad!("{what}: no yfov"))?;
        let znear = float(&p, "znear", &what)?.ok_or_else(|| bad!("{what}: no znear"))?;
        out.push(Camera {
            name: string(c, "name"),
            yfov,
            aspect_ratio: float(&p, "aspectRatio", &what)?,
            znear,
            zfar: float(&p, "zfar", &what)?,
        });
    }
    Ok(out)
}

/// The nodes with the exporter's additions folded back, and the map from glTF node
/// index to scene node index (`None` for a folded node).
/// A node's rest morph weights: its `weights`, else its mesh's `weights` (glTF's
/// default for every node that draws the mesh), one per morph target; empty when absent
/// or all zero.
fn rest_weights(v: &Value, raw_mesh: &Value, mesh: &Mesh, what: &str) -> Result<Vec<f32>> {
    let targets = mesh.primitives.first().map_or(0, |p| p.targets.len());
    let Some(w) = v.get("weights").or_else(|| raw_mesh.get("weights")) else {
        return Ok(Vec::new());
    };
    let w = w.as_array().filter(|w| w.len() == targets).ok_or_else(|| {
        bad!("{what}: \"weights\" is not {targets} numbers, one per morph target")
    })?;
    let mut out = Vec::with_capacity(targets);
    for x in w {
        #[allow(clippy::cast_possible_truncation, clippy::as_conversions)]
        let x = x
            .as_f64()
            .map(|x| x as f32)
            .filter(|x| x.is_finite())
            .ok_or_else(|| bad!("{what}: a weight that is not a finite number"))?;
        out.push(x);
    }
    if out.iter().all(|&x| x == 0.0) {
        out.clear();
    }
    Ok(out)
}

fn nodes(d: &mut Doc<'_>, axes: Axes, meshes: &[Mesh], cameras: usize) -> Result<Nodes> {
    let raw = list(&d.root, "nodes")?.to_vec();
    let n = raw.len();
    d.budget.charge_n(n, 256, &"nodes")?;
    let mut nodes = Vec::with_capacity(n);
    let mut parent: Vec<Option<usize>> = alloc::vec![None; n];
    for (i, v) in raw.iter().enumerate() {
        let what = alloc::format!("node {i}");
        let mut node = Node::new(string(v, "name"));
        for c in list(v, "children")? {
            let c = as_index(c).ok_or_else(|| bad!("{what}: a child that is not an index"))?;
            let slot = parent
                .get_mut(c)
                .ok_or_else(|| bad!("{what}: child {c} does not exist"))?;
            if slot.is_some() || c == i {
                return Err(bad!(
                    "node {c} has more than one parent (or is its own child)"
                ));
            }
            *slot = Some(i);
            node.children.push(c);
        }
        if v.get("matrix").is_some() {
            let m = floats::<16>(v, "matrix", [0.0; 16], &what)?;
            let (t, r, s) = decompose(unmat4(axes, m));
            node.translation = t;
            node.rotation = r;
            node.scale = s;
        } else {
            node.translation = unpoint(axes, floats(v, "translation", [0.0; 3], &what)?);
            node.rotation = unquat(axes, floats(v, "rotation", [0.0, 0.0, 0.0, 1.0], &what)?);
            node.scale = unpoint(axes, floats(v, "scale", [1.0; 3], &what)?);
        }
        node.mesh = index(v, "mesh", &what)?;
        if let Some(m) = node.mesh.filter(|&m| m >= meshes.len()) {
            return Err(bad!("{what}: mesh {m} does not exist"));
        }
        if let Some((m, raw_mesh)) = node
            .mesh
            .and_then(|m| Some((meshes.get(m)?, list(&d.root, "meshes").ok()?.get(m)?)))
        {
            node.weights = rest_weights(v, raw_mesh, m, &what)?;
        }
        node.skin = index(v, "skin", &what)?;
        if let Some(s) = node
            .skin
            .filter(|&s| s >= list(&d.root, "skins").map_or(0, <[Value]>::len))
        {
            return Err(bad!("{what}: skin {s} does not exist"));
        }
        node.camera = index(v, "camera", &what)?;
        if let Some(c) = node.camera.filter(|&c| c >= cameras) {
            return Err(bad!("{what}: camera {c} does not exist"));
        }
        nodes.push(node);
    }
    if let Some(start) = crate::graph::in_cycle(&parent) {
        return Err(bad!("node {start} is part of a cycle"));
    }

    let mut keep = alloc::vec![true; n];
    // Cameras: the exporter's child (named "<parent> camera", turned by the fixed
    // rotation) folds into its parent; any other camera node gets the IR's orientation.
    let fix = camera_fix(axes);
    for i in 0..n {
        let Some(c) = nodes.get(i).and_then(|x| x.camera) else {
            continue;
        };
        let p = parent.get(i).copied().flatten();
        let raw_rot = raw
            .get(i)
            .map(|v| floats(v, "rotation", [0.0, 0.0, 0.0, 1.0], &""))
            .transpose()?
            .unwrap_or([0.0, 0.0, 0.0, 1.0]);
        let synthetic = match (p, nodes.get(i)) {
            (Some(p), Some(node)) => {
                let pname = nodes.get(p).map_or("", |x| x.name.as_str());
                node.name.strip_suffix(" camera") == Some(pname)
                    && node.mesh.is_none()
                    && node.children.is_empty()
                    && node.translation == [0.0; 3]
                    && node.scale == [1.0; 3]
                    && raw_rot.iter().zip(fix).all(|(a, b)| (a - b).abs() < 1e-6)
                    && nodes.get(p).is_some_and(|x| x.camera.is_none())
            }
            _ => false,
        };
        if let (true, Some(p)) = (synthetic, p) {
            if let Some(pn) = nodes.get_mut(p) {
                pn.camera = Some(c);
            }
            if let Some(k) = keep.get_mut(i) {
                *k = false;
            }
        } else if let Some(node) = nodes.get_mut(i) {
            // R_ir · fix = R (in output axes), so R_ir = R · fix⁻¹.
            let [x, y, z, w] = fix;
            node.rotation = unquat(axes, qmul(raw_rot, [-x, -y, -z, w]));
        }
    }
    // KHR_mesh_quantization: the exporter's dequantizing child (marked in its extras,
    // holding nothing but the mesh, a uniform scale and a translation) folds into its
    // parent, its grid applied to the mesh's positions, so the scene is the one written.
    let mut grids: Vec<MeshGrid> = Vec::new();
    let mut fold_into: Vec<Option<usize>> = alloc::vec![None; n];
    for i in 0..n {
        let Some(v) = raw.get(i) else { continue };
        let marked = v
            .get("extras")
            .and_then(|x| x.get("idmodel"))
            .and_then(Value::as_str)
            == Some("dequantize");
        let (Some(p), Some(node)) = (parent.get(i).copied().flatten(), nodes.get(i)) else {
            continue;
        };
        let scale = floats(v, "scale", [1.0; 3], &"")?;
        let uniform = scale[0] == scale[1] && scale[1] == scale[2] && scale[0] > 0.0;
        let plain = marked
            && uniform
            && node.children.is_empty()
            && node.skin.is_none()
            && node.camera.is_none()
            && node.rotation == [0.0, 0.0, 0.0, 1.0]
            && v.get("matrix").is_none()
            && nodes.get(p).is_some_and(|x| x.mesh.is_none());
        let (true, Some(mesh)) = (plain, node.mesh) else {
            continue;
        };
        let weights = node.weights.clone();
        let origin = node.translation;
        if let Some(pn) = nodes.get_mut(p) {
            pn.mesh = Some(mesh);
            pn.weights = weights;
            pn.children.retain(|&c| c != i);
        }
        if let Some(k) = keep.get_mut(i) {
            *k = false;
        }
        if let Some(f) = fold_into.get_mut(i) {
            *f = Some(p);
        }
        if !grids.iter().any(|g| g.mesh == mesh) {
            grids.push(MeshGrid {
                mesh,
                origin,
                step: scale[0],
            });
        }
    }
    // Skin roots: "<skin> root", nothing but children, a root itself.
    for s in list(&d.root, "skins")? {
        let name = alloc::format!("{} root", string(s, "name"));
        let joints: Vec<usize> = list(s, "joints")?.iter().filter_map(as_index).collect();
        for i in 0..n {
            let Some(node) = nodes.get(i) else { continue };
            let plain = node.name == name
                && node.mesh.is_none()
                && node.camera.is_none()
                && node.skin.is_none()
                && !node.children.is_empty()
                && node.translation == [0.0; 3]
                && node.rotation == [0.0, 0.0, 0.0, 1.0]
                && node.scale == [1.0; 3]
                && parent.get(i).copied().flatten().is_none()
                && raw.get(i).is_some_and(|v| v.get("matrix").is_none());
            // Every child is the top ancestor of one of the skin's joints.
            let tops = node.children.iter().all(|&c| {
                joints.iter().any(|&j| {
                    let mut at = j;
                    while let Some(p) = parent.get(at).copied().flatten() {
                        if p == i {
                            break;
                        }
                        at = p;
                    }
                    at == c
                })
            });
            if plain
                && tops
                && let Some(k) = keep.get_mut(i)
            {
                *k = false;
            }
        }
    }
    let mut map = Vec::with_capacity(n);
    let mut next = 0usize;
    for &k in &keep {
        if k {
            map.push(Some(next));
            next = next.saturating_add(1);
        } else {
            map.push(None);
        }
    }
    // Channels on a folded child (its weights) go to the parent that now draws the mesh.
    for (i, f) in fold_into.iter().enumerate() {
        if let Some(p) = *f {
            let to = map.get(p).copied().flatten();
            if let Some(m) = map.get_mut(i) {
                *m = to;
            }
        }
    }
    let mut out = Vec::with_capacity(next);
    for (node, &k) in nodes.into_iter().zip(&keep) {
        if !k {
            continue;
        }
        let mut node = node;
        node.children = node
            .children
            .iter()
            .filter_map(|&c| map.get(c).copied().flatten())
            .collect();
        out.push(node);
    }
    Ok((out, map, grids))
}

/// The nodes, the map from glTF node to scene node, and the folded quantized meshes.
type Nodes = (Vec<Node>, Vec<Option<usize>>, Vec<MeshGrid>);

/// A quantized mesh's grid, from its folded dequantizing node (file axes): a position is
/// `origin + step × q`.
struct MeshGrid {
    mesh: usize,
    origin: [f32; 3],
    step: f32,
}

/// Applies each folded grid to its mesh: positions become `origin + step × q`, morph
/// displacements `step × d` (normals are unchanged by a uniform scale).
fn dequantize(meshes: &mut [Mesh], grids: &[MeshGrid]) {
    for g in grids {
        let Some(mesh) = meshes.get_mut(g.mesh) else {
            continue;
        };
        for p in &mut mesh.primitives {
            for v in &mut p.positions {
                *v = [
                    g.origin[0] + g.step * v[0],
                    g.origin[1] + g.step * v[1],
                    g.origin[2] + g.step * v[2],
                ];
            }
            for t in &mut p.targets {
                for v in &mut t.positions {
                    *v = v.map(|c| g.step * c);
                }
            }
        }
    }
}

/// A column-major affine matrix as translation, rotation and scale (a shear is lost; a
/// mirror goes into a negative X scale).
fn decompose(m: [f32; 16]) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let col = |c: usize| {
        let at = |r: usize| {
            m.get(c.saturating_mul(4).saturating_add(r))
                .copied()
                .unwrap_or(0.0)
        };
        [at(0), at(1), at(2)]
    };
    let (x, y, z, t) = (col(0), col(1), col(2), col(3));
    use idmodel_core::vec::{cross, dot, length, quat_from_axes};
    let mut s = [length(x), length(y), length(z)];
    if dot(cross(x, y), z) < 0.0 {
        s[0] = -s[0];
    }
    let div = |v: [f32; 3], k: f32| {
        if k != 0.0 {
            [v[0] / k, v[1] / k, v[2] / k]
        } else {
            v
        }
    };
    let r = quat_from_axes(&[div(x, s[0]), div(y, s[1]), div(z, s[2])]);
    (t, r, s)
}

fn skins(d: &mut Doc<'_>, axes: Axes, map: &[Option<usize>]) -> Result<Vec<Skin>> {
    let raw = list(&d.root, "skins")?.to_vec();
    let mut out = Vec::with_capacity(raw.len());
    for (si, s) in raw.iter().enumerate() {
        let what = alloc::format!("skin {si}");
        let mut joints = Vec::new();
        for j in list(s, "joints")? {
            let j = as_index(j).ok_or_else(|| bad!("{what}: a joint that is not an index"))?;
            let k = map
                .get(j)
                .copied()
                .flatten()
                .ok_or_else(|| bad!("{what}: joint node {j} does not exist"))?;
            joints.push(k);
        }
        let inverse_bind_matrices = match index(s, "inverseBindMatrices", &what)? {
            Some(a) => {
                let m = d.read_f32::<16>(a, &alloc::format!("{what} inverseBindMatrices"))?;
                if m.len() != joints.len() {
                    return Err(bad!(
                        "{what}: {} inverse bind matrices for {} joints",
                        m.len(),
                        joints.len()
                    ));
                }
                m.into_iter().map(|m| unmat4(axes, m)).collect()
            }
            None => Vec::new(),
        };
        let skeleton = match index(s, "skeleton", &what)? {
            Some(k) => Some(
                map.get(k)
                    .copied()
                    .flatten()
                    .ok_or_else(|| bad!("{what}: skeleton node {k} does not exist"))?,
            ),
            None => None,
        };
        out.push(Skin {
            name: string(s, "name"),
            joints,
            inverse_bind_matrices,
            skeleton,
        });
    }
    Ok(out)
}

fn animations(
    d: &mut Doc<'_>,
    axes: Axes,
    map: &[Option<usize>],
    nodes: &[Node],
    meshes: &[Mesh],
) -> Result<Vec<Animation>> {
    let raw = list(&d.root, "animations")?.to_vec();
    let mut out = Vec::with_capacity(raw.len());
    for (ai, a) in raw.iter().enumerate() {
        let name = string(a, "name");
        let samplers = list(a, "samplers")?;
        let mut channels = Vec::new();
        for (ci, c) in list(a, "channels")?.iter().enumerate() {
            let what = alloc::format!("animation {ai} ({name:?}) channel {ci}");
            let target = c.get("target").cloned().unwrap_or_default();
            // A node's property, or (KHR_animation_pointer) a camera's yfov: the zoom.
            let (node, zoom_of) = match index(&target, "node", &what)? {
                Some(gn) => (
                    map.get(gn)
                        .copied()
                        .flatten()
                        .ok_or_else(|| bad!("{what}: node {gn} does not exist"))?,
                    None,
                ),
                None => match yfov_pointer(&target) {
                    Some(cam) => (
                        nodes
                            .iter()
                            .position(|n| n.camera == Some(cam))
                            .ok_or_else(|| bad!("{what}: camera {cam} is on no node"))?,
                        Some(cam),
                    ),
                    None => continue, // a target of an extension: nothing the scene can hold
                },
            };
            let si = need_index(c, "sampler", &what)?;
            let s = samplers
                .get(si)
                .ok_or_else(|| bad!("{what}: sampler {si} does not exist"))?;
            let input = need_index(s, "input", &what)?;
            let output = need_index(s, "output", &what)?;
            let (interpolation, cubic) = match s.get("interpolation").and_then(Value::as_str) {
                None | Some("LINEAR") => (Interpolation::Linear, false),
                Some("STEP") => (Interpolation::Step, false),
                // CUBICSPLINE: the key values are kept, the tangents dropped.
                Some("CUBICSPLINE") => (Interpolation::Linear, true),
                Some(other) => return Err(bad!("{what}: interpolation {other:?}")),
            };
            let times: Vec<f32> = d
                .read_f32::<1>(input, &alloc::format!("{what} input"))?
                .into_iter()
                .map(|[t]| t)
                .collect();
            let mut prev = f32::NEG_INFINITY;
            for (k, &t) in times.iter().enumerate() {
                if !(t >= 0.0 && t > prev) {
                    return Err(bad!(
                        "{what}: key {k} time {t} is not non-negative and increasing"
                    ));
                }
                prev = t;
            }
            let keys = times.len();
            if keys == 0 {
                return Err(bad!("{what}: no keyframes"));
            }
            let path = target.get("path").and_then(Value::as_str).unwrap_or("");
            let ow = alloc::format!("{what} output");
            let per = if cubic { 3 } else { 1 };
            let values = match path {
                _ if zoom_of.is_some() => {
                    let v = values_of::<1>(d.read_f32::<1>(output, &ow)?, keys, cubic, &what)?;
                    ChannelValues::CameraYfov {
                        camera: zoom_of.unwrap_or(0),
                        yfov: v.into_iter().map(|[y]| y).collect(),
                    }
                }
                "translation" | "scale" => {
                    let v = values_of::<3>(d.read_f32::<3>(output, &ow)?, keys, cubic, &what)?;
                    let v = v.into_iter().map(|x| unpoint(axes, x)).collect();
                    if path == "scale" {
                        ChannelValues::Scale(v)
                    } else {
                        ChannelValues::Translation(v)
                    }
                }
                "rotation" => {
                    let v = values_of::<4>(d.read_f32::<4>(output, &ow)?, keys, cubic, &what)?;
                    ChannelValues::Rotation(v.into_iter().map(|q| unquat(axes, q)).collect())
                }
                "weights" => {
                    let targets = nodes
                        .get(node)
                        .and_then(|x| x.mesh)
                        .and_then(|m| meshes.get(m))
                        .and_then(|m| m.primitives.first())
                        .map_or(0, |p| p.targets.len());
                    if targets == 0 {
                        return Err(bad!("{what}: weights on a node without morph targets"));
                    }
                    let total = keys.saturating_mul(targets).saturating_mul(per);
                    if d.count(output, &ow)? != total {
                        return Err(bad!(
                            "{what}: {} weights for {keys} keys × {targets} targets",
                            d.count(output, &ow)?
                        ));
                    }
                    match (cubic, d.read_sparse_scalars(output, &ow)?) {
                        (false, Some((_, entries))) => ChannelValues::SparseWeights {
                            targets,
                            nonzero: entries
                                .into_iter()
                                .map(|(i, w)| {
                                    let k = i.checked_div(targets).unwrap_or(0);
                                    let t = i.checked_rem(targets).unwrap_or(0);
                                    (k, t, w)
                                })
                                .collect(),
                        },
                        _ => {
                            let (_, flat) = d.read_flat(output, &ow)?;
                            if cubic {
                                // Per key: in-tangents, values, out-tangents.
                                let stride = targets.saturating_mul(3);
                                ChannelValues::Weights(
                                    flat.chunks_exact(stride.max(1))
                                        .flat_map(|k| {
                                            k.get(targets..targets.saturating_mul(2))
                                                .unwrap_or(&[])
                                                .to_vec()
                                        })
                                        .collect(),
                                )
                            } else {
                                ChannelValues::Weights(flat)
                            }
                        }
                    }
                }
                other => {
                    return Err(ImportError::Unsupported(alloc::format!(
                        "{what}: animated path {other:?}"
                    )));
                }
            };
            channels.push(Channel {
                node,
                times,
                interpolation,
                values,
            });
        }
        out.push(Animation { name, channels });
    }
    Ok(out)
}

/// The camera whose `yfov` a `KHR_animation_pointer` target animates
/// (`/cameras/N/perspective/yfov`), if that is what `target` points at.
fn yfov_pointer(target: &Value) -> Option<usize> {
    let pointer = target
        .get("extensions")?
        .get("KHR_animation_pointer")?
        .get("pointer")?
        .as_str()?;
    let n = pointer
        .strip_prefix("/cameras/")?
        .strip_suffix("/perspective/yfov")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse().ok())
        .flatten()
}

/// The key values of an output accessor: as they are, or the middle of each
/// CUBICSPLINE triple (in-tangent, value, out-tangent).
fn values_of<const N: usize>(
    v: Vec<[f32; N]>,
    keys: usize,
    cubic: bool,
    what: &str,
) -> Result<Vec<[f32; N]>> {
    let per = if cubic { 3 } else { 1 };
    if v.len() != keys.saturating_mul(per) {
        return Err(bad!("{what}: {} values for {keys} keys", v.len()));
    }
    if !cubic {
        return Ok(v);
    }
    Ok(v.chunks_exact(3)
        .filter_map(|k| k.get(1).copied())
        .collect())
}
