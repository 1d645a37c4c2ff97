//! The glTF document ([`build`]): materials, textures and images, meshes, cameras, nodes,
//! skins and animations, as JSON around the binary buffer.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::Result;
use super::animation::{animation, with_frame0};
use super::buffers::{Buffers, expected_bin, finite};
use super::hierarchy::{check_graph, root_of, unit_quat};
use super::images::{encode_png, encode_png_indexed};
use super::primitive::{primitive, unreachable_normals};
use super::quantized::{self, Grid};
use crate::error::{invalid, one_target_count};
use crate::json::Json;
use crate::{ExportError, ExportOptions};
use idmodel_scene::axes::Axes;
use idmodel_scene::{AlphaMode, Image, Mime, Scene, Wrap};

/// Files to write beside a `.gltf`: `(file name, bytes)`.
type Beside = Vec<(String, Vec<u8>)>;

const NEAREST: u32 = 9728;
const CLAMP_TO_EDGE: u32 = 33071;

/// Builds the glTF JSON document (compact) and the binary buffer, the latter in `bin`
/// (empty; its capacity is used).
pub(super) fn build(
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
                // A PNG passed through loses the chunks glTF clients may not honour.
                Image::Encoded {
                    mime: Mime::Png,
                    bytes,
                } => (
                    crate::png::without_unsupported_chunks(bytes).unwrap_or_else(|| bytes.clone()),
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
    // `mesh_lead[i]`: the glTF mesh has frame 0 as an extra first target (its targets are
    // then `mesh_targets[i] + 1`).
    let mut mesh_lead: Vec<bool> = Vec::with_capacity(scene.meshes.len());
    let mut prims = Json::new();
    // Materials no primitive draws (an MDL's or MD2's other skins) would be dropped by an
    // editor such as Blender: then every material is a variant of KHR_materials_variants
    // and every primitive maps each variant to its material.
    let drawn: Vec<bool> = (0..scene.materials.len())
        .map(|m| {
            scene
                .meshes
                .iter()
                .flat_map(|mesh| &mesh.primitives)
                .any(|p| p.material == Some(m) && !p.positions.is_empty() && !p.indices.is_empty())
        })
        .collect();
    let variants = (drawn.contains(&true) && drawn.contains(&false)).then_some(drawn.len());
    // KHR_mesh_quantization: each unskinned mesh's grid (a skinned mesh ignores its
    // node's transform, so it keeps float positions).
    let mut mesh_grids: Vec<Option<Grid>> = Vec::with_capacity(scene.meshes.len());
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        let skinned = mesh_skinned_by_node.get(mi).copied().flatten();
        let limit = mesh_joint_limit.get(mi).copied().flatten();
        // A tag's frames (an MD3 tag drawn as a small mesh, see `is_tag_frames`) keep
        // their exact floats: their positions are the tag's orientation.
        let helper = scene
            .nodes
            .iter()
            .any(|n| n.mesh == Some(mi) && idmodel_scene::is_tag_frames(n));
        let grid = if options.quantize && skinned != Some(true) && !helper {
            quantized::grid(mesh, axes)
        } else {
            None
        };
        // Vertices whose normals a target turns out of a byte base's reach: the mesh
        // then takes frame 0 as its first target (`lead`), shown at rest.
        let hidden: Vec<Vec<bool>> = if grid.is_some() {
            mesh.primitives.iter().map(unreachable_normals).collect()
        } else {
            Vec::new()
        };
        let lead = hidden.iter().any(|h| !h.is_empty());
        mesh_grids.push(grid);
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
            // A normal map needs a tangent space: written with the primitive (the
            // validator warns when a client would have to generate one).
            let tangents = p
                .material
                .and_then(|m| scene.materials.get(m))
                .is_some_and(|m| m.normal.is_some());
            prims.sep();
            primitive(
                &mut buf,
                &mut prims,
                p,
                &what,
                axes,
                options,
                (skinned, limit),
                (tangents, variants),
                grid.as_ref(),
                lead.then(|| hidden.get(pi).map_or(&[][..], Vec::as_slice)),
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
        mesh_lead.push(lead && t > 0);
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
            if lead {
                // Frame 0, named apart from the others (editors key shape keys by name).
                let mut name = String::from("frame0");
                while mesh.target_names.contains(&name) {
                    name.push('_');
                }
                j.str(&name);
            }
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
            // At rest: the base, or with `lead` the first target (frame 0).
            j.key("weights");
            j.raw(if lead { b"[1" } else { b"[0" });
            for _ in 1..t.saturating_add(usize::from(lead)) {
                j.raw(b",0");
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
    // The glTF node that draws each node's mesh when a dequantizing child holds it.
    let mut holders: Vec<Option<usize>> = vec![None; scene.nodes.len()];
    for (ni, node) in scene.nodes.iter().enumerate() {
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
        let mesh = node.mesh.and_then(|m| mesh_map.get(m).copied().flatten());
        let grid = node.mesh.and_then(|m| mesh_grids.get(m).copied().flatten());
        // The dequantizing child comes next among the extra nodes.
        let holder = mesh
            .and(grid)
            .map(|_| extra_base.saturating_add(extra_count));
        children.extend(holder);
        let j = &mut nodes;
        j.sep();
        j.raw(b"{");
        if !children.is_empty() {
            j.key("children");
            j.usizes(&children);
        }
        if let (Some(m), None) = (mesh, grid) {
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
            if grid.is_none() {
                j.key("weights");
                j.f32s(&node.weights);
            }
        }
        if let (Some(m), Some(g)) = (mesh, grid) {
            // The mesh in a child whose uniform scale and translation dequantize it: the
            // node keeps its own transform for its children (MD3 tags), and the importer
            // folds the child back (its extras mark it).
            let e = &mut extra_nodes;
            e.sep();
            e.raw(b"{\"extras\":{\"idmodel\":\"dequantize\"}");
            e.key_usize("mesh", m);
            e.key("name");
            e.str(&alloc::format!("{} mesh", node.name));
            e.key("scale");
            e.f32s(&[g.step; 3]);
            e.key("translation");
            e.f32s(&g.origin);
            if !node.weights.is_empty() {
                e.key("weights");
                let lead = node.mesh.and_then(|m| mesh_lead.get(m).copied());
                if lead == Some(true) {
                    let row = with_frame0(&node.weights);
                    if row.iter().any(|w| !w.is_finite()) {
                        return Err(invalid!(
                            "node {:?}: its rest weights sum past a float",
                            node.name
                        ));
                    }
                    e.f32s(&row);
                } else {
                    e.f32s(&node.weights);
                }
            }
            e.raw(b"}");
            extra_count = extra_count.saturating_add(1);
            if let Some(h) = holders.get_mut(ni) {
                *h = holder;
            }
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
            (&mesh_targets, &mesh_lead),
            &holders,
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
    if let Some(n) = variants {
        root.key("extensions");
        root.raw(b"{\"KHR_materials_variants\":{\"variants\":[");
        for m in scene.materials.iter().take(n) {
            root.sep();
            root.raw(b"{");
            root.key_str("name", &m.name);
            root.raw(b"}");
        }
        root.raw(b"]}}");
    }
    // Used, not required: clients without KHR_animation_pointer keep each camera's static
    // yfov, and those without KHR_materials_variants show each primitive's own material.
    let quantized = options.quantize && mesh_count > 0;
    let used: Vec<&str> = [
        pointer.then_some("\"KHR_animation_pointer\""),
        variants.map(|_| "\"KHR_materials_variants\""),
        quantized.then_some("\"KHR_mesh_quantization\""),
    ]
    .into_iter()
    .flatten()
    .collect();
    // Required: a client that does not know it would read the integers as floats.
    if quantized {
        root.key("extensionsRequired");
        root.raw(b"[\"KHR_mesh_quantization\"]");
    }
    if !used.is_empty() {
        root.key("extensionsUsed");
        root.raw(b"[");
        root.raw(used.join(",").as_bytes());
        root.raw(b"]");
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

#[cfg(test)]
mod tests {
    use super::*;

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
