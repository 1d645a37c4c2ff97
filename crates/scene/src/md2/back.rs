//! [`Scene`] → Quake II MD2 (the way back).
//!
//! - **With fitting extras** (what [`scene`](super::scene) records under `md2.*` when it
//!   exports every frame): the model is rebuilt from them — skin size and names, the
//!   st and triangle lists, every frame's scale, translate and name, the packed
//!   vertices — and used only when the scene it gives back has the same geometry as
//!   the scene passed in (same indices, positions, UVs and morph displacements, within a
//!   hundred-thousandth relative). [`to_bytes`] then applies `md2.patch` (the bytes the
//!   owned model cannot hold: padding after a name's NUL, GL commands another tool
//!   built, an `ofs_glcmds` of 0), guarded by a hash of the writer's output, so an
//!   unedited model comes back **byte-identical**.
//! - **Otherwise** the model is built from the geometry: the first mesh's primitives
//!   merged into one triangle list, **one `xyz` vertex per scene vertex** and one `st` per
//!   distinct texel pair (`s = round(u · skinwidth)`, `t = round(v · skinheight)`); the
//!   frames from the animations ([`crate::back::sample_frames`]): one frame per key of
//!   each weight clip; node and skin animation **sampled** (at the clip's key times, or
//!   every `1 / fps` seconds with [`BackOptions::fps`]; skinned meshes baked by their
//!   joints), frames named after the clip (`run1`, `run2` …); without animations the base
//!   pose and one frame per morph target; per frame, scale and translate
//!   as qdata chooses them (`translate = min`, `scale = (max − min) / 255` per axis,
//!   `v = rint((p − translate) / scale)` clamped to 0..=255); normals to the nearest of
//!   the 162 table normals (largest dot product); the skin size from the first
//!   material's embedded image (else the `md2.skinwidth`/`md2.skinheight` extras, else
//!   the grid the texture coordinates sit on — see [`texel_grid`] —, else 256 × 256;
//!   an image's size is scaled with its aspect to at most 480 texels tall,
//!   [`md2_skin_size`], as Quake II refuses taller skins); skins referenced by
//!   [`BackOptions::skin_names`], else by the material names (the library writes no image: the `idmodel` command writes the skin as an
//!   8-bit PCX in Quake II's palette, `idmodel_assets::images::quantise_quake2` with the
//!   MDL quantiser's redmean metric, and references it); GL commands
//!   generated as qdata does (`idmodel_md2::build_gl_commands`: strips and fans).
//! - **Engine limits** ([`BackOptions::engine`]): the written bytes go through
//!   `idmodel_md2`'s `check`; a hazard or refusal refuses the write, naming the finding.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use idmodel_md2::{self as file, FrameData, Md2, Model, Triangle, raw};

use idmodel_core::findings::Engine;

use crate::back::{
    BackOptions, apply_vertex_fixes, back_impl, base64_encode, blob, bounds, bytes_of, make_patch,
    md2_skin_size, merge, model_of, nearest_normal, quantise, recover_target_vertices,
    refuse_findings, sample_frames, target_frame_bounds, vertex_fixes,
};
use crate::{Error, Image, Options, Result, Scene, Value};

/// The largest patch length [`to_bytes`] accepts (Quake II's model hunk is 2 MiB; UFO:AI
/// files reach 4 MiB): 64 MiB.
pub const MAX_PATCHED_BYTES: usize = 64 << 20;

/// Records in `scene.extras` what [`from_scene`] needs to rebuild `md2` exactly (see the
/// module docs and [`crate::md2`]). `scene` must be what [`super::scene`] made of `md2`
/// with every frame: the packed vertices are not stored but recovered from its positions
/// and normals, and only the vertices that recovery misses are kept (`md2.vertex_fixes`).
pub fn record_extras(md2: &Md2<'_>, scene: &mut Scene) {
    record_extras_for(md2, scene, false);
}

