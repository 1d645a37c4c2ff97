//! [`Scene`] → Quake MDL (the way back).
//!
//! - **With fitting extras** (what [`scene`](super::scene) records under `mdl.*` when it
//!   exports every pose): the header fields (`mdl.scale`, `mdl.origin`, `mdl.radius`,
//!   `mdl.eye`, `mdl.synctype`, `mdl.flags`, `mdl.size`, `mdl.skinwidth`,
//!   `mdl.skinheight`), the texture coordinates with their `onseam` words and the
//!   triangles with `facesfront` (`mdl.texcoords`, `mdl.triangles`), the frame
//!   structure (`mdl.frames`: `null` per single frame, the group header — bounds and
//!   intervals — per frame group), every pose's name, bounds and packed vertices
//!   (`mdl.poses`) and the bytes after the frames (`mdl.trailing`) rebuild the model,
//!   used when it gives back the scene's geometry. Skin images come from the scene's
//!   materials through the palette (exact colours map back to their index); `mdl.skins`
//!   holds, per skin entry, `null` (the material image says it all), the raw indices
//!   (when the palette has the colour twice or `MF_HOLEY` hides one) or a skin group
//!   (`images`, `intervals`). [`to_bytes`] applies `mdl.patch` (the hash-guarded bytes
//!   the owned model cannot hold, such as unusual type words) for a byte-identical file.
//! - **Otherwise** from the geometry: the first mesh's primitives merged; **one MDL vertex
//!   per scene vertex, `onseam` 0 and `facesfront` 1 everywhere** (every vertex has its
//!   own texel, so no seam rule applies and all three engines draw the UVs as given;
//!   the classic front/back seam form is used only through the extras),
//!   `s = round(u · skinwidth − 0.5)`, `t = round(v · skinheight − 0.5)` (GLQuake's
//!   half-texel), clamped to the skin; one scale and origin over every pose
//!   (`idmodel_mdl::Quantizer::fit`: the per-axis bounds over 255 steps); normals to the
//!   nearest table normal; bounding radius the largest distance from the origin of the
//!   model; frames from the animations ([`crate::back::sample_frames`]: weight clips at
//!   their keys, node and skin animation sampled at the key times or
//!   [`BackOptions::fps`], named after the clip: `run1`, `run2` …); by default a clip
//!   whose keys are 0.1 s apart becomes single frames and any other clip **one frame
//!   group** whose intervals are the keys' cumulative end times (the last pose lasting
//!   0.1 s, or `1 / fps`); [`BackOptions::groups`] makes every clip a group, or none;
//!   the skin from the first
//!   material's embedded image (then one more skin per material no primitive draws: the
//!   other skins, as a GLB's `KHR_materials_variants` carries them), its width rounded up to a multiple of 4 (WinQuake's rule)
//!   and its height at most 480 (nearest-neighbour resampling when either changes),
//!   quantised to the Quake palette with the **redmean** colour distance (Compuphase's
//!   weighted RGB approximation of perceived difference; [`crate::back::redmean`], the
//!   metric MD2's PCX skins use too). The scene's materials say
//!   nothing of emission, so the fullbright rows (224–255) are used only for texels whose
//!   colour is exactly one of theirs (an id skin keeps its fullbrights); with alpha
//!   masking, texels with alpha below half become index 255 and `MF_HOLEY` is set.
//! - **Engine limits** ([`BackOptions::engine`]): the written bytes go through
//!   `idmodel_mdl`'s `check`; a hazard or refusal refuses the write, naming the finding.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use idmodel_mdl::{
    self as file, Flags, FrameData, Mdl, Model, Palette, PoseData, Quantizer, SeamRule, SkinData,
    SkinOptions, TexCoord, Tri, WeldedMesh, skin_to_rgba_vec,
};

use idmodel_core::findings::Engine;

use crate::back::{
    BackOptions, apply_vertex_fixes, back_impl, base64_decode, base64_encode, blob, bytes_of,
    make_patch, mdl_skin_size, merge, model_of, recover_target_vertices, refuse_findings,
    resample_nearest, sample_frames, vertex_fixes,
};
use crate::{AlphaMode, Error, Image, Options, Result, Scene, Value};

/// The largest patch length [`to_bytes`] accepts: 64 MiB.
pub const MAX_PATCHED_BYTES: usize = 64 << 20;

pub use crate::back::MAX_SKIN_HEIGHT;

fn floats(v: &[f32]) -> Value {
    Value::List(v.iter().map(|&f| Value::Float(f)).collect())
}

fn le_bytes_f32(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn le_bytes_i32(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(i32::to_le_bytes).collect()
}

/// The marker of [`words_value`]'s 16-bit form.
const I16: &str = "i16:";

/// Integer words as base64 of little-endian `i16` after [`I16`] when every one fits (the
/// texture coordinates and triangles of every real model: half the characters), else of
/// `i32` as the file stores them.
fn words_value(v: &[i32]) -> Value {
    let narrow: Option<Vec<u8>> = v
        .iter()
        .map(|&w| i16::try_from(w).ok().map(i16::to_le_bytes))
        .collect::<Option<Vec<[u8; 2]>>>()
        .map(|b| b.concat());
    match narrow {
        Some(b) => Value::Str(alloc::format!("{I16}{}", base64_encode(&b))),
        None => Value::Str(base64_encode(&le_bytes_i32(v.iter().copied()))),
    }
}

/// The words [`words_value`] wrote under `key`, in either form.
fn words(scene: &Scene, key: &str) -> Option<Vec<i32>> {
    let text = scene.extras.get(key).and_then(Value::as_str)?;
    match text.strip_prefix(I16) {
        Some(b64) => Some(
            base64_decode(b64)?
                .chunks_exact(2)
                .filter_map(|c| match *c {
                    [a, b] => Some(i32::from(i16::from_le_bytes([a, b]))),
                    _ => None,
                })
                .collect(),
        ),
        None => Some(i32_words(&base64_decode(text)?)),
    }
}

fn skin_options(flags: Flags) -> SkinOptions<'static> {
    SkinOptions {
        palette: Palette::QUAKE,
        transparent_255: flags.contains(Flags::HOLEY),
    }
}