/// [`record_extras`] of a scene made for a quantized glTF ([`crate::Options::quantized`]):
/// every frame's translation is recorded, since the frame's bounds the way back would
/// take it from are moved by the quantization.
pub fn record_extras_for(md2: &Md2<'_>, scene: &mut Scene, quantized: bool) {
    let model = Model::from(*md2);
    let e = &mut scene.extras;
    e.set("md2.skinwidth", Value::Int(i64::from(model.skin_width)));
    e.set("md2.skinheight", Value::Int(i64::from(model.skin_height)));
    e.set(
        "md2.skins",
        Value::List(
            model
                .skins
                .iter()
                .map(|s| Value::Str(String::from_utf8_lossy(s).into_owned()))
                .collect(),
        ),
    );
    let st: Vec<u8> = model
        .st
        .iter()
        .flat_map(|s| [s[0].to_le_bytes(), s[1].to_le_bytes()])
        .flatten()
        .collect();
    e.set("md2.st", Value::Str(base64_encode(&st)));
    let tris: Vec<u8> = model
        .triangles
        .iter()
        .flat_map(|t| t.xyz.into_iter().chain(t.st))
        .flat_map(u16::to_le_bytes)
        .collect();
    e.set("md2.triangles", Value::Str(base64_encode(&tris)));
    e.set(
        "md2.scales",
        scale_runs(model.frames.iter().map(|f| f.scale)),
    );
    let first = model
        .frames
        .first()
        .map(|f| f.name.as_slice())
        .unwrap_or(&[]);
    e.set(
        "md2.frame0",
        Value::Str(String::from_utf8_lossy(first).into_owned()),
    );
    e.set(
        "md2.num_xyz",
        Value::Int(i64::try_from(md2.vertex_count()).unwrap_or(0)),
    );
    e.set("md2.gl_commands", Value::Bool(model.gl_commands));
    let mut known = None;
    if let Some(merged) = merge(scene) {
        let frame_bounds = target_frame_bounds(&merged);
        let mut exceptions = Vec::new();
        for (i, (f, (lo, _))) in model.frames.iter().zip(&frame_bounds).enumerate() {
            if quantized || lo.map(f32::to_bits) != f.translate.map(f32::to_bits) {
                exceptions.extend(u32::try_from(i).unwrap_or(u32::MAX).to_le_bytes());
                f.translate
                    .iter()
                    .for_each(|x| exceptions.extend(x.to_le_bytes()));
            }
        }
        if !exceptions.is_empty() {
            scene
                .extras
                .set("md2.translates", Value::Str(base64_encode(&exceptions)));
        }
        let map = xyz_map(&md2.soft_mesh(), md2.vertex_count());
        let single = md2.single_normal_index();
        if let Some(n) = single {
            scene
                .extras
                .set("md2.normal_index", Value::Int(i64::from(n)));
        }
        let quant: Vec<([f32; 3], [f32; 3])> = (0..frame_bounds.len())
            .map(|f| {
                model
                    .frames
                    .get(f)
                    .map_or(([0.0; 3], [0.0; 3]), |f| (f.scale, f.translate))
            })
            .collect();
        let actual: Vec<&[raw::TriVertex]> =
            model.frames.iter().map(|f| f.vertices.as_slice()).collect();
        let mut recovered = recover_target_vertices(
            &merged,
            &map,
            &|f| quant.get(f).copied().unwrap_or(([0.0; 3], [0.0; 3])),
            single,
            &actual,
        );
        let fixes = vertex_fixes(&recovered, &actual);
        if !fixes.is_empty() {
            scene
                .extras
                .set("md2.vertex_fixes", Value::Str(base64_encode(&fixes)));
        }
        // What the way back recovers from this scene and these fixes, so the patch check
        // below need not pose and recover every frame a second time.
        if apply_vertex_fixes(&mut recovered, &fixes).is_some() {
            known = Some(Recovered {
                merged,
                bounds: frame_bounds,
                map,
                quant,
                vertices: recovered,
            });
        }
    }
    if let Some(rebuilt) = model_from_extras_with(scene, known)
        && let Ok(written) = file::write(&rebuilt)
        && let Some(patch) = make_patch(&written, md2.bytes())
    {
        scene.extras.set("md2.patch", patch);
    }
}