/// Records in `scene.extras` what [`from_scene`] needs to rebuild `mdl` exactly (see the
/// module docs).
pub fn record_extras(mdl: &Mdl<'_>, scene: &mut Scene) {
    let model = Model::from(mdl);
    let options = skin_options(model.flags);
    let e = &mut scene.extras;
    e.set("mdl.scale", floats(&model.scale));
    e.set("mdl.origin", floats(&model.origin));
    e.set("mdl.radius", Value::Float(model.bounding_radius));
    e.set("mdl.eye", floats(&model.eye_position));
    e.set("mdl.synctype", Value::Int(i64::from(model.sync_type)));
    e.set("mdl.flags", Value::Int(i64::from(model.flags.bits())));
    e.set("mdl.size", Value::Float(model.size));
    e.set("mdl.skinwidth", Value::Int(i64::from(model.skin_width)));
    e.set("mdl.skinheight", Value::Int(i64::from(model.skin_height)));
    // Whether each palette index comes back from its colour (the skin's texels are
    // coloured one by one, so a skin comes back when every texel's index does).
    let all: Vec<u8> = (0..=255u8).collect();
    let back = quantise_each(&skin_to_rgba_vec(&all, &options), options.transparent_255);
    let kept: Vec<bool> = back.iter().zip(&all).map(|(b, i)| *b == Some(*i)).collect();
    // The raw texels of each skin recorded as `Null` (rebuilt from its colours), which the
    // patch check below can take instead of quantising the colours again.
    let mut null_skins: Vec<Option<&[u8]>> = Vec::with_capacity(model.skins.len());
    let skins = model
        .skins
        .iter()
        .map(|s| match s {
            SkinData::Single(pixels) => {
                let null = pixels
                    .iter()
                    .all(|&p| kept.get(usize::from(p)).copied().unwrap_or(false));
                null_skins.push(null.then_some(pixels.as_slice()));
                if null {
                    Value::Null
                } else {
                    Value::Str(base64_encode(pixels))
                }
            }
            SkinData::Group { intervals, images } => {
                null_skins.push(None);
                Value::Object(vec![
                    (
                        String::from("images"),
                        Value::Str(base64_encode(&images.concat())),
                    ),
                    (
                        String::from("intervals"),
                        Value::Str(base64_encode(&le_bytes_f32(intervals.iter().copied()))),
                    ),
                ])
            }
        })
        .collect();
    e.set("mdl.skins", Value::List(skins));
    let st: Vec<i32> = model
        .texcoords
        .iter()
        .flat_map(|t| [t.onseam, t.s, t.t])
        .collect();
    e.set("mdl.texcoords", words_value(&st));
    let tris: Vec<i32> = model
        .triangles
        .iter()
        .flat_map(|t| {
            let v = t.vertices.map(|i| i32::try_from(i).unwrap_or(i32::MAX));
            [t.faces_front, v[0], v[1], v[2]]
        })
        .collect();
    e.set("mdl.triangles", words_value(&tris));
    let mut groups = Vec::new();
    for (i, f) in model.frames.iter().enumerate() {
        if let FrameData::Group {
            bbox_min,
            bbox_max,
            intervals,
            ..
        } = f
        {
            let mut h = Vec::new();
            h.extend(bbox_min.v);
            h.push(bbox_min.light_normal_index);
            h.extend(bbox_max.v);
            h.push(bbox_max.light_normal_index);
            h.extend(le_bytes_f32(intervals.iter().copied()));
            groups.push(Value::List(vec![
                Value::Int(i64::try_from(i).unwrap_or(i64::MAX)),
                Value::Str(base64_encode(&h)),
            ]));
        }
    }
    e.set("mdl.groups", Value::List(groups));
    e.set(
        "mdl.frame_count",
        Value::Int(i64::try_from(model.frames.len()).unwrap_or(0)),
    );
    let mut poses: Vec<&PoseData> = Vec::with_capacity(mdl.pose_count());
    poses.extend(model.frames.iter().flat_map(FrameData::poses));
    if let Some(p) = poses.first() {
        e.set("mdl.pose0", Value::Str(base64_encode(&p.name)));
    }
    // Bounds that are not the vertices' own (as modelgen computes them): kept, as runs
    // of 16-byte records (first pose `u32`, pose count `u32`, packed min, packed max).
    let mut runs: Vec<(u32, u32, [u8; 8])> = Vec::new();
    for (i, p) in poses.iter().enumerate() {
        if p.vertex_bounds() == (p.bbox_min.v, p.bbox_max.v) {
            continue;
        }
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        let (a, b) = (p.bbox_min, p.bbox_max);
        let key = [
            a.v[0],
            a.v[1],
            a.v[2],
            a.light_normal_index,
            b.v[0],
            b.v[1],
            b.v[2],
            b.light_normal_index,
        ];
        match runs.last_mut() {
            Some((start, n, k)) if *k == key && start.saturating_add(*n) == i => {
                *n = n.saturating_add(1);
            }
            _ => runs.push((i, 1, key)),
        }
    }
    let bbox: Vec<u8> = runs
        .iter()
        .flat_map(|(start, n, k)| {
            start
                .to_le_bytes()
                .into_iter()
                .chain(n.to_le_bytes())
                .chain(*k)
        })
        .collect();
    if !bbox.is_empty() {
        e.set("mdl.bbox_fixes", Value::Str(base64_encode(&bbox)));
    }
    let mut known = None;
    if let Some(merged) = merge(scene) {
        let map = source_map(&mdl.welded_mesh(SeamRule::Gl), model.texcoords.len());
        let actual: Vec<&[idmodel_mdl::raw::TriVertex]> =
            poses.iter().map(|p| p.vertices.as_slice()).collect();
        let mut recovered = recover_target_vertices(
            &merged,
            &map,
            &|_| (model.scale, model.origin),
            None,
            &actual,
        );
        let fixes = vertex_fixes(&recovered, &actual);
        if !fixes.is_empty() {
            scene
                .extras
                .set("mdl.vertex_fixes", Value::Str(base64_encode(&fixes)));
        }
        // What the way back recovers from this scene and these fixes, so the patch check
        // below need not recover every frame a second time.
        if apply_vertex_fixes(&mut recovered, &fixes).is_some() {
            known = Some(Recovered {
                merged,
                map,
                vertices: recovered,
            });
        }
    }
    let e = &mut scene.extras;
    if !model.trailing.is_empty() {
        e.set("mdl.trailing", Value::Str(base64_encode(&model.trailing)));
    }
    if let Some(written) =
        inner_from_extras_with(scene, known, &null_skins).and_then(|m| file::write(&m).ok())
        && let Some(patch) = make_patch(&written, mdl.bytes())
    {
        scene.extras.set("mdl.patch", patch);
    }
}

/// Per source vertex, the first welded vertex that shows it.
fn source_map(mesh: &WeldedMesh, n: usize) -> Vec<Option<usize>> {
    let mut map = vec![None; n];
    for (k, v) in mesh.vertices.iter().enumerate() {
        if let Some(slot) = usize::try_from(v.source).ok().and_then(|i| map.get_mut(i))
            && slot.is_none()
        {
            *slot = Some(k);
        }
    }
    map
}

/// The palette index of every RGBA texel that is exactly a palette colour (the first
/// such index; alpha below 128 is 255 when `holey`), `None` for one that is not.
fn quantise_each(rgba: &[u8], holey: bool) -> Vec<Option<u8>> {
    let lookup = exact_lookup();
    rgba.chunks_exact(4)
        .map(|px| match *px {
            [_, _, _, a] if holey && a < 128 => Some(file::TRANSPARENT_INDEX),
            [r, g, b, _] => lookup.get(&[r, g, b]).copied(),
            _ => None,
        })
        .collect()
}