/// The frames' scales as runs `[[count, base64 of 3 f32], …]` (tools that keep one
/// scale for thousands of frames then cost one run).
fn scale_runs(scales: impl Iterator<Item = [f32; 3]>) -> Value {
    let mut runs: Vec<(i64, [u32; 3])> = Vec::new();
    for sc in scales {
        let bits = sc.map(f32::to_bits);
        match runs.last_mut() {
            Some((n, last)) if *last == bits => *n = n.saturating_add(1),
            _ => runs.push((1, bits)),
        }
    }
    Value::List(
        runs.into_iter()
            .map(|(n, bits)| {
                let bytes: Vec<u8> = bits.iter().flat_map(|b| b.to_le_bytes()).collect();
                Value::List(alloc::vec![
                    Value::Int(n),
                    Value::Str(base64_encode(&bytes))
                ])
            })
            .collect(),
    )
}

/// The per-frame scales [`scale_runs`] stored, at most `limit` of them.
fn scales_of(v: &Value, limit: usize) -> Option<Vec<[f32; 3]>> {
    let mut out = Vec::new();
    for run in v.as_list()? {
        let [n, bytes] = run.as_list()? else {
            return None;
        };
        let n = usize::try_from(n.as_int()?).ok()?;
        let b = crate::back::base64_decode(bytes.as_str()?)?;
        let f = |i: usize| le_f32(b.get(i..).unwrap_or(&[]));
        if b.len() != 12 || out.len().saturating_add(n) > limit {
            return None;
        }
        out.extend(core::iter::repeat_n([f(0), f(4), f(8)], n));
    }
    Some(out)
}

/// Per `xyz` vertex, the first mesh vertex that shows it.
fn xyz_map(mesh: &file::Mesh, num_xyz: usize) -> Vec<Option<usize>> {
    let mut map = alloc::vec![None; num_xyz];
    for (k, v) in mesh.vertices.iter().enumerate() {
        if let Some(slot) = usize::try_from(v.xyz).ok().and_then(|i| map.get_mut(i))
            && slot.is_none()
        {
            *slot = Some(k);
        }
    }
    map
}

fn le_f32(b: &[u8]) -> f32 {
    f32::from_le_bytes([
        b.first().copied().unwrap_or(0),
        b.get(1).copied().unwrap_or(0),
        b.get(2).copied().unwrap_or(0),
        b.get(3).copied().unwrap_or(0),
    ])
}

/// The model the `md2.*` extras describe, if they are complete and consistent with the
/// scene (frame count, names from the target names, vertices recovered).
fn model_from_extras(scene: &Scene) -> Option<Model> {
    model_from_extras_with(scene, None)
}

/// The way back's recovery of a scene's frames, kept by [`record_extras`] for its patch
/// check: the merged mesh, its frames' bounds, the file-vertex → scene-vertex map, each
/// frame's `(scale, translate)` and the recovered packed vertices with the fixes applied.
struct Recovered {
    merged: crate::back::Merged,
    bounds: Vec<([f32; 3], [f32; 3])>,
    map: Vec<Option<usize>>,
    quant: Vec<([f32; 3], [f32; 3])>,
    vertices: Vec<Vec<raw::TriVertex>>,
}

/// The bits of a frame's `(scale, translate)`, to compare two without `-0.0 == 0.0`.
fn quant_bits(q: &[([f32; 3], [f32; 3])]) -> impl Iterator<Item = [u32; 6]> + '_ {
    q.iter().map(|(s, t)| {
        let [a, b, c] = s.map(f32::to_bits);
        let [d, e, f] = t.map(f32::to_bits);
        [a, b, c, d, e, f]
    })
}