fn exact_lookup() -> BTreeMap<[u8; 3], u8> {
    let mut map = BTreeMap::new();
    for (i, c) in Palette::QUAKE.colors().iter().enumerate() {
        map.entry(*c).or_insert(u8::try_from(i).unwrap_or(0));
    }
    map
}

pub use crate::back::redmean;

/// Palette indices of `rgba` (see the module docs: exact colours keep their index, others
/// take the nearest colour outside the fullbright rows by [`redmean`]; with `holey`,
/// alpha below half is index 255): [`crate::back::quantise_to_palette`] with the Quake
/// palette.
pub fn quantise_rgba(rgba: &[u8], holey: bool) -> Vec<u8> {
    crate::back::quantise_to_palette(
        rgba,
        &crate::back::PaletteRules {
            colors: Palette::QUAKE.colors(),
            exact_below: 256,
            nearest_below: usize::from(file::FIRST_FULLBRIGHT),
            transparent: holey.then_some(file::TRANSPARENT_INDEX),
        },
    )
}

fn f32s(v: Option<&Value>) -> Option<Vec<f32>> {
    v?.as_list()?.iter().map(Value::as_f32).collect()
}

fn f3(v: Option<&Value>) -> Option<[f32; 3]> {
    match f32s(v)?.as_slice() {
        [a, b, c] => Some([*a, *b, *c]),
        _ => None,
    }
}

fn i32_words(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .filter_map(|c| match *c {
            [a, b, c, d] => Some(i32::from_le_bytes([a, b, c, d])),
            _ => None,
        })
        .collect()
}

fn f32_words(b: &[u8]) -> Vec<f32> {
    i32_words(b)
        .into_iter()
        .map(|w| f32::from_le_bytes(w.to_le_bytes()))
        .collect()
}

fn trivertex(b: &[u8]) -> idmodel_mdl::raw::TriVertex {
    match *b {
        [x, y, z, n] => idmodel_mdl::raw::TriVertex {
            v: [x, y, z],
            light_normal_index: n,
        },
        _ => idmodel_mdl::raw::TriVertex::default(),
    }
}

/// The material image of skin `i` as palette indices (`None` when it has none of the
/// skin's size).
fn material_pixels(scene: &Scene, i: usize, w: u32, h: u32, holey: bool) -> Option<Vec<u8>> {
    let image = scene.materials.get(i)?.image.as_ref()?;
    if image.pixel_size()? != (w, h) {
        return None;
    }
    Some(quantise_rgba(&image.rgba8_pixels()?, holey))
}

/// Whether `image` shows exactly the colours of the skin texels `raw` through the Quake
/// palette (as the adapter draws them): compared index for index when the image holds
/// those indices with that palette, else colour for colour.
fn shows_skin(image: &Image, raw: &[u8], flags: Flags) -> bool {
    let options = skin_options(flags);
    if let Image::Indexed8 {
        palette, indices, ..
    } = image
        && indices.as_slice() == raw
        && **palette == crate::mdl::skin_palette(&options)
    {
        return true;
    }
    image
        .rgba8_pixels()
        .is_some_and(|shown| *shown == *skin_to_rgba_vec(raw, &options))
}

/// The model the `mdl.*` extras describe, if they are complete and consistent.
fn inner_from_extras(scene: &Scene) -> Option<Model> {
    inner_from_extras_with(scene, None, &[])
}

/// The way back's recovery of a scene's frames, kept by [`record_extras`] for its patch
/// check: the merged mesh, the file-vertex → scene-vertex map and the recovered packed
/// vertices of every frame with the vertex fixes applied.
struct Recovered {
    merged: crate::back::Merged,
    map: Vec<Option<usize>>,
    vertices: Vec<Vec<idmodel_mdl::raw::TriVertex>>,
}

/// [`inner_from_extras`], taking the frames' packed vertices from `known` when its map is
/// the one this recovery builds (it always is for the scene `known` was made from; the
/// check keeps the two paths the same by construction).
///
/// `null_skins[i]`, when given, is the file's texels of skin `i` recorded as `Null`: every
/// texel's index comes back from its colour, so quantising the material's image gives
/// exactly these texels when that image is still their colours (checked), and they are
/// taken without quantising again.
fn inner_from_extras_with(
    scene: &Scene,
    known: Option<Recovered>,
    null_skins: &[Option<&[u8]>],
) -> Option<Model> {
    let e = &scene.extras;
    let int = |k: &str| e.get(k).and_then(Value::as_int);
    let flags = Flags::from_bits(u32::try_from(int("mdl.flags")?).ok()?);
    let skin_width = u32::try_from(int("mdl.skinwidth")?).ok()?;
    let skin_height = u32::try_from(int("mdl.skinheight")?).ok()?;
    let image = usize::try_from(skin_width)
        .ok()?
        .checked_mul(usize::try_from(skin_height).ok()?)?;
    let holey = flags.contains(Flags::HOLEY);
    let skins = e
        .get("mdl.skins")?
        .as_list()?
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Null => {
                let shown = null_skins.get(i).copied().flatten().filter(|raw| {
                    scene
                        .materials
                        .get(i)
                        .and_then(|m| m.image.as_ref())
                        .is_some_and(|image| {
                            image.pixel_size() == Some((skin_width, skin_height))
                                && shows_skin(image, raw, flags)
                        })
                });
                match shown {
                    Some(raw) => Some(SkinData::Single(raw.to_vec())),
                    None => material_pixels(scene, i, skin_width, skin_height, holey)
                        .map(SkinData::Single),
                }
            }
            Value::Str(s) => {
                let raw = crate::back::base64_decode(s)?;
                // The raw indices stand while the material still shows them.
                let image = scene.materials.get(i)?.image.as_ref()?;
                image.pixel_size()?;
                if shows_skin(image, &raw, flags) {
                    Some(SkinData::Single(raw))
                } else {
                    material_pixels(scene, i, skin_width, skin_height, holey).map(SkinData::Single)
                }
            }
            Value::Object(fields) => {
                let get = |k: &str| {
                    fields
                        .iter()
                        .find(|(n, _)| n == k)
                        .and_then(|(_, v)| v.as_str())
                        .and_then(crate::back::base64_decode)
                };
                let all = get("images")?;
                let intervals = f32_words(&get("intervals")?);
                let images: Vec<Vec<u8>> = all.chunks(image.max(1)).map(<[u8]>::to_vec).collect();
                Some(SkinData::Group { intervals, images })
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let st = words(scene, "mdl.texcoords")?;
    let texcoords: Vec<TexCoord> = st
        .chunks_exact(3)
        .filter_map(|c| match *c {
            [onseam, s, t] => Some(TexCoord { onseam, s, t }),
            _ => None,
        })
        .collect();
    let nv = texcoords.len();
    let tris = words(scene, "mdl.triangles")?;
    let triangles = tris
        .chunks_exact(4)
        .filter_map(|c| match *c {
            [faces_front, a, b, c] => Some(Tri {
                faces_front,
                vertices: [a, b, c].map(|v| u32::try_from(v).unwrap_or(u32::MAX)),
            }),
            _ => None,
        })
        .collect();
    let scale = f3(e.get("mdl.scale"))?;
    let origin = f3(e.get("mdl.origin"))?;
    let (merged, known) = match known {
        Some(k) => (k.merged, Some((k.map, k.vertices))),
        None => (merge(scene)?, None),
    };
    if merged.target_names.len() != merged.targets.len() {
        return None;
    }
    // The welded mesh of these texture coordinates and triangles: a one-pose skeleton.
    let mut model = Model {
        scale,
        origin,
        bounding_radius: e.get("mdl.radius")?.as_f32()?,
        eye_position: f3(e.get("mdl.eye"))?,
        skin_width,
        skin_height,
        sync_type: i32::try_from(int("mdl.synctype")?).ok()?,
        flags,
        size: e.get("mdl.size")?.as_f32()?,
        skins,
        texcoords,
        triangles,
        frames: vec![FrameData::Single(PoseData {
            vertices: vec![idmodel_mdl::raw::TriVertex::default(); nv],
            ..PoseData::default()
        })],
        trailing: match e.get("mdl.trailing") {
            Some(_) => blob(scene, "mdl.trailing")?,
            None => Vec::new(),
        },
    };
    let skeleton = file::write(&model).ok()?;
    let map = source_map(&Mdl::parse(&skeleton).ok()?.welded_mesh(SeamRule::Gl), nv);
    drop(skeleton);
    let vertices = match known {
        Some((m, v)) if m == map => v,
        _ => {
            let mut vertices =
                recover_target_vertices(&merged, &map, &|_| (scale, origin), None, &[]);
            if let Some(fixes) = e.get("mdl.vertex_fixes") {
                apply_vertex_fixes(&mut vertices, &crate::back::base64_decode(fixes.as_str()?)?)?;
            }
            vertices
        }
    };
    let pose0 = crate::back::base64_decode(e.get("mdl.pose0")?.as_str()?)?;
    let mut poses: Vec<PoseData> = vertices
        .into_iter()
        .enumerate()
        .map(|(i, vertices)| {
            let name = match i.checked_sub(1) {
                None => {
                    let mut n = [0u8; 16];
                    for (d, s) in n.iter_mut().zip(&pose0) {
                        *d = *s;
                    }
                    n
                }
                Some(t) => {
                    PoseData::name_field(merged.target_names.get(t).map_or("", String::as_str))
                }
            };
            let mut p = PoseData {
                name,
                vertices,
                ..PoseData::default()
            };
            p.compute_bounds();
            p
        })
        .collect();
    if let Some(b) = e.get("mdl.bbox_fixes") {
        let b = crate::back::base64_decode(b.as_str()?)?;
        if b.len().checked_rem(16) != Some(0) {
            return None;
        }
        for r in b.chunks_exact(16) {
            let word = |k: usize| -> Option<usize> {
                usize::try_from(u32::from_le_bytes(
                    r.get(k..k.checked_add(4)?)?.try_into().ok()?,
                ))
                .ok()
            };
            let (start, n) = (word(0)?, word(4)?);
            for p in poses.get_mut(start..start.checked_add(n)?)? {
                p.bbox_min = trivertex(r.get(8..12)?);
                p.bbox_max = trivertex(r.get(12..16)?);
            }
        }
    }
    let frame_count = usize::try_from(int("mdl.frame_count")?).ok()?;
    let mut groups: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
    for g in e.get("mdl.groups")?.as_list()? {
        let [i, h] = g.as_list()? else {
            return None;
        };
        groups.insert(
            usize::try_from(i.as_int()?).ok()?,
            crate::back::base64_decode(h.as_str()?)?,
        );
    }
    let mut pose_list = poses.drain(..);
    // Every frame but an empty group takes a pose, so the poses bound the frames the
    // loop can make; `frame_count` comes from extras and must not size the allocation.
    let mut frames =
        Vec::with_capacity(frame_count.min(pose_list.len().saturating_add(groups.len())));
    for i in 0..frame_count {
        match groups.get(&i) {
            None => frames.push(FrameData::Single(pose_list.next()?)),
            Some(h) => {
                let intervals = f32_words(h.get(8..)?);
                let poses = (0..intervals.len())
                    .map(|_| pose_list.next())
                    .collect::<Option<Vec<_>>>()?;
                frames.push(FrameData::Group {
                    bbox_min: trivertex(h.get(0..4)?),
                    bbox_max: trivertex(h.get(4..8)?),
                    intervals,
                    poses,
                });
            }
        }
    }
    if pose_list.next().is_some() {
        return None;
    }
    drop(pose_list);
    model.frames = frames;
    Some(model)
}

back_impl!(Model, Mdl, "mdl.patch", "MDL", inner_from_extras);

/// The owned MDL model of `scene` (see the module docs), checked against
/// [`BackOptions::engine`]'s limits.
///
/// ```
/// use idmodel_mdl::{Mdl, Model};
/// use idmodel_scene::{Options, back::BackOptions};
/// let bytes = Model::example_groups().write()?;
/// let scene = idmodel_scene::mdl::scene(&Mdl::parse(&bytes)?, "m", &Options::default())?;
/// let model = idmodel_scene::mdl::from_scene(&scene, &BackOptions::default())?;
/// assert_eq!(model, Model::example_groups());
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn from_scene(scene: &Scene, options: &BackOptions) -> Result<Model> {
    model_of(scene, options)
}

/// The MDL file of `scene`: [`from_scene`] written, with the `mdl.patch` extra applied
/// when the model came from unedited extras.
///
/// ```
/// use idmodel_mdl::{Mdl, Model};
/// use idmodel_scene::{Options, back::BackOptions};
/// let bytes = Model::example().write()?;
/// let scene = idmodel_scene::mdl::scene(&Mdl::parse(&bytes)?, "m", &Options::default())?;
/// assert_eq!(idmodel_scene::mdl::to_bytes(&scene, &BackOptions::default())?, bytes);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn to_bytes(scene: &Scene, options: &BackOptions) -> Result<Vec<u8>> {
    bytes_of::<Model>(scene, options)
}