/// [`model_from_extras`], taking the frames' bounds from `known` and the frames' packed
/// vertices too when its map and quantisation are the ones this recovery builds (they
/// always are for the scene `known` was made from; the check keeps the two paths the same
/// by construction).
fn model_from_extras_with(scene: &Scene, known: Option<Recovered>) -> Option<Model> {
    let e = &scene.extras;
    let skin_width = i32::try_from(e.get("md2.skinwidth")?.as_int()?).ok()?;
    let skin_height = i32::try_from(e.get("md2.skinheight")?.as_int()?).ok()?;
    let skins = e
        .get("md2.skins")?
        .as_list()?
        .iter()
        .map(|v| {
            let mut b = v.as_str().map(|s| s.as_bytes().to_vec())?;
            b.truncate(raw::SKIN_NAME_LEN);
            Some(b)
        })
        .collect::<Option<Vec<_>>>()?;
    let st_bytes = blob(scene, "md2.st")?;
    let st: Vec<[i16; 2]> = st_bytes
        .chunks_exact(4)
        .filter_map(|c| match *c {
            [a, b, c, d] => Some([i16::from_le_bytes([a, b]), i16::from_le_bytes([c, d])]),
            _ => None,
        })
        .collect();
    let tri_bytes = blob(scene, "md2.triangles")?;
    let word = |c: &[u8], i: usize| {
        u16::from_le_bytes([
            c.get(i).copied().unwrap_or(0),
            c.get(i.wrapping_add(1)).copied().unwrap_or(0),
        ])
    };
    let triangles: Vec<Triangle> = tri_bytes
        .chunks_exact(12)
        .map(|c| Triangle {
            xyz: [word(c, 0), word(c, 2), word(c, 4)],
            st: [word(c, 6), word(c, 8), word(c, 10)],
        })
        .collect();
    let num_xyz = usize::try_from(e.get("md2.num_xyz")?.as_int()?).ok()?;
    // Triangles index vertices with 16-bit words, so no file needs more than 65,536: a
    // larger count is hostile extras, and must not size an allocation.
    if num_xyz > usize::from(u16::MAX).saturating_add(1) {
        return None;
    }
    let (merged, shown, known) = match known {
        Some(k) => (k.merged, k.bounds, Some((k.map, k.quant, k.vertices))),
        None => {
            let merged = merge(scene)?;
            let shown = target_frame_bounds(&merged);
            (merged, shown, None)
        }
    };
    let names = &merged.target_names;
    let scales = scales_of(e.get("md2.scales")?, shown.len())?;
    if scales.len() != shown.len() || names.len() != merged.targets.len() {
        return None;
    }
    let mut quant: Vec<([f32; 3], [f32; 3])> = scales
        .into_iter()
        .zip(&shown)
        .map(|(sc, (lo, _))| (sc, *lo))
        .collect();
    if let Some(t) = e.get("md2.translates") {
        let b = crate::back::base64_decode(t.as_str()?)?;
        if b.len().checked_rem(16) != Some(0) {
            return None;
        }
        for r in b.chunks_exact(16) {
            let i = usize::try_from(u32::from_le_bytes(r.get(..4)?.try_into().ok()?)).ok()?;
            let f = |k: usize| le_f32(r.get(k..).unwrap_or(&[]));
            quant.get_mut(i)?.1 = [f(4), f(8), f(12)];
        }
    }
    let mut model = Model {
        skin_width,
        skin_height,
        skins,
        st,
        triangles,
        frames: Vec::new(),
        gl_commands: e.get("md2.gl_commands")?.as_bool()?,
    };
    // The mesh the adapter makes of these triangles: one frame of placeholder vertices.
    model.frames = alloc::vec![FrameData {
        vertices: alloc::vec![raw::TriVertex::default(); num_xyz],
        ..FrameData::default()
    }];
    let skeleton = file::write(&Model {
        gl_commands: false,
        ..model.clone()
    })
    .ok()?;
    let map = xyz_map(&Md2::parse(&skeleton).ok()?.soft_mesh(), num_xyz);
    drop(skeleton);
    let single = match e.get("md2.normal_index") {
        Some(v) => Some(u8::try_from(v.as_int()?).ok()?),
        None => None,
    };
    let vertices = match known {
        Some((m, q, v)) if m == map && quant_bits(&q).eq(quant_bits(&quant)) => v,
        _ => {
            let mut vertices = recover_target_vertices(
                &merged,
                &map,
                &|f| quant.get(f).copied().unwrap_or(([0.0; 3], [0.0; 3])),
                single,
                &[],
            );
            if let Some(fixes) = e.get("md2.vertex_fixes") {
                apply_vertex_fixes(&mut vertices, &crate::back::base64_decode(fixes.as_str()?)?)?;
            }
            vertices
        }
    };
    let frame0 = e.get("md2.frame0")?.as_str()?;
    model.frames = quant
        .iter()
        .zip(vertices)
        .enumerate()
        .map(|(i, ((scale, translate), vertices))| {
            let name = match i.checked_sub(1) {
                None => frame0,
                Some(t) => names.get(t).map_or("", String::as_str),
            };
            let mut name = name.as_bytes().to_vec();
            name.truncate(raw::FRAME_NAME_LEN);
            FrameData {
                name,
                scale: *scale,
                translate: *translate,
                vertices,
            }
        })
        .collect();
    Some(model)
}