/// The skin of the first material: `(width, height, indices, holey)` (see the module
/// docs for the size rules); a 4 × 4 skin of index 0 without an image.
fn skin(scene: &Scene, material: Option<usize>) -> (u32, u32, Vec<u8>, bool) {
    let m = material
        .and_then(|m| scene.materials.get(m))
        .or(scene.materials.first());
    let holey = m.is_some_and(|m| matches!(m.alpha, AlphaMode::Mask(_)));
    let Some(((w, h), pixels)) = m
        .and_then(|m| m.image.as_ref())
        .and_then(|image| image.pixel_size().zip(image.rgba8_pixels()))
    else {
        return (4, 4, vec![0; 16], false);
    };
    let (nw, nh) = mdl_skin_size(w, h);
    let rgba = resample_nearest(&pixels, w, h, nw, nh);
    (nw, nh, quantise_rgba(&rgba, holey), holey)
}

/// The drawn skin, then the image of every material no primitive draws, in material
/// order, resampled to the drawn skin's size: the other skins of a model, which a GLB
/// carries as `KHR_materials_variants` and an editor keeps.
fn skins_with_variants(
    scene: &Scene,
    drawn: Option<usize>,
    first: Vec<u8>,
    width: u32,
    height: u32,
    holey: bool,
) -> Vec<SkinData> {
    let mut skins = vec![SkinData::Single(first)];
    let used = |m: usize| {
        scene
            .meshes
            .iter()
            .flat_map(|mesh| &mesh.primitives)
            .any(|p| p.material == Some(m))
    };
    for (i, m) in scene.materials.iter().enumerate() {
        if drawn == Some(i) || used(i) {
            continue;
        }
        let Some(((w, h), rgba)) = m
            .image
            .as_ref()
            .and_then(|image| image.pixel_size().zip(image.rgba8_pixels()))
        else {
            continue;
        };
        let rgba = resample_nearest(&rgba, w, h, width, height);
        skins.push(SkinData::Single(quantise_rgba(&rgba, holey)));
    }
    skins
}

fn texel(u: f32, size: u32) -> i32 {
    let max = f64::from(size.saturating_sub(1));
    let s = libm::round(f64::from(u) * f64::from(size) - 0.5).clamp(0.0, max);
    // In 0..size after the clamp; `as` turns NaN into 0.
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    let t = s as i32;
    t
}

/// The model built from the geometry alone (see the module docs).
fn fresh(scene: &Scene, options: &BackOptions) -> Result<Model> {
    let merged = merge(scene).ok_or_else(|| Error::new("the scene has no triangles to write"))?;
    let (skin_width, skin_height, pixels, holey) = skin(scene, merged.material);
    let texcoords = merged
        .uvs
        .iter()
        .map(|uv| TexCoord {
            onseam: 0,
            s: texel(uv[0], skin_width),
            t: texel(uv[1], skin_height),
        })
        .collect();
    let triangles = merged
        .indices
        .chunks_exact(3)
        .filter_map(|t| match *t {
            [a, b, c] => Some(Tri {
                faces_front: 1,
                vertices: [a, b, c],
            }),
            _ => None,
        })
        .collect();
    let clips = sample_frames(scene, &merged, options, "the sampler's")?;
    let q = on_grid(
        clips
            .iter()
            .flat_map(|(_, f)| f.iter().flat_map(|f| f.positions.iter())),
    );
    let mut radius = 0.0f32;
    for (_, frames) in &clips {
        for f in frames {
            for p in &f.positions {
                radius = radius.max(libm::sqrtf(idmodel_core::vec::dot(*p, *p)));
            }
        }
    }
    let mut frames = Vec::new();
    for (_, clip) in &clips {
        let poses: Vec<PoseData> = clip
            .iter()
            .map(|f| q.pose(&short_name(&f.name), &f.positions, &f.normals))
            .collect();
        let steady = clip
            .windows(2)
            .all(|w| matches!(w, [a, b] if libm::fabsf(b.time - a.time - 0.1) < 1e-4));
        let group = options.groups.unwrap_or(!steady);
        // The last pose lasts one sample step (0.1 s, QuakeC's frame time, without --fps).
        let last = options
            .fps
            .filter(|f| f.is_finite() && *f > 0.0)
            .map_or(0.1, |f| 1.0 / f);
        if !group || poses.len() < 2 {
            frames.extend(poses.into_iter().map(FrameData::Single));
        } else {
            let step = |i: usize| {
                let t = clip.get(i).map_or(0.0, |f| f.time);
                let next = clip.get(i.saturating_add(1)).map_or(t + last, |f| f.time);
                let first = clip.first().map_or(0.0, |f| f.time);
                (next - first).max(0.001)
            };
            let intervals = (0..poses.len()).map(step).collect();
            let mut group = PoseData {
                vertices: poses
                    .iter()
                    .flat_map(|p| [p.bbox_min, p.bbox_max])
                    .collect(),
                ..PoseData::default()
            };
            group.compute_bounds();
            frames.push(FrameData::Group {
                bbox_min: group.bbox_min,
                bbox_max: group.bbox_max,
                intervals,
                poses,
            });
        }
    }
    let size = average_area(&merged.positions, &merged.indices);
    Ok(Model {
        scale: q.scale,
        origin: q.origin,
        bounding_radius: radius,
        eye_position: [0.0, 0.0, 0.0],
        skin_width,
        skin_height,
        sync_type: 0,
        flags: if holey {
            Flags::HOLEY
        } else {
            Flags::default()
        },
        size,
        skins: skins_with_variants(
            scene,
            merged.material,
            pixels,
            skin_width,
            skin_height,
            holey,
        ),
        texcoords,
        triangles,
        frames,
        trailing: Vec::new(),
    })
}