back_impl!(
    Model,
    Md2,
    "md2.patch",
    "MD2",
    model_from_extras,
    with_gl_commands
);

/// Quake II's GL renderer walks the GL command list whatever `num_glcmds` says: a model
/// written for it carries one, built when the original file had none.
fn with_gl_commands(model: &mut Model, _: Engine) {
    model.gl_commands = true;
}

/// The owned MD2 model of `scene` (see the module docs), checked against
/// [`BackOptions::engine`]'s limits.
///
/// ```
/// use idmodel_md2::{Md2, Model, write};
/// use idmodel_scene::{Options, back::BackOptions};
/// let bytes = write(&Model::example())?;
/// let scene = idmodel_scene::md2::scene(&Md2::parse(&bytes)?, "m", &Options::default())?;
/// let model = idmodel_scene::md2::from_scene(&scene, &BackOptions::default())?;
/// assert_eq!(model, Model::example());
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn from_scene(scene: &Scene, options: &BackOptions) -> Result<Model> {
    model_of(scene, options)
}

/// The MD2 file of `scene`: [`from_scene`] written, with the `md2.patch` extra applied
/// when the model came from unedited extras (then the bytes are the original file's).
///
/// ```
/// use idmodel_md2::{Md2, Model, write};
/// use idmodel_scene::{Options, back::BackOptions};
/// let bytes = write(&Model::example())?;
/// let scene = idmodel_scene::md2::scene(&Md2::parse(&bytes)?, "m", &Options::default())?;
/// assert_eq!(idmodel_scene::md2::to_bytes(&scene, &BackOptions::default())?, bytes);
/// # Ok::<(), Box<dyn core::error::Error>>(())
/// ```
pub fn to_bytes(scene: &Scene, options: &BackOptions) -> Result<Vec<u8>> {
    bytes_of::<Model>(scene, options)
}

/// The skin size: the first material's embedded image's, scaled to Quake II's height
/// limit ([`md2_skin_size`]: the PCX skin is written at that size), else the extras,
/// else the grid the texture coordinates sit on ([`texel_grid`]: the original file's
/// size, kept even when the engine refuses it), else 256².
fn skin_size(scene: &Scene, material: Option<usize>, uvs: &[[f32; 2]]) -> (i32, i32) {
    let image = material
        .and_then(|m| scene.materials.get(m))
        .or(scene.materials.first())
        .and_then(|m| m.image.as_ref());
    if let Some((width, height)) = image.and_then(Image::pixel_size) {
        let (width, height) = md2_skin_size(width, height);
        if let (Ok(w), Ok(h)) = (i32::try_from(width), i32::try_from(height)) {
            return (w, h);
        }
    }
    let get = |k: &str| {
        scene
            .extras
            .get(k)
            .and_then(Value::as_int)
            .and_then(|v| i32::try_from(v).ok())
            .filter(|&v| v > 0)
    };
    let grid = |axis: usize, key: &str| {
        get(key)
            .or_else(|| texel_grid(uvs.iter().filter_map(|uv| uv.get(axis).copied())))
            .unwrap_or(256)
    };
    (grid(0, "md2.skinwidth"), grid(1, "md2.skinheight"))
}

/// The skin size, along one axis, that texture coordinates written as `s / size` came from:
/// the smallest `size` in `8..=4096` that puts every coordinate within 1/1024 texel of a
/// whole texel (f32 keeps `s / size` to 1/4000 texel), when at least four distinct
/// coordinates other than 0 and 1 say so; with two or three, the smallest power of two
/// that does (fewer values fit many grids by chance). A model whose skin image was not
/// found keeps its texture coordinates this way through a tool that drops the extras
/// (Blender's glTF exporter with its defaults) instead of having them re-quantised on
/// 256 × 256. Where every texel a model uses is a multiple of some number, the grid found
/// is the skin's divided by it: the coordinates are the same. `None` where no grid fits
/// (coordinates an editor moved freely are quantised on 256).
///
/// ```
/// use idmodel_scene::md2::texel_grid;
/// let us: Vec<f32> = (0..40).map(|s: u16| f32::from(s * 7) / 296.0).collect();
/// assert_eq!(texel_grid(us.iter().copied()), Some(296));
/// // One coordinate moved by an editor, 0.37 texel off the grid: no grid fits.
/// let moved = us.iter().enumerate().map(|(i, u)| if i == 5 { u + 0.37 / 296.0 } else { *u });
/// assert_eq!(texel_grid(moved), None);
/// // Two coordinates: only a power of two is believed.
/// assert_eq!(texel_grid([7.0 / 512.0, 504.0 / 512.0].into_iter()), Some(512));
/// assert_eq!(texel_grid([7.0 / 300.0, 293.0 / 300.0].into_iter()), None);
/// // One coordinate fits every grid: nothing to tell.
/// assert_eq!(texel_grid([0.0, 0.5, 1.0].into_iter()), None);
/// ```
pub fn texel_grid(values: impl Iterator<Item = f32>) -> Option<i32> {
    const MIN: u16 = 8;
    const MAX: u16 = 4096;
    let mut distinct: Vec<f32> = values
        .filter(|u| u.is_finite() && *u != 0.0 && *u != 1.0)
        .collect();
    distinct.sort_by(f32::total_cmp);
    distinct.dedup();
    let fits = |size: &u16| {
        let size = f32::from(*size);
        distinct.iter().all(|&u| {
            let s = u * size;
            libm::fabsf(s - libm::rintf(s)) <= 1.0 / 1024.0
        })
    };
    let size = match distinct.len() {
        0 | 1 => None,
        2 | 3 => (3..=12).map(|p: u32| 1u16 << p).find(fits),
        _ => (MIN..=MAX).find(fits),
    };
    size.map(i32::from)
}

fn texel(u: f32, size: i32) -> i16 {
    let s = libm::rintf(u * f32::from(i16::try_from(size).unwrap_or(i16::MAX)));
    let s = s.clamp(f32::from(i16::MIN), f32::from(i16::MAX));
    // In the i16 range after the clamp; `as` turns NaN into 0.
    #[allow(clippy::as_conversions, clippy::cast_possible_truncation)]
    let t = s as i16;
    t
}

fn frame_name(name: &str) -> Vec<u8> {
    let mut b: Vec<u8> = name.bytes().filter(|&c| c != 0).collect();
    b.truncate(raw::FRAME_NAME_LEN.saturating_sub(1));
    b
}