fn short_name(name: &str) -> String {
    let mut s = String::new();
    for c in name.chars().filter(|&c| c != '\0') {
        if s.len().saturating_add(c.len_utf8()) > 15 {
            break;
        }
        s.push(c);
    }
    s
}

/// The mean triangle area of the base pose (modelgen's `size`).
fn average_area(positions: &[[f32; 3]], indices: &[u32]) -> f32 {
    let mut total = 0.0f32;
    let mut n = 0.0f32;
    for t in indices.chunks_exact(3) {
        let p = |k: usize| {
            t.get(k)
                .and_then(|&i| positions.get(usize::try_from(i).ok()?))
                .copied()
                .unwrap_or([0.0; 3])
        };
        let (a, b, c) = (p(0), p(1), p(2));
        let cr =
            idmodel_core::vec::cross(idmodel_core::vec::sub(b, a), idmodel_core::vec::sub(c, a));
        total += 0.5 * libm::sqrtf(idmodel_core::vec::dot(cr, cr));
        n += 1.0;
    }
    if n > 0.0 { total / n } else { 0.0 }
}

/// The byte grid every position already lies on, axis by axis, else
/// [`Quantizer::fit`]'s: a model that was an MDL and lost its extras in an editor (which
/// keeps positions within float error) comes back on a grid that decodes to the same
/// positions, although its header's scale may have spanned more than the model.
///
/// On an axis, the positions (merged within 10⁻⁵ of the axis's extent) are tried on
/// `n` steps from their minimum, from the extent over the smallest gap up to 255; the
/// first `n` on which every position lies within float error of a grid point is kept.
fn on_grid<'p>(points: impl Iterator<Item = &'p [f32; 3]> + Clone) -> Quantizer {
    let mut q = Quantizer::fit(points.clone());
    for axis in 0..3 {
        let mut v: Vec<f64> = points
            .clone()
            .filter_map(|p| p.get(axis).copied())
            .filter(|x| x.is_finite())
            .map(f64::from)
            .collect();
        v.sort_by(f64::total_cmp);
        let (Some(&lo), Some(&hi)) = (v.first(), v.last()) else {
            continue;
        };
        let extent = hi - lo;
        if extent <= 0.0 {
            continue;
        }
        let tol = extent * 1e-5;
        v.dedup_by(|a, b| (*a - *b).abs() <= tol);
        let gap = v
            .windows(2)
            .filter_map(|w| match w {
                [a, b] => Some(b - a),
                _ => None,
            })
            .fold(f64::INFINITY, f64::min);
        if !gap.is_finite() || gap <= 0.0 {
            continue;
        }
        // Editors keep positions within float error: a position is on the grid when it
        // is within a millionth of the axis's magnitude of a grid point.
        let tol = lo.abs().max(hi.abs()) * 1e-6;
        let mut n = libm::round(extent / gap).max(1.0);
        while n <= 255.0 {
            let step = extent / n;
            let fits = v
                .iter()
                .all(|&x| (x - (lo + libm::round((x - lo) / step) * step)).abs() <= tol);
            if fits {
                #[allow(clippy::as_conversions)] // f64 → f32: a scale and an origin
                if let (Some(s), Some(o)) = (q.scale.get_mut(axis), q.origin.get_mut(axis)) {
                    *s = step as f32;
                    *o = lo as f32;
                }
                break;
            }
            n += 1.0;
        }
    }
    q
}

// Tests may index, unwrap and compute freely: a panic here is a failed assertion.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    /// Words that fit 16 bits take the short form, others the file's 32 bits, and both
    /// (and the 32-bit form of files written before the short one) read back.
    #[test]
    fn words_read_back_in_either_form() {
        let mut scene = Scene::default();
        let small = [0, 1, -32768, 32767, 511];
        let big = [0, 40_000, -1];
        scene.extras.set("a", words_value(&small));
        scene.extras.set("b", words_value(&big));
        scene
            .extras
            .set("c", Value::Str(base64_encode(&le_bytes_i32(small))));
        assert!(
            scene
                .extras
                .get("a")
                .unwrap()
                .as_str()
                .unwrap()
                .starts_with(I16)
        );
        assert!(
            !scene
                .extras
                .get("b")
                .unwrap()
                .as_str()
                .unwrap()
                .starts_with(I16)
        );
        assert_eq!(words(&scene, "a").unwrap(), small);
        assert_eq!(words(&scene, "b").unwrap(), big);
        assert_eq!(words(&scene, "c").unwrap(), small);
        scene.extras.set("d", Value::Str("i16:!!".into()));
        assert_eq!(words(&scene, "d"), None);
    }
}