/// The model built from the geometry alone (see the module docs).
fn fresh(scene: &Scene, options: &BackOptions) -> Result<Model> {
    let merged = merge(scene).ok_or_else(|| Error::new("the scene has no triangles to write"))?;
    let (skin_width, skin_height) = skin_size(scene, merged.material, &merged.uvs);
    let mut st_index: BTreeMap<[i16; 2], u16> = BTreeMap::new();
    let mut st = Vec::new();
    let mut vertex_st = Vec::with_capacity(merged.uvs.len());
    for uv in &merged.uvs {
        let key = [texel(uv[0], skin_width), texel(uv[1], skin_height)];
        let next = u16::try_from(st.len()).unwrap_or(u16::MAX);
        let i = *st_index.entry(key).or_insert_with(|| {
            st.push(key);
            next
        });
        vertex_st.push(i);
    }
    let too_many = |what: &str, n: usize| {
        Error::new(format!(
            "the scene has {n} {what}; an MD2 indexes at most 32768 (Quake II refuses more than 2048 vertices)"
        ))
    };
    if merged.positions.len() > 32768 {
        return Err(too_many("vertices", merged.positions.len()));
    }
    if st.len() > 32768 {
        return Err(too_many("texture coordinates", st.len()));
    }
    let triangles = merged
        .indices
        .chunks_exact(3)
        .filter_map(|t| match *t {
            [a, b, c] => Some([a, b, c]),
            _ => None,
        })
        .map(|t| {
            let xyz = t.map(|i| u16::try_from(i).unwrap_or(u16::MAX));
            let st = xyz.map(|i| vertex_st.get(usize::from(i)).copied().unwrap_or(0));
            Triangle { xyz, st }
        })
        .collect();
    let mut frames = Vec::new();
    for (_, clip) in sample_frames(scene, &merged, options, "the sampler's")? {
        for f in clip {
            let (lo, hi) = bounds(f.positions.iter().copied());
            let scale = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]].map(|d| d / 255.0);
            let vertices = f
                .positions
                .iter()
                .zip(&f.normals)
                .map(|(p, n)| raw::TriVertex {
                    v: [
                        quantise(p[0], lo[0], scale[0]),
                        quantise(p[1], lo[1], scale[1]),
                        quantise(p[2], lo[2], scale[2]),
                    ],
                    light_normal_index: nearest_normal(*n),
                })
                .collect();
            frames.push(FrameData {
                name: frame_name(&f.name),
                scale,
                translate: lo,
                vertices,
            });
        }
    }
    let names: Vec<&str> = match &options.skin_names {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => scene.materials.iter().map(|m| m.name.as_str()).collect(),
    };
    let skins = names
        .into_iter()
        .map(|m| {
            let mut b = m.as_bytes().to_vec();
            b.retain(|&c| c != 0);
            b.truncate(raw::SKIN_NAME_LEN.saturating_sub(1));
            b
        })
        .collect();
    let (triangles, frames) = weld(triangles, frames);
    Ok(Model {
        skin_width,
        skin_height,
        skins,
        st,
        triangles,
        frames,
        gl_commands: true,
    })
}

/// Merges the `xyz` vertices whose packed position and normal are the same in every
/// frame, keeping the first one's place: the file draws exactly the same, and a mesh an
/// editor split at every texture seam and sharp edge (a glTF has one texture coordinate
/// per vertex, MD2 one per triangle corner) comes back with the vertex count an MD2 of it
/// needs, which is what Quake II's vertex limit counts.
fn weld(triangles: Vec<Triangle>, frames: Vec<FrameData>) -> (Vec<Triangle>, Vec<FrameData>) {
    let n = frames.first().map_or(0, |f| f.vertices.len());
    if frames.iter().any(|f| f.vertices.len() != n) {
        return (triangles, frames);
    }
    let mut first: BTreeMap<Vec<u8>, u16> = BTreeMap::new();
    let mut kept: Vec<usize> = Vec::new();
    let mut remap: Vec<u16> = Vec::with_capacity(n);
    for i in 0..n {
        let key: Vec<u8> = frames
            .iter()
            .filter_map(|f| f.vertices.get(i))
            .flat_map(|v| [v.v[0], v.v[1], v.v[2], v.light_normal_index])
            .collect();
        let next = u16::try_from(kept.len()).unwrap_or(u16::MAX);
        let j = *first.entry(key).or_insert_with(|| {
            kept.push(i);
            next
        });
        remap.push(j);
    }
    if kept.len() == n {
        return (triangles, frames);
    }
    let triangles = triangles
        .into_iter()
        .map(|t| Triangle {
            xyz: t
                .xyz
                .map(|i| remap.get(usize::from(i)).copied().unwrap_or(i)),
            st: t.st,
        })
        .collect();
    let frames = frames
        .into_iter()
        .map(|f| FrameData {
            vertices: kept
                .iter()
                .filter_map(|&i| f.vertices.get(i).copied())
                .collect(),
            ..f
        })
        .collect();
    (triangles, frames)
}
